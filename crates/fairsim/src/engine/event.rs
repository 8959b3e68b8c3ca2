//! The event set: small `Copy` events in a canonical order: by time, then by kind, then by
//! target, then by insertion.
//!
//! Events of one instant run in an order fixed by what they are, not by when they were
//! scheduled: every transmission that ends at t (`TxDone`, by port), then every packet that
//! reaches the far end of its link at t (`Arrive`, by port), then flows' starts, stops and
//! applications' packets (by flow), open populations' arrivals, timers (by flow and timer), and
//! last the interval's end, the run's, and the network's changes (`[[events]]`, in their order). Only events of the same kind for the same target keep
//! their insertion order. So a line that finishes at t is free for any packet arriving at t, an
//! ACK arriving at t is taken before a timer that would expire at t, and an interval that ends
//! at t counts what happened at t. Because the order does not depend on when an event was
//! scheduled, the loop may leave out an event whose effect it can compute, such as the end of a
//! transmission nothing waits behind, or any transmission's end at a port whose discipline is
//! chainable, FCFS or the ECN threshold (`node::port`), without changing any run
//! (docs/decisions.md, "A canonical order for ties"). Never by chance: a run is a pure function
//! of its scenario and seed. Events name their target by dense id; the main loop dispatches them
//! with `match`.

use crate::net::{FlowId, NodeId, PortId};
use crate::timer::TimerId;
use crate::units::Time;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// The port finished putting its current packet on the line; or its discipline's timer
    /// (`Qdisc::wake_at`) asks again, with the transmissions' ends of its instant
    /// (`Port::woken` tells which).
    TxDone(PortId),
    /// The packet at the head of the port's propagation pipe reaches the far end.
    Arrive(PortId),
    /// A flow's application starts.
    FlowStart(FlowId),
    /// A flow's application stops producing data.
    FlowStop(FlowId),
    /// A timed application (Telnet, Poisson, CBR, on-off, firehose) produces its next packet.
    AppPacket(FlowId),
    /// A connection of an open-population flow arrives.
    Arrival(FlowId),
    /// A transport timer may have expired.
    Timer(FlowId, TimerId),
    /// A measurement interval ends.
    IntervalEnd,
    /// The run ends.
    End,
    /// The network changes (`engine::failures`: a link goes down, comes back or changes rate, or
    /// forwarding learns of it): the run's `n`-th change. With the clock's events, after all
    /// else at its instant.
    Network(u32),
    /// A receiving host's pull pacer may send its next pull (`node::pull`): with the clock's
    /// events, after the network's changes, by node.
    Pace(NodeId),
    /// A PFC pause frame reaches the port it stops (`true`) or lets resume (`false`)
    /// (`engine::pfc`): with the clock's events, after the pacers', by port, resumes first.
    Pause(PortId, bool),
}

/// Bits of an event's code that name its target (a port, or a flow and one of its timers).
const TARGET_BITS: u32 = 29;
const TIMER_BITS: u32 = crate::timer::TIMERS_PER_FLOW.trailing_zeros();

/// The most ports and flows the event set can name: far beyond what memory holds (a port or a
/// flow takes hundreds of bytes), and checked when a simulation is built.
pub const MAX_PORTS: usize = 1 << TARGET_BITS;
/// The most ports a PFC run may have: a pause frame's event names its port in fewer bits.
pub const MAX_PAUSED_PORTS: usize = 1 << (TARGET_BITS - 3);
pub const MAX_FLOWS: usize = 1 << (TARGET_BITS - TIMER_BITS);
const _: () = assert!(crate::limits::MAX_FLOWS + crate::limits::MAX_OPEN_CONNECTIONS <= MAX_FLOWS);

/// An event as 32 bits: a 3-bit kind (`Code::TX_DONE`, ...) and its target. The loop dispatches
/// on the kind directly: decoding into `Event` and then matching on it would be two jumps
/// through tables, and the kind of the next event is what no predictor can guess.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Code(u32);

