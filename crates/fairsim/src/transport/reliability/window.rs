//! Sender-side sliding-window bookkeeping shared by the window-based protocols.
//!
//! Sequence numbers count packets. `una` is the oldest unacknowledged packet, `nxt` the next one
//! to send (it falls back to `una` on a go-back-N retransmission), `high` one past the highest
//! ever sent. For every packet in `una..high` the first transmission time is kept, because
//! Generic measures a retransmitted packet's rtt from its first transmission, and whether it was
//! ever retransmitted, because Karn's rule takes no rtt sample from such packets; and, for SACK
//! (RFC 2018), whether the receiver has reported it in a SACK block. A go-back-N resend skips
//! SACKed packets (the receiver has them). For RACK (RFC 8985, `rack`) a packet may also be
//! marked lost, and a retransmission marked as still in the network, each counted as Linux
//! counts `lost_out` and `retrans_out`, so that the pipe is a sum rather than a scan.

use crate::units::Time;
use std::collections::VecDeque;

#[derive(Debug, Default)]
pub struct SendWindow {
    una: u64,
    nxt: u64,
    high: u64,
    /// For packets `una..high`: what the sender knows of each.
    sent: VecDeque<Sent>,
    /// Packets in `una..high` SACKed.
    sacked: u64,
    /// Packets in `una..high` marked lost (and not SACKed since).
    lost: u64,
    /// Retransmissions in the network: packets in `una..high` sent again since they were last
    /// deemed lost, neither SACKed nor deemed lost again since.
    rxt_out: u64,
}

/// One packet between `una` and `high`: its first transmission time (nanoseconds) with four
/// flags in the top bits: whether it was sent again since, whether a SACK block reported it,
/// whether it is deemed lost, and whether a retransmission of it is in the network. Eight
/// bytes, not the sixteen a time and four booleans take: a window holds thousands of these per
/// flow (the 256-flow dumbbell of docs/performance.md, *Memory*, kept 1 MB of them). A time
/// needs 60 bits only past 36 years of simulated time.
#[derive(Copy, Clone, Debug)]
struct Sent(u64);

impl Sent {
    const RETRANSMITTED: u64 = 1 << 63;
    const SACKED: u64 = 1 << 62;
    const LOST: u64 = 1 << 61;
    const RXT_OUT: u64 = 1 << 60;
    const FLAGS: u64 = Sent::RETRANSMITTED | Sent::SACKED | Sent::LOST | Sent::RXT_OUT;

    fn new(first: Time) -> Sent {
        debug_assert!(first.0 < Sent::RXT_OUT, "a time beyond 2^60 ns");
        Sent(first.0)
    }
    fn first(self) -> Time {
        Time(self.0 & !Sent::FLAGS)
    }
    fn has(self, flag: u64) -> bool {
        self.0 & flag != 0
    }
    fn retransmitted(self) -> bool {
        self.0 & Sent::RETRANSMITTED != 0
    }
    fn sacked(self) -> bool {
        self.0 & Sent::SACKED != 0
    }
}

/// What the window knows of one packet it holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SentPacket {
    pub first_sent: Time,
    pub retransmitted: bool,
    pub sacked: bool,
    pub lost: bool,
    pub rxt_out: bool,
}

impl SentPacket {
    fn of(s: Sent) -> SentPacket {
        SentPacket {
            first_sent: s.first(),
            retransmitted: s.retransmitted(),
            sacked: s.sacked(),
            lost: s.has(Sent::LOST),
            rxt_out: s.has(Sent::RXT_OUT),
        }
    }
}

/// What a cumulative ACK newly acknowledged.
#[derive(Debug, PartialEq, Eq)]
pub struct Acked {
    pub count: u64,
    /// First transmission time of the highest packet it acknowledged.
    pub newest_first_sent: Time,
    /// Whether that packet was ever retransmitted (Karn: its rtt is ambiguous).
    pub newest_retransmitted: bool,
}

impl SendWindow {
    pub fn una(&self) -> u64 {
        self.una
    }
    pub fn nxt(&self) -> u64 {
        self.nxt
    }
    /// One past the highest sequence number ever sent.
    pub fn high(&self) -> u64 {
        self.high
    }
    /// Packets sent and not yet acknowledged (counting from `una` to `nxt`).
    pub fn in_flight(&self) -> u64 {
        self.nxt - self.una
    }

    /// Whether packet `nxt` may go out under `window` with the application's data so far.
    pub fn can_send(&self, window: u64, app_limit: u64) -> bool {
        self.nxt < self.una + window && self.nxt < app_limit
    }

