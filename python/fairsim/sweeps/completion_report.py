"""What `fairsim sweep` prints at its end for a workload of sized transfers: the completion-time
slowdown by size at each point and pair, pooled over seeds from the recorded transfers
(`SweepResults.completion_times`), in bins fixed for the study, each percentile with its 95%
bootstrap interval over seeds.

A workload is one flow of many transfers, so the overview's Jain's index over flows (1.000 for
one flow) and total goodput say nothing of what a data-centre study reads; `fairsim run` shows
the completion-time table first for the same reason (`fairsim.workload_tables`).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from fairsim.table_parts import NA, Stat, bare_table, duration

#: The percentiles shown, as headed.
SHOWN = {"p50": "p50 slowdown", "p99": "p99", "p999": "p99.9"}


def sized_workloads(plan) -> list[str]:
    """The workloads of the sweep's scenario whose transfers have sizes (`size`, `sizes`, or a
    connection matrix): those with completion times."""
    names: dict[str, None] = {}
    for pair in plan.pairs:
        for name, w in (plan.scenario.resolved(pair).get("workloads") or {}).items():
            if "size" in w or "sizes" in w or w.get("pattern") == "matrix":
                names[name] = None
    return list(names)


def figure(row, name: str) -> str:
    """A pooled percentile with its interval, `4.12 (3.80–4.51)`; `≥` before a lower bound, a
    dash where the bin has too few transfers for it."""
    value = row[name]
    if value != value:
        return NA
    bound = "≥ " if row["lower_bound"] else ""
    low, high = row[f"{name}_low"], row[f"{name}_high"]
    spread = f" ({low:.2f}–{high:.2f})" if low == low else ""
    return f"{bound}{value:.2f}{spread}"


def completion_parts(results, keys: list[str], shown: Callable[[dict], list[str]], most_rows: int) -> list:
    """The pooled table (a row per point, pair, workload and size bin; at most `most_rows`) and
    what its figures mean. `shown(row)`: the row's axis values and pair as written."""
    from fairsim.sweeps.by_size import size_labels
    from fairsim.workload_tables import SUPPORT_NOTE

    table_rows = results.completion_times(10)
    several = table_rows["flow"].nunique() > 1
    columns = [*keys, *(["workload"] if several else []), "size", "transfers", "seeds", "unfinished"]
    table = bare_table([*columns, *SHOWN.values(), "mean FCT"], left=0)
    labels = size_labels(table_rows)
    for i, (_, row) in enumerate(table_rows.iterrows()):
        if i == most_rows:
            table.add_row(*["…"] + [""] * (len(columns) + len(SHOWN)))
            break
        bound = "≥ " if row["lower_bound"] else ""
        table.add_row(
            *shown(row),
            *([str(row["flow"])] if several else []),
            labels[i],
            f"{row['count']:,}",
            str(row["seeds"]),
            f"{row['unfinished']:,}",
            *(figure(row, name) for name in SHOWN),
            bound + duration(Stat(row["mean_fct_s"])),
        )
    note = (
        "slowdown: completion time over its ideal alone on the network, of every seed's transfers after "
        "the warm-up together; size bins cut once for the whole study; (low–high): 95% interval from "
        "resampling whole seeds; ≥: counts unfinished transfers at their elapsed time, a lower bound"
    )
    more = ""
    if len(table_rows) > most_rows:
        more = f"; all {len(table_rows):,} rows: open_sweep(...).completion_times()"
    heading = Text("completion-time slowdown by size, pooled over seeds", style="bold")
    return [heading, table, Text(note + more, style="dim"), Text(SUPPORT_NOTE.format(dash=NA), style="dim")]


def unrecorded_note(names: list[str]) -> Text:
    """What the summary says of a workload whose transfers were not recorded."""
    which = ", ".join(names)
    return Text(
        f"workload {which}: completion times pooled over seeds need each transfer: "
        "sweep again with --record transfers (the runs run again to record them)",
        style="bold yellow",
    )
