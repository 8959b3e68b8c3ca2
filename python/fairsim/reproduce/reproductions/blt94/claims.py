"""Kim & Farber 1994: the paper's findings (spec §10, items 8-23) checked on the load sweeps.

The paper's figures are lost but for their captions and the prose about them; its numbers are
Table 1 (log10 of the maximum power P_m, B/s²) and the 1 Gb/s operating points of §4.3.1.
P_m is the largest power over our λ grid, the paper's "maximum power over the λ sweep"."""

from __future__ import annotations

import itertools
import math

import numpy as np

from fairsim.reproduce.claims import Claims, Context, TestedClaim, verdict
from fairsim.reproduce.reproductions.blt94.experiments import (
    CONFIG,
    SIZES,
    Point,
    best,
    curve,
)
from fairsim.reproduce.reproductions.blt94.table1 import RATIOS, TABLE1, exp_id, log_pm

P = "Kim & Farber 1994"
REF, GBIT = CONFIG["ref"], CONFIG["gbit"]


def gaps(ctx: Context, config: str) -> list[float]:
    """log10 P_m(BLT) − log10 P_m(TCP) at the three bottlenecks."""
    return [b - t for b, t in zip(log_pm(ctx, config, "BLT"), log_pm(ctx, config, "TCP"), strict=True)]


def changes(ctx: Context, before: str, after: str, scheme: str) -> list[float]:
    """log10 P_m in configuration `after` less that in `before`, at each BW_b/BW_N."""
    return [a - b for b, a in zip(log_pm(ctx, before, scheme), log_pm(ctx, after, scheme), strict=True)]


def divergence(points: list[Point]) -> float:
    """The load at which R reaches three times its value at the lightest load: linear between
    the grid's loads on either side of the crossing (the first load above it would credit a
    curve with the grid's step: a crossing between 70% and 80% is not "at 80% or more"); inf if
    R never gets there."""
    base = 3 * points[0].response_s
    for before, p in itertools.pairwise(points):
        if p.response_s > base:
            share = (base - before.response_s) / (p.response_s - before.response_s)
            return before.load + share * (p.load - before.load)
    return math.inf


def named(values: list[float], prefix: str) -> dict[str, float]:
    return {f"{prefix}{r}": v for r, v in zip(RATIOS, values, strict=True)}


CLAIMS = Claims()


@CLAIMS.claim(
    "ref-response",
    experiment="ref-30",
    text="In the reference network (BW_b = 30 Mb/s), BLT's response time is consistently lower than TCP's (a speedup of more than 200% in R); TCP's R diverges near λ = 20 connections/s, BLT's not until about 35 (λ_cap = 37.5).",
    tolerance="R_TCP/R_BLT ≥ 2 at every load up to 50%; R diverging (3× its light-load value) at 40-70% of λ_cap for TCP and at 80% or more for BLT",
    source=f"{P} §4.2.1, Figure 6",
)
def ref_response(ctx: Context):
    blt, tcp = curve(ctx, "ref-30", "BLT"), curve(ctx, "ref-30", "TCP")
    ratios = [t.response_s / b.response_s for b, t in zip(blt, tcp, strict=True) if b.load <= 0.5]
    d_tcp, d_blt = divergence(tcp), divergence(blt)
    held = min(ratios) >= 2 and 0.4 <= d_tcp <= 0.7 and d_blt >= 0.8
    return verdict(
        held,
        smallest_speedup=min(ratios),
        TCP_diverges_at_load=d_tcp,
        BLT_diverges_at_load=d_blt,
        TCP_diverges_at_lambda=d_tcp * 37.5,
        BLT_diverges_at_lambda=d_blt * 37.5,
    )


@CLAIMS.claim(
    "ref-utilisation",
    experiment="ref-30",
    text="At the same λ, the bottleneck's utilisation is lower under BLT than under TCP ('seemingly counterintuitive').",
    tolerance="in ref-30, BLT's utilisation at most TCP's (+0.01) at 80% or more of the loads",
    source=f"{P} §4.2.1, Figure 7",
)
def ref_utilisation(ctx: Context):
    blt, tcp = curve(ctx, "ref-30", "BLT"), curve(ctx, "ref-30", "TCP")
    lower = [b.utilisation <= t.utilisation + 0.01 for b, t in zip(blt, tcp, strict=True)]
    held = np.mean(lower) >= 0.8
    return verdict(
        held,
        loads_lower=sum(lower),
        loads=len(lower),
        BLT_at_half_load=next(b.utilisation for b in blt if b.load == 0.5)
        if any(b.load == 0.5 for b in blt)
        else math.nan,
        TCP_at_half_load=next(t.utilisation for t in tcp if t.load == 0.5)
        if any(t.load == 0.5 for t in tcp)
        else math.nan,
    )


