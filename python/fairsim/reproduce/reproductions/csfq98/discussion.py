"""Stoica, Shenker & Zhang 1998: our discussion of each experiment (shown under it in the
report), its numbers filled from the run (reproduce/discussion.py): the facts each discussion
states, then the discussions. What other packet sizes give is the stability table's; what other
timers and TCPs give, docs/reproductions.md's."""

from __future__ import annotations

import math
from collections.abc import Callable

from fairsim.reproduce.claims import Context
from fairsim.reproduce.discussion import Discussion
from fairsim.reproduce.reproductions.csfq98.reading import PAIRS, _fig4, _fig6, deviations, mbps


def _fig3a_single(ctx: Context, pair: str = "CSFQ") -> list[list[float]]:
    """A pair's deviations in Figure 3(a), one list per replication."""
    return [deviations(r, pair) for r in ctx("fig3a").replications()]


def _worst(ctx: Context, pair: str) -> float:
    """The largest deviation from the fair share under `pair` in any one run of Figure 3(a)."""
    return max(max(abs(x) for x in d) for d in _fig3a_single(ctx, pair))


FIG3A_FACTS = {
    "single_lowest": lambda ctx: min(min(d) for d in _fig3a_single(ctx)),
    "single_highest": lambda ctx: max(max(d) for d in _fig3a_single(ctx)),
    "single_outside": lambda ctx: sum(not all(-0.11 <= x <= 0.05 for x in d) for d in _fig3a_single(ctx)),
    "mean_lowest": lambda ctx: min(deviations(ctx("fig3a"), "CSFQ")),
    "mean_highest": lambda ctx: max(deviations(ctx("fig3a"), "CSFQ")),
    "byte_lowest": lambda ctx: min(min(d) for d in _fig3a_single(ctx, "CSFQ, 8-bit labels")),
    "byte_highest": lambda ctx: max(max(d) for d in _fig3a_single(ctx, "CSFQ, 8-bit labels")),
    "csfq_worst": lambda ctx: _worst(ctx, "CSFQ"),
    "drr_worst": lambda ctx: _worst(ctx, "DRR"),
    "replications": lambda ctx: len(_fig3a_single(ctx)),
    "drr_flow0": lambda ctx: 1 + deviations(ctx("fig3a"), "DRR")[0],
    "drr_others": lambda ctx: max(abs(d) for d in deviations(ctx("fig3a"), "DRR")[1:]),
    "fred2_flow0_loss": lambda ctx: -deviations(ctx("fig3a"), "FRED-2")[0],
    "fred2_others": lambda ctx: max(abs(d) for d in deviations(ctx("fig3a"), "FRED-2")[1:]),
}

FIG3B_FACTS = {
    "better_fred_of_paper": lambda ctx: (
        min(mbps(ctx("fig3b"), p, "udp0") for p in ("FRED-1", "FRED-2")) / 1.8
    ),
}


def _drr_falls(ctx: Context) -> float:
    """Figure 4: the N from which DRR serves the TCP below 0.8 of its share at every larger N."""
    drr = _fig4(ctx)["DRR"]
    falls = float("nan")
    for n in sorted(drr, reverse=True):
        if drr[n] >= 0.8:
            break
        falls = n
    return falls


def _fred_ahead(ctx: Context) -> dict[int, float]:
    """Figure 4: how much more of its share the better FRED gives the TCP than CSFQ, by N."""
    c = _fig4(ctx)
    return {n: max(c["FRED-1"][n], c["FRED-2"][n]) - c["CSFQ"][n] for n in c["CSFQ"]}


def _fred_most_n(ctx: Context) -> int:
    """Figure 4: the N at which the better FRED is furthest ahead of CSFQ."""
    ahead = _fred_ahead(ctx)
    return max(ahead, key=ahead.get)


def _fig4_range(pair: str, lo: float, hi: float, which: Callable) -> Callable[[Context], float]:
    def fact(ctx: Context) -> float:
        c = _fig4(ctx)[pair]
        return which([v for n, v in c.items() if lo <= n < hi] or [float("nan")])

    return fact


