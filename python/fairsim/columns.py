"""A run report's long tables held as the engine's Arrow columns and read as the JSON report's rows.

The engine hands a finished run's `flows`, `queues`, `flow_intervals` and `queue_intervals` to
Python as Arrow record batches (crates/fairsim-py/src/arrow_report.rs): numbers, words and flags
as typed columns; nested values as record columns (Arrow's structs, read back as dicts) where
each row has its own (a flow's summaries and counters), otherwise as their JSON text, each
distinct text held once (a discipline's parameters, idle ports' zero counters). A dictionary per
row cost about a kilobyte more than that: a gigabyte for a k = 64 fat-tree's 393,216 queues
(docs/performance.md, "The report as columns").

`Rows` is the table as a sequence of rows, each a new dict equal to the JSON report's row, made
as it is read (a block of rows at a time), so reading a table once holds one block of dicts at a
time. A short table (fewer than `COLUMNS_FROM` rows) crosses as the JSON text of its rows instead
(`JsonRows`), decoded when first read. Everything that reads a report's rows reads them
unchanged; `plain` turns a report back into plain lists for writing it as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

#: Rows made at once: enough that Arrow's per-call cost is spread, few enough to stay small.
BLOCK = 4096

#: A dictionary-encoded column of at most this many distinct values has them decoded once and
#: kept (a discipline's parameters, idle ports' zero counters). One of more (a flow's counters
#: and summaries: a text per row) has only the values of the block being read decoded: kept
#: whole, they were a dict per row for as long as the table lived, 400 MB of the printed tables
#: at 100,000 flows (docs/performance.md, "Memory at 100,000 flows").
SHARED_UP_TO = 4096

#: A table of fewer rows crosses as its JSON text (`JsonRows`): it costs a few megabytes at most
#: as dicts, and a small run then needs neither pyarrow nor numpy, whose imports would double a
#: small command's start-up (tests/test_startup.py). The tests set it to 0 to read every table as
#: columns.
COLUMNS_FROM = 5_000


class Rows(Sequence):
    """A report table's rows, read from its Arrow record batch (`Rows(batch)`)."""

    def __init__(self, batch) -> None:
        self.batch = batch
        #: The values of each dictionary-encoded column of `SHARED_UP_TO` or fewer, decoded once:
        #: by column name, a list of (value, text) where `text` is the JSON text of a nested value
        #: that must be decoded afresh for every row (one whose parts are themselves dicts or
        #: lists), else None.
        self._values: dict[str, list[tuple[Any, str | None]]] = {}
        #: The block read last, (its first row, its rows): rows read in order are made once.
        self._last: tuple[int, list[dict]] = (-1, [])

    def __len__(self) -> int:
        return self.batch.num_rows

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("row index out of range")
        start = i - i % BLOCK
        return self._block(start)[i - start]

    def __iter__(self) -> Iterator[dict]:
        for start in range(0, len(self), BLOCK):
            yield from self._block(start)

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, Rows)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other) -> list:
        return list(self) + list(other)

    def __radd__(self, other) -> list:
        return list(other) + list(self)

    def __repr__(self) -> str:
        return f"<{len(self)} rows: {', '.join(self.batch.schema.names)}>"

    def __reduce__(self):
        return Rows, (self.batch,)

    def column(self, name: str) -> list:
        """Every row's `name`, decoding no other column; nested values are shared between the
        rows that have equal ones, so they are for reading only."""
        i = self.batch.schema.get_field_index(name)
        field, column = self.batch.schema.field(i), self.batch.column(i)
        if hasattr(column, "indices"):
            if len(column.dictionary) > SHARED_UP_TO:
                return _each(field, column)
            values = self._decoded(field, column.dictionary)
            return [None if k is None else values[k][0] for k in column.indices.to_pylist()]
        return column.to_pylist()

    def each(self, name: str) -> Iterator:
        """Every row's `name` in turn, decoding a block of rows at a time: what `column` gives,
        without holding it, for a scan that keeps only a sum or a maximum (393,216 queues'
        `totals` as dicts at once were 1.2 GB of a k = 64 fabric's printed tables)."""
        field = self.batch.schema.field(self.batch.schema.get_field_index(name))
        if not hasattr(self.batch.column(name), "indices"):
            yield from self.batch.column(name).to_pylist()
            return
        for start in range(0, len(self), BLOCK):
            column = self.batch.slice(start, BLOCK).column(name)
            if len(column.dictionary) > SHARED_UP_TO:
                yield from _each(field, column)
            else:
                values = self._decoded(field, column.dictionary)
                yield from (None if k is None else values[k][0] for k in column.indices.to_pylist())

    def _block(self, start: int) -> list[dict]:
        if self._last[0] == start:
            return self._last[1]
        part = self.batch.slice(start, BLOCK)
        columns = []
        for field, column in zip(part.schema, part.columns, strict=True):
            if hasattr(column, "indices") and len(column.dictionary) > SHARED_UP_TO:
                columns.append(_each(field, column))
            elif hasattr(column, "indices"):
                values = self._decoded(field, column.dictionary)
                keys = column.indices.to_pylist()
                columns.append([None if k is None else _fresh(*values[k]) for k in keys])
            else:
                columns.append(column.to_pylist())
        names = part.schema.names
        rows = [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]
        self._last = (start, rows)
        return rows

    def _decoded(self, field, dictionary) -> list[tuple[Any, str | None]]:
        values = self._values.get(field.name)
        if values is None:
            texts = dictionary.to_pylist()
            if _is_json(field):
                values = [_decode(text) for text in texts]
            else:
                values = [(text, None) for text in texts]
            self._values[field.name] = values
        return values


