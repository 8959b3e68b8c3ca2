"""`SweepResults.aggregate` and `plot` of the `slowdown` table: one completion-time figure by size
bin over seeds, pooled from the recorded transfers (`fairsim.sweeps.pooled`).

Without recorded transfers there are only each run's own slowdown rows, whose equal-count bins
are other sizes in every seed (642 KB, 327 KB and 142 KB for one bin of three seeds of the
web-search example), so a mean over seeds of their percentiles mixes unlike bins. Those rows
are averaged only where every run has the same bins (a single size, say); otherwise the
aggregate is refused, saying to record the transfers.
"""

from __future__ import annotations

import math

import pandas as pd

from fairsim import _core
from fairsim.sweeps.pooled import FIGURES

#: What refusing says.
RECORD_TRANSFERS = (
    "sweep again with --record transfers (tables=['transfers'] in Python; runs without them run again), "
    "and the percentiles are pooled over seeds from every transfer in bins fixed for the study"
)


def pooled(results, metric: str, keys: list[str], bins) -> pd.DataFrame:
    """One figure of `SweepResults.completion_times` per value of `keys`, workload and bin: the
    pooled `value`, its 95% bootstrap interval (`low`, `high`), the seeds (`n`), the
    transfers, and `size_bin` naming the bin's sizes (`≤ 19.0 kB`)."""
    table = results.completion_times(bins, by=keys)
    keys = [*dict.fromkeys([*keys, "pair"])]
    out = table[[*keys, "flow", "bin", "up_to_bytes", "max_bytes", "lower_bound"]].copy()
    out["size_bin"] = size_labels(table)
    return out.assign(
        value=table[metric],
        low=table[f"{metric}_low"],
        high=table[f"{metric}_high"],
        n=table["seeds"],
        transfers=table["count"],
    )


def size_labels(table: pd.DataFrame) -> list[str]:
    """Each bin's sizes as a reader names them: `≤ 19.0 kB`, or `> 5.46 MB` for the last, above
    its workload's last edge in `table` (`all sizes` where it is the only bin)."""
    from fairsim.table_parts import Stat, size

    finite = table["up_to_bytes"].where(table["up_to_bytes"] < math.inf)
    last = finite.groupby(table["flow"]).transform("max")  # the last bin starts above it

    def label(up: float, below: float) -> str:
        if math.isfinite(up):
            return f"≤ {size(Stat(up))}"
        return f"> {size(Stat(below))}" if below == below else "all sizes"

    return [label(up, below) for up, below in zip(table["up_to_bytes"], last, strict=True)]


def check_metric(metric: str) -> None:
    if metric not in FIGURES:
        hint = _core.did_you_mean(metric, list(FIGURES))
        raise _core.FairsimError(
            f"no figure `{metric}` of the slowdown by size{hint} (one of {', '.join(FIGURES)})"
        )


def per_run_rows(results, keys: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """The recorded per-run slowdown rows and the keys to average them over seeds by (`keys`,
    the workload and the bin), where every run has the same bins; refused otherwise."""
    table = results.slowdown
    if table.empty:
        raise _core.FairsimError(
            "the sweep has no transfers and no slowdown rows (no run finished, or neither recorded): "
            + RECORD_TRANSFERS
        )
    edges = table.groupby(["flow", "bin"])["up_to_bytes"].nunique() if "up_to_bytes" in table else None
    if edges is None or (edges > 1).any():
        raise _core.FairsimError(
            "the slowdown rows of different runs are in different size bins (each run cut its own "
            "equal-count bins), so their percentiles cannot be averaged over seeds: " + RECORD_TRANSFERS
        )
    return table, [*dict.fromkeys([*keys, "flow", "bin"])]
