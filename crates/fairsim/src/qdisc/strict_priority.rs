//! Strict priority: a FIFO per priority band, the most important non-empty band always served
//! first; one drop-tail buffer for all bands.
//!
//! Reference: the IEEE 802.1Q strict-priority transmission selection (clause 8.6.8.1, "a frame
//! ... is selected from the highest-priority queue that has a frame available"), as data-centre
//! switches and Linux's `prio` qdisc (tc-prio(8)) provide it. A packet's band is its header
//! `priority` (a flow's `priority`, or its transport's, BLT's), 0 the most important as in
//! Linux's bands and the `pushout` discipline; priorities beyond the last band go to the last.
//!
//! Choices the sources leave open, made here:
//! - One buffer for all bands (the port's `buffer`). An arrival that does not fit pushes out the
//!   last packet of the least important band less important than its own, as many as it needs
//!   (a drop with reason `push_out`); if there is none it is dropped. So a band never loses a
//!   packet to a less important one, as with Linux's `prio`, whose bands each have their own
//!   queue, while the port keeps one buffer of the given size.
//! - No preemption: the packet on the line finishes.
//! - ACKs carry their data packet's priority (as the sink gives them).
//! - `round_robin`: within a band, connections take turns one packet each instead of FIFO order
//!   (`flow_ring`), as a data-centre host's interface in htsim (`FairPriorityQueue`) serves its
//!   flows; a push-out then takes the last packet of the connection that would be served last.

use super::discipline::QdiscDeclaration;
use super::discipline::{DropReason, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use super::flow_ring::FlowRing;
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketPool};
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StrictPriorityConfig {
    /// How many bands (1 to 256); band 0 is served first.
    pub bands: u32,
    /// Within a band, connections take turns one packet each (htsim's host interface), instead
    /// of first come, first served.
    pub round_robin: bool,
}

impl Default for StrictPriorityConfig {
    fn default() -> Self {
        StrictPriorityConfig { bands: 8, round_robin: false }
    }
}

/// One band's packets: in arrival order, or by connection in turn.
enum Band {
    Fifo(Fifo),
    Ring(FlowRing),
}

impl Band {
    fn push(&mut self, pkt: Packet, pool: &mut PacketPool) {
        match self {
            Band::Fifo(q) => q.push(pkt, pool),
            Band::Ring(r) => r.push(pkt, pool),
        }
    }

    fn pop(&mut self, pool: &mut PacketPool) -> Option<Packet> {
        match self {
            Band::Fifo(q) => q.pop(pool),
            Band::Ring(r) => r.pop(pool),
        }
    }

    fn pop_last(&mut self, pool: &mut PacketPool) -> Option<Packet> {
        match self {
            Band::Fifo(q) => q.pop_back(pool),
            Band::Ring(r) => r.pop_last(pool),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Band::Fifo(q) => q.is_empty(),
            Band::Ring(r) => r.is_empty(),
        }
    }

    fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        match self {
            Band::Fifo(q) => q.for_each_packet(pool, f),
            Band::Ring(r) => r.for_each_packet(pool, f),
        }
    }
}

pub struct StrictPriority {
    bands: Vec<Band>,
    limit: BufferLimit,
    packets: usize,
    bytes: u64,
}

impl Qdisc for StrictPriority {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let band = (pkt.priority as usize).min(self.bands.len() - 1);
        let room = ctx.room(self.limit);
        while !room.admits(self.packets, self.bytes, pkt.size) {
            let Some(victim) = self.bands[band + 1..].iter_mut().rev().find(|b| !b.is_empty()) else {
                ctx.drop(pkt, DropReason::TailDrop);
                return;
            };
            let out = victim.pop_last(ctx.pool).expect("a band that is not empty");
            self.packets -= 1;
            self.bytes -= out.size as u64;
            ctx.drop(out, DropReason::PushOut);
        }
        self.bands[band].push(pkt, ctx.pool);
        self.packets += 1;
        self.bytes += pkt.size as u64;
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let pkt = self.bands.iter_mut().find(|b| !b.is_empty())?.pop(ctx.pool)?;
        self.packets -= 1;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    fn bypass(&self, pkt: &Packet) -> bool {
        self.packets == 0 && self.limit.admits(0, 0, pkt.size)
    }

    fn drained(&self) -> bool {
        self.packets == 0
    }

    fn chainable(&self) -> bool {
        true // its dequeue reads only its own bands, draws and drops nothing
    }

