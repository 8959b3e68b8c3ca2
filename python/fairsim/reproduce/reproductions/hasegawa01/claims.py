"""Hasegawa, Matsuo, Murata & Miyahara 2001: the paper's findings (spec §10, its own words in
§10b) checked against the forward-model sweep. The paper has no tables and its figures' curves
are lost: every check is a claim with its tolerance. Fairness is the paper's: throughput in
proportion to access capacity, read as the relative throughput (throughput / access capacity)
and summarised by Jain's index of the relative throughputs (1: every connection at the same
fraction of its access line)."""

from __future__ import annotations

from fairsim.models import hasegawa01 as model
from fairsim.reproduce.claims import Claims, Context, TestedClaim, verdict
from fairsim.reproduce.reproductions.hasegawa01.network import ACCESS, TAU, packets
from fairsim.reproduce.reproductions.hasegawa01.reading import (
    below,
    jain,
    losses,
    mean_below,
    relative,
    throughputs,
)

P = "Hasegawa et al. 2001"


CLAIMS = Claims()


@CLAIMS.claim(
    "fifo-unfair",
    experiment="forward",
    text="FIFO cannot provide fairness among connections at all; where the output line is small, a connection with a smaller input line gets more throughput than one with a larger.",
    tolerance="under Reno/FIFO, at every BW up to 880 kb/s the largest relative throughput at least 1.5× the smallest, and at some BW up to 560 kb/s a smaller connection's absolute throughput above a larger one's",
    source=f"{P} §3.1, Figure 2",
)
def fifo_unfair(ctx: Context):
    rel, thr = relative(ctx)["Reno/FIFO"], throughputs(ctx)["Reno/FIFO"]
    spread = {bw: max(r) / max(min(r), 1e-9) for bw, r in rel.items()}
    inversion = [
        bw
        for bw, t in thr.items()
        if bw <= 560 and any(t[i] > t[j] for i in range(4) for j in range(i + 1, 4))
    ]
    held = min(below(spread, 880)) >= 1.5 and bool(inversion)
    return verdict(held, smallest_spread_to_880=min(below(spread, 880)), inversions_up_to_560=len(inversion))


@CLAIMS.claim(
    "red-equal-at-small-bw",
    experiment="forward",
    text="RED's improvement is very limited when the output line is small: the throughputs of all connections become almost identical, and their loss rates almost equal.",
    tolerance="under Reno/RED at BW = 400 kb/s, among the connections whose input line is above the equal share BW/4 (the 64 kb/s one cannot reach it), the largest absolute throughput at most 1.5× the smallest; and all four connections' drop counts per packet sent within a factor of 1.5. "
    "The text's 'almost identical' and 'almost equal' give no number. 1.5× is halfway between identical (1×) and the 2× that "
    "separates successive input lines (64, 128, 256, 512 kb/s), the ratio fair service would keep their throughputs in: "
    "two values nearer identical than that, the larger at most 50% above the smaller, count as almost identical",
    source=f"{P} §3.2, Figure 3",
)
def red_equal(ctx: Context):
    thr = throughputs(ctx)["Reno/RED"]
    low = min(thr)
    t, drops = thr[low], losses(ctx, "Reno/RED")[low]
    able = [x for x, k in zip(t, ACCESS.values(), strict=True) if k > low / len(ACCESS)]
    per_packet = [d / max(x, 1e-9) for d, x in zip(drops, t, strict=True)]
    spread = max(able) / min(able)
    loss = max(per_packet) / max(min(per_packet), 1e-12)
    return verdict(
        spread <= 1.5 and loss <= 1.5,
        connections_above_equal_share=len(able),
        their_throughput_max_over_min=spread,
        all_four_max_over_min=max(t) / min(t),
        loss_max_over_min=loss,
    )


@CLAIMS.claim(
    "red-better-than-fifo",
    experiment="forward",
    text="RED offers better fairness than FIFO to TCP Reno connections, but cannot keep a good fairness when the shared line becomes small.",
    tolerance="Jain's index of relative throughputs averaged over BW < 960: RED above FIFO; and RED's index at 400 kb/s below 0.9 and below its index at 880",
    source=f"{P} §1 and §3.2",
)
def red_vs_fifo(ctx: Context):
    j = jain(ctx)
    red, fifo = j["Reno/RED"], j["Reno/FIFO"]
    low, high = red[min(red)], below(red, 880)[-1]
    held = mean_below(red) > mean_below(fifo) and low < 0.9 and low < high
    return verdict(
        held,
        RED_mean=mean_below(red),
        FIFO_mean=mean_below(fifo),
        RED_minus_FIFO=mean_below(red) - mean_below(fifo),
        RED_at_400=low,
        RED_at_880=high,
    )


