"""`fairsim sweep`: a parameter study from the command line (docs/sweeps.md).

Exit codes: 0 every run finished; 2 a bad description (nothing ran); 3 some runs failed or hit
their time limit (the others are recorded, and running the same command again retries them);
130 interrupted (what finished is recorded: run the same command to resume).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import click

from fairsim.api import MOST_SEEDS, SEED_MAX
from fairsim.sweeps.spec import MODES, TABLES

if TYPE_CHECKING:
    from rich.console import Console

EXIT_FAILED_RUNS = 3
EXIT_INTERRUPTED = 130
#: Rows of the table printed after a sweep; the folder has them all.
MOST_ROWS = 40
#: Rows of a workload's completion-time table (a row per size bin of each point and pair).
MOST_BIN_ROWS = 120


def escape(text: str) -> str:
    """`text` as it reads when printed through rich markup (a folder `runs[old]`)."""
    from rich.markup import escape

    return escape(text)


@cache
def stderr() -> Console:
    """The console of messages, made on first use (`fairsim --help` needs no rich)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


@click.command("sweep")
@click.argument("scenario")
@click.option(
    "--axis",
    "axes",
    multiple=True,
    metavar="[NAME:]FIELD=VALUES",
    help="An axis: FIELD as in --set, VALUES a list (5,10,20), a range (5..100:5, 10ms..1s:*2, "
    "1..1000:log4); FIELD+FIELD moves several fields together (repeatable).",
)
@click.option("--seeds", type=click.IntRange(1, MOST_SEEDS), help="Run seeds 1..N of every point.")
@click.option(
    "--seed", "seed_list", multiple=True, type=click.IntRange(0, SEED_MAX), help="A seed (repeatable)."
)
@click.option("--pair", "pairs", multiple=True, help="Run only this pair (repeatable; default: all).")
@click.option(
    "--mode", type=click.Choice(MODES), help="Axes combine as a product (default) or move together."
)
@click.option(
    "--skip", multiple=True, metavar="EXPR", help="Leave out points where EXPR holds, e.g. 'buffer < 10'."
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a scenario field for every run (repeatable).",
)
@click.option("--out", type=click.Path(file_okay=False), help="Results folder (default: sweep-NAME).")
@click.option(
    "--record",
    "tables",
    multiple=True,
    type=click.Choice(TABLES[1:]),
    help="Record this table too (runs and flows always; repeatable); `transfers`: one row per "
    "transfer, for a workload's completion times pooled over seeds.",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop a run after this wall time.",
)
@click.option(
    "--jobs", "-j", type=click.IntRange(min=1), help="Local worker processes (default: one per core)."
)
@click.option("--dask", "scheduler", metavar="ADDRESS", help="Run on a Dask cluster, e.g. tcp://host:8786.")
@click.option("--dry-run", is_flag=True, help="List the points and estimate the cost; run nothing.")
@click.option("--fresh", is_flag=True, help="Run every run again, even those the folder holds.")
@click.option(
    "--progress/--no-progress", default=None, help="One bar for the sweep (default: on a terminal)."
)
def sweep_cmd(
    scenario,
    axes,
    seeds,
    seed_list,
    pairs,
    mode,
    skip,
    sets,
    out,
    tables,
    time_limit,
    jobs,
    scheduler,
    dry_run,
    fresh,
    progress,
):
    """Run SCENARIO over axes of values, pairs and seeds; write one tidy table of results."""
    from fairsim.api import open_scenario
    from fairsim.sweeps import file_spec, make_plan
    from fairsim.sweeps.spec import with_command_line

    if scheduler is not None:
        check_address(scheduler)  # before anything is planned or run: `--dask ""` is no address
    sc = open_scenario(scenario, list(sets), origin="--set")
    spec = with_command_line(file_spec(sc), axes, seeds, seed_list, pairs, mode, skip, tables)
    plan = make_plan(sc, spec)
    from fairsim.output import safe_name

    folder = Path(out or f"sweep-{safe_name(sc.name)}")
    if dry_run:
        _dry_run(plan, folder, jobs, scheduler, progress)
        return
    from fairsim.output import check_folder

    check_folder(folder, f"--out {out}" if out else None)  # before the runs, not after them
    client = _client(scheduler) if scheduler is not None else None
    from fairsim.sweeps import executor_for, finished
    from fairsim.sweeps.execute import run_sweep

    summary = run_sweep(
        plan,
        folder,
        executor_for(jobs, client),
        tables=("flows", *spec.record),
        fresh=fresh,
        time_limit=time_limit,
        progress=progress,
    )
    results = finished(folder, summary)
    _report(results, plan, folder)
    if summary.interrupted:
        stderr().print(
            f"[bold red]interrupted[/]: finished runs are in {escape(str(folder))}; "
            "run the same command to resume"
        )
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    if summary.failed:
        raise click.exceptions.Exit(EXIT_FAILED_RUNS)


