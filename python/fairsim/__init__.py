"""fairsim: a fast packet-level simulator for fair queueing and congestion control.

>>> import fairsim
>>> res = fairsim.run("scenarios/examples/dumbbell.toml", pair="G/FCFS")   # doctest: +SKIP
>>> res.flows[["flow", "goodput_pps", "rtt_s"]]                            # doctest: +SKIP
>>> print(res.summary())                                                   # doctest: +SKIP
"""

from fairsim._core import FairsimError, InternalError, ScenarioError
from fairsim._core import __version__ as __version__
from fairsim.api import Scenario, load, loads, run
from fairsim.catalogue import catalogue
from fairsim.replications import FairsimWarning, IdenticalSeedsWarning
from fairsim.results import Results
from fairsim.sweeps import SweepError, SweepResults, open_sweep, sweep

__all__ = [
    "FairsimError",
    "FairsimWarning",
    "IdenticalSeedsWarning",
    "InternalError",
    "Results",
    "Scenario",
    "ScenarioError",
    "SweepError",
    "SweepResults",
    "catalogue",
    "load",
    "loads",
    "open_sweep",
    "run",
    "sweep",
]
