"""Stoica, Shenker & Zhang, "Core-Stateless Fair Queueing: Achieving Approximately Fair
Bandwidth Allocations in High Speed Networks", ACM SIGCOMM 1998: the experiments of §3 under
FIFO, RED, FRED, DRR and CSFQ (Figures 3, 4, 6 and 7; Tables 1-4).

Claims follow the spec's checklist (`specs/csfq98.md` §10). Most of the paper's numbers are in
plots that the seed lost; where only the text survives, the claims carry the comparison and our
curves are drawn alone.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure as MplFigure

from fairsim.reproduce.claims import Claim, Context, Missing, TestedClaim, verdict, within
from fairsim.reproduce.model import Experiment, Figure, Paper, Sweep

PAIRS = ("FIFO", "RED", "FRED-1", "FRED-2", "DRR", "CSFQ")
FAIR3 = 10 / 32  # Mb/s, Figure 3's fair share
FAIR6 = 10 / 11  # Mb/s, Figure 6's
COLORS = {
    "FIFO": "#7f7f7f",
    "RED": "#ff7f0e",
    "FRED-1": "#9467bd",
    "FRED-2": "#8c564b",
    "DRR": "#2ca02c",
    "CSFQ": "#d62728",
}


def mbps(m, pair: str, flow: str) -> float:
    return m.value(pair, flow, "mbps")


def _sweep(ctx: Context, exp: str) -> list[tuple[float, object]]:
    if exp not in ctx.sweeps:
        raise Missing(exp)
    return ctx.sweeps[exp]


# --- sweeps ---------------------------------------------------------------------------


def fig4_overrides(n: float) -> dict:
    n = int(n)
    out = {}
    for k in range(1, 32):
        out[f"flows.udp{k}.enabled"] = k <= n - 1
        out[f"flows.udp{k}.rate"] = f"{20e6 / n:.0f}bps"
    return out


def fig6_sweep(flow: str, other: str) -> Sweep:
    """Figure 6's sweep over K congested links, measuring `flow` with `other` switched off."""

    def overrides(k: float) -> dict:
        k = int(k)
        out = {
            f"flows.{flow}.enabled": True,
            f"flows.{other}.enabled": False,
            f"flows.{flow}.dst": f"sink{k}",
        }
        for link in range(1, 6):
            for j in range(1, 11):
                out[f"flows.x{link}_{j}.enabled"] = link <= k
        return out

    return Sweep("K", values=(1, 2, 3, 4, 5), quick_values=(1, 3, 5), overrides=overrides)


TABLE4_TCP = {f"flows.udp{i}.enabled": False for i in (1, 2, 3)} | {
    f"flows.tcp{i}.enabled": True for i in (1, 2, 3)
}

