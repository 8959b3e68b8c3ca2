//! Per-switch forwarding over equal-cost paths: each switch's next hops toward each destination,
//! and how a packet chooses among them (ECMP's hash, per-packet spraying, least occupied).
//!
//! Sources: flowlet switching as LetFlow (Vanini, Pan, Alizadeh, Taheri & Edsall, "Let It Flow:
//! Resilient Asymmetric Load Balancing with Flowlet Switching", NSDI 2017) does it: a switch
//! keeps, per flow, the next hop of its current flowlet and when its last packet passed; a packet
//! after a gap longer than the flowlet timeout starts a new flowlet on a next hop chosen at
//! random. ECMP as RFC 2992 (Hopps, "Analysis of an Equal-Cost Multi-Path Algorithm", 2000)
//! describes it, the hash-threshold method: a hash of the packet's flow fields, reduced modulo
//! the number of next hops, so that all of a flow's packets take one path. Spraying is the same
//! hash over a per-packet value (as htsim's EQDS sources vary a packet's entropy). The adaptive
//! choice (the next hop whose queue holds the fewest bytes) follows the local adaptive routing of
//! htsim's fat-tree switch, without its quantisation of the queue into four levels.
//!
//! Choices the sources leave open, made here:
//! - The next hops of a switch toward a destination are its ports to neighbours one hop closer,
//!   in the order their links are declared (fewest hops is the only cost: rates and delays do
//!   not weigh, as in a fat-tree, where every path between two hosts has the same hops).
//! - The hash is SplitMix64's finaliser (`mix`; Steele, Lea & Flood, OOPSLA 2014) of the
//!   conversation's key XOR the switch's salt, modulo the number of next hops. The key stands
//!   for the five-tuple: source and destination node (the addresses), the conversation's number
//!   (its port: a flow's index, or a connection's arrival number after the flows'), the
//!   direction (data or ACKs, which choose their own paths, as in a real network) and nothing
//!   for the protocol (a flow's is fixed). Each switch's salt is drawn from the run's seed and
//!   the switch's name, so a run repeats with its seed and another seed places flows anew.
//! - Spraying hashes the key with the packet's sequence number and the instant its sender put it
//!   on the network: what every copy of the run knows alike (a parallel run's partitions number
//!   packet ids apart), and different for every transmission of a conversation, so each packet,
//!   retransmissions and duplicate ACKs too, is placed anew.
//! - Permuting (NDP's sender, which cycles through all its paths in an order shuffled anew on
//!   each pass: Handley et al., SIGCOMM 2017; htsim's `-strat perm`, `ndp.cpp` 231–265,
//!   793–802) without a source route, which the packet has no room for: the switch at the ℓ-th
//!   choice of a data packet's way (ℓ = its hops so far, less one: a fat-tree's ToR 0, its
//!   aggregation switch 1) takes digit ℓ, in base n (its number of next hops), of the packet's
//!   sequence number, through a permutation of the n digits that the conversation's key, the
//!   switch's salt and the pass (the sequence number over n^(ℓ+1)) draw. Where every switch at a
//!   level has n next hops (a fat-tree), n^L packets in a row take the n^L paths once each, in
//!   an order that changes from pass to pass. A retransmission, an ACK or a control packet is
//!   sprayed (htsim's retransmission takes its sender's next path; its ACKs its receiver's own
//!   permutation).
//! - A flowlet's next hop is the one spraying would give its first packet (a uniform draw that
//!   repeats with the seed); each switch keeps its own flowlets, per conversation and direction,
//!   as LetFlow's switches do in their flowlet tables (here without a table's size or
//!   collisions: one entry per conversation a switch has seen). The timeout is the run's
//!   `flowlet_timeout`.
//! - Least occupied compares the bytes waiting in each next hop's queue (the packet on the line
//!   not counted); among equals it takes the first from the one ECMP's hash names, in order.
//! - Failed links (`[[events]]`, once forwarding has learnt of them: `set_down`): the next hops
//!   are found on the network without them, as a routing protocol has them once it has
//!   converged (RFC 7938's BGP fabric withdrawing a failed link's routes), fewest hops still the
//!   only cost. A switch left with no way to a destination keeps the next hops it had: its
//!   packets are lost at the first failed link on the way, where they are counted.

