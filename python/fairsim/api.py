"""The Python API: load scenarios, run them, get results as DataFrames."""

from __future__ import annotations

import json
import numbers
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fairsim import _core
from fairsim.catalogue import find_scenario
from fairsim.replications import warn_if_identical
from fairsim.results import Results
from fairsim.run_findings import warn_of_findings

Overrides = Mapping[str, Any] | Iterable[str] | None


def _toml(value: Any, nested: bool) -> str:
    """A value as TOML; a bare string at the top stays bare, as on the command line (`500ms`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml(v, True)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v, True) for v in value) + "]"
    return json.dumps(str(value)) if nested else str(value)


def _override_text(key: str, value: Any) -> str:
    """`KEY=VALUE` with the value written as TOML where Python has a TOML form."""
    return f"{key}={_toml(value, False)}"


def overrides_list(overrides: Overrides) -> list[str]:
    """Normalise `{"flows.ftp1.window": 8}` or `["flows.ftp1.window=8"]` to a list of `KEY=VALUE`."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [_override_text(k, v) for k, v in overrides.items()]
    if isinstance(overrides, str):
        return [overrides]
    return list(overrides)


#: The UTF-8 byte-order mark some editors (Notepad) write at the start of a file.
BOM = "\ufeff"


def scenario_source(data: str | bytes) -> str | bytes:
    """A scenario's text (or UTF-8 bytes) as every reader takes it: without a byte-order mark
    at its start. The engine, the `[sweep]` table's reader and every message's line and column
    see the same text (docs/decisions.md)."""
    if isinstance(data, bytes):
        return data.removeprefix(BOM.encode())
    return data.removeprefix(BOM)


class Scenario:
    """A validated scenario. Create with :func:`load` or :func:`loads`."""

    def __init__(self, data: str | bytes, file: str, overrides: Sequence[str] = (), origin: str = "set="):
        data = scenario_source(data)
        self._data = data
        self._origin = origin
        self._core = _core.loads(data, file, list(overrides), origin)

    def __reduce__(self):
        # pickled as what it was made from, and checked again when read (a `Results` keeps its
        # scenario: results sent between processes, or saved, take it with them)
        return (Scenario, (self._data, self.file, self.overrides, self._origin))

    @property
    def text(self) -> str:
        """The scenario's text as the engine read it (a file's, without a byte-order mark)."""
        return self._data.decode() if isinstance(self._data, bytes) else self._data  # UTF-8: checked

    name = property(lambda self: self._core.name)
    description = property(lambda self: self._core.description)
    file = property(lambda self: self._core.file)
    reference = property(lambda self: self._core.reference)
    notes = property(lambda self: self._core.notes)
    pairs = property(lambda self: list(self._core.pairs))
    flows = property(lambda self: list(self._core.flows))
    nodes = property(lambda self: list(self._core.nodes))
    links = property(lambda self: list(self._core.links))
    seed = property(lambda self: self._core.seed)
    duration_s = property(lambda self: self._core.duration_s)
    overrides = property(lambda self: list(self._core.overrides))

    def with_overrides(self, overrides: Overrides) -> Scenario:
        """The same scenario with more overrides applied (`{"run.seed": 3}` or `["run.seed=3"]`)."""
        extra = overrides_list(overrides)
        if not extra:
            return self
        return Scenario(self._data, self.file, [*self.overrides, *extra], self._origin)

    def draws_key(self, seed: int) -> str:
        """What a run with `seed` draws (its seed, the starts and sizes it draws): with one
        resolved scenario of a pair, it determines the resolved scenario of each seed."""
        return self._core.draws_key(_check_seed(seed))

    def resolved_toml(self, pair: str | None = None, seed: int | None = None) -> str:
        """The scenario for one pair and seed as a complete TOML file, every default written out."""
        if seed is not None:
            seed = _check_seed(seed)
        return self._core.resolved_toml(pair or self.pairs[0], seed)

    def resolved(
        self, pair: str | None = None, seed: int | None = None, ends: int | None = None
    ) -> dict[str, Any]:
        """:meth:`resolved_toml` as ``tomllib.loads`` reads it (the same tables, keys in the same
        order), read much faster: the engine hands it over as JSON. With `ends`, the ``links``
        and ``flows`` tables hold only their first and last `ends` entries (a preview of a big
        scenario, as long to make whatever its size)."""
        if seed is not None:
            seed = _check_seed(seed)
        if ends is not None and (isinstance(ends, bool) or not isinstance(ends, int) or ends < 0):
            raise _core.FairsimError(f"ends {ends!r}: links and flows to keep at each end, an integer ≥ 0")
        # more than every item keeps every item, and the engine counts in 64 bits
        ends = None if ends is None else min(ends, 2**63)
        text = self._core.resolved_json(pair or self.pairs[0], seed, ends)
        return json.loads(text, object_hook=_special_float)

    def captures(self) -> list[tuple[str, str]]:
        """The `[run]` fields set to capture a file per port (`run.pcap`, `run.events`), each
        with where it was set: the override as given, or the file's line and column."""
        run = self.resolved(ends=0)["run"]  # ends=0: quick however many links and flows
        found = []
        for key in ("pcap", "events"):
            if not run.get(key):
                continue
            field = f"run.{key}"
            given = [o for o in self.overrides if o.partition("=")[0].strip() in (field, "run")]
            if given:
                text = given[-1] if len(given[-1]) <= 120 else given[-1][:120] + "..."
                where = f"{self._origin.rstrip('=') or '--set'} {text}"
            else:
                at = _core.locate(self.text, ["run", key])
                where = self.file + (f":{at[0]}:{at[1]}" if at else "")
            found.append((field, where))
        return found

    def __repr__(self) -> str:
        return f"<fairsim.Scenario {self.name!r}: {len(self.flows)} flows, pairs {self.pairs}>"