@CLAIMS.claim(
    "ref-throughput",
    experiment="ref-30",
    text="System throughput rises roughly in proportion to λ; BLT's is higher, especially at large λ, and TCP tops out earlier.",
    tolerance="in each reference experiment, both schemes' Θ within 10% of the offered load at 20% load, and at the highest load TCP's Θ below BLT's",
    source=f"{P} §4.2.1, Figure 9",
)
def ref_throughput(ctx: Context):
    checks, top = [], {}
    for i, bw in enumerate(REF.bottlenecks):
        offered = {p.load: p.load * bw / 8 for p in curve(ctx, exp_id("ref", i), "BLT")}
        for scheme in ("BLT", "TCP"):
            at = {p.load: p.throughput_Bps for p in curve(ctx, exp_id("ref", i), scheme)}
            low = min(at, key=lambda x: abs(x - 0.2))
            checks.append(abs(at[low] / offered[low] - 1) <= 0.1)
        b, t = best_load(ctx, exp_id("ref", i))
        top[f"BLT_over_TCP_at_top_{bw / 1e6:g}"] = b / t
        checks.append(b > t)
    return verdict(all(checks), **top)


def best_load(ctx: Context, exp: str) -> tuple[float, float]:
    """Θ of BLT and TCP at the highest load."""
    return curve(ctx, exp, "BLT")[-1].throughput_Bps, curve(ctx, exp, "TCP")[-1].throughput_Bps


@CLAIMS.claim(
    "ref-power-ratios",
    experiment="ref-30",
    text="In the reference network BLT's maximum power is about 3, 6 and 10 times TCP's (0.5, 0.8 and 1 in log scale) at BW_b = 30, 90 and 150 Mb/s, and BLT's power at 90 Mb/s exceeds TCP's at 150 Mb/s.",
    tolerance="each log10 P_m gap within ±0.3 of 0.5, 0.8, 1.0; and log P_m(BLT, 90) > log P_m(TCP, 150)",
    source=f"{P} §4.2.1, Figure 10",
)
def ref_power_ratios(ctx: Context):
    g = gaps(ctx, "ref")
    blt, tcp = log_pm(ctx, "ref", "BLT"), log_pm(ctx, "ref", "TCP")
    held = all(abs(x - y) <= 0.3 for x, y in zip(g, (0.5, 0.8, 1.0), strict=True)) and blt[1] > tcp[2]
    return verdict(held, **named(g, "gap_"), BLT_90=blt[1], TCP_150=tcp[2])


def table1_check(scheme: str, config: str):
    def check(ctx: Context):
        ours = log_pm(ctx, config, scheme)
        paper = TABLE1[(scheme, config)]
        held = all(abs(a - b) <= 0.3 for a, b in zip(ours, paper, strict=True))
        return verdict(held, **named(ours, "ours_"), **named(list(paper), "paper_"))

    return check


for _scheme in ("BLT", "TCP"):
    for _config, _bw in (("ref", "150 Mb/s"), ("gbit", "1 Gb/s")):
        CLAIMS.add(
            f"table1-{_scheme.lower()}-{_config}",
            experiment=exp_id(_config, 0),
            text=f"Table 1: {_scheme}'s log10 P_m at BW_N = {_bw} is {', '.join(map(str, TABLE1[(_scheme, _config)]))} B/s² for BW_b/BW_N = 1/5, 3/5, 1.",
            tolerance="each within ±0.3",
            check=table1_check(_scheme, _config),
            source=f"{P} Table 1",
        )


@CLAIMS.claim(
    "scalability",
    experiment="gbit-200",
    text="From BW_N = 150 Mb/s to 1 Gb/s at the same BW_b/BW_N, BLT's maximum power grows more than TCP's: Δlog P_m(BLT) − Δlog P_m(TCP) ≥ 0.4 at every ratio (1.5 vs 1.1, 1.3 vs 0.8, 1.1 vs 0.7), and at 1 Gb/s BLT's P_m is 17-20 times TCP's.",
    tolerance="Δ(BLT) − Δ(TCP) ≥ 0.3 at every ratio (the table's 0.4 less its rounding), and the 1 Gb/s gap at BW_b = BW_N within ±0.3 of 1.23 (17×)",
    source=f"{P} §4.2.2 and §4.3.1, Table 1, Figure 12",
)
def scalability(ctx: Context):
    d_blt, d_tcp = changes(ctx, "ref", "gbit", "BLT"), changes(ctx, "ref", "gbit", "TCP")
    margin = [b - t for b, t in zip(d_blt, d_tcp, strict=True)]
    top = gaps(ctx, "gbit")[2]
    held = min(margin) >= 0.3 and abs(top - 1.23) <= 0.3
    return verdict(
        held, **named(d_blt, "dBLT_"), **named(d_tcp, "dTCP_"), gap_at_1Gbps=top, ratio_at_1Gbps=10**top
    )


