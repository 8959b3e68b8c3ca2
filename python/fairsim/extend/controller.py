"""The base class of a congestion controller written in Python, and the flow it is built for.

A controller decides the window and nothing else, as the engine's own do (`Controller` in
`crates/fairsim/src/transport/reliability/controller.rs`, whose events this mirrors): the TCP
reliability layer below it keeps the send window, detects losses, retransmits and recovers
(fast retransmit, SACK, PRR, timers, delayed ACKs, as its parameters say), tells the controller
what happened and asks it how many packets may be outstanding (`window`). Only the hooks a class
defines are called. `window` and `pacing_rate` are read once after each hook that was called,
so the layer, which asks for them far more often, never waits for Python. The adapter is
`crates/fairsim-py/src/python_controller.rs`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from fairsim import _core

#: A loss the layer detected: `kind` ("fast_retransmit", "timeout" or "ecn"), `dupacks`,
#: `recovering` (fast recovery entered), `flight` and `pipe` (packets outstanding, and of those
#: still in the network) when it was detected (defined in Rust).
Loss = _core.Loss


@dataclass(frozen=True)
class Flow:
    """The flow a controller is built for."""

    name: str
    #: The largest window the flow may use (the receiver's), packets.
    window: int
    #: Its data packets' size, bytes.
    packet_size: int
    #: The controller's own random stream, seeded from the run's seed and the flow's name: the
    #: same seed repeats it, another seed gives another (a `random.Random`).
    random: random.Random = field(compare=False, repr=False)


class Controller:
    """Base class of a congestion controller written in Python: override `window` and the
    events it needs. Every event is given the context `ctx` last, valid only during the call:
    `ctx.now`; the connection as the reliability layer keeps it (`srtt`, `min_rtt`, `rto`,
    `flight`, `flight_bytes`, `una`, `next_seq`, `in_recovery`); with `samples_delivery`, the
    latest ACK's delivery-rate sample (`delivered`, `delivery_rate`, `delivery_interval`,
    `delivery_app_limited`, `delivery_prior_delivered`); and `ctx.record(series, value)` for
    traces, of any name. In a traced flow what is in flight is recorded as `outstanding`, and a
    class without `trace` has its window recorded as `cwnd` (and `ssthresh`, if it has a number
    by that name), as `reno` has them (docs/extending.md)."""

    #: Parameter name -> default; the default's type is the parameter's.
    params: ClassVar[dict[str, Any]] = {}
    #: Parameter name -> what it means, for `fairsim list NAME`.
    param_docs: ClassVar[dict[str, str]] = {}
    #: The hooks a subclass must define.
    required: ClassVar[tuple[str, ...]] = ("window",)
    #: True: the context carries the latest ACK's delivery-rate sample (`delivered`,
    #: `delivery_rate`, ...), BBR's estimator kept per packet in flight; reading one without it
    #: raises.
    samples_delivery: ClassVar[bool] = False

    def __init__(self, flow: Flow, **params: Any) -> None:
        self.flow = flow
        for name, value in params.items():
            setattr(self, name, value)

    def window(self) -> int:
        """Packets that may be outstanding (the layer caps it by the flow's window, sends at
        least one)."""
        raise NotImplementedError

    def pacing_rate(self) -> float | None:
        """Packets per second to pace sends at, or None: a window's worth goes at once."""
        return None

    def on_start(self, ctx) -> None:
        """The flow starts."""

    def on_ack_arrival(self, ack, ctx) -> None:
        """Every ACK, before the window slides (`ack`: a packet view, with `echo_sent_at`, the
        send time of the data it acknowledges, and `ack_delay`, how long the receiver held it)."""

    def on_rtt_sample(self, rtt_s: float, ack: int, next_seq: int, ctx) -> None:
        """A round trip measured from an ACK's echo; `ack` its cumulative ACK, `next_seq` the
        next packet the sender will send."""

    def on_ack(self, count: int, ctx) -> None:
        """New data acknowledged outside recovery (`count` packets): the window may grow."""

    def on_congestion(self, loss: Loss, ctx) -> None:
        """A loss was detected (after the layer decided its retransmission)."""

    def on_recovery_dupack(self, ctx) -> None:
        """A duplicate ACK during fast recovery."""

    def on_partial_ack(self, count: int, ctx) -> None:
        """A NewReno partial ACK of `count` packets."""

    def on_recovery_end(self, ctx) -> None:
        """The ACK that ends fast recovery."""

    def moderate(self, packets: int, ctx) -> None:
        """At most `packets` may be outstanding from now on: a larger window is cut to it."""

    def undo(self, ctx) -> None:
        """The last fast recovery's retransmissions were all spurious (reported by D-SACK, or
        told by the timestamps): the reduction `on_congestion` made may be taken back."""

    def trace(self, ctx) -> None:
        """Record the controller's variables (`ctx.record`); called only for a traced flow."""

    def after_fill(self, in_flight: int, ctx) -> None:
        """The layer has sent what the window allows; `in_flight` packets are outstanding."""

    def on_packet_sent(self, seq: int, ctx) -> None:
        """Packet `seq` left now (a retransmission too)."""
