//! Per-switch forwarding in the loop, for the flows whose paths are chosen at each switch
//! (`net::multipath` says how each mode chooses, and with which hash).
//!
//! Such a flow has no route in `Routes`: its packets leave their host on the first port of its
//! fewest-hop path, and every arrival at a node that is not the packet's destination asks the
//! forwarder for the next port. A run with no such flow has no forwarder, and its loop is the
//! fixed-route one.
//!
//! When forwarding learns that links have failed or come back (`engine::failures`), the next
//! hops are found again without the failed ones (`EqualCost::set_down`): ECMP hashes over those
//! left, spraying and the adaptive choice choose among them.

use super::port_table::PortTable;
use crate::net::multipath::{ecmp_pick, permute_pick, spray_pick, EqualCost};
use crate::net::{Forwarding, NodeId, Packet, PortId};
use crate::scenario::Scenario;
use crate::units::Time;
use rand::Rng;
use std::sync::Arc;

pub(super) struct Forwarder {
    /// Shared by a parallel run's partitions, with the tables its packets may need made before
    /// they split (`share_paths`): the tables are the same in each, and at k = 64 they are 21 MB.
    /// A table made after that, if any, is made in a copy of the partition's own.
    paths: Arc<EqualCost>,
    /// Once a link has failed: the network's tables without failures, for the paths ideal
    /// completion times are measured on; and by port, whether forwarding knows it down.
    healthy: Option<(Box<EqualCost>, Vec<bool>)>,
    /// Each scenario port's far end (connections' own access lines never lead to a switch).
    far: Vec<NodeId>,
    /// Each node's salt, drawn from the run's seed and the node's name.
    salts: Vec<u64>,
    /// By flow index (the scenario's flows, then connections' slots): how its packets are
    /// forwarded, or `None` along its route.
    chosen: Vec<Option<Chosen>>,
    /// Flowlet switching's tables: by switch and conversation key, the next hop of the current
    /// flowlet and when its last packet passed.
    flowlets: fnv::FnvHashMap<(u32, u64), (Time, PortId)>,
    flowlet_timeout: Time,
}

#[derive(Copy, Clone)]
struct Chosen {
    how: Forwarding,
    /// The hash keys of its data and of its ACKs (`multipath::conversation_key`).
    keys: [u64; 2],
}

impl Forwarder {
    /// The forwarder of a run of `scenario` seeded `seed`; `None` if every flow has a fixed route.
    pub fn new(scenario: &Scenario, seed: u64) -> Option<Box<Forwarder>> {
        if scenario.flows.iter().all(|f| f.forwarding == Forwarding::Static && !f.draws_ends()) {
            return None;
        }
        let ends: Vec<(NodeId, NodeId)> = scenario.ports.iter().map(|p| (p.from, p.to)).collect();
        let salts =
            scenario.nodes.iter().map(|name| crate::rng::stream(seed, &format!("ecmp:{name}")).random()).collect();
        let mut forwarder = Forwarder {
            paths: Arc::new(EqualCost::new(scenario.nodes.len(), &ends)),
            healthy: None,
            far: ends.iter().map(|&(_, to)| to).collect(),
            salts,
            chosen: vec![],
            flowlets: Default::default(),
            flowlet_timeout: scenario.run.flowlet_timeout,
        };
        for (i, f) in scenario.flows.iter().enumerate() {
            forwarder.set(i, f.forwarding, f.src, f.dst, i as u64);
        }
        Some(Box::new(forwarder))
    }

    /// Flow index `flow` (one set before: a connection's slot taken again) is forwarded `how`,
    /// between `src` and `dst`, as conversation number `conversation`.
    pub fn set(&mut self, flow: usize, how: Forwarding, src: NodeId, dst: NodeId, conversation: u64) {
        if flow >= self.chosen.len() {
            self.chosen.resize(flow + 1, None);
        }
        let key = |ack| crate::net::multipath::conversation_key(src, dst, conversation, ack);
        self.chosen[flow] = (how != Forwarding::Static).then(|| Chosen { how, keys: [key(false), key(true)] });
    }

