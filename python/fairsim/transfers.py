"""Transfers of open-population flows (`app = "files"`), as DataFrames: one row per transfer,
and the engine's summary of each run's flow (Kim & Farber 1994 §4.1.4's response time R,
system throughput Θ, network power Θ/R, Jain's index, N = λR; defined in
crates/fairsim/src/stats/transfers.rs and docs/results.md)."""

from __future__ import annotations

import pandas as pd

from fairsim.results import transfer_summary_rows

COLUMNS = ["pair", "seed", "flow", "arrival_s", "finish_s", "response_s", "bytes", "sent", "retransmitted"]


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
            }
        )
        df["response_s"] = df["finish_s"] - df["arrival_s"]
        frames.append(df[COLUMNS])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)


def summary_frame(runs: list[dict]) -> pd.DataFrame:
    """The engine's summary of each run's open-population flows (`Results.transfer_summary`)."""
    return pd.DataFrame([row for r in runs for row in transfer_summary_rows(r)])
