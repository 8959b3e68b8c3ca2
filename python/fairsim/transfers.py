"""Transfers of open-population flows (`app = "files"`, `[workloads]`), as DataFrames: one row
per transfer, the engine's summary of each run's flow (Kim & Farber 1994 §4.1.4's response time
R, system throughput Θ, network power Θ/R, Jain's index, N = λR; defined in
crates/fairsim/src/stats/transfers.rs and docs/results.md), and for workloads each transfer's
completion-time slowdown, by size (docs/results.md, *Completion-time slowdown*)."""

from __future__ import annotations

import pandas as pd

from fairsim.results import transfer_summary_rows

COLUMNS = [
    "pair",
    "seed",
    "flow",
    "arrival_s",
    "finish_s",
    "response_s",
    "unfinished",
    "bytes",
    "sent",
    "retransmitted",
    "delivered",
]
# with a workload: each transfer's hosts, its ideal completion time and its slowdown, and the
# slowdown it has reached so far: its own if it finished, else its elapsed time over its ideal
# and at least 1 (a lower bound of what it would have been)
WORKLOAD_COLUMNS = ["src", "dst", "fct_s", "ideal_fct_s", "slowdown", "slowdown_so_far"]


def transfer_frame(runs: list[dict]) -> pd.DataFrame:
    """One row per transfer of every run (`Results.transfers`)."""
    frames = []
    for r in runs:
        t = r.get("transfers")
        if not t or not t["flow"]:
            continue
        names = [f["name"] for f in r["flows"]]
        df = pd.DataFrame(
            {
                "pair": r["pair"],
                "seed": r["seed"],
                "flow": [names[i] for i in t["flow"]],
                "arrival_s": t["arrival_s"],
                "finish_s": pd.array(t["finish_s"], dtype="Float64").astype(float),
                "bytes": t["bytes"],
                "sent": t["sent"],
                "retransmitted": t["retransmitted"],
                "delivered": t["delivered"],
            }
        )
        df["response_s"] = df["finish_s"] - df["arrival_s"]
        df["unfinished"] = df["finish_s"].isna()
        columns = COLUMNS
        if t.get("src"):
            nodes = t["nodes"]
            df["src"] = [nodes[i] for i in t["src"]]
            df["dst"] = [nodes[i] for i in t["dst"]]
            df["fct_s"] = df["response_s"]
            df["ideal_fct_s"] = pd.array(t["ideal_s"], dtype="Float64").astype(float)
            df["slowdown"] = df["fct_s"] / df["ideal_fct_s"]
            # an unfinished transfer has taken at least until the run's end (its stop, if cut
            # short), and at least its ideal: its slowdown is at least the larger of the two
            elapsed = (r["simulated_s"] - df["arrival_s"]) / df["ideal_fct_s"]
            df["slowdown_so_far"] = df["slowdown"].fillna(elapsed.clip(lower=1.0))
            columns = COLUMNS + WORKLOAD_COLUMNS
        frames.append(df[columns])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)


#: The slowdown table's percentiles: p99.9 is what data-centre papers report beside the others.
PERCENTILES = {"p50": 0.5, "p95": 0.95, "p99": 0.99, "p999": 0.999}

SLOWDOWN_COLUMNS = [
    "pair",
    "flow",
    "bin",
    "count",
    "unfinished",
    "max_bytes",
    *PERCENTILES,
    "mean_fct_s",
    "lower_bound",
]


def slowdown_frame(transfers: pd.DataFrame, bins=10) -> pd.DataFrame:
    """Completion-time slowdown by flow size (`Results.slowdown`): every transfer of each pair
    and workload, finished or not, cut into size bins, each with its count, how many did not
    finish, its largest size, the p50, p95, p99 and p99.9 of its slowdown and its mean FCT.

    An unfinished transfer counts at its slowdown so far (its elapsed time at the run's end over
    its ideal), which its true one can only exceed: a bin with one has `lower_bound` True, and
    its figures are lower bounds. Leaving it out would flatter the transport that finishes
    fewer (docs/results.md).

    `bins`: a number of bins holding about equal numbers of transfers (HPCC's and Homa's
    reading; one size never splits across two, so a distribution's point mass makes fewer,
    larger bins), or the bins' upper edges in bytes (pFabric's (0, 100 KB], (100 KB, 10 MB],
    (10 MB, ∞): `[100e3, 10e6]`; the last bin takes the rest)."""
    if "slowdown" not in transfers:
        return pd.DataFrame(columns=SLOWDOWN_COLUMNS)
    # a transfer without end (a batch with no size) has no ideal, so no completion time to compare
    sized = transfers.dropna(subset=["ideal_fct_s"])
    rows = []
    for (pair, flow), group in sized.groupby(["pair", "flow"], sort=False):
        for b, part in group.groupby(_size_bins(group["bytes"], bins), sort=True):
            unfinished = int(part["unfinished"].sum())
            q = part["slowdown_so_far"].quantile(list(PERCENTILES.values()))
            fct = part["slowdown_so_far"] * part["ideal_fct_s"]
            row = [pair, flow, int(b), len(part), unfinished, int(part["bytes"].max()), *q.tolist()]
            rows.append([*row, fct.mean(), unfinished > 0])
    return pd.DataFrame(rows, columns=SLOWDOWN_COLUMNS)


def _size_bins(sizes: pd.Series, bins) -> pd.Series:
    """Each transfer's bin (0, 1, ...) by its size: `bins` equal-count bins, whose edges fall
    between sizes so that equal sizes share one, or bins with the given upper edges."""
    if isinstance(bins, int):
        # edges at the sizes' quantiles: equal sizes take one bin, and edges that coincide merge
        # (a single size is one bin)
        q = min(bins, len(sizes))
        edges = sizes.quantile([i / q for i in range(q + 1)]).drop_duplicates().tolist()
        if len(edges) < 2:
            return pd.Series(0, index=sizes.index)
        return pd.cut(sizes, edges, labels=False, include_lowest=True).astype(int)
    edges = [-1.0, *sorted(float(e) for e in bins), float("inf")]
    return pd.cut(sizes, edges, labels=False)


def summary_frame(runs: list[dict]) -> pd.DataFrame:
    """The engine's summary of each run's open-population flows (`Results.transfer_summary`)."""
    return pd.DataFrame([row for r in runs for row in transfer_summary_rows(r)])