class JsonRows(Sequence):
    """A short report table as the engine wrote it, the JSON text of its rows, decoded into a
    list of dicts when first read and kept so (the rows may then be changed, as a list's).
    Until read it holds the text only: a few times smaller than its dicts (a 256-flow dumbbell's
    tables, 1.7 MB of text, were 4 MB of dicts), so that a run whose tables nobody reads, or a
    sweep holding many results, never makes them (docs/performance.md, "The report after the run")."""

    def __init__(self, text: str) -> None:
        self._text: str | None = text
        self._rows: list[dict] | None = None

    def _list(self) -> list[dict]:
        if self._rows is None:
            self._rows, self._text = json.loads(self._text), None
        return self._rows

    def __len__(self) -> int:
        return len(self._list())

    def __getitem__(self, i):
        return self._list()[i]

    def __iter__(self) -> Iterator[dict]:
        return iter(self._list())

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, Rows, JsonRows)):
            return self._list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other) -> list:
        return self._list() + list(other)

    def __radd__(self, other) -> list:
        return list(other) + self._list()

    def __repr__(self) -> str:
        return repr(self._list())

    def __reduce__(self):
        # unread, the text crosses (to a worker process, into a pickle); read, the rows, as
        # they may have been changed
        return (JsonRows, (self._text,)) if self._rows is None else (list, (self._rows,))


def _is_json(field) -> bool:
    """Whether the column holds JSON texts of nested values (`arrow_report.rs`)."""
    return (field.metadata or {}).get(b"fairsim") == b"json"


def _each(field, column) -> list:
    """The values of dictionary-encoded `column`'s rows, each decoded from its text apart: the
    same values as the decoded-once path's fresh copies."""
    texts = column.dictionary.take(column.indices).to_pylist()
    if _is_json(field):
        return [None if text is None else json.loads(text) for text in texts]
    return texts


def _decode(text: str) -> tuple[Any, str | None]:
    value = json.loads(text)
    parts = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    nested = any(isinstance(p, (dict, list)) for p in parts)
    return value, text if nested else None


def _fresh(value: Any, text: str | None) -> Any:
    """A row's own copy of a decoded nested value, so that changing one row changes no other."""
    if text is not None:
        return json.loads(text)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


def column(rows: Sequence[dict], name: str) -> list:
    """Every row's `name`, from `Rows` (one column decoded, its nested values for reading only)
    or from a list of dicts."""
    if isinstance(rows, Rows):
        return rows.column(name)
    return [row[name] for row in rows]


def each(rows: Sequence[dict], name: str) -> Iterator:
    """Every row's `name` in turn, for reading only: from `Rows` a block of rows decoded at a
    time (`Rows.each`), or from a list of dicts."""
    if isinstance(rows, Rows):
        return rows.each(name)
    return (row[name] for row in rows)


def report_of(sim) -> tuple[dict, int]:
    """The report of engine run `sim` (a `_core.Simulation`) with its long tables as `Rows`, and
    the bytes it crossed in (for `fairsim.memory.return_freed`)."""
    taken = taken_report(sim)
    return read_report(taken), taken_size(taken)


def taken_report(sim) -> tuple[str, Any]:
    """What `read_report` needs of run `sim`'s report: the JSON of its short part and its long
    tables (`_core.Columns`: Arrow columns, or a short table's JSON text), still the engine's.
    Once taken, the run may be let go before the report is read, so that its rows, pyarrow's
    import and the texts' Python strings come after the run's state has gone, not beside it."""
    return sim.report_columns(COLUMNS_FROM)


def taken_size(taken: tuple[str, Any]) -> int:
    """The bytes a taken report crossed in (for `fairsim.memory.return_freed`)."""
    rest, tables = taken
    return len(rest) + tables.nbytes


def read_report(taken: tuple[str, Any]) -> dict:
    """A taken report (`taken_report`) as the report: its long tables as `Rows`, its short ones
    as `JsonRows`, in the places the JSON report has them. A taken report is read once: its
    texts are handed over as they are read."""
    rest, tables = taken
    report = json.loads(rest)
    for name, batch in tables.to_pyarrow():
        report[name] = Rows(batch)
    for name, text in tables.take_texts():
        report[name] = JsonRows(text)
    return report


def plain(report: dict) -> dict:
    """`report` with its `Rows` and `JsonRows` as lists, to be written as JSON."""
    return {k: list(v) if isinstance(v, (Rows, JsonRows)) else v for k, v in report.items()}