FIG4_FACTS = {
    "drr_few_low": _fig4_range("DRR", 0, 22, min),
    "drr_few_high": _fig4_range("DRR", 0, 22, max),
    "drr_falls": _drr_falls,
    "drr_fallen_low": lambda ctx: _fig4_range("DRR", _drr_falls(ctx), math.inf, min)(ctx),
    "drr_fallen_high": lambda ctx: _fig4_range("DRR", _drr_falls(ctx), math.inf, max)(ctx),
    "csfq_low": _fig4_range("CSFQ", 0, math.inf, min),
    "csfq_high": _fig4_range("CSFQ", 0, math.inf, max),
    "points": lambda ctx: len(_fig4(ctx)["CSFQ"]),
    "fred_ahead_points": lambda ctx: sum(v > 0.1 for v in _fred_ahead(ctx).values()),
    "fred_ahead_last": lambda ctx: max(
        (n for n, v in _fred_ahead(ctx).items() if v > 0.1), default=float("nan")
    ),
    "fred_ahead_most": lambda ctx: max(_fred_ahead(ctx).values()),
    "fred_ahead_most_n": _fred_most_n,
    "fred_at_most_n": lambda ctx: max(_fig4(ctx)[p][_fred_most_n(ctx)] for p in ("FRED-1", "FRED-2")),
    "csfq_at_most_n": lambda ctx: _fig4(ctx)["CSFQ"][_fred_most_n(ctx)],
}


def _fig6b(ctx: Context) -> dict[str, dict[int, float]]:
    return _fig6(ctx, "fig6b", "tcp0")


def _fig6b_ordered(ctx: Context) -> int:
    """Figure 6(b): at how many K DRR is above CSFQ, CSFQ above FRED-2, FRED-2 above FIFO and RED."""
    c = _fig6b(ctx)
    return sum(
        c["DRR"][k] > c["CSFQ"][k] > c["FRED-2"][k] > max(c["FIFO"][k], c["RED"][k]) for k in c["CSFQ"]
    )


FIG6B_FACTS = {
    "drr_low": lambda ctx: min(_fig6b(ctx)["DRR"].values()),
    "drr_high": lambda ctx: max(_fig6b(ctx)["DRR"].values()),
    "ordered": _fig6b_ordered,
    "points": lambda ctx: len(_fig6b(ctx)["CSFQ"]),
    "fifo_red_most": lambda ctx: max(max(_fig6b(ctx)[p].values()) for p in ("FIFO", "RED")),
    "fred1_most_from_2": lambda ctx: max(v for k, v in _fig6b(ctx)["FRED-1"].items() if k >= 2),
    "csfq_one_link": lambda ctx: _fig6b(ctx)["CSFQ"][min(_fig6b(ctx)["CSFQ"])],
    "fred2_one_link": lambda ctx: _fig6b(ctx)["FRED-2"][min(_fig6b(ctx)["FRED-2"])],
}

RLM = ("rlm1", "rlm2", "rlm3")


def _fig7(pair: str, flows=RLM, which: Callable = min) -> Callable[[Context], float]:
    return lambda ctx: which(mbps(ctx("fig7"), pair, f) for f in flows)


def _fig7_rlm_sorted(rank: int) -> Callable[[Context], float]:
    """FIFO's RLM receivers in Figure 7, the `rank`-th highest (0 the highest)."""
    return lambda ctx: sorted((mbps(ctx("fig7"), "FIFO", f) for f in RLM), reverse=True)[rank]


FIG7_FACTS = {
    "fred_tcp": _fig7("FRED-1", ("tcp",)),
    "fred_rlm_low": _fig7("FRED-1"),
    "fred_rlm_high": _fig7("FRED-1", which=max),
    "red_tcp": _fig7("RED", ("tcp",)),
    "red_rlm_low": _fig7("RED"),
    "red_rlm_high": _fig7("RED", which=max),
    "fifo_tcp": _fig7("FIFO", ("tcp",)),
    "fifo_rlm_1": _fig7_rlm_sorted(0),
    "fifo_rlm_2": _fig7_rlm_sorted(1),
    "fifo_rlm_3": _fig7_rlm_sorted(2),
}


