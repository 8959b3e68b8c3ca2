//! Which conversation a packet belongs to, and each conversation's weight.
//!
//! Demers, Keshav & Shenker (1989, §2.1) weigh the choices of "user" — per source, per
//! receiver, per process, per source–destination pair — and pick the pair, a "conversation";
//! they note the algorithm applies to any of them. Here the key is a parameter:
//! - `flow` (default): each flow's data, and its ACKs apart (thesis §6.5: "ACKs are treated as
//!   a separate conversation");
//! - `pair`: source–destination node pair (an ACK's pair is the reverse of its data's);
//! - `source`: source node.
//!
//! Conversations get dense indices when the port is built, so classifying a packet is an array
//! lookup. A conversation's weight is its flow's `weight`; when several flows share a
//! conversation (key `pair` or `source`), the largest of their weights for the fair-queueing
//! family (each conversation an equal "user", DKS 1989 §2.1), and their sum for DRR
//! (`total_weight`: a queue shared by connections is weighted by the sum of their capacities,
//! Hasegawa et al. 2001).
//!
//! Disciplines with a fixed number of queues (SFQ, DRR with `queues`) map conversations onto
//! queues: explicitly by flow name, or by a hash of the conversation mixed with a salt.

use super::discipline::PortInfo;
use crate::net::{Packet, PacketKind};
use crate::params::ParamError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// How a discipline tells conversations apart: by flow, by source–destination pair, or by
/// source host.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ConversationKey {
    #[default]
    Flow,
    Pair,
    Source,
}

#[derive(Debug, Clone)]
pub struct Classifier {
    /// Conversation of (flow, kind), at index 2·flow + (0 data, 1 ACK); empty when each flow's
    /// data and ACKs are conversations of their own (key `flow`), numbered as those indices.
    conv_of: Vec<u32>,
    /// Every flow, whose weights are the conversations' with key `flow`.
    flows: Arc<[super::discipline::FlowMeta]>,
    /// Each conversation's weight and the sum of its flows' weights (keys `pair` and `source`).
    weights: Vec<f64>,
    totals: Vec<f64>,
    /// At a scenario's port: only the conversations that cross it, in the scenario's order.
    local: Option<Local>,
}

/// The conversations crossing a port, numbered 0, 1, ... in the order of their numbers in the
/// scenario (`global`), so that every comparison of two conversations' numbers (the tie-breaks
/// of the disciplines) comes out as with the scenario's numbers.
#[derive(Debug, Clone)]
struct Local {
    /// The scenario's number of each local conversation, ascending.
    global: Arc<[u32]>,
    /// Local number by scenario number (`u32::MAX`: not crossing), when the port is crossed by
    /// at least a quarter of the scenario's conversations; else `global` is searched.
    dense: Vec<u32>,
}

fn slot(flow: usize, kind: PacketKind) -> usize {
    2 * flow + usize::from(kind == PacketKind::Ack)
}

impl Classifier {
    /// Conversations numbered in the order of the flows, data before ACKs, each numbered when
    /// it is first met. With key `flow` that order is the flows' own (conversation 2·f is flow
    /// f's data, 2·f + 1 its ACKs), which costs nothing to build: a per-flow discipline at every
    /// port of a network with many flows does not build a table of them per port.
    ///
    /// At a scenario's port (`PortInfo::exact_crossing`) only the conversations that cross it
    /// count, renumbered in the same order: a discipline's state per conversation then grows
    /// with the conversations crossing its port, not with every conversation of the network
    /// (10,000 flows from 10,000 hosts, with FQ at the router's 10,000 ports to the hosts, took
    /// 15 GB), and results stay the same to the bit.
    pub fn new(key: ConversationKey, port: &PortInfo) -> Classifier {
        let mut classifier = Classifier::scenario_wide(key, port);
        if port.exact_crossing {
            let mut global: Vec<u32> =
                port.crossing.iter().map(|&(f, kind)| classifier.scenario_conv(slot(f.idx(), kind)) as u32).collect();
            global.sort_unstable();
            global.dedup();
            let all = classifier.scenario_count();
            if global.len() == all {
                return classifier; // every conversation crosses: the numbering is the scenario's
            }
            let dense = if global.len() * 4 >= all {
                let mut dense = vec![u32::MAX; all];
                global.iter().enumerate().for_each(|(local, &g)| dense[g as usize] = local as u32);
                dense
            } else {
                vec![]
            };
            classifier.local = Some(Local { global: global.into(), dense });
        }
        classifier
    }

