//! Priority push-out FIFO: first come, first served; when the buffer is full, an arriving packet
//! pushes out a queued packet of lower priority, or is dropped if there is none.
//!
//! Reference: H. Kim and D. J. Farber, "Congestion control by bandwidth-delay tradeoff in very
//! high-speed networks: the case of window-based control", U. Penn. MS-CIS-94-55, 1994, §3.3.2,
//! whose pseudo-code this follows: a packet's priority is its `priority` field, the BLT source's
//! opportunism level ⌊log2(j + 1)⌋, and a *larger* number is *less* important (dropped first).
//! - Not full: the arrival joins the tail, whatever its priority.
//! - Full, and no queued packet is less important than the arrival (ties included): the
//!   arrival is dropped.
//! - Otherwise a queued packet less important than the arrival is pushed out (a drop with
//!   reason `push_out`), the packets behind it close up, and the arrival joins the *tail*: order
//!   is kept, nobody jumps the queue.
//!
//! Which packet goes is the choice the paper itself calls flawed: its pseudo-code evicts the
//! less important packet nearest the tail (`victim = "tail_most"`, the paper's, and what its
//! results use), where "for fairness' sake" it should have evicted the least important one
//! (`victim = "lowest"`; among equals, the one nearest the tail). With every packet at the same
//! priority (TCP, the Bully-Tyrant baseline) both are drop-tail FIFO.
//!
//! Choices the paper leaves open: the packet on the line is not in the queue and cannot be
//! pushed out (no preemption); a buffer in bytes pushes out as many packets as the arrival needs
//! (with the paper's fixed 500-byte packets, one); "ACK packets cannot be dropped at the
//! switches": with `keep_acks` (default true) an ACK is queued even beyond the buffer.
//!
//! Cost: the queued data packets are counted per priority, so whether any queued packet is less
//! important than an arrival, and which priority the least important has, is known without
//! looking at the queue; the victim is then searched from the tail, where the paper's rule
//! looks and where a BLT burst's least important packets are. With one priority (TCP,
//! Bully-Tyrant) nothing is searched: push-out is drop-tail at drop-tail's cost.

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, DropReason, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketPool};
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};

/// Which less important packet an arrival to a full buffer pushes out.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Victim {
    /// The one nearest the tail (Kim & Farber's pseudo-code, and their results).
    #[default]
    TailMost,
    /// The least important one (what the paper says it should have been).
    Lowest,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PushoutConfig {
    /// Which less important packet goes: `tail_most` (the paper's) or `lowest`.
    pub victim: Victim,
    /// ACKs are never dropped: queued beyond the buffer if need be (the paper's assumption).
    pub keep_acks: bool,
}

impl Default for PushoutConfig {
    fn default() -> Self {
        PushoutConfig { victim: Victim::TailMost, keep_acks: true }
    }
}

pub struct Pushout {
    queue: Fifo,
    limit: BufferLimit,
    victim: Victim,
    keep_acks: bool,
    pushed_out: u64,
    /// Queued data packets of each priority.
    at_level: [u32; 256],
    /// At least the largest priority of a queued data packet (`victim_for` makes it exact).
    lowest: u8,
}

impl Pushout {
    pub fn new(cfg: PushoutConfig, port: &PortInfo) -> Pushout {
        Pushout {
            queue: Fifo::default(),
            limit: port.buffer,
            victim: cfg.victim,
            keep_acks: cfg.keep_acks,
            pushed_out: 0,
            at_level: [0; 256],
            lowest: 0,
        }
    }

    /// The index of the packet `pkt` would push out, if any is less important.
    fn victim_for(&mut self, pkt: &Packet, pool: &PacketPool) -> Option<usize> {
        while self.lowest > 0 && self.at_level[self.lowest as usize] == 0 {
            self.lowest -= 1;
        }
        if self.lowest <= pkt.priority {
            return None; // no queued data packet is less important
        }
        let wanted = |q: &Packet| {
            q.is_data()
                && match self.victim {
                    Victim::TailMost => q.priority > pkt.priority,
                    // the largest priority, the one nearest the tail among equals
                    Victim::Lowest => q.priority == self.lowest,
                }
        };
        let from_tail = self.queue.iter(pool).rev().position(wanted)?;
        Some(self.queue.len() - 1 - from_tail)
    }

