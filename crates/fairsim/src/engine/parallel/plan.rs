//! Whether a run splits into partitions that can advance side by side, and how: each node's
//! partition, the ports that cross between partitions, and the lookahead (the smallest delay of
//! a crossing link, which bounds a window).
//!
//! A run splits only if what one partition does never reads what another holds between the
//! windows' ends: so not with a shared buffer or adaptive forwarding (they read other ports'
//! queues), connections on their own copies of an access line (the copies are made as slots
//! are, and named by them), captures and fluid records (they write packet ids, which partitions
//! number apart), or Python components (they take the interpreter's lock). Such a run goes on
//! one thread and says why.
//! What crosses between partitions goes as mail at a window's end (`replica`): packets with
//! their SACK blocks and in-band telemetry, and PFC's pause frames, each taking at least a
//! link's delay. The network's changes (`[[events]]`) are known before the run, so every
//! partition makes them at their instants (`failures`). Receiver-driven pulls are paced by
//! their sink's host, in its partition.
//!
//! The partition is chosen from the topology (docs/decisions.md, "One run on every core"):
//! links without delay join their ends; a node with one neighbour (a host) joins it; the
//! groups that hold hosts are split into contiguous runs of equal weight in the order of their
//! first host, which follows racks and pods in generated fabrics; every other group
//! (aggregation and core switches) then joins the partition it has most links to, the lightest
//! one on a tie. A node weighs a port each, or the packets a probe of the run counted on its
//! ports (`balance`).

use crate::engine::sim::Simulation;
use crate::net::{Forwarding, PortId};
use crate::scenario::Scenario;
use crate::traffic::population::{Population, Sizes};
use crate::traffic::Source;
use crate::units::Time;

/// How a run splits.
pub(in crate::engine) struct Plan {
    pub parts: usize,
    /// Each scenario port's near and far ends' partitions.
    pub near: Vec<u16>,
    pub far: Vec<u16>,
    /// Each scenario flow's source's and sink's partitions.
    pub ends: Vec<(u16, u16)>,
    /// By scenario flow, whether it is a population (its start makes its connections).
    pub population: Vec<bool>,
    /// Whether some connection may finish, and its slot be taken again (`slots`).
    pub finite: bool,
    /// Each node's partition.
    pub node: Vec<u16>,
    /// By partition, the ports it sends on whose far end is in another partition: what it
    /// hands over at each window's end.
    pub cut: Vec<Vec<PortId>>,
    /// By port, whether the network's changes take its link down at some point.
    pub goes_down: Vec<bool>,
    /// The smallest nonzero delay of any link, so of any cut port: no packet sent in a window
    /// reaches another partition before the window's end; and the wait of a freed connection
    /// slot, so every partition hears of a slot freed in a window before an arrival may take it
    /// (`slots`).
    pub lookahead: Time,
    /// The run's warm-up, whose queueing delays are forgotten.
    pub warmup: Time,
}

impl Plan {
    /// How `sim`, not yet started, splits into `parts` partitions; or why it runs on one thread.
    pub fn of(sim: &Simulation, parts: usize) -> Result<Plan, String> {
        if sim.events_processed > 0 {
            return Err("the run is under way".into());
        }
        Plan::weighed(sim, parts, None)
    }

    /// How `sim` splits into `parts` partitions, its nodes weighed by `work` (each port's
    /// packets in a probe of the same run, `balance`) or, without it, by their ports.
    pub fn weighed(sim: &Simulation, parts: usize, work: Option<&PortWork>) -> Result<Plan, String> {
        if parts < 2 {
            return Err("one thread was given".into());
        }
        if let Some(why) = unsplittable(sim) {
            return Err(why);
        }
        let sc = sim.scenario();
        let (node, lookahead) = partition(sc, parts, work)?;
        // the same smallest delay by construction; held in release builds too
        let lookahead = lookahead.min(sim.connections.reuse_after);
        let near: Vec<u16> = sc.ports.iter().map(|p| node[p.from.idx()]).collect();
        let far: Vec<u16> = sc.ports.iter().map(|p| node[p.to.idx()]).collect();
        let mut cut = vec![vec![]; parts];
        for i in (0..sc.ports.len()).filter(|&i| near[i] != far[i]) {
            cut[near[i] as usize].push(PortId(i as u32));
        }
        let ends = sc.flows.iter().map(|f| (node[f.src.idx()], node[f.dst.idx()])).collect();
        let population = sc.flows.iter().map(|f| matches!(f.app.source(), Source::Population(_))).collect();
        let finite = sc.flows.iter().any(|f| matches!(f.app.source(), Source::Population(p) if !endless(&p)));
        let mut goes_down = vec![false; sc.ports.len()];
        for c in sim.changes.iter().filter(|c| c.what == crate::engine::changes::What::Down) {
            c.ports.iter().for_each(|p| goes_down[p.idx()] = true);
        }
        let warmup = sc.run.warmup;
        Ok(Plan { parts, near, far, ends, population, finite, goes_down, node, cut, lookahead, warmup })
    }

