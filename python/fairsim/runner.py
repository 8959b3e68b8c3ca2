"""Running simulations: in chunks, on worker threads, with one progress bar and Ctrl-C.

The engine releases the GIL while it steps, so runs of several pairs or seeds use every core.
A run advances in chunks of events; between chunks its thread records how far it got and
checks whether the user asked to stop. The main thread only waits, draws progress and catches
Ctrl-C, after which every run stops at its next chunk and reports what it has.

The workers are plain threads taking the runs in turn, not a `concurrent.futures` pool: that
module imports `logging`, which alone took longer than a small run (docs/performance.md,
"Start-up").

Runs that may call components written in Python run on the main thread instead, one after the
other, while a helper thread draws the progress: Ctrl-C's handler then runs on the thread of the
hooks, and raises `Stopped` inside one blocked in C (`time.sleep`, a read), which an exception
sent to another thread would not reach until the call returned. A hook holds the GIL, so such
runs gained little from threads.
"""

from __future__ import annotations

import contextlib
import sys
import threading

from fairsim import _core
from fairsim._core import FairsimError, InternalError, RunStopped, Stopped
from fairsim.columns import read_report, taken_report, taken_size
from fairsim.cores import threads_per_run, usable_cores
from fairsim.memory import return_freed
from fairsim.progress import progress_bar

#: Events per chunk: a few milliseconds of work, so Ctrl-C and progress stay responsive.
CHUNK = 200_000