    fn len_packets(&self) -> usize {
        self.packets
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.bands.iter().for_each(|b| b.for_each_packet(pool, f));
    }
}

/// The `strict_priority` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<StrictPriorityConfig> = Declaration {
    about: About {
        name: "strict_priority",
        summary: "a FIFO per priority band, the most important non-empty band first; one buffer, the least important pushed out",
        reference: "IEEE 802.1Q strict priority selection; Linux tc-prio(8)",
    },
    defaults: || (StrictPriorityConfig::default(),),
    build: |(c,), port: &PortInfo| {
        if !(1..=256).contains(&c.bands) {
            return Err(crate::params::ParamError::at("bands", "must be 1 to 256"));
        }
        let band = || if c.round_robin { Band::Ring(FlowRing::default()) } else { Band::Fifo(Fifo::default()) };
        let bands = (0..c.bands).map(|_| band()).collect();
        Ok(Box::new(StrictPriority { bands, limit: port.buffer, packets: 0, bytes: 0 }))
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{pkt, port, with_ctx};

    fn prio(seq: u64, priority: u8) -> Packet {
        Packet { priority, ..pkt(0, seq, 100) }
    }

    #[test]
    fn the_most_important_band_goes_first_and_fifo_within_a_band() {
        let mut q = three_bands(5);
        // priorities beyond the last band (2) join it
        let arrivals = [(0, 2), (1, 0), (2, 7), (3, 1), (4, 0)];
        let (_, drops) = with_ctx(|ctx| arrivals.iter().for_each(|&(s, p)| q.enqueue(prio(s, p), ctx)));
        assert!(drops.is_empty());
        assert_eq!((q.len_packets(), q.len_bytes()), (5, 500));
        let (order, _) = with_ctx(|ctx| std::iter::from_fn(|| q.dequeue(ctx)).map(|p| p.seq).collect::<Vec<_>>());
        assert_eq!(order, vec![1, 4, 3, 0, 2]);
        assert!(q.drained());
    }

    #[test]
    fn a_full_buffer_pushes_out_the_least_important_never_a_more_important() {
        let mut q = three_bands(3);
        let (_, drops) = with_ctx(|ctx| {
            [(0, 1), (1, 2), (2, 2)].iter().for_each(|&(s, p)| q.enqueue(prio(s, p), ctx));
            q.enqueue(prio(3, 0), ctx); // pushes out band 2's last, 2
            q.enqueue(prio(4, 1), ctx); // pushes out band 2's last, 1
            q.enqueue(prio(5, 1), ctx); // nothing less important left: dropped
        });
        let dropped: Vec<_> = drops.iter().map(|(p, r)| (p.seq, *r)).collect();
        assert_eq!(dropped, vec![(2, DropReason::PushOut), (1, DropReason::PushOut), (5, DropReason::TailDrop)]);
        let (order, _) = with_ctx(|ctx| std::iter::from_fn(|| q.dequeue(ctx)).map(|p| p.seq).collect::<Vec<_>>());
        assert_eq!(order, vec![3, 0, 4]);
    }

    #[test]
    fn with_round_robin_connections_take_turns_within_a_band() {
        let info = port(BufferLimit::Unlimited, &[]);
        let mut q =
            (DECLARATION.build)(&mut (StrictPriorityConfig { bands: 2, round_robin: true },), &info).ok().unwrap();
        let data = |conn: u32, seq: u64| Packet { conn: crate::net::FlowId(conn), priority: 1, ..pkt(conn, seq, 100) };
        let control = Packet { conn: crate::net::FlowId(9), priority: 0, ..pkt(9, 0, 64) };
        with_ctx(|ctx| {
            [data(1, 0), data(1, 1), data(2, 0), control, data(2, 1)].into_iter().for_each(|p| q.enqueue(p, ctx))
        });
        let (order, _) =
            with_ctx(|ctx| std::iter::from_fn(|| q.dequeue(ctx)).map(|p| (p.conn.0, p.seq)).collect::<Vec<_>>());
        assert_eq!(order, vec![(9, 0), (1, 0), (2, 0), (1, 1), (2, 1)]);
    }

    fn three_bands(buffer: u64) -> StrictPriority {
        StrictPriority {
            bands: (0..3).map(|_| Band::Fifo(Fifo::default())).collect(),
            limit: port(BufferLimit::Packets(buffer), &[]).buffer,
            packets: 0,
            bytes: 0,
        }
    }
}
