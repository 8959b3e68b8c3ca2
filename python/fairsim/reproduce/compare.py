"""Every published cell beside our value, graded close / near / far (docs/reproductions.md)."""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass

from fairsim.reproduce.measure import Estimate, Measurements
from fairsim.reproduce.published import Cell, Key, Table

#: Relative tolerances of the grades.
CLOSE, NEAR = 0.10, 0.25
#: Absolute slack per metric, so that tiny values are not graded as far apart.
SLACK = {
    "packets": 20.0,
    "packets_unique": 20.0,
    "rtt": 0.05,
    "delay": 0.05,
    "retransmissions": 10.0,
    "drops": 10.0,
    "throughput": 0.1,
    "drop_rate": 0.02,
    "retx_rate": 0.02,
    "mbps": 0.05,
    "transfer_time": 10.0,
    # printed to one decimal: ±0.05 of rounding
    "log10_power": 0.05,
}
#: Metrics that are base-10 logarithms (blt94's log10 P_m): graded by the relative difference of
#: the quantity they are the logarithm of, 10% (0.041 decades) close and 25% (0.097) near, each
#: with the metric's slack (twice for near).
LOG10 = frozenset({"log10_power"})


@dataclass(frozen=True)
class Comparison:
    experiment: str
    table: str
    row: str
    column: str
    key: Key
    paper: Cell
    ours: Estimate | None
    #: Compared with our value of the same rank among its row's ranked flows, not its own flow's.
    ranked: bool = False

    @property
    def difference(self) -> float | None:
        if self.paper.value is None or self.ours is None:
            return None
        return self.ours.mean - self.paper.value

    @property
    def grade(self) -> str:
        """`close`, `near`, `far`, or `ungraded` (blank or unreadable in the paper, or not
        printed in it: derived or recalled by the notes, marked ‡)."""
        if self.paper.value is None or self.paper.unprinted:
            return "ungraded"
        if self.ours is None:
            # the paper has a number and we measured nothing (e.g. no RTT sample): a zero
            # throughput has no delay, so only a zero in the paper agrees
            return "close" if self.paper.value == 0 else "far"
        diff = abs(self.ours.mean - self.paper.value)
        slack = SLACK.get(self.key.metric, 0.0)
        if self.key.metric in LOG10:
            # the relative grades of the quantity itself, in decades, beside the print's rounding
            close, near = math.log10(1 + CLOSE) + slack, math.log10(1 + NEAR) + 2 * slack
            return "close" if diff <= close else "near" if diff <= near else "far"
        scale = abs(self.paper.value)
        if diff <= max(CLOSE * scale, slack):
            return "close"
        if diff <= max(NEAR * scale, 2 * slack):
            return "near"
        return "far"


def compare_table(experiment: str, table: Table, m: Measurements | None) -> list[list[Comparison]]:
    """The table's cells, row by row, each beside our estimate (`None` if not measured)."""
    ours_rows = []
    ranked = table.ranked or [None] * len(table.cells)
    for row, rank in zip(table.cells, ranked, strict=True):
        ours = [m.estimate(k.pair, k.flow, k.metric, table.interval) if m else None for k, _ in row]
        if rank is not None and m is not None:
            ours = _by_rank(row, ours, rank, m, table.interval)
        ours_rows.append(ours)
    return compare_rows(experiment, table, ours_rows)


def compare_rows(
    experiment: str, table: Table, ours_rows: list[list[Estimate | None]]
) -> list[list[Comparison]]:
    """The table's cells, row by row, each beside the estimate of the same place in `ours_rows`."""
    out = []
    ranked = table.ranked or [None] * len(table.cells)
    for row_label, row, rank, ours in zip(table.row_labels, table.cells, ranked, ours_rows, strict=True):
        out.append(
            [
                Comparison(
                    experiment=experiment,
                    table=table.id,
                    row=row_label,
                    column=col_label,
                    key=key,
                    paper=cell,
                    ours=estimate,
                    ranked=rank is not None and fnmatch.fnmatchcase(key.flow, rank),
                )
                for col_label, (key, cell), estimate in zip(table.column_labels, row, ours, strict=True)
            ]
        )
    return out


def _by_rank(row, ours: list, rank: str, m: Measurements, interval) -> list:
    """Where the paper's winners are an accident of phase (which sources segregate changes from
    run to run), its k-th largest value is compared with our k-th largest of the same run,
    averaged over runs: the cells of `rank`'s flows get our estimates in the order of the
    paper's values."""
    cols = [j for j, (k, c) in enumerate(row) if fnmatch.fnmatchcase(k.flow, rank) and c.value is not None]
    if not cols:
        return ours
    per_run = []
    for rep in m.replications():
        values = [rep.value(row[j][0].pair, row[j][0].flow, row[j][0].metric, interval) for j in cols]
        per_run.append(sorted((v for v in values if v == v), reverse=True))  # NaN: not measured
    by_paper = sorted(cols, key=lambda j: -row[j][1].value)
    out = list(ours)
    for k, j in enumerate(by_paper):
        out[j] = Estimate.of([[run[k]] for run in per_run if len(run) > k])
    return out
