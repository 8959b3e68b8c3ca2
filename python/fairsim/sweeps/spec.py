"""What a sweep is: axes, how they combine, pairs, seeds, combinations to skip.

Written three ways, read into one `SweepSpec`:

- a `[sweep]` table in the scenario file (errors name the file, line and field);
- the command line: `fairsim sweep SCENARIO --axis FIELD=VALUES --seeds 10 --mode zip --skip EXPR`
  (errors name the option as typed); options add to, or replace, the file's table;
- Python: `fairsim.sweep(scenario, axes={...}, seeds=10, pairs=[...], mode="zip", skip=[...])`.

A `[sweep]` table:

    [sweep]
    seeds = 10                  # seeds 1..10; or a list, [3, 7, 11]
    pairs = ["G/FCFS", "G/FQ"]  # default: every pair of the scenario
    mode = "product"            # every combination of the axes; "zip" moves them together
    skip = ["buffer < window"]  # expressions over the axes' names (sweeps/expressions.py)
    record = ["transfers"]      # tables recorded besides runs and flows (TABLES)
    [sweep.axes]
    "links.bottleneck.buffer" = "5..100:5"
    window = { fields = ["flows.ftp1.window", "flows.ftp2.window"], values = [5, 10, 20] }
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairsim import _core
from fairsim.api import MOST_SEEDS, SEED_MAX
from fairsim.sweeps.axes import RESERVED, Axis, AxisError, default_names, values_from_text, values_from_toml
from fairsim.sweeps.expressions import Expression, ExpressionError

MODES = ("product", "zip")
#: The tables a sweep can record besides `runs` (`flows` always): `record = [...]`, `--record`,
#: `tables=[...]`. `transfers` has a row per transfer, from which completion times are pooled
#: over seeds (`SweepResults.completion_times`).
TABLES = ("flows", "queues", "intervals", "queue_intervals", "transfer_summary", "slowdown", "transfers")


class SweepError(_core.FairsimError):
    """A sweep description that cannot be run; the message says where it was written."""


@dataclass
class Skip:
    """A combination to leave out: an expression over the axes' names (sweeps/expressions.py),
    or a Python callable taking a dict of them."""

    text: str
    test: Callable[[dict], Any]
    #: Where it was written, for messages.
    origin: str = "skip"
    #: The names an expression reads (None for a callable), checked against the axes.
    names: frozenset[str] | None = None


@dataclass
class SweepSpec:
    axes: list[Axis] = field(default_factory=list)
    mode: str = "product"
    #: None: the scenario's own seed.
    seeds: list[int] | None = None
    #: None: every pair of the scenario.
    pairs: list[str] | None = None
    skip: list[Skip] = field(default_factory=list)
    #: Where `pairs`, `seeds` and `skip` were written, for messages.
    origins: dict[str, str] = field(default_factory=dict)
    #: Tables to record besides `runs` and `flows` (`TABLES`).
    record: list[str] = field(default_factory=list)

    def manifest(self) -> dict:
        """The spec as plain data, for the sweep's manifest."""
        return {
            "axes": [
                {"name": a.name, "fields": list(a.fields), "values": [v.text for v in a.values]}
                for a in self.axes
            ],
            "mode": self.mode,
            "seeds": self.seeds,
            "pairs": self.pairs,
            "skip": [s.text for s in self.skip],
            "record": self.record,
        }


# --- where a mistake was written -------------------------------------------------------------


class _Where:
    """Turns a path inside the description into a message prefix."""

    def at(self, path: Sequence[str | int]) -> str:
        raise NotImplementedError

    def fail(self, path: Sequence[str | int], message: str) -> SweepError:
        return SweepError(f"{self.at(path)}: {message}")


class _InFile(_Where):
    def __init__(self, text: str, file: str):
        self.text, self.file = text, file

    def at(self, path):
        segments = ["sweep", *(str(p) for p in path)]
        where = _core.locate(self.text, segments)
        line = f":{where[0]}:{where[1]}" if where else ""
        return f"{self.file}{line}: {'.'.join(segments)}"