def _onoff_sent(ctx: Context) -> list[float]:
    """Table 1: the packets the ON-OFF source sent in the 100 s counted, one number per replication
    (delivered and dropped, the most any pair counted: a few may still be queued at the end)."""
    return [
        max(r.value(p, "onoff", "packets") + r.value(p, "onoff", "drops") for p in PAIRS)
        for r in ctx("table1").replications()
    ]


TABLE1_FACTS = {
    "sent_low": lambda ctx: min(_onoff_sent(ctx)),
    "sent_high": lambda ctx: max(_onoff_sent(ctx)),
}


def _web(pair: str) -> Callable[[Context], float]:
    return lambda ctx: ctx("table2").value(pair, "web#*", "transfer_time")


TABLE2_FACTS = {
    "fifo_over_csfq": lambda ctx: _web("FIFO")(ctx) / _web("CSFQ")(ctx),
    "red_over_csfq": lambda ctx: _web("RED")(ctx) / _web("CSFQ")(ctx),
    "paper_red_over_ours": lambda ctx: 592 / _web("RED")(ctx),
}


def _tcps(pair: str) -> Callable[[Context], float]:
    """Table 3: the packets a TCP delivers in 100 s under `pair`, the mean over the 19."""
    return lambda ctx: ctx("table3").value(pair, "tcp*", "packets")


TABLE3_FACTS = {
    **{pair: _tcps(pair) for pair in PAIRS},
    "csfq_under_paper": lambda ctx: 1 - _tcps("CSFQ")(ctx) / 5761,
    "fred2_under_paper": lambda ctx: 1 - _tcps("FRED-2")(ctx) / 4974,
}


def _table4(exp: str, kind: str) -> Callable[[Context], float]:
    """Table 4: the largest deviation of flows 1-3 under CSFQ from 10/3 Mb/s in any one run."""
    return lambda ctx: max(
        abs(mbps(r, "CSFQ", f"{kind}{i}") / (10 / 3) - 1) for r in ctx(exp).replications() for i in (1, 2, 3)
    )


def _table4_rates(exp: str, kind: str, pick: Callable, pair: str = "CSFQ", flows=(1, 2, 3)):
    """Table 4: the lowest or highest (`pick`) of flows' rates under `pair` over the runs."""
    return lambda ctx: pick(mbps(r, pair, f"{kind}{i}") for r in ctx(exp).replications() for i in flows)


FIG3A = Discussion(
    """
FIFO, RED and FRED-1 share in proportion to the input: flow 31, which sends 32 times what flow 0
sends, gets {{fig3a-proportional:FIFO flow 31 / flow 0|.0f}}, {{fig3a-proportional:RED flow 31 / flow 0|.0f}}
and {{fig3a-proportional:FRED-1 flow 31 / flow 0|.0f}} times its throughput (fig3a-proportional:
{{fig3a-proportional}}). The paper's sentence is about one 10 s run, so the claim is checked run
by run: CSFQ's flows spread as far as {{single_lowest|+.0%}}…{{single_highest|+.0%}} of the fair share
over the runs, and {{single_outside}} of the {{replications}} stray beyond the paper's −11%…+5%
(fig3a-csfq: {{fig3a-csfq}}). The mean over the replications spreads only over
{{mean_lowest|+.1%}}…{{mean_highest|+.1%}}: averaging narrows a spread, so a check on the mean would
grow easier the more it replicates. DRR holds flows 1-31 within
{{drr_others|.1%}} of their share but gives flow 0 {{drr_flow0|.3f}} of its share: flow 0 sends at
exactly the fair rate, with jittered gaps, so its queue is a critically loaded random walk, and with
64 KB shared by 32 flows (two packets each) it is now and then the longest queue and loses a packet
to DRR's overflow rule. Breaking ties between longest queues the other way changes nothing. The
paper's plot shows no such dip at its resolution; we keep the claim's 5% rather than widen it
(fig3a-drr: {{fig3a-drr}}). CSFQ's largest deviation in any run is {{csfq_worst|.2%}} against DRR's
{{drr_worst|.2%}}; fig3a-less-precise compares them run by run ({{fig3a-less-precise}}; the stability
table's `20 replications` column gives its verdict with more runs). FRED-2 holds flows 1-31 within
{{fred2_others|.0%}} but gives flow 0 {{fred2_flow0_loss|.0%}} less than its share. Carrying the labels
in §2.7's 8-bit float (ours: the pair `CSFQ, 8-bit labels`) gives CSFQ a spread of
{{byte_lowest|+.1%}}…{{byte_highest|+.1%}} over the runs. Both DRR claims
turn on the packet size (the stability table's `500-byte packets`, `1024-byte packets` and
`1500-byte packets`): with 500-byte packets, four a flow in 64 KB, DRR's dip at flow 0 all but
vanishes and CSFQ is less precise than DRR, as the paper says; with 1024 or 1500 bytes the dip
deepens (docs/reproductions.md gives the numbers).
""",
    facts=FIG3A_FACTS,
)

