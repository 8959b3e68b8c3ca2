"""One run of a sweep, where it executes (a process of the local pool, or a Dask worker).

A task is plain data (the run's id, its scenario as the file's text with the overrides, pair,
seed, time limit), and so is what comes back (status, error, events, wall time, and the run's
report as JSON), so it travels through pickling unchanged and a worker needs nothing but fairsim
installed.

A task carries the scenario as written, not its resolved form, because a worker then parses and
validates each scenario once for all its pairs and seeds (`loaded`, a small cache), not once a
run: one to three milliseconds a run (measured on keshav91 and csfq98 scenarios). The run's id
is still the hash of its resolved scenario, which by construction runs identically
(docs/scenario-format.md, "The resolved scenario").
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from dataclasses import dataclass

from fairsim import _core
from fairsim.cores import threads_per_run, usable_cores
from fairsim.runner import CHUNK  # time limits and stop requests are checked between chunks

OK, FAILED, TIMEOUT, STOPPED = "ok", "failed", "timeout", "stopped"


@dataclass(frozen=True)
class Task:
    run_id: str
    #: The scenario file's text, its name (for messages) and the overrides applied to it.
    source: str | bytes
    file: str
    overrides: tuple[str, ...]
    pair: str
    seed: int
    #: Wall-clock seconds after which the run is stopped and recorded as timed out (None: none).
    time_limit: float | None = None
    #: Modules to import first: they register the disciplines written in Python that the
    #: scenario names (`fairsim.extend.registering_modules`).
    imports: tuple[str, ...] = ()


@dataclass
class Outcome:
    run_id: str
    status: str
    error: str | None
    events: int
    wall_s: float
    sim_s: float
    #: The run's report (`fairsim run --json`'s per-run object) as JSON, if it finished.
    report: str | None


def run_task(task: Task, stop=None) -> Outcome:
    """Runs one task to its end, its time limit, or `stop` (a threading or multiprocessing Event)."""
    started = time.monotonic()
    over = f"stopped after its time limit of {task.time_limit:g} s" if task.time_limit is not None else ""
    # a run that may call Python: a hook that never returns is stopped from here
    watched = (task.time_limit is not None or stop is not None) and _may_call_python(task)
    with nudged() if watched else contextlib.nullcontext():
        return _run_task(task, stop, started, over, watched)


def _run_task(task: Task, stop, started: float, over: str, watched: bool) -> Outcome:
    sim = None
    guard = _HookWatch(task.time_limit, stop) if watched else None
    try:
        if task.imports:
            from fairsim.extend import import_modules

            import_modules(task.imports)
        # the sweep's runs fill the cores: a run takes more threads only if told to
        core = loaded(task)
        sim = core.simulation(task.pair, task.seed, *threads_per_run(core, usable_cores()))
        while not sim.step(CHUNK):
            if stop is not None and stop.is_set():
                return _ended(task, STOPPED, "stopped before its end", sim, started)
            if task.time_limit is not None and time.monotonic() - started > task.time_limit:
                return _ended(task, TIMEOUT, over, sim, started)
        if sim.error:
            return _ended(task, FAILED, sim.error, sim, started)
        report = sim.report_json()
        return Outcome(task.run_id, OK, None, sim.events, time.monotonic() - started, sim.now_s, report)
    except (_core.RunStopped, _core.Stopped):  # the watch stopped a Python hook
        if stop is not None and stop.is_set():
            return _ended(task, STOPPED, "stopped before its end (inside a Python hook)", sim, started)
        return _ended(task, TIMEOUT, f"{over} (inside a Python hook)", sim, started)
    except Exception as e:  # a scenario error, an internal error: recorded, the sweep goes on
        return _ended(task, FAILED, f"{type(e).__name__}: {e}", sim, started)
    finally:
        if guard is not None:
            try:
                guard.close()
            except _core.Stopped:
                pass  # the watch stopped a hook just as the run ended: nothing is left to stop


def _may_call_python(task: Task) -> bool:
    """Whether the task's run may call a component written in Python: it imports registering
    modules, this process has registered classes (a forked worker inherits them), or the scenario
    or an override names the `python` kind. Cheap, and never false where it calls one."""
    from fairsim.extend.registry import _REGISTRY, PYTHON_KIND

    kinds = (f'"{PYTHON_KIND}"', f"'{PYTHON_KIND}'")  # a TOML string, basic or literal
    source = task.source.decode(errors="replace") if isinstance(task.source, bytes) else task.source
    texts = (source, *task.overrides)
    return bool(task.imports) or any(_REGISTRY.values()) or any(k in t for k in kinds for t in texts)


class _HookWatch:
    """A thread that stops a Python hook of this process's run (`_core._interrupt_hooks`) once
    the run is over its time limit or asked to stop: the run's own loop checks both between
    chunks of events, which a hook that never returns never reaches. It looks a few times a
    second and costs nothing while it waits.

    The exception it raises in the hook's thread lands at the hook's next Python instruction,
    which a hook blocked in C (`time.sleep`, a read) does not reach. So while a hook of the main
    thread stays inside after that, it also sends the main thread a signal (`NUDGE`), whose
    handler (installed by `nudged`) raises `Stopped` there: the blocked call is interrupted, as
    Ctrl-C interrupts it, and the hook ends."""

    #: How often it looks, seconds: how late past its limit a stuck hook is stopped, at most.
    LOOK_S = 0.2

    def __init__(self, limit: float | None, stop) -> None:
        import threading

        self.closed = threading.Event()
        self.deadline = None if limit is None else time.monotonic() + limit
        self.stop = stop
        self.nudge = _nudge_target()
        self.thread = threading.Thread(target=self._watch, name="fairsim-hook-watch", daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        asked = False
        while not self.closed.wait(self.LOOK_S):
            late = self.deadline is not None and time.monotonic() > self.deadline + self.LOOK_S
            if not asked and (late or (self.stop is not None and self.stop.is_set())):
                asked = True
                if not _core._interrupt_hooks(_core.Stopped):
                    return  # no hook running: the run's loop stops itself
            elif asked:
                if self.nudge is None or not _core._interrupt_hooks(_core.Stopped):
                    return
                import signal

                signal.pthread_kill(self.nudge, NUDGE)  # still inside: blocked in C

    def close(self) -> None:
        self.closed.set()
        self.thread.join()


#: The signal that interrupts a hook blocked in C on the main thread (POSIX only).
NUDGE = getattr(__import__("signal"), "SIGUSR1", None)


def _nudge_target() -> int | None:
    """The main thread's id, if a run there can be nudged: this is the main thread and the
    handler is in place."""
    import signal
    import threading

    here = threading.current_thread() is threading.main_thread()
    if NUDGE is None or not here or signal.getsignal(NUDGE) is not _raise_in_hook:
        return None
    return threading.main_thread().ident


def _raise_in_hook(signum, frame) -> None:
    """`NUDGE`'s handler: stops the hook the main thread is inside (blocked in C), if any."""
    if _core._in_hook():
        raise _core.Stopped("stopped inside a Python hook")


