"""The pairs added beside the paper's (`fairsim reproduce --pair NAME=TABLE`) in the report.

They are not the paper's, so they get no grade and no verdict, and everything that shows them
says so: each published table gains a row per added pair (the same quantities and flows, marked
"added, not in the paper"), each experiment a table of every flow's goodput under every pair,
and an added pair that failed in an experiment has its message there instead of numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fairsim.reproduce.measure import Estimate, Measurements
from fairsim.reproduce.model import Experiment, Outcome
from fairsim.reproduce.published import Key, Table

#: How a report marks a row or column of an added pair.
ADDED_NOTE = "added, not in the paper"
#: The note under a published table that has rows of added pairs.
ADDED_ROWS_NOTE = (
    f"Rows marked \u201c{ADDED_NOTE}\u201d are pairs given with `fairsim reproduce --pair`: our "
    "values of the table's quantities under them, not graded, since the paper has no numbers for them."
)
#: The note under an experiment's goodput table under every pair.
GOODPUT_CAPTION = (
    "Each flow's goodput in packets per second (mean ±std over the measurement intervals of "
    "every replication) under the paper's pairs and the pairs added to them with `fairsim "
    f"reproduce --pair` (marked \u201c{ADDED_NOTE}\u201d); no claim or published cell is about "
    "the added ones."
)
#: The caption of the goodput table's figure.
GOODPUT_FIGURE_CAPTION = (
    "The goodput table above, drawn: a bar per pair, the pairs added to the paper's hatched and "
    "named \u201c(added)\u201d."
)
#: The metric of the goodput table: packets delivered per second, per interval.
GOODPUT = "throughput"


@dataclass(frozen=True)
class AddedValue:
    """One of our values in a row or column of the report that shows an added pair."""

    #: The label of its column: the published table's, or the pair in the goodput table.
    column: str
    key: Key
    ours: Estimate | None
    #: Whether its pair is an added one (the goodput table has the paper's pairs too).
    added: bool


@dataclass(frozen=True)
class AddedRow:
    label: str
    values: list[AddedValue]


@dataclass(frozen=True)
class GoodputTable:
    """Every flow's goodput under every pair that ran in an experiment: a row per flow (per
    sweep point and flow in a sweep), a column per pair."""

    id: str
    title: str
    pairs: list[str]
    #: The pairs of `pairs` that were added to the paper's.
    added: list[str]
    rows: list[AddedRow]


def rows_of_added(table: Table, m: Measurements, names: list[str]) -> list[AddedRow]:
    """The rows of each added pair (`names`) under a published table: the paper's rows with
    their pair replaced by the added one, each distinct row once (a table with a row per pair
    gives one row; the 1989 paper's Scenario 4, a row per quantity and pair, one per quantity)."""
    return [row for name in names for row in _rows_of(table, m, name)]


def _rows_of(table: Table, m: Measurements, name: str) -> list[AddedRow]:
    distinct: dict[tuple[Key, ...], str] = {}
    for label, row in zip(table.row_labels, table.cells, strict=True):
        keys = tuple(Key(name, k.flow, k.metric) for k, _ in row)
        distinct.setdefault(keys, _without_pair(label, row[0][0].pair))
    several = len(distinct) > 1
    return [
        AddedRow(
            f"{name} \u00b7 {quantity}" if several else name,
            [
                AddedValue(column, k, m.estimate(k.pair, k.flow, k.metric, table.interval), True)
                for column, k in zip(table.column_labels, keys, strict=True)
            ],
        )
        for keys, quantity in distinct.items()
    ]


def _without_pair(label: str, pair: str) -> str:
    """A row's label without its pair's name (`Throughput (packets), FQ` gives `Throughput
    (packets)`): what the added pair's row of the same quantity is called after its own name."""
    name = re.escape(pair)
    rest = re.sub(rf"(^|[\s,;:(]){name}(?=$|[\s,;:)])", r"\1", label).strip(" ,;:\u00b7")
    return rest or label


def goodput_table(exp: Experiment, outcome: Outcome) -> GoodputTable | None:
    """The experiment's goodput under every pair that ran; None when it did not run, or no
    added pair ran in it."""
    points = _points(exp, outcome)
    if not points:
        return None
    pairs = list(dict.fromkeys(p for _, m in points for p in m.pairs))
    # not by name alone: a pair refused for having the name of one of the paper's is the paper's
    added = [a.name for a in outcome.added if a.name in pairs and exp.id not in a.failures]
    if not added:  # every added pair failed here: the message says so, and the paper's pairs need no table
        return None
    rows = [
        AddedRow(
            flow if x is None else f"{exp.sweep.name} = {x:g} \u00b7 {flow}",
            [AddedValue(p, Key(p, flow, GOODPUT), m.estimate(p, flow, GOODPUT), p in added) for p in pairs],
        )
        for x, m in points
        for flow in m.flows()
    ]
    title = f"{exp.id}: the pairs added beside the paper's"
    return GoodputTable(f"{exp.id}-added", title, pairs, added, rows)


def _points(exp: Experiment, outcome: Outcome) -> list[tuple[float | None, Measurements]]:
    """The experiment's measurements, with the sweep's value of each (None without a sweep)."""
    if exp.id in outcome.measurements:
        return [(None, outcome.measurements[exp.id])]
    return list(outcome.sweeps.get(exp.id, []))


def column_label(pair: str, added: list[str]) -> str:
    return f"{pair} ({ADDED_NOTE})" if pair in added else pair


def summary_line(outcome: Outcome) -> str:
    """Where each added pair ran, in one line for the report's summary."""
    each = [
        f"{a.name} failed in {', '.join(a.failures)} (the message is in that section)"
        if a.failures
        else f"{a.name} ran in every experiment"
        for a in outcome.added
    ]
    return "; ".join(each) + ". They are not the paper's: no claim or published cell is about them."


def failures(exp: Experiment, outcome: Outcome) -> list[tuple[str, str]]:
    """(pair, message) of each added pair that has no numbers in the experiment."""
    return [(a.name, a.failures[exp.id]) for a in outcome.added if exp.id in a.failures]
