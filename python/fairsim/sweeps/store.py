"""A sweep on disk: a folder of Parquet files that is both the results and a cache of runs.

    OUT/
      manifest.json          the scenario, the description, fairsim's version
      plan.parquet           the current plan: run id, point, axis values, pair, seed
      parts/part-*/          what arrived between two flushes, committed together:
        runs.parquet         one row per run attempt: id, axis values, pair, seed, status,
                             error, events, wall and simulated time, Jain's index
        flows.parquet        one row per flow of each finished run, the axis values as columns
        queues.parquet …     the same, for the other tables asked for (transfers.parquet:
                             one row per transfer, for completion times pooled over seeds)
        commit.json          each table's rows, bytes and SHA-256, written last
      .staging/              parts being written (a crash leaves one here; it is discarded)
      .damaged/              parts that failed their check, set aside (their runs run again)

A part is written whole under `.staging/` (every table, then its commit record, each synced to
disk) and published by one rename into `parts/`: a driver killed at any point leaves either a
whole part or none, so a run counts as finished only when every table of it is committed.
Readers take only published parts and check each against its commit record (the files are
there, of the recorded size and checksum, with a Parquet footer giving the recorded row
count); a part that fails is moved to `.damaged/` with a warning naming it, and its runs are
run again by the next resume. Results arrive every few seconds and when the sweep ends or is
interrupted: a crash loses at most the runs of the last few seconds, never a committed one.

Running the same sweep again reads which run ids already finished and runs only the others, so
an interrupted sweep is resumed by running the same command, and a widened axis runs only its
new points. Runs of an earlier plan stay in the folder as a cache; reading the sweep shows the
runs of the current plan only.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import time
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from fairsim import _core
from fairsim.output import atomic_write
from fairsim.replications import FairsimWarning
from fairsim.results import TABLES as TABLE_ROWS
from fairsim.results import table_frame
from fairsim.sweeps.spec import TABLES as SPEC_TABLES

MANIFEST = "manifest.json"
PLAN = "plan.parquet"
PARTS, STAGING, DAMAGED = "parts", ".staging", ".damaged"
COMMIT = "commit.json"
#: The tables a sweep can record besides `runs` (`flows` always; `reports`, the runs' whole
#: reports as JSON, for reproductions, is written by the same store).
TABLES = SPEC_TABLES
#: Schema of the manifest (docs/sweeps.md). /1 kept each table's parts in a folder of its own.
SCHEMA = "fairsim.sweep/2"
#: The columns of `runs`, so that a sweep with no run finished yet still has them.
RUN_COLUMNS = [
    "run_id",
    "point",
    "pair",
    "seed",
    "status",
    "error",
    "events",
    "wall_s",
    "sim_s",
    "jain",
    "finished_at",
    "recorded",
]


class DamagedPart(FairsimWarning):
    """A part of a sweep folder failed its check and was set aside; its runs run again."""


class OtherEngine(FairsimWarning):
    """The folder's runs were made by another build of the engine: none of them is reused (a
    run's id names the engine that computes it, so a rebuilt engine runs everything again)."""


def other_code_runs(folder: Path) -> int:
    """How many run attempts the folder holds from other code than this process's: another build
    of the engine, or other Python components (each part's commit record names its engine and
    its Python code's key, `fairsim.extend.code_identity`; a part without them is older)."""
    from fairsim.extend.code_identity import code_key
    from fairsim.sweeps.plan import engine_hash

    ours, count = (engine_hash(), code_key()), 0
    for part in committed_parts(folder):
        record = json.loads((part / COMMIT).read_text(encoding="utf-8"))
        if (record.get("engine"), record.get("code", "")) != ours:
            count += record["tables"]["runs"]["rows"]
    return count


def warn_if_other_code(folder: Path, other: int, reused: int, stacklevel: int = 3) -> None:
    """Says once, when nothing in `folder` was reused and it holds `other` runs of another
    engine, that those runs were not reused and why."""
    if other and not reused:
        warnings.warn(
            f"runs made by other code are not reused: {folder} holds {other:,} runs made by another "
            "build of fairsim (its engine or its Python code) or other Python components, so every "
            "run runs again (other code may compute other results)",
            OtherEngine,
            stacklevel=stacklevel,
        )


