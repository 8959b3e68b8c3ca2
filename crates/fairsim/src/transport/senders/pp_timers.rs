//! Packet-Pair's retransmission timers, one per packet (Keshav 1991, §4.4 "Implementation"):
//! every packet sent, first time or again, gets its own timeout of X·r_t (X = `timeout_factor`,
//! 3 in the thesis; r_t the smoothed round trip); a packet whose timer expires is queued for
//! retransmission and "its new timeout is twice the old value". Thesis §6.5 says the
//! simulated PP_CTH "is implemented according to the details presented in Chapter 4", so these
//! are the timers of its chapter-6 runs; the single timer of §7 (one timer per conversation,
//! re-armed at every transmission, expiry resending the oldest packet) is the other choice.
//!
//! Choices the thesis leaves open: a packet's timer stops when the ACK that echoes it arrives
//! (the sink echoes the packet each ACK answers), or when a cumulative ACK covers it; the
//! doubling is capped at 64 times X·r_t, as the single timer's; before the first round trip
//! the timeout is the `initial_timeout`, doubled the same way. The engine keeps one timer for
//! the earliest deadline.

use crate::units::Time;
use std::collections::BTreeMap;

/// The per-packet timers of one conversation.
#[derive(Default)]
pub struct PacketTimers {
    /// Unacknowledged packets: when each times out (`None` while it waits to be resent) and
    /// how many times its timeout has doubled so far.
    pending: BTreeMap<u64, (Option<Time>, u32)>,
}

/// Most doublings of a packet's timeout (64 times the first).
const MAX_DOUBLINGS: u32 = 6;

impl PacketTimers {
    /// `seq` was just sent at `now`; `base` is the timeout before any doubling.
    pub fn sent(&mut self, seq: u64, now: Time, base: Time) {
        let entry = self.pending.entry(seq).or_insert((None, 0));
        entry.0 = Some(now + Time(base.0.saturating_mul(1 << entry.1)));
    }

    /// The packet `echoed` was acknowledged, and every packet below `una`.
    pub fn acked(&mut self, echoed: u64, una: u64) {
        self.pending.remove(&echoed);
        self.pending = self.pending.split_off(&una);
    }

    /// The packets whose timers expired by `now`, oldest first; each waits to be resent with
    /// its timeout doubled.
    pub fn expire(&mut self, now: Time) -> Vec<u64> {
        let mut expired = vec![];
        for (&seq, (deadline, doublings)) in self.pending.iter_mut() {
            if deadline.is_some_and(|d| d <= now) {
                *deadline = None;
                *doublings = (*doublings + 1).min(MAX_DOUBLINGS);
                expired.push(seq);
            }
        }
        expired
    }

    /// The earliest deadline, for the engine's timer.
    pub fn next_deadline(&self) -> Option<Time> {
        self.pending.values().filter_map(|(d, _)| *d).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: u64) -> Time {
        Time::from_secs(x)
    }

    #[test]
    fn each_packet_times_out_on_its_own_and_its_timeout_doubles() {
        let mut t = PacketTimers::default();
        t.sent(0, s(0), s(3));
        t.sent(1, s(1), s(3));
        assert_eq!(t.next_deadline(), Some(s(3)));
        assert_eq!(t.expire(s(3)), vec![0], "only packet 0's timer has run out");
        assert_eq!(t.next_deadline(), Some(s(4)), "packet 1's runs on");
        assert_eq!(t.expire(s(4)), vec![1]);
        t.sent(0, s(5), s(3));
        assert_eq!(t.expire(s(10)), Vec::<u64>::new(), "resent at 5 s with twice the timeout: due at 11 s");
        assert_eq!(t.expire(s(11)), vec![0]);
    }

    #[test]
    fn an_echo_or_a_cumulative_ack_stops_a_timer() {
        let mut t = PacketTimers::default();
        for seq in 0..4 {
            t.sent(seq, s(0), s(3));
        }
        t.acked(2, 0); // packet 2 arrived above a hole
        t.acked(1, 2); // packets 0 and 1 acknowledged
        assert_eq!(t.expire(s(9)), vec![3]);
        t.acked(3, 4);
        assert_eq!(t.next_deadline(), None);
    }

    #[test]
    fn the_doubling_stops_at_64_times() {
        let mut t = PacketTimers::default();
        let mut now = s(0);
        for _ in 0..10 {
            t.sent(0, now, s(1));
            now = t.next_deadline().unwrap();
            assert_eq!(t.expire(now), vec![0]);
        }
        t.sent(0, now, s(1));
        assert_eq!(t.next_deadline(), Some(now + s(64)));
    }
}
