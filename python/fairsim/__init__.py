"""fairsim: a fast packet-level simulator for fair queueing and congestion control.

>>> import fairsim
>>> res = fairsim.run("scenarios/examples/dumbbell.toml", pairs="G/FCFS")   # doctest: +SKIP
>>> res.flows[["flow", "goodput_pps", "rtt_s"]]                            # doctest: +SKIP
>>> print(res.summary())                                                   # doctest: +SKIP

Importing fairsim loads only the engine: each other name is imported on first use (PEP 562), so
that the command line starts fast and pandas, numpy, matplotlib and dask load only when a
DataFrame, a plot or a cluster is asked for (docs/performance.md, "Start-up").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairsim._core import FairsimError, InternalError, ScenarioError
from fairsim._core import __version__ as __version__

# Not lazy: `fairsim.catalogue` is also a module's name, and importing that module (as the
# command line does) would bind the module to the name in place of the function.
from fairsim.catalogue import catalogue

if TYPE_CHECKING:
    from fairsim.api import Scenario, load, loads, run
    from fairsim.extend import Application, Controller, Discipline, application, controller, discipline
    from fairsim.replications import FairsimWarning, IdenticalSeedsWarning
    from fairsim.results import Results
    from fairsim.sweeps import SweepError, SweepResults, open_sweep, sweep

#: Name -> the module that defines it, imported when the name is first used.
_LAZY = {
    "Application": "fairsim.extend",
    "application": "fairsim.extend",
    "Controller": "fairsim.extend",
    "Discipline": "fairsim.extend",
    "controller": "fairsim.extend",
    "discipline": "fairsim.extend",
    "FairsimWarning": "fairsim.replications",
    "IdenticalSeedsWarning": "fairsim.replications",
    "Results": "fairsim.results",
    "Scenario": "fairsim.api",
    "SweepError": "fairsim.sweeps",
    "SweepResults": "fairsim.sweeps",
    "load": "fairsim.api",
    "loads": "fairsim.api",
    "open_sweep": "fairsim.sweeps",
    "run": "fairsim.api",
    "sweep": "fairsim.sweeps",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairsim' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value  # the next use finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "Application",
    "Controller",
    "Discipline",
    "FairsimError",
    "FairsimWarning",
    "IdenticalSeedsWarning",
    "InternalError",
    "Results",
    "Scenario",
    "ScenarioError",
    "SweepError",
    "SweepResults",
    "application",
    "catalogue",
    "controller",
    "discipline",
    "load",
    "loads",
    "open_sweep",
    "run",
    "sweep",
]
