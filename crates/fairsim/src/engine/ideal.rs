//! A transfer's ideal completion time: its time alone on the network, sender-side (until the
//! ACK of its last packet is back), with store and forward at every hop, in the engine's own
//! whole nanoseconds (each line's transmission time rounded up, as its ports send), so that no
//! transfer can finish sooner: a slowdown below 1 cannot happen. docs/results.md defines it.
//!
//! - A transfer whose packets all take one path (a fixed route, the first next hop at every
//!   switch, or ECMP's hash of its key) on a network that never changes: the first packet
//!   crosses that path (each hop's transmission and propagation), the others follow it a
//!   transmission time at the path's slowest line apart, and the last one's ACK crosses the path
//!   its ACKs take back.
//! - Otherwise (each packet placed anew, by spraying, permuting, the adaptive or flowlet choice;
//!   or links that fail, come back or change rate during the run), no single path is known in
//!   advance, and the ideal is the bound every placement obeys: the first packet on the fastest
//!   path there, the last ACK on the fastest path back, and between them the others a
//!   transmission time apart at the slower of the two host lines, which every packet crosses.
//!   With failures the fastest path is sought over every path, not only the fewest-hop ones a
//!   detour may leave; each line is taken at its fastest rate over the run.

use super::forwarding::Forwarder;
use crate::net::multipath::adjacency;
use crate::net::{NodeId, PortId};
use crate::scenario::{NetworkAction, Scenario};
use crate::units::Rate;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a run's ideal completion times are measured on, made at the first transfer.
pub(super) struct IdealNetwork {
    /// Each port's fastest rate over the run (as built, or a later `rate` event's).
    fastest: Vec<Rate>,
    /// Whether any link changes during the run: then no path is fixed in advance.
    changes: bool,
    /// With failures: the ports out of each node (`first_out`, `out`), for a search over every
    /// path.
    detours: Option<(Vec<u32>, Vec<PortId>)>,
}

impl IdealNetwork {
    pub fn new(scenario: &Scenario) -> IdealNetwork {
        let mut fastest: Vec<Rate> = scenario.ports.iter().map(|p| p.rate).collect();
        for e in &scenario.events {
            if let NetworkAction::Rate(r) = e.action {
                e.ports.iter().for_each(|p| fastest[p.idx()] = fastest[p.idx()].max(r));
            }
        }
        let detours = scenario.events.iter().any(|e| e.action == NetworkAction::Down).then(|| {
            let ends: Vec<(NodeId, NodeId)> = scenario.ports.iter().map(|p| (p.from, p.to)).collect();
            adjacency(scenario.nodes.len(), &ends, |&(from, _)| from)
        });
        IdealNetwork { fastest, changes: !scenario.events.is_empty(), detours }
    }

    /// Port `p`'s transmission of `size` bytes at its fastest, and its propagation.
    fn hop(&self, scenario: &Scenario, p: PortId, size: u32) -> u64 {
        (self.fastest[p.idx()].tx_time(size) + scenario.ports[p.idx()].delay).0
    }

    /// The least time of `size` bytes from `src` to `dst` over any path (Dijkstra's search).
    fn fastest_anywhere(&self, scenario: &Scenario, src: NodeId, dst: NodeId, size: u32) -> Option<u64> {
        let (first_out, out) = self.detours.as_ref()?;
        let mut best = vec![u64::MAX; scenario.nodes.len()];
        let mut heap = BinaryHeap::from([Reverse((0u64, src.0))]);
        best[src.idx()] = 0;
        while let Some(Reverse((t, n))) = heap.pop() {
            if n == dst.0 {
                return Some(t);
            }
            if t > best[n as usize] {
                continue;
            }
            for &p in &out[first_out[n as usize] as usize..first_out[n as usize + 1] as usize] {
                let (to, at) = (scenario.ports[p.idx()].to, t + self.hop(scenario, p, size));
                if at < best[to.idx()] {
                    best[to.idx()] = at;
                    heap.push(Reverse((at, to.0)));
                }
            }
        }
        None
    }

    /// The ideal completion time, in ns, of a transfer of `n` packets of `data` bytes, each
    /// acknowledged by an ACK of `ack` bytes (if `acks`), from `src` to `dst`, made as flow index
    /// `c` (whose forwarding `forwarder` knows).
    pub fn fct(
        &self,
        sc: &Scenario,
        forwarder: &mut Forwarder,
        c: usize,
        (src, dst): (NodeId, NodeId),
        n: u64,
        (data, ack, acks): (u32, u32, bool),
    ) -> Option<u64> {
        let tx = |p: &PortId, size| self.fastest[p.idx()].tx_time(size).0;
        let sum = |path: &[PortId], size| path.iter().map(|&p| self.hop(sc, p, size)).sum::<u64>();
        let fixed = if self.changes { None } else { forwarder.fixed_path(c, src, dst, false, true) };
        Some(match fixed {
            Some(there) => {
                let back = if acks { forwarder.fixed_path(c, dst, src, true, true)? } else { vec![] };
                let slowest = there.iter().map(|p| tx(p, data)).max().unwrap_or(0);
                sum(&there, data) + (n - 1) * slowest + sum(&back, ack)
            }
            None => {
                let mut fastest = |from, to, size| match self.detours {
                    Some(_) => self.fastest_anywhere(sc, from, to, size),
                    None => forwarder.least(from, to, true, &|p| self.hop(sc, p, size)),
                };
                let there = fastest(src, dst, data)?;
                let back = if acks { fastest(dst, src, ack)? } else { 0 };
                let (out, into) = (forwarder.line(src), forwarder.line_into(dst)?);
                there + (n - 1) * tx(&out, data).max(tx(&into, data)) + back
            }
        })
    }
}