class Store:
    """Appends a sweep's results to `folder`, one committed part per flush."""

    def __init__(self, folder: str | Path, tables: tuple[str, ...] = ("flows",), read_only: bool = False):
        self.folder = Path(folder)
        self.tables = tables
        self.buffers: dict[str, list[dict]] = {t: [] for t in ("runs", *tables)}
        self.pending = 0
        self.pending_bytes = 0
        self.last_flush = time.monotonic()
        self.parts = 0
        check_layout(self.folder)
        if not read_only:  # a dry run only looks
            _discard_staged(self.folder)

    def write_manifest(self, manifest: dict) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise _core.FairsimError(
                f"{self.folder}: cannot create the results folder: {e.strerror or e}"
            ) from None
        text = json.dumps({"schema": SCHEMA, **manifest}, indent=2, default=str)
        atomic_write(self.folder / MANIFEST, lambda p: p.write_text(text + "\n", encoding="utf-8"))

    def write_plan(self, plan: pd.DataFrame) -> None:
        atomic_write(self.folder / PLAN, lambda p: plan.to_parquet(p, index=False, compression="zstd"))

    def finished(self, tables: tuple[str, ...] = ()) -> set[str]:
        """The ids of the runs this folder already holds, finished without error, with each of
        `tables` recorded: a run recorded before `transfers` was asked for runs again to record
        them, so that a table covers every run of the plan, not only those run since."""
        extra = set(tables) - {"flows"}  # recorded with every run
        runs = read_table(self.folder, "runs", columns=None if extra else ["run_id", "status"])
        if runs.empty:
            return set()
        ok = runs["status"] == "ok"
        if extra:
            # `recorded`: the tables recorded with the run (space-separated); older rows lack it
            held = runs["recorded"] if "recorded" in runs else pd.Series("flows", index=runs.index)
            ok &= pd.Series([extra <= set(str(t).split()) for t in held.fillna("flows")], index=runs.index)
        return set(runs.loc[ok, "run_id"])

    def add(self, run_row: dict, rows: dict[str, list[dict]], size: int = 0) -> None:
        """One run's row of `runs` and its rows of the other tables (`size`: their bytes, where
        that is large, as a run's whole report)."""
        self.buffers["runs"].append(run_row)
        for name, table_rows in rows.items():
            self.buffers[name].extend(table_rows)
        self.pending += 1
        self.pending_bytes += size

    def flush_if_due(self, every_s: float = 5.0, most_runs: int = 2000, most_bytes: int = 4 << 20) -> None:
        """Writes a part every `every_s`, or sooner when `most_runs` runs or `most_bytes` bytes
        wait: a part written while the runs go on costs nothing at the end."""
        every_s = _test_hook_float("flush_every", every_s)
        due = time.monotonic() - self.last_flush >= every_s
        if self.pending and (due or self.pending >= most_runs or self.pending_bytes >= most_bytes):
            self.flush()

    def flush(self) -> None:
        """Commits what arrived since the last flush as one part: every table, then the commit
        record, then one rename publishes them together."""
        if not self.pending:
            return
        name = f"part-{time.time_ns():020d}-{os.getpid()}-{self.parts:05d}"
        staged = self.folder / STAGING / name
        try:
            staged.mkdir(parents=True)
            record: dict[str, dict] = {}
            for table, rows in self.buffers.items():
                if not rows:
                    continue
                path = staged / f"{table}.parquet"
                _write(path, table, rows)
                record[table] = {"rows": len(rows), **_fingerprint(path, sync=True)}
                _crash_point("staged-table")
            commit = staged / COMMIT
            from fairsim.extend.code_identity import code_key  # the code whose runs these are
            from fairsim.sweeps.plan import engine_hash

            with open(commit, "w", encoding="utf-8") as f:
                json.dump({"tables": record, "engine": engine_hash(), "code": code_key()}, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            _crash_point("staged-commit")
            (self.folder / PARTS).mkdir(exist_ok=True)
            os.rename(staged, self.folder / PARTS / name)
            _sync_folder(self.folder / PARTS)
        except OSError as e:
            raise _core.FairsimError(
                f"{self.folder}: cannot write a part of the results: {e.strerror or e}"
            ) from None
        _crash_point("published")
        for rows in self.buffers.values():
            rows.clear()
        self.parts += 1
        self.pending = self.pending_bytes = 0
        self.last_flush = time.monotonic()


def _write(path: Path, table: str, rows: list[dict]) -> None:
    """One table of a part: a result table through pandas (its columns typed as the readers'
    DataFrames have them), anything else straight to Arrow (the `reports` cache of a
    reproduction is tens of megabytes of JSON text). zstd: the smallest and, here, also the
    fastest to write."""
    if table in TABLE_ROWS:
        table_frame(rows).to_parquet(path, index=False, compression="zstd")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = {k: [r.get(k) for r in rows] for k in rows[0]}
        pq.write_table(pa.table(columns), path, compression="zstd", compression_level=1)


def _fingerprint(path: Path, sync: bool = False) -> dict:
    """A file's size and SHA-256 (synced to disk first when `sync`)."""
    digest = hashlib.sha256()
    with open(path, "rb+" if sync else "rb") as f:
        if sync:
            os.fsync(f.fileno())
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
        size = f.tell()
    return {"bytes": size, "sha256": digest.hexdigest()}


def _sync_folder(folder: Path) -> None:
    """Makes a rename in `folder` durable (where the platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- reading ------------------------------------------------------------------------------------

#: Parts already checked in this process: path -> the commit record's (inode, mtime, size).
_checked: dict[Path, tuple] = {}


def committed_parts(folder: Path) -> list[Path]:
    """The folder's published parts that pass their check, oldest first; a part that fails is
    moved to `.damaged/` with a warning."""
    root = folder / PARTS
    if not root.is_dir():
        return []
    good = []
    for part in sorted(root.iterdir()):
        why = _check(part)
        if why is None:
            good.append(part)
        else:
            _set_aside(folder, part, why)
    return good


def _check(part: Path) -> str | None:
    """What is wrong with a published part, or None."""
    import pyarrow.parquet as pq

    commit = part / COMMIT
    try:
        stat = commit.stat()
        key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if _checked.get(part) == key:
            return None
        record = json.loads(commit.read_text(encoding="utf-8"))
        tables = record["tables"]
        if not isinstance(tables, dict) or "runs" not in tables:
            return f"{COMMIT} lists no runs"
        for table, expected in tables.items():
            path = part / f"{table}.parquet"
            if not path.is_file():
                return f"{path.name} is missing"
            if _fingerprint(path) != {"bytes": expected["bytes"], "sha256": expected["sha256"]}:
                return f"{path.name} is not the file that was written (its size or checksum differs)"
            rows = pq.ParquetFile(path).metadata.num_rows
            if rows != expected["rows"]:
                return f"{path.name} has {rows} rows, its commit record {expected['rows']}"
    except FileNotFoundError:
        return f"it has no {COMMIT}"
    except (OSError, ValueError, KeyError, TypeError) as e:  # JSONDecodeError, ArrowInvalid, …
        return f"{type(e).__name__}: {e}"
    _checked[part] = key
    return None


def _set_aside(folder: Path, part: Path, why: str) -> None:
    aside = folder / DAMAGED / part.name
    while aside.exists():
        aside = aside.with_name(aside.name + "+")
    try:
        aside.parent.mkdir(exist_ok=True)
        os.rename(part, aside)
    except OSError as e:  # a read-only folder: the part is still left out
        aside = Path(f"(could not be moved: {e.strerror or e})")
    warnings.warn(
        f"{part}: a damaged part of the results: {why}; set aside in {aside}, its runs will run again",
        DamagedPart,
        stacklevel=3,
    )


def _discard_staged(folder: Path) -> None:
    """Parts a killed driver left half written (never published, so never counted). A part that
    another driver, still alive, is writing now is left alone."""
    staging = folder / STAGING
    if not staging.is_dir():
        return
    for part in staging.iterdir():
        pid = part.name.split("-")[2] if part.name.count("-") >= 3 else ""
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        shutil.rmtree(part, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def old_layout(folder: Path) -> bool:
    """Whether `folder` was written by fairsim before parts were committed whole."""
    return (folder / "runs").is_dir() and any((folder / "runs").glob("part-*.parquet"))


def check_layout(folder: Path) -> None:
    """Refuses a folder written by fairsim before parts were committed whole."""
    if old_layout(folder):
        raise _core.FairsimError(
            f"{folder}: written by an older fairsim (its tables are in runs/, flows/, …, schema "
            f"fairsim.sweep/1): read it with that version, or sweep into a new folder"
        )


def read_table(folder: str | Path, table: str, columns: list[str] | None = None) -> pd.DataFrame:
    """Every committed part's `table` under `folder`, oldest first (empty if there is none)."""
    folder = Path(folder)
    check_layout(folder)
    frames = []
    for part in committed_parts(folder):
        path = part / f"{table}.parquet"
        if not path.is_file():
            continue
        try:
            frame = pd.read_parquet(path, columns=columns)
        except (OSError, ValueError) as e:  # changed since its check
            raise _core.FairsimError(f"{path}: cannot be read: {e}") from None
        if not frame.empty:
            frames.append(frame)
    if frames:
        return pd.concat(frames, ignore_index=True)
    return pd.DataFrame(columns=columns or (RUN_COLUMNS if table == "runs" else []))


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest, checked: a FairsimError naming the file says what is wrong with it."""
    path = Path(folder) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _core.FairsimError(f"{folder}: not a sweep folder (it has no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise _core.FairsimError(f"{path}: cannot be read: {e}") from None
    except json.JSONDecodeError as e:
        raise _core.FairsimError(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
    if not isinstance(manifest, dict):
        raise _core.FairsimError(f"{path}: a manifest is a JSON object, not {type(manifest).__name__}")
    schema = manifest.get("schema")
    if schema != SCHEMA:
        raise _core.FairsimError(f"{path}: schema {schema!r}; this fairsim reads {SCHEMA!r} (sweep anew)")
    shapes = {
        "axes": "a list",
        "runs": "a count",
        "points": "a count",
        "scenario": "a table",
        "sweep": "a table",
    }
    kinds = {"a list": list, "a count": int, "a table": dict}
    for key, shape in shapes.items():
        value = manifest.get(key)
        if not isinstance(value, kinds[shape]) or isinstance(value, bool):
            raise _core.FairsimError(f"{path}: `{key}` is missing or not {shape}")
    if not all(isinstance(a, str) for a in manifest["axes"]):
        raise _core.FairsimError(f"{path}: `axes` is a list of names")
    if not isinstance(manifest["scenario"].get("name"), str):
        raise _core.FairsimError(f"{path}: `scenario.name` is missing or not a string")
    return manifest


def read_plan(folder: str | Path) -> pd.DataFrame:
    """The plan table; an empty one (with its run id column) when there is none yet."""
    path = Path(folder) / PLAN
    if not path.is_file():
        return pd.DataFrame(columns=["run_id"])
    try:
        plan = pd.read_parquet(path)
    except (OSError, ValueError) as e:
        raise _core.FairsimError(f"{path}: cannot be read ({e}): run the sweep again to rewrite it") from None
    if "run_id" not in plan.columns:
        raise _core.FairsimError(f"{path}: has no run_id column: run the sweep again to rewrite it")
    return plan


# --- crash tests --------------------------------------------------------------------------------


def _test_hooks() -> dict[str, str]:
    """`FAIRSIM_TEST_HOOKS=flush_every=0.1,crash_at=staged-commit:3`: the tests' way to make a
    driver flush often and kill itself at a chosen point of a chosen flush (tests/test_sweep_crash.py)."""
    text = os.environ.get("FAIRSIM_TEST_HOOKS", "")
    return dict(item.split("=", 1) for item in text.split(",") if "=" in item)


def _test_hook_float(name: str, default: float) -> float:
    value = _test_hooks().get(name)
    return float(value) if value else default


_reached: dict[str, int] = {}


def _crash_point(point: str) -> None:
    """Under test, SIGKILL this process the n-th time it reaches `point`."""
    wanted = _test_hooks().get("crash_at")
    if not wanted:
        return
    name, _, count = wanted.partition(":")
    if name != point:
        return
    _reached[point] = _reached.get(point, 0) + 1
    if _reached[point] >= int(count or 1):
        os.kill(os.getpid(), signal.SIGKILL)