def _special_float(table: dict[str, Any]) -> Any:
    """A float JSON cannot write (`{"$float": "inf"}`, `-inf`, `nan`) as Python's float."""
    if len(table) == 1 and isinstance(table.get("$float"), str):
        return float(table["$float"])
    return table


def load(path: str | Path, set: Overrides = None) -> Scenario:
    """Loads and validates a scenario file (a path, or a bundled name such as ``examples/dumbbell``).

    Raises :class:`fairsim.ScenarioError` naming file, line and field when it is malformed, and
    :class:`fairsim.FairsimError` when it cannot be found or read.
    """
    return open_scenario(path, overrides_list(set), origin="set=")


def open_scenario(path: str | Path, overrides: list[str], origin: str) -> Scenario:
    """:func:`load` for a front end whose overrides are named `origin` in messages (``--set``):
    the one way every command and :func:`load` read a scenario file, once."""
    found, data = read_scenario(path)
    return Scenario(data, str(found), overrides, origin)


def read_scenario(path: str | Path) -> tuple[Path, bytes]:
    """The file `path` names (a path, or a bundled name) and its bytes, without a byte-order
    mark; the engine checks that they are UTF-8 and says where not."""
    if not isinstance(path, str | Path):
        raise _core.FairsimError(
            f"scenario {path!r}: a scenario is a file's path, a bundled name such as "
            "'examples/dumbbell', or a fairsim.Scenario"
        )
    found = find_scenario(path)
    try:
        data = found.read_bytes()
    except IsADirectoryError:
        raise _core.FairsimError(f"{path}: is a directory, not a scenario file") from None
    except OSError as e:
        raise _core.FairsimError(f"{path}: cannot read: {e.strerror or e}") from None
    return found, scenario_source(data)


def loads(text: str | bytes, set: Overrides = None, file: str = "<string>") -> Scenario:
    """Parses and validates scenario text (`bytes` must be UTF-8)."""
    return Scenario(text, file, overrides_list(set))


