"""Hasegawa, Matsuo, Murata & Miyahara 2001: the relative-throughput panels of Figures 2-16
redrawn from our sweep, with the paper's "Optimal" line, and the analysis beside the simulation
where the paper draws it (Figures 10 and 15). The paper's curves are lost; its statements about
them are the claims."""

from __future__ import annotations

from matplotlib.figure import Figure as MplFigure

from fairsim.models import hasegawa01 as model
from fairsim.plots import log_axis
from fairsim.reproduce.claims import Context, Missing
from fairsim.reproduce.model import Figure
from fairsim.reproduce.reproductions.hasegawa01.experiments import DRR_QUEUES
from fairsim.reproduce.reproductions.hasegawa01.network import ACCESS, CAPACITIES, FLOWS, TAU, ered_p, packets
from fairsim.reproduce.reproductions.hasegawa01.reading import (
    mean_window,
    measured,
    relative,
    sweep,
    throughputs,
    timeouts,
)

COLORS = {"c1": "#1f77b4", "c2": "#ff7f0e", "c3": "#2ca02c", "c4": "#d62728"}
LABELS = {f: f"{f}: {k} kb/s" for f, k in ACCESS.items()}


def _panel(title: str, ylabel: str) -> tuple[MplFigure, object]:
    fig = MplFigure(figsize=(7, 4.4), layout="constrained")
    ax = fig.subplots()
    ax.set_xlabel("output line BW (kb/s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    return fig, ax


def _line(ax, flow: str, xs, ys) -> None:
    """One connection's points, in its colour, named by its input line."""
    ax.plot(xs, ys, "o-", markersize=3, color=COLORS[flow], label=LABELS[flow])


def _relative(pair: str, title: str, exp: str = "forward"):
    def draw(ctx: Context):
        rel = relative(ctx, exp, (pair,))[pair]
        fig, ax = _panel(title, "throughput / input line")
        xs = sorted(rel)
        for i, f in enumerate(FLOWS):
            _line(ax, f, xs, [rel[x][i] for x in xs])
        total = sum(ACCESS.values())
        ax.plot(xs, [x / total for x in xs], "k:", linewidth=1, label="Optimal (BW / 960)")
        ax.set_ylim(0, 1.05)
        fig.legend(fontsize="small", ncol=5, loc="outside lower center")
        return fig

    return draw


def _with_analysis(pair: str, title: str, analysis):
    def draw(ctx: Context):
        thr = throughputs(ctx, "forward", (pair,))[pair]
        fig, ax = _panel(title, "throughput (kb/s)")
        xs = sorted(thr)
        grid = [x for x in CAPACITIES if min(xs) <= x <= max(xs)]
        bw = [packets(k) for k in ACCESS.values()]
        model_kbps = [[model.kbps(r) for r in analysis(bw, packets(x))] for x in grid]
        for i, f in enumerate(FLOWS):
            ax.plot(
                xs,
                [thr[x][i] for x in xs],
                "o",
                markersize=4,
                color=COLORS[f],
                label=f"{LABELS[f]}, simulation",
            )
            ax.plot(grid, [m[i] for m in model_kbps], "--", color=COLORS[f], linewidth=1)
        ax.plot([], [], "k--", linewidth=1, label="analysis")
        fig.legend(fontsize="small", ncol=3, loc="outside lower center")
        return fig

    return draw


def draw_windows(ctx: Context):
    fig, ax = _panel("Figure 12(c): FIFO with TCP Vegas, the converged windows", "mean window (packets)")
    points = sorted(sweep(ctx, "windows"), key=lambda p: p[0])
    xs = [x for x, _ in points]
    bw = [packets(k) for k in ACCESS.values()]
    for i, f in enumerate(FLOWS):
        ours = []
        for _, m in points:
            ours.append(mean_window(m, f, *measured(m)))
        _line(ax, f, xs, ours)
        analysis = [model.vegas_converged(bw, packets(x), TAU).window[i] for x in xs]
        ax.plot(xs, analysis, "--", color=COLORS[f], linewidth=1)
    ax.plot([], [], "k--", linewidth=1, label="analysis (Eq. 19)")
    fig.legend(fontsize="small", ncol=5, loc="outside lower center")
    return fig


def draw_ered_p(ctx: Context):
    fig, ax = _panel(
        "Enhanced RED: the p_i of the offline iteration (a = 1.1, b = 0.9)", "drop probability p_i"
    )
    ps = [ered_p(x) for x in CAPACITIES]
    for f in FLOWS:
        _line(ax, f, CAPACITIES, [p[f] for p in ps])
    ax.axhline(0.02, color="black", linestyle=":", linewidth=0.8, label="RED's p = 0.02")
    log_axis(ax)
    fig.legend(fontsize="small", ncol=5, loc="outside lower center")
    return fig


def _reno_red(bw, big):
    return model.reno_red_throughput(bw, big, TAU, 0.02)


def _vegas_red(bw, big):
    return model.vegas_red_throughput(bw, big, TAU, 0.02)


#: (figure, pair, title, what the paper says of its curves: they are lost, its words are not)
PANELS = (
    ("fig2b", "Reno/FIFO", "Figure 2(b): FIFO with TCP Reno", "fairness cannot be kept at all"),
    ("fig3b", "Reno/RED", "Figure 3(b): RED with TCP Reno", "a fairness improvement is very limited"),
    (
        "fig5a",
        "Reno/DRR",
        "Figure 5(a): DRR, a queue per connection, TCP Reno",
        "very good fairness among connections even when the output link capacity is small; slightly degraded when it is large",
    ),
    (
        "fig5b",
        "Reno/DRR 2q",
        "Figure 5(b): DRR, two queues {64, 128} and {256, 512}, TCP Reno",
        "the two connections assigned to the same queue show unfair throughput",
    ),
    (
        "fig7a",
        "Reno/DRR+",
        "Figure 7(a): DRR+, a queue per connection, TCP Reno",
        "keeps good fairness in the sufficient buffer case",
    ),
    (
        "fig7b",
        "Reno/DRR+ 2q",
        "Figure 7(b): DRR+, two queues with Enhanced RED inside, TCP Reno",
        "the fairness is significantly improved even in the insufficient buffer case",
    ),
    (
        "fig11",
        "Reno/ERED",
        "Figure 11: Enhanced RED with TCP Reno",
        "further better fairness than the original RED algorithm",
    ),
    (
        "fig12b",
        "Vegas/FIFO",
        "Figure 12(b): FIFO with TCP Vegas",
        "the connection with smaller input link bandwidth achieves almost 100% throughput",
    ),
    (
        "fig13b",
        "Vegas/RED",
        "Figure 13(b): RED with TCP Vegas",
        "slightly improved when compared with the FIFO case; still significant unfairness",
    ),
    (
        "fig16",
        "Vegas/DRR",
        "Figure 16: DRR, a queue per connection, TCP Vegas",
        "fairly good, and better than the TCP Reno case",
    ),
)

REVERSE_PANELS = (
    (
        "fig18b",
        "Reno/FIFO",
        "Figure 18(b): FIFO with reverse traffic",
        "very similar to the previous case shown in Figure 2",
    ),
    (
        "fig19b",
        "Reno/RED",
        "Figure 19(b): RED with reverse traffic",
        "the RED algorithm can not provide fairness",
    ),
    (
        "fig20b",
        "Reno/ERED",
        "Figure 20(b): Enhanced RED with reverse traffic",
        "the fairness improvement is fairly good",
    ),
    (
        "fig21",
        "Reno/DRR",
        "Figure 21: DRR with reverse traffic",
        "the similar tendency with the previous case (Figure 5)",
    ),
)


def caption(said: str) -> str:
    return (
        "Relative throughput (throughput / input line) of each connection; dotted: the paper's Optimal "
        f'line. The paper: "{said}".'
    )


def _absolute(pair: str, title: str, exp: str):
    def draw(ctx: Context):
        thr = throughputs(ctx, exp, (pair,))[pair]
        fig, ax = _panel(title, "throughput (kb/s)")
        xs = sorted(thr)
        for i, f in enumerate(FLOWS):
            _line(ax, f, xs, [thr[x][i] for x in xs])
        fig.legend(fontsize="small", ncol=4, loc="outside lower center")
        return fig

    return draw


def _timeouts(pairs: tuple[str, ...], title: str, exp: str):
    """Each connection's retransmission timeouts under each of `pairs` (one panel a pair)."""

    def draw(ctx: Context):
        fig = MplFigure(figsize=(7, 2.2 + 2.2 * len(pairs)), layout="constrained")
        axes = fig.subplots(len(pairs), 1, sharex=True, squeeze=False)[:, 0]
        for ax, pair in zip(axes, pairs, strict=True):
            got, fast = timeouts(ctx, pair, exp), timeouts(ctx, pair, exp, "fast_retransmits")
            xs = sorted(got)
            for i, f in enumerate(FLOWS):
                ax.plot(xs, [got[x][i] for x in xs], "o-", markersize=3, color=COLORS[f], label=LABELS[f])
                ax.plot(xs, [fast[x][i] for x in xs], "--", linewidth=1, color=COLORS[f])
            ax.set_ylabel("count, measured interval")
            ax.set_title(f"{pair}", fontsize="small")
        axes[-1].set_xlabel("output line BW (kb/s)")
        fig.suptitle(title, fontsize="medium")
        axes[0].plot([], [], "k-", marker="o", markersize=3, label="timeouts")
        axes[0].plot([], [], "k--", linewidth=1, label="fast retransmits")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, fontsize="small", ncol=3, loc="outside lower center")
        return fig

    return draw