def execute(
    core_scenario,
    runs: list[tuple[str, int]],
    *,
    progress: bool | None,
    jobs: int | None,
    verbose: bool = False,
):
    """Runs `(pair, seed)` pairs; returns their reports (dicts), what their chosen ports saw (a
    dict by (port, "pcap" or "events") of a pcap file's bytes or an event trace's text, empty
    unless `[run] pcap` or `[run] events` names ports) and whether Ctrl-C stopped them. One
    progress bar counts all the runs. (Sweeps and reproductions run on worker processes instead:
    `fairsim.sweep`.) Each run may use the cores the runs going on at once leave free (`[run]
    threads` says otherwise; the engine takes only the threads its cost model expects to pay,
    and the results are the same at any count); `verbose` prints on how many threads each went,
    or why on one.
    """
    done_fraction = [0.0] * len(runs)
    notes: list[str | None] = [None] * len(runs)
    stop = threading.Event()

    def work(i: int) -> tuple[dict, dict[tuple[str, str], bytes | str]]:
        # Each run is built when a worker takes it and let go before its report is parsed: with
        # 100,000 flows a run holds over a gigabyte, so only the running ones may be alive.
        pair, seed = runs[i]
        sim = core_scenario.simulation(pair, seed, *run_threads)
        where = f"{core_scenario.file}: pair {pair}, seed {seed}"
        try:
            while not stop.is_set():
                try:
                    finished = sim.step(CHUNK)
                except (InternalError, RunStopped):
                    raise
                except FairsimError as e:  # a discipline written in Python failed (fairsim.extend)
                    raise FairsimError(f"{where}: {e}") from None
                # a run that splits after its first stretch starts again: the bar does not go back
                done_fraction[i] = max(done_fraction[i], sim.now_s / sim.end_s)
                if finished:
                    break
        except RunStopped:
            pass  # Ctrl-C stopped a Python hook (`_interrupt_hooks`): the run reports what it has
        except Stopped:
            pass  # the same, landed just after a hook returned: the run stops here as asked
        notes[i] = f"{where}: {threads_note(sim)}"
        if sim.error:
            raise FairsimError(f"{where}: {sim.error}")
        seen = {(port, "pcap"): data for port, data in sim.pcaps()}
        seen |= {(port, "events"): text for port, text in sim.event_traces()}
        # the long tables cross as columns (fairsim.columns), not as a dict per row; the rest is
        # read once the run is let go and its memory returned, not beside it: a 256-flow
        # dumbbell's rows are about 4 MB of dicts (docs/performance.md, "The report after the run")
        try:
            taken = taken_report(sim)
        except InternalError:
            raise
        except FairsimError as e:  # a discipline's `stats`, asked for the report, failed
            raise FairsimError(f"{where}: {e}") from None
        del sim
        return_freed(taken_size(taken))
        return read_report(taken), seen

    done: list = [None] * len(runs)
    failed: list[BaseException | None] = [None] * len(runs)
    todo = iter(range(len(runs)))
    taking = threading.Lock()
    label = core_scenario.name
    on_main = _may_call_python()
    workers = 1 if on_main else max(1, min(jobs or usable_cores(), len(runs)))
    run_threads = threads_per_run(core_scenario, workers)
    working = [workers]
    # The main thread waits on this event, not on Thread.join: a join that Ctrl-C interrupts
    # marks a running thread as stopped (Python 3.11), and the next join would not wait for it.
    finished = threading.Event()

    def runs_finished() -> int:
        return sum(r is not None for r in done)

    def worker() -> None:
        try:
            while True:
                with taking:
                    i = next(todo, None)
                if i is None:
                    return
                try:
                    done[i] = work(i)
                except BaseException as e:  # raised in the caller's thread below, in the runs' order
                    failed[i] = e
        finally:
            with taking:
                working[0] -= 1
                if working[0] == 0:
                    finished.set()

    def draw() -> None:
        while not finished.wait(timeout=0.1):
            bar.update(sum(done_fraction), finished=runs_finished())

    body, name = (draw, "fairsim-progress") if on_main else (worker, "fairsim-run")
    threads = [threading.Thread(target=body, name=f"{name}-{k}") for k in range(workers)]
    bar = progress_bar(label, len(runs), progress)
    for k, t in enumerate(threads):
        try:
            t.start()
        except RuntimeError:  # no more threads: those started take all the runs
            if not on_main:  # (a thread that would have drawn the progress: the runs go on)
                with taking:
                    working[0] -= len(threads) - k
                    if working[0] == 0:
                        finished.set()
            del threads[k:]
            if not threads and not on_main:
                raise
            break
    interrupted = False
    try:
        if on_main:
            with _stopping_hooks_here(stop) as asked:
                worker()
            interrupted = asked.is_set()
        while not finished.wait(timeout=0.1):
            bar.update(sum(done_fraction), finished=runs_finished())
        bar.update(sum(done_fraction), finished=runs_finished())
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
        # a run stops at its next chunk; one inside a Python hook that never returns would not
        _core._interrupt_hooks(Stopped)
        finished.wait()
    finally:
        bar.close(sum(done_fraction), stopped=interrupted, finished=runs_finished())
    for t in threads:
        t.join()
    if verbose:
        for note in notes:
            if note is not None:
                print(f"fairsim: {note}", file=sys.stderr)
    for error in failed:
        if error is not None:
            raise error
    return [r for r, _ in done], [c for _, c in done], interrupted


def _may_call_python() -> bool:
    """Whether a component written in Python is defined (any run may call its hooks)."""
    if "fairsim.extend" not in sys.modules:
        return False  # a component subclasses one of its classes: none exists before it loads
    from fairsim.extend.code_identity import user_components

    return threading.current_thread() is threading.main_thread() and bool(user_components())


@contextlib.contextmanager
def _stopping_hooks_here(stop: threading.Event):
    """Ctrl-C while the main thread runs: the runs stop at their next chunk (`stop`), and a hook
    the main thread is inside, blocked in C or not, raises `Stopped` at once. A second Ctrl-C
    outside a hook is a KeyboardInterrupt. Yields the event set by the first."""
    import signal

    asked = threading.Event()

    def on_ctrl_c(signum, frame) -> None:
        if asked.is_set() and not _core._in_hook():
            raise KeyboardInterrupt
        asked.set()
        stop.set()
        if _core._in_hook():
            raise Stopped("stopped by Ctrl-C inside a Python hook")

    before = signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        yield asked
    finally:
        signal.signal(signal.SIGINT, before)


def threads_note(sim) -> str:
    """How a run went: on how many threads, how evenly its partitions shared its events (the
    busiest's share bounds the speed-up) and what the engine weighed, or on one thread and why."""
    return sim.threads_note or "stopped before it started"