    /// Connection `c` (a slot taken again, perhaps) runs between `src` and `dst`. A connection
    /// between hosts its population draws is forwarded at each switch even when its flow is
    /// static: it has no route, and takes the first next hop at every switch.
    pub fn set_connection(
        &mut self,
        c: usize,
        how: Forwarding,
        src: NodeId,
        dst: NodeId,
        conversation: u64,
        drawn: bool,
    ) {
        self.set(c, how, src, dst, conversation);
        if drawn && how == Forwarding::Static {
            let key = |ack| crate::net::multipath::conversation_key(src, dst, conversation, ack);
            self.chosen[c] = Some(Chosen { how, keys: [key(false), key(true)] });
        }
    }

    /// Whether flow index `flow`'s packets are forwarded at each switch (not along a route).
    pub fn is_forwarded(&self, flow: usize) -> bool {
        self.chosen.get(flow).is_some_and(Option::is_some)
    }

    /// Host `n`'s line (its only port).
    pub fn line(&self, n: NodeId) -> PortId {
        self.paths.ports_from(n)[0]
    }

    /// The port into host `n` (its line's other direction), if `n` is a host.
    pub fn line_into(&self, n: NodeId) -> Option<PortId> {
        self.paths.way_in(n)
    }

    /// Forwarding learns that each port of `ports` is down or not: the next hops are found again
    /// if that changes what it knew.
    pub fn learn(&mut self, ports: &[(PortId, bool)]) {
        let ends = self.far.len();
        let (_, down) = self.healthy.get_or_insert_with(|| (Box::new(self.paths.healthy()), vec![false; ends]));
        let mut changed = false;
        for &(p, is_down) in ports {
            changed |= std::mem::replace(&mut down[p.idx()], is_down) != is_down;
        }
        if changed {
            Arc::make_mut(&mut self.paths).set_down(down);
        }
    }

