//! Timers of flows, cancelled lazily: the engine keeps one slot per timer of each flow and
//! schedules an event only when a deadline moves earlier than every event already queued for it.
//! Below everything that uses timers (engine, hosts), beside packets and random streams.

use crate::units::Time;

/// Which of a flow's timers (index into its timer slots): a transport's own name for a timer,
/// which the engine keeps and fires without knowing what it means.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(pub u8);

/// A transport may keep this many independent timers per flow.
pub const TIMERS_PER_FLOW: usize = 4;

/// One timer of one flow, cancelled lazily: at most one live event per slot in the common case
/// of a deadline that keeps moving later (a retransmission timer restarted on every ACK).
///
/// 16 bytes, its times `NEVER` where options took 32: a flow has four, and a k = 64 fat-tree's
/// permutation 65,536 flows. A deadline of `NEVER` is one no run reaches: the same as none.
#[derive(Copy, Clone, Debug)]
pub struct TimerSlot {
    /// When the timer should fire; `NEVER` if it is not armed.
    deadline: Time,
    /// The time of the earliest event in the queue for this slot that is still meaningful;
    /// `NEVER` if none is.
    pending: Time,
}

/// No time: the slot's field is empty.
const NEVER: Time = Time::MAX;

impl Default for TimerSlot {
    fn default() -> Self {
        TimerSlot { deadline: NEVER, pending: NEVER }
    }
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
        self.deadline = deadline;
        if self.pending != NEVER && self.pending <= deadline {
            return None;
        }
        self.pending = deadline;
        Some(deadline)
    }

    pub fn cancel(&mut self) {
        self.deadline = NEVER;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline != NEVER
    }

    pub fn deadline(&self) -> Option<Time> {
        self.is_armed().then_some(self.deadline)
    }

    /// Decides what an event for this slot popped at `now` means.
    pub fn on_event(&mut self, now: Time) -> TimerFire {
        if self.pending != now || now == NEVER {
            return TimerFire::Ignore; // superseded by an earlier event that already ran
        }
        self.pending = NEVER;
        match self.deadline {
            NEVER => TimerFire::Ignore,
            d if d <= now => {
                self.deadline = NEVER;
                TimerFire::Fire
            }
            d => {
                self.pending = d;
                TimerFire::Reschedule(d)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// The event queue as far as one slot sees it: the times of its queued events.
    #[derive(Default)]
    struct Pending(BinaryHeap<Reverse<Time>>);

    impl Pending {
        fn push(&mut self, at: Time) {
            self.0.push(Reverse(at));
        }
        fn peek_time(&self) -> Option<Time> {
            self.0.peek().map(|r| r.0)
        }
        fn pop(&mut self) -> Option<(Time, ())> {
            self.0.pop().map(|r| (r.0, ()))
        }
    }

    /// Drives a slot the way the engine does and returns the times at which it fired.
    fn fire_times(ops: &[(u64, Option<u64>)], until: u64) -> Vec<u64> {
        // ops: at time t, set the deadline (Some) or cancel (None)
        let mut slot = TimerSlot::default();
        let mut q = Pending::default();
        let mut fired = vec![];
        let mut ops = ops.iter().peekable();
        loop {
            let next_ev = q.peek_time().map(|t| t.0);
            let next_op = ops.peek().map(|(t, _)| *t);
            match (next_op, next_ev) {
                (Some(o), e) if e.is_none_or(|e| o < e) => {
                    let (_, what) = ops.next().unwrap();
                    match what {
                        Some(d) => {
                            if let Some(at) = slot.set(Time(*d)) {
                                q.push(at);
                            }
                        }
                        None => slot.cancel(),
                    }
                }
                (_, Some(e)) if e <= until => {
                    let (t, _) = q.pop().unwrap();
                    match slot.on_event(t) {
                        TimerFire::Fire => fired.push(t.0),
                        TimerFire::Reschedule(at) => q.push(at),
                        TimerFire::Ignore => {}
                    }
                }
                _ => return fired,
            }
        }
    }

    #[test]
    fn a_slot_is_two_times() {
        assert_eq!(std::mem::size_of::<TimerSlot>(), 16);
        let mut slot = TimerSlot::default();
        assert_eq!((slot.is_armed(), slot.deadline()), (false, None));
        assert_eq!(slot.set(Time(7)), Some(Time(7)));
        assert_eq!(slot.deadline(), Some(Time(7)));
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
