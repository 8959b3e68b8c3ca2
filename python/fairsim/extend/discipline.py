"""The base class of a queueing discipline written in Python, and the port it is built for.

The engine keeps the packets. `enqueue` gets a view of each arriving packet (`Packet`), which
the discipline keeps (in a list, a heap, anything) or drops through the context (`Context`).
`dequeue` returns one of the views it keeps, or None. A hook that raises, or returns anything
else, stops the run; the error names the class, the hook and the simulated time, and gives the
traceback. The adapter is `crates/fairsim-py/src/python_qdisc.rs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from fairsim import _core

#: A queued packet's read-only view, with a `tag` the discipline may set (defined in Rust).
Packet = _core.Packet
#: What a hook may see (`now`, `rate_bps`, `queued_packets`, `queued_bytes`, `random`) and ask
#: for (`drop`, `mark`, `admits`, `wake_at`); one per discipline, reused for every call, valid
#: only during it (defined in Rust).
Context = _core.Context


@dataclass(frozen=True)
class FlowInfo:
    """A flow of the scenario, as a discipline sees it (`port.flows[packet.flow]`)."""

    name: str
    #: The nodes it goes from and to (its data; its ACKs go the other way).
    src: str
    dst: str
    #: Its weight in the scenario (`weight`, 1 unless given): what weighted disciplines share by.
    weight: float
    #: Its data packets' size, bytes.
    packet_size: int


@dataclass(frozen=True)
class Port:
    """The port a discipline is built for."""

    #: The buffer's limit in packets, or in bytes; both None when it is unlimited.
    buffer_packets: int | None
    buffer_bytes: int | None
    #: The line's rate as the port was built, bit/s; `ctx.rate_bps` is its rate now, which a
    #: rate change in `[[events]]` moves.
    rate_bps: int
    #: Every flow of the scenario, by index: a packet's `flow` indexes it.
    flows: tuple[FlowInfo, ...]
    #: The conversations whose route crosses the port: (flow, "data" or "ack").
    conversations: tuple[tuple[int, str], ...]
    #: The port's name, `from->to`.
    name: str


class Discipline:
    """Base class of a queueing discipline written in Python: override `enqueue` and `dequeue`.

    Two optional methods, which the base does not define: `stats()`, a dict of figures (name ->
    number) for the report's `qdisc_stats`, asked once at the end (its figures cover the whole
    run, warm-up included), and `gauge()`, `(name, number)` or None: the variable that explains
    the discipline's decisions, recorded beside the queue's length when the port is traced
    (`[run] trace_queues`). A figure's name is a Python name and its value a finite number.
    `dequeue` is also asked when the line goes idle with nothing queued (it then returns None),
    as the built-in disciplines are: that is the moment to note an idle line."""

    #: Parameter name -> default; the default's type is the parameter's.
    params: ClassVar[dict[str, Any]] = {}
    #: Parameter name -> what it means, for `fairsim list NAME`.
    param_docs: ClassVar[dict[str, str]] = {}
    #: The hooks a subclass must define.
    required: ClassVar[tuple[str, ...]] = ("enqueue", "dequeue")

    def __init__(self, port: Port, **params: Any) -> None:
        self.port = port
        for name, value in params.items():
            setattr(self, name, value)

    def enqueue(self, packet: Packet, ctx: Context) -> None:
        """Keep `packet`, or drop it (`ctx.drop`); may also drop packets kept before."""
        raise NotImplementedError

    def dequeue(self, ctx: Context) -> Packet | None:
        """The packet to send next (one kept by `enqueue`), or None."""
        raise NotImplementedError
