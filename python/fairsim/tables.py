"""The tables `fairsim run` prints and `Results.summary()` returns.

A pair run with one seed gets a table of means ± standard deviations over its measurement
intervals; a pair run with several seeds gets one table of means over the seeds ± the 95%
confidence interval of those means (per-seed tables on request). Runs that Ctrl-C stopped
before they started are listed in one line.
"""

from __future__ import annotations

import io
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from fairsim import _core

if TYPE_CHECKING:
    from fairsim.results import Results

#: Shown for a value that does not exist (no sample, no interval).
NA = "\N{EN DASH}"

#: Queues busier than this, or with drops, are shown; the rest are summarised in one line.
BUSY = 0.05

#: Significant digits of a value; its ± gets the same decimal places.
DIGITS = 3

#: Units of a quantity, largest first; values below the last are shown in the last.
TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
SIZE_UNITS = (("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1.0))
RATE_UNITS = (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3), ("b/s", 1.0))


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _decimals(x: float, digits: int = DIGITS) -> int:
    """Decimal places that show `x` with `digits` significant digits."""
    return max(0, digits - 1 - math.floor(math.log10(abs(x)))) if x else 0


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def num(x: float | None, digits: int = DIGITS) -> str:
    """A number with `digits` significant digits, without scientific notation for usual values."""
    if _missing(x):
        return NA
    if abs(x) >= 1e7:
        return f"{x:.{digits - 1}e}"
    return f"{x:,.{_decimals(x, digits)}f}"


@dataclass(frozen=True)
class Stat:
    """A value and its spread (a standard deviation or a confidence half-width) over `n` samples."""

    mean: float
    spread: float = 0.0
    n: int = 1

    def scaled(self, factor: float) -> Stat:
        return Stat(self.mean * factor, self.spread * factor, self.n)


def pm(stat: Stat | None, unit: str = "", decimals: int | None = None) -> str:
    """`mean ± spread`, the spread with the mean's decimal places; just the mean for one sample."""
    if stat is None or _missing(stat.mean):
        return NA
    mean, spread = stat.mean, stat.spread
    if abs(mean) >= 1e7:
        return f"{mean:.{DIGITS - 1}e}" + (f" ± {spread:.1e}" if stat.n > 1 else "") + unit
    # a zero mean has no decimals of its own: the spread's two significant digits set them
    places = decimals if decimals is not None else _decimals(mean or spread, DIGITS if mean else 2)
    if stat.n < 2 or _missing(spread):
        return f"{mean:,.{places}f}{unit}"
    return f"{mean:,.{places}f} ± {spread:,.{places}f}{unit}"


def with_unit(stat: Stat | None, units, last_decimals: int | None = None) -> str:
    """`pm` in the largest of `units` that the value reaches (zero in the unit of size 1)."""
    if stat is None or _missing(stat.mean):
        return NA
    magnitude = max(abs(stat.mean), abs(stat.spread) if stat.n > 1 else 0.0)
    if magnitude == 0:
        return pm(stat, " " + next(n for n, d in units if d == 1.0))
    name, div = next(((n, d) for n, d in units if magnitude >= d), units[-1])
    return pm(stat.scaled(1 / div), f" {name}", last_decimals if name == units[-1][0] else None)


def duration(stat: Stat | None) -> str:
    return with_unit(stat, TIME_UNITS)


def size(stat: Stat | None) -> str:
    """Bytes: whole bytes below a kilobyte (a fluid lag of 0.014 B is no lag), then kB, MB, GB."""
    return with_unit(stat, SIZE_UNITS, last_decimals=0)


def rate(bps: float | None) -> str:
    return NA if _missing(bps) else with_unit(Stat(bps), RATE_UNITS)


def pct(stat: Stat | None) -> str:
    """A fraction as a percentage."""
    return pm(stat.scaled(100), "%") if stat else NA


def stat_over(runs: list[dict], get: Callable[[dict], Any]) -> Stat | None:
    """One cell of a table for runs of one pair.

    `get(run)` is a summary (mean, std and n over the run's intervals) or a plain number. For a
    single run the cell is that summary; for several, the mean of the runs' values and the 95%
    confidence half-width of that mean (Student's t, as everywhere in fairsim).
    """
    values = [get(r) for r in runs]
    if len(values) == 1:
        v = values[0]
        if isinstance(v, dict):
            return Stat(v["mean"], v["std"], v["n"])
        return None if _missing(v) else Stat(float(v))
    means = [v["mean"] if isinstance(v, dict) else v for v in values]
    summary = _core.summarize([float(m) for m in means if not _missing(m)])
    if summary is None:
        return None
    mean, _, ci95, n = summary
    return Stat(mean, ci95, n)


def _table(columns: list[str], left: int = 3) -> Table:
    """A borderless table whose first `left` columns are text and the rest numbers."""
    table = Table(box=None, header_style="bold", pad_edge=False)
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i < left else "right", no_wrap=True)
    return table


