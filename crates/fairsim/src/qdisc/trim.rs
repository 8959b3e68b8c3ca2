//! Packet trimming: a data queue that, when full, cuts a data packet to its header instead of
//! dropping it, and a header queue served ahead of it, so the receiver learns at once what was
//! lost (NDP's switch).
//!
//! Reference: Handley, Raiciu, Agache, Voinescu, Moore, Antichi and Wójcik, "Re-architecting
//! datacenter networks and stacks for low latency and high performance", SIGCOMM 2017 (NDP):
//! the switch keeps a short data queue and a header queue; when the data queue is full it trims
//! the arriving packet or the last queued one, with equal probability so that no flow is
//! trimmed by phase; headers and control packets go to the header queue, which a weighted round
//! robin serves ahead of the data queue. htsim's `CompositeQueue` (Broadcom/csg-htsim 841d9e7,
//! `sim/compositequeue.cpp`), against which fairsim's NDP is validated, is the model for the
//! defaults.
//!
//! Choices, and where the paper and htsim differ (docs/algorithms.md, "trim"):
//! - The data queue's limit is the port's `buffer` (with `buffer_includes_line`, the packet on
//!   the line takes a place, as in htsim). The header queue has its own limit, `header_buffer`,
//!   by default twice the port's buffer (htsim: 2 × the data queue's bytes). The paper's
//!   switch holds 8 data packets and 8 headers.
//! - A header that does not fit is dropped (`queue_full`). The paper returns it to its sender
//!   with source and destination swapped; htsim, whose header queue is large, drops it, and so
//!   does fairsim (left out: no return to sender).
//! - `header_weight` headers are served for each data packet while both queues wait: htsim's
//!   100,000 (`_ratio_high`), next to strict priority; the authors' description gives 10.
//! - Trimming keeps every field of the packet but its size (`header` bytes, 64 by default, as
//!   htsim's `ACKSIZE`); a packet's receiver sees `Packet::trimmed`. Only data packets are
//!   trimmed; ACKs and control packets are headers already.
//! - When the tail is chosen and the arrival still does not fit (packets of unequal sizes), the
//!   arrival is trimmed too. htsim queues it regardless.
//! - ECN marking in the trimming queue (htsim's `COMPOSITE_ECN`) is left out.

use super::discipline::{DropReason, PortInfo, Qdisc, QdiscCtx, QdiscDeclaration};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketPool};
use crate::params::ParamError;
use crate::units::{BufferLimit, Bytes};
use rand::Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TrimConfig {
    /// The size a trimmed packet keeps: its headers.
    pub header: Bytes,
    /// The header queue's limit; absent: twice the port's buffer (htsim's).
    pub header_buffer: Option<BufferLimit>,
    /// The probability that a full data queue trims its last queued packet and takes the
    /// arrival in its place, rather than trimming the arrival.
    pub tail_probability: f64,
    /// Headers served for each data packet while both queues wait.
    pub header_weight: u32,
}

impl Default for TrimConfig {
    fn default() -> Self {
        TrimConfig { header: Bytes(64), header_buffer: None, tail_probability: 0.5, header_weight: 100_000 }
    }
}

pub struct Trim {
    data: Fifo,
    headers: Fifo,
    limit: BufferLimit,
    header_limit: BufferLimit,
    header: u32,
    tail_probability: f64,
    header_weight: u32,
    /// Headers served in a row while data waited.
    streak: u32,
}

impl Trim {
    fn push_header(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        if self.header_limit.admits(self.headers.len(), self.headers.bytes(), pkt.size) {
            self.headers.push(pkt, ctx.pool);
        } else {
            ctx.drop(pkt, DropReason::QueueFull);
        }
    }

    fn fits(&self, ctx: &QdiscCtx, pkt: &Packet) -> bool {
        ctx.room(self.limit).admits(self.data.len(), self.data.bytes(), pkt.size)
    }
}

