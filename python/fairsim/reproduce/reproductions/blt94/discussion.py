"""Kim & Farber 1994: our discussion of how and why the results differ from the paper's, by
experiment (shown under each in the report), its numbers filled from the run
(reproduce/discussion.py). What other timers and filters give is the stability table's and
docs/reproductions.md's (scripts/blt_sensitivity.py)."""

from __future__ import annotations

import math
from collections.abc import Callable

from fairsim.reproduce.claims import Context, Missing
from fairsim.reproduce.discussion import Discussion
from fairsim.reproduce.reproductions.blt94.claims import (
    FAIRNESS,
    fairness_mixed,
    file_1mb,
    missed,
    ref_response,
)
from fairsim.reproduce.reproductions.blt94.claims import (
    FILE_1MB as FILE_1MB_CONDITIONS,
)
from fairsim.reproduce.reproductions.blt94.experiments import CONFIGS, curve, largest_round_trip, point

#: The ends of a load sweep, which `--quick`'s coarser grid has too.
LIGHTEST, HEAVIEST = "lightest", "heaviest"


def _at(ctx: Context, exp: str, load: float | str):
    """The sweep point at `load`, or at its lightest or heaviest load."""
    if exp not in ctx.sweeps:
        raise Missing(exp)
    sweep = sorted(ctx.sweeps[exp], key=lambda point: point[0])
    if load == LIGHTEST:
        return sweep[0]
    if load == HEAVIEST:
        return sweep[-1]
    for x, m in sweep:
        if abs(x - load) < 1e-9:
            return x, m
    raise Missing(f"{exp} at load {load}")


def _runs(ctx: Context, exp: str, pair: str, load: float | str) -> list[dict]:
    return [r for r in _at(ctx, exp, load)[1].results.runs if r["pair"] == pair]


def load_of(exp: str, load: str) -> Callable[[Context], float]:
    """The load of a sweep's end, as a fraction of λ_cap."""
    return lambda ctx: _at(ctx, exp, load)[0]


def per_run(exp: str, pair: str, load: float | str, counter: str) -> Callable[[Context], float]:
    """A sender counter (timeouts, fast retransmits) per run at one load, over the whole run."""

    def get(ctx: Context) -> float:
        runs = _runs(ctx, exp, pair, load)
        return sum(r["flows"][0]["run_totals"][counter] for r in runs) / len(runs)

    return get


def round_trips_against_floor(ctx: Context) -> str:
    """The largest round trip measured in a run over its timer's floor, the most over every run
    of every experiment that ran, and how many runs' exceed theirs, in words."""
    worst, over = 0.0, 0
    for c in CONFIGS:
        for bw in c.bottlenecks:
            floor = largest_round_trip(c, bw)
            for _, m in ctx.sweeps.get(c.experiment_id(bw), []):
                for r in m.results.runs:
                    share = r["flows"][0]["run_totals"]["rtt_max_ns"] / floor
                    worst, over = max(worst, share), over + (share > 1)
    return f"{worst:.0%} of its floor at most ({over} runs above it)"


def diverges(scheme: str) -> Callable[[Context], str]:
    """Where `scheme`'s R diverges in the reference network, in words."""

    def get(ctx: Context) -> str:
        load = ref_response(ctx).values[f"{scheme}_diverges_at_load"]
        return f"at {load:.0%} of λ_cap" if math.isfinite(load) else "nowhere on the load grid"

    return get


def duplicates(exp: str, pair: str, load: float | str) -> Callable[[Context], float]:
    """The share of the deliveries at one load that were copies the receiver already had."""

    def get(ctx: Context) -> float:
        t = [r["flows"][0]["run_totals"] for r in _runs(ctx, exp, pair, load)]
        return 1 - sum(x["delivered_unique"] for x in t) / sum(x["delivered"] for x in t)

    return get


