//! LIFO with drop-tail: the newest packet goes first; when the buffer is full the arriving
//! packet is refused.
//!
//! Reference: last-come, first-served service, L. Kleinrock, *Queueing Systems, Volume 1:
//! Theory*, Wiley 1975, §3.1 (the order of service among the classical disciplines). It is here
//! as the Rust port of the extending tutorial's Python discipline (docs/extending.md): the two
//! give identical results, which the tests check. Deviations: none (a non-preemptive LCFS: the
//! packet on the line finishes). Choices left open: the overflow policy, drop-tail as the
//! built-in `fcfs` has it, with the limit in packets or bytes (the port's `buffer`).

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};

/// LIFO takes no parameters of its own: its limit is the port's `buffer`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LifoConfig {}

pub struct Lifo {
    queue: Fifo,
    limit: BufferLimit,
}

impl Qdisc for Lifo {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        ctx.push_or_drop(&mut self.queue, self.limit, pkt);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.queue.pop_back(ctx.pool)
    }

    fn drained(&self) -> bool {
        self.queue.is_empty() // a stack: nothing else to change
    }

    inspect_store!(queue);
    fn chainable(&self) -> bool {
        true // a stack: its dequeue reads only its packets
    }
}

/// The `lifo` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<LifoConfig> = Declaration {
    about: About {
        name: "lifo",
        summary: "last come, first served with drop-tail (limit in packets or bytes)",
        reference: "Kleinrock, Queueing Systems vol. 1, 1975, §3.1 (LCFS)",
    },
    defaults: || (LifoConfig::default(),),
    build: |_, port: &PortInfo| Ok(Box::new(Lifo { queue: Fifo::default(), limit: port.buffer })),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::discipline::DropReason;
    use crate::qdisc::testing::{pkt, port, with_ctx};

    #[test]
    fn serves_the_newest_first_and_drops_the_arrival_when_full() {
        let mut q = Lifo { queue: Fifo::default(), limit: port(BufferLimit::Packets(3), &[]).buffer };
        let (_, drops) = with_ctx(|ctx| (0..5).for_each(|seq| q.enqueue(pkt(0, seq, 100), ctx)));
        let dropped: Vec<_> = drops.iter().map(|(p, r)| (p.seq, *r)).collect();
        assert_eq!(dropped, vec![(3, DropReason::TailDrop), (4, DropReason::TailDrop)]);
        let (order, _) = with_ctx(|ctx| std::iter::from_fn(|| q.dequeue(ctx)).map(|p| p.seq).collect::<Vec<_>>());
        assert_eq!(order, vec![2, 1, 0]);
        assert_eq!((q.len_packets(), q.len_bytes()), (0, 0));
    }
}