def analysis_deviation(thr: dict[float, list[float]], analysis) -> tuple[int, int, float]:
    """(points within 15%, points, largest deviation): at each BW below 960 kb/s, the largest
    relative deviation of a connection's throughput from the `analysis`'s (packets/s from
    packets/s, as `model.reno_red_throughput`)."""
    bw = [packets(k) for k in ACCESS.values()]
    close, worst = 0, 0.0
    points = [x for x in thr if x < 960]
    for x in points:
        predicted = [model.kbps(r) for r in analysis(bw, packets(x))]
        off = max(abs(t / m - 1) for t, m in zip(thr[x], predicted, strict=True))
        worst = max(worst, off)
        close += off <= 0.15
    return close, len(points), worst


@CLAIMS.claim(
    "red-analysis",
    experiment="forward",
    text="The analysis (Eq. 14) gives good agreements with the simulation and shows RED's unfairness at small output lines: the smaller the input line, the larger the relative throughput.",
    tolerance="under Reno/RED, each connection's throughput within 15% of Eq. 14's (p = 0.02) at most BW < 960, as for Vegas (Eq. 32); and at every BW up to 640 kb/s the relative throughputs fall with the input capacity, as the model's do",
    source=f"{P} §3.2, Figure 10",
)
def red_analysis(ctx: Context):
    thr = throughputs(ctx)["Reno/RED"]
    close, points, worst = analysis_deviation(
        thr, lambda bw, big: model.reno_red_throughput(bw, big, TAU, 0.02)
    )
    rel = relative(ctx)["Reno/RED"]
    upto = [bw for bw in rel if bw <= 640]
    ordered = [bw for bw in upto if all(rel[bw][i] >= rel[bw][i + 1] for i in range(3))]
    held = close > points / 2 and len(ordered) == len(upto)
    return verdict(
        held,
        points_within_15_percent=close,
        points=points,
        largest_deviation=worst,
        points_in_model_order_to_640=len(ordered),
        points_to_640=len(upto),
    )


@CLAIMS.claim(
    "ered-fairer",
    experiment="forward",
    text="Enhanced RED gives further better fairness than the original RED.",
    tolerance="Jain's index of relative throughputs under Reno/ERED above Reno/RED's at most BW < 960 and on average",
    source=f"{P} §3.2, Figure 11",
)
def ered(ctx: Context):
    j = jain(ctx)
    e, r = j["Reno/ERED"], j["Reno/RED"]
    wins = sum(e[bw] > r[bw] for bw in e if bw < 960)
    points = len([bw for bw in e if bw < 960])
    held = wins > points / 2 and mean_below(e) > mean_below(r)
    return verdict(
        held, ERED_mean=mean_below(e), RED_mean=mean_below(r), points_ERED_better=wins, points=points
    )


@CLAIMS.claim(
    "drr-fair",
    experiment="forward",
    text="DRR with a queue per connection gives very good fairness even when the output line is small, slightly degraded when it is large.",
    tolerance="Jain's index under Reno/DRR at least 0.95 at every BW up to 720 kb/s",
    source=f"{P} §3.3, Figure 5(a)",
)
def drr_fair(ctx: Context):
    j = jain(ctx)["Reno/DRR"]
    return verdict(min(below(j, 720)) >= 0.95, lowest_to_720=min(below(j, 720)), at_400=j[min(j)])


@CLAIMS.claim(
    "drr-2q-unfair-within",
    experiment="forward",
    text="With two connections in one DRR queue, the two connections assigned to the same queue show unfair throughput.",
    tolerance="under Reno/DRR 2q, at most BW < 960 a queue's two connections off their 1 : 2 ratio by more than 20% in at least one queue",
    source=f"{P} §3.3, Figure 5(b)",
)
def drr_2q(ctx: Context):
    thr = throughputs(ctx)["Reno/DRR 2q"]
    off = [
        bw
        for bw, t in thr.items()
        if bw < 960 and (abs(t[1] / t[0] / 2 - 1) > 0.2 or abs(t[3] / t[2] / 2 - 1) > 0.2)
    ]
    n = len([bw for bw in thr if bw < 960])
    return verdict(len(off) > n / 2, points_off_ratio=len(off), points=n)


