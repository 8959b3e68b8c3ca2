"""Hasegawa, Matsuo, Murata & Miyahara 2001: our discussion of each experiment (shown under it
in the report), its numbers filled from the run (reproduce/discussion.py): the facts the
discussions state (`Discussion.facts`), then the discussions. What the other readings of the
paper give in runs of their own is the sensitivity study's, in docs/reproductions.md
(scripts/hasegawa_sensitivity.py)."""

from __future__ import annotations

from fairsim.models import hasegawa01 as model
from fairsim.reproduce.claims import Context
from fairsim.reproduce.discussion import Discussion
from fairsim.reproduce.reproductions.hasegawa01.network import ACCESS, FLOWS, TAU, ered_p, packets
from fairsim.reproduce.reproductions.hasegawa01.reading import (
    PARTS,
    kbit,
    losses,
    mean_below,
    mean_window,
    measured,
    sweep,
    timeouts,
)


def jain_of(ctx: Context, pair: str, exp: str = "forward") -> dict[float, float]:
    """BW -> Jain's index of `pair`'s relative throughputs in experiment `exp` (a model's
    experiment, `forward` or `reverse`, reads its DRR pairs from the experiment that runs them)."""
    access = list(ACCESS.values())
    return {
        bw: model.weighted_jain([kbit(m, pair, f) for f in FLOWS], access)
        for bw, m in sweep(ctx, exp, exp in PARTS)
    }


def relative_of(ctx: Context, pair: str, exp: str = "forward") -> dict[float, list[float]]:
    """BW -> `pair`'s four relative throughputs (throughput / input line) in experiment `exp`."""
    return {bw: [kbit(m, pair, f) / k for f, k in ACCESS.items()] for bw, m in sweep(ctx, exp, exp in PARTS)}


def mean_jain(pair: str, exp: str = "forward"):
    """A fact: `pair`'s Jain index averaged over BW below 960 kb/s."""
    return lambda ctx: mean_below(jain_of(ctx, pair, exp))


def jain_at(pair: str, exp: str = "forward", bw: float | None = None):
    """A fact: `pair`'s Jain index at `bw` (the smallest BW of the sweep if `None`)."""

    def fact(ctx: Context) -> float:
        j = jain_of(ctx, pair, exp)
        return j[min(j) if bw is None else bw]

    return fact


def lowest_jain(pair: str, exp: str = "forward", where: bool = False):
    """A fact: `pair`'s lowest Jain index over the sweep (`where`: the BW it is at)."""

    def fact(ctx: Context) -> float:
        j = jain_of(ctx, pair, exp)
        bw = min(j, key=lambda x: (j[x], x))
        return bw if where else j[bw]

    return fact


def relative_at(pair: str, flow: str, exp: str = "forward", bw: float | None = None):
    """A fact: connection `flow`'s relative throughput under `pair` at `bw` (the smallest BW of
    the sweep if `None`)."""

    def fact(ctx: Context) -> float:
        r = relative_of(ctx, pair, exp)
        return r[min(r) if bw is None else bw][FLOWS.index(flow)]

    return fact


def others_at(pair: str, flow: str, exp: str = "forward", lowest: bool = True):
    """A fact: the smallest (`lowest`) or largest relative throughput under `pair` of the
    connections other than `flow`, at the smallest BW of the sweep."""

    def fact(ctx: Context) -> float:
        r = relative_of(ctx, pair, exp)
        rest = [x for f, x in zip(FLOWS, r[min(r)], strict=True) if f != flow]
        return min(rest) if lowest else max(rest)

    return fact


def kbit_at(pair: str, flow: str, exp: str = "forward"):
    """A fact: connection `flow`'s throughput (kb/s) under `pair` at the smallest BW."""

    def fact(ctx: Context) -> float:
        points = dict(sweep(ctx, exp, exp in PARTS))
        return kbit(points[min(points)], pair, flow)

    return fact


def drops_of(pair: str, exp: str = "forward"):
    """A fact: `pair`'s packets dropped, summed over its connections and the sweep's BW."""
    return lambda ctx: sum(sum(v) for v in losses(ctx, pair, exp).values())