impl Code {
    pub const TX_DONE: u32 = 0;
    pub const ARRIVE: u32 = 1;
    pub const FLOW_START: u32 = 2;
    pub const FLOW_STOP: u32 = 3;
    pub const APP_PACKET: u32 = 4;
    pub const ARRIVAL: u32 = 5;
    pub const TIMER: u32 = 6;
    /// The interval's end (target 0), the run's (target 1), or the network's change n (target
    /// 2 + n): the kinds' three bits are all taken, and these are rare.
    pub const CLOCK: u32 = 7;
    /// A clock event's target bit that makes it a pull pacer's, its node in the bits below.
    const PACE: u32 = 1 << (TARGET_BITS - 1);
    /// Both bits make it a pause frame's: the port below the next bit, which says XOFF.
    const PAUSE: u32 = 0b11 << (TARGET_BITS - 2);
    const XOFF: u32 = 1 << (TARGET_BITS - 3);

    /// The code as a number: kind and target, the order of events of one instant.
    #[inline]
    pub fn raw(self) -> u32 {
        self.0
    }
    #[inline]
    pub fn kind(self) -> u32 {
        self.0 >> TARGET_BITS
    }
    #[inline]
    fn target(self) -> u32 {
        self.0 & ((1 << TARGET_BITS) - 1)
    }
    #[inline]
    pub fn port(self) -> PortId {
        PortId(self.target())
    }
    #[inline]
    pub fn flow(self) -> FlowId {
        FlowId(self.target())
    }
    /// A timer event's flow and timer.
    #[inline]
    pub fn timer(self) -> (FlowId, TimerId) {
        (FlowId(self.target() >> TIMER_BITS), TimerId((self.target() & ((1 << TIMER_BITS) - 1)) as u8))
    }
    /// A clock event: the run's end.
    #[inline]
    pub fn is_end(self) -> bool {
        self.target() == 1
    }
    /// A clock event: the network's change it is, if it is one (not an interval's or the run's
    /// end).
    #[inline]
    pub fn network(self) -> Option<u32> {
        (self.target() & Code::PACE == 0).then(|| self.target().checked_sub(2)).flatten()
    }
    /// A clock event: the host whose pull pacer it is, if it is one.
    #[inline]
    pub fn pace(self) -> Option<NodeId> {
        (self.target() & Code::PAUSE == Code::PACE).then(|| NodeId(self.target() & !Code::PACE))
    }
    /// A clock event: the port a pause frame reaches and whether it is an XOFF, if it is one.
    #[inline]
    pub fn pause(self) -> Option<(PortId, bool)> {
        (self.target() & Code::PAUSE == Code::PAUSE)
            .then(|| (PortId(self.target() & (Code::XOFF - 1)), self.target() & Code::XOFF != 0))
    }
}

impl Event {
    #[inline(always)]
    fn encode(self) -> Code {
        let (kind, target) = match self {
            Event::TxDone(p) => (Code::TX_DONE, p.0),
            Event::Arrive(p) => (Code::ARRIVE, p.0),
            Event::FlowStart(f) => (Code::FLOW_START, f.0),
            Event::FlowStop(f) => (Code::FLOW_STOP, f.0),
            Event::AppPacket(f) => (Code::APP_PACKET, f.0),
            Event::Arrival(f) => (Code::ARRIVAL, f.0),
            Event::Timer(f, t) => (Code::TIMER, f.0 << TIMER_BITS | t.0 as u32),
            Event::IntervalEnd => (Code::CLOCK, 0),
            Event::End => (Code::CLOCK, 1),
            Event::Network(n) => (Code::CLOCK, 2 + n),
            Event::Pace(node) => (Code::CLOCK, Code::PACE | node.0),
            Event::Pause(port, xoff) => (Code::CLOCK, Code::PAUSE | if xoff { Code::XOFF } else { 0 } | port.0),
        };
        debug_assert!(target < 1 << TARGET_BITS, "{self:?} does not fit the event's code");
        Code(kind << TARGET_BITS | target)
    }

