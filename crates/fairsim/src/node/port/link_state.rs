//! A port's link going down, coming back and changing rate (`[[events]]`; the engine's
//! `failures.rs` says when, and what forwarding learns).
//!
//! The model, after what a switch's port does when its link fails (docs/decisions.md, "Link
//! failures"):
//! - **Down.** The packet on the line is cut and lost: its transmission never ends, and it never
//!   reaches the far end. Packets whose last bit had left before the failure are on the wire
//!   already and arrive. The queue is lost: the discipline gives up its packets (`Qdisc::flush`).
//!   From then on every arrival is lost (the port's discipline waits inside `qdisc::Down`). All
//!   are drops with reason `link_down`.
//! - **Up.** The port's own discipline takes its place again, emptied; the line is idle.
//! - **Rate.** Transmissions that start from then on take the new rate; the packet on the line
//!   finishes at the rate it started with.

use super::{InFlight, Next, OnLine, Port};
use crate::net::{Packet, PacketPool};
use crate::qdisc::{DropReason, PortEvent, Qdisc, QdiscCtx};
use crate::units::{Rate, Time};

/// What a port's going down did to the events the loop holds for it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The packet it cut led the pipe: its arrival at the far end, queued already, must not
    /// happen (a `TxDone` of the port is always to be taken back: the line is idle now).
    pub arrival: bool,
}

impl Port {
    /// Whether the port's link is down.
    pub fn is_down(&self) -> bool {
        self.qdisc.is_down()
    }

    /// The link goes down at `now`: the packet on the line and those queued are lost into
    /// `drops` (the discipline's own drops during its flush too, as `link_down`).
    pub fn go_down(&mut self, now: Time, drops: &mut Vec<(Packet, DropReason)>, pool: &mut PacketPool) -> Cut {
        self.settle(now, pool);
        let mut cut = Cut { arrival: false };
        let on_line = match self.transmitting.take() {
            // either packet waits at the pipe's tail; only a lazy one has its arrival's event,
            // if it leads the pipe
            Some(OnLine::Sending { started, .. }) => Some((self.take_off_line(pool).pkt, started)),
            Some(OnLine::Lazy { started, .. }) => {
                let InFlight { pkt, .. } = self.take_off_line(pool);
                cut.arrival = self.pipe.is_empty();
                Some((pkt, started))
            }
            None => None,
        };
        if let Some((pkt, started)) = on_line {
            // the line was busy until the cut; no departure
            self.stats.add_busy(started, now);
            self.qdisc.record(now, PortEvent::Drop(DropReason::LinkDown), &pkt);
            drops.push((pkt, DropReason::LinkDown));
        }
        // the discipline's timer goes with its packets (its event is taken back with the cut)
        self.wake = Time::MAX;
        let (mut own_drops, mut marks) = (vec![], 0);
        let mut ctx = QdiscCtx::new(now, self.rate, &mut self.rng, &mut own_drops, &mut marks, pool);
        let flushed = self.qdisc.flush(&mut ctx);
        let lost = flushed.into_iter().chain(own_drops.into_iter().map(|(p, _)| p));
        drops.extend(lost.map(|p| (p, DropReason::LinkDown)));
        self.qdisc.take_down();
        self.queue_changed(now);
        cut
    }

    /// The link comes back at `now`: the port's discipline takes its place again; returns the
    /// event its line needs if the discipline still holds packets (ones its timer held back).
    pub fn come_up(&mut self, now: Time, drops: &mut Vec<(Packet, DropReason)>, pool: &mut PacketPool) -> Next {
        self.qdisc.bring_up();
        if self.qdisc.len_packets() == 0 {
            return Next::Nothing;
        }
        self.start_tx(now, drops, pool)
    }