EXPERIMENTS = (
    Experiment(
        "fig3a",
        "csfq98/fig3a_udp.toml",
        "Figure 3(a): 32 UDPs of increasing rates",
        discussion="""
FIFO, RED and FRED-1 share in proportion to the input, as the paper says. CSFQ's flows spread
over −5%…+4% of the fair share (three 10 s runs; one run alone, as in `--quick`, spreads over
about −9%…+8%), inside the paper's −11%…+5%. DRR holds flows 1-31 within 0.3% of their share
but flow 0 loses 5% (0.95 of its share): it sends at exactly the fair rate, with jittered gaps,
so its queue is a critically loaded random walk, and with 64 KB shared by 32 flows (two packets
each) it is now and then the longest queue and loses a packet to DRR's overflow rule. Breaking
ties between longest queues the other way changes nothing. The paper's plot shows no such dip
at its resolution; we report the claim as not held rather than widen its 5%. FRED-2, with its
two packets a flow above max_th, is close to fair here too. Carrying the labels in §2.7's 8-bit
float (ours: the pair `CSFQ, 8-bit labels`) widens CSFQ's spread only to −5.7%…+4.9%.
""",
    ),
    Experiment(
        "fig3b",
        "csfq98/fig3b_udp_tcp.toml",
        "Figure 3(b): a 10 Mb/s UDP against 31 TCPs",
        discussion="""
FIFO and RED give the UDP more than 8 Mb/s and FRED several times its share, as printed; DRR and
CSFQ contain it, at 0.48 and 0.43 Mb/s where the paper has 0.396 and 0.361. This figure hangs on
a TCP parameter the paper does not state: with RFC 6298's minimum timeout of 1 s the TCPs, idle
after each timeout, cede their share and the UDP gets about 1 Mb/s under DRR and 2 Mb/s under
CSFQ; with the 0.2 s of ns-2 at the time (two ticks of 0.1 s), which we use, it gets the values
above.
""",
    ),
    Experiment(
        "fig4",
        "csfq98/fig4_tcp_vs_udps.toml",
        "Figure 4: one TCP against N − 1 UDPs",
        sweep=Sweep(
            "N",
            values=tuple(range(2, 33)),
            quick_values=(2, 8, 16, 24, 32),
            overrides=fig4_overrides,
        ),
        seeds=3,
        discussion="""
The curves' values are lost; the claims carry the paper's three findings. Each point is one N,
three replications. DRR serves the TCP at 0.94-1.0 of its share up to N = 22 and falls to about
0.4 from N = 24 (the paper: from 22), and CSFQ holds it at 0.63-0.74 over the whole range, so it
beats DRR for many flows, as printed. The third finding does not hold for few flows: below
N = 16 FRED gives the TCP 0.65-0.93 of its share, up to 0.26 more than CSFQ (at N = 2, 0.91
against 0.74). Under CSFQ a TCP's rate estimate swings above α with each window and its packets
are dropped at random; under FRED a flow with few packets buffered is never dropped. Reno in
place of Tahoe gives the same picture (CSFQ 0.66-0.74, FRED 0.71-0.94 below N = 16). For many
flows FRED-1 starves the TCP (below 0.1) and FRED-2 gives it 0.2-0.3, far below CSFQ.
""",
    ),
    Experiment(
        "fig6a",
        "csfq98/fig6_chain.toml",
        "Figure 6(a): UDP-0 across K congested links",
        sweep=fig6_sweep("udp0", "tcp0"),
        discussion="""
The curves' values are lost; the claims carry the paper's findings. Across one to five congested
links the UDP flow keeps at least 0.92 of its fair share under CSFQ and 0.99 under DRR, while
FIFO leaves it 0.08 and RED 0.03 (values at five links).
""",
    ),
    Experiment(
        "fig6b",
        "csfq98/fig6_chain.toml",
        "Figure 6(b): TCP-0 across K congested links",
        sweep=fig6_sweep("tcp0", "udp0"),
        discussion="""
The curves' values are lost; the claims carry the paper's findings. The ordering holds at every
K — DRR (0.73-0.90 of the share), then CSFQ, then FRED-2, with FIFO, RED and FRED-1 near zero —
but CSFQ's TCP falls from 0.60 of its share across one link to 0.43 across five, below the 0.6
our tolerance asks of an "effective" discipline: each CSFQ link drops the TCP's packets whenever
its rate estimate swings above α, and the losses of five links add up. FRED-2 falls faster, from
0.57 to 0.06.
""",
    ),
    Experiment(
        "fig7",
        "csfq98/fig7_rlm.toml",
        "Figure 7: three RLM flows and a TCP on 4 Mb/s",
        quick={"run.duration": "300s"},
        seeds=3,
        discussion="""
DRR and CSFQ keep the three RLM receivers near five layers (0.99 Mb/s) and the TCP near its
megabit: under DRR every flow gets 0.99-1.02 Mb/s, under CSFQ 0.88-1.09. Under FRED the TCP
takes 1.95 Mb/s and the receivers 0.50-0.73, under RED 2.92 and 0.23-0.43; FIFO leaves two
receivers at five layers and the third at 0.48 Mb/s while the TCP gets 1.54. The time axis and
start times of the paper's plots are lost; ours start every flow at once.
""",
    ),
    Experiment(
        "table1",
        "csfq98/table1_onoff.toml",
        "Table 1: an ON-OFF source among 19 TCPs",
        discussion="""
CSFQ delivers 1637 of the ON-OFF source's packets (paper 1680) and FRED-2 1421 (paper 1714 †):
close. DRR lets more through than the paper's 601 (965): our DRR serves a flow's burst from the
queue it builds, and the source's 100 ms bursts at 10 Mb/s fill its queue before the
longest-queue drops catch up. RED and FIFO let most through (4491 and 3871; paper 5322 and
5452). Our source sends 6200-6850 packets a run (the paper's one run, 6758): its ON periods are
drawn.
""",
    ),
    Experiment(
        "table2",
        "csfq98/table2_web.toml",
        "Table 2: web transfers against a 10 Mb/s UDP",
        discussion="""
The ordering holds — DRR (19 ms) and FRED (33 ms) fastest, CSFQ (80 ms) within an order of
magnitude of them, RED (310 ms) and FIFO (812 ms) far slower — but CSFQ is slower than the
(remembered, †) 62 ms, DRR faster than 25 ms and RED twice as fast as the paper's 592 ms. The heavy-tailed sizes (Pareto shape 1.06) make every mean noisy; we read
the printed mean gap of "0.05 ms" as 0.05 s.
""",
    ),
    Experiment(
        "table3",
        "csfq98/table3_latency.toml",
        "Table 3: a 100 ms link",
        discussion="""
DRR gives every TCP its 6250 packets (paper 6080), RED about a tenth, as printed (622 against
628), FIFO less (103 against 378). CSFQ's TCPs get 4722 (paper 5761) and FRED-2's 3991 (paper
4974): both below the paper by about a fifth, in the same order. FRED-1, dropping every packet while the average
stays above max_th, starves the TCPs entirely on this long link; the paper's FRED row is not
that variant.
""",
    ),
    Experiment(
        "table4-udp",
        "csfq98/table4_relabeling.toml",
        "Table 4: relabeling, three UDPs",
        tables=("udp",),
        discussion="""
With relabeling the three UDPs share link 2 within 1% of 3.33 Mb/s (3.32-3.34), as printed. Without it
(our ablation) flows 1 and 2 keep the labels of link 1 (5 Mb/s), are dropped as if twice as
fast as they are, and flow 3 takes half of link 2.
""",
    ),
    Experiment(
        "table4-tcp",
        "csfq98/table4_relabeling.toml",
        "Table 4: relabeling, three TCPs",
        overrides=TABLE4_TCP,
        tables=("tcp",),
        discussion="""
The TCPs get 3.27-3.45 Mb/s, within 4% of 3.33, as in the paper (3.13-3.43). Relabeling changes nothing for them here:
after link 1's drops, TCP sources slow down and their labels follow their rates.
""",
    ),
)