def seeds_with_sign(exp: str, sign: int) -> Callable[[Context], float]:
    """The replications in which BLT's Jain index averaged over loads less TCP's has `sign`."""

    def get(ctx: Context) -> float:
        if exp not in ctx.sweeps:
            raise Missing(exp)
        sweep = ctx.sweeps[exp]
        seeds = sorted({r["seed"] for _, m in sweep for r in m.results.runs})

        def mean_jain(pair: str, seed: int) -> float:
            points = [p for load, m in sweep if (p := point(load, m, pair, seed)) is not None]
            return sum(p.jain for p in points) / len(points)

        return sum((mean_jain("BLT", s) - mean_jain("TCP", s)) * sign > 0 for s in seeds)

    return get


def fairness_misses(ctx: Context) -> str:
    """Which of fairness-mixed's conditions the run misses, in words."""
    return "; ".join(missed(FAIRNESS, fairness_mixed(ctx).values)) or "none"


REFERENCE = Discussion(
    """
The paper's curves are lost but for their captions and prose, so its findings are the claims and
the figures are ours.

**The baseline.** TCP is the paper's: Reno with fast retransmit on one duplicate ACK and round
trips from timestamps on every ACK. One rule holds for both sides: TCP, like BLT, ignores a
duplicate ACK caused by a packet the receiver already had, and every scheme's timer is floored at
the network's largest round trip (the scenario's notes), so no timer fires while its packet is
still queued and a duplicate ACK means a drop, as footnote 5 takes it. Over every run of every
experiment the largest round trip measured is {{round_trips_against_floor}}. At the lightest load ({{light|.0%}} of λ_cap) TCP has
{{tcp_timeouts_light|.0f}} timeouts a run and {{tcp_fr_light|.0f}} fast retransmits, at 50%
{{tcp_timeouts_half|.0f}} and {{tcp_fr_half|.0f}}; BLT, whose tail losses only its timer
recovers (no later packet makes a duplicate ACK when a burst's tail is pushed out), has
{{blt_timeouts_light|.0f}} and {{blt_timeouts_half|.0f}} timeouts a run. The paper gives no
floor or clock for its timer; the one that brings TCP nearest Table 1's TCP column (a 1 ms floor,
without the filter) does so through timers that fire on queued data and the fast retransmits
their duplicates start, which the stability table's knob `Table 1's fitted TCP` shows.

**Response time.** TCP's R diverges (three times its light-load value)
{{tcp_diverges}} and BLT's {{blt_diverges}}; R_TCP/R_BLT is at least
{{ref-response:smallest_speedup|.2f}} up to 50% load, where the paper has "more than 200%":
ref-response is {{ref-response}}.

**Utilisation.** The paper found BLT's bottleneck less busy than TCP's ("seemingly
counterintuitive"); here BLT's is at most TCP's at {{ref-utilisation:loads_lower}} of
{{ref-utilisation:loads}} loads. BLT sends every packet after a hole again (go-back-N from the
lost packet, which the paper accepts as its "obvious overhead"), and its opportunistic packets
cross the bottleneck before duplicates are discarded at the receiver: at 50% load
{{blt_dup_half|.0%}} of BLT's deliveries are copies the receiver already had, against
{{tcp_dup_half|.0%}} of TCP's.

**Power.** The gaps log10 P_m(BLT) − log10 P_m(TCP) are {{ref-power-ratios:gap_1/5|.2f}},
{{ref-power-ratios:gap_3/5|.2f}} and {{ref-power-ratios:gap_1|.2f}} at BW_b = 30, 90 and
150 Mb/s (the paper 0.5, 0.8 and 1.0). Over the 150 Mb/s and 1 Gb/s networks at D = 30 ms, where
the paper's body puts its "around 10 times", the gap is {{headline:mean_gap_large|.2f}} orders
({{headline:mean_ratio_large|.1f}}×); over the small networks (D = 3 and 1.8 ms, and 15 Mb/s),
where the body says it narrows, {{headline:mean_gap_small|.2f}}, and the smallest gap is
{{headline:smallest_gap|.2f}}. BLT's advantage is its bandwidth-delay product's: the less a network holds, the less a burst gains over a window that grows by round trips.

**Fairness.** The paper finds no clear winner, BLT fairer at BW_b = 30 and 150 Mb/s and TCP at
90. Jain's index averaged over loads, BLT's less TCP's, is
{{fairness-mixed:BLT_minus_TCP_ref_30|.3f}}, {{fairness-mixed:BLT_minus_TCP_ref_90|.3f}} and
{{fairness-mixed:BLT_minus_TCP_ref_150|.3f}} here, and at 1 Gb/s
{{fairness-mixed:BLT_minus_TCP_gbit_200|.3f}}, {{fairness-mixed:BLT_minus_TCP_gbit_600|.3f}} and
{{fairness-mixed:BLT_minus_TCP_gbit_1000|.3f}} (fairness-mixed is {{fairness-mixed}}). Taken
replication by replication, the sign the paper reads is BLT's in {{ref30_blt|.0f}} of the
replications at 30 Mb/s, TCP's in {{ref90_tcp|.0f}} at 90 Mb/s and BLT's in {{ref150_blt|.0f}} at
150 Mb/s; at 1 Gb/s BLT's in {{g600_blt|.0f}} at 600 Mb/s and {{g1000_blt|.0f}} at 1000 Mb/s.
The conditions the averages miss: {{fairness_misses}}. The largest difference is
{{fairness_largest|.3f}} of the index, a transfer's share being set by when its burst meets others
at the push-out switch; the paper read its signs from one curve each, and where our replications disagree in sign the paper's reading
is not one a run of three can settle.

**Bully-Tyrant.** Without priorities the switch is drop-tail, and Bully-Tyrant's bursts push
each other out: at the lightest load its power is {{bully-tyrant:BT_over_BLT_light|.2f}} times
BLT's, it peaks at {{bully-tyrant:BT_peak_load|.0%}} load where BLT peaks at
{{bully-tyrant:BLT_peak_load|.0%}}, and its Jain index averaged over loads is
{{bully-tyrant:jain_BT|.2f}} (BLT {{bully-tyrant:jain_BLT|.2f}}, TCP {{bully-tyrant:jain_TCP|.2f}}).
""",
    facts={
        "light": load_of("ref-30", LIGHTEST),
        "tcp_diverges": diverges("TCP"),
        "blt_diverges": diverges("BLT"),
        "round_trips_against_floor": round_trips_against_floor,
        "tcp_timeouts_light": per_run("ref-30", "TCP", LIGHTEST, "timeouts"),
        "tcp_fr_light": per_run("ref-30", "TCP", LIGHTEST, "fast_retransmits"),
        "tcp_timeouts_half": per_run("ref-30", "TCP", 0.5, "timeouts"),
        "tcp_fr_half": per_run("ref-30", "TCP", 0.5, "fast_retransmits"),
        "blt_timeouts_light": per_run("ref-30", "BLT", LIGHTEST, "timeouts"),
        "blt_timeouts_half": per_run("ref-30", "BLT", 0.5, "timeouts"),
        "blt_dup_half": duplicates("ref-30", "BLT", 0.5),
        "tcp_dup_half": duplicates("ref-30", "TCP", 0.5),
        "fairness_misses": fairness_misses,
        "fairness_largest": lambda ctx: max(
            abs(v) for k, v in fairness_mixed(ctx).values.items() if k.startswith("BLT_minus_TCP")
        ),
        "ref30_blt": seeds_with_sign("ref-30", 1),
        "ref90_tcp": seeds_with_sign("ref-90", -1),
        "ref150_blt": seeds_with_sign("ref-150", 1),
        "g600_blt": seeds_with_sign("gbit-600", 1),
        "g1000_blt": seeds_with_sign("gbit-1000", 1),
    },
)