    fn decode(code: Code) -> Event {
        match code.kind() {
            Code::TX_DONE => Event::TxDone(code.port()),
            Code::ARRIVE => Event::Arrive(code.port()),
            Code::FLOW_START => Event::FlowStart(code.flow()),
            Code::FLOW_STOP => Event::FlowStop(code.flow()),
            Code::APP_PACKET => Event::AppPacket(code.flow()),
            Code::ARRIVAL => Event::Arrival(code.flow()),
            Code::TIMER => Event::Timer(code.timer().0, code.timer().1),
            _ if code.is_end() => Event::End,
            _ => match (code.pause(), code.pace(), code.network()) {
                (Some((port, xoff)), ..) => Event::Pause(port, xoff),
                (None, Some(node), _) => Event::Pace(node),
                (None, None, Some(n)) => Event::Network(n),
                (None, None, None) => Event::IntervalEnd,
            },
        }
    }
}

/// An event with its ordering key in 16 bytes: the time, then (in `rest`) the event's code above
/// its insertion sequence. Comparing (time, rest) orders by time, then kind and target (the
/// code: the kind in its high bits), then insertion. Half the size of a `u128` key beside an
/// enum: a sift moves half the bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Entry {
    time: u64,
    rest: u64,
}

impl Entry {
    #[inline]
    fn key(self) -> u128 {
        (self.time as u128) << 64 | self.rest as u128
    }
}

/// The event set: two min-heaps under one insertion sequence, one for the timers' events and one
/// for all the others (packets' transmissions and arrivals, applications, the clock). A flow's
/// timers are restarted on nearly every ACK and cancelled lazily (`timer::TimerSlot`), so their
/// heap holds up to a few events per flow, most of them superseded; in one heap with the packets'
/// events they made every packet event pay a sift through them (16 of the 25 entries of the
/// 8-flow TCP dumbbell; 15 per flow at 1,000 flows). Apart, a packet event's cost no longer
/// depends on the number of flows' timers. The next event is the smaller of the two roots by
/// key: the same order as one heap, so the same run.
///
/// Keys are unique (the sequence number breaks ties), so the order in which events pop does not
/// depend on the heaps' shapes: any correct heap gives the same run. Two things make each heap
/// cheaper than a textbook one for the loop's pattern, where nearly every event popped schedules
/// another one:
/// - `pop` leaves the popped entry at its heap's root, marked taken, and the next `push` to that
///   heap overwrites it and sifts down once (a "replace top"), instead of a sift-down on pop and
///   a sift-up on push;
/// - the insertion sequence has 32 bits; when it runs out, the queued events are renumbered in
///   their order (`renumber`), which changes no order.
///
/// A radix heap (buckets by the highest digit in which an event's time differs from the clock)
/// was tried and measured against this heap: 6% fewer instructions on the TCP
/// dumbbell, but 4–10% slower in wall time on all six of its pairs (21 alternated rounds on an
/// idle machine, where two copies of one build differed by at most 2.6%), with 29% more L1 data
/// misses; not kept (docs/performance.md).
pub struct EventQueue {
    /// Every event but the timers'.
    packets: Heap,
    /// The flows' timer events.
    timers: Heap,
    next_seq: u64,
    /// Sequence numbers run below this (`u32::MAX` + 1; lowered by tests).
    seq_limit: u64,
    /// The time of the event popped last, which no event may precede (checked in debug builds).
    #[cfg(debug_assertions)]
    last: u64,
}

/// Past the last entry: greater than any event, so a missing child never wins.
const SENTINEL: Entry = Entry { time: u64::MAX, rest: u64::MAX };

/// One min-heap of entries, the sentinel past its last; its root may be the entry popped last,
/// not yet removed (`root_taken`).
struct Heap {
    heap: Vec<Entry>,
    root_taken: bool,
}

