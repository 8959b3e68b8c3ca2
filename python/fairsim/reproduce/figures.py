"""The figures of a reproduction, drawn with matplotlib's object API (no global pyplot state).

- `utility_diagram`: the thesis's utility diagrams (§6.3): each source's throughput against
  its round-trip delay, FCFS in upright numbers and FQ in italics, with a box as wide and as tall
  as the 95% confidence intervals;
- `traces`: a recorded series (window, rate, probe, ...) over time, a panel per pair;
- `cells`: every cell of a published table, the paper's value beside ours;
- `to_svg`: a figure as SVG text, for the report.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from fairsim.reproduce.compare import Comparison
from fairsim.reproduce.measure import Measurements

PAPER_STYLE = {"marker": "x", "color": "black", "linestyle": "none"}
OURS_COLOR = "#1f77b4"


def to_svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    # drop the XML prolog and doctype so the SVG can sit inline in HTML
    return text[text.index("<svg") :]


def utility_diagram(
    m: Measurements,
    pairs: Sequence[str],
    flows: Sequence[tuple[str, str]],
    title: str,
    interval: tuple[float, float] | None = None,
) -> Figure:
    """Throughput (x) against delay (y) per source; `flows` are (flow, label) and the first
    pair is drawn upright, the others in italics (the thesis's FCFS vs FQ)."""
    fig = Figure(figsize=(6.5, 4.2))
    ax = fig.subplots()
    delays = [e.mean for p in pairs for f, _ in flows if (e := m.estimate(p, f, "delay", interval))]
    if delays and min(delays) > 0 and max(delays) / min(delays) > 30:
        ax.set_yscale("log")  # a starved source's round trip can be a thousand times the others'
    styles = ["normal", "italic", "oblique"]
    colors = ["#d62728", OURS_COLOR, "#2ca02c"]
    for i, pair in enumerate(pairs):
        for flow, label in flows:
            x = m.estimate(pair, flow, "throughput", interval)
            y = m.estimate(pair, flow, "delay", interval)
            if x is None or y is None:
                continue
            color = colors[i % len(colors)]
            ax.text(
                x.mean, y.mean, label, style=styles[i % len(styles)], color=color, ha="center", va="center"
            )
            if x.interval > 0 or y.interval > 0:
                bottom = max(y.mean - y.interval, y.mean / 10)  # a box cannot reach below zero
                ax.add_patch(
                    Rectangle(
                        (x.mean - x.interval, bottom),
                        2 * x.interval,
                        y.mean + y.interval - bottom,
                        fill=False,
                        edgecolor=color,
                        linewidth=0.8,
                    )
                )
            ax.plot([x.mean], [y.mean], alpha=0)  # let autoscale see the point
        ax.plot([], [], color=colors[i % len(colors)], label=f"{pair} ({styles[i % len(styles)]})")
    ax.set_xlabel("throughput (packets/s)")
    ax.set_ylabel("round-trip delay (s)")
    ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small", handlelength=1)
    ax.margins(0.15)
    return fig


def traces(
    m: Measurements,
    pairs: Sequence[str],
    flows: Sequence[str],
    series: str | dict[str, str],
    title: str,
    ylabel: str,
    transform=None,
) -> Figure:
    """A panel per pair, a step line per flow, of one recorded series (first replication).
    `series` may map a pair to its own series (a window is `cwnd` for JK, `window` for DECbit);
    `transform` maps the values (e.g. a rate to a spacing)."""
    fig = Figure(figsize=(7.5, 1.9 * len(pairs) + 0.6))
    axes = fig.subplots(len(pairs), 1, sharex=True, squeeze=False)[:, 0]
    for ax, pair in zip(axes, pairs, strict=True):
        name = series[pair] if isinstance(series, dict) else series
        for flow in flows:
            d = m.traces(pair, flow, name)
            if d.empty:
                continue
            values = transform(d["value"]) if transform else d["value"]
            ax.step(d["t_s"], values, where="post", label=flow, linewidth=0.9)
        ax.set_ylabel(ylabel, fontsize="small")
        ax.set_title(f"{pair} ({name})", fontsize="small", loc="left")
        if len(flows) > 1:
            ax.legend(fontsize="x-small", loc="upper right")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title, fontsize="medium")
    return fig


def cells(comparisons: list[list[Comparison]], title: str, unit: str) -> Figure:
    """Every graded cell of a table: the paper's value (×) and ours (dot, 95% interval)."""
    flat = [c for row in comparisons for c in row if c.paper.value is not None]
    fig = Figure(figsize=(7.5, 0.22 * len(flat) + 1.2))
    ax = fig.subplots()
    labels = [f"{c.row} · {c.column}" for c in flat]
    ys = list(range(len(flat)))[::-1]
    ax.plot([c.paper.value for c in flat], ys, label="paper", **PAPER_STYLE)
    for c, y in zip(flat, ys, strict=True):
        if c.ours is not None:
            ax.errorbar(c.ours.mean, y, xerr=c.ours.interval or None, fmt="o", color=OURS_COLOR, markersize=4)
    ax.plot([], [], "o", color=OURS_COLOR, label="fairsim")
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize="x-small")
    ax.set_xlabel(unit)
    ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small")
    return fig