def _loss(pair: str, title: str, exp: str):
    def draw(ctx: Context):
        fig, ax = _panel(title, "packets lost / packets delivered")
        points = sorted(sweep(ctx, exp, joined=False), key=lambda p: p[0])
        xs = [x for x, _ in points]
        for f in FLOWS:
            ratio = [m.value(pair, f, "drops") / max(m.value(pair, f, "packets"), 1.0) for _, m in points]
            _line(ax, f, xs, ratio)
        fig.legend(fontsize="small", ncol=4, loc="outside lower center")
        return fig

    return draw


#: (figure, pair, experiment, title): the throughput (a) and loss (c) panels the paper draws
ABSOLUTE = (
    ("fig2a", "Reno/FIFO", "forward", "Figure 2(a): FIFO with TCP Reno, throughput"),
    ("fig3a", "Reno/RED", "forward", "Figure 3(a): RED with TCP Reno, throughput"),
    ("fig12a", "Vegas/FIFO", "forward", "Figure 12(a): FIFO with TCP Vegas, throughput"),
    ("fig13a", "Vegas/RED", "forward", "Figure 13(a): RED with TCP Vegas, throughput"),
    ("fig18a", "Reno/FIFO", "reverse", "Figure 18(a): FIFO with reverse traffic, throughput"),
    ("fig19a", "Reno/RED", "reverse", "Figure 19(a): RED with reverse traffic, throughput"),
    ("fig20a", "Reno/ERED", "reverse", "Figure 20(a): Enhanced RED with reverse traffic, throughput"),
)
LOSS = (
    ("fig2c", "Reno/FIFO", "forward", "Figure 2(c): FIFO with TCP Reno, losses"),
    ("fig3c", "Reno/RED", "forward", "Figure 3(c): RED with TCP Reno, losses"),
    ("fig13c", "Vegas/RED", "forward", "Figure 13(c): RED with TCP Vegas, losses"),
    ("fig18c", "Reno/FIFO", "reverse", "Figure 18(c): FIFO with reverse traffic, losses"),
    ("fig19c", "Reno/RED", "reverse", "Figure 19(c): RED with reverse traffic, losses"),
)