# --- claims ---------------------------------------------------------------------------


def fig3a_csfq(ctx: Context):
    m = ctx("fig3a")

    def deviations(pair: str) -> list[float]:
        return [mbps(m, pair, f"udp{i}") / FAIR3 - 1 for i in range(32)]

    dev, byte = deviations("CSFQ"), deviations("CSFQ, 8-bit labels")
    return verdict(
        all(-0.11 <= d <= 0.05 for d in dev),
        lowest_deviation=min(dev),
        highest_deviation=max(dev),
        lowest_with_8_bit_labels=min(byte),
        highest_with_8_bit_labels=max(byte),
    )


def fig3a_drr(ctx: Context):
    m = ctx("fig3a")
    dev = [abs(mbps(m, "DRR", f"udp{i}") / FAIR3 - 1) for i in range(32)]
    return verdict(max(dev) <= 0.05, largest_deviation=max(dev))


def fig3a_proportional(ctx: Context):
    m = ctx("fig3a")
    named, held = {}, True
    for p in ("FIFO", "RED", "FRED-1"):
        ratio = mbps(m, p, "udp31") / mbps(m, p, "udp0")
        held &= ratio > 8
        named[f"{p} flow 31 / flow 0"] = ratio
    return verdict(held, **named)


def fig3b(ctx: Context):
    m = ctx("fig3b")
    udp = {p: mbps(m, p, "udp0") for p in PAIRS}
    fred = max(udp["FRED-1"], udp["FRED-2"])
    held = udp["CSFQ"] < 2 * FAIR3 and udp["DRR"] < 2 * FAIR3 and 3 * FAIR3 < fred < 8 * FAIR3
    held &= udp["FIFO"] > 8 and udp["RED"] > 8
    return verdict(held, **{f"{p} UDP": v for p, v in udp.items()})


