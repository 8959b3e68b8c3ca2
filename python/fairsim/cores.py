"""How many threads one run may use (docs/decisions.md, "A run's threads"): what the scenario's
`[run] threads` says, or else the environment's `FAIRSIM_THREADS`, obeyed as given; else up to
the cores that the runs going on at once leave free, of which the engine takes only as many as
its cost model expects to pay (one, unless the run is long and its windows hold enough work).
A run's results are the same on any number of threads.

The cores are those the process may run on (its CPU affinity: what `taskset`, a container's
CPU set or a cluster's job gave it), not every core of the machine."""

from __future__ import annotations

import os

from fairsim._core import MAX_THREADS, FairsimError


def usable_cores() -> int:
    """The cores this process may run on: its affinity where the system has one, else all."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def threads_per_run(core_scenario, runs_at_once: int) -> tuple[int, bool]:
    """Threads for each of `runs_at_once` runs of `core_scenario` going on together, and whether
    the count was given (obeyed as it is) rather than a bound the engine chooses under."""
    if core_scenario.threads:
        return core_scenario.threads, True
    given = os.environ.get("FAIRSIM_THREADS")
    if given is not None:
        if not given.strip().isdigit() or not 1 <= int(given) <= MAX_THREADS:
            why = f"FAIRSIM_THREADS must be a whole number from 1 to {MAX_THREADS}"
            raise FairsimError(f"{why}, not {given!r}")
        return int(given), True
    return max(1, usable_cores() // max(1, runs_at_once)), False
