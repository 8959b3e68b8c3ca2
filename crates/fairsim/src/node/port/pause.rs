//! A port paused by the PFC switch at its far end (`engine::pfc`): the packet on the line
//! finishes (IEEE 802.1Qbb stops a transmitter between frames), none starts until the port
//! resumes, and the time paused is counted per interval.

use super::{Next, OnLine, Port};
use crate::net::{Packet, PacketPool};
use crate::qdisc::DropReason;
use crate::units::Time;

impl Port {
    /// A PFC switch at the far end may pause the port: every transmission ends with an event
    /// (no chained starts, which would go on the line while paused). Also the egress ports of a
    /// PFC switch, whose transmissions' ends release their ingresses' bytes.
    pub fn end_every_transmission(&mut self) {
        self.lazy_ends = false;
        self.chained = false;
    }

    /// The packet the port put on its line at `now` with no end event (a lazy transmission),
    /// and its end: a PFC switch's egress keeps the release it owes (`engine::pfc`).
    pub fn lazy_start<'a>(&self, now: Time, pool: &'a PacketPool) -> Option<(&'a Packet, Time)> {
        match self.transmitting {
            Some(OnLine::Lazy { started, ends, end_scheduled: false, .. }) if started == now => {
                let last = self.pipe.back(pool);
                Some((&last.expect("a lazy transmission's packet is in the pipe").pkt, ends))
            }
            _ => None,
        }
    }

    /// The lazy transmission under way gets an end event after all (its release at a PFC
    /// switch may send an XON): its end, unless it has one already.
    pub fn schedule_lazy_end(&mut self) -> Option<Time> {
        match &mut self.transmitting {
            Some(OnLine::Lazy { ends, end_scheduled: scheduled @ false, .. }) => {
                *scheduled = true;
                Some(*ends)
            }
            _ => None,
        }
    }

    /// `watched` after the port's pause or stamper changed.
    pub(super) fn update_watched(&mut self) {
        self.watched = self.paused_since() != Time::MAX || self.stamps();
    }

    /// `start_tx` on a watched port: a paused one starts nothing (its resume starts the line
    /// again); a stamping one stamps the packet it starts (`int.rs`). Out of line: only PFC
    /// and telemetry runs come here.
    #[cold]
    #[inline(never)]
    pub(super) fn start_tx_watched(
        &mut self,
        now: Time,
        drops: &mut Vec<(Packet, DropReason)>,
        pool: &mut PacketPool,
    ) -> Next {
        if self.paused() {
            return Next::Nothing;
        }
        let next = self.start_tx_now(now, drops, pool);
        self.stamp_line_start(now, pool);
        next
    }

    /// Whether the port is paused: `start_tx` starts nothing.
    #[inline]
    pub fn paused(&self) -> bool {
        // a paused port is watched: one that is not reads nothing of its rare parts
        self.watched && self.paused_since() != Time::MAX
    }

    /// A pause frame arrives at `now`: `pause` stops the port (after the packet on the line),
    /// a resume lets it go on. Returns whether the line is idle with the port resumed: the caller
    /// then starts a transmission. A frame that changes nothing (a second XOFF) is ignored.
    pub fn pause(&mut self, pause: bool, now: Time, pool: &mut PacketPool) -> bool {
        self.settle(now, pool);
        if pause == self.paused() {
            return false;
        }
        if let Some(trace) = self.trace_mut() {
            trace.paused.push((now, f64::from(u8::from(pause))));
        }
        if pause {
            self.set_paused_since(now);
            self.rare_counters().pauses += 1;
            self.update_watched();
            return false;
        }
        self.count_paused(now);
        self.set_paused_since(Time::MAX);
        self.update_watched();
        !matches!(self.transmitting, Some(OnLine::Sending { .. } | OnLine::Lazy { .. }))
    }

    /// The time paused up to `now` goes into the current interval.
    pub(super) fn count_paused(&mut self, now: Time) {
        if self.paused() {
            let since = self.paused_since();
            self.rare_counters().paused_ns += (now - since).0;
            self.set_paused_since(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::a_port_recording;
    use super::super::{Line, Next};
    use crate::net::PacketPool;
    use crate::qdisc::testing::pkt;
    use crate::units::Time;

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    #[test]
    fn a_paused_port_finishes_its_packet_then_holds_the_rest_until_it_resumes() {
        let mut pool = PacketPool::standalone();
        // 1 Mb/s, 1000-byte packets: 8 ms each
        let mut p = a_port_recording(10, false);
        p.end_every_transmission();
        let mut drops = vec![];
        // FCFS sends an arrival at an idle line straight on (`bypass`), with its end an event
        assert_eq!(p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops, &mut pool), Line::Then(Next::TxDone(ms(8))));
        assert_eq!(p.enqueue(pkt(0, 1, 1000), ms(1), &mut drops, &mut pool), Line::Then(Next::Nothing));
        assert!(!p.pause(true, ms(2), &mut pool), "paused while sending");
        assert!(!p.pause(true, ms(3), &mut pool), "a second XOFF changes nothing");
        assert_eq!(p.finish_tx(ms(8), &mut drops, &mut pool), Some(ms(18)), "the packet on the line finishes");
        assert_eq!(p.start_tx(ms(8), &mut drops, &mut pool), Next::Nothing, "the next waits");
        assert_eq!(p.enqueue(pkt(0, 2, 1000), ms(9), &mut drops, &mut pool), Line::Idle, "no bypass while paused");
        assert_eq!(p.start_tx(ms(9), &mut drops, &mut pool), Next::Nothing, "an arrival starts nothing either");
        assert!(p.pause(false, ms(12), &mut pool), "resumed with the line idle");
        assert_eq!(p.start_tx(ms(12), &mut drops, &mut pool), Next::TxDone(ms(20)));
        p.close_interval(ms(30), &mut pool);
        let c = p.stats.intervals[0];
        assert_eq!((c.rare.pauses, c.rare.paused_ns), (1, ms(10).0));
        assert_eq!(p.trace().unwrap().paused, vec![(ms(2), 1.0), (ms(12), 0.0)], "a traced port's pauses");
        assert!(!p.pause(false, ms(31), &mut pool), "a resume of a port not paused");
    }

    #[test]
    fn a_chained_port_paused_finishes_its_packet_and_chains_no_other_until_it_resumes() {
        let mut pool = PacketPool::standalone();
        // no `end_every_transmission`: a host's line feeding a PFC switch keeps its chain
        let mut p = a_port_recording(10, false);
        let mut drops = vec![];
        for seq in 0..3 {
            if p.enqueue(pkt(0, seq, 1000), Time::ZERO, &mut drops, &mut pool) == Line::Idle {
                p.start_tx(Time::ZERO, &mut drops, &mut pool);
            }
        }
        assert!(!p.pause(true, ms(4), &mut pool), "paused while the first packet is on the line");
        p.settle(ms(30), &mut pool);
        assert_eq!(p.queued_bytes(), 2000, "the chain started nothing after the pause");
        assert!(p.pause(false, ms(30), &mut pool), "resumed with the line idle");
        // the second packet goes on the line at 30 ms, into the pipe behind the first
        assert_eq!(p.start_tx(ms(30), &mut drops, &mut pool), Next::Nothing);
        assert_eq!(p.queued_bytes(), 1000);
        let (first, next) = p.deliver(ms(30), &mut pool);
        assert_eq!((first.seq, next), (0, ms(48)), "the second arrives 8 + 10 ms after its start");
    }

    #[test]
    fn paused_time_is_split_at_the_intervals_ends() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port_recording(10, false);
        p.end_every_transmission();
        p.pause(true, ms(5), &mut pool);
        p.close_interval(ms(10), &mut pool);
        p.pause(false, ms(14), &mut pool);
        p.close_interval(ms(20), &mut pool);
        let got: Vec<_> = p.stats.intervals.iter().map(|c| (c.rare.pauses, c.rare.paused_ns)).collect();
        assert_eq!(got, vec![(1, ms(5).0), (0, ms(4).0)]);
    }

    #[test]
    fn a_paused_port_keeps_its_pause_among_its_rare_parts_and_records_no_packet_for_it() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port_recording(10, false);
        p.extras = None; // untraced: no rare parts until it is paused
        p.records = false;
        p.end_every_transmission();
        p.pause(true, ms(5), &mut pool);
        assert!(p.paused() && p.extras.is_some(), "the pause is kept among the rare parts");
        assert!(!p.records, "and the hot paths call no recorder for it");
        let mut drops = vec![];
        assert_eq!(p.enqueue(pkt(0, 0, 1000), ms(6), &mut drops, &mut pool), Line::Idle);
        assert_eq!(p.counters_now().rare.pauses, 1, "the interval so far, its rare counters with it");
        p.pause(false, ms(9), &mut pool);
        p.close_interval(ms(10), &mut pool);
        let c = p.stats.intervals[0];
        assert_eq!((c.arrivals, c.rare.pauses, c.rare.paused_ns), (1, 1, ms(4).0));
        p.close_interval(ms(20), &mut pool);
        assert_eq!(
            (p.stats.intervals[1].rare.pauses, p.stats.intervals[1].rare.paused_ns),
            (0, 0),
            "counted again from 0"
        );
    }
}
