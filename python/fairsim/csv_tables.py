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


def csv_text(rows: list[dict]) -> str:
    """`DataFrame(rows)` as `to_csv(index=False)` writes it."""
    if not rows:
        raise Unsupported("a table without rows")
    columns = columns_of(rows)
    if not columns:
        raise Unsupported("a table without columns")
    cells = [_cells(_column_kind(values), values) for values in columns.values()]
    buf = io.StringIO()
    writer = csv.writer(
        buf, lineterminator="\n", delimiter=",", quoting=csv.QUOTE_MINIMAL, doublequote=True, quotechar='"'
    )
    writer.writerow(list(columns))
    writer.writerows(zip(*cells, strict=True))
    return buf.getvalue()
