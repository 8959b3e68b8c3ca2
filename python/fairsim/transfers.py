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
    "bytes",
    "sent",
    "retransmitted",
    "delivered",
]
# with a workload: each transfer's hosts, its ideal completion time and its slowdown
WORKLOAD_COLUMNS = ["src", "dst", "fct_s", "ideal_fct_s", "slowdown"]


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
        columns = COLUMNS
        if t.get("src"):
            nodes = t["nodes"]
            df["src"] = [nodes[i] for i in t["src"]]
            df["dst"] = [nodes[i] for i in t["dst"]]
            df["fct_s"] = df["response_s"]
            df["ideal_fct_s"] = pd.array(t["ideal_s"], dtype="Float64").astype(float)
            df["slowdown"] = df["fct_s"] / df["ideal_fct_s"]
            columns = COLUMNS + WORKLOAD_COLUMNS
        frames.append(df[columns])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)


def slowdown_frame(transfers: pd.DataFrame, bins=10) -> pd.DataFrame:
    """Completion-time slowdown by flow size (`Results.slowdown`): the finished transfers of each
    pair and workload cut into size bins, each with its transfers' count, their largest size and
    the p50, p95 and p99 of their slowdown. `bins`: a number of bins holding equal numbers of
    transfers (HPCC's and Homa's reading), or the bins' upper edges in bytes (pFabric's
    (0, 100 KB], (100 KB, 10 MB], (10 MB, ∞): `[100e3, 10e6]`; the last bin takes the rest)."""
    columns = ["pair", "flow", "bin", "count", "max_bytes", "p50", "p95", "p99"]
    if "slowdown" not in transfers:
        return pd.DataFrame(columns=columns)
    done = transfers.dropna(subset=["slowdown"])
    rows = []
    for (pair, flow), group in done.groupby(["pair", "flow"], sort=False):
        sizes = group["bytes"]
        if isinstance(bins, int):
            # ranks, so that equal sizes (a distribution's point masses) never split a cut
            cut = pd.qcut(sizes.rank(method="first"), q=min(bins, len(group)), labels=False)
        else:
            edges = [-1.0, *sorted(float(e) for e in bins), float("inf")]
            cut = pd.cut(sizes, edges, labels=False)
        for b, part in group.groupby(cut, sort=True):
            q = part["slowdown"].quantile([0.5, 0.95, 0.99])
            rows.append([pair, flow, int(b), len(part), int(part["bytes"].max()), *q.tolist()])
    return pd.DataFrame(rows, columns=columns)


def summary_frame(runs: list[dict]) -> pd.DataFrame:
    """The engine's summary of each run's open-population flows (`Results.transfer_summary`)."""
    return pd.DataFrame([row for r in runs for row in transfer_summary_rows(r)])