def _fig4(ctx: Context) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {p: {} for p in PAIRS}
    for n, m in _sweep(ctx, "fig4"):
        for p in PAIRS:
            out[p][int(n)] = mbps(m, p, "tcp0") / (10 / n)
    return out


def fig4_drr(ctx: Context):
    c = _fig4(ctx)["DRR"]
    few = [v for n, v in c.items() if n < 22]
    many = [v for n, v in c.items() if n >= 22]
    if not few or not many:
        return verdict(False, points=float("nan"))
    held = np.mean(few) >= 0.8 and np.mean(many) < 0.9 * np.mean(few)
    return verdict(held, DRR_mean_below_22=float(np.mean(few)), DRR_mean_from_22=float(np.mean(many)))


def fig4_csfq_vs_drr(ctx: Context):
    c = _fig4(ctx)
    many = [n for n in c["DRR"] if n >= 22]
    if not many:
        return verdict(False, points=float("nan"))
    csfq, drr = (float(np.mean([c[p][n] for n in many])) for p in ("CSFQ", "DRR"))
    return verdict(csfq > drr, CSFQ_mean_from_22=csfq, DRR_mean_from_22=drr)


def fig4_csfq_vs_fred(ctx: Context):
    c = _fig4(ctx)
    worst = min(c["CSFQ"][n] - max(c["FRED-1"][n], c["FRED-2"][n]) for n in c["CSFQ"])
    return verdict(worst >= -0.1, **{"CSFQ − best FRED, lowest over N": worst})


def _fig6(ctx: Context, exp: str, flow: str) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {p: {} for p in PAIRS}
    for k, m in _sweep(ctx, exp):
        for p in PAIRS:
            out[p][int(k)] = mbps(m, p, flow) / FAIR6
    return out


def fig6a(ctx: Context):
    c = _fig6(ctx, "fig6a", "udp0")
    k = max(c["CSFQ"])
    held = (
        min(c["CSFQ"].values()) >= 0.8 and min(c["DRR"].values()) >= 0.9 and c["FIFO"][k] < 0.6 * c["CSFQ"][k]
    )
    return verdict(
        held,
        CSFQ_lowest=min(c["CSFQ"].values()),
        DRR_lowest=min(c["DRR"].values()),
        FIFO_at_most_links=c["FIFO"][k],
        RED_at_most_links=c["RED"][k],
    )


def fig6b(ctx: Context):
    c = _fig6(ctx, "fig6b", "tcp0")
    k = max(c["CSFQ"])
    fred = max(c["FRED-1"][k], c["FRED-2"][k])
    held = (
        c["CSFQ"][k] >= 0.6
        and c["DRR"][k] >= 0.6
        and fred < c["CSFQ"][k]
        and max(c["RED"][k], c["FIFO"][k]) < fred
    )
    return verdict(held, **{f"{p} at K={k}": v[k] for p, v in c.items()})


def fig7(ctx: Context):
    m = ctx("fig7")
    flows = ("rlm1", "rlm2", "rlm3", "tcp")
    named, held = {}, True
    for p in ("DRR", "CSFQ"):
        xs = [mbps(m, p, f) for f in flows]
        held &= all(within(x, 1.0, rel=0.3) for x in xs)
        named |= {f"{p} lowest": min(xs), f"{p} highest": max(xs)}
    fred = [mbps(m, "FRED-1", f) for f in flows]
    held &= max(fred) > 1.5 * min(fred)
    return verdict(held, **named, FRED_highest_over_lowest=max(fred) / min(fred))


def table1(ctx: Context):
    m = ctx("table1")
    d = {p: m.value(p, "onoff", "packets") for p in PAIRS}
    fair = max(d["CSFQ"], d["FRED-2"])
    held = d["DRR"] < fair and 2 * fair < min(d["RED"], d["FIFO"])
    return verdict(held, **{f"{p} delivered": v for p, v in d.items()})


def table2(ctx: Context):
    m = ctx("table2")
    t = {p: m.value(p, "web#*", "transfer_time") for p in PAIRS}
    held = t["CSFQ"] < min(t["RED"], t["FIFO"]) / 3 and t["CSFQ"] < 10 * min(t["DRR"], t["FRED-2"])
    return verdict(held, **{f"{p} ms": v for p, v in t.items()})


