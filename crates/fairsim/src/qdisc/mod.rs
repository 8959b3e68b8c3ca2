//! Queueing disciplines: the `Qdisc` trait, its context, and the registry of disciplines.
//!
//! The contract follows Linux's `Qdisc_ops` and ns-3's `QueueDisc`: `enqueue` may refuse the
//! arriving packet or drop packets already queued (every drop goes to the context with a reason),
//! `dequeue` hands the transmitter its next packet. A discipline knows nothing of transports.

pub mod classify;
pub mod codel;
pub mod csfq;
mod decbit;
mod drr;
mod fcfs;
pub mod fifo;
pub mod fq;
pub mod fq_codel;
pub mod fred;
pub mod logged;
mod longest;
mod loss_list;
mod nagle;
pub mod perconv;
mod pie;
mod pushout;
mod random_drop;
pub mod red;
pub mod replay;
pub mod round_robin;
mod scfq;
mod sfq;
pub mod tagged;
mod virtual_clock;
mod wf2q;

pub use csfq::{Csfq, CsfqConfig};
pub use decbit::{DecbitGateway, DecbitGatewayConfig};
pub use drr::{drr, DrrConfig};
pub use fcfs::{Fcfs, FcfsConfig};
pub use fq::{Fq, FqConfig};
pub use fred::{Fred, FredConfig};
pub use loss_list::{LossList, LossListConfig};
pub use nagle::{nagle, NagleConfig};
pub use random_drop::{RandomDrop, RandomDropConfig};
pub use red::{Red, RedConfig};
pub use round_robin::RoundRobin;
pub use scfq::{Scfq, ScfqConfig};
pub use sfq::{sfq, SfqConfig};
pub use virtual_clock::{VirtualClock, VirtualClockConfig};
pub use wf2q::{Wf2q, Wf2qConfig};

use crate::component::{Declaration, Kind};
use crate::net::{FlowId, NodeId, Packet, PacketKind};
use crate::rng::SimRng;
use crate::units::{BufferLimit, Rate, Time};
use serde::Serialize;
use std::sync::Arc;

/// Why a packet was dropped. Reported per flow and per queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The buffer was full and the arriving packet was refused.
    TailDrop,
    /// The buffer overflowed and a queued or arriving packet chosen at random was dropped.
    RandomDrop,
    /// The buffer overflowed and a packet of the longest conversation was dropped (its last;
    /// FQ-CoDel: from the head of the queue with the most bytes).
    LongestQueue,
    /// The buffer overflowed and the packet with the largest tag (bid) was dropped.
    LargestTag,
    /// The packet's own queue (of a discipline with per-queue limits) was full.
    QueueFull,
    /// An active queue manager dropped the packet before the buffer was full.
    Early,
    /// Dropped on purpose (the `loss_list` discipline).
    Injected,
    /// The packet's flow held more than its share of the buffer (FRED's non-adaptive flows).
    FlowLimit,
    /// A queued packet pushed out by a more important arrival (BLT's switch).
    PushOut,
    /// Lost on the wire after its transmission, by the link's loss model (`node::loss`), not
    /// by the discipline.
    Loss,
}

impl DropReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::TailDrop => "tail_drop",
            DropReason::RandomDrop => "random_drop",
            DropReason::LongestQueue => "longest_queue",
            DropReason::LargestTag => "largest_tag",
            DropReason::QueueFull => "queue_full",
            DropReason::Early => "early",
            DropReason::Injected => "injected",
            DropReason::FlowLimit => "flow_limit",
            DropReason::PushOut => "push_out",
            DropReason::Loss => "loss",
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
    marks: &'a mut u64,
    /// Size of the packet on the line when it takes one of the buffer's places (ports with
    /// `buffer_includes_line`); `None` otherwise.
    line: Option<u32>,
}

impl<'a> QdiscCtx<'a> {
    pub fn new(
        now: Time,
        rate: Rate,
        rng: &'a mut SimRng,
        drops: &'a mut Vec<(Packet, DropReason)>,
        marks: &'a mut u64,
    ) -> Self {
        QdiscCtx { now, rate, rng, drops, marks, line: None }
    }

    /// The packet on the line (of `size` bytes) takes one of the buffer's places.
    pub fn with_line(mut self, size: Option<u32>) -> Self {
        self.line = size;
        self
    }