impl Qdisc for Trim {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QdiscCtx) {
        if !pkt.is_data() || pkt.trimmed() {
            return self.push_header(pkt, ctx);
        }
        if self.fits(ctx, &pkt) {
            return self.data.push(pkt, ctx.pool);
        }
        if !self.data.is_empty() && ctx.rng().random::<f64>() < self.tail_probability {
            let mut tail = self.data.pop_back(ctx.pool).expect("a data queue that is not empty");
            ctx.trim(&mut tail, self.header);
            self.push_header(tail, ctx);
            if self.fits(ctx, &pkt) {
                return self.data.push(pkt, ctx.pool);
            }
        }
        ctx.trim(&mut pkt, self.header);
        self.push_header(pkt, ctx);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let data_waits = !self.data.is_empty();
        if !self.headers.is_empty() && (!data_waits || self.streak < self.header_weight) {
            self.streak += data_waits as u32;
            return self.headers.pop(ctx.pool);
        }
        self.streak = 0;
        self.data.pop(ctx.pool)
    }

    fn drained(&self) -> bool {
        self.data.is_empty() && self.headers.is_empty()
    }

    fn bypass(&self, pkt: &Packet) -> bool {
        // the line is idle and both queues empty: the packet would be queued and leave at once,
        // leaving the turn counter as it is only if it is 0 (a data packet resets it; a tail
        // trim can empty the data queue while headers had the turn)
        let limit = if !pkt.is_data() || pkt.trimmed() { self.header_limit } else { self.limit };
        self.streak == 0 && self.data.is_empty() && self.headers.is_empty() && limit.admits(0, 0, pkt.size)
    }

    fn chainable(&self) -> bool {
        true // its dequeue reads only its own queues and turn counter, draws and drops nothing
    }

    fn len_packets(&self) -> usize {
        self.data.len() + self.headers.len()
    }

    fn len_bytes(&self) -> u64 {
        self.data.bytes() + self.headers.bytes()
    }

    fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.headers.for_each_packet(pool, f);
        self.data.for_each_packet(pool, f);
    }
}

/// Twice `limit`: htsim's header queue next to a data queue of `limit`.
fn doubled(limit: BufferLimit) -> BufferLimit {
    match limit {
        BufferLimit::Packets(n) => BufferLimit::Packets(2 * n),
        BufferLimit::Bytes(n) => BufferLimit::Bytes(2 * n),
        BufferLimit::Unlimited => BufferLimit::Unlimited,
    }
}

/// The `trim` discipline, as scenarios name it.
/// The discipline's name in scenarios: validation refuses a transport that cannot use a trimmed
/// header where it is, and a receiver-driven one where it is nowhere.
pub const NAME: &str = "trim";

