"""Transfers of open-population flows (`app = "files"`) and their metrics.

Kim & Farber 1994 §4.1.4 measure an open population of file transfers by:
- the response time R, the mean over transfers of (finish − arrival), where a transfer finishes
  when "the acknowledgement for the last bit of the sent file arrives at the sender";
- the system throughput Θ = Σ|c_k| / T, the bytes of the transfers over the time T they took in
  all (here: from the first measured arrival to the last measured finish);
- the network power P = Θ/R (α = 1), in bytes/s², the paper's main metric;
- Jain's index over the transfers' own throughputs |c_k| / R_k;
- by Little's law, the mean number of transfers outstanding N = λR.

Transfers arriving before the warm-up's end are left out (`since_s`); those not finished when
the run ended are counted as `unfinished`, and R and Θ are then over the finished ones only
(a lower bound on R: the load is past what the network carries).
"""

from __future__ import annotations

import pandas as pd

from fairsim.results import jain_index

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


def transfer_metrics(transfers: pd.DataFrame, since_s: float = 0.0, until_s: float | None = None) -> dict:
    """The metrics of one group of transfers (one run's flow) arriving in [since_s, until_s):
    `arrivals`, `finished`, `unfinished`, `response_s` (R), `elapsed_s` (T), `throughput_Bps`
    (Θ), `power` (P = Θ/R), `jain` (over |c_k|/R_k), `arrival_rate` (λ measured) and
    `outstanding` (N = λR)."""
    t = transfers[transfers["arrival_s"] >= since_s]
    if until_s is not None:
        t = t[t["arrival_s"] < until_s]
    done = t[t["finish_s"].notna()]
    out = {"arrivals": len(t), "finished": len(done), "unfinished": len(t) - len(done)}
    if done.empty:
        nan = float("nan")
        return out | dict.fromkeys(
            ("response_s", "elapsed_s", "throughput_Bps", "power", "jain", "arrival_rate", "outstanding"), nan
        )
    r = float(done["response_s"].mean())
    elapsed = float(done["finish_s"].max() - t["arrival_s"].min())
    theta = float(done["bytes"].sum()) / elapsed
    window = (until_s if until_s is not None else float(t["arrival_s"].max())) - since_s
    rate = len(t) / window if window > 0 else float("nan")
    return out | {
        "response_s": r,
        "elapsed_s": elapsed,
        "throughput_Bps": theta,
        "power": theta / r,
        "jain": jain_index(list(done["bytes"] / done["response_s"])),
        "arrival_rate": rate,
        "outstanding": rate * r,
    }


def transfer_summary(runs: list[dict], until_s: dict[str, float] | None = None) -> pd.DataFrame:
    """`transfer_metrics` per run and open-population flow (`Results.transfer_summary`): the
    transfers arriving after the run's warm-up and, for each flow named in `until_s`, before
    that time (its last arrival, if the run goes on after it)."""
    frame = transfer_frame(runs)
    rows = []
    warmups = {(r["pair"], r["seed"]): r["measurement"]["warmup_s"] for r in runs}
    for (pair, seed, flow), t in frame.groupby(["pair", "seed", "flow"], sort=False):
        until = (until_s or {}).get(flow)
        rows.append({"pair": pair, "seed": seed, "flow": flow, **transfer_metrics(t, warmups[(pair, seed)], until)})
    return pd.DataFrame(rows)