def table3(ctx: Context):
    m = ctx("table3")
    t = {p: m.value(p, "tcp*", "packets") / 6250 for p in PAIRS}
    held = t["CSFQ"] >= 0.7 and t["FRED-2"] >= 0.6 and max(t["RED"], t["FIFO"]) <= 0.15
    return verdict(held, **{f"{p} share of ideal": v for p, v in t.items()})


def table4(ctx: Context):
    udp, tcp = ctx("table4-udp"), ctx("table4-tcp")
    u = [mbps(udp, "CSFQ", f"udp{i}") for i in (1, 2, 3)]
    t = [mbps(tcp, "CSFQ", f"tcp{i}") for i in (1, 2, 3)]
    unlabeled = mbps(udp, "CSFQ, no relabeling", "udp3")
    held = all(within(x, 10 / 3, rel=0.05) for x in u) and all(within(x, 10 / 3, rel=0.1) for x in t)
    held &= unlabeled > 1.2 * 10 / 3
    return verdict(
        held,
        UDP_lowest=min(u),
        UDP_highest=max(u),
        TCP_lowest=min(t),
        TCP_highest=max(t),
        flow_3_without_relabeling=unlabeled,
    )


def c(cid, exp, text, tolerance, check, source) -> Claim:
    return Claim(cid, exp, text, tolerance, check, source)


CLAIMS = (
    c(
        "fig3a-csfq",
        "fig3a",
        "Under CSFQ every one of 32 UDPs gets between −11% and +5% of its fair share of 0.3125 Mb/s.",
        "every flow's 10 s throughput in [−11%, +5%] of 0.3125 Mb/s",
        fig3a_csfq,
        "§3.1, Figure 3(a)",
    ),
    c(
        "fig3a-drr",
        "fig3a",
        "DRR is extremely effective: every flow gets its fair share.",
        "every flow within 5% of 0.3125 Mb/s",
        fig3a_drr,
        "§3.1, Figure 3(a)",
    ),
    c(
        "fig3a-proportional",
        "fig3a",
        "FIFO, RED and FRED-1 give each flow a share proportional to its input.",
        "flow 31 (32× flow 0's input) gets more than 8× flow 0's throughput under each",
        fig3a_proportional,
        "§3.1, Figure 3(a)",
    ),
    c(
        "fig3b-udp",
        "fig3b",
        "A 10 Mb/s UDP among 31 TCPs gets 0.361 Mb/s under CSFQ, 0.396 under DRR, almost 1.8 under FRED, and more than 8 under FIFO and RED.",
        "CSFQ and DRR below twice the fair share (0.625), the better FRED between 3 and 8 times it, FIFO and RED above 8 Mb/s",
        fig3b,
        "§3.1, Figure 3(b)",
    ),
    c(
        "fig4-drr",
        "fig4",
        "DRR serves a TCP against N − 1 UDPs very well for fewer than 22 flows and degrades after that (its buffer share falls below three packets).",
        "DRR's normalised TCP throughput averages at least 0.8 below N = 22 and at least 10% less from N = 22",
        fig4_drr,
        "§3.1, Figure 4",
    ),
    c(
        "fig4-csfq-vs-drr",
        "fig4",
        "CSFQ outperforms DRR when the number of flows is large, letting the TCP buffer bursts.",
        "CSFQ's normalised TCP throughput, averaged over N ≥ 22, above DRR's",
        fig4_csfq_vs_drr,
        "§3.1, Figure 4",
    ),
    c(
        "fig4-csfq-vs-fred",
        "fig4",
        "Across the whole range CSFQ is similar to or better than FRED.",
        "at every N, CSFQ's normalised TCP throughput at least the better FRED's − 0.1",
        fig4_csfq_vs_fred,
        "§3.1, Figure 4",
    ),
    c(
        "fig6a",
        "fig6a",
        "A UDP at its fair share across a chain of congested links: CSFQ and FRED do reasonably well, DRR best; FIFO and RED much worse.",
        "CSFQ's normalised throughput at least 0.8 at every K, DRR's at least 0.9, FIFO below 0.6× CSFQ at the longest chain",
        fig6a,
        "§3.2, Figure 6",
    ),
    c(
        "fig6b",
        "fig6b",
        "A TCP across the chain: DRR and CSFQ are effective, FRED significantly worse but much better than RED and FIFO.",
        "at the longest chain: CSFQ and DRR at least 0.6 of the fair share, the better FRED below CSFQ, RED and FIFO below it",
        fig6b,
        "§3.2, Figure 6",
    ),
    c(
        "fig7",
        "fig7",
        "Three RLM flows and a TCP on 4 Mb/s: DRR and CSFQ give fair allocations (about 1 Mb/s each); FRED does not.",
        "under DRR and CSFQ every flow within 30% of 1 Mb/s; under FRED-1 the best flow above 1.5× the worst",
        fig7,
        "§3.3, Figure 7",
    ),
    c(
        "table1",
        "table1",
        "An ON-OFF source at 10 Mb/s among 19 TCPs: DRR holds it to its share; FRED and CSFQ achieve a high degree of fairness; RED and FIFO let it through.",
        "DRR delivers fewer of its packets than CSFQ and FRED-2, and RED and FIFO more than twice what they deliver",
        table1,
        "§3.4, Table 1",
    ),
    c(
        "table2",
        "table2",
        "Web transfers against a 10 Mb/s UDP: CSFQ is almost an order of magnitude better than FIFO and RED, though worse than FRED.",
        "CSFQ's mean transfer time below a third of RED's and FIFO's, and within 10× of DRR's and FRED-2's",
        table2,
        "§3.4, Table 2",
    ),
    c(
        "table3",
        "table3",
        "On a 100 ms link, CSFQ and FRED perform reasonably well (92% and 80% of the ideal), RED and FIFO do not (10% and 6%).",
        "CSFQ at least 70% of 6250 packets per TCP, FRED-2 at least 60%, RED and FIFO at most 15%",
        table3,
        "§3.5, Table 3",
    ),
    c(
        "table4",
        "table4-udp",
        "With relabeling, three flows across two congested links share the second fairly: UDPs 3.36/3.32/3.28 and TCPs 3.43/3.13/3.43 Mb/s, all ≈ 3.33.",
        "UDPs within 5% and TCPs within 10% of 3.33 Mb/s; without relabeling (our ablation) flow 3 gets more than 1.2× its share",
        table4,
        "§3.6, Table 4",
    ),
)

