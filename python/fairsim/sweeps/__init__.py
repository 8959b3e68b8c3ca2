"""Parameter studies: a scenario run over axes of values, pairs and seeds, into one tidy table.

>>> s = fairsim.sweep("examples/dumbbell", axes={"links.bottleneck.buffer": "10..50:10"},
...                   seeds=5, pairs=["G/FCFS", "G/FQ"], out="buffers")       # doctest: +SKIP
>>> s.flows                       # one row per flow of each run, `buffer` a column  # doctest: +SKIP
>>> s.aggregate("goodput_bps", per_run="sum")                                  # doctest: +SKIP
>>> s.plot("jain", table="runs")                                               # doctest: +SKIP

See docs/sweeps.md for the description format, the folder, resume and clusters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairsim.api import Overrides, Scenario, load
from fairsim.sweeps.spec import SweepError, SweepSpec, from_python, from_table, merged

if TYPE_CHECKING:
    from fairsim.sweeps.execute import Summary
    from fairsim.sweeps.plan import Plan
    from fairsim.sweeps.plan import RunError as RunError
    from fairsim.sweeps.plan import make_plan as make_plan
    from fairsim.sweeps.results import SweepResults, open_sweep

__all__ = ["SweepError", "SweepResults", "open_sweep", "sweep"]

#: Names imported on first use (PEP 562): their modules import pandas, or threads and hashing,
#: which `fairsim --help` and `fairsim sweep --help` do not need.
_LAZY = {
    "Plan": "fairsim.sweeps.plan",
    "RunError": "fairsim.sweeps.plan",
    "Summary": "fairsim.sweeps.execute",
    "SweepResults": "fairsim.sweeps.results",
    "make_plan": "fairsim.sweeps.plan",
    "open_sweep": "fairsim.sweeps.results",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairsim.sweeps' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def file_spec(sc: Scenario) -> SweepSpec:
    """The `[sweep]` table of the scenario's file (an empty spec if it has none)."""
    import tomllib

    raw = tomllib.loads(sc.text).get("sweep")  # the text the engine read: no byte-order mark
    return from_table(raw, sc.text, sc.file) if raw is not None else SweepSpec()


def executor_for(jobs: int | None, client) -> Any:
    from fairsim.sweeps.executors import DaskCluster, LocalPool

    return DaskCluster(client) if client is not None else LocalPool(jobs)