def little(p: Point, size: str = "100KB") -> float:
    """Connections outstanding the paper's way (§4.3.1, Little's law): N = Θ·R/F."""
    return p.throughput_Bps * p.response_s / SIZES[size]


@CLAIMS.claim(
    "gbit-operating-points",
    experiment="gbit-1000",
    text="At BW_N = BW_b = 1 Gb/s, D = 30 ms, F = 100 KB, the maximum-power points are: BLT Θ ≈ 605 Mb/s (725 with the measured R), R = 0.032 s, 29 connections outstanding, at λ ≈ 900/s; TCP Θ = 318 Mb/s, R = 0.2894 s, 115 outstanding.",
    tolerance="R within 25% (BLT 0.032 s, TCP 0.2894 s); Θ within 25% (BLT of 605-725 Mb/s, TCP of 318 Mb/s); N as the paper forms it, Θ·R/F (29 = 725 Mb/s × 0.032 s / 100 KB, 115 = 318 Mb/s × 0.2894 s / 100 KB), within a factor of 1.5 (our λR, the arrival rate times R, is given beside it: above Θ·R/F wherever some arrivals have not finished)",
    source=f"{P} §4.3.1",
)
def gbit_points(ctx: Context):
    b = best(curve(ctx, "gbit-1000", "BLT"))
    t = best(curve(ctx, "gbit-1000", "TCP"))
    mb = lambda p: p.throughput_Bps * 8 / 1e6  # noqa: E731
    ok = [
        abs(b.response_s / 0.032 - 1) <= 0.25,
        605 * 0.75 <= mb(b) <= 725 * 1.25,
        1 / 1.5 <= little(b) / 29 <= 1.5,
        abs(t.response_s / 0.2894 - 1) <= 0.25,
        abs(mb(t) / 318 - 1) <= 0.25,
        1 / 1.5 <= little(t) / 115 <= 1.5,
    ]
    return verdict(
        all(ok),
        BLT_R=b.response_s,
        BLT_Mbps=mb(b),
        BLT_Mbps_longest_run=b.throughput_longest_Bps * 8 / 1e6,
        BLT_N=little(b),
        BLT_N_lambda_R=b.outstanding,
        BLT_lambda=b.arrival_rate,
        TCP_R=t.response_s,
        TCP_Mbps=mb(t),
        TCP_N=little(t),
        TCP_N_lambda_R=t.outstanding,
        TCP_lambda=t.arrival_rate,
    )


@CLAIMS.claim(
    "d3ms",
    experiment="d3ms-30",
    text="With D = 3 ms (BDP ≈ 56 KB) power is larger than at 30 ms for both schemes; the BLT-TCP gap narrows, but BLT stays above TCP at every BW_b and the gap grows with BW_b.",
    tolerance="at every BW_b: P_m(3 ms) > P_m(30 ms) for both, and 0 < gap(3 ms) < gap(30 ms); gap at BW_b = BW_N above gap at BW_N/5",
    source=f"{P} §4.2.3, Figure 15",
)
def d3ms(ctx: Context):
    g3, g30 = gaps(ctx, "d3ms"), gaps(ctx, "ref")
    higher = all(x > 0 for s in ("BLT", "TCP") for x in changes(ctx, "ref", "d3ms", s))
    held = higher and all(0 < a < b for a, b in zip(g3, g30, strict=True)) and g3[2] > g3[0]
    return verdict(held, **named(g3, "gap3ms_"), **named(g30, "gap30ms_"))