    /// By port, whether partition `me` holds it: it sends on it, or the port brings packets to
    /// it (its copy of a cut link's pipe).
    pub fn held_by(&self, me: u16) -> Vec<bool> {
        self.near.iter().zip(&self.far).map(|(&near, &far)| near == me || far == me).collect()
    }

    /// Whether each partition holds only its own ports (`engine::port_table`): where the copies
    /// of the others' ports would take at least `OWN_PORTS_FROM` over all partitions. Below it a
    /// partition holds every port, which the loop reads one step sooner (holding only its own
    /// took 2.5% more instructions on the k = 8 fat-tree and the TCP dumbbell, where the copies
    /// are a few hundred kilobytes).
    pub fn own_ports_only(&self) -> bool {
        // every partition would hold every port; its own are one partition's, a cut one two's
        let own: usize = self.near.iter().zip(&self.far).map(|(near, far)| 1 + usize::from(near != far)).sum();
        let copies = self.parts * self.near.len() - own;
        copies * std::mem::size_of::<crate::node::Port>() >= OWN_PORTS_FROM
    }
}

/// What a probe of a run measured, for weighing its nodes: each node's packets, those its
/// ports took in (arrivals at their queues, drops included) and those that reached it, plus
/// one for each of its ports, so that no node weighs nothing; and the packets taken in, in all.
pub(in crate::engine) struct PortWork {
    pub nodes: Vec<u64>,
    pub packets: u64,
}

impl PortWork {
    /// The counts of `probed`'s ports so far.
    pub fn of(probed: &Simulation) -> PortWork {
        let sc = probed.scenario();
        let (mut nodes, mut packets) = (vec![0u64; sc.nodes.len()], 0);
        for (i, spec) in sc.ports.iter().enumerate() {
            let (arrived, sent) = probed.ports.get(i).map_or((0, 0), |port| {
                let now = (port.stats.current.arrivals, port.stats.current.departures);
                port.stats.intervals.iter().fold(now, |(a, s), c| (a + c.arrivals, s + c.departures))
            });
            nodes[spec.from.idx()] += 1 + arrived;
            nodes[spec.to.idx()] += sent;
            packets += arrived;
        }
        PortWork { nodes, packets }
    }

    /// The measured work of `plan`'s busiest partition.
    pub fn busiest(&self, plan: &Plan) -> u64 {
        let mut load = vec![0u64; plan.parts];
        self.nodes.iter().zip(&plan.node).for_each(|(w, &part)| load[part as usize] += w);
        load.into_iter().max().unwrap_or(0)
    }
}

/// The memory the copies of other partitions' ports may take, over all partitions, before each
/// holds only its own: a k = 32 fat-tree's copies on 2 threads (20 MiB, of 312-byte ports) stay,
/// on 4 (60 MiB) too, and a k = 64 one's on 2 (161 MiB) go.
const OWN_PORTS_FROM: usize = 64 << 20;

/// Why the run cannot split, if it cannot.
fn unsplittable(sim: &Simulation) -> Option<String> {
    let sc = sim.scenario();
    let why = |s: &str| Some(s.to_string());
    if sc.shared_buffer.is_some() {
        return why("a shared buffer reads the queues of other ports");
    }
    if !sc.run.pcap.is_empty() || !sc.run.events.is_empty() || !sc.run.fluid_reference.is_empty() {
        return why("captures, event logs and fluid references write packet ids, which partitions number apart");
    }
    for (i, f) in sc.flows.iter().enumerate() {
        if f.forwarding == Forwarding::Adaptive {
            return why("adaptive forwarding reads the queues of other ports");
        }
        if matches!(f.app.source(), Source::Population(_)) && sc.copied_access_line(i).is_some() {
            return why("connections on their own copies of an access line are made as their slots are freed");
        }
    }
    let foreign_qdisc = sim.port_qdiscs().iter().any(|c| crate::qdisc::builtin(&c.kind).is_none());
    let foreign_transport =
        sim.flow_transports().iter().flatten().any(|c| crate::transport::builtin(&c.kind).is_none());
    if foreign_qdisc || foreign_transport {
        return why("a Python component runs under the interpreter's one lock");
    }
    None
}

