//! Threshold ECN marking, DCTCP's switch: a drop-tail FIFO that marks ECN-capable packets CE
//! while the instantaneous queue is above K.
//!
//! Reference: M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1: "mark arriving
//! packets with the CE codepoint if the queue occupancy is greater than K upon its arrival"; §3.3
//! gives K > C·RTT/7, and the experiments use K = 20 packets at 1 Gb/s and 65 at 10 Gb/s. RFC 8257
//! §3.1 repeats the rule. htsim's `ECNQueue` marks instead as a packet leaves, when the queue in
//! bytes, the leaving packet counted, is above K: `at = "dequeue"` follows it, for comparisons.
//!
//! Choices the sources leave open, made here:
//! - K in packets or in bytes (`k = 20` or `k = "30KB"`), compared with the packets or bytes
//!   waiting (the packet on the line not counted), strictly above, as both sources have it.
//! - A packet that is not ECN-capable is neither marked nor dropped early: only the port's
//!   `buffer` drops (DCTCP's switch marks, and htsim's drops nothing at K). To have such packets
//!   dropped at K, use `red` with `ecn = true`, `min_th = K`, `max_th = K + 1`, `w_q = 1`.
//! - An ECN-capable ACK above K is counted as marked but keeps its congestion bit, which on an
//!   ACK is the sink's echo (`QdiscCtx::mark_ect`).
//! - The default K, 20 packets, is DCTCP's for 1 Gb/s lines: set it for faster ones.

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EcnThresholdConfig {
    /// The threshold K: ECN-capable packets are marked while more than K packets (or bytes, as
    /// `30KB`) wait.
    pub k: BufferLimit,
    /// When the queue is compared with K: as a packet arrives (`enqueue`, DCTCP's, the arrival
    /// not counted) or as it leaves (`dequeue`, htsim's, the leaving packet counted).
    pub at: MarkAt,
}

impl Default for EcnThresholdConfig {
    fn default() -> Self {
        EcnThresholdConfig { k: BufferLimit::Packets(20), at: MarkAt::Enqueue }
    }
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    #[default]
    Enqueue,
    Dequeue,
}

pub struct EcnThreshold {
    queue: Fifo,
    limit: BufferLimit,
    k: BufferLimit,
    at: MarkAt,
}

impl EcnThreshold {
    fn above_k(&self) -> bool {
        self.k.exceeded(self.queue.len(), self.queue.bytes())
    }
}

impl Qdisc for EcnThreshold {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QdiscCtx) {
        if self.at == MarkAt::Enqueue && self.above_k() {
            ctx.mark_ect(&mut pkt);
        }
        ctx.push_or_drop(&mut self.queue, self.limit, pkt);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let marks = self.at == MarkAt::Dequeue && self.above_k();
        let mut pkt = self.queue.pop(ctx.pool)?;
        if marks {
            ctx.mark_ect(&mut pkt);
        }
        Some(pkt)
    }

    fn bypass(&self, pkt: &Packet) -> bool {
        // an empty queue marks no arrival, and a packet leaving alone is marked only if it
        // exceeds K by itself
        let unmarked = self.at == MarkAt::Enqueue || !self.k.exceeded(1, pkt.size as u64);
        self.queue.is_empty() && self.limit.admits(0, 0, pkt.size) && unmarked
    }

    fn drained(&self) -> bool {
        self.queue.is_empty()
    }

    fn chainable(&self) -> bool {
        true // a FIFO whose mark at a dequeue reads only its own queue, as it was at that end
    }

    inspect_store!(queue);
}

/// The `ecn_threshold` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<EcnThresholdConfig> = Declaration {
    about: About {
        name: "ecn_threshold",
        summary: "DCTCP's switch: drop-tail FIFO marking ECN-capable packets while the queue is above K",
        reference: "Alizadeh et al., DCTCP, SIGCOMM 2010, §3.1; RFC 8257 §3.1",
    },
    defaults: || (EcnThresholdConfig::default(),),
    build: |(c,), port: &PortInfo| {
        if matches!(c.k, BufferLimit::Unlimited) {
            return Err(crate::params::ParamError::at("k", "must be a number of packets or bytes"));
        }
        Ok(Box::new(EcnThreshold { queue: Fifo::default(), limit: port.buffer, k: c.k, at: c.at }))
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{ack, pkt, port, with_ctx};

    fn queue(k: BufferLimit, at: MarkAt) -> EcnThreshold {
        EcnThreshold { queue: Fifo::default(), limit: port(BufferLimit::Packets(100), &[]).buffer, k, at }
    }

    fn ect(seq: u64) -> Packet {
        pkt(0, seq, 1000).with_ect(true)
    }

    /// Five ECN-capable 1000-byte packets queued, then sent: whether each left marked.
    fn marks_of_five(k: BufferLimit, at: MarkAt) -> Vec<bool> {
        let mut q = queue(k, at);
        with_ctx(|ctx| (0..5).for_each(|s| q.enqueue(ect(s), ctx)));
        congestion_bits(&mut q)
    }

    /// The congestion bit of each packet `q` sends, in order.
    fn congestion_bits(q: &mut EcnThreshold) -> Vec<bool> {
        with_ctx(|ctx| std::iter::from_fn(|| q.dequeue(ctx)).map(|p| p.congestion()).collect()).0
    }

    #[test]
    fn an_arrival_is_marked_when_more_than_k_packets_wait() {
        // DCTCP §3.1 with K = 2: the first three arrivals find 0, 1, 2 waiting; the fourth, 3 > K
        assert_eq!(marks_of_five(BufferLimit::Packets(2), MarkAt::Enqueue), vec![false, false, false, true, true]);
    }

    #[test]
    fn at_dequeue_the_leaving_packet_counts_as_htsim_has_it() {
        // K = 2000 bytes, five 1000-byte packets: leaving with 5000, 4000, 3000 (> K) marked,
        // with 2000 and 1000 not
        assert_eq!(marks_of_five(BufferLimit::Bytes(2000), MarkAt::Dequeue), vec![true, true, true, false, false]);
    }

    #[test]
    fn packets_that_cannot_be_marked_pass_and_acks_keep_their_echo() {
        let mut q = queue(BufferLimit::Packets(0), MarkAt::Enqueue);
        let ((), drops) = with_ctx(|ctx| {
            q.enqueue(pkt(0, 0, 1000), ctx); // finds none waiting: 0 is not above 0
            q.enqueue(pkt(0, 1, 1000), ctx); // not ECN-capable: neither marked nor dropped
            q.enqueue(ack(0, 1).with_ect(true), ctx);
        });
        assert!(drops.is_empty());
        assert_eq!(congestion_bits(&mut q), vec![false, false, false]);
    }
}
