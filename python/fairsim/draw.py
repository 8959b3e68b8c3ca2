"""A picture of a scenario's network: `fairsim draw SCENARIO` and :func:`draw`.

Nodes are placed by networkx's force-directed layout (Fruchterman–Reingold, seeded, so a
scenario always gives the same picture), not by hand: hosts (a flow's source or destination) as
circles, routers as squares. Each link is a line as thick as the logarithm of its rate, labelled
with its rate and delay. A link is a **bottleneck** when it is the slowest link (by rate) of some
flow's route; bottlenecks are drawn in red and their ports list each pair's discipline, so the
one picture shows what the pairs compare. Flows are listed beside the graph (source → destination,
application), up to `MOST_LISTED`.

Decisions (docs/decisions.md, "Drawing a scenario"): rates and delays are the forward direction's
(a link whose directions differ says so with "/"); the layout is networkx's spring layout with
seed 1, 200 iterations; a scenario of more than `MOST_NODES` nodes is refused with a message,
since a picture of it would be unreadable (its size is in `fairsim validate`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fairsim._core import FairsimError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from fairsim.api import Scenario

#: Larger scenarios are refused: the picture would be unreadable.
MOST_NODES = 300
#: Flows listed beside the picture; more are counted.
MOST_LISTED = 12
#: Links labelled with their rate and delay; with more, only the bottlenecks are.
MOST_LABELLED = 40


@dataclass(frozen=True)
class Link:
    name: str
    a: str
    b: str
    rate_bps: float
    label: str


def _rate_bps(text: str) -> float:
    """A resolved scenario's rate (`10Mbps`) in bit/s, read by the engine."""
    from fairsim import _core

    return float(_core.parse("rate", text)[1])


def _links(doc: dict) -> list[Link]:
    links = []
    for name, link in doc["links"].items():
        a, b = link["between"]
        fwd, rev = link["forward"], link["reverse"]
        rate = fwd["rate"] if fwd["rate"] == rev["rate"] else f"{fwd['rate']}/{rev['rate']}"
        delay = fwd["delay"] if fwd["delay"] == rev["delay"] else f"{fwd['delay']}/{rev['delay']}"
        links.append(
            Link(name, a, b, min(_rate_bps(fwd["rate"]), _rate_bps(rev["rate"])), f"{rate}, {delay}")
        )
    return links


def bottlenecks(doc: dict) -> dict[tuple[str, str], str]:
    """The ports (from, to) that are the slowest hop of some flow's route, each with the link's name."""
    by_hop = {}
    for link in doc["links"].values():
        a, b = link["between"]
        by_hop[(a, b)] = _rate_bps(link["forward"]["rate"])
        by_hop[(b, a)] = _rate_bps(link["reverse"]["rate"])
    found: dict[tuple[str, str], str] = {}
    names = {tuple(link["between"]): name for name, link in doc["links"].items()}
    for flow in doc["flows"].values():
        hops = list(zip(flow["route"], flow["route"][1:], strict=False))
        if not hops:
            continue
        slowest = min(by_hop[h] for h in hops)
        for h in hops:
            if by_hop[h] == slowest:
                found[h] = names.get(h) or names[(h[1], h[0])]
    return found