def run(
    scenario: Scenario | str | Path,
    pairs: str | Sequence[str] | None = None,
    seed: int | Sequence[int] | None = None,
    set: Overrides = None,
    *,
    seeds: int | None = None,
    progress: bool | None = None,
    jobs: int | None = None,
    pair: str | Sequence[str] | None = None,
    verbose: bool = False,
) -> Results:
    """Runs a scenario and returns its :class:`Results`.

    - ``pairs``: a pair name, several, or ``None`` for every pair of the scenario (as in
      :func:`fairsim.sweep`; ``pair=`` is taken too);
    - ``seeds``: N replications, seeds 1..N (as in :func:`fairsim.sweep`);
    - ``seed``: instead, explicit seeds: one, several, or ``None`` for the scenario's own;
    - ``set``: overrides, as ``{"flows.ftp1.window": 8}`` or ``["flows.ftp1.window=8"]``;
    - ``progress``: show one progress bar for all the runs (default: in a Jupyter notebook, or
      when standard error is a terminal);
    - ``jobs``: runs in parallel (default: one per core this process may use). Each run may use
      the cores they leave free, and takes of them only as many as pay (a long run whose
      windows hold enough work, on free cores); ``[run] threads`` or ``FAIRSIM_THREADS`` gives
      a count that is obeyed. Its results are the same on any number of threads;
    - ``verbose``: print on how many threads each run went, each partition's share of its
      events and what was weighed, or why it went on one.

    On Ctrl-C the runs stop and the partial results are returned (``results.complete`` is False).
    When every seed of a pair gives the same results (a scenario without a random element),
    :class:`fairsim.IdenticalSeedsWarning` says so.
    """
    sc = scenario if isinstance(scenario, Scenario) else load(scenario)
    sc = sc.with_overrides(set)
    pairs = pair_names(pairs, pair)
    pairs = sc.pairs if pairs is None else pairs
    for p in pairs:
        _check_pair(sc, p)
    seeds = _seeds_to_run(sc, seed, seeds)
    from fairsim.runner import execute  # threads: not needed to load or check a scenario

    reports, captures, interrupted = execute(
        sc._core, [(p, s) for p in pairs for s in seeds], progress=progress, jobs=jobs, verbose=verbose
    )
    warn_if_identical(reports)
    warn_of_findings(reports)
    meta = {
        "name": sc.name,
        "file": sc.file,
        "description": sc.description,
        "overrides": sc.overrides,
    }
    return Results(meta, reports, interrupted=interrupted, source=sc, captures=captures)


#: Seeds are unsigned 64-bit integers, as in `[run] seed`.
SEED_MAX = 2**64 - 1


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


#: `seeds=N` runs seeds 1..N; more is surely a typo (the sweeps' bound).
MOST_SEEDS = 100_000


def _seeds_to_run(sc: Scenario, seed: Any, seeds: Any) -> list[int]:
    if seeds is None:
        return [_check_seed(s) for s in ([sc.seed] if seed is None else seed if _is_list(seed) else [seed])]
    if seed is not None:
        raise _core.FairsimError("give seed= (explicit seeds) or seeds= (a count of replications), not both")
    if isinstance(seeds, bool) or not isinstance(seeds, numbers.Integral) or not 1 <= seeds <= MOST_SEEDS:
        raise _core.FairsimError(
            f"seeds={seeds!r}: a count of replications from 1 to {MOST_SEEDS:,} (seeds 1..N); "
            "for explicit seeds use seed=[...]"
        )
    return list(range(1, int(seeds) + 1))


def _check_seed(seed: Any) -> int:
    """The seed as a Python int; NumPy's integers count (pandas hands them out as group keys)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= SEED_MAX:
        raise _core.FairsimError(f"seed {seed!r}: a seed is an integer from 0 to {SEED_MAX}")
    return int(seed)


def pair_names(pairs: str | Sequence[str] | None, pair: str | Sequence[str] | None) -> list[str] | None:
    """The pairs asked for, by `pairs=` (the documented name) or `pair=` (taken too): one name,
    several, or None for every pair."""
    if pairs is not None and pair is not None:
        raise _core.FairsimError("give pairs= or pair= (the same thing), not both")
    chosen = pairs if pairs is not None else pair
    return None if chosen is None else [chosen] if isinstance(chosen, str) else list(chosen)


def _check_pair(sc: Scenario, pair: str) -> None:
    sc._core.check_pair(str(pair))  # the engine's message, with the likely name
