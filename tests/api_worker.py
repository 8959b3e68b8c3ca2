"""The Python API run on untrusted inputs in a child process, so that an abort, a signal or a hang
is reported with its input instead of killing pytest.

The child (this file run as a script) answers one JSON line per request on stdin: it loads the
scenario file with `fairsim.load`, then either runs it with `fairsim.run` or, for the fuzzer,
builds every pair's simulation and advances it a bounded number of events; then it asks the
results for every table and rendering. The parent side is :class:`ApiWorker`; :func:`defect`
says whether an outcome is a bug in fairsim.
"""

from __future__ import annotations

import json
import os
import resource
import select
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass

# Enough for any valid scenario; an allocation in proportion to an unchecked number fails fast.
MEMORY_LIMIT = 4 << 30


def limit_memory() -> None:
    """`preexec_fn` of the child processes: cap their address space."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@dataclass
class Outcome:
    """What became of one input.

    kind: ``ok`` (valid, ran), ``rejected`` (a fairsim error), ``exception`` (any other Python
    exception), ``died`` (the child exited or was killed by a signal) or ``hang``.
    """

    kind: str
    type: str = ""
    message: str = ""
    detail: str = ""  # a traceback, or the end of the child's standard error
    events: int = 0  # processed by the bounded runs
    done: bool = False  # every bounded run reached its end


def defect(outcome: Outcome) -> str | None:
    """Why the outcome is a bug in fairsim (a panic, an abort, a hang, a non-fairsim exception)."""
    if outcome.kind == "hang":
        return "hang"
    if outcome.kind == "died":
        return "abort"
    if outcome.kind == "exception" or outcome.type == "InternalError":
        return "panic" if "panic" in (outcome.type + outcome.message).lower() else "exception"
    if "panicked" in outcome.message or "internal error" in outcome.message.lower():
        return "panic"
    return None


class ApiWorker:
    """A child process running the API on one input at a time, restarted after a crash or hang."""

    def __init__(self, timeout: float, child: list[str] | None = None):
        self.timeout = timeout
        self.child = child or [sys.executable, __file__]  # another child tests this class
        self.proc: subprocess.Popen | None = None
        self.stderr = tempfile.TemporaryFile()

    def __enter__(self) -> ApiWorker:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        self.stderr.close()

    def stop(self) -> int | None:
        """Ends the child; returns its exit code (negative: the signal that ended it)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.kill()
        code, self.proc = self.proc.wait(), None
        return code

    def _start(self) -> subprocess.Popen:
        self.stderr.seek(0)
        self.stderr.truncate()
        return subprocess.Popen(
            self.child,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            preexec_fn=limit_memory,
            env={**os.environ, "FAIRSIM_DEBUG": ""},
        )

    def check(
        self,
        path: str,
        overrides: list[str] = (),
        steps: int | None = None,
        events: int = 0,
        sweep: bool = False,
    ) -> Outcome:
        """Loads `path` with `overrides` and runs it: fully (`steps` None), or each pair for up
        to `steps` × `events` events; or, with `sweep`, plans its sweep and resolves its first
        `events` runs."""
        if self.proc is None:
            self.proc = self._start()
        request = {"path": path, "set": list(overrides), "steps": steps, "events": events, "sweep": sweep}
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else None
        if line:
            return Outcome(**json.loads(line))
        hung = not ready and self.proc.poll() is None
        code = self.stop()
        self.stderr.seek(0)
        tail = self.stderr.read()[-4000:].decode(errors="replace")
        if hung:
            return Outcome("hang", message=f"no answer within {self.timeout:g} s", detail=tail)
        how = f"signal {-code}" if code < 0 else f"exit code {code}"
        return Outcome("died", message=f"the process ended with {how}", detail=tail)


def _answer(request: dict) -> Outcome:
    import fairsim

    try:
        if request.get("sweep"):
            return _planned(request)
        sc = fairsim.load(request["path"], set=request["set"])
        if request["steps"] is None:
            results = fairsim.run(sc, progress=False, jobs=1)
        else:
            results = _bounded_runs(sc, request["steps"], request["events"])
        _present(results)
        return Outcome("ok", events=sum(r["events"] for r in results.runs), done=results.complete)
    except fairsim.FairsimError as e:
        return Outcome("rejected", type=type(e).__name__, message=str(e))
    except BaseException as e:  # PyO3's PanicException is a BaseException
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return Outcome("exception", type=type(e).__name__, message=str(e), detail=traceback.format_exc())


def _planned(request: dict) -> Outcome:
    """A sweep's plan, and its first runs resolved: everything `fairsim sweep --dry-run` reads."""
    import itertools

    from fairsim.sweeps import make_sweep_plan

    plan = make_sweep_plan(request["path"], set=request["set"])
    runs = list(itertools.islice(plan.runs(), request["events"] or 8))
    return Outcome("ok", events=len(runs), done=True)


def _bounded_runs(sc, steps: int, events: int):
    """Every pair run for at most `steps` × `events` events, as :class:`fairsim.Results`."""
    import fairsim

    reports = []
    for pair in sc.pairs:
        sc.resolved_toml(pair)
        sim = sc._core.simulation(pair, None)
        any(sim.step(events) for _ in range(steps))  # until the run ends, at most `steps` times
        reports.append(json.loads(sim.report_json()))
    meta = {"name": sc.name, "file": sc.file, "description": sc.description, "overrides": sc.overrides}
    return fairsim.Results(meta, reports, source=sc)


def _present(results) -> None:
    """Everything a user can get from results: tables, text, HTML and JSON."""
    for table in ("flows", "intervals", "queues", "queue_intervals", "fairness", "fluid"):
        getattr(results, table)
    results.summary()
    results._repr_html_()
    results.to_json(intervals=True)


def main() -> None:
    for line in sys.stdin.buffer:
        outcome = _answer(json.loads(line))
        sys.stdout.write(json.dumps(outcome.__dict__) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