def console(file=None, **kw) -> Console:
    """A console that does not squeeze tables into 80 columns when writing to a pipe or file."""
    stream = file or sys.stdout
    width = None if stream.isatty() else 160
    return Console(file=file, width=width, highlight=False, force_jupyter=False, **kw)


#: The end of a line: spaces rich pads it with, among the colour codes that close it.
_LINE_END = re.compile(r"(?: |\x1b\[[0-9;]*m)+$", re.MULTILINE)
_CODE = re.compile(r"\x1b\[[0-9;]*m")


#: Tables of more rows than this are laid out here, not by rich (about a millisecond a row: a
#: quarter of an hour for the 300,000 rows `fairsim validate` shows of a network of 100,000 flows).
PLAIN_ROWS = 200


def _cell_text(cell, target: Console) -> str | None:
    """A cell's text as rich shows it, or None if it is something other than text."""
    if isinstance(cell, Text):
        return cell.plain
    if not isinstance(cell, str):
        return None
    # only markup (`[...]`) and emoji codes (`:name:`) change a string
    return target.render_str(cell).plain if ("[" in cell or ":" in cell) else cell


def _rows_laid_out(table: Table, target: Console) -> str | None:
    """`table` laid out as rich lays out a borderless table that fits its width, without styles;
    None if the table uses something this does not reproduce. A table wider than the console is
    not wrapped."""
    top, right, bottom, left = table.padding
    simple = (
        table.box is None
        and not (top or bottom or table.expand or table.show_footer or table.collapse_padding or table.caption)
        and (table.title is None or table.title_justify == "left")
        and all(
            c.justify in ("left", "right") and c.width is None and c.min_width is None and c.max_width is None
            for c in table.columns
        )
    )
    if not simple:
        return None
    columns = []
    for c in table.columns:
        texts = [_cell_text(cell, target) for cell in c.cells]
        header = [_cell_text(c.header, target)] if table.show_header else []
        if None in texts or None in header or any("\n" in t for t in texts + header):
            return None
        columns.append(header + texts)
    # a character's width is 1 in ASCII; rich measures the rest (wide and combining characters)
    lengths = [[len(t) if t.isascii() else cell_len(t) for t in col] for col in columns]
    widths = [max(col, default=0) for col in lengths]
    last = len(columns) - 1
    pads = [
        (left if i > 0 or table.pad_edge else 0, right if i < last or table.pad_edge else 0)
        for i in range(len(columns))
    ]
    lines = []
    if table.title is not None:
        lines.append(_cell_text(table.title, target) or "")
    layout = list(zip(widths, pads, (c.justify == "left" for c in table.columns)))
    for row, row_lengths in zip(zip(*columns), zip(*lengths)):
        cells = []
        for text, length, (width, (lp, rp), left_justified) in zip(row, row_lengths, layout):
            fill = " " * (width - length)
            cells.append(" " * lp + (text + fill if left_justified else fill + text) + " " * rp)
        lines.append("".join(cells).rstrip(" "))
    return "\n".join(lines) + "\n"


def emit(renderable, target: Console | None = None) -> None:
    """Prints through `target` (default: :func:`console`) without trailing spaces on any line."""
    target = target or console()
    if isinstance(renderable, Table) and renderable.row_count > PLAIN_ROWS:
        text = _rows_laid_out(renderable, target)
        if text is not None:
            target.file.write(text)
            return
    with target.capture() as captured:
        target.print(renderable)
    text = _LINE_END.sub(lambda m: "".join(_CODE.findall(m.group())), captured.get())
    target.file.write(text)