@contextlib.contextmanager
def nudged():
    """Installs `NUDGE`'s handler for a run on the main thread (elsewhere, nothing)."""
    import signal
    import threading

    if NUDGE is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(NUDGE, _raise_in_hook)
    try:
        yield
    finally:
        signal.signal(NUDGE, before)


#: Scenarios parsed in this process, newest last: a batch's runs share a few.
_cache: dict[tuple, object] = {}
CACHED = 16


def loaded(task: Task):
    """The task's scenario, parsed once per process for all its pairs and seeds."""
    key = (
        hashlib.sha1(task.source if isinstance(task.source, bytes) else task.source.encode()).digest(),
        task.file,
        task.overrides,
    )
    scenario = _cache.pop(key, None)
    if scenario is None:
        scenario = _core.loads(task.source, task.file, list(task.overrides), "set=")
        while len(_cache) >= CACHED:
            del _cache[next(iter(_cache))]
    _cache[key] = scenario
    return scenario


def _ended(task: Task, status: str, error: str, sim, started: float) -> Outcome:
    events = sim.events if sim is not None else 0
    now = sim.now_s if sim is not None else 0.0
    return Outcome(task.run_id, status, error, events, time.monotonic() - started, now, None)


def run_batch(tasks: list[Task], stop=None) -> list[Outcome]:
    """Several short runs in one task (fewer round trips to a scheduler)."""
    return [run_task(t, stop) for t in tasks]
