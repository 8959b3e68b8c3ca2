"""The figures of a reproduction, drawn with matplotlib's object API (no global pyplot state).

- `utility_diagram`: the thesis's utility diagrams (§6.3): each source's throughput against
  its round-trip delay, a colour per source and a marker per pair (named in legends beside the
  plot, so no label can cover a point or another label), with a box as wide and as tall as
  the 95% confidence intervals;
- `traces`: a recorded series (window, rate, probe, ...) over time, a panel per pair;
- `cells`: every cell of a published table, the paper's value beside ours, a panel per unit;
- `goodput`: each flow's goodput under the paper's pairs and the pairs added to them;
- `to_svg`: a figure as SVG text, for the report: the same figure gives the same bytes.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from fairsim.plots import log_axis
from fairsim.reproduce.compare import Comparison
from fairsim.reproduce.measure import METRIC_UNITS, Measurements

if TYPE_CHECKING:
    from fairsim.reproduce.added import GoodputTable

PAPER_STYLE = {"marker": "x", "color": "black", "linestyle": "none"}
OURS_COLOR = "#1f77b4"
#: One per pair of a utility diagram: its marker and its boxes' outline. The first pair's large
#: hollow circle rings the second's small filled square, so both show where they coincide.
PAIR_STYLES = (
    ({"marker": "o", "fillstyle": "none", "markersize": 10, "markeredgewidth": 1.6}, "-"),
    ({"marker": "s", "fillstyle": "full", "markersize": 5}, "--"),
    ({"marker": "^", "fillstyle": "none", "markersize": 8, "markeredgewidth": 1.2}, ":"),
)
#: Axis labels of the units of `METRIC_UNITS`, where the unit alone would be terse.
UNIT_LABELS = {"s": "seconds", "ms": "milliseconds"}
SOURCE_COLORS = tuple(matplotlib.colormaps["tab10"].colors)

_SVG_ID = re.compile(r'\bid="([^"]+)"')
#: Where an SVG names an id: its definition, a link to it, a `url(#...)` reference.
_SVG_REF = re.compile(r'(\bid="|href="#|url\(#)([^")]+)')


def to_svg(fig: Figure, prefix: str) -> str:
    """The figure as inline SVG: no date, ids from a fixed salt (same figure, same bytes) and
    prefixed with `prefix`, so that several figures on one page never share an id."""
    buf = io.StringIO()
    # a figure laid out by a layout engine (constrained layout) already fits its canvas; only
    # one without needs "tight", which draws the whole figure twice (once to measure it)
    tight = "tight" if fig.get_layout_engine() is None else None
    with matplotlib.rc_context({"svg.hashsalt": "fairsim", "svg.id": None}):
        fig.savefig(buf, format="svg", bbox_inches=tight, metadata={"Date": None})
    text = buf.getvalue()
    # drop the XML prolog and doctype so the SVG can sit inline in HTML
    text = text[text.index("<svg") :]
    ids = set(_SVG_ID.findall(text))
    return _SVG_REF.sub(lambda m: m[1] + (f"{prefix}-" if m[2] in ids else "") + m[2], text)


def utility_diagram(
    m: Measurements,
    pairs: Sequence[str],
    flows: Sequence[tuple[str, str]],
    title: str,
    interval: tuple[float, float] | None = None,
) -> Figure:
    """Throughput (x) against delay (y) per source; `flows` are (flow, label). Each source has
    its colour and each pair its marker and box outline (the thesis's FCFS vs FQ); boxes are
    the 95% confidence intervals, cut at zero throughput (and, on a log axis, at a tenth of the
    delay) since neither can be negative."""
    fig = Figure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.subplots()
    delays = [e.mean for p in pairs for f, _ in flows if (e := m.estimate(p, f, "delay", interval))]
    if delays and min(delays) > 0 and max(delays) / min(delays) > 30:
        log_axis(ax)  # a starved source's round trip can be a thousand times the others'
    for i, pair in enumerate(pairs):
        marker, linestyle = PAIR_STYLES[i % len(PAIR_STYLES)]
        for j, (flow, _) in enumerate(flows):
            x = m.estimate(pair, flow, "throughput", interval)
            y = m.estimate(pair, flow, "delay", interval)
            if x is None or y is None:
                continue
            color = SOURCE_COLORS[j % len(SOURCE_COLORS)]
            ax.plot([x.mean], [y.mean], color=color, **marker)
            if x.interval > 0 or y.interval > 0:
                left = max(x.mean - x.interval, 0.0)
                bottom = max(y.mean - y.interval, y.mean / 10 if ax.get_yscale() == "log" else 0.0)
                ax.add_patch(
                    Rectangle(
                        (left, bottom),
                        x.mean + x.interval - left,
                        y.mean + y.interval - bottom,
                        fill=False,
                        edgecolor=color,
                        linestyle=linestyle,
                        linewidth=0.8,
                    )
                )
    pair_handles = [
        Line2D(
            [],
            [],
            color="black",
            linewidth=0.8,
            linestyle=PAIR_STYLES[i % 3][1],
            label=pair,
            **PAIR_STYLES[i % 3][0],
        )
        for i, pair in enumerate(pairs)
    ]
    source_handles = [
        Line2D(
            [],
            [],
            color=SOURCE_COLORS[j % len(SOURCE_COLORS)],
            marker="s",
            linestyle="none",
            label=f"{label}: {flow}",
        )
        for j, (flow, label) in enumerate(flows)
    ]
    # beside the axes, never over a point (constrained layout makes room for them)
    fig.legend(
        handles=pair_handles,
        title="pair",
        fontsize="small",
        title_fontsize="small",
        loc="outside right upper",
    )
    fig.legend(
        handles=source_handles,
        title="source",
        fontsize="small",
        title_fontsize="small",
        loc="outside right lower",
    )
    ax.set_xlabel("throughput (packets/s)")
    ax.set_ylabel("round-trip delay (s)")
    ax.set_title(title, fontsize="medium")
    ax.margins(0.1)
    ax.set_xlim(left=0)  # no throughput or delay is negative
    if ax.get_yscale() == "linear":
        ax.set_ylim(bottom=0)
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


def cells(comparisons: list[list[Comparison]], title: str) -> Figure:
    """Every graded cell of a table: the paper's value (×) and ours (dot: the mean over the
    replications; bar: the lowest to the highest replication). A panel per unit, so packets
    and seconds never share an axis."""
    flat = [c for row in comparisons for c in row if c.paper.value is not None]
    by_unit: dict[str, list[Comparison]] = {}
    for c in flat:
        by_unit.setdefault(METRIC_UNITS.get(c.key.metric, ("",))[0], []).append(c)
    heights = [len(group) for group in by_unit.values()]
    fig = Figure(figsize=(7.5, 0.22 * len(flat) + 0.9 * len(heights) + 0.4), layout="constrained")
    axes = fig.subplots(len(heights), 1, squeeze=False, height_ratios=heights)[:, 0]
    for ax, (unit, group) in zip(axes, by_unit.items(), strict=True):
        ys = list(range(len(group)))[::-1]
        ax.plot([c.paper.value for c in group], ys, label="paper", **PAPER_STYLE)
        for c, y in zip(group, ys, strict=True):
            if c.ours is None:
                continue
            low, high = max(c.ours.mean - c.ours.low, 0.0), max(c.ours.high - c.ours.mean, 0.0)
            spread = [[low], [high]] if c.ours.runs > 1 else None
            ax.errorbar(c.ours.mean, y, xerr=spread, fmt="o", color=OURS_COLOR, markersize=4)
        ax.plot([], [], "o", color=OURS_COLOR, label="fairsim")
        ax.set_yticks(ys)
        ax.set_yticklabels([f"{c.row} · {c.column}" for c in group], fontsize="x-small")
        ax.set_ylim(-0.7, len(group) - 0.3)
        ax.set_xlabel(UNIT_LABELS.get(unit, unit))
    axes[0].legend(fontsize="small", loc="lower left", bbox_to_anchor=(0, 1.0), ncol=2, borderaxespad=0.2)
    fig.suptitle(title, fontsize="medium")
    return fig


def goodput(table: GoodputTable) -> Figure:
    """Each flow's goodput under every pair that ran, the pairs added to the paper's (`fairsim
    reproduce --pair`) hatched and named "(added)" in the legend: where the user's own
    components stand against the paper's. The values of the report's goodput table."""
    rows, pairs = table.rows, table.pairs
    fig = Figure(figsize=(7.5, 0.3 * len(rows) * max(len(pairs), 1) ** 0.5 + 1.4), layout="constrained")
    ax = fig.subplots()
    height = 0.8 / max(len(pairs), 1)
    for i, pair in enumerate(pairs):
        ys = [k + i * height for k in range(len(rows))]
        widths = [row.values[i].ours.mean if row.values[i].ours else 0.0 for row in rows]
        added = pair in table.added
        label = f"{pair} (added)" if added else pair
        ax.barh(ys, widths, height=height, label=label, hatch="//" if added else None)
    ax.set_yticks([k + 0.4 - height / 2 for k in range(len(rows))])
    ax.set_yticklabels([row.label for row in rows], fontsize="x-small")
    ax.invert_yaxis()
    ax.set_xlabel("goodput, packets per second")
    ax.legend(fontsize="x-small", loc="lower left", bbox_to_anchor=(0, 1.0), ncol=min(len(pairs), 4))
    fig.suptitle(table.title, fontsize="medium")
    return fig
