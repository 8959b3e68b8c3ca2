"""From a sweep's description to its runs: the points, each run's resolved scenario and its id.

Everything that can be wrong with a description is found here, before any run starts: each
value of each axis is applied to the scenario alone (so a field that `--set` cannot reach, or a
value the field refuses, is named with its axis), the pairs must exist, zipped axes must be
equally long, and skip expressions must evaluate. A combination of values that is wrong only
together (a window larger than a buffer that some discipline refuses) is not a description
error: that run fails, is recorded with its message, and the others go on.

A run's id is a hash of its fully resolved scenario (every default written out, the seed
included), of the content of every file it reads (a connection matrix, a size distribution), of
fairsim's version and of its build (the engine's binary and fairsim's own Python code), and of
the user's Python components (`fairsim.extend.code_identity`): the same run in another sweep, or
the same sweep widened, has the same id, and a run that some change would make different gets
another (a rebuilt engine is another engine, even under the same version number). The seeds of
one point and pair differ only in what they draw, so the scenario is resolved once per point
and pair (with seed 0) and each run adds its seed's draws (`draws_key`): the same information
as each run's own resolved file, without writing one per run.

Each point's scenario is built once: the axis values checked before the runs are kept (up to
`KEPT`) and serve the points they make up, so a sweep of one axis builds each point once.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from fairsim._core import FairsimError, InternalError, __version__
from fairsim.api import Scenario
from fairsim.sweeps.axes import Axis
from fairsim.sweeps.spec import SweepError, SweepSpec
from fairsim.sweeps.worker import Task


@dataclass(frozen=True)
class Point:
    """One combination of axis values: index into each axis's values."""

    index: int
    choice: tuple[int, ...]

    def columns(self, axes: list[Axis]) -> dict:
        return {a.name: a.values[i].column for a, i in zip(axes, self.choice, strict=True)}

    def overrides(self, axes: list[Axis]) -> list[str]:
        return [o for a, i in zip(axes, self.choice, strict=True) for o in a.overrides(i)]


@dataclass(frozen=True)
class Run:
    """One simulation of a sweep: everything a worker needs, and what the tables show of it."""

    run_id: str
    point: int
    pair: str
    seed: int
    #: Axis name -> value, for the tables.
    columns: dict
    #: The scenario with the point's overrides: what a worker loads.
    scenario: Scenario

    def task(self, time_limit: float | None = None) -> Task:
        sc = self.scenario
        from fairsim.extend import registering_modules

        return Task(
            self.run_id,
            sc._data,
            sc.file,
            tuple(sc.overrides),
            self.pair,
            self.seed,
            time_limit,
            imports=registering_modules(),
        )


@dataclass
class Plan:
    scenario: Scenario
    spec: SweepSpec
    pairs: list[str]
    seeds: list[int]
    points: list[Point]

    @property
    def axes(self) -> list[Axis]:
        return self.spec.axes

    def __len__(self) -> int:
        return len(self.points) * len(self.pairs) * len(self.seeds)

    #: Scenarios already built, by their overrides (the axis values checked before the runs).
    built: dict[tuple[str, ...], Scenario] = dataclasses.field(default_factory=dict)

    def runs(self) -> Iterator[Run | RunError]:
        """Every run in order (points, then pairs, then seeds), resolved one point at a time so
        that a sweep of 100,000 runs is never all in memory. A point whose values together make
        the scenario invalid yields a `RunError` for each of its runs."""
        from fairsim.extend.code_identity import code_key

        code = code_key()  # once: the components' code cannot change while the runs are listed
        for p in self.points:
            columns = p.columns(self.axes)
            overrides = p.overrides(self.axes)
            try:
                sc = self.built.pop(tuple(overrides), None) or self.scenario.with_overrides(overrides)
            except InternalError:
                raise
            except FairsimError as e:  # a scenario error, or an override the loader cannot read
                for pair, seed in itertools.product(self.pairs, self.seeds):
                    rid = _error_id(self.scenario, overrides, pair, seed)
                    yield RunError(rid, p.index, pair, seed, columns, _first_line(e))
                continue
            for pair in self.pairs:
                decided = pair_identity(sc, pair)
                for seed in self.seeds:
                    yield Run(run_id(decided, sc.draws_key(seed), code), p.index, pair, seed, columns, sc)


@dataclass(frozen=True)
class RunError:
    """A run whose scenario cannot be built: recorded as failed without running."""

    run_id: str
    point: int
    pair: str
    seed: int
    columns: dict
    error: str