impl Default for Heap {
    fn default() -> Self {
        let mut heap = Vec::with_capacity(64);
        heap.push(SENTINEL);
        Heap { heap, root_taken: false }
    }
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            packets: Heap::default(),
            timers: Heap::default(),
            next_seq: 0,
            seq_limit: 1 << 32,
            #[cfg(debug_assertions)]
            last: 0,
        }
    }
}

impl EventQueue {
    /// Schedules `ev` at `at`. Inlined, so that the event's code is a constant at each call.
    #[inline(always)]
    pub fn push(&mut self, at: Time, ev: Event) {
        self.push_code(at, ev.encode());
    }

    #[inline]
    fn push_code(&mut self, at: Time, code: Code) {
        #[cfg(debug_assertions)]
        assert!(at.0 >= self.last, "an event at {at} is scheduled in the past ({})", Time(self.last));
        if self.next_seq == self.seq_limit {
            self.renumber();
        }
        let entry = Entry { time: at.0, rest: (code.0 as u64) << 32 | self.next_seq };
        self.next_seq += 1;
        if code.kind() == Code::TIMER {
            self.timers.push(entry);
        } else {
            self.packets.push(entry);
        }
    }

    /// Sequence numbers ran out: number the queued events of both heaps again from 0 in their
    /// order, which keeps their order and so the run's.
    #[cold]
    #[inline(never)]
    fn renumber(&mut self) {
        self.packets.remove_taken_root();
        self.timers.remove_taken_root();
        let n = self.packets.len() + self.timers.len();
        let mut all: Vec<(Entry, bool)> = Vec::with_capacity(n);
        for (heap, is_timer) in [(&mut self.packets, false), (&mut self.timers, true)] {
            heap.heap.pop(); // the sentinel
            all.extend(heap.heap.drain(..).map(|e| (e, is_timer)));
        }
        all.sort_unstable_by_key(|(e, _)| e.key());
        for (seq, (e, is_timer)) in all.into_iter().enumerate() {
            let e = Entry { time: e.time, rest: (e.rest & !(u32::MAX as u64)) | seq as u64 };
            // appended in order: a sorted array is a heap
            if is_timer { &mut self.timers } else { &mut self.packets }.heap.push(e);
        }
        self.packets.heap.push(SENTINEL);
        self.timers.heap.push(SENTINEL);
        self.next_seq = n as u64;
    }

    /// Takes back every queued `ev` (a port's transmission's end or arrival, when its link goes
    /// down): rare, so a pass over the heap it is in, which is then made again.
    #[cold]
    pub fn cancel(&mut self, ev: Event) {
        let code = ev.encode();
        let heap = if code.kind() == Code::TIMER { &mut self.timers } else { &mut self.packets };
        heap.remove_taken_root();
        heap.heap.retain(|e| *e != SENTINEL && (e.rest >> 32) as u32 != code.0);
        // a sorted array is a heap; the keys are unique, so the order is the same
        heap.heap.sort_unstable_by_key(|e| e.key());
        heap.heap.push(SENTINEL);
    }

    /// The next event, as its code (what the loop dispatches on): the smaller of the two roots.
    #[inline]
    pub fn pop_code(&mut self) -> Option<(Time, Code)> {
        self.packets.remove_taken_root();
        self.timers.remove_taken_root();
        let (p, t) = (self.packets.heap[0], self.timers.heap[0]);
        let (top, from) = if t.key() < p.key() { (t, &mut self.timers) } else { (p, &mut self.packets) };
        if top == SENTINEL {
            return None;
        }
        from.root_taken = true;
        #[cfg(debug_assertions)]
        {
            self.last = top.time;
        }
        Some((Time(top.time), Code((top.rest >> 32) as u32)))
    }

    /// Takes the next event out unhandled (a partition of a parallel run drops another's event,
    /// whatever its time): the instant no event may precede (checked in debug builds) stays
    /// that of the last event handled.
    pub fn discard_next(&mut self) {
        #[cfg(debug_assertions)]
        let last = self.last;
        self.pop_code();
        #[cfg(debug_assertions)]
        {
            self.last = last;
        }
    }