@CLAIMS.claim(
    "d1.8ms",
    experiment="d1.8ms-30",
    text="With D = 1.8 ms (BDP ≈ 35 KB) BLT is still above TCP, the gap slightly smaller than at 3 ms ('down to 35 KB, BLT outperformed TCP').",
    tolerance="gap > 0 at every BW_b, and its mean over BW_b below the 3 ms one's",
    source=f"{P} §4.2.3 and §4.3.2, Figure 17",
)
def d18ms(ctx: Context):
    g18, g3 = gaps(ctx, "d1.8ms"), gaps(ctx, "d3ms")
    held = min(g18) > 0 and np.mean(g18) < np.mean(g3)
    return verdict(held, **named(g18, "gap1.8ms_"), mean_gap_3ms=float(np.mean(g3)))


@CLAIMS.claim(
    "slow",
    experiment="slow-3",
    text="At BW_N = 15 Mb/s, D = 30 ms (the same BDP as 150 Mb/s, 3 ms) power is about two orders of magnitude lower; TCP is slightly better only at BW_b = 3 Mb/s and low λ, BLT wins otherwise.",
    tolerance="log P_m below the (150 Mb/s, 3 ms) one's by 1.5 to 2.5 for both schemes, averaged over BW_b; BLT's P_m above TCP's at 9 and 15 Mb/s",
    source=f"{P} §4.2.4, Figure 19",
)
def slow(ctx: Context):
    drop = {s: -float(np.mean(changes(ctx, "d3ms", "slow", s))) for s in ("BLT", "TCP")}
    g = gaps(ctx, "slow")
    held = all(1.5 <= d <= 2.5 for d in drop.values()) and g[1] > 0 and g[2] > 0
    return verdict(held, BLT_drop=drop["BLT"], TCP_drop=drop["TCP"], **named(g, "gap_"))


@CLAIMS.claim(
    "file-1mb",
    experiment="ref-1MB-30",
    text="With 1 MB files BLT's maximum power falls by at least an order of magnitude from 100 KB, TCP's by about half an order; at 1 Gb/s the BLT-TCP gap widens again.",
    tolerance="averaged over BW_b in the reference network: BLT's fall ≥ 0.8, TCP's between 0.2 and 0.8; the 1 Gb/s 1 MB gap above the 150 Mb/s 1 MB gap, averaged over BW_b",
    source=f"{P} §4.2.5, Figures 21 and 23",
)
def file_1mb(ctx: Context):
    fall = {s: -float(np.mean(changes(ctx, "ref", "ref-1MB", s))) for s in ("BLT", "TCP")}
    g_ref, g_gbit = float(np.mean(gaps(ctx, "ref-1MB"))), float(np.mean(gaps(ctx, "gbit-1MB")))
    d = {"BLT_fall": fall["BLT"], "TCP_fall": fall["TCP"], "gap_150": g_ref, "gap_1G": g_gbit}
    d["gap_1G_over_150"] = g_gbit - g_ref
    return verdict(not missed(FILE_1MB, d), **d)


#: file-1mb's conditions, as FAIRNESS's.
FILE_1MB = (
    ("BLT_fall", "BLT's fall of at least 0.8", lambda x: x >= 0.8),
    ("TCP_fall", "TCP's fall between 0.2 and 0.8", lambda x: 0.2 <= x <= 0.8),
    ("gap_1G_over_150", "a wider gap at 1 Gb/s", lambda x: x > 0),
)


@CLAIMS.claim(
    "file-10kb",
    experiment="ref-10KB-30",
    text="With 10 KB files power does not rise tenfold over 100 KB: R is dominated by the ACK's return (BLT sends 20 packets in under 1 ms against a 15 ms ACK trip), and TCP needs at least 4 round trips.",
    tolerance="log P_m(10 KB) − log P_m(100 KB) below 1 for both schemes at every BW_b",
    source=f"{P} §4.2.5, Figure 25",
)
def file_10kb(ctx: Context):
    rise = {s: changes(ctx, "ref", "ref-10KB", s) for s in ("BLT", "TCP")}
    held = all(x < 1 for v in rise.values() for x in v)
    return verdict(held, **named(rise["BLT"], "BLT_rise_"), **named(rise["TCP"], "TCP_rise_"))


