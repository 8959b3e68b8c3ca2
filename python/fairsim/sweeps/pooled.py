"""A study's completion-time slowdown by size, pooled over seeds from its recorded transfers
(`tables=["transfers"]`, `--record transfers`; docs/sweeps.md, *Completion times pooled over
seeds*).

A run's own slowdown table cuts its own equal-count bins, so its bin 4 is other sizes than
another seed's, and the mean over seeds of per-run p99s mixes unlike bins and is not the p99 of
anything. Here every table of the study is made from its transfers by the rules of every other
slowdown table (`fairsim.slowdown_rules`): one set of bin edges per workload for the whole
study, the warm-up's transfers left out, percentiles only where a bin's pooled transfers
support them; each figure is that of all the seeds' transfers together (the p99 of the
concatenated transfers), with a 95% interval from resampling whole seeds (`fairsim.bootstrap`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairsim.bootstrap import interval, resampled_means, resampled_quantiles
from fairsim.transfer_tables import PERCENTILES, SLOWDOWN_COLUMNS, slowdown_table, study_edges

#: The transfers' columns the tables read.
READ = ("pair", "flow", "bytes", "unfinished", "ideal_fct_s", "slowdown_so_far", "warmup")

#: The figures that get an interval, each with `NAME_low` and `NAME_high` beside it.
FIGURES = (*PERCENTILES, "mean_fct_s")


def columns_of(transfers: pd.DataFrame) -> dict[str, list]:
    """The transfers the slowdown tables read, as plain columns (`fairsim.transfer_tables`)."""
    return {name: transfers[name].tolist() for name in READ if name in transfers}


def completion_times(transfers: pd.DataFrame, keys: list[str], bins=10) -> pd.DataFrame:
    """Per value of `keys` (the axes and the pair, say), per pair and workload, and per size bin
    of the whole study: `Results.slowdown`'s columns over the transfers of every seed together,
    `seeds` (how many seeds had transfers there), and each figure's 95% bootstrap interval over
    seeds (`NAME_low`, `NAME_high`; NaN for one seed, or where the figure is NaN). A slowdown's
    interval never falls below 1.

    `bins`: a number of equal-count bins cut once from every measured transfer of the study, per
    workload, or upper edges in bytes; the edges are in `up_to_bytes`."""
    keys = [k for k in keys if k not in ("pair", "flow", "bin")]
    out_columns = [*keys, *SLOWDOWN_COLUMNS[:5], "seeds", *SLOWDOWN_COLUMNS[5:]]
    out_columns += [f"{f}_{end}" for f in FIGURES for end in ("low", "high")]
    sized = transfers[transfers["ideal_fct_s"].notna()] if "ideal_fct_s" in transfers else transfers.iloc[:0]
    if sized.empty:
        return pd.DataFrame(columns=out_columns)
    edges = study_edges(columns_of(sized), bins)
    measured = sized[~sized["warmup"].astype(bool)] if "warmup" in sized else sized
    measured = measured.assign(
        bin=_bins(measured, edges), fct=measured["slowdown_so_far"] * measured["ideal_fct_s"]
    )
    tables = []
    groups = measured.groupby(keys, sort=False, dropna=False) if keys else [((), measured)]
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        table = pd.DataFrame(slowdown_table(columns_of(group), edges), columns=SLOWDOWN_COLUMNS)
        table = table.merge(_intervals(group), on=["pair", "flow", "bin"], how="left")
        for figure in FIGURES:  # no interval about a figure the bin does not support
            missing = table[figure].isna()
            table.loc[missing, [f"{figure}_low", f"{figure}_high"]] = float("nan")
        tables.append(table.assign(**dict(zip(keys, key, strict=True))))
    return pd.concat(tables, ignore_index=True)[out_columns]


def _bins(transfers: pd.DataFrame, edges: dict[str, list[float]]) -> np.ndarray:
    """Each transfer's bin among its workload's `edges` (`slowdown_rules.bin_index`, at once)."""
    out = np.zeros(len(transfers), dtype=np.int64)
    flows, sizes = transfers["flow"].to_numpy(), transfers["bytes"].to_numpy(dtype=float)
    for flow, upper in edges.items():
        mine = flows == flow
        out[mine] = np.searchsorted(np.asarray(upper, dtype=float), sizes[mine], side="left")
    return out


def _intervals(group: pd.DataFrame) -> pd.DataFrame:
    """Per pair, workload and bin of one point: each figure's bootstrap interval over the seeds
    of the point's pair, the seeds resampled alike for every bin."""
    rows = []
    for pair, runs in group.groupby("pair", sort=False):
        seeds = sorted(runs["seed"].unique())
        index = {s: i for i, s in enumerate(seeds)}
        for (flow, b), part in runs.groupby(["flow", "bin"], sort=False):
            row = {"pair": pair, "flow": flow, "bin": b, "seeds": part["seed"].nunique()}
            owner = part["seed"].map(index).to_numpy()
            figures = _figures(part, owner, len(seeds))
            rows.append(row | figures)
    return pd.DataFrame(rows)


def _figures(part: pd.DataFrame, owner: np.ndarray, seeds: int) -> dict[str, float]:
    """A bin's figures' intervals: NaN with one seed, where no interval can be had."""
    nan = float("nan")
    if seeds < 2:
        return {f"{f}_{end}": nan for f in FIGURES for end in ("low", "high")}
    slowdowns = part["slowdown_so_far"].to_numpy(dtype=float)
    quantiles = resampled_quantiles(slowdowns, owner, seeds, list(PERCENTILES.values()))
    low, high = interval(quantiles, floor=1.0)
    out = {}
    for j, name in enumerate(PERCENTILES):
        out[f"{name}_low"], out[f"{name}_high"] = float(low[j]), float(high[j])
    low, high = interval(resampled_means(part["fct"].to_numpy(dtype=float), owner, seeds), floor=0.0)
    return out | {"mean_fct_s_low": float(low[0]), "mean_fct_s_high": float(high[0])}
