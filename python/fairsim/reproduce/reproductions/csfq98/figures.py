"""Stoica, Shenker & Zhang, "Core-Stateless Fair Queueing: Achieving Approximately Fair
Bandwidth Allocations in High Speed Networks", ACM SIGCOMM 1998: the experiments of §3 under
FIFO, RED, FRED, DRR and CSFQ (Figures 3, 4, 6 and 7; Tables 1-4).

Claims follow the spec's checklist (`specs/csfq98.md` §10). Most of the paper's numbers are in
plots that the seed lost; where only the text survives, the claims carry the comparison and our
curves are drawn alone."""

from __future__ import annotations

from matplotlib.figure import Figure as MplFigure

from fairsim.plots import log_axis
from fairsim.reproduce.claims import Context
from fairsim.reproduce.model import Figure
from fairsim.reproduce.reproductions.csfq98.reading import FAIR3, PAIRS, _fig4, _fig6, mbps

COLORS = {
    "FIFO": "#7f7f7f",
    "RED": "#ff7f0e",
    "FRED-1": "#9467bd",
    "FRED-2": "#8c564b",
    "DRR": "#2ca02c",
    "CSFQ": "#d62728",
}


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
    log_axis(fig.axes[0])
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
                g["goodput_bps"] / 1e6,
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
