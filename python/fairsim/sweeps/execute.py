"""A sweep from start to end: plan, skip what the folder already holds, run the rest, record."""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from fairsim._core import __version__
from fairsim.results import TABLES as TABLE_ROWS
from fairsim.run_findings import RunFinding
from fairsim.sweeps.plan import Plan, Run, RunError
from fairsim.sweeps.store import TABLES, Store, other_code_runs, warn_if_other_code
from fairsim.sweeps.worker import FAILED, Outcome, Task


@dataclass
class Summary:
    """What one call ran: counts, and the failures with their messages."""

    total: int = 0
    cached: int = 0
    ran: int = 0
    failed: list[dict] = field(default_factory=list)
    #: Runs whose report has warnings (`fairsim.run_findings`), each in its `runs` row.
    found: int = 0
    interrupted: bool = False
    wall_s: float = 0.0


def manifest(plan: Plan) -> dict:
    sc = plan.scenario
    return {
        "fairsim_version": __version__,
        "scenario": {"name": sc.name, "file": sc.file, "overrides": sc.overrides},
        "sweep": {**plan.spec.manifest(), "pairs": plan.pairs, "seeds": plan.seeds},
        "axes": [a.name for a in plan.axes],
        "points": len(plan.points),
        "runs": len(plan),
    }


def run_sweep(
    plan: Plan,
    folder: Path,
    executor,
    *,
    tables: tuple[str, ...] = ("flows",),
    time_limit: float | None = None,
    progress: bool | None = None,
    fresh: bool = False,
) -> Summary:
    """Runs the plan's runs that `folder` does not hold yet (every one if `fresh`), recording
    every outcome there."""
    from fairsim.sweeps.spec import SweepError

    unknown = [t for t in tables if t not in TABLES]
    if unknown:
        raise SweepError(f"no table `{unknown[0]}` (a sweep records {', '.join(TABLES)})")
    if time_limit is not None and not time_limit > 0:
        raise SweepError(f"time_limit must be a number of seconds above 0, not {time_limit!r}")
    started = time.monotonic()
    store = Store(folder, tables)
    store.write_manifest(manifest(plan))
    done = set() if fresh else store.finished(tables)
    other = other_code_runs(folder)  # said at the end if none of this engine's was reused
    summary = Summary(total=len(plan))
    # the plan as compact tuples (a sweep of 100,000 runs lists them all); the axis values once
    # per point
    listed: list[tuple[str, int, str, int]] = []
    by_id: dict[str, Run | RunError] = {}

    def todo() -> Iterator[Task]:
        for r in plan.runs():
            listed.append((r.run_id, r.point, r.pair, r.seed))
            if r.run_id in done:
                summary.cached += 1
                continue
            if isinstance(r, RunError):
                record(r, Outcome(r.run_id, FAILED, r.error, 0, 0.0, 0.0, None))
                continue
            by_id[r.run_id] = r
            yield r.task(time_limit)

    def record(r: Run | RunError, o: Outcome) -> None:
        row = {
            **identity(r),
            "status": o.status,
            "error": o.error,
            "events": o.events,
            "wall_s": o.wall_s,
            "sim_s": o.sim_s,
            "jain": float("nan"),
            "warnings": "",
            "finished_at": time.time(),
            "recorded": " ".join(tables),
        }
        rows: dict[str, list[dict]] = {}
        if o.report is not None:
            report = json.loads(o.report)
            row["jain"] = report["fairness"]["jain"]
            row["warnings"] = "\n".join(report.get("warnings", ()))
            summary.found += bool(row["warnings"])
            rows = run_rows(r, report, tables)
        else:
            summary.failed.append(row)
        summary.ran += 1
        # a transfer's row is about 200 bytes in memory: many make a part due sooner
        store.add(row, rows, 200 * len(rows.get("transfers", ())))

    def on_outcome(o: Outcome) -> None:
        record(by_id.pop(o.run_id), o)

    from fairsim.sweeps.driver import drive

    try:
        _, summary.interrupted = drive(
            todo(),
            len(plan),
            executor,
            on_outcome,
            progress=progress,
            title=f"sweep {plan.scenario.name}",
            on_tick=store.flush_if_due,
            skipped=lambda: summary.cached,
        )
    finally:
        store.flush()
    warn_if_other_code(folder, other, summary.cached)
    if summary.found:
        warnings.warn(
            f"{summary.found:,} runs found what their `runs` rows' `warnings` say (a Python "
            "discipline holding packets at the end that it never sent)",
            RunFinding,
            stacklevel=3,
        )
    # after Ctrl-C, the runs listed so far: what finished shows when the folder is read
    store.write_plan(plan_frame(plan, listed))
    summary.wall_s = time.monotonic() - started
    return summary


