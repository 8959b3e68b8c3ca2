"""Running a list of tasks on an executor: a bounded number of batches in flight, outcomes handed
to a callback as they arrive, one progress bar, Ctrl-C.

Short runs travel in batches, so that a sweep of thousands of millisecond runs does not spend
its time on round trips: the batch size aims at `TARGET_S` of work per batch from the wall
times of the runs finished so far (one run a batch until there are some), and shrinks as the
end nears, so that no worker is left alone with a long last batch while the others idle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from fairsim.progress import progress_bar
from fairsim.sweeps.worker import OK, Outcome, Task

#: Seconds of work a batch aims at.
TARGET_S = 0.5
#: Never more runs than this in one batch.
MOST_PER_BATCH = 64


class Tally:
    """Runs done and failed, and the mean wall time of a run."""

    def __init__(self) -> None:
        self.done = self.failed = 0
        self.wall = 0.0

    def add(self, o: Outcome) -> None:
        self.done += 1
        self.failed += o.status != OK
        self.wall += o.wall_s

    def batch_size(self) -> int:
        if self.done == 0 or self.wall <= 0:
            return 1
        return max(1, min(MOST_PER_BATCH, int(TARGET_S / (self.wall / self.done))))

    def note(self) -> str:
        return f"{self.failed} failed" if self.failed else ""


def drive(
    tasks: Iterable[Task],
    total: int,
    executor,
    on_outcome: Callable[[Outcome], None],
    *,
    progress: bool | None,
    title: str,
    on_tick: Callable[[], None] = lambda: None,
    skipped: Callable[[], int] = lambda: 0,
) -> tuple[Tally, bool]:
    """Runs `tasks` on `executor`; returns the tally and whether Ctrl-C stopped it. The bar
    counts `total` runs, of which `skipped()` needed no running (found in the cache);
    `on_tick` runs about ten times a second (to flush results)."""
    tally = Tally()
    source: Iterator[Task] = iter(tasks)
    exhausted = False
    submitted = 0
    bar = progress_bar(title, total, progress)
    interrupted = False
    try:
        while True:
            while not exhausted and executor.busy() < executor.slots:
                left = total - skipped() - submitted
                size = min(tally.batch_size(), max(1, left // (2 * executor.slots)))
                batch = [t for _, t in zip(range(size), source, strict=False)]
                if not batch:
                    exhausted = True
                    break
                executor.submit(batch)
                submitted += len(batch)
            if exhausted and executor.busy() == 0:
                break
            for o in executor.completed(timeout=0.1):
                tally.add(o)
                on_outcome(o)
            bar.update(tally.done + skipped(), tally.note())
            on_tick()
    except KeyboardInterrupt:
        interrupted = True
        executor.stop()
        for o in _drain(executor):
            if o.status == OK:  # a run that finished as the user pressed Ctrl-C is kept
                tally.add(o)
                on_outcome(o)
    finally:
        bar.close(tally.done + skipped(), stopped=interrupted)
        executor.close()
    return tally, interrupted


def _drain(executor) -> list[Outcome]:
    """What the runs in flight give back once told to stop (they stop within a chunk)."""
    out: list[Outcome] = []
    while executor.busy():
        out.extend(executor.completed(timeout=0.5))
    return out