def _named(items: list[dict], key: str, name: str) -> dict | None:
    return next((x for x in items if x[key] == name), None)


def _field(section: str, key: str, name: str, metric: str) -> Callable[[dict], Any]:
    """`run[section][the item whose key is name][metric]`, or None when that run lacks the item."""

    def get(run: dict) -> Any:
        item = _named(run[section], key, name)
        return item[metric] if item else None

    return get


def _heading(runs: list[dict]) -> Text:
    first = runs[0]
    m = first["measurement"]
    if len(runs) == 1:
        which = f"seed {first['seed']}"
    else:
        which = f"{plural(len(runs), 'seed')} ({', '.join(str(r['seed']) for r in runs)})"
    stopped = "".join(
        f"  [bold red]{'' if len(runs) == 1 else 'seed ' + str(r['seed']) + ' '}interrupted at "
        f"{num(r['simulated_s'])} s[/]"
        for r in runs
        if not r["complete"]
    )
    return Text.from_markup(
        f"[bold]{_escape(first['scenario'])}[/] · pair [bold cyan]{_escape(first['pair'])}[/] · {which} · "
        f"{plural(m['intervals'], 'interval')} of {num(m['interval_s'])} s after {num(m['warmup_s'])} s "
        f"warm-up{stopped}"
    )


def _escape(text: str) -> str:
    return text.replace("[", r"\[")


def _flows_table(runs: list[dict]) -> Table:
    table = _table(
        [
            "flow",
            "app",
            "transport",
            "goodput pkt/s",
            "goodput",
            "RTT s",
            "retx/s",
            "drops/s",
            "of fair share",
        ]
    )
    for f in runs[0]["flows"]:

        def cell(metric: str, name: str = f["name"]) -> Stat | None:
            return stat_over(runs, _field("flows", "name", name, metric))

        goodput, share = cell("goodput_bps"), cell("share_of_fair")
        table.add_row(
            f["name"],
            f["app"],
            f["transport"],
            pm(cell("goodput_pps")),
            rate(goodput.mean if goodput else None),
            pm(cell("rtt_s")),
            pm(cell("retransmit_pps")),
            pm(cell("drop_pps")),
            f"{share.mean:.0%}" if share else NA,
        )
    return table


def _fairness_line(runs: list[dict]) -> Text:
    fair = runs[0]["fairness"]
    jain = stat_over(runs, lambda r: r["fairness"]["jain"])
    raw = stat_over(runs, lambda r: r["fairness"]["jain_raw"])
    return Text(
        f"Jain's fairness index {pm(jain)} over {plural(len(fair['flows']), 'flow')} "
        f"(goodput relative to max-min fair share; raw goodput: {pm(raw)})"
    )


def _busy(queue: dict) -> bool:
    util = queue["utilisation"]["mean"] if queue["utilisation"] else 0.0
    return util >= BUSY or queue["totals"]["drops"] > 0


def _queue_parts(runs: list[dict]) -> list:
    table = _table(["queue", "qdisc", "rate", "buffer", "utilisation", "mean queue pkts", "drops"], left=2)
    hidden = 0
    for q in runs[0]["queues"]:
        port = q["port"]
        if not any(_busy(x) for r in runs if (x := _named(r["queues"], "port", port))):
            hidden += 1
            continue
        drops = stat_over(
            runs, lambda r, port=port: (_named(r["queues"], "port", port) or {})["totals"]["drops"]
        )
        table.add_row(
            port,
            q["qdisc"],
            rate(q["rate_bps"]),
            q["buffer"],
            pct(stat_over(runs, _field("queues", "port", port, "utilisation"))),
            pm(stat_over(runs, _field("queues", "port", port, "occupancy_pkts"))),
            f"{drops.mean:,.0f}" if len(runs) == 1 else pm(drops),
        )
    parts: list = [table]
    if hidden:
        parts.append(
            Text(
                f"({plural(hidden, 'queue')} below {BUSY:.0%} utilisation and without drops not shown)",
                style="dim",
            )
        )
    return parts