def _disciplines(sc: Scenario, ports: list[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
    """For each port, "PAIR: qdisc" for every pair."""
    shown: dict[tuple[str, str], list[str]] = {p: [] for p in ports}
    for pair in sc.pairs:
        doc = sc.resolved(pair)
        for link in doc["links"].values():
            a, b = link["between"]
            for port, direction in (((a, b), "forward"), ((b, a), "reverse")):
                if port in shown:
                    shown[port].append(f"{pair}: {link[direction]['qdisc']['kind']}")
    return shown


@dataclass(frozen=True)
class Network:
    """What the picture of a scenario shows, and nothing else: two scenarios with equal
    networks draw the same picture (a reproduction's report draws it once)."""

    name: str
    nodes: tuple[str, ...]
    links: tuple[Link, ...]
    hosts: frozenset[str]
    #: The bottleneck ports (from, to) with their link's name.
    narrow: tuple[tuple[tuple[str, str], str], ...]
    #: For each bottleneck port, "PAIR: qdisc" for every pair.
    disciplines: tuple[tuple[tuple[str, str], tuple[str, ...]], ...]
    #: "flow: source → destination (application)".
    flows: tuple[str, ...]


def network(scenario: Scenario | str | Path, set=None) -> Network:
    """What :func:`draw` shows of `scenario`; refuses networks too large to draw."""
    from fairsim.api import Scenario, load

    sc = scenario.with_overrides(set) if isinstance(scenario, Scenario) else load(scenario, set)
    if len(sc.nodes) > MOST_NODES:
        raise FairsimError(
            f"{sc.file}: {len(sc.nodes):,} nodes; `draw` shows networks of up to {MOST_NODES} nodes "
            "(`fairsim validate` lists every queue and route)"
        )
    doc = sc.resolved(sc.pairs[0])
    narrow = bottlenecks(doc)
    return Network(
        name=sc.name,
        nodes=tuple(sc.nodes),
        links=tuple(_links(doc)),
        hosts=frozenset(f[end] for f in doc["flows"].values() for end in ("src", "dst")),
        narrow=tuple(sorted(narrow.items())),
        disciplines=tuple((port, tuple(lines)) for port, lines in _disciplines(sc, sorted(narrow)).items()),
        flows=tuple(f"{name}: {f['src']} → {f['dst']} ({f['app']})" for name, f in doc["flows"].items()),
    )


def draw(scenario: Scenario | str | Path, set=None) -> Figure:
    """The picture of `scenario`'s network (a matplotlib Figure; see the module's docstring)."""
    return picture(network(scenario, set))


def picture(net: Network) -> Figure:
    """The picture of `net` (a matplotlib Figure)."""
    import networkx as nx
    from matplotlib.figure import Figure

    links = net.links
    graph = nx.Graph()
    graph.add_nodes_from(net.nodes)
    graph.add_edges_from((link.a, link.b) for link in links)
    pos = nx.spring_layout(graph, seed=1, iterations=200)
    narrow_links = {name for _, name in net.narrow}
    rates = [link.rate_bps for link in links if math.isfinite(link.rate_bps)]
    low = math.log10(min(rates)) if rates else 0.0

    fig = Figure(figsize=(10, 6.5), layout="constrained")
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.margins(0.08)
    labels = []
    for link in links:
        (x0, y0), (x1, y1) = pos[link.a], pos[link.b]
        thick = 1.0 + (math.log10(link.rate_bps) - low if math.isfinite(link.rate_bps) else 0.0)
        red = link.name in narrow_links
        width, color = (max(thick, 2.5), "#c0392b") if red else (thick, "#95a5a6")
        ax.plot([x0, x1], [y0, y1], color=color, linewidth=width, zorder=1)
        if not red and len(links) > MOST_LABELLED:
            continue
        text = link.label
        for (a, b), lines in net.disciplines:
            if {a, b} == {link.a, link.b}:
                # three pairs a line: a narrow label finds a free place where a wide one cannot
                rows = [", ".join(lines[i : i + 3]) for i in range(0, len(lines), 3)]
                text += f"\n{a}→{b}: " + ",\n".join(rows)
        labels.append((text, (x0, y0), (x1, y1), red, color))
    names = []
    for node in net.nodes:
        x, y = pos[node]
        ax.scatter(
            [x],
            [y],
            s=120,
            marker="o" if node in net.hosts else "s",
            zorder=2,
            color="#d6eaf8" if node in net.hosts else "#f9e79f",
            edgecolors="#2c3e50",
        )
        names.append(
            ax.annotate(
                node,
                (x, y),
                xytext=(0, 8),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=8,
                zorder=4,
            )
        )
    _place_link_labels(fig, ax, labels, names, [pos[n] for n in net.nodes])
    flows = net.flows
    listed = [*flows[:MOST_LISTED]] + (
        [f"… and {len(flows) - MOST_LISTED} more flows"] if len(flows) > MOST_LISTED else []
    )
    title = f"{net.name}: {len(net.nodes)} nodes, {len(links)} links, {len(flows)} flows"
    ax.set_title(title, fontsize=10)
    fig.text(0.99, 0.0, "\n".join(listed), fontsize=7, ha="right", va="bottom", family="monospace")
    key = "red: a bottleneck (some flow's slowest link), with each pair's discipline at its ports"
    key += "\ncircles: hosts; squares: routers"
    fig.text(0.01, 0.0, key, fontsize=7, ha="left", va="bottom", color="#922b21")
    return fig


#: Where along its link a label may stand, tried in this order: the middle first.
LABEL_SPOTS = (0.5, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85)
#: How far across its link a label may move, in label heights, tried in this order.
LABEL_SHIFTS = (0, 1, -1, 2, -2, 3, -3)


def _place_link_labels(fig, ax, labels, names, points) -> None:
    """Puts each link's label (the bottlenecks' first) at the first place where its box covers
    no node, no node's name and no label placed before it: along its link (`LABEL_SPOTS`), on
    it first and then moved across it (`LABEL_SHIFTS`); where none is free, where it covers
    least. Measured on the laid-out figure, so what is measured is what is drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # lays the figure out: the transforms below are final
    renderer = canvas.get_renderer()
    points_per_pixel = 72 / fig.dpi
    taken = [n.get_window_extent(renderer) for n in names]
    for x, y in points:  # a node's marker: about 12 points across
        px, py = ax.transData.transform((x, y))
        half = 8 / points_per_pixel
        taken.append(Bbox.from_extents(px - half, py - half, px + half, py + half))

    def covered(box) -> float:
        return sum(
            max(0.0, min(box.x1, t.x1) - max(box.x0, t.x0)) * max(0.0, min(box.y1, t.y1) - max(box.y0, t.y0))
            for t in taken
        )

    # the bottlenecks' labels first: they say what the pairs compare, and take the best places
    for text, (x0, y0), (x1, y1), red, color in sorted(labels, key=lambda label: not label[3]):
        label = ax.annotate(
            text,
            (x0, y0),
            xytext=(0, 0),
            textcoords="offset points",
            ha="center",
            va="center",
            fontsize=7,
            color="#922b21" if red else "#2c3e50",
            zorder=3,
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": color if red else "none", "alpha": 0.9},
        )
        label.set_in_layout(False)  # placed in the layout already made
        # the unit normal of the link on the page, and the label's height, in points
        (ax0, ay0), (ax1, ay1) = ax.transData.transform([(x0, y0), (x1, y1)])
        length = math.hypot(ax1 - ax0, ay1 - ay0) or 1.0
        normal = (-(ay1 - ay0) / length, (ax1 - ax0) / length)
        height = label.get_window_extent(renderer).height * points_per_pixel + 4
        best = None
        for shift in LABEL_SHIFTS:
            for spot in LABEL_SPOTS:
                label.xy = (x0 + (x1 - x0) * spot, y0 + (y1 - y0) * spot)
                label.xyann = (normal[0] * shift * height, normal[1] * shift * height)
                box = label.get_window_extent(renderer).padded(2 / points_per_pixel)  # the white box's pad
                cost = covered(box)
                if best is None or cost < best[0]:
                    best = (cost, label.xy, label.xyann, box)
                if cost == 0:
                    break
            if best[0] == 0:
                break
        _, label.xy, label.xyann, box = best
        taken.append(box)


def write_svg(fig: Figure, path: Path) -> None:
    """The picture as an SVG file, the same bytes for the same scenario, written atomically."""
    import io
    import os

    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "fairsim", "svg.id": "fairsim-network"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(buf.getvalue())
    os.replace(tmp, path)
