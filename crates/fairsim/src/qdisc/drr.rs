//! Deficit Round Robin (DRR).
//!
//! Reference: M. Shreedhar and G. Varghese, "Efficient Fair Queueing using Deficit Round
//! Robin", ACM SIGCOMM 1995. Active queues are visited in a round; a queue's deficit counter
//! grows by its quantum at each visit and pays for the packets it sends; an emptied queue
//! leaves the round with its deficit reset. O(1) work per packet when the quantum is at least
//! the largest packet; with a smaller one (down to 1 byte), the rounds in which no queue can
//! send are skipped at once, O(active queues) per packet, with the outcome of the rounds one by
//! one.
//!
//! Parameters and choices:
//! - `quantum` (1500 B) per unit of flow `weight`; a queue holding several flows (a shared
//!   conversation, or flows mapped onto one queue) is weighted by the sum of their weights, as
//!   Hasegawa et al. 2001 weigh a shared queue by the sum of its connections' capacities (it
//!   used to get the largest weight, or 1 when mapped);
//! - one queue per conversation (`key`), or `queues = n` with `map = { flow = index, ... }`;
//!   conversations of unmapped flows are hashed onto the queues. The 2001 comparison
//!   (Hasegawa et al.) puts four connections in two queues this way;
//! - `drop = "longest"` (default): on overflow, drop from the queue using the most buffer, as
//!   the CSFQ paper's DRR does; here its *last* packet (ns-2's DRR drops the first);
//!   `drop = "tail"`: refuse the arriving packet when its queue holds `queue_limit` or the
//!   buffer is full, as in Hasegawa et al., whose queues each have their own buffer;
//! - a queue joining the round gets a full quantum at once (as Linux's sch_drr does), rather
//!   than waiting to be visited;
//! - `red = { ... }`: RED at every queue, with the queue's own average and count, before its
//!   tail limit (DRR+, Hasegawa, Matsuo, Murata & Miyahara 2001, whose per-queue RED parameters
//!   are not given: RED's own parameters apply to each queue); `red.flow_p` gives the flows of
//!   a shared queue their own drop probabilities (the paper's Enhanced RED inside a queue).

use super::classify::{Buckets, Classifier, ConversationKey};
use super::discipline::PortInfo;
use super::discipline::QdiscDeclaration;
use super::red::{RedConfig, RedRule};
use super::round_robin::{Cost, RoundRobin, RrDrop, Turns, Weighing};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::units::{BufferLimit, Bytes};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DrrConfig {
    /// How conversations are told apart.
    pub key: ConversationKey,
    /// Bytes a queue may send per round, per unit of weight (a queue's weight is the sum of the
    /// weights of its flows).
    pub quantum: Bytes,
    /// Number of queues when conversations are mapped (`map`); one per conversation when absent.
    pub queues: Option<usize>,
    /// Flows to queues: `{ flow = queue }`; unmapped flows share queue 0.
    pub map: BTreeMap<String, usize>,
    /// When the buffer is full: drop from the longest queue, or refuse at the tail of a full queue
    /// (`queue_limit`).
    pub drop: RrDrop,
    /// Each queue's own limit, with `drop = "tail"`.
    pub queue_limit: BufferLimit,
    /// RED at every queue, each with its own average (DRR+, Hasegawa et al. 2001); its
    /// `flow_p` gives the flows of a shared queue their own probabilities (Enhanced RED). It
    /// drops early and marks nothing: `ecn` (and `hard_drop = false`) are refused.
    pub red: Option<RedConfig>,
}

impl Default for DrrConfig {
    fn default() -> Self {
        DrrConfig {
            key: ConversationKey::Flow,
            quantum: Bytes(1500),
            queues: None,
            map: BTreeMap::new(),
            drop: RrDrop::Longest,
            queue_limit: BufferLimit::Unlimited,
            red: None,
        }
    }
}

