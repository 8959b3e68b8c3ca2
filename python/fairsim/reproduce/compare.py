"""Every published cell beside our value, graded close / near / far (docs/reproductions.md)."""

from __future__ import annotations

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
}


@dataclass(frozen=True)
class Comparison:
    experiment: str
    table: str
    row: str
    column: str
    key: Key
    paper: Cell
    ours: Estimate | None

    @property
    def difference(self) -> float | None:
        if self.paper.value is None or self.ours is None:
            return None
        return self.ours.mean - self.paper.value

    @property
    def grade(self) -> str:
        """`close`, `near`, `far`, or `ungraded` (blank or unreadable in the paper)."""
        if self.paper.value is None:
            return "ungraded"
        if self.ours is None:
            # the paper has a number and we measured nothing (e.g. no RTT sample): a zero
            # throughput has no delay, so only a zero in the paper agrees
            return "close" if self.paper.value == 0 else "far"
        diff = abs(self.ours.mean - self.paper.value)
        slack = SLACK.get(self.key.metric, 0.0)
        scale = abs(self.paper.value)
        if diff <= max(CLOSE * scale, slack):
            return "close"
        if diff <= max(NEAR * scale, 2 * slack):
            return "near"
        return "far"


def compare_table(experiment: str, table: Table, m: Measurements | None) -> list[list[Comparison]]:
    """The table's cells, row by row, each beside our estimate (`None` if not measured)."""
    out = []
    for row_label, row in zip(table.row_labels, table.cells, strict=True):
        out.append(
            [
                Comparison(
                    experiment=experiment,
                    table=table.id,
                    row=row_label,
                    column=col_label,
                    key=key,
                    paper=cell,
                    ours=m.estimate(key.pair, key.flow, key.metric, table.interval) if m else None,
                )
                for col_label, (key, cell) in zip(table.column_labels, row, strict=True)
            ]
        )
    return out