    /// Makes every table `scenario`'s packets may need (toward every host where a population
    /// draws its connections' ends, else toward each flow's ends), and shares them with
    /// `others`' forwarders (the other partitions of a parallel run of it).
    pub fn share_paths<'a>(&mut self, scenario: &Scenario, others: impl Iterator<Item = &'a mut Forwarder>) {
        let paths = Arc::make_mut(&mut self.paths);
        if scenario.flows.iter().any(|f| f.draws_ends()) {
            let hosts = paths.hosts();
            paths.make_tables_toward(hosts);
        } else {
            paths.make_tables_toward(scenario.flows.iter().flat_map(|f| [f.src, f.dst]));
        }
        others.for_each(|other| other.paths = Arc::clone(&self.paths));
    }

    /// The next hops from `at` toward `dst`: on the network as built (`as_built`), or as
    /// forwarding knows it now (without the failed links it has learnt of).
    fn ways(&mut self, as_built: bool, at: NodeId, dst: NodeId) -> &[PortId] {
        if as_built && self.healthy.is_some() {
            return self.healthy.as_mut().map_or(&[], |(healthy, _)| healthy.choices(at, dst));
        }
        if let Err(anchor) = self.paths.made_choices(at, dst) {
            make_table(&mut self.paths, anchor);
        }
        self.paths.made_choices(at, dst).unwrap_or_default()
    }

    /// The ports of the path from `src` to `dst` that takes the first next hop at every node, on
    /// the network as built.
    pub fn first_path(&mut self, src: NodeId, dst: NodeId) -> Vec<PortId> {
        let mut path = vec![];
        let mut at = src;
        while at != dst {
            let Some(&p) = self.ways(true, at, dst).first() else { break };
            path.push(p);
            at = self.far[p.idx()];
        }
        path
    }

    /// The one path every data packet (or every ACK, `ack`) of flow index `flow` from `src` to
    /// `dst` takes, if its forwarding fixes one: the first next hop at every switch, or ECMP's
    /// hash of its key; `None` where each packet may take its own (spraying, permuting, the
    /// adaptive and flowlet choices) or the flow follows its route. Its first port is the first
    /// next hop from `src` (a host's line), as the flow's packets leave. `as_built`: on the
    /// network without failures, else as forwarding knows it now.
    pub fn fixed_path(
        &mut self,
        flow: usize,
        src: NodeId,
        dst: NodeId,
        ack: bool,
        as_built: bool,
    ) -> Option<Vec<PortId>> {
        let chosen = (*self.chosen.get(flow)?)?;
        if !matches!(chosen.how, Forwarding::Static | Forwarding::Ecmp) {
            return None;
        }
        let key = chosen.keys[usize::from(ack)];
        let mut path = vec![];
        let mut at = src;
        while at != dst && path.len() < self.far.len() {
            let salt = self.salts[at.idx()];
            let first = path.is_empty();
            let ways = self.ways(as_built, at, dst);
            let i = match (ways.len(), chosen.how) {
                (0, _) => return Some(path),
                (1, _) | (_, Forwarding::Static) => 0,
                _ if first => 0,
                (n, _) => ecmp_pick(key, salt, n),
            };
            let p = ways[i];
            path.push(p);
            at = self.far[p.idx()];
        }
        Some(path)
    }

    /// The least total `cost` of the fewest-hop paths from `src` to `dst` (each port's cost,
    /// summed), on the network as built or as forwarding knows it now (`as_built`); `None` if
    /// `dst` cannot be reached.
    pub fn least(&mut self, src: NodeId, dst: NodeId, as_built: bool, cost: &dyn Fn(PortId) -> u64) -> Option<u64> {
        let mut known = std::collections::HashMap::new();
        self.least_from(src, dst, as_built, cost, &mut known)
    }

    fn least_from(
        &mut self,
        at: NodeId,
        dst: NodeId,
        as_built: bool,
        cost: &dyn Fn(PortId) -> u64,
        known: &mut std::collections::HashMap<NodeId, Option<u64>>,
    ) -> Option<u64> {
        if at == dst {
            return Some(0);
        }
        if let Some(&least) = known.get(&at) {
            return least;
        }
        known.insert(at, None); // a way back to `at` is no way: fewest-hop paths never loop
        let ways = self.ways(as_built, at, dst).to_vec();
        let least = ways
            .into_iter()
            .filter_map(|p| Some(cost(p) + self.least_from(self.far[p.idx()], dst, as_built, cost, known)?))
            .min();
        known.insert(at, least);
        least
    }

    /// The port `pkt`, just arrived over port `p` at `now`, leaves by; `None` if its flow
    /// follows its route, or if it has reached its destination.
    #[inline]
    pub fn next(&mut self, p: PortId, pkt: &Packet, ports: &PortTable, now: Time) -> Option<PortId> {
        let chosen = (*self.chosen.get(pkt.conn.idx())?)?;
        let at = self.far[p.idx()];
        if at == pkt.dst {
            return None;
        }
        let salt = self.salts[at.idx()];
        let key = chosen.keys[usize::from(!pkt.is_data())];
        let choices = match self.paths.made_choices(at, pkt.dst) {
            Ok(choices) => choices,
            Err(anchor) => {
                make_table(&mut self.paths, anchor);
                self.paths.made_choices(at, pkt.dst).unwrap_or_default()
            }
        };
        let n = choices.len();
        let i = match (n, chosen.how) {
            (1, _) | (_, Forwarding::Static) => 0,
            (_, Forwarding::Spray) => spray_pick(key, salt, pkt, n),
            (_, Forwarding::Permute) => permute_pick(key, salt, pkt, n),
            (_, Forwarding::Adaptive) => least_occupied(choices, ecmp_pick(key, salt, n), ports),
            (_, Forwarding::Flowlet) => {
                let drawn = choices[spray_pick(key, salt, pkt, n)];
                return Some(flowlet(&mut self.flowlets, self.flowlet_timeout, (at, key), drawn, choices, now));
            }
            _ => ecmp_pick(key, salt, n),
        };
        Some(choices[i])
    }
}

/// Makes the table toward `anchor` that the forwarder's tables lack: in a copy of the
/// partition's own if they are shared (`Forwarder::share_paths`).
#[cold]
#[inline(never)]
fn make_table(paths: &mut Arc<EqualCost>, anchor: NodeId) {
    Arc::make_mut(paths).make_table(anchor);
}

