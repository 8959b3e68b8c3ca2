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


class PushOutPriority(fairsim.Discipline):
    """The built-in `strict_priority`, in Python: a FIFO per band, the most important first; an
    arrival that does not fit pushes out the last packet of the least important band less
    important than its own, as many as it needs (it reads the room each drop makes)."""

    params: ClassVar[dict] = {"bands": 8}

    def __init__(self, port, bands):
        super().__init__(port, bands=bands)
        self.queues = [deque() for _ in range(bands)]

    def enqueue(self, packet, ctx):
        band = min(packet.priority, self.bands - 1)
        while not ctx.admits(packet):
            victim = next((q for q in reversed(self.queues[band + 1 :]) if q), None)
            if victim is None:
                ctx.drop(packet, "tail_drop")
                return
            ctx.drop(victim.pop(), "push_out")
        self.queues[band].append(packet)

    def dequeue(self, ctx):
        return next((q.popleft() for q in self.queues if q), None)


class RandomEarly(Fifo):
    """Drops one arrival in ten at random (its own stream, `ctx.random`), else drop-tail."""

    def enqueue(self, packet, ctx):
        if ctx.random.random() < 0.1:
            ctx.drop(packet, "early")
        else:
            super().enqueue(packet, ctx)


class Forgets(Fifo):
    """Forgets every tenth arrival: neither keeps nor drops it."""

    def __init__(self, port):
        super().__init__(port)
        self.arrivals = 0

    def enqueue(self, packet, ctx):
        self.arrivals += 1
        if self.arrivals % 10:
            super().enqueue(packet, ctx)


class ForgetsLater(Fifo):
    """Keeps every arrival, then loses the oldest from its queue when the queue reaches 5."""

    def enqueue(self, packet, ctx):
        super().enqueue(packet, ctx)
        if len(self.queue) >= 5:
            self.queue.popleft()


class Hoards(Fifo):
    """Keeps every arrival, whatever the buffer."""

    def enqueue(self, packet, ctx):
        self.queue.append(packet)


class KeepsItsContext(Fifo):
    """Keeps the context of its hooks, and uses it in `stats`, after they returned."""

    def enqueue(self, packet, ctx):
        self.kept = ctx
        super().enqueue(packet, ctx)

    def stats(self):
        return {"queued": self.kept.queued_packets}


class LoopsForever(Fifo):
    """Its `dequeue` never returns once a second of simulated time has passed."""

    def dequeue(self, ctx):
        while ctx.now > 1.0:
            pass
        return super().dequeue(ctx)


class SleepsForever(Fifo):
    """Its `dequeue` blocks in C for a day once a second of simulated time has passed, first
    creating the file `FAIRSIM_TEST_ASLEEP` names, if set (a test waits for it)."""

    def dequeue(self, ctx):
        if ctx.now > 1.0:
            import os
            import time

            if os.environ.get("FAIRSIM_TEST_ASLEEP"):
                open(os.environ["FAIRSIM_TEST_ASLEEP"], "w").close()
            time.sleep(86_400)
        return super().dequeue(ctx)


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


class TokenBucket(Fifo):
    """A token-bucket shaper: a packet leaves once the bucket holds its size in tokens, which
    fill at `rate_bps` up to `bucket` bytes (full at the start); until then the discipline asks
    to be called again when they will have (`ctx.wake_at`). Each instance notes when its
    packets left (`departures`), for the tests to compare with the analytic times."""

    params: ClassVar[dict] = {"rate_bps": 1e6, "bucket": 1000, "timer": True}
    made: ClassVar[list] = []

    def __init__(self, port, rate_bps, bucket, timer):
        super().__init__(port)
        self.rate_bps, self.bucket, self.timer = rate_bps, bucket, timer
        self.tokens, self.filled_at = float(bucket), 0.0
        self.departures: list[tuple[int, float]] = []
        TokenBucket.made.append(self)

    def dequeue(self, ctx):
        if not self.queue:
            return None
        self.tokens = min(self.bucket, self.tokens + (ctx.now - self.filled_at) * self.rate_bps / 8)
        self.filled_at = ctx.now
        head = self.queue[0]
        if self.tokens + 1e-9 < head.size:
            if self.timer:
                ctx.wake_at(ctx.now + (head.size - self.tokens) * 8 / self.rate_bps)
            return None
        self.tokens -= head.size
        self.departures.append((head.seq, ctx.now))
        return self.queue.popleft()


class WakesInEnqueue(Fifo):
    def enqueue(self, packet, ctx):
        ctx.wake_at(ctx.now + 1)
        super().enqueue(packet, ctx)


class WakesInThePast(Fifo):
    def dequeue(self, ctx):
        if self.queue:
            ctx.wake_at(ctx.now - 0.001)
        return None


class WeighsByFlow(Fifo):
    """Notes what its port says of itself and of the flows: name, ends, weights."""

    seen: ClassVar[list] = []

    def __init__(self, port):
        super().__init__(port)
        WeighsByFlow.seen.append(port)


class Ticking(Fifo):
    """A FIFO that updates its state every 10 ms whether it holds packets or not, as PIE updates
    its drop probability on a timer: it counts the updates made at their instant."""

    PERIOD = 0.01

    def __init__(self, port):
        super().__init__(port)
        self.on_time = 0
        self.next_tick = self.PERIOD

    def dequeue(self, ctx):
        if ctx.now >= self.next_tick - 1e-9:  # the timer goes off at its instant's nanosecond
            self.on_time += ctx.now - self.next_tick < 1e-9
            self.next_tick = ctx.now + self.PERIOD
        ctx.wake_at(self.next_tick)
        if not getattr(self, "asked_just_before_now", False):
            # an instant one float step below now is of this nanosecond: taken as 1 ns later
            import math

            ctx.wake_at(math.nextafter(ctx.now, 0.0))
            self.asked_just_before_now = True
        return super().dequeue(ctx)

    def stats(self):
        return {"on_time": self.on_time}


class MarksAll(Fifo):
    """A FIFO that marks every packet it queues, counting what `mark` answered, and with
    `decbit` sets DECbit's bit instead."""

    params: ClassVar[dict] = {"decbit": False}

    def __init__(self, port, decbit):
        super().__init__(port)
        self.decbit = decbit
        self.answers = {True: 0, False: 0}

    def enqueue(self, packet, ctx):
        if ctx.admits(packet):
            self.answers[ctx.mark(packet, decbit=self.decbit)] += 1
        super().enqueue(packet, ctx)

    def stats(self):
        return {"marked": self.answers[True], "refused": self.answers[False]}


class ForgetsKeepingReferences(Fifo):
    """A FIFO with a bug: every tenth packet is noted in a debug list but never queued, so it
    is neither sent nor dropped, though a reference to it is kept."""

    def __init__(self, port):
        super().__init__(port)
        self.seen = []

    def enqueue(self, packet, ctx):
        self.seen.append(packet)
        if len(self.seen) % 10:
            super().enqueue(packet, ctx)


class OddFigures(Fifo):
    """`stats` or `gauge` gives what a result cannot hold: `odd` says which."""

    params: ClassVar[dict] = {"odd": "nan"}

    def __init__(self, port, odd):
        super().__init__(port)
        self.odd = odd

    def stats(self):
        return {"held": float("nan")} if self.odd == "nan" else {"held now": 1.0}

    def gauge(self):
        return ("held", float("inf")) if self.odd == "inf-gauge" else None