/// Builds a DRR discipline.
pub fn drr(cfg: DrrConfig, port: &PortInfo) -> Result<RoundRobin, ParamError> {
    if cfg.quantum.0 == 0 {
        return Err(ParamError::at("quantum", "a quantum must be at least one byte"));
    }
    if cfg.queues.is_none() && !cfg.map.is_empty() {
        return Err(ParamError::at("map", "mapping flows onto queues needs `queues`"));
    }
    if cfg.drop == RrDrop::Longest && cfg.queue_limit != BufferLimit::Unlimited {
        return Err(ParamError::at("queue_limit", "per-queue limits go with drop = \"tail\""));
    }
    let classifier = Classifier::new(cfg.key, port);
    let buckets = cfg.queues.map(|n| Buckets::new(n, &cfg.map, &classifier, port)).transpose()?;
    let rr = RoundRobin::new(
        classifier,
        buckets,
        port,
        Turns { cost: Cost::Bytes, quantum: cfg.quantum.0, weighing: Weighing::Sum },
        cfg.drop,
        cfg.queue_limit,
    );
    let Some(red) = &cfg.red else { return Ok(rr) };
    // the queues' RED drops early (DRR+ as Hasegawa et al. run it): it marks nothing
    let unsupported =
        |field: &str, message: &str| ParamError { path: vec!["red".into(), field.into()], message: message.into() };
    if red.ecn {
        return Err(unsupported(
            "ecn",
            "ECN marking is not supported by DRR's per-queue RED, which drops early (`red` alone marks)",
        ));
    }
    if red.count_arrival {
        return Err(unsupported(
            "count_arrival",
            "is `red`'s alone: DRR's per-queue RED measures the queue an arrival finds",
        ));
    }
    if !red.hard_drop {
        return Err(unsupported(
            "hard_drop",
            "goes with `ecn`, which DRR's per-queue RED does not support (it drops in the forced-drop region too)",
        ));
    }
    let rule = RedRule::at_port(red, port).map_err(|mut e| {
        e.path.insert(0, "red".into());
        e
    })?;
    Ok(rr.with_red(rule, red, port))
}