class _InPython(_Where):
    def at(self, path):
        head, *rest = path or ["sweep"]
        return str(head) + "".join(f"[{p!r}]" for p in rest)


class _Fixed(_Where):
    """One command-line option, named as typed."""

    def __init__(self, label: str):
        self.label = label

    def at(self, path):
        return self.label


# --- reading ------------------------------------------------------------------------------------


def _seeds(raw: Any, where: _Where, path: list) -> list[int]:
    if isinstance(raw, bool):
        raise where.fail(path, "seeds is a count (10) or a list of seeds ([1, 2, 3])")
    if isinstance(raw, int):
        if not 1 <= raw <= MOST_SEEDS:
            raise where.fail(path, f"a count of seeds is from 1 to {MOST_SEEDS:,}, not {raw}")
        return list(range(1, raw + 1))
    if isinstance(raw, (list, tuple, range)) and raw:
        seeds = list(raw)
        for s in seeds:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= SEED_MAX:
                raise where.fail(path, f"seed {s!r}: a seed is an integer from 0 to {SEED_MAX}")
        if len(set(seeds)) != len(seeds):
            raise where.fail(path, "a seed is listed twice")
        return seeds
    raise where.fail(path, "seeds is a count (10) or a non-empty list of seeds ([1, 2, 3])")


def _mode(raw: Any, where: _Where, path: list) -> str:
    if raw not in MODES:
        raise where.fail(path, f"mode is `product` or `zip`, not {raw!r}")
    return raw


def _pairs(raw: Any, where: _Where, path: list) -> list[str]:
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, (list, tuple)) or not raw or not all(isinstance(p, str) for p in raw):
        raise where.fail(path, "pairs is a non-empty list of pair names")
    return list(raw)


def _skip(raw: Any, where: _Where, path: list) -> list[Skip]:
    """Skip expressions, checked now (sweeps/expressions.py): text from a file or an option is
    never run as Python; a function given from Python is the caller's own code and is called."""
    if isinstance(raw, (str,)) or callable(raw):
        raw = [raw]
    if not isinstance(raw, (list, tuple)):
        raise where.fail(path, 'skip is a list of expressions, such as ["buffer < window"]')
    out = []
    for i, s in enumerate(raw):
        if callable(s):
            out.append(Skip(getattr(s, "__name__", "a function"), s))
            continue
        if not isinstance(s, str):
            raise where.fail([*path, i], f"an expression is a string, not {type(s).__name__}")
        try:
            expression = Expression(s)
        except ExpressionError as e:
            raise where.fail([*path, i], f"`{s}`: {e}") from None
        out.append(Skip(s, expression, where.at([*path, i]), frozenset(expression.names)))
    return out


def _record(raw: Any, where: _Where, path: list) -> list[str]:
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, (list, tuple)) or not all(isinstance(t, str) for t in raw):
        raise where.fail(path, 'record is a list of tables, such as ["transfers"]')
    for i, table in enumerate(raw):
        if table not in TABLES:
            hint = _core.did_you_mean(table, list(TABLES))
            raise where.fail([*path, i], f"no table `{table}`{hint} (a sweep records {', '.join(TABLES)})")
    return [t for t in dict.fromkeys(raw) if t != "flows"]


