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


class PacesTrue(Constant):
    """A pacing rate of True: a number to Python, no rate to a controller."""

    def pacing_rate(self):
        return True


class NoWindow(fairsim.Controller):
    pass


class SwiftLike(fairsim.Controller):
    """A delay-based window after Swift (Kumar et al., SIGCOMM 2020), simplified: while the
    network's delay is below `target` the window grows by `ai` packets a round trip; above it,
    it is cut in proportion to the excess, at most once a round trip and by at most `max_mdf`.
    The network's delay is an ACK's round trip less the time the receiver held the ACK
    (`ack.ack_delay`), unless `subtract_ack_delay` is off."""

    params: ClassVar[dict] = {
        "initial_cwnd": 1.0,
        "target": 0.03,
        "ai": 1.0,
        "beta": 0.8,
        "max_mdf": 0.5,
        "subtract_ack_delay": True,
    }

    def __init__(self, flow, **params):
        super().__init__(flow, **params)
        self.cwnd = self.initial_cwnd
        self.last_decrease = -math.inf
        self.delays: list[float] = []

    def window(self):
        return max(1, int(self.cwnd))

    def on_ack_arrival(self, ack, ctx):
        acked = ack.seq - ctx.una
        if acked <= 0:
            return
        held = ack.ack_delay if self.subtract_ack_delay else 0.0
        delay = ctx.now - ack.echo_sent_at - held
        self.delays.append(delay)
        if delay < self.target:
            self.cwnd += self.ai * acked / self.cwnd
        elif ctx.now - self.last_decrease >= (ctx.srtt or delay):
            cut = max(1 - self.beta * (delay - self.target) / delay, 1 - self.max_mdf)
            self.cwnd = max(1.0, self.cwnd * cut)
            self.last_decrease = ctx.now

    def on_congestion(self, loss, ctx):
        self.cwnd = max(1.0, self.cwnd * (1 - self.max_mdf))
        self.last_decrease = ctx.now


class BbrLike(fairsim.Controller):
    """A BBR-like window: twice the largest delivery rate of the last 10 samples times the
    least round trip (the estimated bandwidth-delay product), paced at that rate times a gain
    that cycles as BBR's ProbeBW does (1.25, 0.75, then 1 for six round trips), so that a faster
    path is found; 10 packets until both are known."""

    made: ClassVar[list] = []
    samples_delivery = True
    GAINS = (1.25, 0.75, 1, 1, 1, 1, 1, 1)

    def __init__(self, flow):
        super().__init__(flow)
        self.samples: list[float] = []
        self.min_rtt = None
        self.phase, self.phase_start = 0, 0.0
        BbrLike.made.append(self)

    def bandwidth(self):
        return max(self.samples[-10:]) if self.samples else None

    def window(self):
        if self.bandwidth() is None or self.min_rtt is None:
            return 10
        return max(4, math.ceil(2 * self.bandwidth() * self.min_rtt))

    def pacing_rate(self):
        return self.GAINS[self.phase] * self.bandwidth() if self.samples else None

    def on_ack_arrival(self, ack, ctx):
        if ctx.delivery_rate is not None and not ctx.delivery_app_limited:
            self.samples.append(ctx.delivery_rate)
        self.min_rtt = ctx.min_rtt
        if self.min_rtt is not None and ctx.now - self.phase_start > self.min_rtt:
            self.phase, self.phase_start = (self.phase + 1) % len(self.GAINS), ctx.now


class ReadsUnaskedSamples(Constant):
    def on_ack(self, count, ctx):
        self.rate = ctx.delivery_rate


class SeesItsConnection(Aimd):
    """Aimd, noting in each hook what its context shows (`seen`, by hook)."""

    seen: ClassVar[dict] = {}
    samples_delivery = True

    def __init__(self, flow, **params):
        super().__init__(flow, **params)
        SeesItsConnection.seen.clear()

    def _note(self, hook, ctx):
        view = (ctx.now, ctx.srtt, ctx.min_rtt, ctx.rto, ctx.flight, ctx.flight_bytes, ctx.una, ctx.next_seq)
        SeesItsConnection.seen.setdefault(hook, []).append((*view, ctx.in_recovery, ctx.delivered))

    def on_rtt_sample(self, rtt_s, ack, next_seq, ctx):
        self._note("on_rtt_sample", ctx)

    def on_recovery_dupack(self, ctx):
        self._note("on_recovery_dupack", ctx)
        super().on_recovery_dupack(ctx)

    def on_partial_ack(self, count, ctx):
        self._note("on_partial_ack", ctx)
        super().on_partial_ack(count, ctx)

    def on_recovery_end(self, ctx):
        self._note("on_recovery_end", ctx)
        super().on_recovery_end(ctx)

    def moderate(self, packets, ctx):
        self._note("moderate", ctx)
        super().moderate(packets, ctx)

    def after_fill(self, in_flight, ctx):
        self._note("after_fill", ctx)


class RecordsItsOwn(Constant):
    """Records a series of its own name, and no `trace`: its window is traced as `cwnd`."""

    def on_ack(self, count, ctx):
        ctx.record("acked-per-ack", count)


class KeepsItsContext(Constant):
    """Reads a context outside any hook: in `window`, which the adapter calls after them."""

    def on_ack(self, count, ctx):
        self.kept = ctx

    def window(self):
        if hasattr(self, "kept"):
            self.kept.now  # noqa: B018  (the read is the test)
        return 10


class OldSignature(Constant):
    def on_rtt_sample(self, rtt_s, ack, next_seq):
        pass