@functools.cache
def engine_hash() -> str:
    """A hash of fairsim's build: the engine's compiled library, which computes the results, and
    fairsim's own Python code, which turns them into tables (an edited checkout under an unchanged
    version number is another build)."""
    from fairsim import _core

    digest = hashlib.sha256(Path(_core.__file__).read_bytes())
    package = Path(__file__).resolve().parent.parent
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:16]


#: The fields of a resolved workload that name a file the scenario reads, written there as an
#: absolute path (a built-in size distribution stays a bare name).
READ_FIELDS = ("file", "sizes")


def files_read(sc: Scenario, pair: str) -> list[str]:
    """The files `pair`'s scenario reads, by absolute path."""
    workloads = sc.resolved(pair, 0, ends=0).get("workloads", {})
    named = (w.get(field) for w in workloads.values() for field in READ_FIELDS)
    return sorted({v for v in named if isinstance(v, str) and Path(v).is_absolute()})


@functools.lru_cache(maxsize=256)
def _content_hash(path: str, stamp: tuple[int, int]) -> str:
    """The hash of a file's content; `stamp` (its modification time and size) is the cache key."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def pair_identity(sc: Scenario, pair: str) -> str:
    """What decides every run of `pair` but its seed's draws and the Python components' code: its
    resolved scenario with seed 0 and the content of each file it reads (a matrix edited in place
    keeps its path). A scenario reading no file has its resolved text alone, as before."""
    text = sc.resolved_toml(pair, 0)
    for path in files_read(sc, pair):
        st = Path(path).stat()
        text += f"\nread {path} {_content_hash(path, (st.st_mtime_ns, st.st_size))}"
    return text


def run_id(decided: str, draws: str, code: str = "") -> str:
    """The id of the run decided by `decided` (`pair_identity`: a pair's resolved scenario with
    seed 0 and the files it reads) with the seed and draws `draws` (`Scenario.draws_key`), by the
    Python components whose code has key `code` (`fairsim.extend.code_identity.code_key`; empty
    without any, leaving the id as it was)."""
    head = f"fairsim {__version__} engine {engine_hash()}\n{draws}\n" + (f"code {code}\n" if code else "")
    return hashlib.sha256(head.encode() + decided.encode()).hexdigest()[:24]


def _error_id(sc: Scenario, overrides: list[str], pair: str, seed: int) -> str:
    """An id for a run that has no resolved scenario: its file, overrides, pair and seed."""
    text = "\n".join([__version__, sc.file, *sc.overrides, *overrides, pair, str(seed)])
    return "invalid-" + hashlib.sha256(text.encode()).hexdigest()[:16]


#: The most runs (points before skips × pairs × seeds) one sweep may have (docs/sweeps.md): a
#: plan is listed in memory, and each run's scenario is resolved (about a millisecond) to find
#: its id. Split a larger study into several sweeps, into the same folder if you like.
MOST_RUNS = 1_000_000
#: An axis's values are each applied to the scenario before any run starts, up to this many
#: (spread over the axis, its ends included); the others are checked as their runs are resolved,
#: a refused value failing its runs with the engine's message.
MOST_CHECKED = 1000
#: Checked scenarios kept for their points: a scenario of 100,000 flows is a few hundred MB.
KEPT = 64


def make_plan(scenario: Scenario, spec: SweepSpec) -> Plan:
    """Checks the description against the scenario and lists its points; raises SweepError."""
    for field, where in scenario.captures():
        raise SweepError(
            f"{where}: {field}: a sweep records tables, not files per port: capture from one point "
            f"with `fairsim run ... --out DIR` (or capture nothing: {field}=[])"
        )
    _check_size(spec, len(spec.pairs if spec.pairs is not None else scenario.pairs), len(spec.seeds or [0]))
    built = _check_axes(scenario, spec.axes)
    pairs = spec.pairs if spec.pairs is not None else scenario.pairs
    for pair in pairs:
        if pair not in scenario.pairs:
            from fairsim import _core

            hint = _core.did_you_mean(pair, scenario.pairs)
            where = spec.origins.get("pairs", "pairs")
            raise SweepError(f"{where}: no pair `{pair}`{hint}")
    if not pairs:
        raise SweepError(f"{scenario.file}: the scenario has no pairs to run")
    seeds = spec.seeds if spec.seeds is not None else [scenario.seed]
    _check_skips(spec)
    points = _points(spec)
    # the checked values serve the points they make up alone (a sweep of one axis, zipped axes
    # of one field); a point of several axes is built when its runs are listed
    return Plan(scenario, spec, list(pairs), list(seeds), points, built)


def _check_size(spec: SweepSpec, pairs: int, seeds: int) -> None:
    """Refuses a sweep of more than `MOST_RUNS` runs, counted before its points are listed."""
    lengths = [len(a.values) for a in spec.axes]
    points = (max(lengths) if spec.mode == "zip" else math.prod(lengths)) if lengths else 1
    runs = points * max(pairs, 1) * seeds
    if runs > MOST_RUNS:
        shape = " × ".join(f"{n:,} {a.name}" for n, a in zip(lengths, spec.axes, strict=True)) or "1 point"
        where = spec.axes[0].origin if spec.axes else spec.origins.get("seeds", "seeds")
        raise SweepError(
            f"{where}: the sweep has {runs:,} runs ({shape} × {_count(pairs, 'pair')} × "
            f"{_count(seeds, 'seed')}); one sweep runs at most {MOST_RUNS:,}: split it (several "
            "sweeps may share a folder)"
        )


def _count(n: int, thing: str) -> str:
    return f"{n:,} {thing}{'' if n == 1 else 's'}"


def _checked_values(count: int) -> list[int]:
    """Which of an axis's `count` values are applied before the runs: all, or `MOST_CHECKED`
    spread evenly, both ends included."""
    if count <= MOST_CHECKED:
        return list(range(count))
    return sorted({round(i * (count - 1) / (MOST_CHECKED - 1)) for i in range(MOST_CHECKED)})


def _check_axes(scenario: Scenario, axes: list[Axis]) -> dict[tuple[str, ...], Scenario]:
    """Applies each value of each axis (up to `MOST_CHECKED` per axis) to the scenario alone;
    returns the scenarios built, up to `KEPT`, by their overrides, for the points they are."""
    built: dict[tuple[str, ...], Scenario] = {}
    for a in axes:
        for i in _checked_values(len(a.values)):
            v = a.values[i]
            try:
                sc = scenario.with_overrides(a.overrides(i))
            except InternalError:
                raise
            except FairsimError as e:
                raise SweepError(f"{a.origin}: value {v.text!r}: {_first_line(e)}") from None
            if len(axes) == 1 and len(built) < KEPT:
                built[tuple(a.overrides(i))] = sc
    return built


def _first_line(e: Exception) -> str:
    """The engine's message without the override echo that it adds (`(from set= ...)`)."""
    diagnostics = getattr(e, "diagnostics", None)
    if diagnostics:
        d = diagnostics[0]
        if isinstance(d, dict):
            field = f"{d['field']}: " if d.get("field") else ""
            return f"{field}{d['message']}"
    return str(e).splitlines()[0]


