//! Queueing disciplines: the `Qdisc` trait, its context, and the registry of disciplines.
//!
//! The contract follows Linux's `Qdisc_ops` and ns-3's `QueueDisc`: `enqueue` may refuse the
//! arriving packet or drop packets already queued (every drop goes to the context with a reason),
//! `dequeue` hands the transmitter its next packet. A discipline knows nothing of transports.

mod fcfs;
pub mod fifo;
mod random_drop;

pub use fcfs::{Fcfs, FcfsConfig};
pub use random_drop::{RandomDrop, RandomDropConfig};

use crate::engine::rng::SimRng;
use crate::net::Packet;
use crate::params::{parse_params, Built, Params};
use crate::units::{BufferLimit, Rate, Time};
use serde::Serialize;

/// Why a packet was dropped. Reported per flow and per queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The buffer was full and the arriving packet was refused.
    TailDrop,
    /// The buffer overflowed and a queued or arriving packet chosen at random was dropped.
    RandomDrop,
    /// The buffer overflowed and the last packet of the longest conversation was dropped.
    LongestQueue,
    /// An active queue manager dropped the packet before the buffer was full.
    Early,
}

impl DropReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::TailDrop => "tail_drop",
            DropReason::RandomDrop => "random_drop",
            DropReason::LongestQueue => "longest_queue",
            DropReason::Early => "early",
        }
    }
}

/// What a discipline may see and do while handling a packet.
pub struct QdiscCtx<'a> {
    pub now: Time,
    /// The rate of the line this queue feeds.
    pub rate: Rate,
    /// The discipline's own random stream.
    pub rng: &'a mut SimRng,
    drops: &'a mut Vec<(Packet, DropReason)>,
}

impl<'a> QdiscCtx<'a> {
    pub fn new(now: Time, rate: Rate, rng: &'a mut SimRng, drops: &'a mut Vec<(Packet, DropReason)>) -> Self {
        QdiscCtx { now, rate, rng, drops }
    }

    /// Drops `pkt`; the engine attributes it to its flow and to this queue.
    pub fn drop(&mut self, pkt: Packet, reason: DropReason) {
        self.drops.push((pkt, reason));
    }
}

pub trait Qdisc: Send + Sync {
    /// Accept or refuse `pkt`; may also drop packets already queued.
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx);
    /// The next packet to put on the line, if any.
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// Visits every queued packet (end-of-run accounting and tests; not on the hot path).
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet));
}

/// What a discipline is built from: its resolved parameters and the port it serves.
pub struct PortInfo {
    pub buffer: BufferLimit,
    pub rate: Rate,
}

/// A registered discipline.
pub struct QdiscKind {
    pub name: &'static str,
    pub summary: &'static str,
    pub reference: &'static str,
    /// Validates `params`, returning the discipline and its parameters with defaults filled in.
    pub build: fn(&Params, &PortInfo) -> Built<dyn Qdisc>,
}

/// Builds a discipline whose typed config `C` has serde defaults.
fn build_with<C, Q>(params: &Params, port: &PortInfo, make: fn(C, &PortInfo) -> Q) -> Built<dyn Qdisc>
where
    C: serde::de::DeserializeOwned + Serialize + Clone,
    Q: Qdisc + 'static,
{
    let (config, resolved) = parse_params::<C>(params)?;
    Ok((Box::new(make(config, port)), resolved))
}

pub static QDISCS: &[QdiscKind] = &[
    QdiscKind {
        name: "fcfs",
        summary: "first come, first served with drop-tail (limit in packets or bytes)",
        reference: "the baseline of Demers, Keshav & Shenker 1989",
        build: |p, port| build_with(p, port, Fcfs::new),
    },
    QdiscKind {
        name: "random_drop",
        summary: "FCFS that drops a uniformly chosen packet when the buffer overflows",
        reference: "Random Drop as discussed by Demers, Keshav & Shenker 1989, section 5",
        build: |p, port| build_with(p, port, RandomDrop::new),
    },
];

pub fn find(name: &str) -> Option<&'static QdiscKind> {
    QDISCS.iter().find(|k| k.name == name)
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for discipline tests: packets and a context with a throw-away drop list.
    use super::*;
    use crate::net::{FlowId, NodeId, PacketKind};

    pub fn pkt(flow: u32, seq: u64, size: u32) -> Packet {
        Packet {
            id: seq,
            flow: FlowId(flow),
            kind: PacketKind::Data,
            seq,
            size,
            src: NodeId(0),
            dst: NodeId(1),
            sent_at: Time::ZERO,
            echo_sent_at: Time::ZERO,
            echo_seq: 0,
            enqueued_at: Time::ZERO,
            hop: 0,
            congestion: false,
            retransmission: false,
            priority: 0,
            label: 0.0,
        }
    }

    /// Runs `f` with a context; returns what it returned and the packets it dropped.
    pub fn with_ctx<R>(f: impl FnOnce(&mut QdiscCtx) -> R) -> (R, Vec<(Packet, DropReason)>) {
        let mut rng = crate::engine::rng::stream(7, "test");
        let mut drops = vec![];
        let r = f(&mut QdiscCtx::new(Time::ZERO, Rate(1_000_000), &mut rng, &mut drops));
        (r, drops)
    }
}