FIG3B = Discussion(
    """
FIFO and RED give the UDP {{fig3b-udp:FIFO UDP|.2f}} and {{fig3b-udp:RED UDP|.2f}} Mb/s, against the
paper's "more than 8". FRED gives it several times its share: {{fig3b-udp:FRED-1 UDP|.2f}} Mb/s under
FRED-1 and {{fig3b-udp:FRED-2 UDP|.2f}} under FRED-2, the better of them {{better_fred_of_paper|.0%}} of
the paper's "almost 1.8". DRR and CSFQ contain it, at {{fig3b-udp:DRR UDP|.2f}} and
{{fig3b-udp:CSFQ UDP|.2f}} Mb/s where the paper has 0.396 and 0.361. The claim, which asks all of these,
is {{fig3b-udp}}. This figure hangs on a TCP parameter the paper does not state: with RFC 6298's
minimum timeout of 1 s the TCPs, idle after each timeout, cede their share and the UDP gets several
times as much under DRR and CSFQ (docs/reproductions.md gives the numbers); with the 0.2 s of ns-2
at the time (two ticks of 0.1 s), which we use, it gets the values above.
""",
    facts=FIG3B_FACTS,
)

FIG4 = Discussion(
    """
The curves' values are lost; the claims carry the paper's findings. Each point is one N, the mean of its
replications. DRR serves the TCP at {{drr_few_low|.2f}}-{{drr_few_high|.2f}} of its share below N = 22
({{fig4-drr:DRR_mean_below_22|.2f}} on average) and below 0.8 of it from N = {{drr_falls}} on
({{drr_fallen_low|.2f}}-{{drr_fallen_high|.2f}}; the paper: from 22; fig4-drr: {{fig4-drr}}). CSFQ holds
it at {{csfq_low|.2f}}-{{csfq_high|.2f}} over the whole range, {{fig4-csfq-vs-drr:CSFQ_mean_from_22|.2f}}
on average from N = 22 against DRR's {{fig4-csfq-vs-drr:DRR_mean_from_22|.2f}} (fig4-csfq-vs-drr:
{{fig4-csfq-vs-drr}}). The third finding is {{fig4-csfq-vs-fred}}: the better FRED gives the TCP more
than 0.1 of its share above CSFQ's at {{fred_ahead_points}} of the {{points}} values of N, none above
N = {{fred_ahead_last}}, and up to {{fred_ahead_most|.2f}} more (at N = {{fred_ahead_most_n}},
{{fred_at_most_n|.2f}} against {{csfq_at_most_n|.2f}}). Under CSFQ a TCP's rate estimate swings above α
with each window and its packets are dropped at random; under FRED a flow with few packets buffered
is never dropped. Reno in place of Tahoe narrows the gap without closing it (docs/reproductions.md). For many
flows FRED-1 starves the TCP ({{fred2-many-flows:FRED_1_N_22_up|.2f}} of its share on average from
N = 22) and FRED-2 gives it {{fred2-many-flows:FRED_2_N_22_up|.2f}}, far below CSFQ. FRED-2 beats FRED-1
with few flows as well ({{fred2-many-flows:FRED_2_N_below_22|.2f}} against
{{fred2-many-flows:FRED_1_N_below_22|.2f}} on average below N = 22), where the paper says it helps only
with many (fred2-many-flows: {{fred2-many-flows}}). The size of the paper's packets shows here
(the stability table's `500-byte packets` and `1024-byte packets`): with 500-byte packets the TCP's
share of DRR's buffer falls under three packets only from N = 43, DRR serves the TCP about as well
from N = 22 on as below it, and better than CSFQ, so neither DRR finding holds; with 1024 bytes both
hold as with 1000 (docs/reproductions.md gives the numbers).
""",
    facts=FIG4_FACTS,
)

