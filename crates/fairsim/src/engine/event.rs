//! The event set: small `Copy` events ordered by (time, insertion sequence).
//!
//! Ties resolve in insertion order, never by chance, so a run is a pure function of its scenario
//! and seed. Events name their target by dense id; the main loop dispatches them with `match`.

use crate::net::{FlowId, PortId};
use crate::units::Time;
use std::collections::BinaryHeap;

/// A transport may keep this many independent timers per flow.
pub const TIMERS_PER_FLOW: usize = 4;

/// Which of a flow's timers (index into its timer slots).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(pub u8);

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
    /// A transport timer may have expired.
    Timer(FlowId, TimerId),
    /// A measurement interval ends.
    IntervalEnd,
    /// The run ends.
    End,
}

/// An event with its ordering key: time in the high 64 bits, insertion sequence in the low
/// ones, so that one integer comparison orders events (a tuple compares field by field).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Entry {
    key: u128,
    ev: Event,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key.cmp(&self.key) // reversed: BinaryHeap is a max-heap
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, at: Time, ev: Event) {
        self.heap.push(Entry { key: (at.0 as u128) << 64 | self.next_seq as u128, ev });
        self.next_seq += 1;
    }

    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| (Time((e.key >> 64) as u64), e.ev))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// One timer of one flow, cancelled lazily: at most one live event per slot in the common case
/// of a deadline that keeps moving later (a retransmission timer restarted on every ACK).
#[derive(Copy, Clone, Debug, Default)]
pub struct TimerSlot {
    /// When the timer should fire, if armed.
    deadline: Option<Time>,
    /// The time of the earliest event in the queue for this slot that is still meaningful.
    pending: Option<Time>,
}

/// What to do when a timer event is popped.
#[derive(Debug, PartialEq, Eq)]
pub enum TimerFire {
    Fire,
    Reschedule(Time),
    Ignore,
}

impl TimerSlot {
    /// Arms the timer; returns a time at which the caller must schedule an event, if one is needed.
    pub fn set(&mut self, deadline: Time) -> Option<Time> {
        self.deadline = Some(deadline);
        match self.pending {
            Some(p) if p <= deadline => None,
            _ => {
                self.pending = Some(deadline);
                Some(deadline)
            }
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// Decides what an event for this slot popped at `now` means.
    pub fn on_event(&mut self, now: Time) -> TimerFire {
        if self.pending != Some(now) {
            return TimerFire::Ignore; // superseded by an earlier event that already ran
        }
        self.pending = None;
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                TimerFire::Fire
            }
            Some(d) => {
                self.pending = Some(d);
                TimerFire::Reschedule(d)
            }
            None => TimerFire::Ignore,
        }
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

    /// Drives a slot the way the engine does and returns the times at which it fired.
    fn fire_times(ops: &[(u64, Option<u64>)], until: u64) -> Vec<u64> {
        // ops: at time t, set the deadline (Some) or cancel (None)
        let mut slot = TimerSlot::default();
        let mut q = EventQueue::default();
        let mut fired = vec![];
        let mut ops = ops.iter().peekable();
        loop {
            let next_ev = q.heap.peek().map(|e| (e.key >> 64) as u64);
            let next_op = ops.peek().map(|(t, _)| *t);
            match (next_op, next_ev) {
                (Some(o), e) if e.is_none_or(|e| o < e) => {
                    let (_, what) = ops.next().unwrap();
                    match what {
                        Some(d) => {
                            if let Some(at) = slot.set(Time(*d)) {
                                q.push(at, Event::End);
                            }
                        }
                        None => slot.cancel(),
                    }
                }
                (_, Some(e)) if e <= until => {
                    let (t, _) = q.pop().unwrap();
                    match slot.on_event(t) {
                        TimerFire::Fire => fired.push(t.0),
                        TimerFire::Reschedule(at) => q.push(at, Event::End),
                        TimerFire::Ignore => {}
                    }
                }
                _ => return fired,
            }
        }
    }

    #[test]
    fn timer_moves_later_fires_once_at_the_final_deadline() {
        assert_eq!(fire_times(&[(0, Some(10)), (5, Some(15)), (8, Some(20))], 100), vec![20]);
    }

    #[test]
    fn timer_moved_earlier_fires_early_and_stale_event_is_ignored() {
        assert_eq!(fire_times(&[(0, Some(10)), (1, Some(4))], 100), vec![4]);
    }

    #[test]
    fn cancelled_timer_never_fires_and_rearming_works() {
        assert_eq!(fire_times(&[(0, Some(10)), (2, None)], 100), Vec::<u64>::new());
        assert_eq!(fire_times(&[(0, Some(10)), (2, None), (3, Some(12))], 100), vec![12]);
        // re-armed after firing, while the first event's stale twin is still queued
        assert_eq!(fire_times(&[(0, Some(10)), (1, Some(4)), (5, Some(30))], 100), vec![4, 30]);
    }
}