def _part(pair: str, model: str = "forward") -> str:
    """The experiment that runs `pair` of a model: the DRR pairs have their own scenarios."""
    return f"{model}-drr" if pair in DRR_QUEUES else model


def draw_drr_buffers(ctx: Context):
    """Jain's index of the relative throughputs of each DRR pair, under each buffer arrangement."""
    fig, ax = _panel(
        "DRR's buffer: each queue its own 60 KB, 60 KB divided, one shared 60 KB", "Jain's index"
    )
    styles = {
        "forward-drr": ("-", "each: 60 KB per queue"),
        "drr-divided": ("--", "divided"),
        "drr-shared": (":", "shared"),
    }
    colors = {"Reno/DRR": "#1f77b4", "Reno/DRR 2q": "#ff7f0e", "Reno/DRR+": "#2ca02c", "Vegas/DRR": "#9467bd"}
    access = list(ACCESS.values())
    for exp, (style, name) in styles.items():
        try:
            thr = throughputs(ctx, exp, tuple(colors))
        except Missing:  # an arrangement not run (`-e`)
            continue
        for pair, color in colors.items():
            xs = sorted(thr[pair])
            ys = [model.weighted_jain(thr[pair][x], access) for x in xs]
            ax.plot(xs, ys, style, marker="o", markersize=3, color=color, label=f"{pair}, {name}")
    ax.set_ylim(None, 1.005)
    fig.legend(fontsize="x-small", ncol=3, loc="outside lower center")
    return fig