def fluid_table(runs: list[dict], port: str) -> Table:
    """How far each flow's service at a port strayed from the ideal fluid (GPS) service."""
    table = _table(["vs GPS at " + port, "packets", "mean lag", "max lag", "max behind", "max ahead"], left=1)
    flows = _named(runs[0]["fluid"], "port", port)["flows"]
    for f in flows:

        def cell(metric: str, flow: str = f["flow"], kind: str = f["kind"]) -> Stat | None:
            def get(run: dict) -> Any:
                at = _named(run.get("fluid", []), "port", port)
                row = (
                    next((x for x in at["flows"] if x["flow"] == flow and x["kind"] == kind), None)
                    if at
                    else None
                )
                return row[metric] if row else None

            return stat_over(runs, get)

        packets = cell("packets")
        table.add_row(
            f["flow"] + (" (ACKs)" if f["kind"] == "ack" else ""),
            f"{packets.mean:,.0f}" if len(runs) == 1 else pm(packets),
            duration(cell("mean_lag_s")),
            duration(cell("max_lag_s")),
            size(cell("max_behind_bytes")),
            size(cell("max_ahead_bytes")),
        )
    return table


def pair_tables(runs: list[dict]) -> Group:
    """The tables of one pair: one run's, or the mean over several seeds' runs."""
    parts: list = [_heading(runs), _flows_table(runs), _fairness_line(runs), Text(""), *_queue_parts(runs)]
    for port in runs[0].get("fluid", []):
        parts += [Text(""), fluid_table(runs, port["port"])]
    events = sum(r["events"] for r in runs)
    wall = sum(r.get("wall_s", 0.0) for r in runs)
    legend = "mean ± std over intervals" if len(runs) == 1 else "mean ± 95% CI over seeds"
    over = "" if len(runs) == 1 else f" ({plural(len(runs), 'run')})"
    parts.append(Text(f"values: {legend} · {events:,} events in {wall:.2f} s{over}", style="dim"))
    return Group(*parts)


def never_started(run: dict) -> bool:
    """A run that Ctrl-C stopped before its first event."""
    return not run["complete"] and run["events"] == 0


def not_run_line(runs: list[dict]) -> Text | None:
    """`not run (interrupted): G/RD seeds 2, 3` for runs Ctrl-C stopped before they started."""
    by_pair: dict[str, list[str]] = {}
    for r in runs:
        if never_started(r):
            by_pair.setdefault(r["pair"], []).append(str(r["seed"]))
    if not by_pair:
        return None
    listed = "; ".join(
        f"{pair} {'seed' if len(seeds) == 1 else 'seeds'} {', '.join(seeds)}"
        for pair, seeds in by_pair.items()
    )
    return Text(f"not run (interrupted): {listed}", style="bold red")


def all_tables(results: Results, per_seed: bool = False) -> Group:
    """One table group per pair (per run with `per_seed`), then the runs that never started."""
    ran = [r for r in results.runs if not never_started(r)]
    groups: list = []
    for pair in dict.fromkeys(r["pair"] for r in ran):
        runs = [r for r in ran if r["pair"] == pair]
        for chunk in [[r] for r in runs] if per_seed else [runs]:
            if groups:
                groups.append(Text(""))
            groups.append(pair_tables(chunk))
    line = not_run_line(results.runs)
    if line is not None:
        groups += [Text(""), line] if groups else [line]
    return Group(*groups)


def _plain(renderable, width: int) -> str:
    """Text without colours or trailing spaces, whatever the front end (Jupyter included)."""
    buf = io.StringIO()
    plain = Console(
        file=buf, width=width, color_system=None, force_terminal=False, force_jupyter=False, highlight=False
    )
    plain.print(renderable)
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())


def render_text(results: Results, width: int = 120, per_seed: bool = False) -> str:
    return _plain(all_tables(results, per_seed), width)


#: An HTML fragment, not a page: a notebook embeds it, and a page's `body` style would restyle the notebook.
HTML_FRAGMENT = '<pre style="font-family: monospace; line-height: 1.3"><code>{code}</code></pre>'


def render_html(results: Results, per_seed: bool = False) -> str:
    console = Console(record=True, width=140, file=io.StringIO(), force_jupyter=False)
    console.print(all_tables(results, per_seed))
    text = console.export_html(inline_styles=True, code_format=HTML_FRAGMENT)
    return _LINE_END.sub("", text)