def timeouts_at(pair: str, flow: str, exp: str = "forward", what: str = "timeouts"):
    """A fact: connection `flow`'s timeouts (or `what`) under `pair` at the smallest BW."""

    def fact(ctx: Context) -> float:
        t = timeouts(ctx, pair, exp, what)
        return t[min(t)][FLOWS.index(flow)]

    return fact


def closest_bw(pair: str, most: float = 880):
    """A fact: the BW up to `most` at which `pair`'s largest relative throughput is nearest its
    smallest."""

    def fact(ctx: Context) -> float:
        rel = relative_of(ctx, pair)
        return min((bw for bw in rel if bw <= most), key=lambda bw: (max(rel[bw]) / min(rel[bw]), bw))

    return fact


def relative_where(pair: str, flow: str, where, exp: str = "forward"):
    """A fact: connection `flow`'s relative throughput under `pair` at the BW the fact `where`
    gives."""

    def fact(ctx: Context) -> float:
        return relative_of(ctx, pair, exp)[where(ctx)][FLOWS.index(flow)]

    return fact


def eq14_total(ctx: Context) -> float:
    """Eq. 14's four throughputs at the smallest BW of the sweep, summed (kb/s)."""
    bw = min(bw for bw, _ in sweep(ctx, "forward"))
    rates = model.reno_red_throughput([packets(k) for k in ACCESS.values()], packets(bw), TAU, 0.02)
    return sum(model.kbps(r) for r in rates)


def total_at(pair: str, exp: str = "forward"):
    """A fact: `pair`'s four throughputs at the smallest BW, summed (kb/s)."""
    return lambda ctx: sum(kbit_at(pair, f, exp)(ctx) for f in FLOWS)


def ered_p_at(flow: str, low: bool = True):
    """A fact: Enhanced RED's p_i of connection `flow` at the sweep's smallest BW (or at 880 kb/s),
    from the paper's iteration as the runs use it."""

    def fact(ctx: Context) -> float:
        bws = [bw for bw, _ in sweep(ctx, "forward")]
        return ered_p(min(bws) if low else 880)[flow]

    return fact


def ered_p_most(flow: str):
    """A fact: the largest p_i of connection `flow` over the sweep's BW below 960 kb/s."""
    return lambda ctx: max(ered_p(bw)[flow] for bw, _ in sweep(ctx, "forward") if bw < 960)


def ered_p_relative(ctx: Context) -> float:
    """The 64 kb/s connection's p_i at the smallest BW when the iteration adjusts the connection
    with the largest relative difference (the other reading of the text)."""
    bw = min(bw for bw, _ in sweep(ctx, "forward"))
    return ered_p(bw, difference="relative")["c1"]


def window_at(flow: str, smallest: bool = True):
    """A fact: connection `flow`'s window under Vegas/FIFO, averaged over the measured interval,
    at the smallest (or largest) BW of the experiment `windows`."""

    def fact(ctx: Context) -> float:
        points = dict(sweep(ctx, "windows"))
        m = points[min(points) if smallest else max(points)]
        return mean_window(m, flow, *measured(m))

    return fact


def eq19_at(flow: str | None = None, smallest: bool = True, most: bool = False):
    """A fact: Vegas's converged window by Eq. 19 (α = 1, β = 3) of connection `flow` (or the
    least, `most`: the largest, of the four) at the smallest (or largest) BW of `windows`."""

    def fact(ctx: Context) -> float:
        bws = [bw for bw, _ in sweep(ctx, "windows")]
        bw = min(bws) if smallest else max(bws)
        w = model.vegas_converged([packets(k) for k in ACCESS.values()], packets(bw), TAU).window
        if flow is not None:
            return w[FLOWS.index(flow)]
        return max(w) if most else min(w)

    return fact


def measured_s(exp: str = "forward"):
    """A fact: the length (s) of the measured interval of experiment `exp`'s runs."""

    def fact(ctx: Context) -> float:
        start, end = measured(sweep(ctx, exp, joined=False)[0][1])
        return end - start

    return fact


