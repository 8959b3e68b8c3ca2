"""The axes of a sweep: which scenario field moves, through which values.

An axis names one field that `--set` can reach (or several that move together) and its values:

- a list: `5,10,20` on the command line, `[5, 10, 20]` in TOML or Python;
- a linear range, both ends included when the step lands on them: `5..100:5`, `10ms..100ms:10ms`,
  `400kbps..960kbps:80kbps`;
- a geometric range: `1Mbps..64Mbps:*2` (each value twice the last);
- a log-spaced range of N points: `1..1000:log4` (1, 10, 100, 1000).

Quantities (times, rates, sizes) are written back to the scenario in the unit of the range's
start, and appear in the tables as numbers in base units (seconds, bits per second, bytes), so
that a plot's axis is numeric. Ranges are computed in exact decimals: `0.1..0.3:0.1` has three
points, not two.

Bad input is an AxisError, quickly, whatever the text: a range needs its step (`5..100` is
refused, not read as a string); its numbers, and numeric values of a list, are 0 or between
1e-30 and 1e30 in size (`1..2:*1e999999999` is refused before any arithmetic); a range has at
most `MOST_POINTS` points, counted before any is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation, localcontext
from typing import Any

from fairsim import _core

#: Every unit a value may be written in, as the engine reads it (`units::catalogue`): its
#: dimension and what one is in seconds, bit/s, bytes or packets.
UNITS: dict[str, tuple[str, Decimal]] = {
    name: (dimension, Decimal(factor) / (Decimal(10**9) if dimension == "time" else 1))
    for name, dimension, factor in _core.units()
}

#: Arithmetic that overflows to an infinity rather than raising (the callers check sizes).
_WIDE = Context(traps=[InvalidOperation])
_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([^\d\s.+-][^\s]*)?\s*$")
#: More points than this in one axis is surely a typo (`1..1e9:1`).
MOST_POINTS = 100_000
#: Numbers of ranges and of values are 0 or within 1e-30..1e30 in size (written and in base
#: units): every field's values are, and arithmetic on `1e999999999` (writing it out, `int()`)
#: would take the memory and time of a billion digits.
LARGEST_EXPONENT = 30


class AxisError(ValueError):
    """An axis that cannot be read; the caller adds where it was written."""


@dataclass(frozen=True)
class Quantity:
    """A number with an optional unit, exactly as written."""

    number: Decimal
    unit: str  # "" for a plain number

    @property
    def dimension(self) -> str:
        return UNITS[self.unit][0] if self.unit else "number"

    @property
    def base(self) -> Decimal:
        if not self.unit:
            return self.number
        with localcontext(_WIDE):  # 1e999999999Mbps is Decimal's infinity, not an exception
            return self.number * UNITS[self.unit][1]


def parse_quantity(text: str) -> Quantity | None:
    """`"150ms"` -> Quantity(150, "ms"); None if `text` is not a number with a known unit."""
    m = _QUANTITY.match(text)
    if not m or (m.group(2) and m.group(2) not in UNITS):
        return None
    try:
        return Quantity(Decimal(m.group(1)), m.group(2) or "")
    except InvalidOperation:
        return None


def _check_size(number: Decimal, what: str) -> None:
    """Raises AxisError unless `number` is 0 or within 1e-30..1e30 in size; `what` names it
    (`the range's end `1e40``)."""
    if not number.is_finite():
        raise AxisError(f"{what} is not a finite number")
    if number and number.adjusted() > LARGEST_EXPONENT:
        raise AxisError(f"{what} is too large (at most 1e{LARGEST_EXPONENT})")
    if number and number.adjusted() < -LARGEST_EXPONENT:
        raise AxisError(f"{what} is too small (0, or at least 1e-{LARGEST_EXPONENT})")


def _checked(q: Quantity, what: str) -> Quantity:
    """`q` if it and its value in base units are of a size arithmetic can handle (`_check_size`)."""
    _check_size(q.number, what)
    _check_size(q.base, what)
    return q


@dataclass(frozen=True)
class Value:
    """One value of an axis: the text an override gets, and what the tables show."""

    #: The right-hand side of `--set FIELD=...` (a bare string is a string, as on the command line).
    text: str
    #: The value in the tables: a number (quantities in base units) or a string.
    column: Any


def _plain(number: Decimal) -> str:
    """A decimal without exponent or trailing zeros: 1E+2 -> "100", 0.50 -> "0.5"."""
    text = format(number.normalize(), "f")
    return text


def _from_quantity(q: Quantity) -> Value:
    """The value of quantity `q`, whose size has been checked (`_checked`)."""
    if q.unit:
        return Value(f"{_plain(q.number)}{q.unit}", float(q.base))
    column = int(q.number) if q.number == q.number.to_integral_value() else float(q.number)
    return Value(_plain(q.number), column)


def value_of(raw: Any) -> Value:
    """A value written in TOML or Python (`50`, `"1Mbps"`, `"fq"`, `true`, `{ kind = "red" }`)."""
    from fairsim.api import _toml

    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        return Value(_toml(raw, False), _toml(raw, True) if not isinstance(raw, bool) else raw)
    if isinstance(raw, (int, float)):
        return Value(repr(raw), raw)
    q = parse_quantity(raw)
    if q is not None and q.unit:
        return _from_quantity(_checked(q, f"the value `{raw.strip()}`"))
    return Value(_toml(raw, False), raw)


def value_from_text(text: str) -> Value:
    """A value as typed on the command line (`50`, `1Mbps`, `fq`): the `--set` text itself."""
    q = parse_quantity(text)
    if q is not None:
        return Value(text.strip(), _from_quantity(_checked(q, f"the value `{text.strip()}`")).column)
    if _stepless(text):
        raise AxisError(_stepless(text))
    return Value(text, text)


def expand_range(text: str) -> list[Value] | None:
    """The values of a range (`5..100:5`, `1Mbps..64Mbps:*2`, `1..1000:log4`); None if `text` is
    not written as a range. Raises AxisError for a range that is written wrongly.

    The work is bounded whatever the text: every number is checked for size before any
    arithmetic (`_checked`), and the number of points before any is made."""
    try:
        return _expand_range(text)
    except ArithmeticError as e:  # not expected after the checks; a message all the same
        raise AxisError(f"cannot compute the range `{text.strip()}`: {type(e).__name__}") from None


def _expand_range(text: str) -> list[Value] | None:
    if ".." not in text or ":" not in text.split("..", 1)[1]:
        return None
    start_text, rest = text.split("..", 1)
    stop_text, step_text = rest.split(":", 1)
    start_text, stop_text, step_text = start_text.strip(), stop_text.strip(), step_text.strip()
    if not step_text:
        raise AxisError(_no_step(text.strip().rstrip(":")))
    start, stop = parse_quantity(start_text), parse_quantity(stop_text)
    for name, q, raw in (("start", start, start_text), ("end", stop, stop_text)):
        if not raw:
            raise AxisError(f"the range `{text.strip()}` has no {name}: {_RANGE_FORMS}")
        if q is None:
            unknown = _unknown_unit(raw) or " is not a number with a known unit"
            raise AxisError(f"the range's {name} `{raw}`{unknown}")
        _checked(q, f"the range's {name} `{raw}`")
    assert start is not None and stop is not None
    if start.dimension != stop.dimension:
        raise AxisError(f"the range's start `{start_text}` and end `{stop_text}` differ in kind")
    if step_text.startswith("*"):
        bases = _geometric(start.base, stop.base, step_text[1:].strip())
    elif step_text.startswith("log"):
        bases = _log_spaced(start.base, stop.base, step_text[3:])
    else:
        step = parse_quantity(step_text)
        if step is None:
            unknown = _unknown_unit(step_text) or " is not a number with a known unit (or *FACTOR, or logN)"
            raise AxisError(f"the step `{step_text}`{unknown}")
        if step.dimension != start.dimension:
            raise AxisError(
                f"the step `{step_text}` is a {step.dimension}, the range is of {start.dimension}s"
            )
        _checked(step, f"the step `{step_text}`")
        bases = _linear(start.base, stop.base, step.base)
    factor = UNITS[start.unit][1] if start.unit else Decimal(1)
    values = [_from_quantity(Quantity(b / factor, start.unit)) for b in bases]
    if not start.unit and any(isinstance(v.column, float) for v in values):
        values = [Value(v.text, float(v.column)) for v in values]
    return values


#: How a range is written, for the messages about one written otherwise.
_RANGE_FORMS = (
    "write START..END:STEP (`5..100:5`), START..END:*FACTOR (`1..64:*2`) or START..END:logN (`1..1000:log4`)"
)


def _no_step(text: str) -> str:
    return (
        f"the range `{text}` has no step: write `{text}:STEP` (`5..100:5`), "
        f"`{text}:*FACTOR` (`1..64:*2`) or `{text}:logN` (`1..1000:log4`)"
    )


def _unknown_unit(raw: str) -> str:
    """` has an unknown unit `Mbit`; did you mean `10Mbit/s`?` for a number (`10Mbit`) whose
    unit is not accepted, with the engine's suggestion (a unit spelt out, a typo, a rate without
    its `/s`) when one is near; else ""."""
    m = _QUANTITY.match(raw)
    if not m or not m.group(2) or m.group(2) in UNITS:
        return ""
    unit = m.group(2)
    near = _core.nearest_unit(unit, list(UNITS))
    return f" has an unknown unit `{unit}`" + (
        f"; did you mean `{raw.strip()[: -len(unit)]}{near}`?" if near else ""
    )


def _stepless(text: str) -> str | None:
    """The message for a range written without its step (`5..100`, `10Mbit..20Mbit`), its end
    (`5..`) or its start (`..100`), else None (a value that is not a range)."""
    text = text.strip()
    start, dots, stop = (part.strip() for part in text.partition(".."))
    if not dots or ":" in stop:
        return None
    numbers = _QUANTITY.match(start), _QUANTITY.match(stop)
    bounds = (("start", start), ("end", stop))
    if all(numbers):
        unknown = next((f"; and its {n} `{raw}`{u}" for n, raw in bounds if (u := _unknown_unit(raw))), "")
        return _no_step(text) + unknown
    if numbers[0] and not stop:
        return f"the range `{text}` has no end: {_RANGE_FORMS}"
    if numbers[1] and not start:
        return f"the range `{text}` has no start: {_RANGE_FORMS}"
    return None


def _linear(start: Decimal, stop: Decimal, step: Decimal) -> list[Decimal]:
    if step == 0:
        raise AxisError("the step is zero")
    if (stop - start) * step < 0:
        raise AxisError("the range is empty: the step goes away from its end")
    count = int((stop - start) / step) + 1  # sizes are checked: at most 2e60, int() is quick
    _check_count(count)
    return [start + i * step for i in range(count)]


def _geometric(start: Decimal, stop: Decimal, factor_text: str) -> list[Decimal]:
    factor = parse_quantity(factor_text)
    if factor is None or factor.unit:
        raise AxisError(f"the factor `*{factor_text}` is not a number (`*2`)")
    _checked(factor, f"the factor `*{factor_text}`")
    ratio = factor.number
    if start <= 0 or ratio <= 1:
        raise AxisError("a geometric range needs a start above 0 and a factor above 1")
    if stop < start:
        raise AxisError("the range is empty: its end is below its start")
    # the number of points before making them: a factor of 1.0000000000000000000001 is not a
    # billion multiplications
    _check_count(int((stop / start).ln() / ratio.ln()) + 1)
    out = [start]
    while out[-1] * ratio <= stop * (1 + Decimal("1e-12")):
        out.append(out[-1] * ratio)
        _check_count(len(out))
    return out


def _log_spaced(start: Decimal, stop: Decimal, count_text: str) -> list[Decimal]:
    digits = count_text.lstrip("0") or "0"
    if not re.fullmatch(r"[0-9]+", digits) or (len(digits) == 1 and int(digits) < 2):
        shown = count_text if len(count_text) <= 20 else f"{count_text[:20]}..."
        raise AxisError(f"`log{shown}`: give the number of points, at least 2 (`log5`)")
    # ASCII digits only (`log²` is not 2), and not int() of a 5,000-digit count (Python refuses)
    _check_count(int(digits) if len(digits) <= 7 else MOST_POINTS + 1)
    if start <= 0 or stop <= start:
        raise AxisError("a log-spaced range needs 0 < start < end")
    n = int(digits)
    ratio = (stop / start) ** (Decimal(1) / (n - 1))
    out = [start * ratio**i for i in range(n)]
    out[-1] = stop
    # twelve significant digits: 1..1000:log4 is 1, 10, 100, 1000, not 99.99999999999999
    return [Decimal(f"{x:.12g}") for x in out]


def _check_count(count: int) -> None:
    if count > MOST_POINTS:
        raise AxisError(f"the range has more than {MOST_POINTS:,} points")


def values_from_text(text: str) -> list[Value]:
    """An axis's values as typed after `--axis FIELD=`: a range, a TOML array, or a comma list."""
    text = text.strip()
    if not text:
        raise AxisError("no values")
    ranged = expand_range(text)
    if ranged is not None:
        return ranged
    if text.startswith("["):
        import tomllib

        try:
            items = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError as e:
            raise AxisError(f"cannot read the list {text}: {e}") from None
        except RecursionError:
            raise AxisError(f"cannot read the list {text[:20]}...: nested too deeply") from None
        return [value_of(v) for v in items]
    items = [t.strip() for t in text.split(",")]
    if any(not t for t in items):
        raise AxisError(f"an empty value in the list `{text}`")
    return [value_from_text(t) for t in items]