FIG6A = Discussion(
    """
The curves' values are lost; the claims carry the paper's findings. Across one to five congested
links the UDP flow keeps at least {{fig6a:CSFQ_lowest}} of its fair share under CSFQ,
{{fig6a:FRED_lowest}} under the better FRED and {{fig6a:DRR_lowest}} under DRR, while across five links
FIFO leaves it {{fig6a:FIFO_at_most_links|.2f}} and RED {{fig6a:RED_at_most_links|.2f}} (fig6a: {{fig6a}}).
"""
)

FIG6B = Discussion(
    """
The curves' values are lost; the claims carry the paper's findings. The order DRR
({{drr_low|.2f}}-{{drr_high|.2f}} of the share), then CSFQ, then FRED-2, then FIFO and RED (at most
{{fifo_red_most|.3f}}) holds at {{ordered}} of the {{points}} chain lengths, and FRED-1 gives the TCP at
most {{fred1_most_from_2|.3f}} of its share from two links on. CSFQ's TCP gets {{csfq_one_link|.2f}} of
its share across one link and {{fig6b:CSFQ at K=5|.2f}} across five, against the 0.6 our tolerance asks
of an "effective" discipline (fig6b: {{fig6b}}). Since CSFQ estimates its accepted rate over the packets
it lets through (the paper's Figure 2), the five-link value is above what an estimate
sampling a zero for each dropped packet gives (docs/reproductions.md); what remains is TCP's: its window of 20 and spurious
timeouts after the 0.2 s minimum. FRED-2 falls faster, from {{fred2_one_link|.2f}} to
{{fig6b:FRED-2 at K=5|.2f}}.
""",
    facts=FIG6B_FACTS,
)

FIG7 = Discussion(
    """
DRR and CSFQ keep the three RLM receivers near five layers (0.992 Mb/s) and the TCP near its
megabit: under DRR every flow gets {{fig7:DRR lowest|.2f}}-{{fig7:DRR highest|.2f}} Mb/s, under CSFQ
{{fig7:CSFQ lowest|.2f}}-{{fig7:CSFQ highest|.2f}} (fig7: {{fig7}}). Under FRED-1 the TCP takes
{{fred_tcp|.2f}} Mb/s and the receivers {{fred_rlm_low|.2f}}-{{fred_rlm_high|.2f}}, under RED
{{red_tcp|.2f}} and {{red_rlm_low|.2f}}-{{red_rlm_high|.2f}}; FIFO gives the receivers
{{fifo_rlm_1|.2f}}, {{fifo_rlm_2|.2f}} and {{fifo_rlm_3|.2f}} Mb/s and the TCP {{fifo_tcp|.2f}}. The time
axis and start times of the paper's plots are lost; ours start every flow at once.
""",
    facts=FIG7_FACTS,
)

TABLE1 = Discussion(
    """
CSFQ delivers {{table1:CSFQ delivered|.0f}} of the ON-OFF source's packets (paper 1680); FRED-2
{{table1:FRED-2 delivered|.0f}} (the notes recall 1714, which our copy of the paper does not print:
shown ‡, not graded). DRR lets more through than the paper's 601 ({{table1:DRR delivered|.0f}}): our
DRR serves a flow's burst from the queue it builds, and the source's 100 ms bursts at 10 Mb/s fill
its queue before the longest-queue drops catch up. RED and FIFO let most through
({{table1:RED delivered|.0f}} and {{table1:FIFO delivered|.0f}}; paper 5322 and 5452;
table1: {{table1}}). Our source sends {{sent_low|.0f}}-{{sent_high|.0f}} packets in the 100 s we count (the
paper's one run, 6758): its ON periods are drawn.
""",
    facts=TABLE1_FACTS,
)