use super::packet::{NodeId, Packet, PortId};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// How a flow's packets find their way.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Forwarding {
    /// One fewest-hop path for the flow, fixed when the scenario is loaded (`routing`).
    #[default]
    Static,
    /// Each switch hashes the flow's key: one path per flow (and one per direction).
    Ecmp,
    /// Each switch hashes the flow's key with the packet's id: a path per packet.
    Spray,
    /// A flow's data packets take its paths in turn, every path once per pass, in an order
    /// drawn anew each pass (NDP's sender permutation).
    Permute,
    /// Each switch takes the next hop with the fewest bytes queued.
    Adaptive,
    /// Each switch keeps a flow's next hop until a gap of `flowlet_timeout`, then draws one
    /// at random for the next flowlet (LetFlow).
    Flowlet,
}

impl Forwarding {
    /// The scenario's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Forwarding::Static => "static",
            Forwarding::Ecmp => "ecmp",
            Forwarding::Spray => "spray",
            Forwarding::Permute => "permute",
            Forwarding::Adaptive => "adaptive",
            Forwarding::Flowlet => "flowlet",
        }
    }
}

/// SplitMix64's output function: a bijection of 64-bit words whose every output bit depends on
/// every input bit.
#[inline]
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The key a conversation's packets are hashed by: the five-tuple's stand-ins (module comment).
pub fn conversation_key(src: NodeId, dst: NodeId, conversation: u64, ack: bool) -> u64 {
    mix(mix(((src.0 as u64) << 32) | dst.0 as u64) ^ (conversation << 1 | ack as u64))
}

/// Which of `choices` next hops ECMP's hash picks at a switch salted `salt`.
#[inline]
pub fn ecmp_pick(key: u64, salt: u64, choices: usize) -> usize {
    (mix(key ^ salt) % choices as u64) as usize
}

/// Which of `choices` next hops spraying picks for `pkt` (module comment): by its sequence
/// number and its sending instant, never its id.
#[inline]
pub fn spray_pick(key: u64, salt: u64, pkt: &Packet, choices: usize) -> usize {
    ecmp_pick(key ^ mix(pkt.seq ^ mix(pkt.sent_at.0)), salt, choices)
}