/// The `drr` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<DrrConfig> = Declaration {
    about: About {
        name: "drr",
        summary: "deficit round robin: per-conversation or mapped queues, quantum per round",
        reference: "Shreedhar & Varghese, SIGCOMM 1995",
    },
    defaults: || (DrrConfig::default(),),
    build: |(c,), port| Ok(Box::new(drr(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::discipline::DropReason;
    use crate::qdisc::discipline::Qdisc;
    use crate::qdisc::red::PMode;
    use crate::qdisc::replay::replay;
    use crate::qdisc::round_robin::RoundRobin;
    use crate::qdisc::testing::{pkt, port, with_ctx};
    use crate::units::{Rate, Time};

    #[test]
    fn byte_fairness_with_unequal_packet_sizes() {
        // 1500-byte and 500-byte packets, both backlogged: equal bytes per round
        let mut q = drr(DrrConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1), (0, 1)])).unwrap();
        let arrivals: Vec<_> =
            (0..90).flat_map(|s| [(Time::ZERO, pkt(0, s, 1500)), (Time::ZERO, pkt(1, s, 500))]).collect();
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let bytes = |f: u32| {
            r.sent.iter().take(40).filter(|(_, _, p)| p.flow.0 == f).map(|(_, _, p)| p.size as u64).sum::<u64>()
        };
        // first 40 packets: 10 rounds of one 1500-byte and three 500-byte packets
        assert_eq!((bytes(0), bytes(1)), (15_000, 15_000));
    }

    #[test]
    fn a_queue_shared_by_flows_is_weighted_by_the_sum_of_their_weights() {
        // f0 alone in queue 0; f1 and f2 share queue 1: it carries two flows, so twice the bytes
        let map = BTreeMap::from([("f0".into(), 0), ("f1".into(), 1), ("f2".into(), 1)]);
        let cfg = DrrConfig { queues: Some(2), map, ..Default::default() };
        let mut q = drr(cfg, &port(BufferLimit::Unlimited, &[(0, 1); 3])).unwrap();
        let arrivals: Vec<_> = (0..60).flat_map(|s| (0..3).map(move |f| (Time::ZERO, pkt(f, s, 1500)))).collect();
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let alone = r.sent.iter().take(30).filter(|(_, _, p)| p.flow.0 == 0).count();
        assert_eq!(alone, 10, "one packet in three for the queue of one flow");
        // and a conversation of two flows (key = pair: both go from node 0 to node 1)
        let cfg = DrrConfig { key: ConversationKey::Pair, ..Default::default() };
        let two_pairs = port(BufferLimit::Unlimited, &[(0, 1), (0, 1), (2, 1)]);
        let mut q = drr(cfg, &two_pairs).unwrap();
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let alone = r.sent.iter().take(30).filter(|(_, _, p)| p.flow.0 == 2).count();
        assert_eq!(alone, 10, "the pair of two flows sends two packets a round");
    }

    #[test]
    fn mapped_queues_and_per_queue_tail_drop() {
        // four flows in two queues (0, 1 → queue 0; 2, 3 → queue 1), each queue holding 2
        let cfg = DrrConfig {
            queues: Some(2),
            map: BTreeMap::from([("f0".into(), 0), ("f1".into(), 0), ("f2".into(), 1), ("f3".into(), 1)]),
            drop: RrDrop::Tail,
            queue_limit: BufferLimit::Packets(2),
            ..Default::default()
        };
        let mut q = drr(cfg, &port(BufferLimit::Packets(10), &[(0, 1); 4])).unwrap();
        let (_, drops) = with_ctx(|ctx| {
            for f in 0..4 {
                q.enqueue(pkt(f, 0, 100), ctx);
            }
            q.enqueue(pkt(1, 1, 100), ctx);
        });
        assert_eq!(drops.iter().map(|(p, r)| (p.flow.0, *r)).collect::<Vec<_>>(), vec![(1, DropReason::QueueFull)]);
        assert_eq!(q.len_packets(), 4);
    }

    #[test]
    fn weights_scale_the_quantum() {
        let mut info = port(BufferLimit::Unlimited, &[(0, 1), (0, 1)]);
        let mut metas = info.flows.to_vec();
        metas[1].weight = 2.0;
        info.flows = metas.into();
        let mut q = drr(DrrConfig { quantum: Bytes(1000), ..Default::default() }, &info).unwrap();
        let arrivals: Vec<_> =
            (0..60).flat_map(|s| [(Time::ZERO, pkt(0, s, 1000)), (Time::ZERO, pkt(1, s, 1000))]).collect();
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let heavy = r.sent.iter().take(30).filter(|(_, _, p)| p.flow.0 == 1).count();
        assert_eq!(heavy, 20);
    }

    /// DRR+ as Hasegawa et al. run it: four flows, per-queue tail limits, RED at each queue.
    fn drr_plus(queues: usize, red: RedConfig) -> (RoundRobin, PortInfo) {
        let map = if queues == 2 {
            BTreeMap::from([("f0".into(), 0), ("f1".into(), 0), ("f2".into(), 1), ("f3".into(), 1)])
        } else {
            BTreeMap::new()
        };
        let cfg = DrrConfig {
            queues: (queues == 2).then_some(2),
            map,
            drop: RrDrop::Tail,
            queue_limit: BufferLimit::Packets(30),
            red: Some(red),
            ..Default::default()
        };
        let info = port(BufferLimit::Packets(120), &[(0, 1), (2, 1), (3, 1), (4, 1)]);
        (drr(cfg, &info).unwrap(), info)
    }

    /// Early drops by flow when flow 0 floods and the others trickle, one departure per arrival
    /// beyond a backlog of `hold` packets in flow 0's queue.
    fn drops_by_flow(q: &mut RoundRobin) -> [usize; 4] {
        let (_, drops) = with_ctx(|ctx| {
            for i in 0..20_000u64 {
                let f = if i % 10 == 0 { 1 + (i / 10 % 3) as u32 } else { 0 };
                q.enqueue(pkt(f, i, 1000), ctx);
                if q.len_packets() > 12 {
                    q.dequeue(ctx);
                }
            }
        });
        let mut n = [0; 4];
        for (p, r) in &drops {
            assert_eq!(*r, DropReason::Early);
            n[p.flow.0 as usize] += 1;
        }
        n
    }

    #[test]
    fn drr_plus_runs_red_on_each_queue_with_its_own_average() {
        // flow 0's queue stays above min_th and loses packets early; the others never queue
        let red = RedConfig { w_q: 0.2, p_mode: PMode::Constant, max_p: 0.05, ..Default::default() };
        let (mut q, _) = drr_plus(4, red);
        let n = drops_by_flow(&mut q);
        assert!(n[0] > 500 && n[1..] == [0, 0, 0], "{n:?}");
        assert_eq!(q.stats(), vec![("early_drops", n[0] as f64)]);
    }

    #[test]
    fn drr_plus_with_one_flow_per_queue_is_drr_with_red_per_queue() {
        // per-flow probabilities equal to the queue's own change nothing: the enhanced form
        // reduces to plain RED per queue when no queue is shared
        let red = RedConfig { w_q: 0.2, max_p: 0.05, ..Default::default() };
        let flow_p = (0..4).map(|f| (format!("f{f}"), 0.05)).collect();
        let (mut plain, _) = drr_plus(4, red.clone());
        let (mut enhanced, _) = drr_plus(4, RedConfig { flow_p, ..red });
        assert_eq!(drops_by_flow(&mut plain), drops_by_flow(&mut enhanced));
    }

    #[test]
    fn enhanced_red_inside_a_shared_queue_gives_its_flows_their_own_probabilities() {
        // f0 and f1 share queue 0; f1 is given ten times f0's probability
        let flow_p = BTreeMap::from([("f0".into(), 0.01), ("f1".into(), 0.1)]);
        let red = RedConfig { w_q: 0.2, p_mode: PMode::Constant, max_p: 0.02, flow_p, ..Default::default() };
        let (mut q, _) = drr_plus(2, red);
        let (_, drops) = with_ctx(|ctx| {
            for i in 0..40_000u64 {
                q.enqueue(pkt((i % 2) as u32, i, 1000), ctx);
                if q.len_packets() > 12 {
                    q.dequeue(ctx);
                }
            }
        });
        let of = |f: u32| drops.iter().filter(|(p, _)| p.flow.0 == f).count() as f64 / 20_000.0;
        assert!((of(0) - 0.01).abs() < 0.004 && (of(1) - 0.1).abs() < 0.015, "{} {}", of(0), of(1));
    }

    #[test]
    fn red_per_queue_names_its_errors_under_red() {
        let red = RedConfig { flow_p: BTreeMap::from([("nope".into(), 0.1)]), ..Default::default() };
        let cfg = DrrConfig { red: Some(red), ..Default::default() };
        let e = drr(cfg, &port(BufferLimit::Packets(10), &[(0, 1)])).err().unwrap();
        assert_eq!(e.path, ["red", "flow_p", "nope"]);
    }

    #[test]
    fn red_per_queue_refuses_the_ecn_it_does_not_do() {
        // RED's `ecn` and `hard_drop` were accepted and ignored: the queues' RED only drops
        let p = port(BufferLimit::Packets(10), &[(0, 1)]);
        for (red, field) in [
            (RedConfig { ecn: true, ..Default::default() }, "ecn"),
            (RedConfig { hard_drop: false, ..Default::default() }, "hard_drop"),
            (RedConfig { ecn: true, hard_drop: false, ..Default::default() }, "ecn"),
        ] {
            let e = drr(DrrConfig { red: Some(red), ..Default::default() }, &p).err().unwrap();
            assert_eq!(e.path, ["red", field]);
            assert!(e.message.contains("DRR's per-queue RED"), "{}", e.message);
        }
        assert!(drr(DrrConfig { red: Some(RedConfig::default()), ..Default::default() }, &p).is_ok());
    }

    #[test]
    fn inconsistent_parameters_are_refused() {
        let p = port(BufferLimit::Packets(10), &[(0, 1)]);
        assert!(drr(DrrConfig { quantum: Bytes(0), ..Default::default() }, &p).is_err());
        assert!(drr(DrrConfig { map: BTreeMap::from([("f0".into(), 0)]), ..Default::default() }, &p).is_err());
        assert!(drr(DrrConfig { queue_limit: BufferLimit::Packets(1), ..Default::default() }, &p).is_err());
    }

    /// DRR's rounds one by one (the paper's pseudo-code): the flows of the packets served, in
    /// order, given batches of (flow, size) arrivals, each batch enqueued then `serve` dequeued.
    fn rounds_one_by_one(quantum: u64, batches: &[(Vec<(u32, u32)>, usize)]) -> Vec<(u32, u64)> {
        use std::collections::VecDeque;
        let mut queues: Vec<VecDeque<(u64, u32)>> = vec![VecDeque::new(); 8];
        let (mut deficit, mut active, mut served, mut seq) = (vec![0; 8], VecDeque::new(), vec![], 0);
        for (arrivals, serve) in batches {
            for &(f, size) in arrivals {
                if queues[f as usize].is_empty() && !active.contains(&(f as usize)) {
                    deficit[f as usize] = quantum;
                    active.push_back(f as usize);
                }
                queues[f as usize].push_back((seq, size));
                seq += 1;
            }
            for _ in 0..*serve {
                while let Some(&q) = active.front() {
                    let (id, size) = queues[q][0];
                    if size as u64 <= deficit[q] {
                        deficit[q] -= size as u64;
                        queues[q].pop_front();
                        if queues[q].is_empty() {
                            active.pop_front();
                            deficit[q] = 0;
                        }
                        served.push((q as u32, id));
                        break;
                    }
                    deficit[q] += quantum;
                    active.rotate_left(1);
                }
            }
        }
        served
    }

    #[test]
    fn rounds_in_which_no_queue_can_send_are_skipped_with_the_same_outcome() {
        // quanta far below the packets (a round per byte), and at or above them
        let sizes = [1500, 40, 577, 1000, 9000, 1];
        let batch = |from: u64, n: u64| -> Vec<(u32, u32)> {
            (from..from + n).map(|i| ((i * 7 % 5) as u32, sizes[(i * 11 % 6) as usize])).collect()
        };
        let batches = vec![(batch(0, 40), 25), (batch(40, 30), 20), (batch(70, 10), 35)];
        for quantum in [1, 3, 7, 100, 1499, 1500, 4000] {
            let mut q = drr(
                DrrConfig { quantum: Bytes(quantum), ..Default::default() },
                &port(BufferLimit::Unlimited, &[(0, 1); 5]),
            )
            .unwrap();
            let mut served = vec![];
            with_ctx(|ctx| {
                for (arrivals, serve) in &batches {
                    for &(f, size) in arrivals {
                        let id = served.len() as u64 + q.len_packets() as u64;
                        q.enqueue(pkt(f, id, size), ctx);
                    }
                    served.extend((0..*serve).map_while(|_| q.dequeue(ctx)).map(|p| (p.flow.0, p.id)));
                }
            });
            assert_eq!(served, rounds_one_by_one(quantum, &batches), "quantum {quantum}");
        }
    }

    #[test]
    fn a_one_byte_quantum_against_gigabyte_packets_takes_no_billion_rounds() {
        // one round per byte was 4·10^9 turns of the round for the first packet
        let cfg = DrrConfig { quantum: Bytes(1), ..Default::default() };
        let mut q = drr(cfg, &port(BufferLimit::Unlimited, &[(0, 1), (0, 1), (0, 1)])).unwrap();
        let started = std::time::Instant::now();
        let (order, _) = with_ctx(|ctx| {
            for (f, size) in [(0, 4_000_000_000), (1, 3_999_999_999), (2, 4_000_000_000)] {
                q.enqueue(pkt(f, f as u64, size), ctx);
            }
            (0..3).map(|_| q.dequeue(ctx).unwrap().flow.0).collect::<Vec<_>>()
        });
        assert_eq!(order, vec![1, 0, 2], "the smaller packet first, then in the order of the round");
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }
}
