"""`fairsim reproduce`: the command line of the reproductions (docs/reproductions.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.console import Console

EXIT_INTERRUPTED = 130
#: Some runs failed and the others are written (as `fairsim sweep`): here, an added pair's.
EXIT_FAILED_RUNS = 3
#: Where a reproduction keeps its finished runs, inside its report folder.
RUNS = ".runs"


@click.command("reproduce")
@click.argument("paper", required=False)
@click.option("--list", "list_", is_flag=True, help="List the papers and their experiments.")
@click.option("--out", type=click.Path(file_okay=False), help="Report folder (default: reproduce-PAPER).")
@click.option("--json", "as_json", is_flag=True, help="Print claim verdicts and cell comparisons as JSON.")
@click.option("--quick", is_flag=True, help="One replication and coarse sweeps: seconds, for CI.")
@click.option("--seeds", type=click.IntRange(min=1), help="Replications per experiment and pair.")
@click.option(
    "--experiment", "-e", "experiments", multiple=True, help="Run only this experiment (repeatable)."
)
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Runs in parallel (default: one per core).")
@click.option("--dask", "scheduler", metavar="ADDRESS", help="Run on a Dask cluster, e.g. tcp://host:8786.")
@click.option("--fresh", is_flag=True, help="Run everything again, ignoring the runs kept in OUT/.runs.")
@click.option(
    "--stability",
    is_flag=True,
    help="Also run each stability variant (20 replications, exact clocks, the paper's knobs) and "
    "show every claim's verdict under each.",
)
@click.option(
    "--pair",
    "added",
    multiple=True,
    metavar="NAME=TABLE",
    help="Run a pair of your own beside the paper's in every experiment, e.g. "
    '--pair \'G/LIFO={ transport = "generic", qdisc = "lifo" }\' (repeatable).',
)
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
def reproduce_cmd(
    paper, list_, out, as_json, quick, seeds, experiments, jobs, scheduler, fresh, stability, added, progress
):
    """Rerun a paper's experiments and compare with its published numbers.

    Writes report.md, report.html, figures/ and reproduction.json into --out. Finished runs are
    kept in OUT/.runs, so an interrupted reproduction resumes where it stopped. An added pair
    (--pair) that fails leaves the paper's report whole, with the pair's message in it: exit
    code 3.
    """
    from rich.console import Console  # here, not above: `fairsim --help` needs neither rich nor tables

    from fairsim import reproduce
    from fairsim._core import FairsimError
    from fairsim.table_parts import console as table_console

    console = table_console()
    if list_:
        _list(console, reproduce.papers())
        return
    if not paper:
        raise FairsimError("name a paper (fairsim reproduce --list shows them)")
    from fairsim.output import check_folder
    from fairsim.sweeps.cli import _client

    folder = Path(out or f"reproduce-{paper}")
    check_folder(folder, f"--out {out}" if out else None)  # before the runs, not after them
    cache = folder / RUNS
    if fresh:
        shutil.rmtree(cache, ignore_errors=True)
    try:
        report = reproduce.run(
            paper,
            quick=quick,
            seeds=seeds,
            jobs=jobs,
            progress=progress,
            only=list(experiments) or None,
            client=_client(scheduler) if scheduler is not None else None,
            cache=cache,
            stability=stability,
            pairs=_added_pairs(added),
        )
    except KeyboardInterrupt:
        Console(stderr=True).print(
            f"interrupted: no report written; the finished runs are kept in {cache}, "
            "so the same command resumes",
            soft_wrap=True,
            markup=False,
        )
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    reproduce.write(report, folder)
    if as_json:
        click.echo(json.dumps(reproduce.to_json(report), indent=2))
    else:
        _summary(console, report, folder)
    if report.outcome.failed:
        _failed_pairs(report, folder)
        raise click.exceptions.Exit(EXIT_FAILED_RUNS)


def _added_pairs(added: tuple[str, ...]) -> dict[str, str]:
    """`--pair NAME=TABLE` options by name (the scenario checks the table itself)."""
    pairs = {}
    for option in added:
        name, eq, table = option.partition("=")
        if not eq or not name.strip() or not table.strip():
            raise click.UsageError(f'--pair {option!r}: write NAME=TABLE, e.g. G/LIFO={{ qdisc = "lifo" }}')
        if name.strip() in pairs:
            raise click.UsageError(f"--pair {option!r}: a second pair called {name.strip()!r}")
        pairs[name.strip()] = table.strip()
    return pairs


def _failed_pairs(report, folder: Path) -> None:
    """Each failed added pair's message on standard error (standard output may be JSON)."""
    from rich.console import Console
    from rich.markup import escape

    err = Console(stderr=True)
    for a in report.outcome.failed:
        for experiment, message in a.failures.items():
            where = escape(f"added pair {a.name}, experiment {experiment}: ")
            err.print(f"[bold red]error[/]: {where}", end="")
            err.print(message, soft_wrap=True, markup=False)
    err.print(
        f"the report in {folder} has the paper's pairs, and the message of each added pair that failed",
        soft_wrap=True,
        markup=False,
    )


def _list(console: Console, papers: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    from fairsim.table_parts import emit

    for p in papers.values():
        table = Table(title=escape(f"{p.id}: {p.title}"), box=None, title_justify="left", show_header=False)
        table.add_column("id", style="bold cyan")
        table.add_column("experiment")
        table.add_column("file", style="dim")
        for e in p.experiments:
            table.add_row(escape(e.id), escape(e.title), escape(e.file))
        emit(table, console)
        console.print(f"  [dim]{escape(p.citation)} {len(p.claims)} claims.[/]\n")


def _summary(console: Console, report, folder: Path) -> None:
    from rich.markup import escape
    from rich.table import Table

    from fairsim.reproduce.added import summary_line
    from fairsim.reproduce.report import NOT_HELD_NOTE, cells_line, claims_line, quick_banner, runs_line
    from fairsim.table_parts import emit

    banner = quick_banner(report)
    if banner:
        console.print(f"[bold yellow]{escape(banner)}[/]\n", soft_wrap=True)

    marks = {
        "held": "[green]held[/]",
        "not held": "[red]not held[/]",
        "not checkable": "[yellow]not checkable[/]",
        "derived": "[cyan]derived[/]",
    }
    table = Table(box=None, header_style="bold", title=f"{report.paper.id}: claims", title_justify="left")
    for col in ("claim", "verdict", "measured"):
        table.add_column(col, overflow="fold")
    for c, v in report.verdicts:
        table.add_row(escape(c.id), marks.get(v.label, f"[dim]{escape(v.label)}[/]"), escape(v.measured))
    emit(table, console)
    claims = report.claim_counts()
    console.print(
        f"\nclaims: {claims_line(claims, len(report.verdicts))}; published cells: {cells_line(report)}. "
        f"{runs_line(report.outcome)}",
        markup=False,
    )
    if report.outcome.added:
        console.print(f"added pairs: {summary_line(report.outcome)}", soft_wrap=True, markup=False)
    console.print(f"[dim]{escape(NOT_HELD_NOTE)}[/]", soft_wrap=True)
    console.print(f"report: {folder / 'report.html'} and {folder / 'report.md'}", markup=False)
    if banner:
        console.print(f"[yellow]{escape(banner)}[/]", soft_wrap=True)
