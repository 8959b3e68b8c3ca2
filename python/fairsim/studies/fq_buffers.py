"""Keshav 1991, chapter 3: the cost of Fair Queueing's packet buffer, four ways.

The thesis keeps FQ's packets in a *bounded heap* (send the smallest bid; when over the limit,
drop the largest) and compares four structures on traces from its simulator: an ordered linked
list (LINK), a binary search tree (TREE), a double heap (HEAP) and per-conversation queues with
heaps of heads and tails (PERC). Its cost is the number of elementary operations per insertion:
links traversed for lists and trees, element swaps for heaps (§3.3.5).

Here each point of a grid of (N conversations, B buffers) is one fairsim run of the thesis's
set-up — one gateway, N sources each with one conversation sending through it, window W — run
once per structure with FQ's chapter 3 buffer policy (`drop = "largest_bid"`). The four runs of
a point send and drop exactly the same packets (the test suite checks it); only the counted work
and the wall time differ.

What the thesis left unstated and is chosen here (see docs/algorithms.md): the sources' flow
control (the thesis used TCP with Jacobson's modifications; until that protocol exists in fairsim,
Generic with window W = 5 stands in), line speeds (800 kb/s access, 80 kb/s bottleneck: the
thesis's chapter 6 lines), the grid (its 35 points along five axes are lost with Figure 3.4), and
the trace length (2500 s, as the thesis found necessary for N = 10, B = 200).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from fairsim.api import loads
from fairsim.api import run as run_scenario

STRUCTURES = ["list", "tree", "double_heap", "perc"]
#: The thesis's names for the structures.
THESIS_NAMES = {"list": "LINK", "tree": "TREE", "double_heap": "HEAP", "perc": "PERC"}


@dataclass(frozen=True)
class Grid:
    conversations: tuple[int, ...] = (2, 5, 10, 20, 40)
    buffers: tuple[int, ...] = (10, 25, 50, 100, 200)
    window: int = 5
    duration_s: float = 2500.0


QUICK = Grid(conversations=(2, 10, 40), buffers=(10, 50, 200), duration_s=300.0)


def scenario(n: int, buffers: int, window: int, duration_s: float) -> str:
    """The thesis's Figure 3.2 set-up: N sources, one gateway, one output line."""
    nodes = [f"s{i}" for i in range(n)] + ["gw", "sink"]
    lines = [
        f"nodes = {nodes!r}".replace("'", '"'),
        "[scenario]",
        f'name = "fq-buffers N={n} B={buffers}"',
        f'description = "Keshav 1991 ch. 3: {n} conversations through one FQ gateway with {buffers} buffers"',
        "[run]",
        f'duration = "{duration_s}s"',
        f'warmup = "{duration_s / 10}s"',
        "[links]",
        f'out = {{ between = ["gw", "sink"], rate = "80kbps", buffer = {buffers} }}',
    ]
    lines += [f's{i} = {{ between = ["s{i}", "gw"], rate = "800kbps" }}' for i in range(n)]
    lines.append("[flows]")
    lines += [f'c{i} = {{ src = "s{i}", dst = "sink", app = "ftp", window = {window} }}' for i in range(n)]
    lines.append("[pairs]")
    for s in STRUCTURES:
        lines.append(
            f'"{s}" = {{ transport = "generic", qdisc = {{ kind = "fq", drop = "largest_bid", '
            f'charge_drops = false, buffer = "{s}" }} }}'
        )
    return "\n".join(lines) + "\n"


def run(grid: Grid = Grid(), progress: bool | None = None, jobs: int | None = None) -> pd.DataFrame:
    """One row per (N, B, structure): operations per insertion (mean and maximum) and wall time."""
    rows = []
    for n in grid.conversations:
        for b in grid.buffers:
            sc = loads(scenario(n, b, grid.window, grid.duration_s), file=f"fq-buffers N={n} B={b}")
            res = run_scenario(sc, progress=progress, jobs=jobs)
            gw = res.queues[res.queues.port == "gw->sink"].set_index("pair")
            delivered = res.flows.groupby("pair")["delivered"].sum()
            walls = {r["pair"]: r["wall_s"] for r in res.runs}
            for s in STRUCTURES:
                q = gw.loc[s]
                rows.append(
                    {
                        "conversations": n,
                        "buffers": b,
                        "window": grid.window,
                        "regime": "underloaded" if n * grid.window <= b else "overloaded",
                        "structure": THESIS_NAMES[s],
                        "inserts": int(q["inserts"]),
                        "ops_per_insert": q["insert_ops"] / max(q["inserts"], 1),
                        "max_ops_per_insert": q["max_insert_ops"],
                        "ops_per_removal": q["removal_ops"] / max(q["removals"], 1),
                        "drops": int(q["drops"]),
                        "delivered": int(delivered[s]),
                        "wall_s": walls[s],
                    }
                )
    return pd.DataFrame(rows)


def check_same_traffic(df: pd.DataFrame) -> bool:
    """Whether, at every grid point, the four structures delivered and dropped the same packets."""
    per_point = df.groupby(["conversations", "buffers"])[["delivered", "drops", "inserts"]].nunique()
    return bool((per_point == 1).all().all())


def pivot(df: pd.DataFrame, value: str = "ops_per_insert") -> pd.DataFrame:
    """A table in the thesis's terms: rows (N, B, regime), one column per structure."""
    t = df.pivot_table(index=["conversations", "buffers", "regime"], columns="structure", values=value)
    return t[[THESIS_NAMES[s] for s in STRUCTURES]]


def plot(df: pd.DataFrame, path: str) -> None:
    """Average and maximum operations per insertion against N/B, log scale (cf. Figures 3.5 and 3.6)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairsim.plots import log_axis

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
    for ax, value, title in (
        (axes[0], "ops_per_insert", "average work per insertion"),
        (axes[1], "max_ops_per_insert", "maximum work per insertion"),
    ):
        for s in STRUCTURES:
            name = THESIS_NAMES[s]
            d = (
                df[df.structure == name]
                .assign(ratio=lambda x: x.conversations / x.buffers)
                .sort_values("ratio")
            )
            ax.plot(d.ratio, d[value].clip(lower=0.1), marker="o", linestyle="none", label=name)
        log_axis(ax, "xy")
        ax.set_xlabel("conversations / buffers (N/B)")
        ax.set_ylabel("elementary operations (0 drawn at 0.1)")
        ax.set_title(title)
        ax.axvline(1 / df.window.iloc[0], color="grey", linestyle=":", linewidth=1)
        ax.text(1 / df.window.iloc[0], ax.get_ylim()[1], " N·W = B", va="top", fontsize=8, color="grey")
    axes[0].legend()
    fig.suptitle("FQ packet buffer: the four structures of Keshav 1991, chapter 3 (fairsim traces)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
