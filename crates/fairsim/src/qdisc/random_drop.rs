//! Random Drop: FCFS service; on overflow, a packet chosen uniformly at random is dropped.
//!
//! Reference: Random Drop as discussed by Demers, Keshav & Shenker, SIGCOMM 1989, §5 (after
//! Mankin and Hashem): "when the buffer overflows, the packet to drop is chosen at random".
//! Choice left open by the paper: whether the arriving packet is a candidate. Here it is, with
//! the same probability as every queued packet (so a full queue of n packets plus the arrival
//! loses each with probability 1/(n+1)). With a byte limit, victims are drawn until the queue fits.

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, DropReason, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::units::BufferLimit;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Random Drop takes no parameters of its own: its limit is the port's `buffer`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RandomDropConfig {}

pub struct RandomDrop {
    queue: Fifo,
    limit: BufferLimit,
}

impl RandomDrop {
    pub fn new(_config: RandomDropConfig, port: &PortInfo) -> Self {
        RandomDrop { queue: Fifo::default(), limit: port.buffer }
    }
}

impl Qdisc for RandomDrop {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        self.queue.push(pkt, ctx.pool);
        while ctx.room(self.limit).exceeded(self.queue.len(), self.queue.bytes()) {
            let victim = ctx.rng().random_range(0..self.queue.len());
            let dropped = self.queue.remove(victim, ctx.pool).expect("index in range");
            ctx.drop(dropped, DropReason::RandomDrop);
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.queue.pop(ctx.pool)
    }

    fn drained(&self) -> bool {
        self.queue.is_empty() // a FIFO
    }

    inspect_store!(queue);
    fn chainable(&self) -> bool {
        true // a FIFO: it draws and drops only for arrivals
    }
}

/// The `random_drop` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<RandomDropConfig> = Declaration {
    about: About {
        name: "random_drop",
        summary: "FCFS that drops a uniformly chosen packet when the buffer overflows",
        reference: "Random Drop as discussed by Demers, Keshav & Shenker 1989, section 5",
    },
    defaults: || (RandomDropConfig::default(),),
    build: |(c,), port| Ok(Box::new(RandomDrop::new(c.clone(), port))),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{pkt, with_ctx};
    use crate::units::Rate;

    #[test]
    fn overflow_victims_are_uniform_over_queue_and_arrival() {
        // A full queue of 4 receives one more packet, many times over; each of the 5 positions
        // should be the victim about a fifth of the time.
        let mut hits = [0u32; 5];
        let trials = 20_000;
        let mut rng = crate::rng::LazyStream::new(3, "rd");
        for _ in 0..trials {
            let mut q =
                RandomDrop::new(RandomDropConfig {}, &crate::qdisc::testing::port(BufferLimit::Packets(4), &[]));
            let mut drops = vec![];
            let mut marks = 0;
            let mut pool = crate::net::PacketPool::standalone();
            let mut ctx = QdiscCtx::new(crate::units::Time::ZERO, Rate(1), &mut rng, &mut drops, &mut marks, &mut pool);
            for seq in 0..5 {
                q.enqueue(pkt(0, seq, 100), &mut ctx);
            }
            assert_eq!(drops.len(), 1);
            assert_eq!(drops[0].1, DropReason::RandomDrop);
            hits[drops[0].0.seq as usize] += 1;
            assert_eq!(q.len_packets(), 4);
        }
        for h in hits {
            let share = h as f64 / trials as f64;
            assert!((share - 0.2).abs() < 0.015, "victim shares {hits:?}");
        }
    }

    #[test]
    fn no_drop_below_the_limit_and_fifo_service() {
        let mut q = RandomDrop::new(RandomDropConfig {}, &crate::qdisc::testing::port(BufferLimit::Packets(3), &[]));
        let ((), drops) = with_ctx(|ctx| (0..3).for_each(|s| q.enqueue(pkt(0, s, 10), ctx)));
        assert!(drops.is_empty());
        let (order, _) = with_ctx(|ctx| std::iter::from_fn(|| q.dequeue(ctx)).map(|p| p.seq).collect::<Vec<_>>());
        assert_eq!(order, vec![0, 1, 2]);
    }
}
