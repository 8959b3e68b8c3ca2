"""A report's figures, drawn on every core with a progress line (`figures 7/24`).

matplotlib draws a figure on one core, and a report has up to two dozen, each a second or more
of CPU: drawn one after another they cost more than a quick reproduction's runs. Each figure is
drawn in a forked worker, which inherits the measurements (nothing is pickled on the way in; the
SVG text comes back), so the figures take their longest figure's time per core rather than the
sum. Fork is safe only in a process with one thread: where another thread is alive (a Dask
client's, say), or the platform cannot fork, they are drawn here, one after another. The bytes
of every figure are the same either way (`to_svg` fixes ids and dates).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

#: The jobs the forked workers draw, by index (set only while a pool is open).
_PENDING: Sequence[Callable[[], str | None]] = ()


def _draw(i: int) -> str | None:
    return _PENDING[i]()


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def draw_all(
    jobs: Sequence[Callable[[], str | None]], label: str, progress: bool | None, workers: int | None = None
) -> list[str | None]:
    """Each job's SVG, in order; `workers` processes at most (default: one per core)."""
    global _PENDING
    from fairsim.progress import progress_bar

    bar = progress_bar(label, len(jobs), progress, unit="figures")
    drawn: list[str | None] = [None] * len(jobs)
    from fairsim.cores import usable_cores

    count = min(len(jobs), workers or usable_cores())
    try:
        if count > 1 and _can_fork():
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            _PENDING = jobs
            with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork")) as pool:
                futures = {pool.submit(_draw, i): i for i in range(len(jobs))}
                for done, future in enumerate(as_completed(futures), 1):
                    drawn[futures[future]] = future.result()
                    bar.update(done)
        else:
            for i, job in enumerate(jobs):
                drawn[i] = job()
                bar.update(i + 1)
    finally:
        _PENDING = ()
        bar.close(len(jobs))
    return drawn