/// Which of `choices` next hops permuting picks for `pkt` (module comment).
#[inline]
pub fn permute_pick(key: u64, salt: u64, pkt: &Packet, choices: usize) -> usize {
    const MOST: usize = 64; // next hops of a switch the permutation is drawn over; more are sprayed
    if !pkt.is_data() || pkt.retransmission() || choices > MOST {
        return spray_pick(key, salt, pkt, choices);
    }
    let n = choices as u64;
    let block = n.saturating_pow(u32::from(pkt.hop.saturating_sub(1)));
    let digit = (pkt.seq / block % n) as usize;
    let pass = pkt.seq / block.saturating_mul(n);
    // Fisher–Yates over the first `choices` digits, drawn from SplitMix64's stream
    let mut order: [u8; MOST] = std::array::from_fn(|i| i as u8);
    let mut state = key ^ salt ^ mix(pass);
    for i in (1..choices).rev() {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let j = (mix(state) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order[digit] as usize
}

/// Each switch's equal-cost next hops toward each destination, found when first asked for.
///
/// A destination with a single port (a host) is reached through the node at its other end (its
/// router): tables are kept per such anchor, so a fat-tree's k³/4 hosts need k²/2 tables (one
/// per ToR), each with an entry per node of several ports. Equal lists of next hops are stored
/// once.
#[derive(Clone)]
pub struct EqualCost {
    /// Each port's (from, to).
    ends: Vec<(NodeId, NodeId)>,
    /// The ports from node `n` are `out[first_out[n]..first_out[n + 1]]`; into it, likewise `into`.
    first_out: Vec<u32>,
    out: Vec<PortId>,
    first_in: Vec<u32>,
    into: Vec<PortId>,
    /// Beside `out` and `into`, each port's far and near end: what making a table reads of each
    /// port, in the order it reads them.
    out_to: Vec<NodeId>,
    into_from: Vec<NodeId>,
    /// By node: whether it is a leaf, with one port out and every port in from the node that
    /// port leads to (a host).
    leaf: Vec<bool>,
    /// Each node with several ports, numbered; `u32::MAX` for single-port nodes.
    switch: Vec<u32>,
    switches: usize,
    /// A single-port node's one way in: the first port declared from its neighbour to it.
    way_in: Vec<PortId>,
    /// Each node's anchor: the node at the other end of its one port, or itself.
    anchor: Vec<NodeId>,
    /// By anchor node: where its table starts in `tables`, once made (`NONE` before).
    table_of: Vec<u32>,
    /// The tables one after another, each an entry per switch: the number of its next hops
    /// among its own groups (`NO_WAY`: none; `FURTHER`: the number is in `further`). One flat
    /// table: a hop's lookup is three loads, not five. A byte an entry: a switch's next hops
    /// toward the destinations are few lists (a fat-tree's core switch has one per pod), and
    /// with the index of a list of the whole network, 4 bytes, a k = 64 fat-tree's 2,048 tables
    /// of 5,120 switches took 42 MB.
    tables: Vec<u8>,
    /// The numbers of the entries marked `FURTHER`, by their place in `tables`: those of a
    /// switch with more than `FURTHER` lists of next hops.
    further: HashMap<usize, u32>,
    /// By switch, its lists of next hops, by number: where each starts in `group_ports`, and
    /// its length. Number `NO_WAY` is the empty list: a lookup then needs no test for it.
    groups: Vec<Vec<(u32, u32)>>,
    group_ports: Vec<PortId>,
    /// Each list's number in its switch's `groups` (the ports are the switch's own), by a hash
    /// of the list (`list_hash`), whose hit is checked against the list. Keyed by the list
    /// itself, the index held a copy of each: 15 MB of a k = 64 fat-tree's 180,000 lists.
    group_index: HashMap<u64, u32, fnv::FnvBuildHasher>,
    /// By switch, the number of its last entry made (`NONE` before the first).
    last_group: Vec<u32>,
    /// By port: whether forwarding treats it as failed (`set_down`); empty while none is.
    down: Vec<bool>,
}

const NONE: u32 = u32::MAX;
/// A table's entry for a switch with no way on: every switch's first list is empty.
const NO_WAY: u8 = 0;
/// A table's entry whose number is in `EqualCost::further`.
const FURTHER: u8 = u8::MAX;

impl EqualCost {
    pub fn new(nodes: usize, ends: &[(NodeId, NodeId)]) -> EqualCost {
        let (first_out, out) = adjacency(nodes, ends, |&(from, _)| from);
        let (first_in, into) = adjacency(nodes, ends, |&(_, to)| to);
        let out_to = out.iter().map(|p| ends[p.idx()].1).collect();
        let into_from: Vec<NodeId> = into.iter().map(|p| ends[p.idx()].0).collect();
        let mut switch = vec![NONE; nodes];
        let mut switches = 0;
        let mut way_in = vec![PortId(NONE); nodes];
        let mut anchor: Vec<NodeId> = (0..nodes).map(NodeId::from_idx).collect();
        let mut leaf = vec![false; nodes];
        for n in 0..nodes {
            let ports = &out[first_out[n] as usize..first_out[n + 1] as usize];
            if ports.len() > 1 {
                switch[n] = switches as u32;
                switches += 1;
            } else if let [only] = ports {
                let (host, router) = ends[only.idx()];
                let (first, last) = (first_in[n] as usize, first_in[n + 1] as usize);
                let back = into[first..last].iter().zip(&into_from[first..last]).find(|&(_, &from)| from == router);
                way_in[host.idx()] = back.map_or(PortId(NONE), |(&p, _)| p);
                anchor[host.idx()] = router;
                leaf[n] = into_from[first..last].iter().all(|&from| from == router);
            }
        }
        EqualCost {
            ends: ends.to_vec(),
            first_out,
            out,
            first_in,
            into,
            out_to,
            into_from,
            leaf,
            switch,
            switches,
            way_in,
            anchor,
            table_of: vec![NONE; nodes],
            tables: vec![],
            further: HashMap::new(),
            groups: vec![vec![(0, 0)]; switches],
            group_ports: vec![],
            group_index: HashMap::default(),
            last_group: vec![NONE; switches],
            down: vec![],
        }
    }

    /// The same network's tables, made afresh: without failed links.
    pub fn healthy(&self) -> EqualCost {
        EqualCost::new(self.switch.len(), &self.ends)
    }

    /// Forwarding treats the ports `down` says (by port) as failed: every table is made again
    /// when next asked for.
    pub fn set_down(&mut self, down: &[bool]) {
        self.down = if down.contains(&true) { down.to_vec() } else { vec![] };
        self.table_of.iter_mut().for_each(|t| *t = NONE);
        self.tables.clear();
        self.further.clear();
    }

    fn usable(&self, p: PortId) -> bool {
        self.down.get(p.idx()) != Some(&true)
    }

    /// The port into host `n` from its switch (its line's other direction).
    pub fn way_in(&self, n: NodeId) -> Option<PortId> {
        Some(self.way_in[n.idx()]).filter(|p| p.0 != NONE)
    }

    /// The ports from node `n`, in declaration order.
    pub fn ports_from(&self, n: NodeId) -> &[PortId] {
        &self.out[self.first_out[n.idx()] as usize..self.first_out[n.idx() + 1] as usize]
    }

    /// The next hops from `at` (not `dst`) on the fewest-hop paths to `dst`, in declaration
    /// order; empty if `dst` cannot be reached.
    // always: on every hop of a fabric, and LLVM stopped inlining it as its callers grew (+3%
    // instructions on the k = 16 fat-tree bench)
    #[inline(always)]
    pub fn choices(&mut self, at: NodeId, dst: NodeId) -> &[PortId] {
        if let Err(anchor) = self.made_choices(at, dst) {
            self.make_table(anchor);
        }
        self.made_choices(at, dst).unwrap_or_default()
    }

    /// `choices`, or the anchor whose table it needs if that is not yet made (`make_table`).
    #[inline(always)]
    pub fn made_choices(&self, at: NodeId, dst: NodeId) -> Result<&[PortId], NodeId> {
        let s = self.switch[at.idx()];
        if s == NONE {
            return Ok(self.ports_from(at));
        }
        let anchor = self.anchor[dst.idx()];
        if anchor == at {
            // `dst` is a host of `at`'s (a node is its own anchor only if it is the destination)
            let i = dst.idx();
            return Ok(&self.way_in[i..i + 1]);
        }
        let table = match self.table_of[anchor.idx()] {
            NONE => return Err(anchor),
            t => t as usize,
        };
        let at = table + s as usize;
        let number = match self.tables[at] {
            FURTHER => self.further_number(at),
            n => n as usize,
        };
        let (start, len) = self.groups[s as usize][number];
        Ok(&self.group_ports[start as usize..(start + len) as usize])
    }

    #[cold]
    fn further_number(&self, at: usize) -> usize {
        self.further[&at] as usize
    }

    /// Makes the tables `choices` reads toward each of `dsts`, so that a copy shared among a
    /// parallel run's partitions need not make them again (`engine::forwarding`).
    pub fn make_tables_toward(&mut self, dsts: impl IntoIterator<Item = NodeId>) {
        for dst in dsts {
            let anchor = self.anchor[dst.idx()];
            if self.table_of[anchor.idx()] == NONE {
                self.make_table(anchor);
            }
        }
    }

    /// Every node with one port (a host).
    pub fn hosts(&self) -> Vec<NodeId> {
        (0..self.anchor.len()).filter(|&n| self.anchor[n].idx() != n).map(NodeId::from_idx).collect()
    }

    /// How many tables are made.
    #[cfg(test)]
    pub fn tables_made(&self) -> usize {
        self.table_of.iter().filter(|&&t| t != NONE).count()
    }

    /// Every port on a fewest-hop path from `src` to `dst`, ascending.
    pub fn ports_between(&mut self, src: NodeId, dst: NodeId) -> Vec<PortId> {
        let mut ports = vec![];
        let mut seen = HashSet::from([src]);
        let mut frontier = vec![src];
        while let Some(n) = frontier.pop() {
            if n == dst {
                continue;
            }
            let choices = self.choices(n, dst).to_vec();
            for p in choices {
                ports.push(p);
                let to = self.ends[p.idx()].1;
                if seen.insert(to) {
                    frontier.push(to);
                }
            }
        }
        ports.sort_unstable();
        ports.dedup();
        ports
    }

    /// The table toward `anchor`: a search backwards from it gives each node's hops to it, and
    /// a switch's next hops are its ports to nodes one hop closer. With failed ports, over the
    /// ports that work; a switch that then has no way keeps its ways over every port.
    #[cold]
    pub fn make_table(&mut self, anchor: NodeId) {
        let hops = self.hops_to(anchor, true);
        let every = if self.down.is_empty() { None } else { Some(self.hops_to(anchor, false)) };
        let start = self.tables.len();
        let mut table = vec![NO_WAY; self.switches];
        let mut next = vec![];
        for n in 0..self.switch.len() {
            let s = self.switch[n];
            if s == NONE || hops[n] == 0 {
                continue;
            }
            match (hops[n], &every) {
                (u32::MAX, None) => continue,
                (u32::MAX, Some(every)) if every[n] == u32::MAX => continue,
                (u32::MAX, Some(every)) => self.closer(n, every, false, &mut next),
                _ => self.closer(n, &hops, true, &mut next),
            };
            let number = self.group(&next, s);
            table[s as usize] = match u8::try_from(number) {
                Ok(n) if n < FURTHER => n,
                _ => {
                    self.further.insert(start + s as usize, number);
                    FURTHER
                }
            };
        }
        self.table_of[anchor.idx()] = start as u32;
        self.tables.extend_from_slice(&table);
    }

    /// Each node's hops to `anchor`, over the ports that work (`working`) or over all. A leaf's
    /// only neighbour is nearer than it, so its own ports in lead nowhere new: it is not searched
    /// from (a fat-tree's hosts are a sixth of its nodes and of its ports in).
    fn hops_to(&self, anchor: NodeId, working: bool) -> Vec<u32> {
        let mut hops = vec![u32::MAX; self.switch.len()];
        hops[anchor.idx()] = 0;
        let mut frontier = std::collections::VecDeque::from([anchor]);
        while let Some(n) = frontier.pop_front() {
            let (first, last) = (self.first_in[n.idx()] as usize, self.first_in[n.idx() + 1] as usize);
            for (&p, &from) in self.into[first..last].iter().zip(&self.into_from[first..last]) {
                if hops[from.idx()] == u32::MAX && (!working || self.usable(p)) {
                    hops[from.idx()] = hops[n.idx()] + 1;
                    if !self.leaf[from.idx()] {
                        frontier.push_back(from);
                    }
                }
            }
        }
        hops
    }

    /// Node `n`'s ports to nodes one hop closer by `hops` (only those that work, if `working`),
    /// into `next`.
    fn closer(&self, n: usize, hops: &[u32], working: bool, next: &mut Vec<PortId>) {
        next.clear();
        let (first, last) = (self.first_out[n] as usize, self.first_out[n + 1] as usize);
        for (&p, &to) in self.out[first..last].iter().zip(&self.out_to[first..last]) {
            if hops[to.idx()] == hops[n] - 1 && (!working || self.usable(p)) {
                next.push(p);
            }
        }
    }

    /// The number of the list `ports` among switch `s`'s, stored once. A switch's next hops are
    /// mostly those it had toward the last destination (a fat-tree's ToR sends every packet for
    /// another rack up to all its aggregation switches), so its last group is tried before the
    /// index: a k = 64 fat-tree's 2,048 tables of 5,120 switches took 11 s to make when each
    /// entry allocated and hashed its list.
    fn group(&mut self, ports: &[PortId], s: u32) -> u32 {
        // a list names the switch it is of, whose ports they are: its number is the switch's
        debug_assert!(!ports.is_empty(), "a switch's next hops toward a destination it can reach");
        let (last, groups) = (self.last_group[s as usize], &mut self.groups[s as usize]);
        let is = |&(start, len): &(u32, u32)| &self.group_ports[start as usize..(start + len) as usize] == ports;
        if last != NONE && is(&groups[last as usize]) {
            return last;
        }
        let hash = list_hash(ports);
        let known = match self.group_index.get(&hash) {
            Some(&g) if is(&groups[g as usize]) => Some(g),
            // another list has this one's hash: this one's number, if it has one
            Some(_) => groups.iter().position(is).map(|g| g as u32),
            None => None,
        };
        let g = known.unwrap_or_else(|| {
            let g = groups.len() as u32;
            groups.push((self.group_ports.len() as u32, ports.len() as u32));
            self.group_ports.extend_from_slice(ports);
            self.group_index.entry(hash).or_insert(g);
            g
        });
        self.last_group[s as usize] = g;
        g
    }
}

/// A hash of a list of ports, for `EqualCost::group_index` (ports are a switch's own, so the
/// list names its switch).
fn list_hash(ports: &[PortId]) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    ports.iter().for_each(|p| h.write_u32(p.0));
    h.finish()
}

/// Ports grouped by the node `key` names: (first index per node, ports), in declaration order.
pub fn adjacency(
    nodes: usize,
    ends: &[(NodeId, NodeId)],
    key: impl Fn(&(NodeId, NodeId)) -> NodeId,
) -> (Vec<u32>, Vec<PortId>) {
    let mut first = vec![0u32; nodes + 1];
    for e in ends {
        first[key(e).idx() + 1] += 1;
    }
    for n in 0..nodes {
        first[n + 1] += first[n];
    }
    let mut next = first.clone();
    let mut ports = vec![PortId(0); ends.len()];
    for (p, e) in ends.iter().enumerate() {
        let n = key(e).idx();
        ports[next[n] as usize] = PortId::from_idx(p);
        next[n] += 1;
    }
    (first, ports)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Duplex links between the given nodes, ports in declaration order (a→b, b→a).
    fn duplex(links: &[(u32, u32)]) -> Vec<(NodeId, NodeId)> {
        links.iter().flat_map(|&(a, b)| [(NodeId(a), NodeId(b)), (NodeId(b), NodeId(a))]).collect()
    }

    #[test]
    fn a_diamond_offers_both_ways_and_a_host_its_one_line() {
        // host 0 - s1; s1 - s2, s1 - s3; s2 - s4, s3 - s4; s4 - host 5
        let ends = duplex(&[(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5)]);
        let mut ec = EqualCost::new(6, &ends);
        let port = |a: u32, b: u32| PortId::from_idx(ends.iter().position(|&e| e == (NodeId(a), NodeId(b))).unwrap());
        assert_eq!(ec.choices(NodeId(0), NodeId(5)), &[port(0, 1)], "a host's only port");
        assert_eq!(ec.choices(NodeId(1), NodeId(5)), &[port(1, 2), port(1, 3)], "both, in declaration order");
        assert_eq!(ec.choices(NodeId(2), NodeId(5)), &[port(2, 4)]);
        assert_eq!(ec.choices(NodeId(4), NodeId(5)), &[port(4, 5)], "the router's line to its host");
        assert_eq!(ec.choices(NodeId(4), NodeId(0)), &[port(4, 2), port(4, 3)]);
        let all = ec.ports_between(NodeId(0), NodeId(5));
        let mut want = vec![port(0, 1), port(1, 2), port(1, 3), port(2, 4), port(3, 4), port(4, 5)];
        want.sort_unstable();
        assert_eq!(all, want);
        assert_eq!(ec.tables.len(), 2 * ec.switches, "one table per router behind which hosts sit");
    }

    #[test]
    fn a_switch_with_more_lists_of_next_hops_than_a_byte_numbers_keeps_the_rest_aside() {
        // a core switch 0 with 300 routers below it, each with a host: toward each host the
        // core has a next hop of its own, 300 lists, of which the table's byte numbers 254
        let routers = 300u32;
        let mut links = vec![];
        for r in 1..=routers {
            links.extend([(0, r), (r, routers + r)]);
        }
        let ends = duplex(&links);
        let mut ec = EqualCost::new(1 + 2 * routers as usize, &ends);
        let port = |a: u32, b: u32| PortId::from_idx(ends.iter().position(|&e| e == (NodeId(a), NodeId(b))).unwrap());
        for r in 1..=routers {
            assert_eq!(ec.choices(NodeId(0), NodeId(routers + r)), &[port(0, r)], "toward host {r}");
            assert_eq!(ec.choices(NodeId(r), NodeId(routers + 1 + r % routers)), &[port(r, 0)]);
        }
        assert_eq!(ec.groups[0].len(), 1 + routers as usize, "its lists, after the empty one");
        assert_eq!(ec.further.len(), 1 + routers as usize - FURTHER as usize, "the lists past the byte's");
        for r in 1..=routers {
            assert_eq!(ec.choices(NodeId(0), NodeId(routers + r)), &[port(0, r)], "again, from the tables made");
        }
    }

    #[test]
    fn a_list_whose_hash_another_list_has_keeps_a_number_of_its_own() {
        // the diamond's s1 (switch 0): its ports to s2 and to s3, each a list of its own
        let ends = duplex(&[(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5)]);
        let mut ec = EqualCost::new(6, &ends);
        let port = |a: u32, b: u32| PortId::from_idx(ends.iter().position(|&e| e == (NodeId(a), NodeId(b))).unwrap());
        let s = ec.switch[1];
        let (a, b) = ([port(1, 2)], [port(1, 3)]);
        let ga = ec.group(&a, s);
        // as if the two lists' hashes were equal: b's leads to a's number
        ec.group_index.insert(list_hash(&b), ga);
        let gb = ec.group(&b, s);
        assert_ne!(gb, ga, "b is not a");
        ec.last_group[s as usize] = NONE; // past the last list's shortcut
        assert_eq!(ec.group(&b, s), gb, "b found again by its ports");
        ec.last_group[s as usize] = NONE;
        assert_eq!(ec.group(&a, s), ga);
        assert_eq!(ec.groups[s as usize].len(), 3, "the empty list, a and b, each once");
    }

    #[test]
    fn a_switch_may_be_a_destination_and_unreachable_nodes_have_no_hops() {
        let ends = duplex(&[(0, 1), (1, 2), (2, 3), (1, 3)]);
        let mut ec = EqualCost::new(5, &ends);
        assert_eq!(ec.choices(NodeId(1), NodeId(3)).len(), 1, "the direct link only");
        assert!(ec.choices(NodeId(1), NodeId(4)).is_empty());
    }

    #[test]
    fn failed_ports_are_routed_round_and_a_switch_without_a_way_keeps_the_ways_it_had() {
        // host 0 - s1; s1 - s2, s1 - s3; s2 - s4, s3 - s4; s4 - host 5
        let ends = duplex(&[(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5)]);
        let mut ec = EqualCost::new(6, &ends);
        let port = |a: u32, b: u32| PortId::from_idx(ends.iter().position(|&e| e == (NodeId(a), NodeId(b))).unwrap());
        let mut down = vec![false; ends.len()];
        down[port(2, 4).idx()] = true;
        ec.set_down(&down);
        assert_eq!(ec.choices(NodeId(1), NodeId(5)), &[port(1, 3)], "s2 no longer leads to h5");
        assert_eq!(ec.choices(NodeId(2), NodeId(5)), &[port(2, 1)], "s2 goes round, back through s1");
        assert_eq!(ec.choices(NodeId(4), NodeId(0)), &[port(4, 2), port(4, 3)], "the other direction works");
        // both ways into s4 down: no switch has a way to h5, and each keeps its own
        down[port(3, 4).idx()] = true;
        ec.set_down(&down);
        assert_eq!(ec.choices(NodeId(1), NodeId(5)), &[port(1, 2), port(1, 3)]);
        assert_eq!(ec.choices(NodeId(3), NodeId(5)), &[port(3, 4)]);
        // all back: the tables as they were
        ec.set_down(&vec![false; ends.len()]);
        assert_eq!(ec.choices(NodeId(2), NodeId(5)), &[port(2, 4)]);
        assert_eq!(ec.healthy().choices(NodeId(1), NodeId(5)), &[port(1, 2), port(1, 3)]);
    }

    #[test]
    fn the_hash_is_pinned() {
        // the documented function: changing it changes every multipath result
        assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
        let key = conversation_key(NodeId(1), NodeId(2), 3, false);
        assert_eq!(key, mix(mix(1 << 32 | 2) ^ 6));
        assert_eq!(ecmp_pick(key, 7, 4), (mix(key ^ 7) % 4) as usize);
    }

    proptest::proptest! {
        /// Every choice leads one hop closer: following any choices from any node reaches the
        /// destination in as many hops as the fewest-hop route.
        #[test]
        fn every_choice_is_on_a_shortest_path(
            nodes in 2usize..10,
            links in proptest::collection::vec((0u32..10, 0u32..10), 1..20),
            picks in proptest::collection::vec(0usize..8, 10),
        ) {
            let links: Vec<(u32, u32)> = links.iter().map(|&(a, b)| (a % nodes as u32, b % nodes as u32)).filter(|(a, b)| a != b).collect();
            let ends = duplex(&links);
            let graph = super::super::routing::Graph::new(nodes, &ends);
            let mut ec = EqualCost::new(nodes, &ends);
            for s in 0..nodes as u32 {
                for d in 0..nodes as u32 {
                    let (s, d) = (NodeId(s), NodeId(d));
                    let Some(path) = graph.shortest_path(s, d) else { continue };
                    let mut at = s;
                    for (i, pick) in picks.iter().cycle().take(path.len()).enumerate() {
                        let choices = ec.choices(at, d);
                        proptest::prop_assert!(!choices.is_empty(), "{s:?}->{d:?} at {at:?} hop {i}");
                        at = ends[choices[pick % choices.len()].idx()].1;
                    }
                    proptest::prop_assert_eq!(at, d);
                    // and a switch's choices are all its ports to a neighbour one hop closer
                    let hops = |n: NodeId| graph.shortest_path(n, d).map(|p| p.len());
                    if s != d && ec.ports_from(s).len() > 1 {
                        let closer: Vec<PortId> = ec.ports_from(s).iter().copied()
                            .filter(|p| hops(ends[p.idx()].1).map(|h| h + 1) == Some(path.len()))
                            .collect();
                        proptest::prop_assert_eq!(ec.choices(s, d), &closer[..], "{:?}->{:?}", s, d);
                    }
                }
            }
        }
    }
}