def _points(spec: SweepSpec) -> list[Point]:
    axes = spec.axes
    if not axes:
        choices: list[tuple[int, ...]] = [()]
    elif spec.mode == "zip":
        lengths = {len(a.values) for a in axes}
        if len(lengths) > 1:
            sizes = ", ".join(f"{a.name} has {len(a.values)}" for a in axes)
            where = spec.origins.get("mode", "mode")
            raise SweepError(f"{where}: zipped axes move together and need as many values each ({sizes})")
        choices = [(i,) * len(axes) for i in range(lengths.pop())]
    else:
        choices = list(itertools.product(*(range(len(a.values)) for a in axes)))
    points = []
    for choice in choices:
        p = Point(len(points), choice)
        if not _skipped(spec, p.columns(axes)):
            points.append(p)
    if not points:
        raise SweepError(f"{spec.origins.get('skip', 'skip')}: every combination is skipped")
    return points


def _check_skips(spec: SweepSpec) -> None:
    """Every name an expression reads is an axis."""
    from fairsim import _core

    names = [a.name for a in spec.axes]
    for s in spec.skip:
        for name in sorted((s.names or set()) - set(names)):
            hint = _core.did_you_mean(name, names)
            raise SweepError(
                f"{s.origin}: `{s.text}`: no axis `{name}`{hint} (the axes: {', '.join(names) or 'none'})"
            )


def _skipped(spec: SweepSpec, columns: dict) -> bool:
    for s in spec.skip:
        try:
            if s.test(columns):
                return True
        except Exception as e:  # a user's expression or function: say which and why
            names = ", ".join(f"{k}={v!r}" for k, v in columns.items()) or "none"
            raise SweepError(f"{s.origin}: `{s.text}` fails: {type(e).__name__}: {e} (at {names})") from None
    return False