def sweep(
    scenario: Scenario | str | Path,
    axes: Mapping[str, Any] | None = None,
    seeds: int | Sequence[int] | None = None,
    pairs: str | Sequence[str] | None = None,
    set: Overrides = None,
    *,
    mode: str | None = None,
    skip: Any = None,
    out: str | Path | None = None,
    tables: Sequence[str] = ("flows",),
    time_limit: float | None = None,
    jobs: int | None = None,
    client=None,
    progress: bool | None = None,
    pair: str | Sequence[str] | None = None,
    fresh: bool = False,
) -> SweepResults:
    """Runs `scenario` over `axes` and returns the results as tables (see docs/sweeps.md).

    - ``axes``: ``{FIELD: VALUES}``, VALUES a list or a range string (``"5..100:5"``,
      ``"1Mbps..64Mbps:*2"``, ``"1..1000:log4"``), or ``{NAME: {"fields": [...], "values": ...}}``;
      added to the scenario file's own ``[sweep]`` axes;
    - ``seeds``: a count (seeds 1..N) or a list; ``pairs``: one name, several, or ``None``
      for every pair (as in :func:`fairsim.run`; ``pair=`` is taken too);
    - ``mode``: ``"product"`` (every combination, default) or ``"zip"`` (axes move together);
    - ``skip``: expressions over the axes' names (``"buffer < window"``) or functions of a dict
      of them, returning true for a combination to leave out;
    - ``out``: the folder of results, which is also a cache: a run already there is not run
      again (default: a temporary folder that lives as long as the results); a run's identity is
      the resolved scenario, the files it reads, the seed, fairsim's version and build and the code of the
      Python components (docs/sweeps.md); ``fresh=True`` runs every run again all the same;
    - ``tables``: what to record besides ``runs``: ``flows`` (always), ``queues``, ``intervals``,
      ``queue_intervals``, ``transfer_summary``, ``slowdown`` (each run's slowdown by size, in
      its own bins), ``transfers`` (one row per transfer: completion times pooled over seeds,
      ``results.completion_times()``); added to the scenario file's ``[sweep] record``;
      ``time_limit``: seconds of wall time after which a run is stopped;
    - ``jobs``: local worker processes (default: one per core); ``client``: a
      ``distributed.Client`` to run on a Dask cluster instead.

    Raises :class:`SweepError` (a :class:`fairsim.FairsimError`) for a description that cannot
    run, before any run starts. Runs that fail are recorded (``results.failures``).
    """
    import tempfile

    from fairsim.api import pair_names
    from fairsim.sweeps.execute import run_sweep

    plan = make_sweep_plan(scenario, axes, seeds, pair_names(pairs, pair), set, mode, skip, tables)
    keep = None
    if out is None:
        keep = tempfile.TemporaryDirectory(prefix="fairsim-sweep-")
        out = keep.name
    summary = run_sweep(
        plan,
        Path(out),
        executor_for(jobs, client),
        tables=("flows", *plan.spec.record),
        time_limit=time_limit,
        progress=progress,
        fresh=fresh,
    )
    results = finished(out, summary)
    results._tmp = keep  # the temporary folder lives as long as the results
    return results


def finished(folder: str | Path, summary) -> SweepResults:
    """The results of a sweep that has just run, with the warning `fairsim run` gives when a
    pair's replications cannot differ (once per sweep, naming the pairs)."""
    from fairsim.replications import warn_if_sweep_identical
    from fairsim.sweeps.results import SweepResults

    results = SweepResults(folder, summary)
    if not results.runs.empty:
        warn_if_sweep_identical(results.flows, results.axes, stacklevel=4)
    return results


def make_sweep_plan(
    scenario, axes=None, seeds=None, pairs=None, set=None, mode=None, skip=None, record=None
) -> Plan:
    """The plan of :func:`sweep` without running it (`record`: the tables to record, added to
    the scenario file's `[sweep] record`)."""
    from fairsim.sweeps.plan import make_plan

    sc = scenario if isinstance(scenario, Scenario) else load(scenario)
    sc = sc.with_overrides(set)
    if isinstance(pairs, str):
        pairs = [pairs]
    extra = from_python(record, axes=axes, seeds=seeds, pairs=pairs, mode=mode, skip=skip)
    return make_plan(sc, merged(file_spec(sc), extra))


def held_runs(plan: Plan, folder: str | Path | None, progress: bool | None = None) -> tuple[dict, dict]:
    """How many runs of each point, and of each pair, `folder` already holds. The runs are
    listed (their ids need each point's resolved scenario, about a millisecond a run) only when
    the folder holds finished runs, so a dry run of a new sweep of a million runs answers at once."""
    from collections import Counter

    from fairsim.progress import progress_bar
    from fairsim.sweeps.store import Store

    recorded = ("flows", *plan.spec.record)  # a run held without a table asked for runs again
    done = Store(folder, read_only=True).finished(recorded) if folder and Path(folder).is_dir() else set()
    per_point: Counter = Counter()
    per_pair: Counter = Counter()
    if not done:
        return per_point, per_pair
    bar = progress_bar("checking the folder", len(plan), progress)
    for i, r in enumerate(plan.runs()):
        if r.run_id in done:
            per_point[r.point] += 1
            per_pair[r.pair] += 1
        if i % 1000 == 0:
            bar.update(i)
    bar.close(len(plan))
    return per_point, per_pair


__all__ += ["Summary", "held_runs", "make_sweep_plan"]