def _axes(raw: Any, where: _Where, path: list) -> list[Axis]:
    if not isinstance(raw, Mapping):
        raise where.fail(path, "axes is a table of FIELD = VALUES or NAME = { fields = [...], values = ... }")
    entries = []
    for key, spec in raw.items():
        at = [*path, key]
        if isinstance(spec, Mapping):
            unknown = set(spec) - {"field", "fields", "values"}
            if unknown:
                first = sorted(unknown)[0]
                raise where.fail([*at, first], "unknown key; an axis has `fields` (or `field`) and `values`")
            fields = spec.get("fields", spec.get("field"))
            if isinstance(fields, str):
                fields = [fields]
            if not fields or not all(isinstance(f, str) for f in fields):
                raise where.fail(at, "an axis given as a table names its `fields` (a list of fields)")
            if "values" not in spec:
                raise where.fail(at, "missing `values`")
            name, values_raw, vpath = key, spec["values"], [*at, "values"]
        else:
            fields, name, values_raw, vpath = [key], None, spec, at
        if any(not f.strip() for f in fields):
            raise where.fail(at, "an axis names the field it moves, such as `links.out.buffer`")
        try:
            values = values_from_toml(values_raw)
        except AxisError as e:
            raise where.fail(vpath, str(e)) from None
        entries.append((name, tuple(fields), tuple(values), where.at(at)))
    return _named(entries)


def _named(entries: list[tuple[str | None, tuple[str, ...], tuple, str]]) -> list[Axis]:
    """Axes from (name or None, fields, values, origin), unnamed ones named from their fields
    among all of them; names must be unique and not a column of the results."""
    defaults = default_names([f for _, f, _, _ in entries])
    named = [
        Axis(name or d, f, v, o, named=name is not None)
        for (name, f, v, o), d in zip(entries, defaults, strict=True)
    ]
    seen: dict[str, Axis] = {}
    for a in named:
        if a.name in RESERVED:
            taken = f"`{a.name}` is a column of the results already; name the axis otherwise"
            raise SweepError(f"{a.origin}: {taken}")
        if a.name in seen:
            raise SweepError(f"{a.origin}: a second axis named `{a.name}` (the first: {seen[a.name].origin})")
        seen[a.name] = a
    return named


def from_table(raw: Mapping, text: str, file: str) -> SweepSpec:
    """The `[sweep]` table of a scenario file."""
    return _read(raw, _InFile(text, file))


def from_python(tables: Sequence[str] | None = None, **kwargs: Any) -> SweepSpec:
    """`fairsim.sweep(...)`'s keyword arguments (None: not given); `tables`: what the file's
    `record` says."""
    spec = _read({k: v for k, v in kwargs.items() if v is not None}, _InPython())
    if tables is not None:
        spec.record = _record(tables, _InPython(), ["tables"])
    return spec


def _read(raw: Mapping, where: _Where) -> SweepSpec:
    allowed = {"axes", "mode", "seeds", "pairs", "skip", "record"}
    for key in raw:
        if key not in allowed:
            hint = _core.did_you_mean(str(key), sorted(allowed))
            raise where.fail([key], f"unknown field `{key}`{hint}")
    spec = SweepSpec(origins={k: where.at([k]) for k in raw})
    if "axes" in raw:
        spec.axes = _axes(raw["axes"], where, ["axes"])
    if "mode" in raw:
        spec.mode = _mode(raw["mode"], where, ["mode"])
    if "seeds" in raw:
        spec.seeds = _seeds(raw["seeds"], where, ["seeds"])
    if "pairs" in raw:
        spec.pairs = _pairs(raw["pairs"], where, ["pairs"])
    if "skip" in raw:
        spec.skip = _skip(raw["skip"], where, ["skip"])
    if "record" in raw:
        spec.record = _record(raw["record"], where, ["record"])
    return spec


def merged(base: SweepSpec, extra: SweepSpec) -> SweepSpec:
    """`base` (a file's `[sweep]`) with what `extra` (the command line, or Python) gives: its axes
    added, each replacing a base axis over the same fields or of the name it was given, all of
    them named again together; its mode, seeds, pairs and skip instead of `base`'s; its tables
    recorded besides `base`'s (recording more loses nothing)."""

    def entry(a: Axis) -> tuple:
        return (a.name if a.named else None, a.fields, a.values, a.origin)

    replaced = {a.fields for a in extra.axes}
    names = {a.name for a in extra.axes if a.named}
    kept = [entry(a) for a in base.axes if a.fields not in replaced and a.name not in names]
    out = SweepSpec(
        _named(kept + [entry(a) for a in extra.axes]),
        base.mode,
        base.seeds,
        base.pairs,
        list(base.skip),
        dict(base.origins),
        list(dict.fromkeys([*base.record, *extra.record])),
    )
    for key in ("mode", "seeds", "pairs", "skip"):
        if key in extra.origins:
            setattr(out, key, getattr(extra, key))
            out.origins[key] = extra.origins[key]
    return out


