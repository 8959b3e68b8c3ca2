//! Static routing, computed when a scenario is loaded: fewest hops, or an explicit node list.
//!
//! Ties between equally short paths are broken deterministically: breadth-first search visits
//! a node's ports in the order their links are declared, and the first path found wins.

use super::{NodeId, PortId};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

/// A node not reached (yet) by a breadth-first search.
const UNSEEN: u32 = u32::MAX;
/// The search's source: reached, by no port.
const SOURCE: u32 = u32::MAX - 1;
/// How many searches' results are kept for the flows that follow: flows from one node (or from
/// hosts behind one router) are usually written together.
const TREES_KEPT: usize = 8;

/// The directed graph of ports: `(from, to)` per port, in declaration order, with each node's
/// ports listed so that routes cost time in proportion to the graph, not to its square.
pub struct Graph<'a> {
    pub nodes: usize,
    pub ports: &'a [(NodeId, NodeId)],
    /// The ports from node `n` are `out[first_out[n]..first_out[n + 1]]`, in declaration order.
    first_out: Vec<u32>,
    out: Vec<PortId>,
    /// The first declared port from one node to another.
    between: HashMap<(NodeId, NodeId), PortId>,
    /// The last searches: their source, and the port each node was reached by.
    trees: RefCell<VecDeque<(NodeId, Vec<u32>)>>,
}