    /// Whether `window` is full while the application has more data: what holds the sender
    /// back, if nothing else does.
    pub fn full_with_data_waiting(&self, window: u64, app_limit: u64) -> bool {
        self.nxt >= self.una + window && self.nxt < app_limit
    }

    /// Marks packet `nxt` as sent at `now` and returns its sequence number.
    pub fn send_next(&mut self, now: Time) -> u64 {
        let seq = self.nxt;
        if seq == self.high {
            self.sent.push_back(Sent::new(now));
            self.high += 1;
            self.nxt += 1;
        } else {
            self.sent[(seq - self.una) as usize].0 |= Sent::RETRANSMITTED;
            self.nxt += 1;
            if self.sacked > 0 {
                self.skip_sacked();
            }
        }
        seq
    }

    /// Moves `nxt` past packets the receiver has (SACKed).
    #[cold]
    fn skip_sacked(&mut self) {
        while self.nxt < self.high && self.is_sacked(self.nxt) {
            self.nxt += 1;
        }
    }

    /// Marks packet `seq` (already sent, not yet acknowledged) as sent again, without moving
    /// `nxt` (fast retransmission).
    pub fn resend(&mut self, seq: u64) {
        if (self.una..self.high).contains(&seq) {
            self.sent[(seq - self.una) as usize].0 |= Sent::RETRANSMITTED;
        }
    }

    /// Whether packet `seq` (in `una..high`) was SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        self.sent[(seq - self.una) as usize].sacked()
    }

    /// Packets in `una..high` SACKed.
    pub fn sacked(&self) -> u64 {
        self.sacked
    }

    /// Marks the packets of SACK block `start..end` that lie in `una..high` as SACKed;
    /// returns how many were not before. A SACKed packet is neither lost nor in the network.
    pub fn mark_sacked(&mut self, start: u64, end: u64) -> u64 {
        self.mark_sacked_each(start, end, |_, _| {})
    }

    /// `mark_sacked`, calling `each(seq, sent)` for every packet newly SACKed, with what the
    /// window knew of it before (`SentPacket`).
    pub fn mark_sacked_each(&mut self, start: u64, end: u64, mut each: impl FnMut(u64, SentPacket)) -> u64 {
        let (from, to) = (start.max(self.una), end.min(self.high));
        let mut newly = 0;
        for seq in from..to {
            let s = &mut self.sent[(seq - self.una) as usize];
            if s.sacked() {
                continue;
            }
            let before = SentPacket::of(*s);
            self.lost -= before.lost as u64;
            self.rxt_out -= before.rxt_out as u64;
            s.0 = (s.0 & !(Sent::LOST | Sent::RXT_OUT)) | Sent::SACKED;
            newly += 1;
            each(seq, before);
        }
        self.sacked += newly;
        newly
    }

    /// What the window knows of packet `seq` (in `una..high`).
    pub fn packet(&self, seq: u64) -> SentPacket {
        SentPacket::of(self.sent[(seq - self.una) as usize])
    }

    /// Deems packet `seq` (in `una..high`, not SACKed) lost; a retransmission of it still in
    /// the network is lost with it. Returns whether it was not deemed lost before, or its
    /// retransmission was in the network.
    pub fn mark_lost(&mut self, seq: u64) -> bool {
        let s = &mut self.sent[(seq - self.una) as usize];
        if s.sacked() || (s.has(Sent::LOST) && !s.has(Sent::RXT_OUT)) {
            return false;
        }
        self.lost += !s.has(Sent::LOST) as u64;
        self.rxt_out -= s.has(Sent::RXT_OUT) as u64;
        s.0 = (s.0 & !Sent::RXT_OUT) | Sent::LOST;
        true
    }

    /// Packet `seq` (in `una..high`) is sent again and is in the network until SACKed or
    /// deemed lost again (`rxt_out`).
    pub fn retransmitted_out(&mut self, seq: u64) {
        let s = &mut self.sent[(seq - self.una) as usize];
        self.rxt_out += !s.has(Sent::RXT_OUT) as u64;
        s.0 |= Sent::RETRANSMITTED | Sent::RXT_OUT;
    }

    /// Packets in `una..high` deemed lost.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// The pipe as Linux counts it (`tcp_packets_in_flight`): packets sent and not
    /// acknowledged, less those SACKed or deemed lost, plus retransmissions in the network.
    pub fn pipe_counted(&self) -> u64 {
        (self.high - self.una) - self.sacked - self.lost + self.rxt_out
    }

    /// Forgets every loss mark, as a retransmission timeout sends everything unSACKed again.
    pub fn forget_losses(&mut self) {
        if self.lost + self.rxt_out == 0 {
            return;
        }
        for s in &mut self.sent {
            s.0 &= !(Sent::LOST | Sent::RXT_OUT);
        }
        (self.lost, self.rxt_out) = (0, 0);
    }

    /// Applies a cumulative ACK (`ack` = next packet the sink expects).
    pub fn on_ack(&mut self, ack: u64) -> Option<Acked> {
        let ack = ack.min(self.high);
        if ack <= self.una {
            return None;
        }
        let count = ack - self.una;
        let newest = self.sent[(count - 1) as usize];
        if self.sacked + self.lost + self.rxt_out > 0 {
            self.forget_marks(count as usize);
        }
        self.sent.drain(..count as usize);
        self.una = ack;
        self.nxt = self.nxt.max(ack);
        Some(Acked { count, newest_first_sent: newest.first(), newest_retransmitted: newest.retransmitted() })
    }

    /// The first `count` packets are acknowledged: their marks no longer count.
    #[cold]
    fn forget_marks(&mut self, count: usize) {
        for s in self.sent.range(..count) {
            self.sacked -= s.sacked() as u64;
            self.lost -= s.has(Sent::LOST) as u64;
            self.rxt_out -= s.has(Sent::RXT_OUT) as u64;
        }
    }

    /// Go-back-N: the next packet to send is the oldest unacknowledged one (not SACKed).
    pub fn go_back(&mut self) {
        self.nxt = self.una;
        self.skip_sacked();
    }
}

