//! Queueing disciplines: each in its own file, declared at its bottom; this file lists them.
//! Their contract (the `Qdisc` trait and its context) is `discipline.rs`.

pub mod classify;
pub mod codel;
pub mod csfq;
mod decbit;
mod discipline;
mod dispatch;
mod down;
mod drr;
mod ecn_threshold;
mod fcfs;
pub mod fifo;
mod flow_ring;
pub mod fq;
pub mod fq_codel;
pub mod fred;
mod lifo;
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
mod strict_priority;
pub mod tagged;
mod trim;
pub use trim::NAME as TRIM;
mod virtual_clock;
mod wf2q;

pub use csfq::{Csfq, CsfqConfig};
pub use decbit::{DecbitGateway, DecbitGatewayConfig};
#[cfg(test)]
pub(crate) use discipline::inspect_store; // for test disciplines elsewhere in the crate
pub use discipline::{DropReason, FlowMeta, PortEvent, PortInfo, Qdisc, QdiscCtx, QdiscDeclaration, QdiscKind, Room};
pub use dispatch::PortQdisc;
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

/// Every discipline, in the order listings show them; each declares itself in its own file.
pub static QDISCS: &[&QdiscKind] = &[
    &fcfs::DECLARATION,
    &lifo::DECLARATION,
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
    &ecn_threshold::DECLARATION,
    &strict_priority::DECLARATION,
    &trim::DECLARATION,
];

/// Disciplines written outside Rust (`crate::foreign`: the Python package's).
pub static FOREIGN: crate::foreign::Door<PortInfo, dyn Qdisc> = crate::foreign::Door::closed();

/// The built-in discipline called `name`, if there is one (none the foreign door knows).
pub fn builtin(name: &str) -> Option<&'static QdiscKind> {
    crate::component::find(QDISCS, name)
}

/// The discipline called `name`: a built-in one, else one the foreign door knows.
pub fn find(name: &str) -> Option<&'static QdiscKind> {
    crate::component::find(QDISCS, name).or_else(|| FOREIGN.find(name))
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for discipline tests: packets and a context with a throw-away drop list.
    use super::*;
    use crate::net::{FlowId, NodeId, Packet, PacketKind};
    use crate::units::{BufferLimit, Rate, Time};

    pub fn pkt(flow: u32, seq: u64, size: u32) -> Packet {
        Packet { id: seq, flow: FlowId(flow), seq, size, dst: NodeId(1), ..Packet::blank() }
    }

    pub fn ack(flow: u32, seq: u64) -> Packet {
        Packet { size: 40, src: NodeId(1), dst: NodeId(0), ..pkt(flow, seq, 40) }.with_kind(PacketKind::Ack)
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
        let nodes = flows.iter().flat_map(|&(s, d)| [s, d]).max().map_or(0, |n| n + 1);
        PortInfo {
            name: "a->b".into(),
            nodes: (0..nodes).map(|n| format!("n{n}")).collect(),
            buffer,
            rate: Rate(1_000_000),
            flows: metas.into(),
            crossing,
            exact_crossing: false,
        }
    }

    pub fn port_with_flows(flows: &[(u32, u32)]) -> PortInfo {
        port(BufferLimit::Unlimited, flows)
    }

    thread_local! {
        /// Where the tests' disciplines keep their waiting packets: one pool for each test's
        /// thread, as for each run.
        static POOL: std::cell::RefCell<crate::net::PacketPool> = std::cell::RefCell::default();
    }

    /// Runs `f` with a context at time `now`; returns what it returned and the packets dropped.
    pub fn with_ctx_at<R>(now: Time, f: impl FnOnce(&mut QdiscCtx) -> R) -> (R, Vec<(Packet, DropReason)>) {
        let mut rng = crate::rng::LazyStream::new(7, "test");
        let mut drops = vec![];
        let mut marks = 0;
        let r = POOL.with_borrow_mut(|pool| {
            f(&mut QdiscCtx::new(now, Rate(1_000_000), &mut rng, &mut drops, &mut marks, pool))
        });
        (r, drops)
    }

    /// The packets `q` holds, from its first to be sent (as far as its store knows).
    pub fn queued(q: &dyn Qdisc) -> Vec<Packet> {
        let mut held = vec![];
        POOL.with_borrow(|pool| q.for_each_packet(pool, &mut |p| held.push(*p)));
        held
    }

    pub fn with_ctx<R>(f: impl FnOnce(&mut QdiscCtx) -> R) -> (R, Vec<(Packet, DropReason)>) {
        with_ctx_at(Time::ZERO, f)
    }
}

#[cfg(test)]
mod local_conversations {
    use super::replay::replay;
    use super::*;
    use crate::net::{FlowId, NodeId, Packet, PacketKind};
    use crate::params::Params;
    use crate::units::{BufferLimit, Rate, Time};
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
            name: "a->b".into(),
            nodes: (0..8).map(|n| format!("n{n}")).collect(),
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
                let pkt = Packet { id, flow: f, conn: f, seq: id, size, src, dst, ..Packet::blank() }
                    .with_kind(kind)
                    .with_ect(id % 2 == 0);
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
                    r.sent.iter().map(|(s, e, p)| (*s, *e, p.id, p.congestion())).collect::<Vec<_>>()
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