/// Whether a population's connections are files without end (a permutation's), which never
/// finish.
fn endless(population: &Population) -> bool {
    matches!(population, Population::Batch { sizes: Sizes::Packets(None), .. })
}

/// Each node's partition and the lookahead, or why the network does not split usefully; the
/// nodes weighed by `work`, or by their ports.
fn partition(sc: &Scenario, parts: usize, work: Option<&PortWork>) -> Result<(Vec<u16>, Time), String> {
    let n = sc.nodes.len();
    let Some(lookahead) = sc.ports.iter().map(|p| p.delay).filter(|d| *d > Time::ZERO).min() else {
        return Err("every link is without delay, so no partition may run ahead of another".into());
    };
    let mut groups = UnionFind::new(n);
    let mut neighbours: Vec<Vec<usize>> = vec![vec![]; n];
    for p in &sc.ports {
        let (a, b) = (p.from.idx(), p.to.idx());
        if p.delay < lookahead {
            groups.join(a, b);
        }
        if !neighbours[a].contains(&b) {
            neighbours[a].push(b);
        }
    }
    for (a, near) in neighbours.iter().enumerate() {
        if let [b] = near[..] {
            groups.join(a, b);
        }
    }
    let group: Vec<usize> = (0..n).map(|a| groups.root(a)).collect();
    let mut members: Vec<Vec<usize>> = vec![vec![]; n];
    (0..n).for_each(|a| members[group[a]].push(a));
    let mut weight = vec![0u64; n]; // by group
    match work {
        Some(work) => work.nodes.iter().enumerate().for_each(|(a, w)| weight[group[a]] += w),
        None => sc.ports.iter().for_each(|p| weight[group[p.from.idx()]] += 1),
    }
    // groups holding hosts (flows' ends, and nodes with one neighbour), in the order of their
    // first host
    let mut placed = vec![false; n];
    let mut rooted: Vec<usize> = vec![];
    let mut ends: Vec<usize> = sc.flows.iter().flat_map(|f| [f.src.idx(), f.dst.idx()]).collect();
    ends.extend((0..n).filter(|&a| neighbours[a].len() == 1));
    ends.sort_unstable();
    for a in ends {
        if !std::mem::replace(&mut placed[group[a]], true) {
            rooted.push(group[a]);
        }
    }
    let total_rooted: u64 = rooted.iter().map(|&g| weight[g]).sum();
    let mut part_of_group = vec![u16::MAX; n];
    let mut load = vec![0u64; parts];
    let mut so_far = 0;
    for &g in &rooted {
        let part = ((so_far * parts as u64) / total_rooted.max(1)).min(parts as u64 - 1) as usize;
        part_of_group[g] = part as u16;
        load[part] += weight[g];
        so_far += weight[g];
    }
    // the other groups, a layer at a time outwards from those placed
    let mut links_to = vec![0u64; parts];
    let mut frontier = rooted;
    let mut unplaced = (0..n).filter(|&g| group[g] == g && !placed[g]).count();
    while unplaced > 0 {
        let mut layer: Vec<usize> = vec![];
        for g in frontier.drain(..) {
            for &a in &members[g] {
                for &b in &neighbours[a] {
                    if !std::mem::replace(&mut placed[group[b]], true) {
                        layer.push(group[b]);
                    }
                }
            }
        }
        if layer.is_empty() {
            // a part of the network no flow's end reaches: the lightest partition takes it
            let g = (0..n).find(|&g| group[g] == g && !placed[g]).expect("one is left");
            placed[g] = true;
            layer.push(g);
        }
        layer.sort_unstable();
        for &h in &layer {
            links_to.iter_mut().for_each(|l| *l = 0);
            for &a in &members[h] {
                for &b in &neighbours[a] {
                    if let Some(l) = links_to.get_mut(part_of_group[group[b]] as usize) {
                        *l += 1;
                    }
                }
            }
            let best = (0..parts).max_by_key(|&p| (links_to[p], std::cmp::Reverse(load[p]), std::cmp::Reverse(p)));
            let part = best.unwrap_or(0);
            part_of_group[h] = part as u16;
            load[part] += weight[h];
        }
        unplaced -= layer.len();
        frontier = layer;
    }
    let total: u64 = load.iter().sum();
    let heaviest = load.iter().copied().max().unwrap_or(0);
    if load.contains(&0) || heaviest * parts as u64 > total * 3 / 2 {
        return Err(format!(
            "the network does not split into {parts} even parts (the heaviest would hold {heaviest} of its {total} \
             {}): one bottleneck or too few switches",
            if work.is_some() { "packets' work" } else { "ports" }
        ));
    }
    Ok(((0..n).map(|a| part_of_group[group[a]]).collect(), lookahead))
}