    /// The scenario's numbering, at every port.
    fn scenario_wide(key: ConversationKey, port: &PortInfo) -> Classifier {
        let flows = port.flows.clone();
        if key == ConversationKey::Flow {
            return Classifier { conv_of: vec![], flows, weights: vec![], totals: vec![], local: None };
        }
        let mut ids: HashMap<(u32, u32), u32> = HashMap::new(); // build time only
        let mut conv_of = vec![0; 2 * port.flows.len()];
        let mut weights: Vec<f64> = vec![];
        let mut totals: Vec<f64> = vec![];
        for (f, meta) in port.flows.iter().enumerate() {
            for kind in [PacketKind::Data, PacketKind::Ack] {
                let (src, dst) = if kind == PacketKind::Data { (meta.src, meta.dst) } else { (meta.dst, meta.src) };
                let k = match key {
                    ConversationKey::Flow => unreachable!("numbered above"),
                    ConversationKey::Pair => (src.0, dst.0),
                    ConversationKey::Source => (src.0, u32::MAX),
                };
                let next = ids.len() as u32;
                let id = *ids.entry(k).or_insert(next);
                if id as usize == weights.len() {
                    weights.push(meta.weight);
                    totals.push(meta.weight);
                } else {
                    weights[id as usize] = weights[id as usize].max(meta.weight);
                    totals[id as usize] += meta.weight;
                }
                conv_of[slot(f, kind)] = id;
            }
        }
        Classifier { conv_of, flows, weights, totals, local: None }
    }

    /// The scenario's number of the conversation of flow `flow`'s packets of `kind`.
    #[inline]
    fn scenario_conv(&self, slot: usize) -> usize {
        if self.conv_of.is_empty() {
            slot
        } else {
            self.conv_of[slot] as usize
        }
    }

    fn scenario_count(&self) -> usize {
        if self.conv_of.is_empty() {
            2 * self.flows.len()
        } else {
            self.weights.len()
        }
    }

    /// The local number of the scenario's conversation `g`, if it crosses this port.
    #[inline]
    fn local_of(local: &Local, g: usize) -> Option<usize> {
        if local.dense.is_empty() {
            local.global.binary_search(&(g as u32)).ok()
        } else {
            local.dense.get(g).copied().filter(|&l| l != u32::MAX).map(|l| l as usize)
        }
    }

    /// The conversation of the packets of `kind` of flow `flow` (`slot`), if they cross the port.
    #[inline]
    fn of_slot(&self, slot: usize) -> Option<usize> {
        let g = self.scenario_conv(slot);
        match &self.local {
            None => Some(g),
            Some(local) => Self::local_of(local, g),
        }
    }

    #[inline]
    pub fn conv(&self, pkt: &Packet) -> usize {
        // a packet reaches only the ports on its route, whose conversations are all numbered
        self.of_slot(slot(pkt.flow.idx(), pkt.kind())).expect("a packet's conversation crosses the port it is at")
    }

    /// The scenario's number of conversation `conv` (what hashed queues hash).
    pub fn global(&self, conv: usize) -> usize {
        self.local.as_ref().map_or(conv, |l| l.global[conv] as usize)
    }

    pub fn weight(&self, conv: usize) -> f64 {
        self.per_conversation(conv, &self.weights)
    }

    /// The sum of the weights of the flows in conversation `conv`.
    pub fn total_weight(&self, conv: usize) -> f64 {
        self.per_conversation(conv, &self.totals)
    }

    /// `table`'s entry for conversation `conv`; with key `flow` (no tables), its one flow's weight.
    fn per_conversation(&self, conv: usize, table: &[f64]) -> f64 {
        let g = self.global(conv);
        if self.conv_of.is_empty() {
            self.flows[g / 2].weight
        } else {
            table[g]
        }
    }

    pub fn count(&self) -> usize {
        self.local.as_ref().map_or_else(|| self.scenario_count(), |l| l.global.len())
    }
}

/// A fixed set of queues that conversations are mapped onto.
#[derive(Debug, Clone)]
pub struct Buckets {
    /// Explicit queue of a conversation, if its flow was mapped by name.
    fixed: Vec<Option<u32>>,
    /// The scenario's number of each conversation, which the hash mixes (`Classifier::global`),
    /// when the port numbers its own conversations.
    global: Option<Arc<[u32]>>,
    pub count: usize,
    /// Each queue's weight: the sum of the weights of the flows mapped onto it by name, 1 for a
    /// queue with none (its conversations are hashed, and change with perturbation).
    pub weights: Vec<f64>,
    salt: u64,
    /// Perturb the hash this often (zero: never), next at `next_perturbation`.
    perturb_every: crate::units::Time,
    next_perturbation: crate::units::Time,
}