impl<'a> Graph<'a> {
    pub fn new(nodes: usize, ports: &'a [(NodeId, NodeId)]) -> Graph<'a> {
        let mut first_out = vec![0u32; nodes + 1];
        for &(from, _) in ports {
            first_out[from.idx() + 1] += 1;
        }
        for n in 0..nodes {
            first_out[n + 1] += first_out[n];
        }
        let mut next = first_out.clone();
        let mut out = vec![PortId(0); ports.len()];
        let mut between = HashMap::with_capacity(ports.len());
        for (p, &(from, to)) in ports.iter().enumerate() {
            out[next[from.idx()] as usize] = PortId::from_idx(p);
            next[from.idx()] += 1;
            between.entry((from, to)).or_insert(PortId::from_idx(p));
        }
        Graph { nodes, ports, first_out, out, between, trees: RefCell::new(VecDeque::new()) }
    }

    /// The ports from `n`, in declaration order.
    fn ports_from(&self, n: NodeId) -> &[PortId] {
        &self.out[self.first_out[n.idx()] as usize..self.first_out[n.idx() + 1] as usize]
    }

    /// The ports of a fewest-hop path from `src` to `dst`; `None` if `dst` is unreachable.
    ///
    /// The path is the one a breadth-first search from `src` finds first. A node with a single
    /// port (a host) reaches everything through the node at its other end, which explores the
    /// graph in the same order less the host, so the host's path is its port and that node's
    /// path; the search from that node is then shared by every host behind it.
    pub fn shortest_path(&self, src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        let mut path = vec![];
        let mut from = src;
        while from != dst && path.len() < self.nodes {
            let &[only] = self.ports_from(from) else { break };
            path.push(only);
            from = self.ports[only.idx()].1;
        }
        if from == dst {
            return Some(path);
        }
        let mut trees = self.trees.borrow_mut();
        let i = match trees.iter().position(|(s, _)| *s == from) {
            Some(i) => i,
            None => {
                if trees.len() == TREES_KEPT {
                    trees.pop_front();
                }
                trees.push_back((from, self.search(from)));
                trees.len() - 1
            }
        };
        let via = &trees[i].1;
        if via[dst.idx()] == UNSEEN {
            return None;
        }
        let mut tail = vec![];
        let mut n = dst;
        while via[n.idx()] != SOURCE {
            let p = PortId(via[n.idx()]);
            tail.push(p);
            n = self.ports[p.idx()].0;
        }
        path.extend(tail.iter().rev());
        Some(path)
    }

    /// A breadth-first search of the whole graph from `src`, visiting each node's ports in the
    /// order their links are declared: the port by which each node was first reached.
    fn search(&self, src: NodeId) -> Vec<u32> {
        let mut via = vec![UNSEEN; self.nodes];
        via[src.idx()] = SOURCE;
        let mut frontier = VecDeque::from([src]);
        while let Some(n) = frontier.pop_front() {
            for &p in self.ports_from(n) {
                let to = self.ports[p.idx()].1;
                if via[to.idx()] == UNSEEN {
                    via[to.idx()] = p.0;
                    frontier.push_back(to);
                }
            }
        }
        via
    }

    /// The first declared port from `from` to `to`.
    pub fn port_between(&self, from: NodeId, to: NodeId) -> Option<PortId> {
        self.between.get(&(from, to)).copied()
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
        let g = Graph::new(4, &ports);
        assert_eq!(g.shortest_path(n(0), n(3)), Some(vec![PortId(0), PortId(2)]));
        assert_eq!(g.reverse(&[PortId(0), PortId(2)]), vec![PortId(3), PortId(1)]);
        let g2 = Graph::new(5, &ports);
        assert_eq!(g2.shortest_path(n(0), n(4)), None, "node 4 has no links");
    }

    /// The search as it was first written: scan every port for each node taken from the
    /// frontier, stop when `dst` is taken. The fast one must find the same paths.
    fn reference(nodes: usize, ports: &[(NodeId, NodeId)], src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        let mut via: Vec<Option<PortId>> = vec![None; nodes];
        let mut seen = vec![false; nodes];
        let mut frontier = VecDeque::from([src]);
        seen[src.idx()] = true;
        while let Some(n) = frontier.pop_front() {
            if n == dst {
                break;
            }
            for (p, &(from, to)) in ports.iter().enumerate() {
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
            n = ports[p.idx()].0;
        }
        path.reverse();
        Some(path)
    }

    proptest::proptest! {
        #[test]
        fn paths_are_those_of_a_plain_search(
            nodes in 2usize..12,
            links in proptest::collection::vec((0u32..12, 0u32..12), 0..24),
            queries in proptest::collection::vec((0u32..12, 0u32..12), 1..30),
        ) {
            // duplex links between distinct nodes, parallel links allowed, as validation builds them
            let ports: Vec<(NodeId, NodeId)> = links
                .iter()
                .map(|&(a, b)| (a % nodes as u32, b % nodes as u32))
                .filter(|(a, b)| a != b)
                .flat_map(|(a, b)| [(NodeId(a), NodeId(b)), (NodeId(b), NodeId(a))])
                .collect();
            let g = Graph::new(nodes, &ports);
            for (s, d) in queries {
                let (s, d) = (NodeId(s % nodes as u32), NodeId(d % nodes as u32));
                let path = g.shortest_path(s, d);
                proptest::prop_assert_eq!(&path, &reference(nodes, &ports, s, d), "{:?} -> {:?}", s, d);
                if let Some(path) = path {
                    let first = |f, t| ports.iter().position(|&p| p == (f, t)).map(PortId::from_idx);
                    let back: Vec<PortId> =
                        path.iter().rev().map(|p| first(ports[p.idx()].1, ports[p.idx()].0).unwrap()).collect();
                    proptest::prop_assert_eq!(g.reverse(&path), back);
                }
            }
        }
    }

    #[test]
    fn hosts_share_the_search_of_their_router() {
        // hosts 1..=3 on router 0, router 0 to sink 4: one search, from the router
        let n = |i| NodeId(i);
        let mut ports = vec![];
        for h in 1..=3 {
            ports.extend([(n(h), n(0)), (n(0), n(h))]);
        }
        ports.extend([(n(0), n(4)), (n(4), n(0))]);
        let g = Graph::new(5, &ports);
        for h in 1..=3 {
            let up = PortId::from_idx(2 * (h as usize - 1));
            assert_eq!(g.shortest_path(n(h), n(4)), Some(vec![up, PortId(6)]));
        }
        assert_eq!(g.trees.borrow().iter().map(|(s, _)| *s).collect::<Vec<_>>(), vec![n(0)]);
        assert_eq!(g.shortest_path(n(4), n(0)), Some(vec![PortId(7)]), "the sink is a host too");
    }
}
