"""The tables `fairsim run` prints and `Results.summary()` returns."""

from __future__ import annotations

import io
import math
import sys
from typing import TYPE_CHECKING

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from fairsim.results import Results

#: Shown for a value that does not exist (no sample, no interval).
NA = "\N{EN DASH}"

#: Queues busier than this, or with drops, are shown; the rest are summarised in one line.
BUSY = 0.05


def num(x: float | None, digits: int = 3) -> str:
    """A number with `digits` significant digits, without scientific notation for usual values."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return NA
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}" if abs(x) < 1e7 else f"{x:.{digits - 1}e}"


def pm(summary: dict | None) -> str:
    """`mean ± std` of a summary (just the mean when there is a single interval)."""
    if not summary:
        return NA
    mean, std = summary["mean"], summary["std"]
    return num(mean) if summary["n"] < 2 else f"{num(mean)} ± {num(std, 2)}"


def pct(summary: dict | None) -> str:
    """A fraction summary as percentages."""
    if not summary:
        return NA
    mean, std = summary["mean"] * 100, summary["std"] * 100
    return f"{num(mean)}%" if summary["n"] < 2 else f"{num(mean)}% ± {num(std, 2)}%"


def rate(bps: float | None) -> str:
    if bps is None:
        return NA
    for unit, div in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if abs(bps) >= div:
            return f"{num(bps / div)} {unit}"
    return f"{num(bps)} b/s"


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
    return Console(file=file, width=width, highlight=False, **kw)


def run_tables(run: dict) -> Group:
    m = run["measurement"]
    state = "" if run["complete"] else f"  [bold red]interrupted at {num(run['simulated_s'])} s[/]"
    head = Text.from_markup(
        f"[bold]{run['scenario']}[/] · pair [bold cyan]{run['pair']}[/] · seed {run['seed']} · "
        f"{m['intervals']} interval{'s' if m['intervals'] != 1 else ''} of {num(m['interval_s'])} s "
        f"after {num(m['warmup_s'])} s warm-up{state}"
    )
    flows = _table(
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
    for f in run["flows"]:
        g = f["goodput_bps"]
        share = f["share_of_fair"]
        flows.add_row(
            f["name"],
            f["app"],
            f["transport"],
            pm(f["goodput_pps"]),
            rate(g["mean"] if g else None),
            pm(f["rtt_s"]),
            pm(f["retransmit_pps"]),
            pm(f["drop_pps"]),
            f"{share:.0%}" if share is not None else NA,
        )
    fair = run["fairness"]
    jain = Text.from_markup(
        f"Jain's fairness index {num(fair['jain'])} over {len(fair['flows'])} flows "
        f"(goodput relative to max-min fair share; raw goodput: {num(fair['jain_raw'])})"
    )
    queues = _table(["queue", "qdisc", "rate", "buffer", "utilisation", "mean queue pkts", "drops"], left=2)
    hidden = 0
    for q in run["queues"]:
        util = q["utilisation"]["mean"] if q["utilisation"] else 0.0
        if util < BUSY and q["totals"]["drops"] == 0:
            hidden += 1
            continue
        queues.add_row(
            q["port"],
            q["qdisc"],
            rate(q["rate_bps"]),
            q["buffer"],
            pct(q["utilisation"]),
            pm(q["occupancy_pkts"]),
            str(q["totals"]["drops"]),
        )
    parts = [head, flows, jain, Text(""), queues]
    if hidden:
        parts.append(
            Text(f"({hidden} queues below {BUSY:.0%} utilisation and without drops not shown)", style="dim")
        )
    for port in run.get("fluid", []):
        parts += [Text(""), fluid_table(port)]
    parts.append(Text(f"{run['events']:,} events in {run['wall_s']:.2f} s", style="dim"))
    return Group(*parts)


def fluid_table(port: dict) -> Table:
    """How far each flow's service at a port strayed from the ideal fluid (GPS) service."""
    table = _table(
        ["vs GPS at " + port["port"], "packets", "mean lag", "max lag", "max behind", "max ahead"], left=1
    )
    for f in port["flows"]:
        name = f["flow"] + (" (ACKs)" if f["kind"] == "ack" else "")
        table.add_row(
            name,
            str(f["packets"]),
            f"{num(f['mean_lag_s'] * 1e3)} ms",
            f"{num(f['max_lag_s'] * 1e3)} ms",
            f"{num(f['max_behind_bytes'])} B",
            f"{num(f['max_ahead_bytes'])} B",
        )
    return table


def all_tables(results: Results) -> Group:
    groups = []
    for i, run in enumerate(results.runs):
        if i:
            groups.append(Text(""))
        groups.append(run_tables(run))
    return Group(*groups)


def render_text(results: Results, width: int = 120) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, no_color=True, highlight=False).print(all_tables(results))
    return buf.getvalue()


def render_html(results: Results) -> str:
    console = Console(record=True, width=140, file=io.StringIO())
    console.print(all_tables(results))
    return console.export_html(inline_styles=True)