@CLAIMS.claim(
    "bully-tyrant",
    experiment="ref-30",
    text="Bully-Tyrant's power almost reaches BLT's at small λ, well above TCP's, but its congestion meltdown comes at a smaller λ than BLT's; it is the least fair of the three.",
    tolerance="at the lightest load BT's power within 30% of BLT's and above TCP's; BT's maximum-power load below BLT's; BT's Jain index, averaged over loads, the lowest",
    source=f"{P} §4.2.6, Figures 28-29",
)
def bully_tyrant(ctx: Context):
    c = {s: curve(ctx, "ref-30", s) for s in ("BLT", "TCP", "BT")}
    light = {s: v[0].power for s, v in c.items()}
    peak = {s: best(v).load for s, v in c.items()}
    fair = {s: float(np.mean([p.jain for p in v])) for s, v in c.items()}
    held = (
        abs(light["BT"] / light["BLT"] - 1) <= 0.3
        and light["BT"] > light["TCP"]
        and peak["BT"] < peak["BLT"]
        and fair["BT"] == min(fair.values())
    )
    return verdict(
        held,
        BT_over_BLT_light=light["BT"] / light["BLT"],
        BT_over_TCP_light=light["BT"] / light["TCP"],
        BT_peak_load=peak["BT"],
        BLT_peak_load=peak["BLT"],
        **{f"jain_{s}": v for s, v in fair.items()},
    )


def mean_jain(ctx: Context, exp: str, scheme: str) -> float:
    return float(np.mean([p.jain for p in curve(ctx, exp, scheme)]))


@CLAIMS.claim(
    "fairness-mixed",
    experiment="ref-30",
    text="Fairness shows no clear winner: in the reference network BLT is fairer at BW_b = 30 and 150 Mb/s and TCP at 90; at 1 Gb/s they are comparable at 200 Mb/s and BLT is fairer at 600 and 1000.",
    tolerance="Jain's index averaged over loads: BLT above TCP at ref 30, ref 150, 1G 600 and 1G 1000, TCP above BLT at ref 90, and within 0.05 of each other at 1G 200",
    source=f"{P} §4.2.1-4.2.2, Figures 11 and 13",
)
def fairness_mixed(ctx: Context):
    d = {}
    for config in ("ref", "gbit"):
        for i, bw in enumerate(CONFIG[config].bottlenecks):
            e = exp_id(config, i)
            d[f"BLT_minus_TCP_{config}_{bw / 1e6:g}"] = mean_jain(ctx, e, "BLT") - mean_jain(ctx, e, "TCP")
    return verdict(not missed(FAIRNESS, d), **d)


#: fairness-mixed's conditions: its named number, the condition in words, and the test.
FAIRNESS = (
    ("BLT_minus_TCP_ref_30", "BLT fairer at 30 Mb/s", lambda x: x > 0),
    ("BLT_minus_TCP_ref_90", "TCP fairer at 90 Mb/s", lambda x: x < 0),
    ("BLT_minus_TCP_ref_150", "BLT fairer at 150 Mb/s", lambda x: x > 0),
    ("BLT_minus_TCP_gbit_200", "the two within 0.05 at 1 Gb/s, 200 Mb/s", lambda x: abs(x) <= 0.05),
    ("BLT_minus_TCP_gbit_600", "BLT fairer at 1 Gb/s, 600 Mb/s", lambda x: x > 0),
    ("BLT_minus_TCP_gbit_1000", "BLT fairer at 1 Gb/s, 1000 Mb/s", lambda x: x > 0),
)


def missed(conditions, values: dict[str, float]) -> list[str]:
    """The conditions (name, words, test) that `values` fail, in words with the value."""
    return [f"{words} ({values[name]:+.3f})" for name, words, ok in conditions if not ok(values[name])]


@CLAIMS.claim(
    "fairness-load",
    experiment="ref-30",
    text="Fairness is best at the lowest load and deteriorates rapidly past the maximum-power arrival rate.",
    tolerance="in every reference and 1 Gb/s experiment, for both schemes, Jain's index at the lightest load above its value at the heaviest",
    source=f"{P} §4.2.1-4.2.2, Figures 11 and 13",
)
def fairness_load(ctx: Context):
    falls = [
        curve(ctx, exp_id(config, i), s)[0].jain > curve(ctx, exp_id(config, i), s)[-1].jain
        for config in ("ref", "gbit")
        for i in range(3)
        for s in ("BLT", "TCP")
    ]
    return verdict(all(falls), curves_falling=sum(falls), curves=len(falls))