def check_address(address: str) -> None:
    """Raises FairsimError naming `--dask ADDRESS` unless it is written as a scheduler's
    address (`tcp://HOST:PORT`, `tls://...`, or `HOST:PORT`); connects to nothing. Without
    dask.distributed, only an empty address is refused here (`_client` says what to install)."""
    from fairsim._core import FairsimError

    example = "e.g. --dask tcp://10.0.0.5:8786"
    if not address.strip():
        raise FairsimError(f"--dask {address}: give the scheduler's address, {example}")
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
        from distributed.comm.registry import get_backend
    except ImportError:
        return
    try:
        scheme, location = parse_address(address.strip())
        if scheme == "inproc":
            raise ValueError("an in-process address is not reachable from this command")
        get_backend(scheme)  # `http://`: unknown, with the known ones
        _, colon, port_text = location.rpartition(":")
        if not colon or not port_text:
            raise ValueError("no port: HOST:PORT")
        if not (port_text.isascii() and port_text.isdigit()):
            raise ValueError(f"the port `{port_text}` is not a number")
        host, port = parse_host_port(location)
    except ValueError as e:
        raise FairsimError(f"--dask {address}: not a scheduler's address ({e}); {example}") from None
    if not host:
        raise FairsimError(f"--dask {address}: not a scheduler's address (no host); {example}")
    if not 0 < port < 65536:
        raise FairsimError(f"--dask {address}: the port {port} is not from 1 to 65535; {example}")


def _client(address: str):
    from fairsim._core import FairsimError

    try:
        from distributed import Client
    except ImportError:
        raise FairsimError("--dask needs dask.distributed: pip install 'fairsim[dask]'") from None
    check_address(address)
    try:
        return Client(address.strip(), timeout="10s")
    except (OSError, TimeoutError, ValueError, TypeError, ImportError) as e:
        # TypeError, ImportError: a scheme whose package is missing (`ucx://` without ucx-py)
        reason = str(e) if isinstance(e, (OSError, TimeoutError)) else f"{type(e).__name__}: {e}"
        raise FairsimError(f"--dask {address}: cannot reach the scheduler: {reason}") from None


