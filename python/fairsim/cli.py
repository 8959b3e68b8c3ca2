"""The `fairsim` command line.

Exit codes: 0 success; 2 bad input (a malformed scenario, an unknown pair, a bad option);
130 interrupted by Ctrl-C (partial results are printed and written); 1 an internal error, or
standard output closed by its reader (`fairsim list | head`), which is not reported.

Start-up: this module imports click and fairsim's light modules only. rich is imported by the
commands that print through it (and for messages on standard error); pandas only where a
DataFrame is made: `--format parquet`, sweeps, reproductions and studies. `fairsim --version`,
`--help`, `list`, `validate` and `run` (tables, JSON, CSV, a workload's completion times and
transfers too) never load it. tests/test_startup.py checks this, and docs/performance.md
("Start-up", "Side by side with htsim") has the numbers.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import warnings
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import click

from fairsim import _core
from fairsim._core import FairsimError, InternalError, ScenarioError, __version__
from fairsim.api import MOST_SEEDS, SEED_MAX, open_scenario, run
from fairsim.catalogue import catalogue
from fairsim.replications import FairsimWarning

if TYPE_CHECKING:
    from rich.console import Console

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130
#: Standard output closed by its reader (`| head`): quiet, with the code click gives it too.
EXIT_BROKEN_PIPE = 1
#: `ctx.meta` key: overrides that a command built from its options, and the option as typed.
OPTION_OVERRIDES = "fairsim.option_overrides"


@cache
def stderr() -> Console:
    """The console of messages (standard error), made on first use: rich takes tens of
    milliseconds to import, more than `--version` or `--help` take without it."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


#: Commands defined elsewhere, imported when run or listed: name -> (module, the command there).
LAZY_COMMANDS = {
    "reproduce": ("fairsim.reproduce.cli", "reproduce_cmd"),
    "sweep": ("fairsim.sweeps.cli", "sweep_cmd"),
}


