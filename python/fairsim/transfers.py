"""Transfers of open-population flows (`app = "files"`, `[workloads]`), as DataFrames: one row
per transfer, the engine's summary of each run's flow (Kim & Farber 1994 §4.1.4's response time
R, system throughput Θ, network power Θ/R, Jain's index, N = λR; defined in
crates/fairsim/src/stats/transfers.rs and docs/results.md), and for workloads each transfer's
completion-time slowdown, by size (docs/results.md, *Completion-time slowdown*).

The tables are made without pandas by `fairsim.transfer_tables`, which the command line uses
alone; this module makes DataFrames of them."""

from __future__ import annotations

import pandas as pd

from fairsim.transfer_tables import (
    COLUMNS,
    PERCENTILES,
    SLOWDOWN_COLUMNS,
    WORKLOAD_COLUMNS,
    slowdown_table,
    transfer_columns,
    transfer_summary_rows,
)

__all__ = [
    "COLUMNS",
    "PERCENTILES",
    "SLOWDOWN_COLUMNS",
    "WORKLOAD_COLUMNS",
    "slowdown_frame",
    "summary_frame",
    "transfer_frame",
]


def transfer_frame(runs: list[dict]) -> pd.DataFrame:
    """One row per transfer of every run (`Results.transfers`)."""
    frames = [pd.DataFrame(columns) for columns in map(transfer_columns, runs) if columns is not None]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)


def slowdown_frame(transfers: pd.DataFrame, bins=10) -> pd.DataFrame:
    """Completion-time slowdown by flow size (`Results.slowdown`): every transfer of each pair
    and workload that arrived after the warm-up, finished or not, cut into size bins, each with
    its count, how many did not finish, its upper edge and largest size, the p50, p95, p99 and
    p99.9 of its slowdown (NaN where the bin has too few transfers to support one) and its mean
    FCT.

    An unfinished transfer counts at its slowdown so far (its elapsed time at the run's end over
    its ideal), which its true one can only exceed: a bin with one has `lower_bound` True, and
    its figures are lower bounds. Leaving it out would flatter the transport that finishes
    fewer (docs/results.md).

    `bins`: a number of bins holding about equal numbers of transfers (HPCC's and Homa's
    reading; one size never splits across two, so a distribution's point mass makes fewer,
    larger bins), cut once from every pair's and seed's transfers of a workload, so that each
    bin is the same sizes for all of them; or the bins' upper edges in bytes (pFabric's
    (0, 100 KB], (100 KB, 10 MB], (10 MB, ∞): `[100e3, 10e6]`; the last bin takes the rest);
    or each workload's edges (`fairsim.transfer_tables.study_edges`)."""
    if "slowdown" not in transfers:
        return pd.DataFrame(columns=SLOWDOWN_COLUMNS)
    read = ("pair", "flow", "bytes", "unfinished", "ideal_fct_s", "slowdown_so_far", "warmup")
    rows = slowdown_table({name: transfers[name].tolist() for name in read if name in transfers}, bins)
    return pd.DataFrame(rows, columns=SLOWDOWN_COLUMNS)


def summary_frame(runs: list[dict]) -> pd.DataFrame:
    """The engine's summary of each run's open-population flows (`Results.transfer_summary`)."""
    return pd.DataFrame([row for r in runs for row in transfer_summary_rows(r)])
