"""What a sweep will cost, before running it (`fairsim sweep --dry-run`).

Each pair runs once, at the sweep's first point, for a slice of its simulated time (until the
slice has taken `PILOT_S` of wall time or covered a tenth of the run); its events and wall time
per simulated second, scaled by each run's simulated duration, estimate every run of that pair.
Runs whose load differs along an axis (a rate, a number of flows) cost more or less than the
estimate says: it is a first guess, printed as one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from fairsim.sweeps.worker import CHUNK, Task, loaded

PILOT_S = 0.3


@dataclass
class Estimate:
    runs: int
    cached: int
    events: float
    cpu_s: float
    jobs: int

    @property
    def wall_s(self) -> float:
        return self.cpu_s / max(1, self.jobs)

    def text(self) -> str:
        todo = self.runs - self.cached
        return (
            f"{todo} of {self.runs} runs to do ({self.cached} already in the folder); estimated "
            f"{self.events:.3g} events, {_duration(self.cpu_s)} of CPU, about {_duration(self.wall_s)} "
            f"on {self.jobs} {'core' if self.jobs == 1 else 'cores'}"
        )


def _duration(s: float) -> str:
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def pilot(task: Task) -> tuple[float, float]:
    """Events and wall seconds per simulated second of one run, from a slice of it."""
    sim = loaded(task).simulation(task.pair, task.seed)
    started = time.monotonic()
    while not sim.step(CHUNK // 10):
        if time.monotonic() - started > PILOT_S or sim.now_s > sim.end_s / 10:
            break
    wall = time.monotonic() - started
    simulated = max(sim.now_s, 1e-9)
    return sim.events / simulated, wall / simulated