    /// The room a queue has under `limit`: all of it, or what the packet on the line leaves.
    /// Disciplines check their buffer against this when a packet arrives.
    pub fn room(&self, limit: BufferLimit) -> BufferLimit {
        self.line.map_or(limit, |size| limit.less(size))
    }

    /// Drop-tail: queues `pkt` at the tail of `queue` if `limit` leaves room for it, else drops
    /// it. Returns whether it was queued.
    #[inline]
    pub fn push_or_drop(&mut self, queue: &mut fifo::Fifo, limit: BufferLimit, pkt: Packet) -> bool {
        let admitted = self.room(limit).admits(queue.len(), queue.bytes(), pkt.size);
        if admitted {
            queue.push(pkt);
        } else {
            self.drop(pkt, DropReason::TailDrop);
        }
        admitted
    }

    /// Sets the packet's congestion bit (DECbit, FQbit); counted per queue.
    pub fn mark(&mut self, pkt: &mut Packet) {
        if !pkt.congestion {
            pkt.congestion = true;
            *self.marks += 1;
        }
    }

    /// An active queue manager's congestion signal (RFC 3168 §5): with `ecn`, an ECN-capable
    /// packet is marked (CE) and returned to be queued or sent; any other is dropped as an
    /// `early` drop.
    pub fn signal(&mut self, mut pkt: Packet, ecn: bool) -> Option<Packet> {
        if ecn && pkt.ect {
            self.mark(&mut pkt);
            Some(pkt)
        } else {
            self.drop(pkt, DropReason::Early);
            None
        }
    }

    /// How many drops have been reported so far (for `logged`, which writes them down).
    pub fn drop_count(&self) -> usize {
        self.drops.len()
    }

    /// The drops reported from index `from` on.
    pub fn drops_from(&self, from: usize) -> &[(Packet, DropReason)] {
        &self.drops[from..]
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
    /// Figures particular to the discipline (operation counts, internal state), for the report.
    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![]
    }
    /// The state variable that explains the discipline's decisions (CSFQ's α, RED's average
    /// queue), recorded beside the queue length when the port is traced.
    fn gauge(&self) -> Option<(&'static str, f64)> {
        None
    }
    /// What the discipline wrote down of its packets, if it is `logged`.
    fn log(&self) -> Option<&[(Time, logged::PortEvent, Packet)]> {
        None
    }
    /// `pkt`, sent by this discipline, was lost on the wire at `now` (`node::loss`): only a
    /// `logged` discipline writes it down.
    fn record_loss(&mut self, _now: Time, _pkt: &Packet) {}
}

/// Implements the queue-inspection half of `Qdisc` (`len_packets`, `len_bytes`,
/// `for_each_packet`) by asking the packet store in field `$field` (any type with `len`,
/// `bytes` and `for_each_packet`).
macro_rules! inspect_store {
    ($field:ident) => {
        fn len_packets(&self) -> usize {
            self.$field.len()
        }
        fn len_bytes(&self) -> u64 {
            self.$field.bytes()
        }
        fn for_each_packet(&self, f: &mut dyn FnMut(&$crate::net::Packet)) {
            self.$field.for_each_packet(f)
        }
    };
}
pub(crate) use inspect_store;

/// A flow as disciplines see it: for classifying its packets into conversations.
#[derive(Debug, Clone)]
pub struct FlowMeta {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub weight: f64,
    /// Size of its data packets, bytes.
    pub packet_size: u32,
}

/// What a discipline is built from, besides its parameters: the port it serves.
pub struct PortInfo {
    pub buffer: BufferLimit,
    pub rate: Rate,
    /// Every flow of the scenario, by id.
    pub flows: Arc<[FlowMeta]>,
    /// The conversations whose route crosses this port: (flow, data or ACK).
    pub crossing: Vec<(FlowId, PacketKind)>,
    /// Whether `crossing` lists every conversation whose packets reach the port (a scenario's
    /// ports): per-conversation disciplines then keep state for those only
    /// (`classify::Classifier`). Hand-made ports for tests and benchmarks may leave ACKs out.
    pub exact_crossing: bool,
}