TESTED = (
    TestedClaim(
        "estimator",
        "The edge estimate (Eq. 3) weighs by e^{−T/K} and converges to the true rate whatever the packet sizes.",
        ("qdisc::csfq::tests::the_flow_rate_estimate_converges_whatever_the_packet_sizes",),
        "§2.2.1, Eq. (3)",
    ),
    TestedClaim(
        "drop-probability",
        "The drop probability is max(0, 1 − α/label), independent of the packet size.",
        ("qdisc::csfq::tests::the_drop_probability_depends_on_the_label_not_the_packet_size",),
        "§2.1, Eq. (2); §2.2.2",
    ),
    TestedClaim(
        "alpha",
        "α ← α·C/F̂ after a congested window; the largest label after an uncongested one.",
        (
            "qdisc::csfq::tests::a_congested_window_scales_alpha_by_capacity_over_accepted_rate",
            "qdisc::csfq::tests::an_uncongested_window_sets_alpha_to_the_largest_label",
        ),
        "§2.2.2, Eq. (5), Figure 2",
    ),
    TestedClaim(
        "overflow",
        "Each overflow lowers α by 1%, by at most 25% between regular updates.",
        ("qdisc::csfq::tests::overflows_lower_alpha_by_one_percent_and_at_most_a_quarter",),
        "§2.2.2 (its last paragraph)",
    ),
    TestedClaim(
        "low-occupancy",
        "Once uncongested, a link stays so (and drops nothing) while its buffer is less than half full.",
        (
            "qdisc::csfq::tests::a_calm_buffer_keeps_the_link_uncongested",
            "qdisc::csfq::tests::an_uncongested_link_with_a_calm_buffer_drops_nothing",
        ),
        "§2.2.2 (its last paragraph)",
    ),
    TestedClaim(
        "relabel-and-state",
        "Forwarded packets leave with min(label, α); core routers keep no per-flow state (10 000 flows).",
        (
            "qdisc::csfq::tests::forwarded_packets_are_relabeled_to_the_fair_share",
            "qdisc::csfq::tests::a_core_router_keeps_no_per_flow_state_whatever_the_number_of_flows",
        ),
        "§2.2.3, Eq. (7); §2.5",
    ),
    TestedClaim(
        "weighted",
        "Weighted CSFQ gives bandwidth in proportion to the weights; unweighted, max-min shares.",
        ("fairness::csfq_approximates_max_min_and_weighted_shares_without_per_flow_queues",),
        "§2.1, Eq. (1); §2.3",
    ),
    TestedClaim(
        "theorem-1",
        "Theorem 1: with fixed α and no buffer, a flow's excess service never exceeds r_α·K·(1 + ln(R/r_α)) + l_max.",
        (
            "qdisc::csfq::tests::excess_service_stays_within_theorem_1s_bound (property test)",
            "qdisc::csfq::tests::a_long_burst_at_the_peak_rate_approaches_the_bound_but_stays_under",
        ),
        "§2.4, Theorem 1",
    ),
    TestedClaim(
        "label-encoding",
        "An 8-bit float label (4-bit mantissa and exponent) covers 1 kb/s-65 Mb/s within 6.25%, and CSFQ with such labels still gives max-min shares (Figure 3(a)'s claim also reports them).",
        (
            "qdisc::csfq::label::tests::the_byte_covers_1_kbps_to_65_mbps_within_the_papers_accuracy",
            "qdisc::csfq::label::tests::the_codes_run_from_1_kbps_to_63_5_mbps_in_increasing_order",
            "qdisc::csfq::tests::byte_labels_are_the_estimates_rounded_to_the_8_bit_codes",
            "fairness::csfq_approximates_max_min_and_weighted_shares_without_per_flow_queues",
        ),
        "§2.7",
    ),
)


