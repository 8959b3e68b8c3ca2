"""Plots of results, for notebooks and reports (matplotlib)."""

from __future__ import annotations

import pandas as pd


def plot_traces(traces: pd.DataFrame, series: str, names=None, ax=None):
    """Step plot of one recorded series over time, a line per (pair, seed, name)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.5))
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