    fn counted_in(&mut self, pkt: &Packet) {
        if pkt.is_data() {
            self.at_level[pkt.priority as usize] += 1;
            self.lowest = self.lowest.max(pkt.priority);
        }
    }

    /// `lowest` stays where it was: an upper bound, made exact only when a full buffer needs it.
    fn counted_out(&mut self, pkt: &Packet) {
        if pkt.is_data() {
            self.at_level[pkt.priority as usize] -= 1;
        }
    }

    fn push(&mut self, pkt: Packet, pool: &mut PacketPool) {
        self.counted_in(&pkt);
        self.queue.push(pkt, pool);
    }
}

impl Qdisc for Pushout {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let room = ctx.room(self.limit);
        if (!pkt.is_data() && self.keep_acks) || room.admits(self.queue.len(), self.queue.bytes(), pkt.size) {
            self.push(pkt, ctx.pool);
            return;
        }
        while !room.admits(self.queue.len(), self.queue.bytes(), pkt.size) {
            let Some(i) = self.victim_for(&pkt, ctx.pool) else {
                return ctx.drop(pkt, DropReason::TailDrop);
            };
            let out = self.queue.remove(i, ctx.pool).expect("a victim is a queued packet");
            self.counted_out(&out);
            self.pushed_out += 1;
            ctx.drop(out, DropReason::PushOut);
        }
        self.push(pkt, ctx.pool);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let pkt = self.queue.pop(ctx.pool)?;
        self.counted_out(&pkt);
        Some(pkt)
    }

    fn drained(&self) -> bool {
        self.queue.is_empty() // a FIFO
    }

    inspect_store!(queue);

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![("pushed_out", self.pushed_out as f64)]
    }
    fn chainable(&self) -> bool {
        true // it pushes packets out only for arrivals
    }
}