def plan_frame(plan: Plan, listed: list[tuple[str, int, str, int]]) -> pd.DataFrame:
    """The plan table: run id, point, axis values, pair, seed."""
    runs = pd.DataFrame(listed, columns=["run_id", "point", "pair", "seed"])
    points = pd.DataFrame([{"point": p.index, **p.columns(plan.axes)} for p in plan.points])
    columns = ["run_id", "point", *[a.name for a in plan.axes], "pair", "seed"]
    return runs.merge(points, on="point", how="left")[columns]


def identity(r: Run | RunError) -> dict:
    """What names a run in every table: its id, point, axis values, pair and seed."""
    return {"run_id": r.run_id, "point": r.point, **r.columns, "pair": r.pair, "seed": r.seed}


def run_rows(r: Run | RunError, report: dict, tables: tuple[str, ...]) -> dict[str, list[dict]]:
    """A finished run's rows of each table, its id and axis values in front (a table's own
    column of the same name, such as a discipline's statistic, wins)."""
    front = {"run_id": r.run_id, **r.columns}
    return {name: [{**front, **row} for row in TABLE_ROWS[name](report)] for name in tables}


def run_reports(
    tasks: list[Task],
    executor,
    cache: Path | None,
    *,
    progress: bool | None,
    title: str,
) -> tuple[list[dict | None], bool, list[Outcome], int]:
    """The reports of `tasks`, in order: from `cache` (a sweep folder's `reports` table) where it
    holds them, else run on `executor` and added to it. Returns the reports (None for a run that
    failed or that Ctrl-C stopped), whether Ctrl-C stopped them, the failures, and how many
    reports came from the cache."""
    from fairsim.sweeps.driver import drive
    from fairsim.sweeps.store import old_layout, read_table

    if cache is not None and old_layout(cache):  # an older fairsim's: none of its runs is this engine's
        import shutil

        shutil.rmtree(cache, ignore_errors=True)
    reports: dict[str, dict] = {}
    wanted = {t.run_id for t in tasks}
    if cache is not None:
        held = read_table(cache, "reports")
        for rid, text in zip(held.get("run_id", []), held.get("report", []), strict=True):
            if rid in wanted:
                reports[rid] = json.loads(text)
    todo = list({t.run_id: t for t in tasks if t.run_id not in reports}.values())
    cached = len(tasks) - len(todo)
    if cache is not None and todo:
        warn_if_other_code(cache, other_code_runs(cache), cached)
    store = Store(cache, ("reports",)) if cache is not None else None
    failures: list[Outcome] = []

    def on_outcome(o: Outcome) -> None:
        if o.report is None:
            failures.append(o)
            return
        reports[o.run_id] = json.loads(o.report)
        if store is not None:
            row = {"run_id": o.run_id, "status": o.status, "events": o.events, "wall_s": o.wall_s}
            store.add(row, {"reports": [{"run_id": o.run_id, "report": o.report}]}, len(o.report))

    try:
        _, interrupted = drive(
            todo,
            len(tasks),
            executor,
            on_outcome,
            progress=progress,
            title=title,
            on_tick=store.flush_if_due if store is not None else lambda: None,
            skipped=lambda: cached,
        )
    finally:
        if store is not None:
            store.flush()
    failed = [] if interrupted else failures
    return [reports.get(t.run_id) for t in tasks], interrupted, failed, cached
