//! Switches whose output queues share one buffer, each queue limited by a dynamic threshold.
//!
//! Reference: A. K. Choudhury and E. L. Hahne, "Dynamic Queue Length Thresholds for
//! Shared-Memory Packet Switches", IEEE/ACM ToN 6(2), 1998: a queue may take a packet only while
//! it is below T(t) = α·(B − Q(t)), B the buffer and Q(t) what all the switch's queues hold. With
//! S queues saturated, each settles at α·B/(1 + α·S), and B/(1 + α·S) stays free for a queue
//! that starts to fill.
//!
//! Choices the paper leaves open, made here:
//! - Counted in bytes, and a packet is taken if the queue *with it* stays within T and the
//!   buffer has room for it (the paper counts cells, of one size, and compares before arrival).
//! - A queue is what waits at a port: the packet on the line is not in the buffer (as a port's
//!   own `buffer` counts it), and a packet that goes straight to an idle line takes none.
//! - The threshold acts as a limit on the port's discipline, beside the port's own `buffer`:
//!   every built-in discipline checks its buffer through `QdiscCtx::room`, which includes it, so
//!   a refusal is the discipline's own drop (drop-tail's `tail_drop`, FQ's largest bid, ...).

use crate::net::PortId;
use crate::scenario::Scenario;

pub(super) struct SharedBuffers {
    pools: Vec<Pool>,
    /// Each scenario port's pool (`NONE`: the port keeps its own buffer only).
    pool_of: Vec<u32>,
}

struct Pool {
    size: u64,
    alpha: f64,
    /// Bytes its queues hold.
    used: u64,
}

const NONE: u32 = u32::MAX;

impl SharedBuffers {
    /// The shared buffers of `scenario`'s switches, if it has any: one per switch, over the
    /// ports from it.
    pub fn new(scenario: &Scenario) -> Option<Box<SharedBuffers>> {
        let spec = scenario.shared_buffer.as_ref()?;
        // each switch's pool by node, then each port's by the node it leaves (one pass each)
        let mut pool_of_node = vec![NONE; scenario.nodes.len()];
        let mut pools = vec![];
        for &n in &spec.nodes {
            if pool_of_node[n.idx()] == NONE {
                pool_of_node[n.idx()] = pools.len() as u32;
                pools.push(Pool { size: spec.size, alpha: spec.alpha, used: 0 });
            }
        }
        let pool_of = scenario.ports.iter().map(|port| pool_of_node[port.from.idx()]).collect();
        Some(Box::new(SharedBuffers { pools, pool_of }))
    }

    /// The most bytes port `p`'s queue may hold now, given that it holds `queued`: within its
    /// threshold, and within what the buffer has free; `None` if `p` has no shared buffer.
    #[inline]
    pub fn share(&self, p: PortId, queued: u64) -> Option<u64> {
        let pool = &self.pools[*self.pool_of.get(p.idx()).filter(|&&i| i != NONE)? as usize];
        let free = pool.size.saturating_sub(pool.used);
        Some(((pool.alpha * free as f64) as u64).min(queued + free))
    }

    /// Port `p`'s queue went from `before` to `after` bytes.
    #[inline]
    pub fn changed(&mut self, p: PortId, before: u64, after: u64) {
        if let Some(&i) = self.pool_of.get(p.idx()).filter(|&&i| i != NONE) {
            let pool = &mut self.pools[i as usize];
            pool.used = pool.used + after - before;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(size: u64, alpha: f64) -> SharedBuffers {
        SharedBuffers { pools: vec![Pool { size, alpha, used: 0 }], pool_of: vec![0, 0, NONE] }
    }

    #[test]
    fn saturated_queues_settle_where_the_paper_says() {
        // two queues filled one packet at a time while they may: each stops at
        // α·B/(1 + 2α) = 100,000/3 bytes with α = 1, B = 100,000
        let mut b = pool(100_000, 1.0);
        let mut q = [0u64; 2];
        let mut grew = true;
        while grew {
            grew = false;
            for (p, bytes) in q.iter_mut().enumerate() {
                let share = b.share(PortId::from_idx(p), *bytes).unwrap();
                if *bytes + 100 <= share {
                    b.changed(PortId::from_idx(p), *bytes, *bytes + 100);
                    *bytes += 100;
                    grew = true;
                }
            }
        }
        assert!(q.iter().all(|&x| (33_200..=33_400).contains(&x)), "{q:?}");
        assert_eq!(b.share(PortId(2), 0), None, "a port outside the pool");
        // alone, a queue reaches α·B/(1 + α) = B/2; with α = 4, 4B/5
        for (alpha, want) in [(1.0, 50_000), (4.0, 80_000)] {
            let mut b = pool(100_000, alpha);
            let mut bytes = 0;
            while bytes + 100 <= b.share(PortId(0), bytes).unwrap() {
                b.changed(PortId(0), bytes, bytes + 100);
                bytes += 100;
            }
            assert!((want - 100..=want).contains(&bytes), "α {alpha}: {bytes}");
        }
    }
}
