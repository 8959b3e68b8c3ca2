"""Applications written in Python for the tests of `fairsim.extend` (test_python_apps.py): named
by flows as `app = "python", class = "python_apps:Class"`, or registered by name on import."""

import math
from typing import ClassVar

import fairsim


class Cbr(fairsim.Application):
    """Constant bit rate: the built-in `cbr` without jitter, in Python. Its gap is the built-in's,
    a packet's time at the rate in whole nanoseconds rounded up (docs/extending.md)."""

    params: ClassVar[dict] = {"rate_bps": 1e6}

    def __init__(self, flow, rate_bps):
        super().__init__(flow, rate_bps=rate_bps)
        self.gap = math.ceil(flow.packet_size * 8 * 10**9 / rate_bps) / 1e9

    def next(self, now):
        return now + self.gap

    def demand_bps(self):
        return self.rate_bps


@fairsim.application("test-onoff")
class OnOff(fairsim.Application):
    """On-off with heavy-tailed periods: packets at `rate_bps` while on; on and off periods
    Pareto-distributed with means `on_mean` and `off_mean` (seconds) and shape `shape`."""

    params: ClassVar[dict] = {"rate_bps": 1e6, "on_mean": 0.2, "off_mean": 0.2, "shape": 1.5}

    def __init__(self, flow, **params):
        super().__init__(flow, **params)
        self.gap = flow.packet_size * 8 / self.rate_bps
        self.on_until = 0.0

    def period(self, mean):
        # Pareto with this mean: scale = mean (shape - 1) / shape
        return self.flow.random.paretovariate(self.shape) * mean * (self.shape - 1) / self.shape

    def first(self, start):
        self.on_until = start + self.period(self.on_mean)
        return start

    def next(self, now):
        if now + self.gap < self.on_until:
            return now + self.gap
        start = self.on_until + self.period(self.off_mean)
        self.on_until = start + self.period(self.on_mean)
        return start

    def demand_bps(self):
        return self.rate_bps * self.on_mean / (self.on_mean + self.off_mean)


class Bursts(fairsim.Application):
    """`burst` packets at one instant every `period` seconds, over the flow's transport."""

    params: ClassVar[dict] = {"burst": 5, "period": 0.1}
    flow_control = "closed"

    def __init__(self, flow, **params):
        super().__init__(flow, **params)
        self.left = 0

    def first(self, start):
        self.left = self.burst - 1
        return start

    def next(self, now):
        if self.left > 0:
            self.left -= 1
            return now
        self.left = self.burst - 1
        return now + self.period


class Stops(Cbr):
    """Three packets, then no more."""

    def first(self, start):
        self.sent = 1
        return start

    def next(self, now):
        self.sent += 1
        return now + self.gap if self.sent <= 3 else None


class GoesBack(Cbr):
    def next(self, now):
        return now - 1.0


class Raises(Cbr):
    def next(self, now):
        raise KeyError("the user's bug")


class NoFlowControl(Cbr):
    flow_control = "sometimes"


class File(fairsim.Application):
    """A file of `packets` packets over the flow's transport, all of it produced at the start:
    the built-in `ftp` with a `size`, in Python."""

    flow_control = "closed"
    params: ClassVar[dict] = {"packets": 50}

    def __init__(self, flow, packets):
        super().__init__(flow, packets=packets)
        self.left = packets

    def first(self, start):
        self.left -= 1
        return start

    def next(self, now):
        if self.left == 0:
            return None
        self.left -= 1
        return now