class _Cli(click.Group):
    """Turns fairsim's errors into messages and exit codes: never a traceback for bad input.

    The commands of other modules (`sweep`, `reproduce`) are imported when they are run or
    listed (`--help`), not for every command."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            from importlib import import_module

            module, name = LAZY_COMMANDS[cmd_name]
            self.add_command(getattr(import_module(module), name), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context):
        interrupted = threading.Event()
        try:
            with warnings.catch_warnings(), _interrupts_noted(interrupted):
                warnings.showwarning = _show_warning
                return super().invoke(ctx)
        except ScenarioError as e:
            options = ctx.meta.get(OPTION_OVERRIDES, {})
            for d in getattr(e, "diagnostics", None) or [str(e)]:
                stderr().print(f"[bold red]error[/]: {_diagnostic(d, options)}", soft_wrap=True)
            raise click.exceptions.Exit(EXIT_INPUT) from None
        except BrokenPipeError:  # `fairsim list | head`: the reader has all it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit's flush
            raise click.exceptions.Exit(EXIT_BROKEN_PIPE) from None
        except InternalError as e:  # a panic in the engine: its message says it is a bug
            stderr().print(f"[bold red]internal error[/]: {_escape(str(e))}", soft_wrap=True)
            raise click.exceptions.Exit(1) from None
        except FairsimError as e:
            stderr().print(f"[bold red]error[/]: {_escape(str(e))}", soft_wrap=True)
            raise click.exceptions.Exit(EXIT_INPUT) from None
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except (KeyboardInterrupt, Exception) as e:
            if isinstance(e, KeyboardInterrupt) or interrupted.is_set():  # or Ctrl-C that a C
                stderr().print("interrupted")  # extension turned into an error of its own
                raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
            # a bug: say so plainly, traceback only on request
            if os.environ.get("FAIRSIM_DEBUG"):
                import traceback

                traceback.print_exc()
            stderr().print(
                f"[bold red]internal error[/]: {type(e).__name__}: {_escape(str(e))}", soft_wrap=True
            )
            stderr().print(
                "This is a bug in fairsim; set FAIRSIM_DEBUG=1 to see the traceback and please report it."
            )
            raise click.exceptions.Exit(1) from None


@contextmanager
def _interrupts_noted(seen: threading.Event):
    """Notes Ctrl-C in `seen`, then raises KeyboardInterrupt as Python does.

    Why: a Ctrl-C that lands while a C extension imports (pandas, in the first second of a
    sweep) reaches the command as that extension's error, `ImportError: PyCapsule_Import could
    not import module "pandas"`, with the KeyboardInterrupt gone. The event tells it apart from a
    bug. Ctrl-C ignored (a command started in the background) stays ignored, and a handler of
    the caller's own is left alone, as is every thread but the main one."""
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return

    def note(signum, frame):
        seen.set()
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """fairsim's warnings (a damaged part of a sweep folder set aside, …) as a line of their own
    on standard error, like its errors; others as Python shows them."""
    if issubclass(category, FairsimWarning):
        stderr().print(f"[bold yellow]warning[/]: {_escape(str(message))}", soft_wrap=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _diagnostic(d, options: dict[str, str]) -> str:
    """A diagnostic as the engine writes it (its place and echoed override are the engine's),
    the field in bold; an override that the command built from an option (`--trace ftpp`) is
    named as that option. Rich markup: the user's text in it (file, field, message) is escaped."""
    if isinstance(d, str):
        return _escape(d)
    field = f"[bold]{_escape(d['field'])}[/]: " if d["field"] else ""
    override = d["from_override"]
    via = ""
    if override in options:
        via = f" (from {options[override]})"
    elif override:
        via = f" (from {d.get('origin', '--set')} {d['override_shown']})"
    return f"{_escape(d['place'])}: {field}{_escape(d['message'])}{_escape(via)}"


def _escape(text: str) -> str:
    """`text` as it reads, printed through rich markup (a path `runs[old]/x.toml`, the hint
    `pip install 'fairsim[dask]'`): rich drops what looks like a tag."""
    from rich.markup import escape

    return escape(text)


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fairsim")
@click.option(
    "--import",
    "imports",
    multiple=True,
    metavar="MODULE",
    help="Import MODULE first: it registers disciplines written in Python (docs/extending.md).",
)
def main(imports: tuple[str, ...]) -> None:
    """fairsim: packet-level simulation of fair queueing and congestion control."""
    # the current folder on the import path, as `python -m` has it: for `--import` and for the
    # classes scenarios name by module (`class = "mymodule:Lifo"`)
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    if imports:  # here, not above: every command's start-up would pay for it
        from fairsim.extend import import_modules

        import_modules(imports)


overrides_option = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a scenario field, e.g. --set flows.ftp1.window=8 (repeatable).",
)


@main.command("draw")
@click.argument("scenario")
@overrides_option
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="The SVG file (default: NAME.svg here).")
def draw_cmd(scenario, sets, out):
    """Draw SCENARIO's network as an SVG: nodes, links (rate, delay), bottlenecks, each pair's
    discipline at them, and the flows."""
    from fairsim.draw import draw, write_svg
    from fairsim.output import safe_name

    sc = open_scenario(scenario, list(sets), origin="--set")
    path = Path(out or f"{safe_name(sc.name)}.svg")
    if path.parent != Path() and not path.parent.is_dir():
        raise FairsimError(f"--out {out}: the folder {path.parent} does not exist")
    write_svg(draw(sc), path)
    click.echo(f"wrote {path}")


@main.command("run")
@click.argument("scenario")
@click.option(
    "--pair", "pairs", multiple=True, help="Run only this protocol pair (repeatable; default: all)."
)
@click.option(
    "--seeds", "replications", type=click.IntRange(1, MOST_SEEDS), help="N replications: seeds 1..N."
)
@click.option(
    "--seed",
    "seeds",
    multiple=True,
    type=click.IntRange(0, SEED_MAX),
    help="A seed (repeatable; instead of --seeds).",
)
@overrides_option
@click.option(
    "--out", type=click.Path(file_okay=False), help="Write tables, JSON and resolved scenarios here."
)
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON document on stdout.")
@click.option(
    "--per-seed",
    is_flag=True,
    help="A table per seed (default: per pair, the mean over seeds with a 95% CI).",
)
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Runs in parallel (default: one per core).")
@click.option(
    "--gps",
    "gps_ports",
    multiple=True,
    metavar="PORT",
    help="Compare the service at PORT (e.g. gw->sink) with the ideal fluid one (repeatable).",
)
@click.option(
    "--trace",
    "trace_flows",
    multiple=True,
    metavar="FLOW",
    help="Record FLOW's sender variables over time (cwnd, rate, ...; * for all; repeatable).",
)
@click.option(
    "--trace-queue", "trace_queues", multiple=True, metavar="PORT", help="Record PORT's queue length."
)
@click.option(
    "--pcap",
    "pcap_ports",
    multiple=True,
    metavar="PORT",
    help="Write a pcap file of the packets PORT sends (for Wireshark; needs --out; repeatable).",
)
@click.option(
    "--events",
    "event_ports",
    multiple=True,
    metavar="PORT",
    help="Write PORT's packet events (queued, sent, dropped, received) as text (needs --out).",
)
@click.option(
    "--queues",
    type=click.Choice(["auto", "all"]),
    default="auto",
    show_default=True,
    help="Which queues the tables show: auto (a workload's by tier, others' busy ones) or all.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="One progress bar for all the runs (default: on a terminal).",
)
@click.option("--verbose", "-v", is_flag=True, help="Say on how many threads each run went, or why on one.")
def run_cmd(
    scenario,
    pairs,
    replications,
    seeds,
    sets,
    out,
    fmt,
    as_json,
    per_seed,
    jobs,
    gps_ports,
    trace_flows,
    trace_queues,
    pcap_ports,
    event_ports,
    queues,
    progress,
    verbose,
):
    """Run SCENARIO (a file, or a bundled name such as examples/dumbbell) under its pairs."""
    sets = list(sets)
    built = click.get_current_context().meta.setdefault(OPTION_OVERRIDES, {})
    for key, option, values in (
        ("run.fluid_reference", "--gps", gps_ports),
        ("run.trace", "--trace", trace_flows),
        ("run.trace_queues", "--trace-queue", trace_queues),
        ("run.pcap", "--pcap", pcap_ports),
        ("run.events", "--events", event_ports),
    ):
        if values:
            sets.append(f"{key}=" + json.dumps(list(values)))
            built[sets[-1]] = " ".join(f"{option} {v}" for v in values)
    if replications and seeds:
        raise click.UsageError("give --seeds N (seeds 1..N) or --seed S (repeatable), not both")
    for option, given in (("--pcap", pcap_ports), ("--events", event_ports)):
        if given and not out:
            raise click.UsageError(f"{option} writes a file per port: give a folder with --out DIR")
    sc = open_scenario(scenario, sets, origin="--set")
    if out:
        from fairsim.output import check_folder

        check_folder(out, f"--out {out}")  # before the runs: their results would have nowhere to go
    else:
        _captures_need_out(sc)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FairsimWarning)
        results = run(
            sc,
            pairs=list(pairs) or None,
            seed=list(seeds) or None,
            seeds=replications,
            progress=progress,
            jobs=jobs,
            verbose=verbose,
        )
    for w in caught:
        stderr().print(f"[bold yellow]warning[/]: {_escape(str(w.message))}", soft_wrap=True)
    if out:
        from fairsim.output import write_results

        files = write_results(results, out, fmt)
        stderr().print(f"wrote {len(files)} files to {_escape(str(out))}", soft_wrap=True)
    if as_json:
        click.echo(results.to_json())
    else:
        from fairsim.table_parts import emit
        from fairsim.tables import all_tables

        emit(all_tables(results, per_seed, queues))
    if results.interrupted:
        stderr().print(
            "[bold red]interrupted[/]: the results above are partial"
            + (f" (written to {_escape(str(out))})" if out else "")
        )
        raise click.exceptions.Exit(EXIT_INTERRUPTED)


def _captures_need_out(sc) -> None:
    """Raises FairsimError when the scenario's `[run] pcap` or `events` (in the file, or from
    --set) names ports without --out: `fairsim run` writes those files only into a folder, as
    it refuses --pcap and --events without one, rather than capture them for nothing."""
    for field, where in sc.captures():
        what = "a pcap file" if field == "run.pcap" else "a file of packet events"
        raise FairsimError(
            f"{where}: {field}: writes {what} per port, and `fairsim run` writes files into a "
            f"folder: give one with --out DIR (or capture nothing: --set {field}=[])"
        )


@main.command("validate")
@click.argument("scenario")
@overrides_option
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Every queue and flow, however many (long tables show their first and last rows).",
)
@click.option(
    "--draw", "drawing", type=click.Path(dir_okay=False), help="Also draw the network as an SVG file."
)
def validate_cmd(scenario, sets, every, drawing):
    """Check SCENARIO and show how each pair resolves (disciplines, buffers, transports, routes)."""
    from fairsim.table_parts import MAX_ROWS, console, emit

    sc = open_scenario(scenario, list(sets), origin="--set")
    if drawing:
        from pathlib import Path

        from fairsim.draw import draw, write_svg

        write_svg(draw(sc), Path(drawing))
    screen = console()
    screen.print(
        f"[bold green]ok[/]: {_escape(sc.file)} — [bold]{_escape(sc.name)}[/]: {len(sc.nodes)} nodes, "
        f"{len(sc.flows)} flows, pairs {_escape(', '.join(sc.pairs))}",
        soft_wrap=True,
    )
    if sc.description:
        screen.print(sc.description, soft_wrap=True, markup=False)
    links, flows = sc.links, sc.flows
    # the engine writes only the links and flows that can be shown (every one of a table shown
    # whole, which has at most MAX_ROWS rows; the ends of a longer one): as quick for 100,000
    # flows as for 10
    ends = None if every else MAX_ROWS
    for pair in sc.pairs:
        doc = sc.resolved(pair, ends=ends)
        screen.print()
        for part in (*_queues_parts(pair, doc, links, every), *_flows_parts(pair, doc, flows, every)):
            emit(part, screen)
    if doc.get("events"):  # the network's, the same under every pair
        screen.print()
        emit(_events_part(doc), screen)


def _events_part(doc: dict):
    """`fairsim validate`'s table of the network's changes (`[[events]]`), as resolved."""
    from rich.table import Table

    table = Table(title="network events", box=None, header_style="bold", title_justify="left")
    for col in ("at", "changes", "action", "forwarding learns after"):
        table.add_column(col)
    for e in doc["events"]:
        what = next(f"{key} {e[key]}" for key in ("link", "port", "node") if key in e)
        action = f"rate {e['rate']}" if e["action"] == "rate" else e["action"]
        learns = "—" if e["action"] == "rate" else e["detection"]
        table.add_row(e["at"], _escape(what), action, learns)
    return table


def _queues_parts(pair: str, doc: dict, links: list[str], every: bool) -> list:
    """`fairsim validate`'s table of a pair's queues (two per link) from its resolved scenario."""
    from rich.table import Table

    from fairsim.table_parts import add_rows

    table = Table(title=f"pair {pair}: queues", box=None, header_style="bold", title_justify="left")
    # a `loss` column only where some link loses packets: other tables stay as they were
    lossy = any(link[d].get("loss") for link in doc["links"].values() for d in ("forward", "reverse"))
    for col in ("queue", "rate", "delay", "buffer", "qdisc", *(["loss"] if lossy else [])):
        table.add_column(col)

    def row(i: int) -> list[str]:
        link = doc["links"][links[i // 2]]
        a, b = link["between"]
        direction, (src, dst) = ("forward", (a, b)) if i % 2 == 0 else ("reverse", (b, a))
        d = link[direction]
        q = d["qdisc"]
        params = ", ".join(f"{k}={v}" for k, v in q.items() if k != "kind")
        cells = [
            f"{src}->{dst}",
            d["rate"],
            d["delay"],
            d["buffer"],
            q["kind"] + (f" ({params})" if params else ""),
        ]
        if lossy:
            loss = d.get("loss")
            cells.append(", ".join(f"{k}={v}" for k, v in loss.items()) if loss else "none")
        return cells

    return add_rows(table, 2 * len(links), row, "queues", every, hint="--all shows every one")


def _flows_parts(pair: str, doc: dict, flows: list[str], every: bool) -> list:
    """`fairsim validate`'s table of a pair's flows from its resolved scenario, and the table of
    their transports: each resolved transport once, named T1, T2, … in the flows' rows (ten
    CUBIC flows share one line of parameters, not ten)."""
    from rich.table import Table

    from fairsim.table_parts import add_rows

    table = Table(title=f"pair {pair}: flows", box=None, header_style="bold", title_justify="left")
    for col in ("flow", "app", "transport", "route"):
        table.add_column(col)
    #: a resolved transport's parameters as shown -> its label and the flows shown with it
    transports: dict[str, tuple[str, list[str]]] = {}

    def row(i: int) -> list[str]:
        # a workload is one flow of the results, written under [workloads] (docs/workloads.md)
        workload = flows[i] not in doc["flows"]
        f = doc["workloads"][flows[i]] if workload else doc["flows"][flows[i]]
        t = f["transport"]
        transport = t
        if not isinstance(t, str):
            params = t["kind"] + " (" + ", ".join(f"{k}={v}" for k, v in t.items() if k != "kind") + ")"
            label, users = transports.setdefault(params, (f"T{len(transports) + 1}", []))
            users.append(flows[i])
            transport = f"{t['kind']} [{label}]"
        app = f"workload: {f['pattern']}" if workload else f["app"]
        forwarding = f.get("forwarding", doc["run"].get("forwarding", "static"))
        route = " → ".join(f["route"]) if "route" in f else f"chosen at each switch ({forwarding})"
        return [flows[i], app, transport, route]

    parts = add_rows(table, len(flows), row, "flows", every, hint="--all shows every one")
    if transports:
        shown = Table(title=f"pair {pair}: transports", box=None, header_style="bold", title_justify="left")
        for col in ("", "flows", "transport, every parameter resolved"):
            shown.add_column(col)
        for params, (label, users) in transports.items():
            named = ", ".join(users[:3]) + (f" and {len(users) - 3:,} more" if len(users) > 3 else "")
            shown.add_row(label, _escape(named), _escape(params))
        parts.append(shown)
    return parts


@main.group("bench")
def bench_group():
    """Studies that measure algorithms rather than networks."""


@bench_group.command("fq-buffers")
@click.option("--quick", is_flag=True, help="A 3x3 grid of 300 s runs instead of 5x5 of 2500 s.")
@click.option("--out", type=click.Path(file_okay=False), default="fq-buffers", show_default=True)
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Runs in parallel (default: one per core).")
def fq_buffers_cmd(quick, out, jobs):
    """Keshav 1991 ch. 3: FQ's packet buffer as list, tree, double heap and per-conversation queues."""
    from pathlib import Path

    from rich.table import Table

    from fairsim.studies import fq_buffers as study
    from fairsim.table_parts import console, emit

    grid = study.QUICK if quick else study.Grid()
    df = study.run(grid, jobs=jobs)
    Path(out).mkdir(parents=True, exist_ok=True)
    df.to_csv(Path(out) / "fq_buffers.csv", index=False)
    study.plot(df, str(Path(out) / "fq_buffers.png"))
    screen = console()
    for value, title in (
        ("ops_per_insert", "average elementary operations per insertion"),
        ("max_ops_per_insert", "maximum elementary operations in one insertion"),
        ("wall_s", "wall seconds per run (the whole simulation)"),
    ):
        t = study.pivot(df, value)
        table = Table(title=title, box=None, header_style="bold", title_justify="left")
        for col in ["N", "B", "regime", *t.columns]:
            table.add_column(col, justify="left" if col == "regime" else "right")
        for (n, b, regime), row in t.iterrows():
            table.add_row(str(n), str(b), regime, *(f"{v:.3g}" for v in row))
        emit(table, screen)
        screen.print()
    same = study.check_same_traffic(df)
    screen.print(
        "the four structures sent and dropped the same packets at every point"
        if same
        else "[bold red]the structures' runs differ: this is a bug[/]"
    )
    screen.print(
        f"wrote {Path(out) / 'fq_buffers.csv'} and {Path(out) / 'fq_buffers.png'}",
        markup=False,
        soft_wrap=True,
    )
    if not same:
        raise click.exceptions.Exit(1)


@main.command("list")
@click.argument("name", required=False)
def list_cmd(name):
    """List disciplines, transports, applications and bundled scenarios; with NAME, the
    parameters of that discipline, transport or application."""
    from rich.table import Table

    from fairsim.table_parts import console, emit

    screen = console()
    everything = catalogue()
    if name is not None:
        _show_component(name, everything, screen)
        return
    for title, entries in everything.items():
        table = Table(title=title, box=None, header_style="bold", title_justify="left", show_header=False)
        table.add_column("name", style="bold cyan")
        table.add_column("summary")
        for e in entries:
            reference = f"  [dim]{_escape(e.reference)}[/]" if e.reference else ""
            table.add_row(_escape(e.name), _escape(e.summary) + reference)
        emit(table, screen)
        screen.print()


def _show_component(name: str, everything: dict, screen) -> None:
    kinds = ("disciplines", "transports", "applications")
    found = [(kind, e) for kind in kinds for e in everything[kind] if e.name == name]
    if not found:
        known = [e.name for kind in kinds for e in everything[kind]]
        hint = _core.did_you_mean(name, known)
        raise click.UsageError(f"no discipline, transport or application `{name}`{hint}")
    for kind, e in found:  # `decbit` is both a gateway and a source
        screen.print(f"[bold cyan]{_escape(e.name)}[/] ({kind[:-1]}): {_escape(e.summary)}")
        if e.reference:
            screen.print(f"[dim]{_escape(e.reference)}[/]")
        if not e.parameters:
            screen.print("no parameters")
        else:
            from rich.table import Table

            from fairsim.table_parts import emit

            table = Table(box=None, header_style="bold")
            for column in ("parameter", "default", "meaning"):
                table.add_column(column)
            for p in e.parameters:
                table.add_row(*(_escape(x) for x in (p.name, "—" if p.default is None else p.default, p.doc)))
            emit(table, screen)
        screen.print()


if __name__ == "__main__":
    sys.exit(main())
