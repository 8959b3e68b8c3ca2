"""DKS89 §2.3 and Figure 1: the queueing delay of a Poisson Telnet beside N backlogged FTPs.

Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm", SIGCOMM 1989,
§2.3. The formula for non-preemptive FQ with the FTPs' finish numbers evenly staggered is the
paper's; its first term, ρ/(2(1 − ρ)), disagrees with the paper's own decomposition
D_N = D_0((N+1)P) + A(P), which for an M/D/1 Telnet queue served at a fair share μ/(N+1) gives
(N+1)ρ/(2(1 − ρ)) (spec note §5.4). We draw both, and the simulation decides.

The paper gives no formula for FCFS. Ours, by Little's law: the N·W FTP packets are always in
the system, an arriving Telnet packet finds them, the Telnet packets already there (λT) and
half a packet left on the line, so d = (NW − ½ + ρ/(N+1)) / (1 − ρ/(N+1)) packet times."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fairsim.reproduce.claims import Claim, Claims, Context, Missing, verdict
from fairsim.reproduce.discussion import Discussion
from fairsim.reproduce.model import Experiment, Sweep

if TYPE_CHECKING:
    from matplotlib.figure import Figure

N = 3  # FTPs
W = 5  # their windows
P_SECONDS = 1000 * 8 / 56_000  # one packet time on the 56 kb/s line
FIG = "fig1"
WINDOWS = "fig1_windows"
PAIRS = {"FCFS": "FCFS", "FQ δ=0": "FQ delta=0", "FQ δ=P": "FQ delta=P"}


def fq_delay(rho: float, n: int = N, delta_over_p: float = 0.0, first_term: str = "printed") -> float:
    """Mean Telnet queueing delay under non-preemptive FQ, in packet times (DKS89 §2.3).

    `first_term="printed"` is the paper's formula as printed; `"mdl"` replaces its first term
    with the M/D/1 wait at the fair share, (N+1)ρ/(2(1 − ρ))."""
    if not 0 < rho < 1:
        return math.inf if rho >= 1 else float(n) / 2
    queue = rho / (2 * (1 - rho)) * ((n + 1) if first_term == "mdl" else 1)
    clip = min(delta_over_p, 0.5 * (1 - 1 / n))
    emulation = n * (1 - rho) * (0.5 - (n + 1) / (n * rho) * (1 - math.exp(-(rho * n / (n + 1)) * clip)))
    return queue + n * rho / 2 + emulation


def fcfs_delay(rho: float, n: int = N, w: int = W) -> float:
    """Our Little's-law estimate of the FCFS Telnet queueing delay, in packet times."""
    share = rho / (n + 1)
    return (n * w - 0.5 + share) / (1 - share)


def mean_gap(rho: float) -> str:
    """The Telnet's mean gap for throughput ρ relative to its fair share: (N+1)P/(ρμ)."""
    return f"{(N + 1) * P_SECONDS / rho:.9f}s"


def delay_packets(m, pair: str) -> float:
    """The Telnet's measured queueing delay in packet times: one-way delay less P/μ."""
    return m.value(pair, "telnet", "delay_one_way") / P_SECONDS - 1


