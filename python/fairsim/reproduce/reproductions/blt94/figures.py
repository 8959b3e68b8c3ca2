"""Kim & Farber 1994: the figures of §4.2-4.3 redrawn from our load sweeps. The paper's images
are lost (only captions and prose remain). The paper's legends read "B30" and "T30" (BLT and TCP
at a 30 Mb/s bottleneck); ours spell them out ("BLT 30 Mb/s"), λ on a log axis with plain numbers."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure as MplFigure

from fairsim.plots import log_axis
from fairsim.reproduce.claims import Context
from fairsim.reproduce.model import Figure
from fairsim.reproduce.reproductions.blt94.experiments import CONFIG, CONFIGS, Config, best, curve, mbps
from fairsim.reproduce.reproductions.blt94.table1 import TABLE1, log_pm

STYLE = {"BLT": ("-", "o"), "TCP": ("--", "s"), "BT": (":", "^")}
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c")


def _axes(title: str, ylabel: str, logy: bool = True):
    fig = MplFigure(figsize=(7, 4.4), layout="constrained")
    ax = fig.subplots()
    log_axis(ax, "xy" if logy else "x")
    ax.set_xlabel("λ (connections/s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    return fig, ax


def _curves(ctx: Context, c: Config, value, schemes=("BLT", "TCP"), only: float | None = None):
    """(label, style, colour, xs, ys) of each scheme at each bottleneck of `c`."""
    for i, bw in enumerate(c.bottlenecks):
        if only is not None and bw != only:
            continue
        e = c.experiment_id(bw)
        for s in schemes:
            if s == "BT" and e not in ("ref-30",):
                continue
            pts = curve(ctx, e, s)
            yield (
                f"{s} {mbps(bw)} Mb/s",
                STYLE[s],
                COLORS[i],
                [p.arrival_rate for p in pts],
                [value(p) for p in pts],
            )


def _plot(ax, rows) -> None:
    for label, (line, marker), color, xs, ys in rows:
        ax.plot(xs, ys, line, marker=marker, markersize=3, color=color, label=label)


def power_figure(c: Config, title: str):
    def draw(ctx: Context):
        fig, ax = _axes(title, "network power Θ/R (B/s²)")
        _plot(ax, _curves(ctx, c, lambda p: p.power))
        fig.legend(fontsize="small", ncol=6, loc="outside lower center")
        return fig

    return draw


def fairness_figure(c: Config, title: str, schemes=("BLT", "TCP"), only=None):
    def draw(ctx: Context):
        fig, ax = _axes(title, "Jain's index over transfers", logy=False)
        _plot(ax, _curves(ctx, c, lambda p: p.jain, schemes, only))
        ax.set_ylim(0, 1.02)
        fig.legend(fontsize="small", ncol=6, loc="outside lower center")
        return fig

    return draw


def draw_response(ctx: Context):
    fig, ax = _axes("Figure 6: file transfer time, reference network, BW_b = 30 Mb/s", "R (s)")
    for s in ("BLT", "TCP", "BT"):
        pts = curve(ctx, "ref-30", s)
        line, marker = STYLE[s]
        xs, ys = [p.arrival_rate for p in pts], [p.response_s for p in pts]
        err = [p.response_ci90 for p in pts]
        ax.errorbar(xs, ys, yerr=err, fmt=line, marker=marker, markersize=3, capsize=2, label=f"{s} 30 Mb/s")
    fig.legend(fontsize="small", ncol=3, loc="outside lower center")
    return fig


def draw_utilisation(ctx: Context):
    fig, ax = _axes(
        "Figure 7: bottleneck utilisation, reference network, BW_b = 30 Mb/s", "utilisation", logy=False
    )
    _plot(ax, _curves(ctx, CONFIG["ref"], lambda p: p.utilisation, ("BLT", "TCP", "BT"), 30e6))
    ax.set_ylim(0, 1.02)
    fig.legend(fontsize="small", ncol=3, loc="outside lower center")
    return fig


def draw_throughput(ctx: Context):
    fig, ax = _axes("Figure 9: system throughput, reference network", "Θ (Mb/s)")
    _plot(ax, _curves(ctx, CONFIG["ref"], lambda p: p.throughput_Bps * 8 / 1e6))
    fig.legend(fontsize="small", ncol=6, loc="outside lower center")
    return fig


def draw_queue(ctx: Context):
    m = ctx("queue")
    fig = MplFigure(figsize=(7, 5), layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    for ax, pair in zip(axes, ("TCP", "BLT"), strict=True):
        t = m.results[pair].traces
        q = t[t["series"] == "queue"]
        ax.step(q["t_s"], q["value"], where="post", linewidth=0.6)
        ax.set_ylabel(f"{pair}: packets")
    axes[-1].set_xlabel("time (s)")
    axes[0].set_title("Figure 8: the bottleneck's queue, TCP (top) and BLT (bottom)", fontsize="medium")
    return fig


def draw_bully(ctx: Context):
    fig, ax = _axes(
        "Figure 28: power of TCP, Bully-Tyrant and BLT, BW_b = 30 Mb/s", "network power Θ/R (B/s²)"
    )
    _plot(ax, _curves(ctx, CONFIG["ref"], lambda p: p.power, ("BLT", "TCP", "BT"), 30e6))
    fig.legend(fontsize="small", ncol=3, loc="outside lower center")
    return fig


def draw_table1(ctx: Context):
    """Figure 30 with Table 1 beside it: log10 P_m per configuration, ours and the paper's."""
    fig = MplFigure(figsize=(8, 4.6), layout="constrained")
    ax = fig.subplots()
    labels, width = [], 0.38
    configs = ("ref", "gbit", "d3ms", "d1.8ms", "slow")
    for k, config in enumerate(configs):
        for i, bw in enumerate(CONFIG[config].bottlenecks):
            x = 3 * k + i
            labels.append((x, f"{config}\n{mbps(bw)}"))
            for j, s in enumerate(("BLT", "TCP")):
                ours = log_pm(ctx, config, s)[i]
                ax.bar(
                    x + (j - 0.5) * width,
                    ours,
                    width,
                    color=("#1f77b4", "#ff7f0e")[j],
                    label=s if x == 0 else None,
                )
                paper = TABLE1.get((s, config))
                if paper:
                    ax.plot(
                        x + (j - 0.5) * width,
                        paper[i],
                        "k_",
                        markersize=12,
                        label="Table 1" if x == 0 and j == 0 else None,
                    )
    ax.set_xticks([x for x, _ in labels], [label for _, label in labels], fontsize="x-small")
    ax.set_ylabel("log10 P_m (B/s²)")
    ax.set_ylim(4, 10.5)
    ax.set_title(
        "Figure 30 / Table 1: maximum power, F = 100 KB (black: the paper's Table 1)", fontsize="medium"
    )
    fig.legend(fontsize="small", ncol=3, loc="outside lower center")
    return fig