# --- figures --------------------------------------------------------------------------


def _lines(
    title: str, xlabel: str, ylabel: str, series: dict[str, list[tuple[float, float]]], ref=None
) -> MplFigure:
    fig = MplFigure(figsize=(7, 4.6), layout="constrained")
    ax = fig.subplots()
    for p, pts in series.items():
        if pts:
            ax.plot(
                [x for x, _ in pts], [y for _, y in pts], "o-", markersize=3, label=p, color=COLORS.get(p)
            )
    if ref is not None:
        ax.axhline(ref, color="black", linestyle=":", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    fig.legend(fontsize="small", ncol=6, loc="outside lower center")  # below, never over a line
    return fig


def draw_fig3a(ctx: Context):
    m = ctx("fig3a")
    series = {p: [(i, mbps(m, p, f"udp{i}")) for i in range(32)] for p in PAIRS}
    return _lines(
        "32 UDPs, flow i at (i+1)× its share", "flow", "throughput over 10 s (Mb/s)", series, ref=FAIR3
    )


def draw_fig3b(ctx: Context):
    m = ctx("fig3b")
    series = {p: [(i, mbps(m, p, "udp0" if i == 0 else f"tcp{i}")) for i in range(32)] for p in PAIRS}
    fig = _lines(
        "flow 0: UDP at 10 Mb/s; flows 1-31: TCPs", "flow", "throughput over 10 s (Mb/s)", series, ref=FAIR3
    )
    fig.axes[0].set_yscale("log")
    return fig


def draw_fig4(ctx: Context):
    c = _fig4(ctx)
    return _lines(
        "one TCP against N − 1 UDPs at twice their share",
        "N (flows)",
        "TCP throughput / fair share",
        {p: sorted(v.items()) for p, v in c.items()},
        ref=1.0,
    )


def _draw_fig6(exp: str, flow: str, title: str):
    def draw(ctx: Context):
        c = _fig6(ctx, exp, flow)
        return _lines(
            title,
            "congested links",
            "throughput / fair share",
            {p: sorted(v.items()) for p, v in c.items()},
            ref=1.0,
        )

    return draw


def draw_fig7(ctx: Context):
    m = ctx("fig7")
    df = m.results.intervals
    df = df[~df["warmup"]]
    seed = df["seed"].min()
    pairs = ("DRR", "CSFQ", "FRED-1", "RED", "FIFO")
    fig = MplFigure(figsize=(7.5, 9))
    axes = fig.subplots(len(pairs), 1, sharex=True)
    for ax, pair in zip(axes, pairs, strict=True):
        d = df[(df["pair"] == pair) & (df["seed"] == seed)]
        for flow, g in d.groupby("flow"):
            ax.plot(
                g["end_s"],
                g["bytes_unique"] * 8 / (g["end_s"] - g["start_s"]) / 1e6,
                linewidth=0.7,
                label=flow,
            )
        ax.set_title(pair, fontsize="small", loc="left")
        ax.set_ylabel("Mb/s", fontsize="small")
        ax.set_ylim(0, 4.2)
    axes[0].legend(fontsize="x-small", ncol=4)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("three RLM receivers and a TCP on 4 Mb/s (1 s averages)", fontsize="medium")
    return fig


FIGURES = (
    Figure(
        "fig3a",
        "Figure 3(a)",
        "Each flow's throughput over 10 s; the dotted line is the fair share.",
        "fig3a",
        draw_fig3a,
    ),
    Figure(
        "fig3b",
        "Figure 3(b)",
        "The UDP (flow 0) and the 31 TCPs; log scale; the dotted line is the fair share.",
        "fig3b",
        draw_fig3b,
    ),
    Figure(
        "fig4",
        "Figure 4",
        "The TCP's throughput over its fair share 10/N Mb/s, against the number of flows N.",
        "fig4",
        draw_fig4,
    ),
    Figure(
        "fig6a",
        "Figure 6(a)",
        "UDP-0's throughput over its fair share (0.909 Mb/s) against the number of congested links.",
        "fig6a",
        _draw_fig6("fig6a", "udp0", "UDP-0 across a chain of congested links"),
    ),
    Figure(
        "fig6b",
        "Figure 6(b)",
        "TCP-0's throughput over its fair share against the number of congested links.",
        "fig6b",
        _draw_fig6("fig6b", "tcp0", "TCP-0 across a chain of congested links"),
    ),
    Figure(
        "fig7",
        "Figure 7",
        "Throughput over 1 s of the three RLM flows and the TCP, one panel per discipline (first replication).",
        "fig7",
        draw_fig7,
    ),
)

PAPER = Paper(
    id="csfq98",
    title="Core-Stateless Fair Queueing: Achieving Approximately Fair Bandwidth Allocations in High Speed Networks",
    citation="I. Stoica, S. Shenker, H. Zhang. ACM SIGCOMM 1998, pp. 118-130.",
    summary="""
Edge routers estimate each flow's rate and label its packets; every router drops arriving
packets with probability max(0, 1 − α/label) against its own estimate α of the fair share, so
core routers keep no per-flow state. The paper compares CSFQ with FIFO, RED, FRED and DRR in
ns-2: 32 UDPs of increasing rates and one UDP against 31 TCPs (Figure 3), one TCP against N − 1
UDPs (Figure 4), a chain of congested links (Figure 6), RLM against TCP (Figure 7), ON-OFF and
web traffic (Tables 1-2), a 100 ms link (Table 3) and relabeling (Table 4). The plots are lost
from our copy of the paper; the tables and the numbers quoted in the text survive.
""",
    experiments=EXPERIMENTS,
    claims=CLAIMS,
    tested=TESTED,
    figures=FIGURES,
    seeds=5,
    method="""
Every experiment as the paper states it: 10 Mb/s links of 1 ms with 64 KB buffers, K = K_α =
K_c = 100 ms (250 ms for RLM, 400 ms on the 100 ms link), RED and FRED thresholds 16 and 32 KB,
UDP gaps uniform in [0.5, 1.5) of the mean, the first router of each path the edge. What it
leaves out we chose once for all experiments (each scenario file says so): 1000-byte packets,
100 Mb/s access lines, TCP as ns-2's default of the time (Tahoe, window 20, timeouts of at least
0.2 s), DRR with a queue per flow and longest-queue drops, FRED-1 as Lin and Morris's FRED and
FRED-2 with their support for many flows. Throughputs are averaged over the paper's 10 s (100 s
in Tables 1 and 3) after a warm-up of ours; five replications (three for the long sweeps).
""",
)
