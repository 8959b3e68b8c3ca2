"""Disciplines written in Python for the tests of `fairsim.extend` (test_python_disciplines.py):
named by scenarios as `python_disciplines:Class`, or registered by name on import."""

from collections import deque
from typing import ClassVar

import fairsim


class Fifo(fairsim.Discipline):
    """First come, first served with drop-tail: the built-in `fcfs`, in Python."""

    def __init__(self, port):
        super().__init__(port)
        self.queue = deque()

    def enqueue(self, packet, ctx):
        if ctx.admits(packet):
            self.queue.append(packet)
        else:
            ctx.drop(packet, "tail_drop")

    def dequeue(self, ctx):
        return self.queue.popleft() if self.queue else None


@fairsim.discipline("test-lifo")
class Lifo(Fifo):
    """Last in, first out: the newest packet goes first."""

    def dequeue(self, ctx):
        return self.queue.pop() if self.queue else None


@fairsim.discipline("test-drr")
class Drr(fairsim.Discipline):
    """Deficit round robin (Shreedhar & Varghese 1995) over conversations, with a shared buffer
    whose overflow drops the arrival."""

    params: ClassVar[dict] = {"quantum": 1500}

    def __init__(self, port, quantum):
        super().__init__(port, quantum=quantum)
        self.queues: dict = {}
        self.active: deque = deque()
        self.deficit: dict = {}

    def enqueue(self, packet, ctx):
        if not ctx.admits(packet):
            ctx.drop(packet, "tail_drop")
            return
        key = packet.conversation
        queue = self.queues.setdefault(key, deque())
        if not queue:
            self.active.append(key)
            self.deficit[key] = 0
        queue.append(packet)

    def dequeue(self, ctx):
        while self.active:
            key = self.active[0]
            queue = self.queues[key]
            if queue[0].size <= self.deficit[key]:
                self.deficit[key] -= queue[0].size
                packet = queue.popleft()
                if not queue:
                    self.active.popleft()
                return packet
            self.deficit[key] += self.quantum
            self.active.rotate(-1)
        return None


class Raises(Fifo):
    def dequeue(self, ctx):
        if ctx.now > 0.5:
            raise RuntimeError("the user's bug")
        return super().dequeue(ctx)


class AnswersEnqueue(Fifo):
    def enqueue(self, packet, ctx):
        super().enqueue(packet, ctx)
        return True


class AnswersDequeue(Fifo):
    def dequeue(self, ctx):
        return "a packet"


class DropsTwice(Fifo):
    def enqueue(self, packet, ctx):
        ctx.drop(packet)
        ctx.drop(packet)


class SendsDropped(Fifo):
    def enqueue(self, packet, ctx):
        super().enqueue(packet, ctx)
        self.last = packet

    def dequeue(self, ctx):
        packet = super().dequeue(ctx)
        if packet is not None:
            ctx.drop(packet, "early")
        return packet


#: Packets queued anywhere, which `Swaps` hands to whichever port asks next.
SHARED: deque = deque()


class Swaps(Fifo):
    def enqueue(self, packet, ctx):
        SHARED.append(packet)

    def dequeue(self, ctx):
        return SHARED.popleft() if SHARED else None


class NoDequeue(fairsim.Discipline):
    def enqueue(self, packet, ctx):
        pass


class BadInit(Fifo):
    def __init__(self, port):
        raise ValueError("cannot build")


class Counting(Fifo):
    """A FIFO with figures for the report and a gauge for traces."""

    def __init__(self, port):
        super().__init__(port)
        self.arrived = 0

    def enqueue(self, packet, ctx):
        self.arrived += 1
        super().enqueue(packet, ctx)

    def stats(self):
        return {"arrived": self.arrived, "held": len(self.queue)}

    def gauge(self):
        return "held", float(len(self.queue))