    /// Transmissions starting from `now` on take `rate`; the one under way keeps its own.
    pub fn set_rate(&mut self, now: Time, rate: Rate, pool: &mut PacketPool) {
        // chained transmissions that started before `now` went at the old rate
        self.settle(now, pool);
        self.rate = rate;
        self.last_tx = (0, rate.tx_time(0));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::a_port_recording;
    use super::super::Line;
    use super::*;
    use crate::qdisc::testing::pkt;

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    /// What `drops` holds: (seq, reason).
    fn lost(drops: &[(Packet, DropReason)]) -> Vec<(u64, DropReason)> {
        drops.iter().map(|(p, r)| (p.seq, *r)).collect()
    }

    // 1000-byte packets on the test port's 1 Mb/s line: 8 ms each, then 10 ms of propagation

    /// Offers packet `seq` at `at`: the event its port then needs.
    fn offer(p: &mut Port, seq: u64, at: Time, drops: &mut Vec<(Packet, DropReason)>, pool: &mut PacketPool) -> Next {
        match p.enqueue(pkt(0, seq, 1000), at, drops, pool) {
            Line::Idle => p.start_tx(at, drops, pool),
            Line::Then(next) => next,
        }
    }

    #[test]
    fn going_down_cuts_the_packet_on_the_line_loses_the_queue_and_keeps_what_has_left() {
        let mut pool = PacketPool::standalone();
        for fluid in [false, true] {
            // with `fluid` every end is an event (`Sending`); without, the line is chained
            let mut p = a_port_recording(10, fluid);
            let mut drops = vec![];
            (0..4).for_each(|seq| _ = offer(&mut p, seq, Time::ZERO, &mut drops, &mut pool));
            if fluid {
                p.finish_tx(ms(8), &mut drops, &mut pool);
                p.start_tx(ms(8), &mut drops, &mut pool);
            }
            // at 12 ms: packet 0 is on the wire, 1 on the line, 2 and 3 queued
            let cut = p.go_down(ms(12), &mut drops, &mut pool);
            let want = [(1, DropReason::LinkDown), (2, DropReason::LinkDown), (3, DropReason::LinkDown)];
            assert_eq!(lost(&drops), want, "fluid {fluid}");
            assert!(!cut.arrival, "packet 0 still leads the pipe");
            let (arrived, next) = p.deliver(ms(18), &mut pool);
            assert_eq!((arrived.seq, next), (0, super::super::NO_ARRIVAL), "what had left arrives");
            assert!(p.is_down() && p.on_line(&pool).is_none());
            assert_eq!(p.stats.current.departures, 1);
            assert_eq!(p.stats.current.busy_ns, ms(12).0, "busy until the cut");
            // an arrival while down is lost; the line stays idle
            drops.clear();
            assert_eq!(offer(&mut p, 4, ms(13), &mut drops, &mut pool), Next::Nothing);
            assert_eq!(lost(&drops), [(4, DropReason::LinkDown)]);
            // back: the line takes packets again
            assert_eq!(p.come_up(ms(20), &mut drops, &mut pool), Next::Nothing);
            assert!(!p.is_down());
            let want = if fluid { Next::TxDone(ms(29)) } else { Next::Arrive(ms(39)) };
            assert_eq!(offer(&mut p, 5, ms(21), &mut drops, &mut pool), want, "fluid {fluid}");
        }
    }

    #[test]
    fn a_cut_packet_alone_on_the_wire_takes_its_arrival_back() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port_recording(10, false);
        let mut drops = vec![];
        assert_eq!(offer(&mut p, 0, Time::ZERO, &mut drops, &mut pool), Next::Arrive(ms(18)));
        let cut = p.go_down(ms(4), &mut drops, &mut pool);
        assert!(cut.arrival, "its arrival was queued, and must not happen");
        assert_eq!(lost(&drops), [(0, DropReason::LinkDown)]);
    }

    #[test]
    fn a_new_rate_takes_the_next_transmission_and_the_one_under_way_keeps_its_own() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port_recording(10, true);
        let mut drops = vec![];
        offer(&mut p, 0, Time::ZERO, &mut drops, &mut pool);
        offer(&mut p, 1, Time::ZERO, &mut drops, &mut pool);
        p.set_rate(ms(4), Rate(2_000_000), &mut pool);
        assert_eq!(p.finish_tx(ms(8), &mut drops, &mut pool), Some(ms(18)), "8 ms at the old rate");
        assert_eq!(p.start_tx(ms(8), &mut drops, &mut pool), Next::TxDone(ms(12)), "4 ms at the new one");
    }
}
