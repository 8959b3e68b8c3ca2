"""A sweep on disk: a folder of Parquet files that is both the results and a cache of runs.

    OUT/
      manifest.json          the scenario, the description, fairsim's version
      plan.parquet           the current plan: run id, point, axis values, pair, seed
      runs/part-*.parquet    one row per run attempt: id, axis values, pair, seed, status,
                             error, events, wall and simulated time, Jain's index
      flows/part-*.parquet   one row per flow of each finished run, the axis values as columns
      queues/ intervals/ queue_intervals/    the same, when asked for

Results are appended in parts as they arrive (every few seconds, and when the sweep ends or is
interrupted), each part written to a temporary name and renamed into place: a crash loses at
most the runs of the last few seconds, never a file. Running the same sweep again reads which
run ids already finished and runs only the others, so an interrupted sweep is resumed by
running the same command, and a widened axis runs only its new points. Runs of an earlier plan
stay in the folder as a cache; reading the sweep shows the runs of the current plan only.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

from fairsim.output import atomic_write
from fairsim.results import TABLES as TABLE_ROWS
from fairsim.results import table_frame

MANIFEST = "manifest.json"
PLAN = "plan.parquet"
#: The tables a sweep can record besides `runs` (`flows` always; `reports`, the runs' whole
#: reports as JSON, for reproductions).
TABLES = ("flows", "queues", "intervals", "queue_intervals", "transfer_summary")
#: Schema of the manifest (docs/sweeps.md).
SCHEMA = "fairsim.sweep/1"


class Store:
    """Appends a sweep's results to `folder`, in parts."""

    def __init__(self, folder: str | Path, tables: tuple[str, ...] = ("flows",)):
        self.folder = Path(folder)
        self.tables = tables
        self.buffers: dict[str, list[dict]] = {t: [] for t in ("runs", *tables)}
        self.pending = 0
        self.pending_bytes = 0
        self.last_flush = time.monotonic()
        self.parts = 0

    def write_manifest(self, manifest: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"schema": SCHEMA, **manifest}, indent=2, default=str)
        atomic_write(self.folder / MANIFEST, lambda p: p.write_text(text + "\n", encoding="utf-8"))

    def write_plan(self, plan: pd.DataFrame) -> None:
        atomic_write(self.folder / PLAN, lambda p: plan.to_parquet(p, index=False, compression="zstd"))

    def finished(self) -> set[str]:
        """The ids of the runs this folder already holds, finished without error."""
        runs = read_table(self.folder, "runs", columns=["run_id", "status"])
        if runs.empty:
            return set()
        return set(runs.loc[runs["status"] == "ok", "run_id"])

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
        due = time.monotonic() - self.last_flush >= every_s
        if self.pending and (due or self.pending >= most_runs or self.pending_bytes >= most_bytes):
            self.flush()

    def flush(self) -> None:
        """Writes what arrived since the last flush as one part per table."""
        if not self.pending:
            return
        name = f"part-{time.time_ns():020d}-{os.getpid()}-{self.parts:05d}.parquet"
        for table, rows in self.buffers.items():
            if not rows:
                continue
            folder = self.folder / table
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(folder / name, lambda p, t=table, rows=rows: _write(p, t, rows))
            rows.clear()
        self.parts += 1
        self.pending = self.pending_bytes = 0
        self.last_flush = time.monotonic()


def _write(path: Path, table: str, rows: list[dict]) -> None:
    """One part: through pandas where the table has derived columns, else straight to Arrow (the
    `reports` cache of a reproduction is tens of megabytes of JSON text). zstd: the smallest
    and, here, also the fastest to write."""
    if table in TABLE_ROWS:
        table_frame(table, rows).to_parquet(path, index=False, compression="zstd")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = {k: [r.get(k) for r in rows] for k in rows[0]}
        pq.write_table(pa.table(columns), path, compression="zstd", compression_level=1)


def read_table(folder: str | Path, table: str, columns: list[str] | None = None) -> pd.DataFrame:
    """Every part of `table` under `folder`, oldest first (empty if there is none)."""
    parts = sorted((Path(folder) / table).glob("part-*.parquet"))
    frames = [pd.read_parquet(p, columns=columns) for p in parts]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def read_manifest(folder: str | Path) -> dict[str, Any]:
    return json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