@CLAIMS.claim(
    "headline",
    experiment="ref-30",
    text="In all experimentable ranges (BDP from about 35 KB to 4 MB) BLT outperformed TCP approximately around 10 times in maximum power, and the margin grows with bandwidth.",
    tolerance="'around 10 times' where the paper's body puts it, the large networks (BW_N = 150 Mb/s and "
    "1 Gb/s at D = 30 ms, Table 1's six gaps): their mean log10 gap within 1 ± 0.3 (5 to 20 times, the ±0.3 "
    "of the Table 1 claims); the body says the gaps narrow on the small networks (D = 3 and 1.8 ms, "
    "15 Mb/s), so there only every gap above 0; the mean gap at 1 Gb/s above that at 150 Mb/s",
    source=f"{P} §4.3.2 and §5",
)
def headline(ctx: Context):
    large = [g for config in ("ref", "gbit") for g in gaps(ctx, config)]
    small = [g for config in ("d3ms", "d1.8ms", "slow") for g in gaps(ctx, config)]
    mean = float(np.mean(large))
    held = (
        abs(mean - 1) <= 0.3
        and min(large + small) > 0
        and np.mean(gaps(ctx, "gbit")) > np.mean(gaps(ctx, "ref"))
    )
    return verdict(
        held,
        mean_gap_large=mean,
        mean_ratio_large=10**mean,
        mean_gap_small=float(np.mean(small)),
        smallest_gap=min(large + small),
    )


@CLAIMS.claim(
    "queue-trace",
    experiment="queue",
    text="The bottleneck's queue under TCP shows signs of global synchronisation; BLT's does not, and BLT fills the queue at once where TCP warms up with slow start.",
    tolerance="a reading of a picture: the figure `queue` shows both traces; the numbers are the queue's mean and the fraction of time it is full",
    source=f"{P} §4.2.1, Figure 8",
    cannot_fail="the paper gives no measure of synchronisation to compare with; the traces are drawn, not graded",
)
def queue_trace(ctx: Context):
    m = ctx("queue")
    out = {}
    for pair in ("BLT", "TCP"):
        t = m.results[pair].traces
        q = t[t["series"] == "queue"]
        if q.empty:
            continue
        times, values = np.array(q["t_s"]), np.array(q["value"])
        widths = np.diff(times, append=times[-1])
        out[f"{pair}_mean_queue"] = float(np.sum(values * widths) / max(np.sum(widths), 1e-12))
        out[f"{pair}_time_full"] = float(np.sum(widths[values >= values.max()]) / max(np.sum(widths), 1e-12))
    return verdict(True, **out)


TESTED = (
    TestedClaim(
        "priority",
        "The packet at offset j from its burst's start carries priority ⌊log2(j + 1)⌋: 0, 1, 1, 2, 2, 2, 2, 3, ...",
        ("transport::senders::blt::tests::the_packet_at_offset_j_has_priority_floor_log2_of_j_plus_1",),
        f"{P} §3.3.1",
    ),
    TestedClaim(
        "restart",
        "On a loss signal the source quits its burst and starts a new one at the lost packet, with priority 0 there.",
        (
            "transport::senders::blt::tests::a_loss_restarts_the_burst_at_the_lost_packet_with_priority_0",
            "transport::senders::blt::tests::a_timeout_restarts_at_the_first_unacknowledged_packet",
        ),
        f"{P} §3.3.3",
    ),
    TestedClaim(
        "push-out",
        "The switch's pseudo-code: FIFO when not full; when full, drop an arrival at least as opportunistic as every queued packet, else push out the tail-most less important one (the paper's) or the least important one (the fairer reading), keeping order.",
        (
            "qdisc::pushout::tests::the_papers_rule_pushes_out_the_less_important_packet_nearest_the_tail",
            "qdisc::pushout::tests::the_fairer_reading_pushes_out_the_least_important_packet",
            "qdisc::pushout::tests::an_arrival_no_more_important_than_any_queued_packet_is_dropped",
            "qdisc::pushout::tests::equal_priorities_make_it_drop_tail_fifo",
        ),
        f"{P} §3.3.2",
    ),
    TestedClaim(
        "bully-tyrant",
        "Bully-Tyrant sends the same packets as BLT with every priority equal.",
        ("transport::senders::blt::tests::bully_tyrant_sends_the_same_packets_with_every_priority_0",),
        f"{P} §4.2.6",
    ),
    TestedClaim(
        "metrics",
        "R, Θ and P = Θ/R computed by hand on a two-transfer run; a transfer alone takes exactly its lines' times.",
        (
            "stats::transfers::tests::two_transfers_by_hand",
            "engine::connections::tests::a_transfer_alone_takes_its_lines_times_by_hand",
        ),
        f"{P} §4.1.4",
    ),
    TestedClaim(
        "poisson",
        "Connections arrive as a Poisson process of rate λ, each with its own file.",
        ("engine::connections::tests::the_arrivals_are_a_poisson_process_of_the_given_rate",),
        f"{P} §4.1.3",
    ),
)
