"""How many threads one run may use (docs/decisions.md, "One run on every core"): what the
scenario's `[run] threads` says; else the environment's `FAIRSIM_THREADS`; else the cores that
the runs going on at once leave free. A run's results are the same on any number of threads."""

from __future__ import annotations

import os

from fairsim._core import MAX_THREADS, FairsimError


def threads_per_run(core_scenario, runs_at_once: int) -> int:
    """Threads for each of `runs_at_once` runs of `core_scenario` going on together."""
    if core_scenario.threads:
        return core_scenario.threads
    given = os.environ.get("FAIRSIM_THREADS")
    if given is not None:
        if not given.strip().isdigit() or not 1 <= int(given) <= MAX_THREADS:
            why = f"FAIRSIM_THREADS must be a whole number from 1 to {MAX_THREADS}"
            raise FairsimError(f"{why}, not {given!r}")
        return int(given)
    return max(1, (os.cpu_count() or 1) // max(1, runs_at_once))
