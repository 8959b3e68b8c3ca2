//! The event set: small `Copy` events ordered by (time, insertion sequence).
//!
//! Ties resolve in insertion order, never by chance, so a run is a pure function of its scenario
//! and seed. Events name their target by dense id; the main loop dispatches them with `match`.

use crate::net::{FlowId, PortId};
use crate::timer::TimerId;
use crate::units::Time;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// The port finished putting its current packet on the line.
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
}

/// Bits of an event's code that name its target (a port, or a flow and one of its timers).
const TARGET_BITS: u32 = 29;
const TIMER_BITS: u32 = crate::timer::TIMERS_PER_FLOW.trailing_zeros();

/// The most ports and flows the event set can name: far beyond what memory holds (a port or a
/// flow takes hundreds of bytes), and checked when a simulation is built.
pub const MAX_PORTS: usize = 1 << TARGET_BITS;
pub const MAX_FLOWS: usize = 1 << (TARGET_BITS - TIMER_BITS);
const _: () = assert!(crate::limits::MAX_FLOWS + crate::limits::MAX_OPEN_CONNECTIONS <= MAX_FLOWS);

/// An event as 32 bits: a 3-bit kind (`Code::TX_DONE`, ...) and its target. The loop dispatches
/// on the kind directly: decoding into `Event` and then matching on it would be two jumps
/// through tables, and the kind of the next event is what no predictor can guess.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Code(u32);

impl Code {
    pub const TX_DONE: u32 = 0;
    pub const ARRIVE: u32 = 1;
    pub const FLOW_START: u32 = 2;
    pub const FLOW_STOP: u32 = 3;
    pub const APP_PACKET: u32 = 4;
    pub const ARRIVAL: u32 = 5;
    pub const TIMER: u32 = 6;
    /// The interval's end (target 0) or the run's (target 1).
    pub const CLOCK: u32 = 7;

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
    /// A clock event: the run's end rather than an interval's.
    #[inline]
    pub fn is_end(self) -> bool {
        self.target() != 0
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
            _ => Event::IntervalEnd,
        }
    }
}

/// An event with its ordering key in 16 bytes: the time, then (in `rest`) the insertion
/// sequence above the event's code. Comparing (time, rest) orders by time, then insertion
/// (sequences are unique, so the code never decides).
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

/// A radix heap of events (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the
/// shortest path problem", J. ACM 37(2), 1990), with digits of 4 bits: a priority queue for keys
/// that never fall below the last one taken out, which is what a simulation's clock is. An event
/// is kept in the bucket of the highest digit in which its time differs from `last` (the time
/// of the event popped last) and of its value in that digit: pushing is a count of leading
/// zeros and an append. Popping takes from `current` (the events at `last`); when it runs dry,
/// the first bucket with events holds the earliest one, which becomes the new `last`, and the
/// bucket's other events move to earlier buckets (at least one digit down). An event moves at
/// most once per digit of its distance from the clock.
///
/// Why not the binary heap it replaced (issue 17): with the loop's few dozen events the heap's
/// sifts cost about 170 instructions per event. Measured (docs/performance.md): radix 2 took
/// 6% fewer instructions on the TCP dumbbell, mispredicting as often; radix 16 5% fewer on it and
/// 13% fewer on the Generic dumbbell, with fewer mispredictions. A timing wheel or calendar queue
/// would need a bucket width fitted to each scenario's time scale (keshav91's lines take 100 ms a
/// packet, a 100 Mb/s line 80 µs); a radix heap has none to fit.
///
/// The order is exactly (time, insertion): `current` holds the events at `last` in insertion
/// order (events spread into it are sorted by sequence; events pushed at `last` later have
/// larger sequences and are appended), so a run is the same to the bit as with any correct
/// priority queue. The insertion sequence has 32 bits; when it runs out, the queued events are
/// renumbered in their order (`renumber`), which changes no order.
pub struct EventQueue {
    /// The events at time `last`, in insertion order, read from `head` on.
    current: Vec<Entry>,
    head: usize,
    /// Bucket `DIGIT_VALUES`·d + v: the events whose time differs from `last` first in digit d
    /// and has v there, in no order. Buckets in index order hold ever later events.
    buckets: Box<[Vec<Entry>; BUCKETS]>,
    /// Bit i of word i / 64 set: bucket i has events.
    occupied: [u64; BUCKETS / 64],
    /// The time of the event popped last: no event is earlier.
    last: u64,
    len: usize,
    next_seq: u64,
    /// Sequence numbers run below this (`u32::MAX` + 1; lowered by tests).
    seq_limit: u64,
}

/// Times are read in digits of `DIGIT_BITS` bits: an event moves down one digit, not one bit,
/// at a time (radix 16: a quarter of the moves of radix 2, for 256 buckets).
const DIGIT_BITS: u32 = 4;
const DIGIT_VALUES: usize = 1 << DIGIT_BITS;
const BUCKETS: usize = 64 / DIGIT_BITS as usize * DIGIT_VALUES;

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            current: Vec::with_capacity(16),
            head: 0,
            buckets: Box::new(std::array::from_fn(|_| Vec::new())),
            occupied: [0; BUCKETS / 64],
            last: 0,
            len: 0,
            next_seq: 0,
            seq_limit: 1 << 32,
        }
    }
}

impl EventQueue {
    /// Schedules `ev` at `at`, which is not before the event popped last. Inlined, so that the
    /// event's code is a constant at each call.
    #[inline(always)]
    pub fn push(&mut self, at: Time, ev: Event) {
        self.push_code(at, ev.encode());
    }