def draw_operating(ctx: Context):
    """Figure 31's data: the 1 Gb/s maximum powers on a linear scale."""
    fig = MplFigure(figsize=(7, 4.4), layout="constrained")
    ax = fig.subplots()
    c = CONFIG["gbit"]
    xs = np.arange(3)
    for j, s in enumerate(("BLT", "TCP")):
        ys = [best(curve(ctx, c.experiment_id(bw), s)).power for bw in c.bottlenecks]
        ax.bar(xs + (j - 0.5) * 0.38, ys, 0.38, label=s)
    ax.set_xticks(xs, [f"{mbps(bw)} Mb/s" for bw in c.bottlenecks])
    ax.set_ylabel("P_m (B/s²)")
    ax.set_title("Figure 31: maximum powers, F = 100 KB, BW_N = 1 Gb/s (linear scale)", fontsize="medium")
    fig.legend(fontsize="small", ncol=2, loc="outside lower center")
    return fig


#: (configuration, the paper's power figure, its fairness figure)
NUMBERS = {
    "ref": ("Figure 10", "Figure 11"),
    "gbit": ("Figure 12", "Figure 13"),
    "d3ms": ("Figure 15", "Figure 16"),
    "d1.8ms": ("Figure 17", "Figure 18"),
    "slow": ("Figure 19", "Figure 20"),
    "ref-1MB": ("Figure 21", "Figure 22"),
    "gbit-1MB": ("Figure 23", "Figure 24"),
    "ref-10KB": ("Figure 25", "Figure 27"),
}

FIGURES = (
    Figure(
        "fig6",
        "Figure 6: response time",
        "R against λ with 90% confidence intervals over the three runs.",
        "ref-30",
        draw_response,
    ),
    Figure(
        "fig7",
        "Figure 7: bottleneck utilisation",
        "The bottleneck's busy fraction over the measurement interval.",
        "ref-30",
        draw_utilisation,
    ),
    Figure(
        "fig8",
        "Figure 8: queue length over time",
        "One run at half load (λ = 18.75/s), 200 arrivals.",
        "queue",
        draw_queue,
    ),
    Figure(
        "fig9",
        "Figure 9: system throughput",
        "Θ = Σ|c_k|/T of the measured transfers.",
        "ref-30",
        draw_throughput,
    ),
    *(
        Figure(
            f"{kind}-{c.id}",
            f"{NUMBERS[c.id][i]}: {what}, {c.id}",
            f"{c.title}: {caption}",
            c.experiment_id(c.bottlenecks[0]),
            draw(c, f"{NUMBERS[c.id][i]}: {what}, {c.short}"),
        )
        for i, (kind, what, caption, draw) in enumerate(
            (
                (
                    "power",
                    "network power",
                    "P = Θ/R against λ, each point the mean of three runs.",
                    power_figure,
                ),
                (
                    "fairness",
                    "fairness",
                    "Jain's index over the transfers' own throughputs F/R_k.",
                    fairness_figure,
                ),
            )
        )
        for c in CONFIGS
    ),
    Figure(
        "fig28",
        "Figure 28: Bully-Tyrant's power",
        "TCP, Bully-Tyrant and BLT at BW_b = 30 Mb/s.",
        "ref-30",
        draw_bully,
    ),
    Figure(
        "fig29",
        "Figure 29: Bully-Tyrant's fairness",
        "Jain's index of TCP, Bully-Tyrant and BLT at BW_b = 30 Mb/s.",
        "ref-30",
        fairness_figure(
            CONFIG["ref"],
            "Figure 29: fairness of TCP, Bully-Tyrant and BLT, BW_b = 30 Mb/s",
            ("BLT", "TCP", "BT"),
            30e6,
        ),
    ),
    Figure(
        "fig30",
        "Figure 30 and Table 1: maximum powers",
        "log10 P_m of every 100 KB configuration; the paper's Table 1 in black.",
        "ref-30",
        draw_table1,
    ),
    Figure(
        "fig31", "Figure 31: maximum powers at 1 Gb/s", "P_m on a linear scale.", "gbit-1000", draw_operating
    ),
)