def _dry_run(plan, folder: Path, jobs, scheduler, progress) -> None:
    from rich.table import Table

    from fairsim.sweeps import held_runs
    from fairsim.sweeps.estimate import Estimate, pilot
    from fairsim.table_parts import console, emit

    per_point, per_pair = held_runs(plan, folder, progress)
    each = len(plan.pairs) * len(plan.seeds)
    shape = f"{len(plan.points)} points × {len(plan.pairs)} pairs × {len(plan.seeds)} seeds"
    table = Table(title=escape(f"{plan.scenario.name}: {shape}"))
    table.add_column("point", justify="right")
    for a in plan.axes:
        table.add_column(escape(a.name), justify="right")
    table.add_column("runs", justify="right")
    table.add_column("in the folder", justify="right")
    for p in plan.points[:MOST_ROWS]:
        shown = [escape(a.values[i].text) for a, i in zip(plan.axes, p.choice, strict=True)]
        table.add_row(str(p.index), *shown, str(each), str(per_point[p.index]))
    if len(plan.points) > MOST_ROWS:
        table.add_row("…", *["" for _ in plan.axes], "", "")
    emit(table, console())
    duration = plan.scenario.duration_s
    events = cpu = 0.0
    for pair in plan.pairs:
        first = next((r for r in plan.runs() if r.pair == pair and hasattr(r, "task")), None)
        if first is None:  # every point of the pair is invalid: nothing to estimate
            continue
        per_s_events, per_s_cpu = pilot(first.task())
        todo = len(plan.points) * len(plan.seeds) - per_pair[pair]
        events += per_s_events * duration * todo
        cpu += per_s_cpu * duration * todo
    from fairsim.cores import usable_cores

    cores = jobs or (None if scheduler else usable_cores()) or 1
    estimate = Estimate(len(plan), sum(per_pair.values()), events, cpu, cores)
    stderr().print(escape(estimate.text()) + (" (on the cluster: divide by its cores)" if scheduler else ""))


def _shown(axis, column) -> str:
    """An axis value as it was written (`1Mbps`), not as the tables hold it (1000000.0)."""
    return next((v.text for v in axis.values if v.column == column), str(column))


def _report(results, plan, folder: Path) -> None:
    """What ran, the failures, and the mean over seeds of two headline numbers per point and pair."""
    from rich.table import Table

    from fairsim.sweeps.results import OVERVIEW_CAPTION, OVERVIEW_CELLS
    from fairsim.table_parts import console, emit

    s = results.summary
    stderr().print(
        f"{s.ran} runs ran, {s.cached} were in the folder, {len(s.failed)} failed, in {s.wall_s:.1f} s; "
        f"results in {folder} (fairsim.open_sweep({str(folder)!r}))",
        markup=False,
    )
    for f in s.failed[:10]:
        where = ", ".join(f"{a.name}={_shown(a, f[a.name])}" for a in plan.axes)
        stderr().print(
            f"[bold red]{escape(str(f['status']))}[/]: "
            + escape(f"{where} {f['pair']} seed {f['seed']}: {f['error']}"),
            soft_wrap=True,
        )
    if len(s.failed) > 10:
        stderr().print(f"… and {len(s.failed) - 10} more (the `failures` table)")
    if _workload_report(results, plan):
        return
    summary = results.overview()
    if summary.empty:
        return
    keys = [*results.axes, "pair"]
    table = Table(title=OVERVIEW_CAPTION)
    for k in keys:
        table.add_column(escape(k), justify="right")
    for heading, _ in OVERVIEW_CELLS.values():
        table.add_column(heading, justify="right")
    for i, row in summary.iterrows():
        if i == MOST_ROWS:
            table.add_row(*["…"] + [""] * (len(keys) + 2))
            break
        shown = [_shown(a, row[a.name]) for a in plan.axes] + [str(row["pair"])]
        shown = [escape(x) for x in shown]
        table.add_row(*shown, *(cell(row) for _, cell in OVERVIEW_CELLS.values()))
    emit(table, console())


def _workload_report(results, plan) -> bool:
    """For a workload of sized transfers, the completion times by size pooled over seeds
    (`completion_report`) instead of the overview's Jain's index and goodput; or, where the
    transfers were not recorded, what to do to see them. Whether it said anything."""
    from fairsim.sweeps.completion_report import completion_parts, sized_workloads, unrecorded_note
    from fairsim.table_parts import console, emit

    names = sized_workloads(plan)
    if not names or results.runs.empty or not (results.runs["status"] == "ok").any():
        return False
    transfers = results.transfers
    if transfers.empty or transfers["ideal_fct_s"].notna().sum() == 0:
        stderr().print(unrecorded_note(names))
        return True

    def shown(row) -> list[str]:
        return [escape(_shown(a, row[a.name])) for a in plan.axes] + [escape(str(row["pair"]))]

    for part in completion_parts(results, [*results.axes, "pair"], shown, MOST_BIN_ROWS):
        emit(part, console())
    return True