impl PortInfo {
    /// The time the line takes to send a full buffer (its largest queueing delay); a buffer in
    /// packets counts the largest data packet crossing the port. `None` if the buffer is unlimited.
    pub fn drain_time(&self) -> Option<Time> {
        let bytes = match self.buffer {
            BufferLimit::Unlimited => return None,
            BufferLimit::Bytes(n) => n,
            BufferLimit::Packets(n) => {
                let largest = self
                    .crossing
                    .iter()
                    .filter(|(_, kind)| *kind == PacketKind::Data)
                    .map(|(f, _)| self.flows[f.idx()].packet_size)
                    .max()
                    .unwrap_or(0);
                n * largest as u64
            }
        };
        Some(Time::from_secs_f64(bytes as f64 * 8.0 / self.rate.0 as f64))
    }
}

/// A discipline's declaration: one configuration, built for a port.
pub type QdiscDeclaration<C> = Declaration<(C,), PortInfo, dyn Qdisc>;

/// A registered discipline.
pub type QdiscKind = dyn Kind<PortInfo, dyn Qdisc>;

/// Every discipline, in the order listings show them; each declares itself in its own file.
pub static QDISCS: &[&QdiscKind] = &[
    &fcfs::DECLARATION,
    &random_drop::DECLARATION,
    &red::DECLARATION,
    &csfq::DECLARATION,
    &fred::DECLARATION,
    &decbit::DECLARATION,
    &decbit::SELECTIVE,
    &loss_list::DECLARATION,
    &fq::DECLARATION,
    &fq::FQBIT,
    &fq::WFQ,
    &scfq::DECLARATION,
    &virtual_clock::DECLARATION,
    &wf2q::DECLARATION,
    &drr::DECLARATION,
    &sfq::DECLARATION,
    &nagle::DECLARATION,
    &pushout::DECLARATION,
    &codel::DECLARATION,
    &fq_codel::DECLARATION,
    &pie::DECLARATION,
];

pub fn find(name: &str) -> Option<&'static QdiscKind> {
    crate::component::find(QDISCS, name)
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for discipline tests: packets and a context with a throw-away drop list.
    use super::*;
    use crate::net::{FlowId, NodeId, PacketKind};

    pub fn pkt(flow: u32, seq: u64, size: u32) -> Packet {
        Packet { id: seq, flow: FlowId(flow), seq, size, dst: NodeId(1), ..Packet::blank() }
    }

    pub fn ack(flow: u32, seq: u64) -> Packet {
        Packet { kind: PacketKind::Ack, size: 40, src: NodeId(1), dst: NodeId(0), ..pkt(flow, seq, 40) }
    }

    /// A port on a 1 Mb/s line with the given buffer, crossed by the data of flows `f0`, `f1`,
    /// ... with the given (source, destination) nodes and weight 1.
    pub fn port(buffer: BufferLimit, flows: &[(u32, u32)]) -> PortInfo {
        let metas: Vec<FlowMeta> = flows
            .iter()
            .enumerate()
            .map(|(i, &(s, d))| FlowMeta {
                name: format!("f{i}"),
                src: NodeId(s),
                dst: NodeId(d),
                weight: 1.0,
                packet_size: 1000,
            })
            .collect();
        let crossing = (0..flows.len()).map(|i| (FlowId(i as u32), PacketKind::Data)).collect();
        PortInfo { buffer, rate: Rate(1_000_000), flows: metas.into(), crossing, exact_crossing: false }
    }

    pub fn port_with_flows(flows: &[(u32, u32)]) -> PortInfo {
        port(BufferLimit::Unlimited, flows)
    }

    /// Runs `f` with a context at time `now`; returns what it returned and the packets dropped.
    pub fn with_ctx_at<R>(now: Time, f: impl FnOnce(&mut QdiscCtx) -> R) -> (R, Vec<(Packet, DropReason)>) {
        let mut rng = crate::rng::stream(7, "test");
        let mut drops = vec![];
        let mut marks = 0;
        let r = f(&mut QdiscCtx::new(now, Rate(1_000_000), &mut rng, &mut drops, &mut marks));
        (r, drops)
    }

    pub fn with_ctx<R>(f: impl FnOnce(&mut QdiscCtx) -> R) -> (R, Vec<(Packet, DropReason)>) {
        with_ctx_at(Time::ZERO, f)
    }
}