impl Buckets {
    /// `map` names flows and their queue; the other conversations are hashed.
    pub fn new(
        count: usize,
        map: &BTreeMap<String, usize>,
        classifier: &Classifier,
        port: &PortInfo,
    ) -> Result<Buckets, ParamError> {
        if count == 0 {
            return Err(ParamError::at("queues", "needs at least one queue"));
        }
        crate::limits::check(count, crate::limits::MAX_QUEUES, "queues").map_err(|e| ParamError::at("queues", e))?;
        let mut fixed = vec![None; classifier.count()];
        let mut weights = vec![0.0; count];
        for (name, &q) in map {
            let f = port
                .flows
                .iter()
                .position(|m| &m.name == name)
                .ok_or_else(|| ParamError::at("map", format!("no flow `{name}`")))?;
            if q >= count {
                return Err(ParamError::at(
                    "map",
                    format!("flow `{name}` mapped to queue {q}, but there are {count} queues (0–{})", count - 1),
                ));
            }
            // (a flow that does not cross the port keeps its weight in its queue)
            for c in
                [PacketKind::Data, PacketKind::Ack].map(|kind| classifier.of_slot(slot(f, kind))).into_iter().flatten()
            {
                fixed[c] = Some(q as u32);
            }
            weights[q] += port.flows[f].weight;
        }
        for w in weights.iter_mut().filter(|w| **w == 0.0) {
            *w = 1.0;
        }
        let zero = crate::units::Time::ZERO;
        let global = classifier.local.as_ref().map(|l| l.global.clone());
        Ok(Buckets { fixed, global, count, weights, salt: 0, perturb_every: zero, next_perturbation: zero })
    }

    /// Changes the hash function every `every` (SFQ's periodic perturbation).
    pub fn perturbed_every(mut self, every: crate::units::Time) -> Buckets {
        self.perturb_every = every;
        self.next_perturbation = every;
        self
    }

    /// Draws a hash salt (a hashed discipline's own, fixed for the run).
    pub fn salt_from(&mut self, rng: &mut crate::rng::SimRng) {
        self.salt = rand::Rng::random(rng);
    }

    /// Draws a new hash salt if a perturbation is due at `now`.
    pub fn perturb_if_due(&mut self, now: crate::units::Time, rng: &mut crate::rng::SimRng) {
        if self.perturb_every == crate::units::Time::ZERO || now < self.next_perturbation {
            return;
        }
        self.salt = rand::Rng::random(rng);
        // one salt however many perturbations were missed; jump over them at once
        let missed = (now.0 - self.next_perturbation.0) / self.perturb_every.0 + 1;
        self.next_perturbation.0 = self.next_perturbation.0.saturating_add(missed.saturating_mul(self.perturb_every.0));
    }

    #[inline]
    pub fn of(&self, conv: usize) -> usize {
        match self.fixed[conv] {
            Some(q) => q as usize,
            None => {
                let g = self.global.as_ref().map_or(conv, |g| g[conv] as usize);
                (mix(g as u64 ^ self.salt) % self.count as u64) as usize
            }
        }
    }
}

