//! FCFS with drop-tail: one FIFO; when the buffer is full the arriving packet is refused.
//!
//! Reference: the FCFS gateway of Demers, Keshav & Shenker, "Analysis and Simulation of a Fair
//! Queueing Algorithm", SIGCOMM 1989, §4. The paper does not state its overflow policy; its
//! account of segregation in Scenario 2 (ACKs of the winners signal freed buffers) implies
//! drop-tail, which is what this is. Deviations: none. Choices left open: the limit may be in
//! packets (as in the papers) or bytes (the port's `buffer`).

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketPool};
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};

/// FCFS takes no parameters of its own: its limit is the port's `buffer`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FcfsConfig {}

pub struct Fcfs {
    queue: Fifo,
    limit: BufferLimit,
}

impl Fcfs {
    pub fn new(_config: FcfsConfig, port: &PortInfo) -> Self {
        Fcfs { queue: Fifo::default(), limit: port.buffer }
    }

    /// Lets go of the waiting packets, once the run has ended and they are counted: a FIFO
    /// reports no figures of its own from them (`Port::shed_fcfs_queue`).
    pub(crate) fn shed(&mut self, pool: &mut PacketPool) {
        self.queue.clear(pool);
    }
}

// inline: held in place by every port (`dispatch.rs`), FCFS's verbs are a few instructions each,
// and their inlining into the port's paths must not depend on which codegen unit they land in
impl Qdisc for Fcfs {
    #[inline]
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        ctx.push_or_drop(&mut self.queue, self.limit, pkt);
    }

    #[inline]
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.queue.pop(ctx.pool)
    }

    #[inline]
    fn drained(&self) -> bool {
        self.queue.is_empty() // a FIFO: nothing else to change
    }

    fn chainable(&self) -> bool {
        true // its packets leave in the order they came, unchanged
    }

    #[inline]
    fn bypass(&self, pkt: &Packet) -> bool {
        // the line is idle, so nothing of the buffer is taken by a packet on it
        self.queue.is_empty() && self.limit.admits(0, 0, pkt.size)
    }

    inspect_store!(queue);
}

/// The `fcfs` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<FcfsConfig> = Declaration {
    about: About {
        name: "fcfs",
        summary: "first come, first served with drop-tail (limit in packets or bytes)",
        reference: "the baseline of Demers, Keshav & Shenker 1989",
    },
    defaults: || (FcfsConfig::default(),),
    build: |(c,), port| Ok(Box::new(Fcfs::new(c.clone(), port))),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::discipline::DropReason;
    use crate::qdisc::testing::{pkt, with_ctx};

    fn fcfs(limit: BufferLimit) -> Fcfs {
        Fcfs::new(FcfsConfig {}, &crate::qdisc::testing::port(limit, &[]))
    }

    #[test]
    fn serves_in_arrival_order_and_drops_the_arrival_when_full() {
        let mut q = fcfs(BufferLimit::Packets(2));
        let (_, drops) = with_ctx(|ctx| {
            for seq in 0..4 {
                q.enqueue(pkt(seq as u32 % 2, seq, 100), ctx);
            }
        });
        assert_eq!(
            drops.iter().map(|(p, r)| (p.seq, *r)).collect::<Vec<_>>(),
            vec![(2, DropReason::TailDrop), (3, DropReason::TailDrop)]
        );
        let (order, _) = with_ctx(|ctx| std::iter::from_fn(|| q.dequeue(ctx)).map(|p| p.seq).collect::<Vec<_>>());
        assert_eq!(order, vec![0, 1]);
        assert_eq!((q.len_packets(), q.len_bytes()), (0, 0));
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut q = fcfs(BufferLimit::Bytes(1500));
        let (_, drops) = with_ctx(|ctx| {
            q.enqueue(pkt(0, 0, 1000), ctx);
            q.enqueue(pkt(0, 1, 1000), ctx); // would make 2000 > 1500
            q.enqueue(pkt(0, 2, 40), ctx);
        });
        assert_eq!(drops.len(), 1);
        assert_eq!(drops[0].0.seq, 1);
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 1040));
    }

    #[test]
    fn an_arrival_at_an_idle_line_bypasses_only_an_empty_queue_that_would_admit_it() {
        let mut q = fcfs(BufferLimit::Packets(5));
        assert!(q.bypass(&pkt(0, 0, 1000)), "empty: the queue and dequeue at once would leave nothing");
        with_ctx(|ctx| q.enqueue(pkt(0, 0, 1000), ctx));
        assert!(!q.bypass(&pkt(0, 1, 1000)), "a packet waits: it goes first");
        // a byte buffer smaller than the packet drops it: so must a bypass
        assert!(!fcfs(BufferLimit::Bytes(500)).bypass(&pkt(0, 0, 1000)));
        assert!(fcfs(BufferLimit::Bytes(1000)).bypass(&pkt(0, 0, 1000)));
    }
}
