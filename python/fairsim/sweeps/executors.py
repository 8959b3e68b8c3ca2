"""Where a sweep's runs execute: a pool of local processes, or a Dask cluster.

Both take batches of tasks (`worker.Task`) and hand back, as they finish, each batch's outcomes.
The driver (`driver.py`) keeps a bounded number of batches in flight, so a sweep of 100,000 runs
never holds them all.

- `LocalPool`: one process per core (`jobs`). Processes, not threads, so that a run which takes
  its process down (an abort, the kernel's OOM killer) takes only itself: the pool is rebuilt,
  the runs that were in flight go again one at a time with nothing beside them, and a run whose
  process dies a second time is recorded as failed. Ctrl-C reaches the driver alone
  (workers ignore SIGINT); runs in flight stop at their next chunk of events.
- `DaskCluster`: `distributed.Client` futures, one per batch. The scheduler reruns the tasks of
  a worker that is lost; a task that loses workers repeatedly (Dask's `allowed-failures`) comes
  back as failed.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from fairsim.cores import usable_cores
from fairsim.sweeps.worker import FAILED, Outcome, Task, run_batch

#: Set in each local worker process: the driver's request to stop.
_stop = None


def _init_worker(stop) -> None:
    global _stop
    _stop = stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    _exit_with_the_driver()


def _exit_with_the_driver() -> None:
    """A worker ends when its driver does, even when the driver is killed (SIGKILL): on Linux
    the kernel sends it SIGKILL (PR_SET_PDEATHSIG); elsewhere, and as a second line, a thread
    notices that its parent changed within half a second."""
    driver = os.getppid()
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != driver:  # the driver died before the line above
        os._exit(1)

    def watch() -> None:
        while os.getppid() == driver:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="fairsim-watch-driver", daemon=True).start()


def _local_batch(tasks: list[Task]) -> list[Outcome]:
    return run_batch(tasks, _stop)


def died(task: Task, why: str) -> Outcome:
    return Outcome(task.run_id, FAILED, why, 0, 0.0, 0.0, None)


class LocalPool:
    """Batches on local worker processes."""

    #: A run in flight when its process died this many times is recorded as failed.
    DEATHS = 2

    def __init__(self, jobs: int | None = None):
        self.jobs = max(1, jobs or usable_cores())
        # fork where there is one: a script without `if __name__ == "__main__":` then works, and
        # workers start without importing anything (spawn re-runs the main script in each)
        methods = multiprocessing.get_all_start_methods()
        self.context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.stop_event = self.context.Event()
        self.pool: ProcessPoolExecutor | None = None
        self.inflight: dict[Future, list[Task]] = {}
        self.deaths: dict[str, int] = {}
        self.retry: list[list[Task]] = []

    @property
    def slots(self) -> int:
        return 2 * self.jobs

    def _pool(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = ProcessPoolExecutor(
                self.jobs, mp_context=self.context, initializer=_init_worker, initargs=(self.stop_event,)
            )
        return self.pool

    def submit(self, batch: list[Task]) -> None:
        # the pool forks its workers and starts its manager thread inside `submit`: Ctrl-C there
        # could leave it half made, its shutdown then waiting on workers it never stops, so the
        # signal waits (blocked, still pending) until the submission is whole
        masked = hasattr(signal, "pthread_sigmask")
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masked else None
        try:
            self.inflight[self._pool().submit(_local_batch, batch)] = batch
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_SETMASK, before)

    def busy(self) -> int:
        # while runs suspected of killing their process go again, one at a time and alone,
        # nothing new starts beside them: a second death then names the run that caused it
        return self.slots if self.retry else len(self.inflight)

    def completed(self, timeout: float) -> list[Outcome]:
        """Outcomes of the batches that finished within `timeout` seconds."""
        if self.retry and not self.inflight:
            self.submit(self.retry.pop(0))
        if not self.inflight:
            return []
        done, _ = wait(list(self.inflight), timeout=timeout, return_when=FIRST_COMPLETED)
        out: list[Outcome] = []
        broken = False
        for f in done:
            batch = self.inflight.pop(f)
            try:
                out.extend(f.result())
            except BrokenProcessPool:
                broken = True
                out.extend(self._after_death(batch))
        if broken:
            for f, batch in list(self.inflight.items()):  # the pool is gone: all of them died
                del self.inflight[f]
                out.extend(self._after_death(batch))
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
        return out

    def _after_death(self, batch: list[Task]) -> list[Outcome]:
        """A batch whose process died: each run goes again alone, or fails after two deaths."""
        failed = []
        for t in batch:
            self.deaths[t.run_id] = self.deaths.get(t.run_id, 0) + 1
            if self.deaths[t.run_id] >= self.DEATHS:
                failed.append(died(t, "the worker process running it died (an abort or out of memory)"))
            else:
                self.retry.append([t])
        return failed

    def stop(self) -> None:
        self.stop_event.set()
        self.retry.clear()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def engine_identity() -> tuple[str, str]:
    """This process's fairsim version and engine build: a worker must run the same."""
    from fairsim._core import __version__
    from fairsim.sweeps.plan import engine_hash

    return __version__, engine_hash()


class DaskCluster:
    """Batches as futures on a `distributed.Client`."""

    def __init__(self, client):
        from distributed import as_completed

        from fairsim._core import FairsimError

        ours = engine_identity()
        try:
            theirs = client.run(engine_identity)
        except Exception as e:  # a worker without fairsim: ModuleNotFoundError, on the worker
            raise FairsimError(f"the Dask workers cannot run fairsim: {type(e).__name__}: {e}") from None
        other = {w: v for w, v in theirs.items() if tuple(v) != ours}
        if other:
            w, (version, engine) = next(iter(other.items()))
            raise FairsimError(
                f"Dask worker {w} runs fairsim {version} (engine {engine}), this process {ours[0]} "
                f"(engine {ours[1]}): install the same fairsim on every worker"
            )
        self.client = client
        self.threads, self.counted_at = 1, float("-inf")
        self.pending = as_completed([], with_results=False)
        self.inflight: dict[str, tuple[object, list[Task]]] = {}

    @property
    def slots(self) -> int:
        # the cluster's threads, asked of the scheduler at most once a second (the driver reads
        # this on every turn; a cluster may grow or shrink while the sweep runs)
        now = time.monotonic()
        if now - self.counted_at >= 1.0:
            self.threads = sum(self.client.nthreads().values()) or 1
            self.counted_at = now
        return 2 * self.threads

    def submit(self, batch: list[Task]) -> None:
        key = f"fairsim-run-{batch[0].run_id}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(run_batch, batch, pure=False, key=key)
        self.inflight[key] = (future, batch)
        self.pending.add(future)

    def busy(self) -> int:
        return len(self.inflight)

    def completed(self, timeout: float) -> list[Outcome]:
        deadline = time.monotonic() + timeout
        while self.inflight:
            ready = self.pending.next_batch(block=False)
            if ready:
                return [o for f in ready for o in self._outcomes(f)]
            if time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        return []

    def _outcomes(self, future) -> list[Outcome]:
        _, batch = self.inflight.pop(future.key)
        try:
            return future.result()
        except Exception as e:  # KilledWorker, a worker without fairsim, ...
            return [died(t, f"on the cluster: {type(e).__name__}: {e}") for t in batch]
        finally:
            future.release()

    def stop(self) -> None:
        self.client.cancel([f for f, _ in self.inflight.values()])
        self.inflight.clear()

    def close(self) -> None:
        pass