GBIT = Discussion(
    """
**TCP at 1 Gb/s.** At BW_b = BW_N TCP has {{tcp_timeouts_half|.0f}} timeouts a
run at 50% load and {{tcp_fr_half|.0f}} fast retransmits, and {{tcp_dup_top|.0%}} of its
deliveries at the heaviest load ({{top|.0%}}) are copies the receiver already had. TCP's maximum-power point is at R = {{gbit-operating-points:TCP_R|.3f}} s and
{{gbit-operating-points:TCP_Mbps|.0f}} Mb/s (the paper 0.2894 s and 318 Mb/s), BLT's at
R = {{gbit-operating-points:BLT_R|.4f}} s and {{gbit-operating-points:BLT_Mbps|.0f}} Mb/s (the
paper 0.032 s and 605-725 Mb/s). The gap at 1 Gb/s is {{scalability:gap_at_1Gbps|.2f}} orders
({{scalability:ratio_at_1Gbps|.1f}}×; the paper 17 to 20 times).

**The operating points (§4.3.1).** The paper's outstanding connections are Little's law on its
own numbers, N = Θ·R/F (318 Mb/s × 0.2894 s / 100 KB = 115 for TCP; 725 Mb/s × 0.032 s = 29 for
BLT), so ours are formed the same way: {{gbit-operating-points:TCP_N|.0f}} for TCP and
{{gbit-operating-points:BLT_N|.0f}} for BLT. λR, the arrival rate times R, is given beside them
and is larger where some arrivals do not finish within the run.
""",
    facts={
        "tcp_timeouts_half": per_run("gbit-1000", "TCP", 0.5, "timeouts"),
        "tcp_fr_half": per_run("gbit-1000", "TCP", 0.5, "fast_retransmits"),
        "top": load_of("gbit-1000", HEAVIEST),
        "tcp_dup_top": duplicates("gbit-1000", "TCP", HEAVIEST),
    },
)


