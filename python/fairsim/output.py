"""Writing a run's results to a folder: tables (CSV or Parquet), the JSON document, and the
fully resolved scenario of every pair with its seed that ran (not of those Ctrl-C stopped
before they started).

Every file is written to a temporary name in the same folder and renamed into place, so an
interrupted or failed write never leaves a half-written file, and files of an earlier run are
replaced only by complete new ones.
"""

from __future__ import annotations

import errno
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from fairsim.results import Results, table_frame, table_rows

TABLES = (
    "flows",
    "intervals",
    "queues",
    "queue_intervals",
    "fairness",
    "fluid",
    "traces",
    "transfers",
    "transfer_summary",
    "slowdown",
    "network_events",
)
#: Tables written only when they have rows.
OPTIONAL = ("fluid", "traces", "transfers", "transfer_summary", "slowdown", "network_events")


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Writes `path` through `write(tmp)` on a temporary file renamed into place.

    The file gets the mode `open()` would give a new file (0666 less the umask), not the
    temporary file's private 0600, so that reports can be served and shared.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, 0o666 & ~_umask())
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask (reading it means setting it: set it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def safe_name(pair: str) -> str:
    """A file-name form of a pair name: `G/FCFS` → `G_FCFS`."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", pair).strip("_") or "pair"


def _csv_without_pandas(results: Results, table: str) -> str | None:
    """Table `table` as the CSV text pandas would write, made without pandas (importing it takes
    longer than a small run): "" for an optional table without rows, None when only pandas can
    say (values `fairsim.csv_tables` does not cover)."""
    from fairsim.csv_tables import Unsupported, csv_text

    rows = table_rows(results.runs, table)
    if not rows and table in OPTIONAL:
        return ""
    try:
        return csv_text(rows)
    except Unsupported:
        return None


def check_folder(folder: str | Path, label: str | None = None) -> None:
    """Raises FairsimError, before any run, when results cannot be written into `folder`: a
    file on its way (`a_file/out`, `/dev/null`), a folder that cannot be made (`/proc/x`, a
    read-only parent) or written into. `label` names it in the message (`--out DIR`, as typed).

    It makes the folder and a file in it to find out, then removes what it made: a run refused
    afterwards leaves nothing behind, and nothing already in the folder is touched."""
    folder = Path(folder)
    label = label or str(folder)
    made: list[Path] = []
    missing = folder
    while not os.path.lexists(missing) and missing.parent != missing:
        made.append(missing)
        missing = missing.parent
    try:
        if os.path.lexists(missing) and not missing.is_dir():
            what = "a file" if missing.is_file() else "not a folder"
            if missing == folder:
                raise _fail(f"{label}: {folder} is {what}; results are written into a folder")
            raise _fail(f"{label}: {missing} is {what}, so the folder {folder} cannot be made")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            reason = _reason(e)
            if e.errno == errno.ENOENT:  # under /proc, say: the parent is there but takes no folder
                reason = f"{missing} does not take new folders"
            raise _fail(f"{label}: cannot create the folder {folder}: {reason}") from None
        try:
            fd, probe = tempfile.mkstemp(dir=folder, prefix=".fairsim-probe-", suffix=".tmp")
            os.close(fd)
            os.unlink(probe)
        except OSError as e:
            raise _fail(f"{label}: cannot write into the folder {folder}: {_reason(e)}") from None
    finally:
        for path in made:  # the deepest first; only what this call made, and only if empty
            try:
                path.rmdir()
            except OSError:
                break


def _fail(message: str) -> Exception:
    from fairsim._core import FairsimError

    return FairsimError(message)


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def write_results(results: Results, out: str | Path, fmt: str = "csv") -> list[Path]:
    """Writes `results` into folder `out` (created if needed); returns the files written.
    Raises FairsimError naming the file when one cannot be written (the disk is full...); the
    files written before it stay."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _fail(f"{out}: cannot create the folder: {_reason(e)}") from None
    written = []

    def put(name: str, write: Callable[[Path], None]) -> None:
        path = out / name
        try:
            atomic_write(path, write)
        except OSError as e:
            raise _fail(f"{path}: cannot write: {_reason(e)}") from None
        written.append(path)

    for table in TABLES:
        if fmt != "parquet":
            text = _csv_without_pandas(results, table)
            if text == "":
                continue  # an optional table without rows
            if text is not None:
                put(f"{table}.csv", lambda p, t=text: p.write_bytes(t.encode()))
                continue
        df = getattr(results, table)
        if callable(df):  # a table with arguments (`slowdown`): its default rows, run by run
            df = table_frame(table_rows(results.runs, table))
        if table in OPTIONAL and df.empty:
            continue
        if fmt == "parquet":
            put(f"{table}.parquet", lambda p, df=df: df.to_parquet(p, index=False))
        else:
            put(f"{table}.csv", lambda p, df=df: df.to_csv(p, index=False))
    put("run.json", lambda p: p.write_text(results.to_json(intervals=False) + "\n"))
    for run, captured in zip(results.runs, results.captures, strict=True):
        for (port, what), data in captured.items():
            stem = f"{safe_name(run['pair'])}.seed{run['seed']}.{safe_name(port.replace('->', '_to_'))}"
            if what == "pcap":
                put(f"{stem}.pcap", lambda p, d=data: p.write_bytes(d))
            else:
                put(f"{stem}.events.txt", lambda p, d=data: p.write_text(d))
    if results.source is not None:
        for run in results.runs:
            if not run["complete"] and run["events"] == 0:
                continue  # Ctrl-C stopped it before it started: nothing ran under that scenario
            text = results.source.resolved_toml(run["pair"], run["seed"])
            put(
                f"scenario.{safe_name(run['pair'])}.seed{run['seed']}.toml", lambda p, t=text: p.write_text(t)
            )
    return written