TABLE2 = Discussion(
    """
The order is the paper's — DRR ({{table2:DRR ms|.0f}} ms) and FRED ({{table2:FRED-2 ms|.0f}} ms)
fastest, then CSFQ ({{table2:CSFQ ms|.0f}} ms), RED ({{table2:RED ms|.0f}} ms) and FIFO
({{table2:FIFO ms|.0f}} ms) — but CSFQ is {{fifo_over_csfq|.0f}}× faster than FIFO and
{{red_over_csfq|.0f}}× faster than RED, where the paper has almost an order of magnitude for both
(table2: {{table2}}): our RED is {{paper_red_over_ours|.1f}} times as fast as the paper's 592 ms. The
recalled rows (‡, not graded) have CSFQ at 62 ms and DRR at 25 ms. The heavy-tailed sizes (Pareto
shape 1.06) make every mean noisy; we read the printed mean gap of "0.05 ms" as 0.05 s.
""",
    facts=TABLE2_FACTS,
)

TABLE3 = Discussion(
    """
DRR's TCPs deliver {{DRR|.0f}} packets each (paper 6080; the ideal 6250), RED's
{{table3:RED share of ideal|.0%}} of the ideal, about a tenth as printed ({{RED|.0f}} against 628), and
FIFO's less ({{FIFO|.0f}} against 378). CSFQ's TCPs get {{CSFQ|.0f}} (paper 5761) and FRED-2's
{{FRED-2|.0f}} (paper 4974): {{csfq_under_paper|.0%}} and {{fred2_under_paper|.0%}} below the paper, in
the same order (table3: {{table3}}). Since CSFQ estimates its accepted rate over the packets it lets
through (the paper's Figure 2), its TCPs gain a little; what remains is TCP's: a window of 20 on this
long link and spurious timeouts after the 0.2 s minimum. FRED-1, dropping every packet while the
average stays above max_th, starves the TCPs ({{FRED-1|.0f}} packets each); the paper's FRED row is
not that variant. Counted in packets, the table turns on their size (the stability table's
`500-byte packets` and `1500-byte packets`): with half-size packets DRR's TCPs deliver all that a
window of 20 carries in a round trip over the 100 ms link and back, and with 1500 bytes fewer packets
(docs/reproductions.md gives the numbers).
""",
    facts=TABLE3_FACTS,
)

TABLE4_UDPS = Discussion(
    """
With relabeling the three UDPs share link 2 within {{udp_deviation|.1%}} of 3.33 Mb/s in every run
({{udp_low|.2f}}-{{udp_high|.2f}}), as printed (table4: {{table4}}, checked run by run, the paper's
table being one run). Without it (our ablation) flows 1 and 2 keep the labels of link 1 (5 Mb/s),
are dropped as if twice as fast as they are, and flow 3 takes {{unlabeled_low|.2f}}-{{unlabeled_high|.2f}}
Mb/s of link 2's 10.
""",
    facts={
        "udp_deviation": _table4("table4-udp", "udp"),
        "udp_low": _table4_rates("table4-udp", "udp", min),
        "udp_high": _table4_rates("table4-udp", "udp", max),
        "unlabeled_low": _table4_rates("table4-udp", "udp", min, "CSFQ, no relabeling", (3,)),
        "unlabeled_high": _table4_rates("table4-udp", "udp", max, "CSFQ, no relabeling", (3,)),
    },
)

TABLE4_TCPS = Discussion(
    """
The TCPs get {{tcp_low|.2f}}-{{tcp_high|.2f}} Mb/s over the runs, within {{tcp_deviation|.1%}} of
3.33, as in the paper (3.13-3.43). Relabeling changes nothing for them here: after link 1's drops,
TCP sources slow down and their labels follow their rates.
""",
    facts={
        "tcp_deviation": _table4("table4-tcp", "tcp"),
        "tcp_low": _table4_rates("table4-tcp", "tcp", min),
        "tcp_high": _table4_rates("table4-tcp", "tcp", max),
    },
)