def _drr_facts(exp: str) -> dict:
    """The facts of a DRR experiment's discussion: every DRR pair's mean and lowest index, at
    400 kb/s and where it is lowest, its connections there and its drops."""
    facts: dict = {}
    for pair, name in (
        ("Reno/DRR", "drr"),
        ("Reno/DRR 2q", "drr_2q"),
        ("Reno/DRR+", "drr_plus"),
        ("Reno/DRR+ 2q", "drr_plus_2q"),
        ("Vegas/DRR", "vegas_drr"),
    ):
        lowest_at = lowest_jain(pair, exp, where=True)
        facts |= {
            f"{name}_mean": mean_jain(pair, exp),
            f"{name}_lowest": lowest_jain(pair, exp),
            f"{name}_lowest_at": lowest_at,
            f"{name}_at_400": jain_at(pair, exp),
            f"{name}_drops": drops_of(pair, exp),
            f"{name}_others_low": others_at(pair, "c4", exp),
            f"{name}_others_high": others_at(pair, "c4", exp, lowest=False),
        }
        for flow in FLOWS:
            facts[f"{name}_{flow}_400"] = relative_at(pair, flow, exp)
            facts[f"{name}_{flow}_at_lowest"] = relative_where(pair, flow, lowest_at, exp)
    return facts


