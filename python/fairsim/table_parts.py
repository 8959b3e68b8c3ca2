"""The pieces every table of fairsim's is built from: how a number, a duration, a size, a rate
and a mean with its spread are shown, an empty table, which rows of a long table are shown, and
the console they are printed to. The run's tables (`fairsim.tables`), a workload's
(`fairsim.workload_tables`), the events' (`fairsim.event_tables`) and a study's build on these
and nothing here imports them back."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from fairsim import _core
from fairsim.columns import each

#: Shown for a value that does not exist (no sample, no interval).
NA = "\N{EN DASH}"

#: Queues busier than this, or with drops, are shown; the rest are summarised in one line.
BUSY = 0.05

#: Significant digits of a value; its ± gets the same decimal places.
DIGITS = 3

#: Units of a quantity, largest first, as the engine's catalogue names them for reading
#: (`_core.shown_units()`: seconds for times); values below the last are shown in the last.
_SHOWN = _core.shown_units()
TIME_UNITS = tuple((name, factor / 1e9) for name, factor in _SHOWN["time"])
SIZE_UNITS = tuple((name, float(factor)) for name, factor in _SHOWN["size"])
RATE_UNITS = tuple((name, float(factor)) for name, factor in _SHOWN["rate"])


#: Tables of more rows than this show only their first and last `END_ROWS` rows, and say so: the
#: tables of a network of 100,000 flows would be 300,000 rows that nobody reads, and minutes of
#: layout (docs/decisions.md, "Long tables show their ends").
MAX_ROWS = 200
END_ROWS = 10


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def shown_rows(total: int, every: bool = False) -> list[int | None]:
    """The rows a table of `total` rows shows: all of them up to `MAX_ROWS` (or with `every`),
    else the first and last `END_ROWS`, with None for the rows left out between them."""
    if every or total <= MAX_ROWS:
        return list(range(total))
    return [*range(END_ROWS), None, *range(total - END_ROWS, total)]


def add_rows(
    table: Table,
    total: int,
    row: Callable[[int], Sequence[Any]],
    noun: str,
    every: bool = False,
    hint: str = "",
) -> list:
    """Adds `row(i)` for each of the `total` rows that `table` shows (`shown_rows`) and returns
    what to print: the table, and under a table left short (with a row of `…` where rows are
    left out) the line that says so (`(100,000 flows: the first 10 and last 10 shown; HINT)`).
    Only the rows shown are built, so a long table costs as little as a short one."""
    for i in shown_rows(total, every):
        cells = row(i) if i is not None else ["…"] * len(table.columns)
        # the user's names and values, not markup: `ftp[1]` keeps its brackets
        table.add_row(*(escape(c) if isinstance(c, str) else c for c in cells))
    if every or total <= MAX_ROWS:
        return [table]
    note = f"({total:,} {noun}: the first {END_ROWS} and last {END_ROWS} shown{'; ' + hint if hint else ''})"
    return [table, Text(note, style="dim")]


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


def buffer(queue: dict) -> str:
    """A queue's buffer limit as a scenario writes it: `50 packets`, `64000B`, `unlimited`."""
    if queue.get("buffer_packets") is not None:
        return f"{queue['buffer_packets']} packets"
    if queue.get("buffer_bytes") is not None:
        return f"{queue['buffer_bytes']}B"
    return "unlimited"


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


def bare_table(columns: list[str], left: int = 3) -> Table:
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
LINE_END = re.compile(r"(?: |\x1b\[[0-9;]*m)+$", re.MULTILINE)
_CODE = re.compile(r"\x1b\[[0-9;]*m")


def emit(renderable, target: Console | None = None) -> None:
    """Prints through `target` (default: :func:`console`) without trailing spaces on any line."""
    target = target or console()
    with target.capture() as captured:
        target.print(renderable)
    text = LINE_END.sub(lambda m: "".join(_CODE.findall(m.group())), captured.get())
    target.file.write(text)


#: Counts of packets a queue lost other than by a drop (on the line, to a failed link, or their
#: payload to trimming), and of the PFC pauses that stopped it, each shown in a column of its own
#: only where some queue has one: (total, column).
LOST_COLUMNS = (("losses", "losses"), ("link_down", "link down"), ("trims", "trims"), ("pauses", "pauses"))


def queue_totals(runs: list[dict]) -> Iterator[dict]:
    """Every queue's `totals` over `runs` in turn, read from that column alone, a block at a
    time (`fairsim.columns.each`): for one pass that sums or scans them."""
    return (t for r in runs for t in each(r["queues"], "totals"))
