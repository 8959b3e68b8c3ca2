"""What a reproduction is: a paper, its experiments (scenario files), claims and figures.

A paper's module (`papers/<id>.py`) builds one `Paper`. Running it (`run_paper`) runs every
experiment under every pair and seed on one pool of worker threads, and returns the
measurements of each experiment for the comparison, the claims and the figures.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairsim._core import FairsimError, ScenarioError
from fairsim.api import Scenario, load
from fairsim.catalogue import BUNDLED
from fairsim.reproduce.claims import Claim, Context, TestedClaim
from fairsim.reproduce.discussion import Discussion
from fairsim.reproduce.published import Published, Table, read_published
from fairsim.reproduce.stability import Cause, Variant

if TYPE_CHECKING:
    from fairsim.reproduce.measure import Estimate, Measurements
    from fairsim.sweeps.worker import Task


@dataclass(frozen=True)
class Sweep:
    """One experiment run at several values of a parameter (the 1989 paper's Figure 1: ρ)."""

    name: str
    values: tuple[float, ...]
    quick_values: tuple[float, ...]
    #: The overrides for one value, e.g. `{"flows.telnet.mean_gap": "0.57s"}`.
    overrides: Callable[[float], dict[str, Any]]
    #: The pairs run at one value (all of the scenario's if `None`).
    pairs: Callable[[float], list[str]] | None = None
    #: The overrides for one value in `--quick` mode, if not `overrides` (shorter runs whose
    #: length depends on the value, such as a fixed number of arrivals).
    quick_overrides: Callable[[float], dict[str, Any]] | None = None

    def overrides_at(self, x: float, quick: bool) -> dict[str, Any]:
        return (self.quick_overrides if quick and self.quick_overrides else self.overrides)(x)


@dataclass(frozen=True)
class Figure:
    id: str
    title: str
    caption: str
    experiment: str
    #: Draws the figure (a matplotlib Figure) from the measurements.
    draw: Callable[[Context], Any]


@dataclass(frozen=True)
class Experiment:
    id: str
    #: The scenario file, relative to the bundled scenarios (`dks89/s2_overloaded.toml`).
    file: str
    title: str
    sweep: Sweep | None = None
    #: Overrides applied in `--quick` mode (shorter runs), besides running one seed.
    quick: dict[str, Any] = field(default_factory=dict)
    #: Overrides always applied (one scenario file serving several experiments).
    overrides: dict[str, Any] = field(default_factory=dict)
    #: The published tables (by id) this experiment reproduces, if not all of the file's.
    tables: tuple[str, ...] | None = None
    #: Replications by default, if fewer than the paper's default (long sweeps); a count asked
    #: for (`--seeds`, a stability variant's) is run whatever this says.
    seeds: int | None = None
    #: A figure of one run's trace (a queue, a window): it runs one replication whatever is
    #: asked, since more would only be drawn over each other.
    one_run: bool = False
    #: Our discussion of how and why our results differ from the paper's (Markdown; a
    #: `Discussion` fills its numbers from the runs).
    discussion: Discussion | str = ""

    @property
    def path(self) -> Path:
        return BUNDLED / self.file


@dataclass(frozen=True)
class Paper:
    id: str
    title: str
    citation: str
    #: Its year of publication: listings and CI run the papers oldest first.
    year: int
    #: One paragraph: what the paper did and what the reproduction covers.
    summary: str
    experiments: tuple[Experiment, ...]
    claims: tuple[Claim, ...] = ()
    tested: tuple[TestedClaim, ...] = ()
    #: The module that defines the paper's figures (its `FIGURES`): imported when they are drawn,
    #: not when the paper is listed (figure modules import matplotlib).
    figures_from: str = ""
    #: Replications per experiment and pair by default.
    seeds: int = 5
    #: Differences of method that apply to every experiment (Markdown).
    method: str = ""
    #: The choices its verdicts may turn on, each at a second plausible value, for the report's
    #: stability table (besides those of every paper: reproduce/stability.py).
    knobs: tuple[Variant, ...] = ()
    #: Published tables whose cells are derived from several experiments' runs rather than
    #: measured in one (blt94's maximum powers, each the best point of a load sweep).
    derived_tables: tuple[DerivedTable, ...] = ()
    #: The changes tried for particular claims not held, and the causes the discussions state
    #: (`stability.Cause`), run with `--stability`.
    causes: tuple[Cause, ...] = ()

    @property
    def figures(self) -> tuple[Figure, ...]:
        import importlib

        return tuple(importlib.import_module(self.figures_from).FIGURES) if self.figures_from else ()

    def experiment(self, id: str) -> Experiment:
        for e in self.experiments:
            if e.id == id:
                return e
        known = ", ".join(e.id for e in self.experiments)
        raise KeyError(f"paper {self.id} has no experiment `{id}` (known: {known})")


@dataclass(frozen=True)
class DerivedTable:
    """A published table shown and graded with an experiment (`experiment`), our value of each
    cell computed by `ours` from the claims' context: one row of estimates per table row, in the
    table's order. A report made without some experiment `ours` reads leaves the table out."""

    experiment: str
    table: Table
    ours: Callable[[Context], list[list[Estimate | None]]]


@dataclass
class Loaded:
    """An experiment's scenario and published numbers."""

    experiment: Experiment
    scenario: Scenario
    published: Published


def load_experiment(
    exp: Experiment, overrides: dict[str, Any] | None = None, added: dict[str, str] | None = None
) -> Loaded:
    """The experiment's scenario with `overrides`, and the `added` pairs (see `run_paper`)."""
    from fairsim.api import overrides_list

    more = [f"pairs.{name}={table}" for name, table in (added or {}).items()]
    scenario = load(exp.path, set=[*overrides_list(overrides), *more])
    text = scenario.text  # the file as load read it, once
    doc = tomllib.loads(text)
    # cells may name flows the experiment disables (one file, several experiments)
    flows = list(dict.fromkeys([*scenario.flows, *doc.get("flows", {})]))
    published = read_published(doc.get("published"), text, str(exp.path), scenario.pairs, flows)
    if exp.tables is not None:
        published.tables = [t for t in published.tables if t.id in exp.tables]
    return Loaded(exp, scenario, published)


@dataclass
class AddedPair:
    """A pair run beside the paper's (`fairsim reproduce --pair NAME=TABLE`). It is not the
    paper's: no claim or published cell is about it, and when it is broken only its own runs
    fail, so that the paper's report is still written."""

    name: str
    #: The pair's table as TOML, as given (`{ transport = "generic", qdisc = "lifo" }`).
    table: str
    #: Why it has no numbers in an experiment, by experiment id: the scenario's refusal of the
    #: pair, or the message of its first failed run there.
    failures: dict[str, str] = field(default_factory=dict)


def load_beside(exp: Experiment, overrides: dict[str, Any], added: list[AddedPair]) -> Loaded:
    """The experiment with the added pairs its scenario accepts. A pair that it refuses (an
    unknown discipline, a class that cannot be imported, the name of one of the paper's pairs)
    gets the reason as its failure in this experiment and does not run in it: a user's broken
    pair must not stop the paper's runs. An error of the paper's own scenario is raised."""
    own = load_experiment(exp, overrides)
    accepted = {}
    for a in added:
        reason = _refused(exp, overrides, a, own.scenario.pairs)
        if reason is None:
            accepted[a.name] = a.table
        else:
            a.failures[exp.id] = reason
    return load_experiment(exp, overrides, accepted) if accepted else own


def _refused(exp: Experiment, overrides: dict[str, Any], a: AddedPair, own: list[str]) -> str | None:
    """Why the experiment's scenario cannot run the added pair `a`; None if it can."""
    if a.name in own:  # the table would replace the paper's pair, and its numbers with it
        return f"`{a.name}` is one of the paper's pairs here; give the added pair another name"
    try:
        load_experiment(exp, overrides, {a.name: a.table})
    except ScenarioError as e:
        return _refusal(e)
    return None


def _refusal(e: ScenarioError) -> str:
    """A scenario error as `field: message` lines, without the file's path on this machine
    (the report names the experiment) or the echoed override (the report shows the table)."""
    diagnostics = getattr(e, "diagnostics", None) or []
    lines = [f"{d['field']}: {d['message']}" if d.get("field") else d["message"] for d in diagnostics]
    return "\n".join(lines) or str(e)


@dataclass
class Outcome:
    """Everything a reproduction ran and measured."""

    paper: Paper
    quick: bool
    seeds: list[int]
    loaded: dict[str, Loaded]
    #: Measurements of each experiment without a sweep.
    measurements: dict[str, Measurements]
    #: Measurements of each sweep: experiment -> [(value, measurements)].
    sweeps: dict[str, list[tuple[float, Measurements]]]
    runs: int
    events: int
    wall_s: float
    interrupted: bool = False
    #: Of `runs`, those whose reports came from the cache folder rather than a run.
    cached: int = 0
    #: The pairs added to the paper's (`run_paper`'s `added`), with their failures.
    added: list[AddedPair] = field(default_factory=list)
    #: The replications each experiment ran, read from its runs.
    replications: dict[str, int] = field(default_factory=dict)

    def replications_line(self) -> str:
        """How many replications ran per pair, read from the runs: the count asked for (or the
        paper's), and the experiments that ran another, with the reason."""
        if not any(self.replications.values()):
            return "no replication"
        usual = len(self.seeds)  # the count asked for, or the paper's
        line = f"{usual} replication{'s' if usual != 1 else ''} per pair"
        traces = {e.id for e in self.paper.experiments if e.one_run}
        other = {e: n for e, n in self.replications.items() if n and n != usual}
        groups = (
            ([e for e in other if e in traces], "a trace of one run"),
            ([e for e in other if e not in traces], "long sweeps, fewer by default; `--seeds N` runs N"),
        )
        for ids, why in groups:
            for n in sorted({other[e] for e in ids}):
                line += f"; {n} in {', '.join(e for e in ids if other[e] == n)}: {why}"
        return line

    @property
    def failed(self) -> list[AddedPair]:
        """The added pairs that have no numbers in some experiment."""
        return [a for a in self.added if a.failures]

    @property
    def context(self) -> Context:
        return Context(self.measurements, self.sweeps)


def run_paper(
    paper: Paper,
    *,
    quick: bool = False,
    seeds: int | None = None,
    jobs: int | None = None,
    progress: bool | None = None,
    only: list[str] | None = None,
    client=None,
    cache: Path | None = None,
    extra: Callable[[Scenario], dict[str, Any]] | None = None,
    added: dict[str, str] | None = None,
) -> Outcome:
    """Runs the paper's experiments (or those named in `only`) under every pair and seed, on
    local processes or a Dask `client`, reusing the runs that the `cache` folder holds (a
    sweep folder: an interrupted reproduction resumes from it). `extra` gives more overrides
    for each experiment's scenario (a stability variant's); `added` pairs (name -> the pair's
    table as TOML, `{ transport = ..., qdisc = ... }`) run beside the paper's in every
    experiment, the user's own components for instance. A failed run of the paper's pairs
    raises FairsimError; an added pair that the scenario refuses or whose run fails is left out
    of that experiment, with its message in `Outcome.added`."""
    import time

    from fairsim.extend import registering_modules
    from fairsim.extend.code_identity import code_key

    # running imports the sweeps' machinery (pandas, pyarrow); listing the papers does not
    from fairsim.sweeps import executor_for
    from fairsim.sweeps.execute import run_reports
    from fairsim.sweeps.plan import pair_identity, run_id
    from fairsim.sweeps.worker import Task

    n_seeds = seeds or (1 if quick else paper.seeds)
    seed_list = list(range(1, n_seeds + 1))
    chosen = [paper.experiment(i) for i in only] if only else list(paper.experiments)
    beside = [AddedPair(name, table) for name, table in (added or {}).items()]
    loaded: dict[str, Loaded] = {}
    # one job per (experiment, sweep point, pair, seed), all on one pool
    groups: list[tuple[str, float | None, Scenario]] = []
    tasks: list[Task] = []
    imports = registering_modules()  # disciplines written in Python, for the workers
    places: list[_Place] = []
    spans: list[tuple[int, int]] = []
    for exp in chosen:
        base = {**exp.overrides, **(exp.quick if quick else {})}
        loaded[exp.id] = load_beside(exp, base, beside)
        more = extra(loaded[exp.id].scenario) if extra else {}
        if more:
            loaded[exp.id] = load_beside(exp, {**base, **more}, beside)
        running = [a.name for a in beside if exp.id not in a.failures]
        code = code_key()  # after loading: a component its scenario names by class is imported now
        points: list[float | None] = [None]
        if exp.sweep:
            points = list(exp.sweep.quick_values if quick else exp.sweep.values)
        for x in points:
            sc = loaded[exp.id].scenario
            pairs = sc.pairs
            if x is not None:
                sc = sc.with_overrides(exp.sweep.overrides_at(x, quick))
                if exp.sweep.pairs:
                    pairs = [*exp.sweep.pairs(x), *running]
            first = len(tasks)
            for pair in pairs:
                decided = pair_identity(sc, pair)  # seeds differ only in their draws (sweeps.plan)
                for seed in own_seeds(exp, seed_list, asked=seeds is not None):
                    rid = run_id(decided, sc.draws_key(seed), code)
                    tasks.append(
                        Task(rid, sc._data, sc.file, tuple(sc.overrides), pair, seed, imports=imports)
                    )
                    places.append(_Place(exp, sc.file, pair, seed, added=pair in running))
            groups.append((exp.id, x, sc))
            spans.append((first, len(tasks)))
    started = time.monotonic()
    got, interrupted, failed, cached = run_reports(
        tasks, executor_for(jobs, client), cache, progress=progress, title=paper.id
    )
    if interrupted:  # what finished is in the cache; the report needs every run
        raise KeyboardInterrupt
    _note_failures(tasks, places, failed, beside)
    wall = time.monotonic() - started
    from fairsim.reproduce.measure import Measurements
    from fairsim.results import Results

    measurements: dict[str, Measurements] = {}
    sweeps: dict[str, list[tuple[float, Measurements]]] = {}
    for (exp_id, x, sc), (lo, hi) in zip(groups, spans, strict=True):
        meta = {"name": sc.name, "file": sc.file, "description": sc.description, "overrides": sc.overrides}
        kept = [r for r, at in zip(got[lo:hi], places[lo:hi], strict=True) if not at.failed(beside)]
        results = Results(meta, kept, interrupted=interrupted, source=sc)
        if x is None:
            measurements[exp_id] = Measurements(results)
        else:
            sweeps.setdefault(exp_id, []).append((x, Measurements(results)))
    return Outcome(
        paper=paper,
        quick=quick,
        seeds=seed_list,
        loaded=loaded,
        measurements=measurements,
        sweeps=sweeps,
        runs=len(tasks),
        events=sum(r["events"] for r in got if r is not None),
        wall_s=wall,
        interrupted=interrupted,
        cached=cached,
        added=beside,
        replications=_replications(chosen, places),
    )


def _replications(chosen: list[Experiment], places: list[_Place]) -> dict[str, int]:
    """Each experiment's replications: the seeds its runs of the paper's pairs took."""
    seeds: dict[str, set[int]] = {exp.id: set() for exp in chosen}
    for at in places:
        if not at.added:
            seeds[at.experiment.id].add(at.seed)
    return {e: len(s) for e, s in seeds.items()}


def own_seeds(exp: Experiment, seed_list: list[int], asked: bool) -> list[int]:
    """The seeds `exp` runs: all that were asked for (`--seeds`, a stability variant's count),
    else the default's, cut to the experiment's own smaller default (a long sweep)."""
    if exp.one_run:
        return seed_list[:1]
    return seed_list if asked else seed_list[: exp.seeds or len(seed_list)]


@dataclass(frozen=True)
class _Place:
    """Where a task of a reproduction runs: its experiment, file, pair and seed, and whether
    the pair is an added one."""

    experiment: Experiment
    file: str
    pair: str
    seed: int
    added: bool

    def failed(self, added: list[AddedPair]) -> bool:
        """Whether its pair is an added one that failed in this experiment: then none of the
        pair's runs there counts, so that its numbers never rest on the runs that happened to
        finish."""
        return self.added and any(a.name == self.pair and self.experiment.id in a.failures for a in added)


def _note_failures(tasks: list, places: list[_Place], failed: list, added: list[AddedPair]) -> None:
    """Raises FairsimError for a failed run of the paper's pairs (the report needs them all);
    gives an added pair the message of its first failed run in each experiment."""
    errors = {o.run_id: o.error for o in failed}
    where = [(at, errors[t.run_id]) for t, at in zip(tasks, places, strict=True) if t.run_id in errors]
    by_name = {a.name: a for a in added}
    for at, error in where:
        if not at.added:
            raise FairsimError(f"{at.file}: pair {at.pair}, seed {at.seed}: {error}")
    for at, error in where:
        # the bundled file by its name in the report, not by its path on this machine
        message = f"{at.experiment.file}: pair {at.pair}, replication {at.seed}: {error}"
        by_name[at.pair].failures.setdefault(at.experiment.id, message)
