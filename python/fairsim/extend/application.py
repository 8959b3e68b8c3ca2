"""The base class of an application (traffic source) written in Python, and the flow it is
built for.

An application says when its flow's packets are produced: `first(start)` gives the first
packet's instant, `next(now)` the one after the packet produced at `now`, each in seconds, or
None when it produces no more. Several packets at one instant make a burst. Open loop (the
default, as `onoff`) each packet goes out as it is produced; over a transport (`flow_control =
"closed"`, or a flow that names a transport) each is handed to the transport, which sends it
when its window allows. The adapter is `crates/fairsim-py/src/python_app.rs`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class AppFlow:
    """The flow an application is built for."""

    #: Application bytes of each data packet (the flow's `packet_size`, 1000 if it gives none).
    packet_size: int
    #: The application's own random stream, seeded from the flow's stream of the run: the same
    #: seed repeats it, another seed gives another (a `random.Random`).
    random: random.Random = field(compare=False, repr=False)


class Application:
    """Base class of an application written in Python: override `next` (and `first`, whose
    default is the flow's start)."""

    #: Parameter name -> default; the default's type is the parameter's. A flow's table holds
    #: them beside its own keys: `app = "NAME", on_mean = 0.5`.
    params: ClassVar[dict[str, Any]] = {}
    #: Parameter name -> what it means, for `fairsim list NAME`.
    param_docs: ClassVar[dict[str, str]] = {}
    #: `"open"`: open loop unless the flow names a transport; `"closed"`: over the pair's
    #: transport unless the flow says `transport = "none"`.
    flow_control: ClassVar[str] = "open"
    #: The hooks a subclass must define.
    required: ClassVar[tuple[str, ...]] = ("next",)

    def __init__(self, flow: AppFlow, **params: Any) -> None:
        self.flow = flow
        for name, value in params.items():
            setattr(self, name, value)

    def first(self, start: float) -> float | None:
        """The first packet's instant, seconds (not before `start`, the flow's start), or None."""
        return start

    def next(self, now: float) -> float | None:
        """The instant of the packet after the one produced at `now` (not before it), or None:
        no more packets."""
        raise NotImplementedError

    def demand_bps(self) -> float | None:
        """The long-run payload rate it asks for, bit/s, if known (the fair-share computations
        read it), asked once as the scenario is loaded; None: as much as it can get."""
        return None