    /// The next event, as its code, left in the set (`engine::parallel` looks before it takes).
    #[inline]
    pub fn peek_code(&mut self) -> Option<(Time, Code)> {
        self.packets.remove_taken_root();
        self.timers.remove_taken_root();
        let (p, t) = (self.packets.heap[0], self.timers.heap[0]);
        let top = if t.key() < p.key() { t } else { p };
        (top != SENTINEL).then_some((Time(top.time), Code((top.rest >> 32) as u32)))
    }

    /// The port whose transmission's end or arrival is most likely the next event after the
    /// one just popped, for the loop to prefetch (`net::prefetch`): the next of the packets'
    /// heap as it stands, which an event scheduled meanwhile, or a timer, may yet precede.
    #[inline(always)]
    pub fn likely_next_port(&self) -> Option<PortId> {
        let heap = &self.packets.heap;
        let next = if self.packets.root_taken {
            // the smaller child of the taken root; the sentinel stands in for missing ones
            let (l, r) = (heap[1], heap.get(2).copied().unwrap_or(SENTINEL));
            if r.key() < l.key() {
                r
            } else {
                l
            }
        } else {
            heap[0]
        };
        let code = Code((next.rest >> 32) as u32);
        (next != SENTINEL && code.kind() <= Code::ARRIVE).then(|| code.port())
    }