    #[inline]
    fn push_code(&mut self, at: Time, code: Code) {
        debug_assert!(at.0 >= self.last, "an event at {at} is scheduled in the past ({})", Time(self.last));
        if self.next_seq == self.seq_limit {
            self.renumber();
        }
        self.place(Entry { time: at.0, rest: self.next_seq << 32 | code.0 as u64 });
        self.next_seq += 1;
        self.len += 1;
    }

    /// Puts `e` in the bucket of the highest digit in which its time differs from `last`.
    #[inline(always)]
    fn place(&mut self, e: Entry) {
        let differ = e.time ^ self.last;
        if differ == 0 {
            self.current.push(e);
        } else {
            let digit = (63 - differ.leading_zeros()) / DIGIT_BITS;
            let value = (e.time >> (digit * DIGIT_BITS)) as usize % DIGIT_VALUES;
            let i = digit as usize * DIGIT_VALUES + value;
            self.buckets[i].push(e);
            self.occupied[i / 64] |= 1 << (i % 64);
        }
    }

    /// The first bucket with events, if any.
    #[inline(always)]
    fn first_occupied(&self) -> Option<usize> {
        let word = self.occupied.iter().position(|&w| w != 0)?;
        Some(word * 64 + self.occupied[word].trailing_zeros() as usize)
    }

    /// Sequence numbers ran out: number the queued events again from 0 in their order, which
    /// keeps their order and so the run's.
    #[cold]
    #[inline(never)]
    fn renumber(&mut self) {
        let mut all: Vec<Entry> = self.current.drain(self.head..).collect();
        self.current.clear();
        self.head = 0;
        for bucket in self.buckets.iter_mut() {
            all.append(bucket);
        }
        self.occupied = [0; BUCKETS / 64];
        all.sort_unstable_by_key(|e| e.key());
        for (seq, e) in all.iter_mut().enumerate() {
            e.rest = (seq as u64) << 32 | (e.rest & u32::MAX as u64);
        }
        self.next_seq = all.len() as u64;
        all.into_iter().for_each(|e| self.place(e));
    }

    /// `current` ran dry: takes the earliest event of the first bucket with events, moves the
    /// clock to its time and spreads the bucket's other events over the buckets before it (those
    /// at the same time into `current`, after it).
    #[inline]
    fn advance(&mut self) -> Option<Entry> {
        let i = self.first_occupied()?;
        if self.buckets[i].len() == 1 {
            // alone in its bucket, the earliest event moves nothing
            self.occupied[i / 64] &= !(1 << (i % 64));
            let e = self.buckets[i].pop().expect("an occupied bucket has events");
            self.last = e.time;
            return Some(e);
        }
        Some(self.spread(i))
    }

    #[inline(never)]
    fn spread(&mut self, i: usize) -> Entry {
        self.occupied[i / 64] &= !(1 << (i % 64));
        let mut bucket = std::mem::take(&mut self.buckets[i]);
        let (first, _) = bucket.iter().enumerate().min_by_key(|(_, e)| e.key()).expect("occupied");
        let e = bucket.swap_remove(first);
        self.last = e.time;
        // the bucket's events agree with the new `last` down to its digit: each goes earlier
        bucket.iter().for_each(|&e| self.place(e));
        bucket.clear();
        self.buckets[i] = bucket; // keeps its allocation
        if self.current.len() > 1 {
            self.current.sort_unstable_by_key(|e| e.rest);
        }
        e
    }

    /// The next event, as its code (what the loop dispatches on).
    #[inline]
    pub fn pop_code(&mut self) -> Option<(Time, Code)> {
        let e = if self.head < self.current.len() {
            self.head += 1;
            self.current[self.head - 1]
        } else {
            self.current.clear();
            self.head = 0;
            self.advance()?
        };
        self.len -= 1;
        Some((Time(e.time), Code(e.rest as u32)))
    }

    /// The next event.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_code().map(|(t, code)| (t, Event::decode(code)))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Time(5), Event::End);
        q.push(Time(3), Event::TxDone(PortId(2)));
        q.push(Time(3), Event::TxDone(PortId(1)));
        q.push(Time(3), Event::IntervalEnd);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(3), Event::TxDone(PortId(2))),
                (Time(3), Event::TxDone(PortId(1))),
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
        ];
        for ev in all.into_iter().chain(timers) {
            assert_eq!(Event::decode(ev.encode()), ev);
            assert!(ev.encode().kind() <= Code::CLOCK);
        }
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

    proptest::proptest! {
        /// Whatever the interleaving of pushes and pops, events leave in (time, insertion) order,
        /// also across renumberings of the insertion sequence (forced often by a small limit);
        /// times near each other and far apart, so that events move down through many buckets.
        #[test]
        fn events_pop_in_time_then_insertion_order(
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
                        // the loop never schedules into the past
                        q.push(Time(now + dt), Event::TxDone(PortId(seq)));
                        reference.insert((now + dt, seq));
                        seq += 1;
                    }
                    None => {
                        let want = reference.pop_first().map(|(t, s)| (Time(t), Event::TxDone(PortId(s))));
                        let got = q.pop();
                        proptest::prop_assert_eq!(got, want);
                        if let Some((t, _)) = got {
                            now = t.0;
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
            while let Some((t, s)) = reference.pop_first() {
                proptest::prop_assert_eq!(q.pop(), Some((Time(t), Event::TxDone(PortId(s)))));
            }
            proptest::prop_assert!(q.is_empty());
        }
    }
}