#[cfg(test)]
mod local_conversations {
    use super::replay::replay;
    use super::*;
    use crate::net::{FlowId, NodeId, PacketKind};
    use crate::params::Params;
    use rand::Rng;

    /// 40 flows between 8 nodes with unequal weights; the port is crossed by the data of some,
    /// the ACKs of others, both of a few, neither of the rest.
    fn port(exact_crossing: bool) -> PortInfo {
        let flows: Vec<FlowMeta> = (0..40u32)
            .map(|f| FlowMeta {
                name: format!("f{f}"),
                src: NodeId(f % 5),
                dst: NodeId(5 + f % 3),
                weight: [1.0, 2.0, 0.5][f as usize % 3],
                packet_size: 1000,
            })
            .collect();
        let crossing = (0..40u32)
            .flat_map(|f| {
                let data = (f % 3 != 1).then_some((FlowId(f), PacketKind::Data));
                let acks = (f % 4 == 0).then_some((FlowId(f), PacketKind::Ack));
                data.into_iter().chain(acks)
            })
            .filter(|&(f, _)| f.0 % 7 != 3)
            .collect();
        PortInfo {
            buffer: BufferLimit::Packets(25),
            rate: Rate(10_000_000),
            flows: flows.into(),
            crossing,
            exact_crossing,
        }
    }

    /// Packets of the crossing conversations, arriving faster than the line sends them.
    fn arrivals(port: &PortInfo) -> Vec<(Time, Packet)> {
        let mut rng = crate::rng::stream(17, "arrivals");
        let mut at = Time::ZERO;
        (0..3000u64)
            .map(|id| {
                let (f, kind) = port.crossing[rng.random_range(0..port.crossing.len())];
                let meta = &port.flows[f.idx()];
                let (src, dst) = if kind == PacketKind::Data { (meta.src, meta.dst) } else { (meta.dst, meta.src) };
                let size = if kind == PacketKind::Data { rng.random_range(200..1500) } else { 40 };
                at += Time(rng.random_range(0..900_000));
                let pkt =
                    Packet { id, flow: f, conn: f, kind, seq: id, size, src, dst, ect: id % 2 == 0, ..Packet::blank() };
                (at, pkt)
            })
            .collect()
    }

    #[test]
    fn disciplines_at_a_port_that_numbers_its_own_conversations_do_exactly_as_before() {
        let keys = [None, Some("flow"), Some("pair"), Some("source")];
        let mut compared = 0;
        for kind in QDISCS {
            for key in keys {
                let mut params = Params::new();
                if let Some(k) = key {
                    params.insert("key".into(), toml::Value::String(k.into()));
                }
                if kind.about().name == "drr" {
                    params.insert("queues".into(), toml::Value::Integer(7)); // hashed queues
                }
                let (Ok((mut all, _)), Ok((mut own, _))) =
                    (kind.build(&params, &port(false)), kind.build(&params, &port(true)))
                else {
                    continue; // a discipline without `key`, or without the choice of queues
                };
                let trace = arrivals(&port(true));
                let (a, b) =
                    (replay(all.as_mut(), Rate(10_000_000), &trace), replay(own.as_mut(), Rate(10_000_000), &trace));
                let sent = |r: &replay::Replay| {
                    r.sent.iter().map(|(s, e, p)| (*s, *e, p.id, p.congestion)).collect::<Vec<_>>()
                };
                let dropped =
                    |r: &replay::Replay| r.dropped.iter().map(|(t, p, why)| (*t, p.id, *why)).collect::<Vec<_>>();
                let name = (kind.about().name, key);
                assert_eq!(sent(&a), sent(&b), "{name:?}");
                assert_eq!(dropped(&a), dropped(&b), "{name:?}");
                assert_eq!(a.marks, b.marks, "{name:?}");
                assert_eq!(all.stats(), own.stats(), "{name:?}");
                compared += 1;
            }
        }
        assert!(compared >= 30, "{compared} disciplines and keys compared");
    }
}

#[cfg(test)]
mod declarations {
    #[test]
    fn every_discipline_documents_itself_and_every_parameter() {
        assert_eq!(crate::component::undocumented(super::QDISCS), Vec::<String>::new());
    }
}