    /// The next event.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_code().map(|(t, code)| (t, Event::decode(code)))
    }

    pub fn len(&self) -> usize {
        self.packets.len() + self.timers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Heap {
    #[inline]
    fn push(&mut self, entry: Entry) {
        if self.root_taken {
            self.root_taken = false;
            self.sift_down(0, entry);
            return;
        }
        if self.heap.len() == self.heap.capacity() {
            self.grow();
        }
        // the entry takes the sentinel's place, which moves one on; then sift up with a hole
        let heap = &mut self.heap;
        let mut hole = heap.len() - 1;
        heap.push(SENTINEL);
        let key = entry.key();
        while hole > 0 {
            let parent = (hole - 1) / 2;
            let above = heap[parent];
            if above.key() <= key {
                break;
            }
            heap[hole] = above;
            hole = parent;
        }
        heap[hole] = entry;
    }

    /// Out of the hot path: a heap grows a few times at the start of a run, then never.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.heap.reserve(self.heap.len().max(64));
    }

    /// Places `entry` at or below `hole`, moving smaller children up. The smaller child is
    /// chosen without a branch (which of two keys is smaller is a coin toss a predictor cannot
    /// learn); the entry past the last, `SENTINEL`, stands in for a missing right child.
    #[inline]
    fn sift_down(&mut self, mut hole: usize, entry: Entry) {
        let heap = &mut self.heap[..];
        let key = entry.key();
        loop {
            let left = 2 * hole + 1;
            // both children, the right one perhaps the sentinel; none past the entries
            let Some(&[l, r]) = heap.get(left..left + 2) else { break };
            let right_smaller = r.key() < l.key();
            let child = left + right_smaller as usize;
            let smaller = if right_smaller { r } else { l };
            if key <= smaller.key() {
                break;
            }
            heap[hole] = smaller;
            hole = child;
        }
        heap[hole] = entry;
    }

    /// Removes the root popped last, if it is still there.
    #[inline]
    fn remove_taken_root(&mut self) {
        if self.root_taken {
            self.root_taken = false;
            self.heap.pop(); // the sentinel
            let n = self.heap.len() - 1;
            let last = std::mem::replace(&mut self.heap[n], SENTINEL);
            if n > 0 {
                self.sift_down(0, last);
            }
        }
    }

    fn len(&self) -> usize {
        self.heap.len() - 1 - self.root_taken as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pop_by_kind_then_target_then_insertion() {
        let mut q = EventQueue::default();
        q.push(Time(5), Event::End);
        q.push(Time(3), Event::IntervalEnd);
        q.push(Time(3), Event::Timer(FlowId(0), TimerId(1)));
        q.push(Time(3), Event::Arrive(PortId(0)));
        q.push(Time(3), Event::TxDone(PortId(2)));
        q.push(Time(3), Event::Timer(FlowId(0), TimerId(0)));
        q.push(Time(3), Event::TxDone(PortId(1)));
        q.push(Time(3), Event::Timer(FlowId(0), TimerId(1)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(3), Event::TxDone(PortId(1))),
                (Time(3), Event::TxDone(PortId(2))),
                (Time(3), Event::Arrive(PortId(0))),
                (Time(3), Event::Timer(FlowId(0), TimerId(0))),
                (Time(3), Event::Timer(FlowId(0), TimerId(1))),
                (Time(3), Event::Timer(FlowId(0), TimerId(1))),
                (Time(3), Event::IntervalEnd),
                (Time(5), Event::End)
            ]
        );
    }

    #[test]
    fn every_event_survives_its_code() {
        let last_flow = FlowId::from_idx(MAX_FLOWS - 1);
        let last_port = PortId::from_idx(MAX_PORTS - 1);
        let timers = (0..crate::timer::TIMERS_PER_FLOW as u8).map(|t| Event::Timer(last_flow, TimerId(t)));
        let all = [
            Event::TxDone(PortId(0)),
            Event::TxDone(last_port),
            Event::Arrive(last_port),
            Event::FlowStart(last_flow),
            Event::FlowStop(FlowId(7)),
            Event::AppPacket(last_flow),
            Event::Arrival(FlowId(3)),
            Event::Timer(FlowId(0), TimerId(0)),
            Event::IntervalEnd,
            Event::End,
            Event::Network(0),
            Event::Network(9),
            Event::Pace(crate::net::NodeId(0)),
            Event::Pace(crate::net::NodeId(77)),
            Event::Pause(PortId(0), true),
            Event::Pause(PortId(0), false),
            Event::Pause(PortId::from_idx(MAX_PAUSED_PORTS - 1), true),
        ];
        for ev in all.into_iter().chain(timers) {
            assert_eq!(Event::decode(ev.encode()), ev);
            assert!(ev.encode().kind() <= Code::CLOCK);
        }
    }

    #[test]
    fn pause_frames_come_after_the_pacers_resumes_first() {
        let mut q = EventQueue::default();
        q.push(Time(3), Event::Pause(PortId(2), true));
        q.push(Time(3), Event::Pace(crate::net::NodeId(5)));
        q.push(Time(3), Event::Pause(PortId(9), false));
        q.push(Time(3), Event::Network(4));
        q.push(Time(3), Event::Arrive(PortId(1)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::Arrive(PortId(1)),
                Event::Network(4),
                Event::Pace(crate::net::NodeId(5)),
                Event::Pause(PortId(9), false),
                Event::Pause(PortId(2), true)
            ]
        );
    }

    #[test]
    fn network_changes_come_after_the_clocks_end_in_their_order_and_cancelled_events_never_pop() {
        let mut q = EventQueue::default();
        q.push(Time(3), Event::Network(1));
        q.push(Time(3), Event::Arrive(PortId(4)));
        q.push(Time(3), Event::Network(0));
        q.push(Time(3), Event::IntervalEnd);
        q.push(Time(2), Event::TxDone(PortId(4)));
        q.push(Time(2), Event::TxDone(PortId(5)));
        q.push(Time(9), Event::Arrive(PortId(4)));
        q.push(Time(1), Event::Timer(FlowId(4), TimerId(0)));
        assert_eq!(q.pop(), Some((Time(1), Event::Timer(FlowId(4), TimerId(0)))));
        q.cancel(Event::Arrive(PortId(4)));
        q.cancel(Event::TxDone(PortId(4)));
        assert_eq!(q.len(), 4);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(2), Event::TxDone(PortId(5))),
                (Time(3), Event::IntervalEnd),
                (Time(3), Event::Network(0)),
                (Time(3), Event::Network(1)),
            ]
        );
    }

    #[test]
    fn a_popped_event_leaves_the_count_at_once() {
        let mut q = EventQueue::default();
        q.push(Time(1), Event::End);
        q.push(Time(2), Event::IntervalEnd);
        assert_eq!(q.pop(), Some((Time(1), Event::End)));
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop(), Some((Time(2), Event::IntervalEnd)));
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }

    #[test]
    fn the_likely_next_port_is_that_of_the_next_event_when_nothing_comes_between() {
        let mut q = EventQueue::default();
        let mut rng = crate::rng::stream(3, "events");
        for _ in 0..300 {
            let at = Time(rand::Rng::random_range(&mut rng, 0..1000));
            let port = PortId(rand::Rng::random_range(&mut rng, 0..50));
            let ev = match rand::Rng::random_range(&mut rng, 0..3) {
                0 => Event::TxDone(port),
                1 => Event::Arrive(port),
                _ => Event::Timer(FlowId(port.0), TimerId(0)),
            };
            q.push(at, ev);
        }
        let (mut ports, mut timers) = (0, 0);
        q.pop();
        loop {
            // as the loop asks it: just after an event is popped
            let guess = q.likely_next_port();
            let Some((_, next)) = q.pop() else {
                assert_eq!(guess, None);
                break;
            };
            match next {
                Event::TxDone(p) | Event::Arrive(p) => {
                    ports += 1;
                    assert_eq!(guess, Some(p));
                }
                _ => timers += 1, // a timer's event comes first: no port, or a later one's
            }
        }
        assert!(ports > 100 && timers > 50, "{ports} ports' events, {timers} timers'");
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "scheduled in the past")]
    fn an_event_in_the_past_is_refused_in_debug_builds() {
        let mut q = EventQueue::default();
        q.push(Time(10), Event::End);
        q.pop();
        q.push(Time(9), Event::IntervalEnd);
    }

    /// The proptest's `seq`-th event: a port's, or every third a flow's timer (the other heap);
    /// few targets, so that events of one kind and target tie often.
    fn event(seq: u32) -> Event {
        match seq % 6 {
            2 | 5 => Event::Timer(FlowId(seq % 4), TimerId((seq % 2) as u8)),
            1 => Event::Arrive(PortId(seq % 3)),
            _ => Event::TxDone(PortId(seq % 3)),
        }
    }

    proptest::proptest! {
        /// Whatever the interleaving of pushes and pops, events leave in (time, kind, target,
        /// insertion) order across the two heaps, also across renumberings of the insertion
        /// sequence (forced often by a small limit).
        #[test]
        fn events_pop_in_canonical_order(
            ops in proptest::collection::vec(proptest::option::of(proptest::prop_oneof![0u64..50, 0u64..1 << 40]), 1..400),
            seq_limit in proptest::prop_oneof![3u64..40, proptest::strategy::Just(1u64 << 32)],
        ) {
            let mut q = EventQueue { seq_limit, ..Default::default() };
            let mut reference = std::collections::BTreeSet::new();
            let mut seq = 0u32;
            let mut now = 0;
            for op in ops {
                match op {
                    Some(dt) => {
                        // the loop never schedules into the past; every third event a timer's,
                        // which goes to the other heap
                        q.push(Time(now + dt), event(seq));
                        reference.insert((now + dt, event(seq).encode().0, seq));
                        seq += 1;
                    }
                    None => {
                        let want = reference.pop_first().map(|(t, _, s)| (Time(t), event(s)));
                        let got = q.pop();
                        proptest::prop_assert_eq!(got, want);
                        if let Some((t, _)) = got {
                            now = t.0;
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
            while let Some((t, _, s)) = reference.pop_first() {
                proptest::prop_assert_eq!(q.pop(), Some((Time(t), event(s))));
            }
            proptest::prop_assert!(q.is_empty());
        }
    }
}