def values_from_toml(raw: Any) -> list[Value]:
    """An axis's values as written in a `[sweep]` table or given in Python: a list, or a range."""
    if isinstance(raw, str):
        ranged = expand_range(raw)
        if ranged is None and _stepless(raw):
            raise AxisError(_stepless(raw))
        return ranged if ranged is not None else [value_of(raw)]
    if isinstance(raw, range):
        raw = list(raw)
    if isinstance(raw, (list, tuple)):
        if not raw:
            raise AxisError("the list of values is empty")
        return [value_of(v) for v in raw]
    return [value_of(raw)]


@dataclass(frozen=True)
class Axis:
    """A named axis: the fields it sets and its values."""

    name: str
    fields: tuple[str, ...]
    values: tuple[Value, ...]
    #: Where it was written, for messages: `sweep.toml:30:1: sweep.axes.buffer`, `--axis ...`.
    origin: str = ""
    #: Whether the user named it (else `name` is derived from its field).
    named: bool = False

    def overrides(self, i: int) -> list[str]:
        return [f"{field}={self.values[i].text}" for field in self.fields]


#: Column names of a sweep's tables: an axis may not take one (docs/sweeps.md). The engine's
#: columns come from its catalogue (`_core.columns()`: the interval rows', the flows' and the
#: queues', a summary with its `_std` and `_ci95`); the rest are the tables' keys, the runs'
#: and fairness tables' columns, and `buffer` (the queues' column before it was split into
#: `buffer_packets` and `buffer_bytes`, kept so that an axis on a buffer keeps its name).
RESERVED = frozenset(
    """run_id point pair seed status error events wall_s sim_s jain jain_raw jain_access flows
    finished_at flow port interval start_s end_s warmup buffer""".split()
) | {
    column
    for _, name, _, _, source in _core.columns()
    for column in ((name, f"{name}_std", f"{name}_ci95") if source == "summary" else (name,))
}


def default_names(fields: list[tuple[str, ...]]) -> list[str]:
    """Column names for unnamed axes: the field's last part (`links.out.rate` -> `rate`), or
    its last two (`out_buffer`) where the last is a column of the tables already or is not
    unique among the axes, else the whole path with dots as underscores."""

    def parts(f: str) -> list[str]:
        return [x.strip('"') for x in f.split(".")]

    def candidate(f: str, n: int) -> str:
        return "_".join(parts(f)[-n:]).replace("/", "_").replace("-", "_")

    lasts = [candidate(f[0], 1) for f in fields]
    twos = [candidate(f[0], 2) for f in fields]
    names = []
    for f, last, two in zip(fields, lasts, twos, strict=True):
        if last not in RESERVED and lasts.count(last) == 1:
            names.append(last)
        elif two not in RESERVED and twos.count(two) == 1:
            names.append(two)
        else:
            names.append(candidate(f[0], len(parts(f[0]))))
    return names
