"""The result tables as CSV files without pandas, byte for byte as pandas writes them.

`fairsim run --out DIR` writes its tables as `DataFrame(rows).to_csv(path, index=False)` once
did, but importing pandas takes several times longer than a small run. This module writes the
same bytes from the rows themselves: it infers each column's type as pandas does for a list of
dicts (missing keys are NaN; integers with a missing value become floats; booleans, strings or
anything else mixed with other values make an object column), formats floats as numpy does
(the shortest text that reads back as the same float, which is Python's `repr`), and writes
through the standard library's `csv` module with pandas' settings.

It covers the values that a run's report holds (integers, floats, booleans, strings, None); for
anything else, and for a table without rows, it raises
:class:`Unsupported` and the caller asks pandas. tests/test_startup.py compares its output with
pandas' on real runs and on random tables.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

#: A missing key, which pandas reads as NaN.
_NAN = float("nan")
_INT64 = (-(2**63), 2**63 - 1)
_UINT64_MAX = 2**64 - 1


class Unsupported(Exception):
    """A table that this module cannot write exactly as pandas would."""


def _missing(v) -> bool:
    return v is None or (type(v) is float and v != v)


def _column_kind(values: list) -> str:
    """What pandas makes of a column of these Python values: "int", "float", "bool" or
    "object"."""
    kinds = set()
    low = high = 0
    for v in values:
        t = type(v)
        if v is None:
            kinds.add("none")
        elif t is float:
            kinds.add("float")
        elif t is bool:
            kinds.add("bool")
        elif t is int:
            kinds.add("int")
            low, high = min(low, v), max(high, v)
        elif t is str:
            kinds.add("str")
        else:
            raise Unsupported(f"a value of type {t.__name__}")
    if low < _INT64[0] or high > _UINT64_MAX or (low < 0 and high > _INT64[1]):
        # neither int64 nor uint64: pandas keeps the Python integers
        if kinds != {"int"}:
            raise Unsupported("integers beyond 64 bits among other values")
        return "object"
    if "str" in kinds:
        return "object"
    if "bool" in kinds:
        return "bool" if kinds == {"bool"} else "object"
    if kinds == {"int"}:
        return "int"
    if kinds <= {"none"}:
        return "object"  # all None: every cell is empty, as in a column of NaN
    return "float"  # floats, or numbers with missing values


def _cells(kind: str, values: list) -> list[str]:
    if kind == "float":
        return ["" if _missing(v) else repr(float(v)) for v in values]
    if kind in ("int", "bool"):
        return [str(v) for v in values]
    return ["" if _missing(v) else str(v) for v in values]


def _typed(kind: str, values: list) -> list:
    """The values as pandas holds them: floats in a float column."""
    if kind == "float":
        return [_NAN if v is None else float(v) for v in values]
    return values


def columns_of(rows: list[dict]) -> dict[str, list]:
    """The columns of `DataFrame(rows)`: every key in order of first appearance, NaN where a row
    lacks it, each column's values typed as pandas would (floats in a float column)."""
    names: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key not in names:
                if type(key) is not str:
                    raise Unsupported("a column name that is not a string")
                names[key] = None
    columns = {}
    for name in names:
        values = [row.get(name, _NAN) for row in rows]
        columns[name] = _typed(_column_kind(values), values)
    return columns


def _number(columns: dict[str, list], name: str, as_float: bool = False) -> list[float]:
    """A column's values as floats, for arithmetic as numpy does it (int64 to float64 first).
    With `as_float` (pandas' `astype(float)`) also a column of integers beyond 64 bits, which
    pandas keeps as Python integers."""
    values = columns.get(name)
    if values is None:
        raise Unsupported(f"no column {name}")
    kind = _column_kind(values)
    if kind == "object" and as_float and all(type(v) is int for v in values):
        return [float(v) for v in values]
    if kind not in ("int", "float"):
        raise Unsupported(f"column {name} is not numeric")
    return [float(v) for v in values]


def _div(a: float, b: float) -> float:
    if b == 0:
        raise Unsupported("a division by zero")  # numpy gives inf or NaN; pandas has the rules
    return a / b


def _put(columns: dict[str, list], name: str, values: list[float]) -> None:
    columns[name] = values  # a new name goes last, an existing one keeps its place, as in pandas


def derive_intervals(columns: dict[str, list]) -> None:
    """`results._derive_intervals`, value for value."""
    secs = [e - s for s, e in zip(_number(columns, "start_s"), _number(columns, "end_s"), strict=True)]
    delivered = _number(columns, "delivered")
    unique = _number(columns, "delivered_unique")
    if _column_kind(columns["bytes_unique"]) != "int" or _column_kind(columns["payload_unique"]) != "int":
        raise Unsupported("byte counts that are not integers")
    bytes_unique = [float(v * 8) for v in columns["bytes_unique"]]
    payload = [float(v * 8) for v in columns["payload_unique"]]
    _put(columns, "throughput_pps", [_div(d, s) for d, s in zip(delivered, secs, strict=True)])
    _put(columns, "goodput_pps", [_div(d, s) for d, s in zip(unique, secs, strict=True)])
    _put(columns, "goodput_bps", [_div(b, s) for b, s in zip(bytes_unique, secs, strict=True)])
    _put(columns, "payload_bps", [_div(b, s) for b, s in zip(payload, secs, strict=True)])
    for out, total, count in (
        ("rtt_s", "rtt_sum_ns", "rtt_samples"),
        ("rtt_first_s", "rtt_first_sum_ns", "rtt_first_samples"),
        ("delay_s", "delay_sum_ns", "delivered"),
    ):
        sums, counts = _number(columns, total), _number(columns, count)
        _put(
            columns,
            out,
            [_div(_div(t, n), 1e9) if n > 0 else _NAN for t, n in zip(sums, counts, strict=True)],
        )


def derive_queue_intervals(columns: dict[str, list]) -> None:
    """`results._derive_queue_intervals`, value for value."""
    secs = [e - s for s, e in zip(_number(columns, "start_s"), _number(columns, "end_s"), strict=True)]
    busy, area = _number(columns, "busy_ns"), _number(columns, "occupancy_area", as_float=True)
    _put(columns, "utilisation", [_div(b / 1e9, s) for b, s in zip(busy, secs, strict=True)])
    _put(columns, "occupancy_pkts", [_div(a / 1e9, s) for a, s in zip(area, secs, strict=True)])


DERIVE: dict[str, Callable[[dict[str, list]], None]] = {
    "intervals": derive_intervals,
    "queue_intervals": derive_queue_intervals,
}


def csv_text(rows: list[dict], table: str | None = None) -> str:
    """`DataFrame(rows)` (with table `table`'s derived columns) as `to_csv(index=False)` writes it."""
    if not rows:
        raise Unsupported("a table without rows")
    columns = columns_of(rows)
    if not columns:
        raise Unsupported("a table without columns")
    if table in DERIVE:
        DERIVE[table](columns)
    cells = [_cells(_column_kind(values), values) for values in columns.values()]
    buf = io.StringIO()
    writer = csv.writer(
        buf, lineterminator="\n", delimiter=",", quoting=csv.QUOTE_MINIMAL, doublequote=True, quotechar='"'
    )
    writer.writerow(list(columns))
    writer.writerows(zip(*cells, strict=True))
    return buf.getvalue()
