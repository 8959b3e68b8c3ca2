"""A paper's published numbers, read from the `[published]` table of an experiment's scenario.

The format is in docs/reproductions.md. Cells are kept as printed (a value, the thesis's
"mean std", a garbled value marked †, one the notes derived or recall marked ‡, an unreadable
•, a blank) and each is tied to one pair,
flow and metric, from its table, row or column. Mistakes name the file, line and field.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any

from fairsim import _core

#: The metrics a published cell may name (see docs/reproductions.md and `measure.py`).
METRICS = (
    "packets",
    "packets_unique",
    "rtt",
    "retransmissions",
    "drops",
    "throughput",
    "delay",
    "drop_rate",
    "retx_rate",
    "mbps",
    "transfer_time",
)

GARBLED = "†"
#: A value the notes derived or recall, not printed in our copy of the paper: shown, not graded.
NOT_PRINTED = "‡"
#: A value that fed one of our derivations (a Little's-law setpoint, a propagation delay): close
#: by construction, so graded and shown but left out of the close fraction.
CONSTRUCTION = "◇"
UNREADABLE = "•"
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


@dataclass(frozen=True)
class Cell:
    """One number of the paper, as printed."""

    printed: str
    value: float | None = None
    std: float | None = None
    #: The spec notes call it garbled or anomalous (value kept as printed).
    garbled: bool = False
    #: Derived or recalled by the notes, not printed in our copy of the paper (marked ‡): shown
    #: beside ours, but not graded, since it is not the paper's own number.
    unprinted: bool = False
    #: It fed a derivation of ours (marked ◇): close by construction, not evidence.
    construction: bool = False

    @property
    def blank(self) -> bool:
        return self.value is None


@dataclass(frozen=True)
class Key:
    """What a cell is about."""

    pair: str
    flow: str
    metric: str


@dataclass
class Table:
    id: str
    title: str
    column_labels: list[str]
    row_labels: list[str]
    #: cells[row][column], with what each is about.
    cells: list[list[tuple[Key, Cell]]]
    interval: tuple[float, float] | None = None
    notes: str = ""
    #: Per row, a flow pattern whose cells are compared by rank (`None`: cell by cell).
    ranked: list[str | None] = field(default_factory=list)


@dataclass
class Published:
    source: str = ""
    units: str = ""
    notes: str = ""
    tables: list[Table] = field(default_factory=list)


class PublishedError(_core.FairsimError):
    """A `[published]` table is malformed; the message names file, line and field."""


def parse_cell(raw: Any) -> Cell:
    """A cell as written in the scenario file; raises ValueError if it is not one."""
    if isinstance(raw, bool):
        raise ValueError("a cell is a number or a string as printed, not a boolean")
    if isinstance(raw, (int, float)):
        return Cell(printed=_format(raw), value=float(raw))
    if not isinstance(raw, str):
        raise ValueError(f"a cell is a number or a string as printed, found {type(raw).__name__}")
    text = raw.strip()
    if text in ("", UNREADABLE):
        return Cell(printed=text)
    garbled, unprinted, construction = GARBLED in text, NOT_PRINTED in text, CONSTRUCTION in text
    bare = text
    for mark in (GARBLED, NOT_PRINTED, CONSTRUCTION):
        bare = bare.replace(mark, " ")
    words = [w.strip("*") for w in bare.split()]
    words = [w for w in words if w]
    if not words and garbled:
        return Cell(printed=text, garbled=True)  # a blank the spec calls garbled
    if not 1 <= len(words) <= 2 or not all(_NUMBER.match(w) for w in words):
        raise ValueError(
            f'cannot read cell {raw!r}: expected a number, "mean std", a value marked {GARBLED}, '
            f'{NOT_PRINTED} or {CONSTRUCTION}, {UNREADABLE!r} or ""'
        )
    value = float(words[0])
    std = float(words[1]) if len(words) == 2 else None
    return Cell(
        printed=text, value=value, std=std, garbled=garbled, unprinted=unprinted, construction=construction
    )


def _format(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) >= 1 else f"{x:g}"


class _Reader:
    """Reads one file's `[published]` table, raising errors that point into the file."""

    def __init__(self, text: str, file: str, pairs: list[str], flows: list[str]):
        self.text, self.file, self.pairs, self.flows = text, file, pairs, flows

    def fail(self, path: list[str | int], message: str) -> PublishedError:
        segments = [str(p) for p in path]
        where = _core.locate(self.text, segments)
        line = f":{where[0]}:{where[1]}" if where else ""
        dotted = ".".join(segments)
        return PublishedError(f"{self.file}{line}: {dotted}: {message}")

    def expect(self, obj: dict, key: str, kind: type, path: list, required: bool = False):
        if key not in obj:
            if required:
                raise self.fail(path, f"missing `{key}`")
            return None
        value = obj[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise self.fail([*path, key], f"expected {kind.__name__}, found {type(value).__name__}")
        return value

    def check_keys(self, obj: dict, allowed: set[str], path: list) -> None:
        for key in obj:
            if key not in allowed:
                raise self.fail(
                    [*path, key], f"unknown field `{key}`, expected one of {', '.join(sorted(allowed))}"
                )

    def read(self, raw: dict) -> Published:
        base = ["published"]
        self.check_keys(raw, {"source", "units", "notes", "tables"}, base)
        tables = self.expect(raw, "tables", list, base) or []
        out = Published(
            source=self.expect(raw, "source", str, base) or "",
            units=self.expect(raw, "units", str, base) or "",
            notes=self.expect(raw, "notes", str, base) or "",
        )
        ids = set()
        for i, t in enumerate(tables):
            table = self.table(t, [*base, "tables", i])
            if table.id in ids:
                raise self.fail([*base, "tables", i, "id"], f"duplicate table id `{table.id}`")
            ids.add(table.id)
            out.tables.append(table)
        return out

    def table(self, t: Any, path: list) -> Table:
        if not isinstance(t, dict):
            raise self.fail(path, "a table is a TOML table")
        allowed = {"id", "title", "metric", "pair", "flow", "interval", "columns", "rows", "notes"}
        self.check_keys(t, allowed, path)
        defaults = self.keys(t, path)
        interval = self.expect(t, "interval", list, path)
        if interval is not None:
            ok = len(interval) == 2 and all(isinstance(x, (int, float)) for x in interval)
            if not ok or interval[0] >= interval[1]:
                raise self.fail([*path, "interval"], "expected [from_s, to_s] with from_s < to_s")
            interval = (float(interval[0]), float(interval[1]))
        columns = self.expect(t, "columns", list, path, required=True)
        rows = self.expect(t, "rows", list, path, required=True)
        col_keys, col_labels = [], []
        for j, c in enumerate(columns):
            cpath = [*path, "columns", j]
            if not isinstance(c, dict):
                raise self.fail(cpath, 'a column is an inline table such as { flow = "ftp1", label = "1" }')
            self.check_keys(c, {"flow", "pair", "metric", "label"}, cpath)
            keys = self.keys(c, cpath)
            col_keys.append(keys)
            col_labels.append(
                self.expect(c, "label", str, cpath) or keys.get("flow") or keys.get("metric", "")
            )
        table = Table(
            id=self.expect(t, "id", str, path, required=True),
            title=self.expect(t, "title", str, path) or "",
            column_labels=col_labels,
            row_labels=[],
            cells=[],
            interval=interval,
            notes=self.expect(t, "notes", str, path) or "",
        )
        for i, r in enumerate(rows):
            rpath = [*path, "rows", i]
            if not isinstance(r, dict):
                raise self.fail(rpath, 'a row is an inline table such as { pair = "G/FQ", cells = [...] }')
            self.check_keys(r, {"pair", "flow", "metric", "label", "cells", "rank"}, rpath)
            rank = self.expect(r, "rank", str, rpath)
            if rank is not None and not fnmatch.filter(self.flows, rank):
                raise self.fail([*rpath, "rank"], f"`{rank}` names no flow (known: {', '.join(self.flows)})")
            table.ranked.append(rank)
            row_keys = self.keys(r, rpath)
            cells = self.expect(r, "cells", list, rpath, required=True)
            if len(cells) != len(columns):
                raise self.fail([*rpath, "cells"], f"{len(cells)} cells for {len(columns)} columns")
            label = self.expect(r, "label", str, rpath) or row_keys.get("pair") or row_keys.get("metric", "")
            table.row_labels.append(label)
            row = []
            for j, raw_cell in enumerate(cells):
                key = self.key([defaults, row_keys, col_keys[j]], [*rpath, "cells", j])
                try:
                    cell = parse_cell(raw_cell)
                except ValueError as e:
                    raise self.fail([*rpath, "cells", j], str(e)) from None
                row.append((key, cell))
            table.cells.append(row)
        return table

    def keys(self, obj: dict, path: list) -> dict[str, str]:
        """The pair, flow and metric an object (table, row, column) gives, each checked."""
        keys = {}
        for name, known in (("pair", self.pairs), ("flow", self.flows), ("metric", METRICS)):
            value = self.expect(obj, name, str, path)
            if value is None:
                continue
            if name == "flow" and "*" in value and fnmatch.filter(known, value):
                keys[name] = value  # a pattern: statistics across the flows it names
                continue
            if value not in known:
                raise self.fail([*path, name], f"unknown {name} `{value}` (known: {', '.join(known)})")
            keys[name] = value
        return keys

    def key(self, levels: list[dict[str, str]], path: list) -> Key:
        merged: dict[str, str] = {}
        for level in levels:
            for name, value in level.items():
                if name in merged and merged[name] != value:
                    raise self.fail(path, f"`{name}` is given twice for this cell ({merged[name]}, {value})")
                merged[name] = value
        missing = [n for n in ("pair", "flow", "metric") if n not in merged]
        if missing:
            raise self.fail(
                path, f"no {' or '.join(missing)} for this cell (give it on the table, row or column)"
            )
        return Key(**merged)


def read_published(raw: dict | None, text: str, file: str, pairs: list[str], flows: list[str]) -> Published:
    """The `[published]` table of a scenario file (empty if it has none)."""
    if raw is None:
        return Published()
    return _Reader(text, file, pairs, flows).read(raw)
