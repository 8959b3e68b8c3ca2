//! Static routing, computed when a scenario is loaded: fewest hops, or an explicit node list.
//!
//! Ties between equally short paths are broken deterministically: breadth-first search visits
//! a node's ports in the order their links are declared, and the first path found wins.

use super::{NodeId, PortId};
use std::collections::VecDeque;

/// The directed graph of ports: `(from, to)` per port, in declaration order.
pub struct Graph<'a> {
    pub nodes: usize,
    pub ports: &'a [(NodeId, NodeId)],
}

impl Graph<'_> {
    /// The ports of a fewest-hop path from `src` to `dst`; `None` if `dst` is unreachable.
    pub fn shortest_path(&self, src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        let mut via: Vec<Option<PortId>> = vec![None; self.nodes];
        let mut seen = vec![false; self.nodes];
        let mut frontier = VecDeque::from([src]);
        seen[src.idx()] = true;
        while let Some(n) = frontier.pop_front() {
            if n == dst {
                break;
            }
            for (p, &(from, to)) in self.ports.iter().enumerate() {
                if from == n && !seen[to.idx()] {
                    seen[to.idx()] = true;
                    via[to.idx()] = Some(PortId::from_idx(p));
                    frontier.push_back(to);
                }
            }
        }
        if !seen[dst.idx()] {
            return None;
        }
        let mut path = vec![];
        let mut n = dst;
        while let Some(p) = via[n.idx()] {
            path.push(p);
            n = self.ports[p.idx()].0;
        }
        path.reverse();
        Some(path)
    }

    /// The first declared port from `from` to `to`.
    pub fn port_between(&self, from: NodeId, to: NodeId) -> Option<PortId> {
        self.ports.iter().position(|&(f, t)| f == from && t == to).map(PortId::from_idx)
    }

    /// The ports of the reverse direction of `path` (ACKs travel back the way data came).
    pub fn reverse(&self, path: &[PortId]) -> Vec<PortId> {
        path.iter()
            .rev()
            .map(|p| {
                let (f, t) = self.ports[p.idx()];
                self.port_between(t, f).expect("links are duplex")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewest_hops_with_declaration_order_ties() {
        // a-b, b-d, a-c, c-d, each duplex: two 2-hop paths from a to d; the one via b is declared first
        let n = |i| NodeId(i);
        let ports = [
            (n(0), n(1)),
            (n(1), n(0)),
            (n(1), n(3)),
            (n(3), n(1)),
            (n(0), n(2)),
            (n(2), n(0)),
            (n(2), n(3)),
            (n(3), n(2)),
        ];
        let g = Graph { nodes: 4, ports: &ports };
        assert_eq!(g.shortest_path(n(0), n(3)), Some(vec![PortId(0), PortId(2)]));
        assert_eq!(g.reverse(&[PortId(0), PortId(2)]), vec![PortId(3), PortId(1)]);
        let g2 = Graph { nodes: 5, ports: &ports };
        assert_eq!(g2.shortest_path(n(0), n(4)), None, "node 4 has no links");
    }
}