/// Whether the flow's own `window` (the receiver's window) holds the sender back, told to the
/// engine on each change, which times it (`window_limited_ns`). Linux keeps the same time per
/// socket (`tcpi_rwnd_limited`, the chrono started when `tcp_write_xmit` stops at the receive
/// window's edge rather than at the congestion window's).
#[derive(Debug, Default)]
pub struct WindowLimit {
    limited: bool,
}

impl WindowLimit {
    /// Records whether the flow's window holds the sender back now.
    #[inline]
    pub fn update(&mut self, limited: bool, ctx: &mut crate::transport::sender::AgentCtx) {
        if limited != self.limited {
            self.limited = limited;
            ctx.window_limited(limited);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_limits_sending_and_acks_slide_it() {
        let mut w = SendWindow::default();
        let mut sent = vec![];
        while w.can_send(3, u64::MAX) {
            sent.push(w.send_next(Time(sent.len() as u64)));
        }
        assert_eq!(sent, vec![0, 1, 2]);
        assert_eq!(w.on_ack(2), Some(Acked { count: 2, newest_first_sent: Time(1), newest_retransmitted: false }));
        assert_eq!(w.on_ack(2), None, "duplicate ACK acknowledges nothing");
        assert!(w.can_send(3, u64::MAX));
        assert!(!w.can_send(3, 3), "application has produced only packets 0..3");
    }

    #[test]
    fn a_full_window_holds_back_only_a_sender_with_data() {
        let mut w = SendWindow::default();
        (0..3).for_each(|t| _ = w.send_next(Time(t)));
        assert!(w.full_with_data_waiting(3, u64::MAX));
        assert!(!w.full_with_data_waiting(3, 3), "nothing more to send");
        assert!(!w.full_with_data_waiting(4, u64::MAX), "room for one more");
        w.on_ack(1);
        assert!(!w.full_with_data_waiting(3, u64::MAX), "the ACK opened the window");
    }

    #[test]
    fn the_engine_hears_of_each_change_once() {
        let mut actions = vec![];
        let mut ctx = crate::transport::AgentCtx::new(Time::ZERO, 0, &mut actions);
        let mut limit = WindowLimit::default();
        for limited in [false, true, true, false, false, true] {
            limit.update(limited, &mut ctx);
        }
        use crate::transport::Action::WindowLimited;
        assert_eq!(actions, vec![WindowLimited(true), WindowLimited(false), WindowLimited(true)]);
    }

    #[test]
    fn go_back_resends_from_una_and_keeps_first_send_times() {
        let mut w = SendWindow::default();
        for t in 0..3 {
            w.send_next(Time(t));
        }
        w.go_back();
        assert_eq!(w.send_next(Time(10)), 0);
        assert_eq!(w.in_flight(), 1);
        // the ACK of the retransmission is measured from the first transmission
        assert_eq!(w.on_ack(1), Some(Acked { count: 1, newest_first_sent: Time(0), newest_retransmitted: true }));
        assert_eq!(w.nxt(), 1);
        // an ACK beyond anything sent is clamped; packet 2 was sent once only
        w.resend(1);
        let acked = w.on_ack(99).unwrap();
        assert_eq!((acked.count, acked.newest_retransmitted), (2, false));
        assert_eq!((w.una(), w.nxt()), (3, 3));
    }
}