FIGURES = (
    *(
        Figure(fid, title, caption(said), _part(pair), _relative(pair, title, _part(pair)))
        for fid, pair, title, said in PANELS
    ),
    *(
        Figure(
            fid, title, caption(said), _part(pair, "reverse"), _relative(pair, title, _part(pair, "reverse"))
        )
        for fid, pair, title, said in REVERSE_PANELS
    ),
    Figure(
        "drr-buffers",
        "DRR's buffer: the three arrangements",
        "Jain's index of the relative throughputs (1: every connection at the same fraction of its input line) of the DRR pairs, with each queue its own 60 KB in a 240 KB port (solid, the reading run for the figures above), the router's 60 KB divided among the queues (dashed) and every queue in one shared 60 KB pool (dotted). Reno/DRR+ 2q is left out: its Enhanced RED probabilities, not the buffer, set its fairness.",
        "drr-shared",
        draw_drr_buffers,
    ),
    *(
        Figure(fid, title, "Mean throughput of each connection (kb/s).", exp, _absolute(pair, title, exp))
        for fid, pair, exp, title in ABSOLUTE
    ),
    *(
        Figure(
            fid,
            title,
            "Packets dropped at the router per packet delivered, each connection.",
            exp,
            _loss(pair, title, exp),
        )
        for fid, pair, exp, title in LOSS
    ),
    Figure(
        "fig10",
        "Figure 10: RED with TCP Reno, analysis (Eq. 14) and simulation",
        "Points: our simulation; dashed: the paper's analysis as read in fairsim.models.hasegawa01 (p = 0.02).",
        "forward",
        _with_analysis("Reno/RED", "Figure 10: RED with TCP Reno, analysis and simulation", _reno_red),
    ),
    Figure(
        "fig15",
        "Figure 15: RED with TCP Vegas, analysis (Eq. 32) and simulation",
        "Points: our simulation; dashed: the analysis with α = 1, β = 3, p = 0.02.",
        "forward",
        _with_analysis("Vegas/RED", "Figure 15: RED with TCP Vegas, analysis and simulation", _vegas_red),
    ),
    Figure(
        "fig12c",
        "Figure 12(c): FIFO with TCP Vegas, the converged windows",
        "Each connection's window averaged over the measured interval (one replication); dashed: the analysis. The paper: \"the converged window size is independent on each connection's input link bandwidth\".",
        "windows",
        draw_windows,
    ),
    Figure(
        "timeouts",
        "Retransmission timeouts of each connection, forward model",
        "Each connection's retransmission timeouts (solid) and fast retransmits (dashed) in the measured interval (4900 s; 1000 s with `--quick`), the mean over the replications, under Reno with RED and with Enhanced RED. A connection whose window is a few packets cannot get three duplicate ACKs, so its losses end in timeouts, each at least the 1 s minimum RTO of idle time and doubled while they repeat (up to 64 s): the analysis counts a timeout only when two packets of one window are lost (Eq. 12) and as one RTO of idle time, and cannot see this starvation.",
        "forward",
        _timeouts(("Reno/RED", "Reno/ERED"), "Retransmission timeouts in the measured interval", "forward"),
    ),
    Figure(
        "ered-p",
        "The Enhanced RED probabilities used",
        "The p_i the offline iteration gives at each BW (the connection adjusted at each step is the one furthest from its ideal in packets/s, the text's difference; p_i bounded to [0.0001, 0.5]); the runs use exactly these, as a constant drop probability between the thresholds.",
        "forward",
        draw_ered_p,
    ),
)