@CLAIMS.claim(
    "drr-plus",
    experiment="forward",
    text="DRR+ keeps good fairness with a queue per connection, and improves it significantly when connections share queues.",
    tolerance="Jain's index under Reno/DRR+ at least 0.95 at every BW up to 720 kb/s; under Reno/DRR+ 2q above Reno/DRR 2q's on average over BW < 960",
    source=f"{P} §3.4, Figure 7",
)
def drr_plus(ctx: Context):
    j = jain(ctx)
    four, two, plain2 = j["Reno/DRR+"], j["Reno/DRR+ 2q"], j["Reno/DRR 2q"]
    held = min(below(four, 720)) >= 0.95 and mean_below(two) > mean_below(plain2)
    return verdict(
        held,
        DRR_plus_lowest_to_720=min(below(four, 720)),
        DRR_plus_2q_mean=mean_below(two),
        DRR_2q_mean=mean_below(plain2),
    )


@CLAIMS.claim(
    "vegas-fifo",
    experiment="forward",
    text="With TCP Vegas under FIFO no segment is lost, the 64 kb/s connection gets almost 100% of its input line, and fairness is worse than with Reno.",
    tolerance="no drop at any BW; the 64 kb/s connection's relative throughput at least 0.95 everywhere; Jain's index averaged over BW < 960 below Reno/FIFO's",
    source=f"{P} §4.1, Figure 12",
)
def vegas_fifo(ctx: Context):
    drops = sum(sum(v) for v in losses(ctx, "Vegas/FIFO").values())
    rel = relative(ctx)["Vegas/FIFO"]
    smallest = min(r[0] for r in rel.values())
    j = jain(ctx)
    held = drops == 0 and smallest >= 0.95 and mean_below(j["Vegas/FIFO"]) < mean_below(j["Reno/FIFO"])
    return verdict(
        held,
        drops=drops,
        c1_lowest_relative=smallest,
        Vegas_mean=mean_below(j["Vegas/FIFO"]),
        Reno_mean=mean_below(j["Reno/FIFO"]),
    )


@CLAIMS.claim(
    "vegas-red",
    experiment="forward",
    text="With Vegas, RED drops segments and improves fairness only slightly over FIFO: significant unfairness remains (the paper's §4.2; its Introduction says RED is less fair than FIFO for Vegas).",
    tolerance="Vegas/RED drops packets; its Jain index averaged over BW < 960 within 0.05 of Vegas/FIFO's and below 0.95 (the measured order of the two is printed: it decides between the paper's two statements)",
    source=f"{P} §1 and §4.2, Figure 13",
)
def vegas_red(ctx: Context):
    drops = sum(sum(v) for v in losses(ctx, "Vegas/RED").values())
    j = jain(ctx)
    red, fifo = mean_below(j["Vegas/RED"]), mean_below(j["Vegas/FIFO"])
    held = drops > 0 and abs(red - fifo) <= 0.05 and red < 0.95
    return verdict(held, drops=drops, RED_mean=red, FIFO_mean=fifo, RED_minus_FIFO=red - fifo)


@CLAIMS.claim(
    "vegas-red-analysis",
    experiment="forward",
    text="The analysis of Vegas under RED (Eq. 32) agrees with the simulation and confirms Vegas's unfairness under RED.",
    tolerance="under Vegas/RED, each connection's throughput within 15% of Eq. 32's (α = 1, β = 3, p = 0.02) at most BW < 960",
    source=f"{P} §4.2, Figure 15",
)
def vegas_red_analysis(ctx: Context):
    thr = throughputs(ctx)["Vegas/RED"]
    close, points, worst = analysis_deviation(
        thr, lambda bw, big: model.vegas_red_throughput(bw, big, TAU, 0.02)
    )
    return verdict(close > points / 2, points_within_15_percent=close, points=points, largest_deviation=worst)


@CLAIMS.claim(
    "vegas-drr",
    experiment="forward",
    text="With Vegas, DRR gives fairly good fairness, better than with Reno, and no segment is lost at the router.",
    tolerance="Jain's index under Vegas/DRR at least 0.95 at every BW and above Reno/DRR's on average; no drop",
    source=f"{P} §4.3, Figure 16",
)
def vegas_drr(ctx: Context):
    j = jain(ctx)
    drops = sum(sum(v) for v in losses(ctx, "Vegas/DRR").values())
    v, r = j["Vegas/DRR"], j["Reno/DRR"]
    held = min(v.values()) >= 0.95 and mean_below(v) > mean_below(r) and drops == 0
    return verdict(
        held,
        Vegas_DRR_lowest=min(v.values()),
        Vegas_DRR_mean=mean_below(v),
        Reno_DRR_mean=mean_below(r),
        drops=drops,
    )