def _field_key(field_: str) -> str:
    """A field as written, compared: `flows."ftp".window` and `flows.ftp.window` are one field."""
    return ".".join(part.strip().strip('"') for part in field_.split("."))


def _check_distinct(label: str, name: str | None, fields: tuple[str, ...], earlier: list) -> None:
    """Raises SweepError when an axis typed as `label` names a field twice, or a field or name
    that an earlier --axis has (`earlier`: its (name, fields, values, label) entries)."""
    keys = [_field_key(f) for f in fields]
    twice = next((f for f, k in zip(fields, keys, strict=True) if keys.count(k) > 1), None)
    if twice is not None:
        raise SweepError(f"{label}: names the field {twice} twice")
    for other_name, other_fields, _, other_label in earlier:
        shared = [f for f, k in zip(fields, keys, strict=True) if k in map(_field_key, other_fields)]
        if shared:
            raise SweepError(
                f"{label}: a second axis over {shared[0]} (the first: {other_label}); "
                "give each field one --axis"
            )
        if name is not None and other_name is not None and name.strip() == other_name.strip():
            raise SweepError(f"{label}: a second axis named `{name.strip()}` (the first: {other_label})")


def with_command_line(
    spec: SweepSpec,
    axes: Sequence[str] = (),
    seeds: int | None = None,
    seed_list: Sequence[int] = (),
    pairs: Sequence[str] = (),
    mode: str | None = None,
    skip: Sequence[str] = (),
    record: Sequence[str] = (),
) -> SweepSpec:
    """The file's spec with the command line's options (`merged`): an --axis replaces the
    file's axis over the same fields or of its name; two --axis options over one field, or of
    one name, are refused, naming both as typed."""
    entries = []
    for text in axes:
        head, sep, values_text = text.partition("=")
        name, colon, field_ = head.partition(":")
        label = f"--axis {text}"
        if not colon:
            name, field_ = None, head
        if not sep or not field_.strip():
            raise SweepError(f"{label}: write --axis FIELD=VALUES (or NAME:FIELD=VALUES)")
        fields = tuple(f.strip() for f in field_.split("+"))
        try:
            values = tuple(values_from_text(values_text))
        except AxisError as e:
            raise SweepError(f"{label}: {e}") from None
        _check_distinct(label, name, fields, entries)
        entries.append((name, fields, values, label))
    extra = SweepSpec([Axis(n or "", f, v, o, named=n is not None) for n, f, v, o in entries])
    if record:
        extra.record = _record(list(record), _Fixed("--record"), ["record"])
    if mode is not None:
        extra.mode = _mode(mode, _Fixed(f"--mode {mode}"), ["mode"])
        extra.origins["mode"] = f"--mode {mode}"
    if seeds is not None:
        extra.seeds = _seeds(seeds, _Fixed(f"--seeds {seeds}"), ["seeds"])
        extra.origins["seeds"] = f"--seeds {seeds}"
    if seed_list:
        extra.seeds = list(dict.fromkeys(seed_list))
        extra.origins["seeds"] = "--seed"
    if pairs:
        extra.pairs = list(pairs)
        extra.origins["pairs"] = "--pair " + " --pair ".join(pairs)
    if skip:
        extra.skip = [_skip(s, _Fixed(f"--skip {s!r}"), ["skip"])[0] for s in skip]
        extra.origins["skip"] = "--skip"
    return merged(spec, extra)
