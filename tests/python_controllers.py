"""Congestion controllers written in Python for the tests of `fairsim.extend`
(test_python_controllers.py): named as `python_controllers:Class`, or registered on import."""

import math
from typing import ClassVar

import fairsim


class Aimd(fairsim.Controller):
    """Jacobson's window (slow start, congestion avoidance, halving on loss): the built-in `reno`
    and `newreno` controllers' (`transport/controllers/aimd.rs`), line for line in Python."""

    params: ClassVar[dict] = {"initial_cwnd": 10.0, "counting": "bytes", "ssthresh_from": "cwnd"}

    def __init__(self, flow, initial_cwnd, counting, ssthresh_from):
        super().__init__(flow, initial_cwnd=initial_cwnd, counting=counting, ssthresh_from=ssthresh_from)
        self.cwnd = initial_cwnd
        self.ssthresh = math.inf
        self.cap = float(flow.window)

    def window(self):
        return math.floor(self.cwnd)

    def on_start(self, ctx):
        self.trace(ctx)

    def on_ack(self, count, ctx):
        units = 1.0 if self.counting == "packets" else float(count)
        if self.cwnd >= self.ssthresh:
            self.cwnd += units / self.cwnd
        elif self.counting == "packets":
            self.cwnd += units
        else:
            slow = min(units, self.ssthresh - self.cwnd)
            self.cwnd += slow
            self.cwnd += (units - slow) / self.cwnd
        self.cwnd = min(self.cwnd, self.cap)

    def on_congestion(self, loss, ctx):
        base = {"flight": loss.flight, "pipe": loss.pipe, "cwnd": self.cwnd}[self.ssthresh_from]
        self.ssthresh = max(base / 2.0, 2.0)
        if loss.kind == "fast_retransmit" and loss.recovering:
            self.cwnd = self.ssthresh + loss.dupacks
        elif loss.kind == "ecn":
            self.cwnd = self.ssthresh
        else:
            self.cwnd = 1.0

    def on_recovery_dupack(self, ctx):
        self.cwnd += 1.0

    def on_partial_ack(self, count, ctx):
        self.cwnd = max(self.cwnd - count + 1.0, 1.0)

    def on_recovery_end(self, ctx):
        self.cwnd = self.ssthresh

    def moderate(self, packets, ctx):
        self.cwnd = min(self.cwnd, float(packets))

    def trace(self, ctx):
        ctx.record("cwnd", self.cwnd)
        if math.isfinite(self.ssthresh):
            ctx.record("ssthresh", self.ssthresh)

    def after_fill(self, in_flight, ctx):
        ctx.record("outstanding", in_flight)


@fairsim.controller("test-const")
class Constant(fairsim.Controller):
    """A constant window, whatever happens."""

    params: ClassVar[dict] = {"packets": 10}

    def window(self):
        return self.packets


class RandomWindow(Constant):
    """A window drawn from the controller's own stream at every ACK: 2 to 12 packets."""

    def on_ack(self, count, ctx):
        self.packets = self.flow.random.randint(2, 12)


class Raises(Constant):
    def on_ack(self, count, ctx):
        if ctx.now > 1.0:
            raise ZeroDivisionError("the user's bug")


class WindowNotANumber(Constant):
    def window(self):
        return "ten"


class WindowTrue(Constant):
    def window(self):
        return True


class WindowGoesNegative(Constant):
    def on_start(self, ctx):
        self.packets = -3


class BadPacing(Constant):
    def on_start(self, ctx):
        self.rate = -1.0

    def pacing_rate(self):
        return getattr(self, "rate", None)


class NoWindow(fairsim.Controller):
    pass
