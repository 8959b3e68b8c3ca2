"""What `fairsim run` shows first for a data-centre run (a `[workloads]` table): the transfers'
completion times by size (or, for files without end, how much of their lines they got), and the
queues summed by tier, not a row per flow and per port.

A workload is one flow of many transfers, so its goodput, its share of a fair share and Jain's
index over it say nothing a data-centre reader asks; the completion-time table counts every
transfer (an unfinished one at its elapsed time so far, a lower bound: docs/results.md). A
generated fabric has hundreds of ports; their tiers (`tor->agg`, the port's name without its
numbers) sum them, and `--queues all` shows every port.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rich.text import Text

from fairsim import _core
from fairsim.columns import column, each
from fairsim.slowdown_rules import fewest
from fairsim.table_parts import LOST_COLUMNS, NA, Stat, bare_table, duration, plural, rate, size
from fairsim.transfer_tables import PERCENTILES, slowdown_table, study_edges, workload_columns

#: The size bins of the first screen's table: ten of about equal counts, as HPCC and Homa read them.
BINS = 10


def _workloads(runs: list[dict], sized: bool) -> set[str]:
    """The workloads, by flow name, with a transfer of a size (an ideal completion time) if
    `sized`, else with a file without end."""
    names = set()
    for r in runs:
        t = r.get("transfers") or {}
        if t.get("src"):
            flows = (
                f for f, ideal in zip(t["flow"], t["ideal_s"], strict=True) if (ideal is not None) == sized
            )
            names |= {r["flows"][f]["name"] for f in flows}
    return names


def workload_flows(runs: list[dict]) -> set[str]:
    """The workloads whose transfers have a size (an ideal completion time), by flow name: their
    first screen shows completion times."""
    return _workloads(runs, sized=True)


def endless_flows(runs: list[dict]) -> set[str]:
    """The workloads whose transfers are files without end (a permutation's, say), by flow name:
    they have no completion time, and show their goodput against their lines instead."""
    return _workloads(runs, sized=False) - workload_flows(runs)


def endless_parts(runs: list[dict], names: set[str]) -> list:
    """For each workload of files without end: its transfers, their goodput in all and as a
    share of their senders' lines (a permutation's share of the bisection), Jain's index over
    them, the slowest and the median (means over the runs)."""
    import statistics

    table = bare_table(
        ["workload", "transfers", "goodput", "of their lines", "Jain", "slowest", "median"], left=1
    )
    for name in sorted(names):
        figures = []
        for r in runs:
            i = next(i for i, f in enumerate(r["flows"]) if f["name"] == name)
            flow, t = r["flows"][i], r["transfers"]
            bits = flow["packet_size"] * 8 / r["duration_s"]
            rates = [d * bits for f, d in zip(t["flow"], t["delivered"], strict=True) if f == i]
            total = sum(rates)
            jain = _core.jain(rates)  # the engine's index: None for no rates or all zero
            figures.append(
                (
                    len(rates),
                    total,
                    total / (len(rates) * flow["access_bps"]),
                    jain,
                    min(rates),
                    statistics.median(rates),
                )
            )
        mean = [
            statistics.fmean(column) if None not in column else None for column in zip(*figures, strict=True)
        ]
        count, total, share, jain, slowest, median = mean
        table.add_row(
            name,
            f"{count:,.0f}",
            rate(total),
            f"{share:.1%}",
            f"{jain:.3f}" if jain is not None else NA,
            rate(slowest),
            rate(median),
        )
    note = "files without end: each transfer's data received once over the run, against its sender's line"
    return [table, Text(note, style="dim"), *window_notes(runs)]


def window_notes(runs: list[dict]) -> list:
    """A warning when some transfers' transports have a largest window below their own path's
    bandwidth-delay product (`window_bdp` < 1: NDP's initial window, HPCC's B·T, TCP's
    receiver window): those cannot fill their path even alone, whatever the load."""
    # every transfer, the warm-up's too: it is a property of its path and transport, not of when
    ratios = [x for r in runs for x in (r.get("transfers") or {}).get("window_bdp") or [] if x is not None]
    short = [x for x in ratios if x < 1]
    if not short:
        return []
    note = (
        f"{len(short):,} of {len(ratios):,} transfers are window-limited: their transport's largest window "
        f"is {min(short):.0%}–{max(short):.0%} of their path's bandwidth-delay product, so they cannot fill "
        "their path even alone (raise NDP's initial_window, HPCC's base_rtt or TCP's window)"
    )
    return [Text(note, style="yellow")]


def is_workload_run(runs: list[dict]) -> bool:
    """Whether the runs carry a workload's transfers of a size: their first screen and JSON
    show completion times."""
    return bool(workload_flows(runs))


def completion_edges(runs: list[dict]) -> dict[str, list[float]]:
    """Each workload's size-bin edges for the tables of `runs`: ten equal-count bins cut once from
    the transfers of every pair and seed, so that every pair's table, and every run's with
    `--per-seed`, has the same bins."""
    return study_edges(workload_columns(runs), BINS)


def completion_table(runs: list[dict], edges: dict[str, list[float]] | None = None) -> list[dict]:
    """The completion-time table of runs of one pair: `Results.slowdown(10)`'s rows over all
    their transfers (seeds pooled), made without pandas (`fairsim.transfer_tables`), in the bins
    of `edges` (`completion_edges`; default: those of these runs)."""
    return slowdown_table(workload_columns(runs), edges if edges is not None else completion_edges(runs))


def completion_rows(runs: list[dict]) -> list[dict]:
    """The completion-time table of every pair, as the JSON document carries it (null for NaN,
    and for the last bin's unbounded upper edge)."""
    edges = completion_edges(runs)
    rows = []
    for pair in dict.fromkeys(r["pair"] for r in runs):
        table = completion_table([r for r in runs if r["pair"] == pair], edges)
        rows += [{k: _json_number(v) for k, v in row.items()} for row in table]
    return rows


def _json_number(v):
    """`v`, or None for NaN and infinities (JSON has neither)."""
    return None if isinstance(v, float) and not math.isfinite(v) else v


#: What a percentile's dash means under the table.
SUPPORT_NOTE = (
    "{dash}: too few transfers in the bin for the percentile (Wilks' rule at 95%: "
    + ", ".join(f"{name.replace('p999', 'p99.9')} needs {fewest(q):,}" for name, q in PERCENTILES.items())
    + ")"
)


def completion_parts(runs: list[dict], edges: dict[str, list[float]] | None = None) -> list:
    """The completion-time table, and what its figures mean."""
    rows = completion_table(runs, edges)
    several = len({row["flow"] for row in rows}) > 1
    columns = [*(["workload"] if several else []), "size up to", "transfers", "unfinished"]
    table = bare_table([*columns, "p50 slowdown", "p99", "p99.9", "mean FCT"], left=len(columns) - 2)
    for row in rows:
        bound = "≥ " if row["lower_bound"] else ""
        table.add_row(
            *([row["flow"]] if several else []),
            size(Stat(row["up_to_bytes"] if math.isfinite(row["up_to_bytes"]) else row["max_bytes"])),
            f"{row['count']:,}",
            f"{row['unfinished']:,}",
            *(NA if row[p] != row[p] else f"{bound}{row[p]:.2f}" for p in ("p50", "p99", "p999")),
            bound + duration(Stat(row["mean_fct_s"])),
        )
    unfinished = sum(row["unfinished"] for row in rows)
    total = sum(row["count"] for row in rows)
    warmup = runs[0]["measurement"]["warmup_s"]
    after = f" arriving after the {duration(Stat(warmup))} warm-up" if warmup > 0 else ""
    counted = f"{plural(total, 'transfer')}{after}"
    note = f"slowdown: completion time over its ideal alone on the network; {counted}" + (
        f", {unfinished:,} unfinished at the run's end, counted at their elapsed time (≥: a lower bound)"
        if unfinished
        else ", all finished"
    )
    support = Text(SUPPORT_NOTE.format(dash=NA), style="dim")
    return [table, Text(note, style="dim"), support, *window_notes(runs)]


def tier(port: str) -> str:
    """A port's tier: its name without numbers (`tor3->agg1` is in `tor->agg`)."""
    return re.sub(r"\d+", "", port)


@dataclass
class Tier:
    """A tier's queues so far: their ports, utilisations, summed counters and longest queue."""

    ports: set
    utilisation: list
    sums: dict
    longest: int


def tier_parts(runs: list[dict]) -> list:
    """The queues summed by tier: ports, mean and largest utilisation, drops (and losses on the
    line or to failed links, where there are any), marks, the longest queue (over every run of
    the pair)."""
    # each queue's port and utilisation, read column by column (`fairsim.columns`); its totals
    # one at a time into their tier's sums, not held (a dict each, 393,216 of them at k = 64),
    # in one pass: the loss columns shown are those some tier's sum has (counts, so a sum is
    # nonzero where some queue's count is, as `lost_columns` asks)
    keys = ["drops", *(key for key, _ in LOST_COLUMNS), "marks"]
    by_tier: dict[str, Tier] = {}
    for r in runs:
        queues = r["queues"]
        read = (column(queues, "port"), each(queues, "utilisation"), each(queues, "totals"))
        for port, utilisation, totals in zip(*read, strict=True):
            name = tier(port)
            if name not in by_tier:
                by_tier[name] = Tier(set(), [], dict.fromkeys(keys, 0), 0)
            t = by_tier[name]
            t.ports.add(port)
            t.utilisation.append((utilisation or {}).get("mean", 0.0))
            for key in keys:
                t.sums[key] += totals.get(key, 0)
            t.longest = max(t.longest, totals["max_occupancy"])
    lost = [(key, col) for key, col in LOST_COLUMNS if any(t.sums[key] for t in by_tier.values())]
    shown = ["drops", *(key for key, _ in lost), "marks"]
    columns = [
        "tier",
        "ports",
        "utilisation mean",
        "max",
        "drops",
        *(col for _, col in lost),
        "marks",
        "longest queue",
    ]
    table = bare_table(columns, left=1)
    for name, t in by_tier.items():
        table.add_row(
            name,
            f"{len(t.ports):,}",
            f"{sum(t.utilisation) / len(t.utilisation):.1%}",
            f"{max(t.utilisation):.1%}",
            *(f"{t.sums[key]:,}" for key in shown),
            f"{t.longest:,} pkts",
        )
    over = "" if len(runs) == 1 else f", summed over {plural(len(runs), 'run')}"
    note = f"queues by tier (a port's name without its numbers){over}; --queues all shows every port"
    return [table, Text(note, style="dim")]