def file1mb_misses(ctx: Context) -> str:
    """Which of file-1mb's conditions the run misses, in words."""
    return "; ".join(missed(FILE_1MB_CONDITIONS, file_1mb(ctx).values)) or "none"


def light_response(exp: str, pair: str) -> Callable[[Context], float]:
    """R at the lightest load (the first point of the sweep)."""

    def get(ctx: Context) -> float:
        return curve(ctx, exp, pair)[0].response_s

    return get


FILE_1MB = Discussion(
    """
**1 MB files.** From 100 KB to 1 MB BLT's maximum power falls by {{file-1mb:BLT_fall|.2f}}
orders and TCP's by {{file-1mb:TCP_fall|.2f}}, averaged over the bottlenecks (the paper: BLT's
by at least one order, TCP's by about half of one); the gap is {{file-1mb:gap_150|.2f}} at
150 Mb/s and {{file-1mb:gap_1G|.2f}} at 1 Gb/s, so file-1mb is {{file-1mb}} (the conditions
missed: {{file1mb_misses}}). TCP's transfers recover badly even alone: at the lightest load a
100 KB transfer takes {{tcp_light_100|.2f}} s and a 1 MB one {{tcp_light_1mb|.1f}} s (BLT
{{blt_light_100|.2f}} s and {{blt_light_1mb|.2f}} s). A 1 MB transfer's slow start overshoots the
bottleneck's buffer (BW_b·D/3) with many losses in one window; Reno repairs one loss per
recovery and leaves the rest to its timer, and each timeout's go-back-N sends again packets that
had arrived: {{tcp_fr_light|.0f}} fast retransmits and {{tcp_timeouts_light|.0f}} timeouts a run
there, {{tcp_dup_light|.0%}} of the deliveries copies the receiver already had.
`scripts/blt_one_change.py` gives what NewReno's recovery changes here.
""",
    facts={
        "file1mb_misses": file1mb_misses,
        "tcp_light_100": light_response("ref-30", "TCP"),
        "tcp_light_1mb": light_response("ref-1MB-30", "TCP"),
        "blt_light_100": light_response("ref-30", "BLT"),
        "blt_light_1mb": light_response("ref-1MB-30", "BLT"),
        "tcp_fr_light": per_run("ref-1MB-30", "TCP", LIGHTEST, "fast_retransmits"),
        "tcp_timeouts_light": per_run("ref-1MB-30", "TCP", LIGHTEST, "timeouts"),
        "tcp_dup_light": duplicates("ref-1MB-30", "TCP", LIGHTEST),
    },
)

#: Experiment id -> its discussion.
DISCUSSION: dict[str, Discussion] = {
    "ref-30": REFERENCE,
    "gbit-1000": GBIT,
    "ref-1MB-30": FILE_1MB,
}