/// The `pushout` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<PushoutConfig> = Declaration {
    about: About {
        name: "pushout",
        summary: "FIFO whose full buffer lets an arrival push out a less important (higher-numbered priority) packet",
        reference: "Kim & Farber 1994 §3.3.2 (BLT's switch)",
    },
    defaults: || (PushoutConfig::default(),),
    build: |(c,), port| Ok(Box::new(Pushout::new(c.clone(), port))),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;
    use crate::qdisc::testing::{pkt, port, with_ctx};

    /// A queue of five packets with these priorities, then one arrival of priority `arriving`:
    /// the priorities left in the queue, in order, and what was dropped.
    fn after(victim: Victim, queued: &[u8], arriving: u8) -> (Vec<u8>, Vec<(u8, DropReason)>) {
        let mut q = Pushout::new(
            PushoutConfig { victim, keep_acks: true },
            &port(BufferLimit::Packets(queued.len() as u64), &[(0, 1)]),
        );
        let (_, drops) = with_ctx(|ctx| {
            for (i, &p) in queued.iter().enumerate() {
                q.enqueue(Packet { priority: p, ..pkt(0, i as u64, 500) }, ctx);
            }
            q.enqueue(Packet { priority: arriving, ..pkt(0, 99, 500) }, ctx);
        });
        let left: Vec<u8> = crate::qdisc::testing::queued(&q).iter().map(|p| p.priority).collect();
        (left, drops.iter().map(|(p, r)| (p.priority, *r)).collect())
    }

    #[test]
    fn the_papers_rule_pushes_out_the_less_important_packet_nearest_the_tail() {
        // priorities 0 3 1 4 2 (larger = less important); a priority-2 arrival: from the tail,
        // the first packet of priority > 2 is the 4, which goes; the arrival joins the tail
        let (left, drops) = after(Victim::TailMost, &[0, 3, 1, 4, 2], 2);
        assert_eq!(left, vec![0, 3, 1, 2, 2]);
        assert_eq!(drops, vec![(4, DropReason::PushOut)]);
        // a priority-3 arrival: the 4 again (the only one above 3); a priority-0 arrival: the
        // first from the tail above 0 is the 2 at the tail itself
        assert_eq!(after(Victim::TailMost, &[0, 3, 1, 4, 2], 0).0, vec![0, 3, 1, 4, 0]);
    }

    #[test]
    fn the_fairer_reading_pushes_out_the_least_important_packet() {
        let (left, drops) = after(Victim::Lowest, &[0, 3, 1, 4, 2], 0);
        assert_eq!(left, vec![0, 3, 1, 2, 0], "the 4 goes, not the 2 nearest the tail");
        assert_eq!(drops, vec![(4, DropReason::PushOut)]);
        // among equally unimportant packets, the one nearest the tail
        assert_eq!(after(Victim::Lowest, &[5, 1, 5, 1, 0], 2).0, vec![5, 1, 1, 0, 2]);
    }

    #[test]
    fn an_arrival_no_more_important_than_any_queued_packet_is_dropped() {
        for victim in [Victim::TailMost, Victim::Lowest] {
            let (left, drops) = after(victim, &[0, 3, 1, 4, 2], 4);
            assert_eq!(left, vec![0, 3, 1, 4, 2], "ties do not push out");
            assert_eq!(drops, vec![(4, DropReason::TailDrop)]);
        }
    }

    #[test]
    fn equal_priorities_make_it_drop_tail_fifo() {
        // TCP and the Bully-Tyrant baseline: every packet at the same priority
        let (left, drops) = after(Victim::TailMost, &[0, 0, 0, 0, 0], 0);
        assert_eq!(left, vec![0; 5]);
        assert_eq!(drops, vec![(0, DropReason::TailDrop)]);
    }

    /// The paper's pseudo-code as written, on a plain list: the reference the counted queue is
    /// checked against.
    fn by_the_pseudo_code(victim: Victim, queue: &mut Vec<u8>, limit: usize, arriving: u8) -> Option<u8> {
        if queue.len() < limit {
            queue.push(arriving);
            return None;
        }
        let candidates = queue.iter().enumerate().filter(|(_, &q)| q > arriving);
        let j = match victim {
            Victim::TailMost => candidates.map(|(i, _)| i).next_back(),
            Victim::Lowest => candidates.max_by_key(|&(i, &q)| (q, i)).map(|(i, _)| i),
        };
        let Some(j) = j else { return Some(arriving) };
        let out = queue.remove(j);
        queue.push(arriving);
        Some(out)
    }

    #[test]
    fn the_counted_queue_does_what_the_pseudo_code_does() {
        use rand::Rng;
        let mut rng = crate::rng::stream(5, "pushout");
        for victim in [Victim::TailMost, Victim::Lowest] {
            let limit = 12;
            let mut q =
                Pushout::new(PushoutConfig { victim, keep_acks: true }, &port(BufferLimit::Packets(limit), &[(0, 1)]));
            let mut reference = vec![];
            for step in 0..20_000u64 {
                if rng.random_bool(0.4) {
                    let (got, _) = with_ctx(|ctx| q.dequeue(ctx));
                    let want = (!reference.is_empty()).then(|| reference.remove(0));
                    assert_eq!(got.map(|p| p.priority), want, "step {step}");
                } else {
                    let p: u8 = rng.random_range(0..8);
                    let (_, drops) = with_ctx(|ctx| q.enqueue(Packet { priority: p, ..pkt(0, step, 500) }, ctx));
                    let want = by_the_pseudo_code(victim, &mut reference, limit as usize, p);
                    assert_eq!(drops.first().map(|(d, _)| d.priority), want, "step {step}");
                }
                let left: Vec<u8> = crate::qdisc::testing::queued(&q).iter().map(|p| p.priority).collect();
                assert_eq!(left, reference, "step {step}");
            }
            assert!(q.pushed_out > 1000, "{victim:?}: the comparison pushed out ({})", q.pushed_out);
        }
    }

    #[test]
    fn below_the_limit_priorities_are_ignored_and_acks_are_never_dropped() {
        let mut q = Pushout::new(PushoutConfig::default(), &port(BufferLimit::Packets(2), &[(0, 1)]));
        let (_, drops) = with_ctx(|ctx| {
            q.enqueue(Packet { priority: 7, ..pkt(0, 0, 500) }, ctx);
            q.enqueue(Packet { priority: 0, ..pkt(0, 1, 500) }, ctx);
            q.enqueue(pkt(0, 2, 40).with_kind(PacketKind::Ack), ctx);
        });
        assert!(drops.is_empty());
        assert_eq!(q.len_packets(), 3, "the ACK went in beyond the buffer");
        let order: Vec<u64> = (0..3).filter_map(|_| with_ctx(|ctx| q.dequeue(ctx)).0.map(|p| p.seq)).collect();
        assert_eq!(order, vec![0, 1, 2], "first come, first served");
    }
}
