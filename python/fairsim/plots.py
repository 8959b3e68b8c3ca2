"""Plots of results, for notebooks and reports (matplotlib).

A figure made here is laid out by matplotlib (`layout="constrained"`): its axis labels and tick
labels lie inside it, so that `savefig` keeps them whatever the figure's size (the x-axis label
of an 8 × 3.5 inch figure once fell below its edge and was cut off when saved)."""

from __future__ import annotations

import pandas as pd


def plot_traces(traces: pd.DataFrame, series: str, names=None, ax=None):
    """Step plot of one recorded series over time, a line per (pair, seed, name)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
    data = traces[traces.series == series]
    if names is not None:
        data = data[data.name.isin(list(names))]
    if data.empty:
        raise ValueError(f"no {series!r} trace recorded; trace flows with run.trace or --trace")
    for (pair, seed, name), d in data.groupby(["pair", "seed", "name"], sort=False):
        label = name if data.pair.nunique() == 1 else f"{name} ({pair}, seed {seed})"
        ax.step(d.t_s, d.value, where="post", label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(series)
    ax.legend(fontsize="small")
    return ax


def plot_sweep(agg: pd.DataFrame, metric: str, x: str, others: list[str], ax=None, ylabel: str | None = None):
    """A sweep's aggregate (`SweepResults.aggregate`) against axis `x`: a line per pair (and per
    value of the other axes) through the means, a band over the 95% confidence interval; or,
    for figures pooled over seeds (`value`, `low`, `high`), through them and over their interval."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for key, d in agg.groupby(["pair", *others], sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join([str(key[0]), *(f"{o}={v}" for o, v in zip(others, key[1:], strict=True))])
        d = d.sort_values(x)
        if "value" in d:
            y, low, high = d["value"], d["low"].fillna(d["value"]), d["high"].fillna(d["value"])
        else:
            ci = d["ci95"].fillna(0)
            y, low, high = d["mean"], d["mean"] - ci, d["mean"] + ci
        (line,) = ax.plot(d[x], y, marker="o", markersize=3, label=label)
        ax.fill_between(d[x], low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel(x)
    ax.set_ylabel(ylabel or metric)
    ax.legend(fontsize="small")
    return ax


def log_axis(ax, which: str = "y") -> None:
    """Puts `ax`'s x or y axis (or both, "xy") on a log scale whose tick labels are plain numbers
    (0.3, 2, 50, 1000) rather than matplotlib's 3×10⁻¹: the reader compares values, and the
    axis label carries the unit."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            return f"{x:g}"

    for name in which:
        axis = ax.xaxis if name == "x" else ax.yaxis
        (ax.set_xscale if name == "x" else ax.set_yscale)("log")
        axis.set_major_formatter(Plain())
        axis.set_minor_formatter(Plain(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


def plot_slowdown(table: pd.DataFrame, ax=None):
    """Slowdown by flow size (`Results.slowdown`): the p50 (solid) and p99 (dashed) slowdown of
    each size bin against its largest size, a colour per pair and workload, both axes logarithmic
    (HPCC's and Homa's figure). A workload with unfinished transfers says how many in its
    legend, and its bins that hold one are drawn hollow: their figures are lower bounds."""
    import matplotlib.pyplot as plt

    if table.empty:
        raise ValueError(
            "no workload transfers: slowdowns need a [workloads] table whose transfers start in the run"
        )
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    several = table[["pair", "flow"]].drop_duplicates().shape[0] > 1
    for (pair, flow), d in table.groupby(["pair", "flow"], sort=False):
        name = f"{flow} ({pair})" if several else flow
        unfinished = int(d["unfinished"].sum())
        if unfinished:
            name = f"{name}, {unfinished} of {int(d['count'].sum())} unfinished (lower bounds hollow)"
        (line,) = ax.plot(d["max_bytes"], d["p50"], marker="o", markersize=3, label=f"{name} p50")
        ax.plot(
            d["max_bytes"],
            d["p99"],
            marker="v",
            markersize=3,
            linestyle="--",
            color=line.get_color(),
            label=f"{name} p99",
        )
        bounds = d[d["lower_bound"]]
        for column, marker in (("p50", "o"), ("p99", "v")):
            ax.plot(
                bounds["max_bytes"],
                bounds[column],
                marker,
                markersize=6,
                color="white",
                markeredgecolor=line.get_color(),
            )
    log_axis(ax, "xy")
    ax.set_xlabel("flow size, bytes (largest in bin)")
    ax.set_ylabel("slowdown (FCT / ideal)")
    ax.legend(fontsize="small")
    return ax
