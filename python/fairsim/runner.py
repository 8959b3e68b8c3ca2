"""Running simulations: in chunks, on worker threads, with progress bars and Ctrl-C.

The engine releases the GIL while it steps, so runs of several pairs or seeds use every core.
A run advances in chunks of events; between chunks its thread records how far it got and
checks whether the user asked to stop. The main thread only waits, draws progress and catches
Ctrl-C, after which every run stops at its next chunk and reports what it has.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from fairsim._core import FairsimError

#: Events per chunk: a few milliseconds of work, so Ctrl-C and progress stay responsive.
CHUNK = 200_000
#: Progress bars appear only for runs that last longer than this (seconds).
PROGRESS_AFTER = 1.0


def execute(
    core_scenario,
    runs: list[tuple[str, int]],
    *,
    progress: bool | None,
    jobs: int | None,
    scenarios: list | None = None,
    title: str | None = None,
):
    """Runs `(pair, seed)` pairs; returns their reports (dicts) and whether Ctrl-C stopped them.

    `scenarios`, if given, holds one core scenario per run (runs of several scenarios on one
    pool, as `fairsim reproduce` does); `title` then names a single bar counting all runs
    instead of one bar per run.
    """
    scenarios = scenarios or [core_scenario] * len(runs)
    sims = [sc.simulation(pair, seed) for sc, (pair, seed) in zip(scenarios, runs, strict=True)]
    done_fraction = [0.0] * len(sims)
    stop = threading.Event()

    def work(i: int) -> dict:
        sim = sims[i]
        while not stop.is_set():
            finished = sim.step(CHUNK)
            done_fraction[i] = sim.now_s / sim.end_s
            if finished:
                break
        if sim.error:
            pair, seed = runs[i]
            raise FairsimError(f"{scenarios[i].file}: pair {pair}, seed {seed}: {sim.error}")
        return json.loads(sim.report_json())

    show = sys.stderr.isatty() if progress is None else progress
    labels = (
        [title] if title else [f"{pair} seed {seed}" if seed is not None else pair for pair, seed in runs]
    )
    workers = max(1, min(jobs or os.cpu_count() or 1, len(sims)))
    interrupted = False
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(work, i) for i in range(len(sims))]
        bars = _Bars(labels, enabled=show, totals=[float(len(sims))] if title else None)

        def fractions() -> list[float]:
            return [sum(done_fraction)] if title else done_fraction

        try:
            while True:
                _, pending = wait(futures, timeout=0.1)
                bars.update(fractions())
                if not pending:
                    break
        except KeyboardInterrupt:
            interrupted = True
            stop.set()
            wait(futures)
        finally:
            bars.close(fractions())
        reports = [f.result() for f in futures]
    return reports, interrupted


class _Bars:
    """One progress bar per label, drawn only once the runs have taken longer than a second.

    A bar's total is 1 (one run) unless `totals` says otherwise (a bar counting many runs)."""

    def __init__(self, labels: list[str], enabled: bool, totals: list[float] | None = None):
        self.labels = labels
        self.totals = totals or [1.0] * len(labels)
        self.enabled = enabled
        self.started = time.monotonic()
        self.progress: Progress | None = None
        self.tasks: list = []

    def update(self, fractions: list[float]) -> None:
        if not self.enabled:
            return
        if self.progress is None:
            if time.monotonic() - self.started < PROGRESS_AFTER:
                return
            self.progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>5.1f}%"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                transient=True,
                console=Console(stderr=True),  # stdout carries tables and JSON
            )
            self.progress.start()
            self.tasks = [
                self.progress.add_task(label, total=total)
                for label, total in zip(self.labels, self.totals, strict=True)
            ]
        for task, fraction in zip(self.tasks, fractions, strict=True):
            self.progress.update(task, completed=fraction)

    def close(self, fractions: list[float]) -> None:
        if self.progress is not None:
            self.update(fractions)
            self.progress.stop()
