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

use super::fifo::Fifo;
use super::{inspect_store, DropReason, PortInfo, Qdisc, QdiscCtx};
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketKind};
use crate::qdisc::QdiscDeclaration;
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
}

impl Pushout {
    pub fn new(cfg: PushoutConfig, port: &PortInfo) -> Pushout {
        Pushout {
            queue: Fifo::default(),
            limit: port.buffer,
            victim: cfg.victim,
            keep_acks: cfg.keep_acks,
            pushed_out: 0,
        }
    }

    /// The index of the packet `pkt` would push out, if any is less important.
    fn victim_for(&self, pkt: &Packet) -> Option<usize> {
        let candidates =
            self.queue.iter().enumerate().filter(|(_, q)| q.kind == PacketKind::Data && q.priority > pkt.priority);
        match self.victim {
            Victim::TailMost => candidates.map(|(i, _)| i).last(),
            // the largest priority, the one nearest the tail among equals
            Victim::Lowest => candidates.max_by_key(|&(i, q)| (q.priority, i)).map(|(i, _)| i),
        }
    }
}

impl Qdisc for Pushout {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let room = ctx.room(self.limit);
        if (pkt.kind == PacketKind::Ack && self.keep_acks)
            || room.admits(self.queue.len(), self.queue.bytes(), pkt.size)
        {
            self.queue.push(pkt);
            return;
        }
        while !room.admits(self.queue.len(), self.queue.bytes(), pkt.size) {
            let Some(i) = self.victim_for(&pkt) else {
                return ctx.drop(pkt, DropReason::TailDrop);
            };
            let out = self.queue.remove(i).expect("a victim is a queued packet");
            self.pushed_out += 1;
            ctx.drop(out, DropReason::PushOut);
        }
        self.queue.push(pkt);
    }

    fn dequeue(&mut self, _ctx: &mut QdiscCtx) -> Option<Packet> {
        self.queue.pop()
    }

    inspect_store!(queue);

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![("pushed_out", self.pushed_out as f64)]
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
        let mut left = vec![];
        q.for_each_packet(&mut |p| left.push(p.priority));
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

    #[test]
    fn below_the_limit_priorities_are_ignored_and_acks_are_never_dropped() {
        let mut q = Pushout::new(PushoutConfig::default(), &port(BufferLimit::Packets(2), &[(0, 1)]));
        let (_, drops) = with_ctx(|ctx| {
            q.enqueue(Packet { priority: 7, ..pkt(0, 0, 500) }, ctx);
            q.enqueue(Packet { priority: 0, ..pkt(0, 1, 500) }, ctx);
            let mut ack = pkt(0, 2, 40);
            ack.kind = PacketKind::Ack;
            q.enqueue(ack, ctx);
        });
        assert!(drops.is_empty());
        assert_eq!(q.len_packets(), 3, "the ACK went in beyond the buffer");
        let order: Vec<u64> = (0..3).filter_map(|_| with_ctx(|ctx| q.dequeue(ctx)).0.map(|p| p.seq)).collect();
        assert_eq!(order, vec![0, 1, 2], "first come, first served");
    }
}