FQ_RHOS = (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
FCFS_RHOS = (1.5, 2.0, 2.5, 3.0, 3.5)

EXPERIMENTS = (
    Experiment(
        FIG,
        "dks89/fig1_telnet_delay.toml",
        "Figure 1: Telnet delay against throughput",
        sweep=Sweep(
            "rho",
            values=FQ_RHOS + FCFS_RHOS,
            quick_values=(0.01, 0.5, 0.9, 2.0, 3.5),
            overrides=lambda rho: {"flows.telnet.mean_gap": mean_gap(rho)},
            pairs=lambda rho: list(PAIRS.values()) if rho < 1 else ["FCFS"],
        ),
        quick={"run.duration": "4000s", "run.warmup": "400s", "run.interval": "360s"},
        discussion=Discussion(
            """
The simulated FQ curves follow the paper's decomposition D_N = D_0((N+1)P) + A(P) with an
M/D/1 Telnet queue served at its fair share, not the formula as printed: the printed first
term ρ/(2(1 − ρ)) lacks the factor N + 1 (§2.3's own decomposition). At ρ → 0 the two agree (1.5 and
0.5 packet times), and both diverge at ρ = 1; in between the printed curve is too low (at
ρ = 0.5 it gives {{printed_half|.1f}} packet times for δ = 0 where the decomposition gives
{{decomposed_half|.1f}} and our runs {{ours_half|.1f}}). The FCFS points follow our Little's-law
estimate (fig1-fcfs-finite). With δ = P the formula assumes evenly staggered FTPs, which our
start times arrange.
""",
            facts={
                "printed_half": lambda ctx: fq_delay(0.5),
                "decomposed_half": lambda ctx: fq_delay(0.5, first_term="mdl"),
                "ours_half": lambda ctx: _need(ctx) or _at(ctx, PAIRS["FQ δ=0"], 0.5),
            },
        ),
    ),
    Experiment(
        WINDOWS,
        "dks89/fig1_telnet_delay.toml",
        "Figure 1 at ρ = 0.05: the FTPs' window",
        sweep=Sweep(
            "window",
            values=(2, 5, 10),
            quick_values=(2, 10),
            overrides=lambda w: {
                "flows.telnet.mean_gap": mean_gap(0.05),
                **{f"flows.ftp{i}.window": int(w) for i in (1, 2, 3)},
            },
        ),
        quick={"run.duration": "4000s", "run.warmup": "400s", "run.interval": "360s"},
        discussion="""
The paper: FQ's low delay for a low-throughput source "is completely independent of the
window sizes of the FTP's", while under FCFS it grows as (NW − ½)P.
""",
    ),
)


def _curve(ctx: Context, pair: str, experiment: str = FIG) -> list[tuple[float, float]]:
    return [(x, delay_packets(m, pair)) for x, m in ctx.sweeps.get(experiment, []) if pair in m.pairs]


def _at(ctx: Context, pair: str, x: float, experiment: str = FIG) -> float:
    for xi, d in _curve(ctx, pair, experiment):
        if abs(xi - x) < 1e-9:
            return d
    return float("nan")


def _need(ctx: Context, experiment: str = FIG) -> None:
    if experiment not in ctx.sweeps:
        raise Missing(experiment)


def _limit_claim(cid: str, pair_label: str, target: float, text: str) -> Claim:
    pair = PAIRS[pair_label]

    def check(ctx: Context):
        _need(ctx)
        d = _at(ctx, pair, 0.01)
        return verdict(abs(d - target) <= 0.15 * max(target, 1), **{f"{pair_label} delay at ρ 0.01": d})

    tol = f"within {0.15 * max(target, 1):.2f} packet times of {target} at ρ = 0.01"
    return Claim(cid, FIG, text, tol, check, "DKS89 §2.3, Figure 1")


def _formula(first_term: str, rel: float):
    def check(ctx: Context):
        _need(ctx)
        worst, at = 0.0, None
        for label, delta in (("FQ δ=0", 0.0), ("FQ δ=P", 1.0)):
            for x, d in _curve(ctx, PAIRS[label]):
                if x <= 0.9:
                    f = fq_delay(x, delta_over_p=delta, first_term=first_term)
                    err = abs(d - f) / f
                    if err > worst:
                        worst, at = err, (label, x, d, f)
        if at is None:
            return verdict(False, points=float("nan"))
        label, x, d, f = at
        return verdict(
            worst <= rel, worst_relative_error=worst, **{f"{label} at ρ {x}": d, "formula there": f}
        )

    return check


CLAIMS = Claims()


CLAIMS.append(
    _limit_claim(
        "fig1-fq0-limit", "FQ δ=0", 1.5, "As ρ → 0, FQ with δ = 0 delays the Telnet NP/2 = 1.5 packet times."
    )
)

CLAIMS.append(
    _limit_claim(
        "fig1-fqP-limit", "FQ δ=P", 0.5, "As ρ → 0, FQ with δ = P delays the Telnet P/2 = 0.5 packet times."
    )
)

CLAIMS.append(
    _limit_claim(
        "fig1-fcfs-limit", "FCFS", 14.5, "As ρ → 0, FCFS delays the Telnet (NW − ½)P = 14.5 packet times."
    )
)


@CLAIMS.claim(
    "fig1-diverge",
    experiment=FIG,
    text="FQ's Telnet delay diverges as ρ → 1 (FQ does not let a conversation exceed its fair share); FCFS's does not.",
    tolerance="at ρ = 0.9 both FQ delays exceed 5× their ρ = 0.01 values (at least 5 packet times), and FCFS's stays within 1.5× its ρ = 0.01 value",
    source="DKS89 §2.3, Figure 1",
)
def _diverges(ctx: Context):
    _need(ctx)
    low = {p: _at(ctx, PAIRS[p], 0.01) for p in ("FQ δ=0", "FQ δ=P")}
    high = {p: _at(ctx, PAIRS[p], 0.9) for p in low}
    fcfs_low, fcfs_high = _at(ctx, "FCFS", 0.01), _at(ctx, "FCFS", 0.9)
    held = all(high[p] > 5 * max(low[p], 1) for p in low) and fcfs_high < 1.5 * fcfs_low
    named = {f"{p} at ρ 0.01": low[p] for p in low} | {f"{p} at ρ 0.9": high[p] for p in high}
    return verdict(held, **named, **{"FCFS at ρ 0.01": fcfs_low, "FCFS at ρ 0.9": fcfs_high})


@CLAIMS.claim(
    "fig1-fcfs-finite",
    experiment=FIG,
    text="The FCFS curve remains finite for all ρ < N + 1 = 4: an ill-behaved source can take an arbitrarily large share.",
    tolerance="at the largest ρ run (3.5) the FCFS delay is finite and within 25% of the Little's-law estimate",
    source="DKS89 §2.3, Figure 1",
)
def _fcfs_finite(ctx: Context):
    _need(ctx)
    top = max((x for x, _ in _curve(ctx, "FCFS")), default=float("nan"))
    d = _at(ctx, "FCFS", top)
    estimate = fcfs_delay(top)
    return verdict(
        abs(d - estimate) <= 0.25 * estimate, **{f"FCFS at ρ {top}": d, "Little estimate": estimate}
    )


CLAIMS.add(
    "fig1-printed-formula",
    experiment=FIG,
    text="The printed non-preemptive formula D_N/P = ρ/(2(1−ρ)) + Nρ/2 + N(1−ρ)[½ − …] gives the FQ Telnet delay (l = α/N).",
    tolerance="every simulated FQ point with ρ ≤ 0.9 within 10% of the formula",
    source="DKS89 §2.3 (as printed)",
    check=_formula("printed", 0.10),
)

CLAIMS.add(
    "fig1-mdl-formula",
    experiment=FIG,
    text="With the first term (N+1)ρ/(2(1−ρ)) — the paper's own D_0((N+1)P) for an M/D/1 Telnet — the formula gives the FQ Telnet delay.",
    tolerance="every simulated FQ point with ρ ≤ 0.9 within 10% of the corrected formula",
    source="DKS89 §2.3 (our check of the formula as printed)",
    check=_formula("mdl", 0.10),
)


@CLAIMS.claim(
    "fig1-windows",
    experiment=WINDOWS,
    text="FQ's low-throughput Telnet delay is independent of the FTPs' windows; FCFS's grows as (NW − ½)P.",
    tolerance="at ρ = 0.05, FQ δ=0 delays for W = 2, 5, 10 within 0.3 packet times of each other; FCFS within 10% (+0.5) of NW − ½",
    source="DKS89 §2.3, Figure 1",
)
def _windows(ctx: Context):
    _need(ctx, WINDOWS)
    fq = {w: _at(ctx, PAIRS["FQ δ=0"], w, WINDOWS) for w, _ in ctx.sweeps[WINDOWS]}
    fcfs = {w: _at(ctx, "FCFS", w, WINDOWS) for w, _ in ctx.sweeps[WINDOWS]}
    fq_flat = max(fq.values()) - min(fq.values()) <= 0.3
    fcfs_grows = all(abs(d - (N * w - 0.5)) <= 0.1 * (N * w - 0.5) + 0.5 for w, d in fcfs.items())
    named = {f"FQ δ=0, W={w:g}": d for w, d in fq.items()}
    named.update({f"FCFS, W={w:g}": d for w, d in fcfs.items()})
    return verdict(fq_flat and fcfs_grows, **named)


def draw(ctx: Context) -> Figure:
    # plotting is imported here, not with the experiments and claims (`reproduce --list`)
    import numpy as np
    from matplotlib.figure import Figure

    from fairsim.plots import log_axis
    from fairsim.reproduce.figures import OURS_COLOR

    fig = Figure(figsize=(7, 4.5))
    ax = fig.subplots()
    rho = np.linspace(0.005, 0.97, 200)
    for label, delta, color in (("FQ δ=0", 0.0, "#d62728"), ("FQ δ=P", 1.0, "#2ca02c")):
        ax.plot(
            rho,
            [fq_delay(r, delta_over_p=delta) for r in rho],
            color=color,
            label=f"{label}, formula as printed",
        )
        ax.plot(
            rho,
            [fq_delay(r, delta_over_p=delta, first_term="mdl") for r in rho],
            color=color,
            linestyle="--",
            label=f"{label}, first term (N+1)ρ/(2(1−ρ))",
        )
        pts = _curve(ctx, PAIRS[label])
        ax.plot([x for x, _ in pts], [d for _, d in pts], "o", color=color, markersize=5)
    rho_fcfs = np.linspace(0.005, 3.6, 200)
    ax.plot(
        rho_fcfs,
        [fcfs_delay(r) for r in rho_fcfs],
        color=OURS_COLOR,
        linestyle=":",
        label="FCFS, Little's law (ours)",
    )
    pts = _curve(ctx, "FCFS")
    ax.plot(
        [x for x, _ in pts],
        [d for _, d in pts],
        "s",
        color=OURS_COLOR,
        markersize=5,
        label="simulated (markers)",
    )
    ax.set_xlabel("ρ: Telnet throughput relative to its fair share")
    ax.set_ylabel("Telnet queueing delay (packet times P/μ)")
    log_axis(ax)  # FCFS at ρ = 3.5 waits about 120 packet times, FQ at ρ → 0 about one
    ax.set_ylim(0.3, 300)
    ax.set_xlim(0, 3.7)
    ax.legend(fontsize="x-small")
    ax.set_title("N = 3 FTPs (W = 5), P_T = P_F, non-preemptive FQ", fontsize="medium")
    return fig