/// A 64-bit integer mixer (the finaliser of SplitMix64): cheap, and every input bit matters.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::FlowId;
    use crate::qdisc::testing::{ack, pkt, port_with_flows};
    use crate::units::Time;

    #[test]
    fn keys_group_packets_as_documented() {
        // flows: 0 a→b, 1 a→b, 2 c→b
        let port = port_with_flows(&[(0, 1), (0, 1), (2, 1)]);
        let by_flow = Classifier::new(ConversationKey::Flow, &port);
        assert_eq!(by_flow.count(), 6);
        assert_ne!(by_flow.conv(&pkt(0, 0, 1)), by_flow.conv(&ack(0, 0)));
        let by_pair = Classifier::new(ConversationKey::Pair, &port);
        assert_eq!(by_pair.conv(&pkt(0, 0, 1)), by_pair.conv(&pkt(1, 0, 1)));
        assert_ne!(by_pair.conv(&pkt(0, 0, 1)), by_pair.conv(&pkt(2, 0, 1)));
        assert_eq!(by_pair.conv(&ack(0, 0)), by_pair.conv(&ack(1, 0)), "b→a ACKs of both flows");
        let by_source = Classifier::new(ConversationKey::Source, &port);
        // ACKs all come from b, and so does nothing else
        assert_eq!(by_source.conv(&ack(0, 0)), by_source.conv(&ack(2, 0)));
        assert_eq!(by_source.count(), 3);
    }

    #[test]
    fn a_port_counts_only_the_conversations_crossing_it() {
        // flows: 0 a→b, 1 a→b, 2 c→b; the port carries flow 2's data and flow 0's ACKs
        let mut port = port_with_flows(&[(0, 1), (0, 1), (2, 1)]);
        port.exact_crossing = true;
        port.crossing = vec![(FlowId(0), PacketKind::Ack), (FlowId(2), PacketKind::Data)];
        let c = Classifier::new(ConversationKey::Flow, &port);
        assert_eq!(c.count(), 2);
        // numbered in the scenario's order (flow 0's ACKs are 1, flow 2's data 4)
        assert_eq!((c.conv(&ack(0, 0)), c.conv(&pkt(2, 0, 1))), (0, 1));
        assert_eq!((c.global(0), c.global(1)), (1, 4));
        // crossed by every conversation: the scenario's numbering, without a table
        port.crossing = (0..3).flat_map(|f| [(FlowId(f), PacketKind::Data), (FlowId(f), PacketKind::Ack)]).collect();
        let every = Classifier::new(ConversationKey::Flow, &port);
        assert!(every.local.is_none());
        assert_eq!(every.count(), 6);
    }

    #[test]
    fn flows_conversations_are_numbered_as_a_table_of_them_would_number_them() {
        // first met, first numbered: flow f's data is conversation 2f, its ACKs 2f + 1
        let mut port = port_with_flows(&[(0, 1), (0, 1), (2, 1)]);
        let mut metas = port.flows.to_vec();
        metas[1].weight = 3.0;
        port.flows = metas.into();
        let c = Classifier::new(ConversationKey::Flow, &port);
        assert_eq!(c.count(), 6);
        for f in 0..3 {
            assert_eq!(c.conv(&pkt(f, 0, 1)), 2 * f as usize);
            assert_eq!(c.conv(&ack(f, 0)), 2 * f as usize + 1);
        }
        let weights: Vec<f64> = (0..6).map(|i| c.weight(i)).collect();
        assert_eq!(weights, [1.0, 1.0, 3.0, 3.0, 1.0, 1.0]);
        assert_eq!(c.total_weight(3), 3.0);
    }

    #[test]
    fn buckets_honour_the_map_and_hash_the_rest() {
        let port = port_with_flows(&[(0, 1), (0, 1), (2, 1)]);
        let c = Classifier::new(ConversationKey::Flow, &port);
        let map = BTreeMap::from([("f1".to_string(), 1usize)]);
        let b = Buckets::new(2, &map, &c, &port).unwrap();
        assert_eq!(b.of(c.conv(&pkt(1, 0, 1))), 1);
        assert!(b.of(c.conv(&pkt(2, 0, 1))) < 2);
        assert!(Buckets::new(2, &BTreeMap::from([("f9".to_string(), 0)]), &c, &port).is_err());
        assert!(Buckets::new(2, &BTreeMap::from([("f0".to_string(), 2)]), &c, &port).is_err());
    }

    #[test]
    fn queue_counts_beyond_the_limit_are_refused_before_allocating() {
        let port = port_with_flows(&[(0, 1)]);
        let c = Classifier::new(ConversationKey::Flow, &port);
        let e = Buckets::new(u32::MAX as usize, &BTreeMap::new(), &c, &port).unwrap_err();
        assert_eq!(e.path, ["queues"]);
        assert!(e.message.contains("65536"), "{}", e.message);
        assert!(Buckets::new(crate::limits::MAX_QUEUES, &BTreeMap::new(), &c, &port).is_ok());
    }

    #[test]
    fn missed_perturbations_are_skipped_in_one_step() {
        // a 1 ns period and an arrival 2^50 ns later: one new salt, the next perturbation 1 ns on,
        // without visiting the 2^50 missed ones
        let port = port_with_flows(&[(0, 1)]);
        let c = Classifier::new(ConversationKey::Flow, &port);
        let mut b = Buckets::new(2, &BTreeMap::new(), &c, &port).unwrap().perturbed_every(Time(1));
        let mut rng = crate::rng::stream(1, "test");
        let far = Time(1 << 50);
        b.perturb_if_due(far, &mut rng);
        assert_eq!(b.next_perturbation, Time((1 << 50) + 1));
        // an ordinary period lands on the same grid as stepping through it did
        let mut b = Buckets::new(2, &BTreeMap::new(), &c, &port).unwrap().perturbed_every(Time::from_secs(10));
        b.perturb_if_due(Time::from_secs(35), &mut rng);
        assert_eq!(b.next_perturbation, Time::from_secs(40));
        b.perturb_if_due(Time::from_secs(40), &mut rng);
        assert_eq!(b.next_perturbation, Time::from_secs(50));
        b.perturb_if_due(Time(u64::MAX - 1), &mut rng);
        assert_eq!(b.next_perturbation, Time::MAX, "saturates at the end of time");
    }
}