/// Groups of nodes joined pairwise.
struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind((0..n).collect())
    }
    fn root(&mut self, mut a: usize) -> usize {
        while self.0[a] != a {
            self.0[a] = self.0[self.0[a]];
            a = self.0[a];
        }
        a
    }
    /// Joins the groups of `a` and `b`, under the smaller root.
    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        self.0[hi] = lo;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fat_tree(k: u32, extra: &str) -> Simulation {
        let text = format!(
            r#"
[run]
duration = "1ms"
forwarding = "ecmp"
{extra}
[topology]
kind = "fat_tree"
k = {k}
hosts = {{ rate = "10Gbps", delay = "1us", buffer = 100 }}
[workloads.perm]
pattern = "permutation"
transport = {{ kind = "newreno" }}
"#
        );
        let sc = Scenario::parse(&text, "f.toml", &[]).unwrap();
        Simulation::new(&sc, None, Some(1)).unwrap()
    }

    #[test]
    fn a_fat_tree_splits_by_pods_with_the_cores_shared_out() {
        let sim = fat_tree(4, "");
        let plan = Plan::of(&sim, 2).unwrap();
        let sc = sim.scenario();
        let part = |name: &str| plan.node[sc.nodes.iter().position(|n| n == name).unwrap()];
        // pods 0-1 and 2-3: each host with its ToR, each ToR with its pod's aggregation switches
        for (h, tor, agg) in
            [("h0", "tor0", "agg0"), ("h7", "tor3", "agg3"), ("h8", "tor4", "agg5"), ("h15", "tor7", "agg6")]
        {
            assert_eq!((part(h), part(tor)), (part(tor), part(agg)), "{h}");
        }
        assert_ne!(part("h0"), part("h15"));
        let cores: Vec<u16> = (0..4).map(|c| part(&format!("core{c}"))).collect();
        assert_eq!(cores.iter().filter(|&&p| p == 0).count(), 2, "cores {cores:?}");
        assert_eq!(plan.lookahead, Time::from_micros(1));
        for (part, cut) in plan.cut.iter().enumerate() {
            assert!(cut.iter().all(|p| plan.near[p.idx()] == part as u16 && plan.far[p.idx()] != part as u16));
        }
    }

    #[test]
    fn runs_that_read_across_partitions_stay_on_one_thread() {
        let refused = |extra: &str| Plan::of(&fat_tree(4, extra), 2).err().unwrap();
        assert!(refused("pcap = [\"h0->tor0\"]").contains("packet ids"));
        assert!(Plan::of(&fat_tree(4, ""), 1).is_err());
        // spraying hashes what every partition knows alike, not packet ids: it splits
        let mut spray = fat_tree(4, "").scenario().clone();
        spray.flows.iter_mut().for_each(|f| f.forwarding = Forwarding::Spray);
        assert!(Plan::of(&Simulation::new(&spray, None, Some(1)).unwrap(), 2).is_ok());
    }

    #[test]
    fn a_network_without_delays_does_not_split() {
        let text = r#"
nodes = ["a", "r1", "r2", "b"]
[run]
duration = "1s"
[links]
l1 = { between = ["a", "r1"], rate = "1Mbps", delay = "0s" }
l2 = { between = ["r1", "r2"], rate = "1Mbps", delay = "0s" }
l3 = { between = ["r2", "b"], rate = "1Mbps", delay = "0s" }
[flows]
f = { src = "a", dst = "b", app = "ftp" }
"#;
        let sc = Scenario::parse(text, "n.toml", &[]).unwrap();
        let sim = Simulation::new(&sc, None, Some(1)).unwrap();
        assert!(Plan::of(&sim, 2).err().unwrap().contains("without delay"));
    }
}