pub static DECLARATION: QdiscDeclaration<TrimConfig> = Declaration {
    about: About {
        name: NAME,
        summary: "packet trimming: a full data queue cuts a packet to its header, headers served first (NDP's switch)",
        reference: "Handley et al., SIGCOMM 2017 (NDP); htsim's CompositeQueue",
    },
    defaults: || (TrimConfig::default(),),
    build: |(c,), port: &PortInfo| {
        if !(0.0..=1.0).contains(&c.tail_probability) {
            return Err(ParamError::at("tail_probability", "must be between 0 and 1"));
        }
        if c.header_weight == 0 {
            return Err(ParamError::at("header_weight", "must be at least 1: headers are served first"));
        }
        let header = u32::try_from(c.header.0)
            .ok()
            .filter(|&h| h > 0)
            .ok_or_else(|| ParamError::at("header", "must be at least one byte and below 4 GB"))?;
        Ok(Box::new(Trim {
            data: Fifo::default(),
            headers: Fifo::default(),
            limit: port.buffer,
            header_limit: c.header_buffer.unwrap_or_else(|| doubled(port.buffer)),
            header,
            tail_probability: c.tail_probability,
            header_weight: c.header_weight,
            streak: 0,
        }))
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;
    use crate::qdisc::testing::{pkt, with_ctx};

    fn trim(data: u64, tail_probability: f64, header_weight: u32) -> Trim {
        Trim {
            data: Fifo::default(),
            headers: Fifo::default(),
            limit: BufferLimit::Packets(data),
            header_limit: BufferLimit::Packets(2 * data),
            header: 64,
            tail_probability,
            header_weight,
            streak: 0,
        }
    }

    fn drain(q: &mut Trim) -> Vec<(u64, u32, bool)> {
        with_ctx(|ctx| std::iter::from_fn(|| q.dequeue(ctx)).map(|p| (p.seq, p.size, p.trimmed())).collect()).0
    }

    #[test]
    fn a_full_data_queue_trims_the_arrival_and_its_header_goes_first() {
        let mut q = trim(2, 0.0, 100_000);
        let (_, drops) = with_ctx(|ctx| (0..4).for_each(|s| q.enqueue(pkt(0, s, 9064), ctx)));
        assert!(drops.is_empty(), "trimmed, never dropped");
        // 2 and 3 found the queue full: cut to 64 bytes and served ahead of 0 and 1
        assert_eq!(drain(&mut q), vec![(2, 64, true), (3, 64, true), (0, 9064, false), (1, 9064, false)]);
    }

    #[test]
    fn the_tail_is_trimmed_instead_when_drawn() {
        let mut q = trim(2, 1.0, 100_000);
        with_ctx(|ctx| (0..4).for_each(|s| q.enqueue(pkt(0, s, 9064), ctx)));
        // 2 trims 1 and takes its place; 3 trims 2 and takes its place
        assert_eq!(drain(&mut q), vec![(1, 64, true), (2, 64, true), (0, 9064, false), (3, 9064, false)]);
    }

    #[test]
    fn half_the_trims_take_the_tail() {
        let mut q = trim(1, 0.5, 100_000);
        let mut tails = 0;
        with_ctx(|ctx| {
            for s in 0..2000 {
                q.enqueue(pkt(0, 2 * s, 9064), ctx);
                q.enqueue(pkt(0, 2 * s + 1, 9064), ctx);
                let out: Vec<Packet> = std::iter::from_fn(|| q.dequeue(ctx)).collect();
                let header = out.iter().find(|p| p.trimmed()).unwrap();
                tails += (header.seq == 2 * s) as u32;
            }
        });
        assert!((900..1100).contains(&tails), "{tails} of 2000 trims took the tail");
    }

    #[test]
    fn acks_wait_in_the_header_queue_and_data_gets_one_turn_in_header_weight() {
        let mut q = trim(10, 0.0, 3);
        let ack = |s| pkt(1, s, 64).with_kind(PacketKind::Ack);
        with_ctx(|ctx| {
            (0..2).for_each(|s| q.enqueue(pkt(0, s, 1000), ctx));
            (10..17).for_each(|s| q.enqueue(ack(s), ctx));
        });
        let order: Vec<u64> = drain(&mut q).iter().map(|p| p.0).collect();
        assert_eq!(order, vec![10, 11, 12, 0, 13, 14, 15, 1, 16]);
    }

    #[test]
    fn a_full_header_queue_drops() {
        let mut q = trim(1, 0.0, 100_000);
        let (_, drops) = with_ctx(|ctx| (0..3).for_each(|s| q.enqueue(pkt(0, s, 9064), ctx)));
        assert!(drops.is_empty());
        let (_, drops) = with_ctx(|ctx| q.enqueue(pkt(0, 3, 9064), ctx));
        let dropped: Vec<_> = drops.iter().map(|(p, r)| (p.seq, p.size, *r)).collect();
        assert_eq!(dropped, vec![(3, 64, DropReason::QueueFull)], "trimmed, then found no room");
        assert_eq!((q.len_packets(), q.len_bytes()), (3, 9064 + 2 * 64));
    }
}