@CLAIMS.claim(
    "drr-better-than-fifo-red",
    experiment="forward",
    text="The DRR algorithm offers better fairness than the FIFO algorithm and the RED algorithm, with TCP Reno and with TCP Vegas.",
    tolerance="Jain's index averaged over BW < 960: DRR (a queue per connection) above FIFO and above RED, under Reno and under Vegas",
    source=f"{P} §6 (and §4.3 for Vegas)",
)
def drr_better(ctx: Context):
    j = {p: mean_below(v) for p, v in jain(ctx).items()}
    margins = {
        f"{tcp} DRR minus {q}": j[f"{tcp}/DRR"] - j[f"{tcp}/{q}"]
        for tcp in ("Reno", "Vegas")
        for q in ("FIFO", "RED")
    }
    return verdict(all(m > 0 for m in margins.values()), **margins)


@CLAIMS.claim(
    "ranking",
    experiment="forward",
    text="For Reno, FIFO < RED < Enhanced RED ≲ DRR ≈ DRR+.",
    tolerance="Jain's index averaged over BW < 960: Reno FIFO < RED < ERED, ERED ≤ DRR + 0.02, |DRR − DRR+| ≤ 0.03",
    source=f"{P} §3 and §6",
)
def ranking(ctx: Context):
    j = {p: mean_below(v) for p, v in jain(ctx).items()}
    reno = j["Reno/FIFO"] < j["Reno/RED"] < j["Reno/ERED"] <= j["Reno/DRR"] + 0.02
    reno &= abs(j["Reno/DRR"] - j["Reno/DRR+"]) <= 0.03
    return verdict(
        reno, **{p.replace("/", " ").replace("+", " plus"): v for p, v in j.items() if p.startswith("Reno")}
    )


@CLAIMS.claim(
    "reverse-same-tendencies",
    experiment="reverse",
    text="With reverse traffic, FIFO and RED fail to keep fairness as in the forward model, Enhanced RED improves it fairly well, and DRR shows the same tendency as before.",
    tolerance="in the reverse model, Jain's index at 400 kb/s below 0.9 under FIFO and RED; averaged over BW < 960, ERED above RED and DRR above FIFO",
    source=f"{P} §5, Figures 18-21",
)
def reverse(ctx: Context):
    j = jain(ctx, "reverse")
    at = {p: v[min(v)] for p, v in j.items()}
    mean = {p: mean_below(v) for p, v in j.items()}
    held = at["Reno/FIFO"] < 0.9 and at["Reno/RED"] < 0.9
    held &= mean["Reno/ERED"] > mean["Reno/RED"] and mean["Reno/DRR"] > mean["Reno/FIFO"]
    return verdict(
        held,
        FIFO_at_400=at["Reno/FIFO"],
        RED_at_400=at["Reno/RED"],
        **{f"{p.split('/')[1]} mean": v for p, v in mean.items()},
    )


TESTED = (
    TestedClaim(
        "reno-window",
        "Under RED with p = 0.02 Reno's window peaks at W̄_max = sqrt(8/(3p)) = 11.55 packets and averages W_a = 8.66.",
        ("tests/test_models_hasegawa01.py::test_the_reno_window_under_red_at_p_0_02",),
        f"{P} §3.2, Eqs. 3-8",
    ),
    TestedClaim(
        "timeout-probability",
        "The probability of a timeout in a window (two or more losses) at W = 9, p = 0.02 is 0.01285 (printed exponent).",
        ("tests/test_models_hasegawa01.py::test_the_timeout_probability_of_eq_12_both_readings",),
        f"{P} §3.2, Eq. 12",
    ),
    TestedClaim(
        "ered-iteration",
        "Enhanced RED's offline iteration raises the drop probabilities of the small connections and lowers the largest's.",
        (
            "tests/test_models_hasegawa01.py::test_enhanced_red_raises_the_small_connections_p_and_evens_the_shares",
        ),
        f"{P} §3.2",
    ),
    TestedClaim(
        "vegas-converged",
        "Vegas's converged windows do not depend on the input line; its throughputs are equal shares capped at the input line.",
        ("tests/test_models_hasegawa01.py::test_vegas_converges_to_equal_shares_capped_at_the_access_rate",),
        f"{P} §4.1, Eqs. 15-23",
    ),
    TestedClaim(
        "drr-plus-reduces",
        "DRR+ with one connection per queue is DRR with RED at each queue.",
        ("qdisc::drr::tests::drr_plus_with_one_flow_per_queue_is_drr_with_red_per_queue",),
        f"{P} §3.4",
    ),
    TestedClaim(
        "drr-weights",
        "A DRR queue shared by connections is served in proportion to the sum of their capacities.",
        ("qdisc::drr::tests::a_queue_shared_by_flows_is_weighted_by_the_sum_of_their_weights",),
        f"{P} §3.3",
    ),
)