DRR_DISCUSSION = Discussion(
    """
The DRR and DRR+ pairs of the forward model, with each DRR queue its own 60 KB (30 packets) in a
port of 240 KB, the four queues' sum, so that an arrival is dropped only when its own queue is
full (the scenario's notes quote the paper's "large buffer ... so that every connection is given
a sufficient amount of buffer"). The claims that read these runs are the forward experiment's.
Jain's index of the relative throughputs averaged over BW below 960 kb/s: Reno DRR
{{drr_mean|.3f}} ({{drr_lowest|.3f}} or more at every BW); DRR with two queues
{{drr_2q_mean|.3f}} ({{drr_2q_at_400|.3f}} at 400 kb/s, where the 512 kb/s connection gets
{{drr_2q_c4_400|.2f}} of its line and its queue-mate {{drr_2q_c3_400|.2f}}); DRR+
{{drr_plus_mean|.3f}}; DRR+ with two queues {{drr_plus_2q_mean|.3f}} (Enhanced RED's p_i inside
each queue, applied as RED's p is); Vegas DRR {{vegas_drr_mean|.3f}}, with {{vegas_drr_drops|.0f}}
packets dropped.
""",
    facts=_drr_facts("forward-drr"),
)
DIVIDED_DISCUSSION = Discussion(
    """
The option `divided`: the router's 60 KB divided equally among the queues, 15 KB (7 packets)
each of four and 30 KB each of two, in the port's 60 KB (§2.1: "The buffer at the router is
logically divided into multiple queues"). Jain's index averaged over BW below 960 kb/s: Reno
DRR {{drr_mean|.3f}} ({{drr_at_400|.3f}} at 400 kb/s, where the relative throughputs are
{{drr_c1_400|.2f}}, {{drr_c2_400|.2f}}, {{drr_c3_400|.2f}} and {{drr_c4_400|.2f}}, from the
smallest input line to the largest: a 7-packet queue tail-drops the larger windows' bursts);
DRR+ {{drr_plus_mean|.3f}}, with {{drr_plus_drops|,.0f}} packets dropped against DRR's
{{drr_drops|,.0f}} (a 15 KB queue leaves RED, whose th_min is 10 KB, little room before it is
full); two queues {{drr_2q_mean|.3f}}; DRR+ with two queues {{drr_plus_2q_mean|.3f}}; Vegas DRR
{{vegas_drr_mean|.3f}}, with {{vegas_drr_drops|.0f}} packets dropped, its lowest index
{{vegas_drr_lowest|.3f}} at {{vegas_drr_lowest_at|.0f}} kb/s, where its 512 kb/s connection
gets {{vegas_drr_c4_at_lowest|.2f}} of its line (which we have not traced).
""",
    facts=_drr_facts("drr-divided"),
)
SHARED_DISCUSSION = Discussion(
    """
The option `shared`: every queue may hold 60 KB, but all share the port's one 60 KB, which
refuses any arrival once full, the other reading of the paper. At 400 kb/s Reno's DRR
gives its 512 kb/s connection {{drr_c4_400|.2f}} of its line and the others
{{drr_others_low|.2f}} to {{drr_others_high|.2f}} (Jain's index {{drr_at_400|.3f}}); its lowest
index is {{drr_lowest|.3f}}, at {{drr_lowest_at|.0f}} kb/s, and it averages {{drr_mean|.3f}}
over BW below 960 kb/s. Averaged likewise: DRR+ {{drr_plus_mean|.3f}}, two queues
{{drr_2q_mean|.3f}}, DRR+ with two queues {{drr_plus_2q_mean|.3f}}, Vegas DRR
{{vegas_drr_mean|.3f}} (with {{vegas_drr_drops|.0f}} packets dropped).
""",
    facts=_drr_facts("drr-shared"),
)
REVERSE_DRR_DISCUSSION = Discussion(
    """
DRR in the reverse-traffic model with each queue its own 60 KB in a port of 240 KB, as in
forward-drr: Jain's index {{drr_mean|.3f}} averaged over BW below 960 kb/s, {{drr_lowest|.3f}}
or more at every BW. The other readings of DRR's buffer run on the forward model only
(experiments drr-divided and drr-shared).
""",
    facts={
        "drr_mean": mean_jain("Reno/DRR", "reverse-drr"),
        "drr_lowest": lowest_jain("Reno/DRR", "reverse-drr"),
    },
)
REVERSE_DISCUSSION = Discussion(
    """
Reconstructed from the paper's sentence and figure fragments (the scenario's notes say how):
the four connections come from the ISP side over fast lines, share router A's line of BW, and
leave router B over their own subscriber lines of 64 to 512 kb/s. Jain's index at 400 kb/s:
FIFO {{reverse-same-tendencies:FIFO_at_400|.3f}}, RED {{reverse-same-tendencies:RED_at_400|.3f}},
Enhanced RED {{ered_at_400|.3f}}; averaged over BW below 960 kb/s: FIFO
{{reverse-same-tendencies:FIFO mean|.3f}}, RED {{reverse-same-tendencies:RED mean|.3f}},
Enhanced RED {{reverse-same-tendencies:ERED mean|.3f}} and DRR (the experiment reverse-drr, each
queue its own 60 KB) {{reverse-same-tendencies:DRR mean|.3f}}. At 400 kb/s Enhanced RED's 64 kb/s
connection gets {{ered_c1_400|.2f}} of its line, after {{ered_c1_timeouts|.0f}} timeouts in the
{{measured_s|.0f}} s measured, as in the forward model (whose discussion says why). The claim
reverse-same-tendencies ({{reverse-same-tendencies}}) asks, with the paper's "fairly good"
improvement by Enhanced RED, that Enhanced RED's average be above RED's.
""",
    facts={
        "ered_at_400": jain_at("Reno/ERED", "reverse"),
        "ered_c1_400": relative_at("Reno/ERED", "c1", "reverse"),
        "ered_c1_timeouts": timeouts_at("Reno/ERED", "c1", "reverse"),
        "measured_s": measured_s("reverse"),
    },
)
WINDOWS_DISCUSSION = Discussion(
    """
One replication per BW with every connection's window recorded, averaged over the measurement
interval (figure `fig12c`). The paper finds the converged window "independent on each
connection's input link bandwidth". At 400 kb/s ours are {{c1_400|.1f}}, {{c2_400|.1f}},
{{c3_400|.1f}} and {{c4_400|.1f}} packets, from the smallest input line to the largest, and the
analysis's Eq. 19 with α = 1, β = 3 gives {{eq19_least_400|.1f}} to {{eq19_most_400|.1f}}; at
960 kb/s the 512 kb/s connection's window is {{c4_960|.1f}} packets, Eq. 19's
{{eq19_c4_960|.1f}}. Eq. 19's round trip has no access-line serialisation in it (a packet takes
a quarter of a second on the 64 kb/s line); ours does.
""",
    facts={
        **{f"{f}_400": window_at(f) for f in FLOWS},
        "c4_960": window_at("c4", smallest=False),
        "eq19_least_400": eq19_at(),
        "eq19_most_400": eq19_at(most=True),
        "eq19_c4_960": eq19_at("c4", smallest=False),
    },
)
FORWARD_DISCUSSION = Discussion(
    """
The paper's curves are lost, so its findings are the claims; the figures are ours. Jain's index
of the relative throughputs (1: every connection at the same fraction of its input line),
averaged over BW below 960 kb/s: Reno FIFO {{ranking:Reno FIFO|.3f}}, RED
{{ranking:Reno RED|.3f}}, Enhanced RED {{ranking:Reno ERED|.3f}}, DRR {{ranking:Reno DRR|.3f}},
DRR with two queues {{ranking:Reno DRR 2q|.3f}}, DRR+ {{ranking:Reno DRR plus|.3f}}, DRR+ with
two queues {{ranking:Reno DRR plus 2q|.3f}}; Vegas FIFO {{vegas-fifo:Vegas_mean|.3f}}, RED
{{vegas-red:RED_mean|.3f}}, DRR {{vegas-drr:Vegas_DRR_mean|.3f}}. The DRR pairs ran in the
experiment forward-drr, each DRR queue with its own 60 KB in a port of 240 KB; the other two
readings of DRR's buffer are the experiments drr-divided and drr-shared. Every RED (plain RED,
Enhanced RED and DRR+'s) drops each arrival with its p while the average queue is between the
thresholds, as §3.2.1 describes p (the scenario's notes quote it).

**FIFO** (fifo-unfair: {{fifo-unfair}}). The largest relative throughput is at least
{{fifo-unfair:smallest_spread_to_880|.2f}}× the smallest at every BW up to 880 kb/s; the claim
reads "cannot provide fairness among connections at all" as at least 1.5× everywhere. The four
are closest at {{fifo_closest|.0f}} kb/s: {{fifo_c1_closest|.2f}}, {{fifo_c2_closest|.2f}},
{{fifo_c3_closest|.2f}} and {{fifo_c4_closest|.2f}} of their input lines, the Optimal
{{fifo_optimal_closest|.2f}}. A smaller connection gets more throughput than a larger one at
{{fifo-unfair:inversions_up_to_560}} BW up to 560 kb/s, and at 400 kb/s the 512 kb/s connection
gets {{fifo_c4_400|.2f}} of its line (the paper: the connection with the larger input line
suffers the more bursty losses).

**RED against FIFO** (red-better-than-fifo: {{red-better-than-fifo}}). RED's index averaged
{{red-better-than-fifo:RED_mean|.3f}}, FIFO's {{red-better-than-fifo:FIFO_mean|.3f}}, a
difference of {{red-better-than-fifo:RED_minus_FIFO|+.3f}}; DRR's over RED is
{{drr-better-than-fifo-red:Reno DRR minus RED|+.3f}}. RED's index is
{{red-better-than-fifo:RED_at_400|.3f}} at 400 kb/s and {{red-better-than-fifo:RED_at_880|.3f}}
at the largest BW up to 880 kb/s.

**RED at small lines** (red-equal-at-small-bw: {{red-equal-at-small-bw}}). At 400 kb/s the
equal share BW/4 is above the 64 kb/s line, which gets {{red_c1_400|.0f}} kb/s; the three larger
connections get {{red_c2_400|.0f}}, {{red_c3_400|.0f}} and {{red_c4_400|.0f}} kb/s, the largest
{{red-equal-at-small-bw:their_throughput_max_over_min|.2f}}× the smallest (all four:
{{red-equal-at-small-bw:all_four_max_over_min|.2f}}×), and the four lose shares of what they
send within {{red-equal-at-small-bw:loss_max_over_min|.2f}}× of each other. The claim reads
"almost identical" and "almost equal" as at most 1.5× apart; its tolerance says why.

**The analysis of RED** (red-analysis: {{red-analysis}}). As Figure 10's analysis predicts,
RED's relative throughputs fall with the input line at
{{red-analysis:points_in_model_order_to_640}} of the {{red-analysis:points_to_640}} BW up to
640 kb/s. Eq. 14's throughputs are within 15% of ours at
{{red-analysis:points_within_15_percent}} of {{red-analysis:points}} BW
({{red-analysis:largest_deviation|.0%}} off at worst): as we read Eqs. 10-11 the model's four
throughputs add up to more than the line below 960 kb/s ({{eq14_total_400|.0f}} kb/s at
400 kb/s, where ours add up to {{red_total_400|.0f}}), so its curves sit above ours at small
lines (figure `fig10`).

**Enhanced RED** (ered-fairer: {{ered-fairer}}). Its index averaged
{{ered-fairer:ERED_mean|.3f}} against RED's {{ered-fairer:RED_mean|.3f}}, above RED's at
{{ered-fairer:points_ERED_better}} of {{ered-fairer:points}} BW. Its p_i are the paper's
iteration on its own analysis, adjusting at each step the connection with the largest
difference from its ideal in packets/s (the text's "largest difference"), applied as RED's p
is: p_1 is {{p1_400|.3f}} at 400 kb/s and {{p1_880|.3f}} at 880, p_4 at most {{p4_most|.4f}}
below 960 kb/s (figure `ered-p`). With them the model predicts throughputs in proportion to the
input lines. At 400 kb/s the 64 kb/s connection gets {{ered_c1_400|.2f}} of its line, the
others {{ered_others_low|.2f}} to {{ered_others_high|.2f}}. Its p_1 keeps its window at a few
packets (a packet takes a quarter of a second on its line), so three duplicate ACKs are rare: it
has
{{ered_c1_timeouts|.0f}} timeouts and {{ered_c1_fast|.0f}} fast retransmits in the
{{measured_s|.0f}} s measured (under RED {{red_c1_timeouts|.0f}} and {{red_c1_fast|.0f}}; figure `timeouts`), each
timeout at least the 1 s minimum RTO of idle time and doubled while they repeat. The analysis
counts a timeout only when two packets of one window are lost (Eq. 12), as one RTO of idle
time, and cannot see this; the paper gives neither its p_i nor how its model handles unequal
windows. That the timeouts are why Enhanced RED ranks below RED is a hypothesis the counts
support but no run isolates: no single change tried makes ered-fairer hold (the stability
section). The other readings of the iteration and of RED's p starve the 64 kb/s connection
further: taking the largest *relative* difference drives its p_1 to {{p1_relative_400|.2f}} at
400 kb/s, and Floyd and Jacobson's linear rule (the stability knob `RED p linear`) lets the
average pass th_max; the sensitivity study in docs/reproductions.md
(`scripts/hasegawa_sensitivity.py`) gives Jain's index under each, from runs of its own.

**DRR** (drr-fair: {{drr-fair}}; drr-2q-unfair-within: {{drr-2q-unfair-within}}; drr-plus:
{{drr-plus}}; drr-better-than-fifo-red: {{drr-better-than-fifo-red}}). With a queue per
connection, each its own 60 KB, Reno's DRR has Jain's index {{drr_lowest|.3f}} or more at every
BW and DRR+ {{drr_plus_lowest|.3f}} or more. Two connections sharing a DRR queue are off their
1 : 2 ratio by more than 20% at {{drr-2q-unfair-within:points_off_ratio}} of
{{drr-2q-unfair-within:points}} BW; DRR+ with two queues averages
{{drr-plus:DRR_plus_2q_mean|.3f}}, DRR with two {{drr-plus:DRR_2q_mean|.3f}}. DRR's index
averaged minus FIFO's and RED's: {{drr-better-than-fifo-red:Reno DRR minus FIFO|+.3f}} and
{{drr-better-than-fifo-red:Reno DRR minus RED|+.3f}} with Reno,
{{drr-better-than-fifo-red:Vegas DRR minus FIFO|+.3f}} and
{{drr-better-than-fifo-red:Vegas DRR minus RED|+.3f}} with Vegas. §3.3 sees Reno's DRR
"slightly degraded" at large lines, by tail-drop bursts and timeouts; those losses appear here
when the queues are small or share the 60 KB: with the 60 KB divided Reno's DRR averages
{{drr_divided_mean|.3f}}, with one shared pool {{drr_shared_mean|.3f}} (experiments drr-divided
and drr-shared, figure `drr-buffers`).

**Vegas** (vegas-fifo: {{vegas-fifo}}; vegas-red: {{vegas-red}}; vegas-red-analysis:
{{vegas-red-analysis}}; vegas-drr: {{vegas-drr}}). Under FIFO Vegas drops
{{vegas-fifo:drops|.0f}} packets and averages {{vegas-fifo:Vegas_mean|.3f}} against Reno's
{{vegas-fifo:Reno_mean|.3f}}; its 64 kb/s connection gets {{vegas-fifo:c1_lowest_relative|.2f}}
of its line at the least (the claim reads "almost 100%" as 0.95 or more). Vegas's α and β, which
the paper leaves at "some constant values", set how many packets each connection keeps queued;
the stability knob `Vegas α 2, β 4` tries others. Under RED Vegas drops {{vegas-red:drops|,.0f}} packets over the sweep, and its index
averaged minus FIFO's is {{vegas-red:RED_minus_FIFO|+.4f}}: its sign decides between the
Introduction's "RED offers less fairness than FIFO" and §4.2's "slightly improved", and the
claim accepts either within 0.05. Eq. 32's throughputs are within 15% of ours at
{{vegas-red-analysis:points_within_15_percent}} of {{vegas-red-analysis:points}} BW
({{vegas-red-analysis:largest_deviation|.0%}} off at worst). Under DRR Vegas drops
{{vegas-drr:drops|.0f}} packets, its index is {{vegas-drr:Vegas_DRR_lowest|.3f}} or more at
every BW and averages {{vegas-drr:Vegas_DRR_mean|.3f}} against Reno's DRR
{{vegas-drr:Reno_DRR_mean|.3f}}; at 400 kb/s its 512 kb/s connection gets
{{vegas_drr_c4_400|.2f}} of its line, the other three {{vegas_drr_others_low|.2f}} or more.
""",
    facts={
        "fifo_closest": closest_bw("Reno/FIFO"),
        **{f"fifo_{f}_closest": relative_where("Reno/FIFO", f, closest_bw("Reno/FIFO")) for f in FLOWS},
        "fifo_optimal_closest": lambda ctx: closest_bw("Reno/FIFO")(ctx) / sum(ACCESS.values()),
        "fifo_c4_400": relative_at("Reno/FIFO", "c4"),
        **{f"red_{f}_400": kbit_at("Reno/RED", f) for f in FLOWS},
        "red_total_400": total_at("Reno/RED"),
        "eq14_total_400": eq14_total,
        "p1_400": ered_p_at("c1"),
        "p1_880": ered_p_at("c1", low=False),
        "p4_most": ered_p_most("c4"),
        "p1_relative_400": ered_p_relative,
        "ered_c1_400": relative_at("Reno/ERED", "c1"),
        "ered_others_low": others_at("Reno/ERED", "c1"),
        "ered_others_high": others_at("Reno/ERED", "c1", lowest=False),
        "ered_c1_timeouts": timeouts_at("Reno/ERED", "c1"),
        "ered_c1_fast": timeouts_at("Reno/ERED", "c1", what="fast_retransmits"),
        "red_c1_timeouts": timeouts_at("Reno/RED", "c1"),
        "red_c1_fast": timeouts_at("Reno/RED", "c1", what="fast_retransmits"),
        "measured_s": measured_s(),
        "drr_lowest": lowest_jain("Reno/DRR"),
        "drr_plus_lowest": lowest_jain("Reno/DRR+"),
        "drr_divided_mean": mean_jain("Reno/DRR", "drr-divided"),
        "drr_shared_mean": mean_jain("Reno/DRR", "drr-shared"),
        "vegas_drr_c4_400": relative_at("Vegas/DRR", "c4"),
        "vegas_drr_others_low": others_at("Vegas/DRR", "c4"),
    },
)