/// The next hop at switch `at` of conversation `key`'s packet arriving at `now`, from the
/// switch's flowlet table: its flowlet's hop, or `drawn` if the gap since its last packet
/// exceeds `timeout`, if it has none yet, or if forwarding no longer offers its hop among
/// `choices` (its link failed). One lookup of the table a packet.
#[inline(never)]
fn flowlet(
    table: &mut fnv::FnvHashMap<(u32, u64), (Time, PortId)>,
    timeout: Time,
    (at, key): (NodeId, u64),
    drawn: PortId,
    choices: &[PortId],
    now: Time,
) -> PortId {
    let entry = table.entry((at.0, key)).or_insert((now, drawn));
    if now.saturating_sub(entry.0) > timeout || !choices.contains(&entry.1) {
        entry.1 = drawn;
    }
    entry.0 = now;
    entry.1
}

/// The index of the port among `choices` whose queue holds the fewest bytes: the first such in
/// order from `from`, wrapping round.
fn least_occupied(choices: &[PortId], from: usize, ports: &PortTable) -> usize {
    let n = choices.len();
    (0..n).map(|k| (from + k) % n).min_by_key(|&i| ports[choices[i].idx()].queued_bytes()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::multipath::{conversation_key, mix};
    use crate::net::routing::Graph;
    use crate::net::{FlowId, PacketKind};

    /// A k-ary fat-tree with a flow from each host of the first pod to the host opposite.
    fn fat_tree(k: usize, forwarding: &str) -> Scenario {
        let hosts = k * k * k / 4;
        let flows: String = (0..k * k / 4)
            .map(|h| {
                format!(
                    "f{h} = {{ src = \"h{h}\", dst = \"h{}\", app = \"ftp\", transport = \"reno\" }}\n",
                    hosts - 1 - h
                )
            })
            .collect();
        let text = format!(
            "[run]\nduration = \"1ms\"\nforwarding = \"{forwarding}\"\n[topology]\nkind = \"fat_tree\"\nk = {k}\n\
             hosts = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[flows]\n{flows}"
        );
        Scenario::parse(&text, "t.toml", &[]).expect("a valid scenario")
    }

    /// The ports a packet of flow `f` (its ACKs if `ack`) crosses, packet id `id`.
    fn path(sc: &Scenario, fw: &mut Forwarder, f: usize, ack: bool, id: u64) -> Vec<PortId> {
        path_at(sc, fw, f, ack, id, Time::ZERO)
    }

    /// The same, for a packet forwarded at `now`.
    /// Packet `id` is the conversation's `id`-th (its sequence number too: spraying hashes that).
    fn path_at(sc: &Scenario, fw: &mut Forwarder, f: usize, ack: bool, id: u64, now: Time) -> Vec<PortId> {
        let spec = &sc.flows[f];
        let (src, dst, kind) =
            if ack { (spec.dst, spec.src, PacketKind::Ack) } else { (spec.src, spec.dst, PacketKind::Data) };
        let flow = FlowId::from_idx(f);
        let pkt = Packet { id, seq: id, flow, conn: flow, src, dst, ..Packet::blank() }.with_kind(kind);
        let mut ports = vec![if ack { spec.ack_route[0] } else { spec.data_route[0] }];
        while let Some(next) = fw.next(*ports.last().unwrap(), &pkt, &PortTable::default(), now) {
            ports.push(next);
        }
        ports
    }

    #[test]
    fn ecmp_takes_the_next_hop_its_documented_hash_names_at_each_switch() {
        let sc = fat_tree(4, "ecmp");
        let seed = 7;
        let mut fw = Forwarder::new(&sc, seed).expect("multipath flows");
        let ends: Vec<(NodeId, NodeId)> = sc.ports.iter().map(|p| (p.from, p.to)).collect();
        let graph = Graph::new(sc.nodes.len(), &ends);
        let hops =
            |a: NodeId, b: NodeId| if a == b { 0 } else { graph.shortest_path(a, b).map_or(usize::MAX, |p| p.len()) };
        for (f, spec) in sc.flows.iter().enumerate() {
            for ack in [false, true] {
                let (src, dst) = if ack { (spec.dst, spec.src) } else { (spec.src, spec.dst) };
                let key = conversation_key(spec.src, spec.dst, f as u64, ack);
                // computed here from the module's description, with a search of its own
                let mut want = vec![if ack { spec.ack_route[0] } else { spec.data_route[0] }];
                let mut at = ends[want[0].idx()].1;
                while at != dst {
                    let closer: Vec<usize> = (0..ends.len())
                        .filter(|&p| ends[p].0 == at && hops(ends[p].1, dst) + 1 == hops(at, dst))
                        .collect();
                    let salt: u64 = crate::rng::stream(seed, &format!("ecmp:{}", sc.nodes[at.idx()])).random();
                    let p = closer[(mix(key ^ salt) % closer.len() as u64) as usize];
                    want.push(PortId::from_idx(p));
                    at = ends[p].1;
                }
                assert_eq!(path(&sc, &mut fw, f, ack, 0), want, "flow {f}, ACKs {ack}");
                assert_eq!(want.len(), hops(src, dst));
            }
        }
    }

    #[test]
    fn an_ended_run_lets_go_of_its_tables() {
        let sc = fat_tree(4, "ecmp");
        let mut sim = crate::engine::Simulation::new(&sc, None, Some(3)).unwrap();
        let mut delivered_before_end = 0;
        while !sim.run_events(1) {
            assert!(sim.forwarder.is_some(), "packets are forwarded until the end");
            delivered_before_end = sim.flows.iter().map(|f| f.counters.delivered).sum();
        }
        assert!(delivered_before_end > 0, "the run forwarded packets");
        assert!(sim.forwarder.is_none(), "nothing reads the tables once the run has ended");
    }

    #[test]
    fn partitions_share_the_tables_made_before_the_split_and_make_others_in_a_copy_of_their_own() {
        let sc = fat_tree(4, "ecmp");
        let (mut first, mut other) = (Forwarder::new(&sc, 3).unwrap(), Forwarder::new(&sc, 3).unwrap());
        first.share_paths(&sc, std::iter::once(&mut *other));
        assert!(Arc::ptr_eq(&first.paths, &other.paths));
        // each flow runs between the first pod's racks and the last pod's: those racks' tables
        assert_eq!(first.paths.tables_made(), 4, "the tables toward the flows' ends only");
        let mut alone = Forwarder::new(&sc, 3).unwrap();
        for f in 0..sc.flows.len() {
            for ack in [false, true] {
                assert_eq!(path(&sc, &mut other, f, ack, 0), path(&sc, &mut alone, f, ack, 0));
            }
        }
        assert!(Arc::ptr_eq(&first.paths, &other.paths), "every table a host's packet needs was made");
        // a way toward a switch needs a table no host's does
        let (host, switch) = (sc.flows[0].src, sc.ports[sc.flows[0].data_route[0].idx()].to);
        let core = sc.nodes.iter().position(|n| n.starts_with('c')).map(NodeId::from_idx).expect("a core switch");
        assert_eq!(other.first_path(host, core), alone.first_path(host, core));
        assert!(!Arc::ptr_eq(&first.paths, &other.paths), "made in a copy of its own");
        assert_eq!(first.first_path(host, switch), alone.first_path(host, switch));
    }

    #[test]
    fn a_permuted_flow_takes_every_path_once_per_pass_in_a_new_order_each_pass() {
        let sc = fat_tree(8, "permute");
        let mut fw = Forwarder::new(&sc, 5).unwrap();
        let spec = &sc.flows[0];
        let flow = FlowId(0);
        // data packet `seq` of flow 0 (h0 to h127, another pod: 16 paths), hop by hop
        // a retransmission (sent at `resent` ns > 0) is sprayed instead
        let mut way = |seq: u64, resent: u64| {
            // as the ports count them: one hop more at each arrival
            let sent_at = Time(resent);
            let mut pkt =
                Packet { seq, sent_at, flow, conn: flow, src: spec.src, dst: spec.dst, hop: 1, ..Packet::blank() }
                    .with_retransmission(resent > 0);
            let mut ports = vec![spec.data_route[0]];
            while let Some(next) = fw.next(*ports.last().unwrap(), &pkt, &PortTable::default(), Time::ZERO) {
                ports.push(next);
                pkt.hop += 1;
            }
            ports
        };
        let passes: Vec<Vec<Vec<PortId>>> =
            (0..3).map(|p| (16 * p..16 * p + 16).map(|s| way(s, 0)).collect()).collect();
        for pass in &passes {
            let distinct: std::collections::HashSet<_> = pass.iter().collect();
            assert_eq!(distinct.len(), 16, "every path once in a pass");
        }
        assert!(passes[0] != passes[1] && passes[1] != passes[2], "a new order each pass");
        assert_eq!(way(3, 0), passes[0][3], "the same packet, the same path");
        let resent: std::collections::HashSet<_> = (1..=32).map(|at| way(3, at)).collect();
        assert!(resent.len() > 4, "retransmissions of one packet take {} paths", resent.len());
    }

    #[test]
    fn ecmp_repeats_with_the_seed_and_places_flows_anew_with_another() {
        let sc = fat_tree(8, "ecmp");
        let paths = |seed| {
            let mut fw = Forwarder::new(&sc, seed).unwrap();
            (0..sc.flows.len()).map(|f| path(&sc, &mut fw, f, false, f as u64)).collect::<Vec<_>>()
        };
        assert_eq!(paths(1), paths(1));
        let (one, two) = (paths(1), paths(2));
        let moved = one.iter().zip(&two).filter(|(a, b)| a != b).count();
        assert!(moved > sc.flows.len() / 2, "{moved} of {} flows moved", sc.flows.len());
    }

    #[test]
    fn ecmp_spreads_conversations_evenly_over_the_cores() {
        // 4,000 conversations from h0 to the far pod over a k = 8 fat-tree's 16 cores: each core's
        // count is binomial (4,000, 1/16), mean 250, sd 15.3; a chi-square over 15 degrees of
        // freedom above 37.7 has a chance of 0.1%
        let sc = fat_tree(8, "ecmp");
        let mut fw = Forwarder::new(&sc, 3).unwrap();
        let core = |p: &[PortId]| sc.ports[p[2].idx()].to;
        let mut counts = std::collections::HashMap::new();
        for c in 0..4000u64 {
            fw.set(0, Forwarding::Ecmp, sc.flows[0].src, sc.flows[0].dst, 1000 + c);
            *counts.entry(core(&path(&sc, &mut fw, 0, false, 0))).or_insert(0.0) += 1.0;
        }
        assert_eq!(counts.len(), 16, "every core carries some");
        let chi2: f64 = counts.values().map(|&n: &f64| (n - 250.0).powi(2) / 250.0).sum();
        assert!(chi2 < 37.7, "chi-square {chi2}");
    }

    #[test]
    fn a_flowlet_keeps_its_path_until_a_gap_longer_than_the_timeout() {
        let sc = fat_tree(8, "flowlet");
        assert_eq!(sc.run.flowlet_timeout, Time::from_micros(500), "the default");
        let mut fw = Forwarder::new(&sc, 3).unwrap();
        let us = Time::from_micros;
        // packets 1 µs apart, 400 of them: one flowlet, one path, whatever their ids
        let first = path_at(&sc, &mut fw, 0, false, 0, Time::ZERO);
        assert!((1..400).all(|i| path_at(&sc, &mut fw, 0, false, i, us(i)) == first));
        // a gap of exactly the timeout keeps it; each longer gap starts a flowlet on a new draw
        assert_eq!(path_at(&sc, &mut fw, 0, false, 400, us(899)), first);
        let cores: std::collections::HashSet<NodeId> = (1..=400)
            .map(|k| sc.ports[path_at(&sc, &mut fw, 0, false, 1000 + k, us(899 + 501 * k))[2].idx()].to)
            .collect();
        assert_eq!(cores.len(), 16, "400 flowlets of one flow reach every core");
    }

    #[test]
    fn spraying_places_each_packet_anew() {
        let sc = fat_tree(8, "spray");
        let mut fw = Forwarder::new(&sc, 3).unwrap();
        let cores: std::collections::HashSet<NodeId> =
            (0..400).map(|id| sc.ports[path(&sc, &mut fw, 0, false, id)[2].idx()].to).collect();
        assert_eq!(cores.len(), 16, "400 packets of one flow reach every core");
    }
}
