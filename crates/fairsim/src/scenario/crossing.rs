//! The conversations crossing each port: what a port's discipline is built for
//! (`PortInfo::crossing`), found once when the scenario is validated.
//!
//! Kept as their content: the conversations that cross every port (a workload's, whose
//! connections run between any of its hosts, or a flow that may detour anywhere) once for all
//! ports, and the others port by port in one array (each port's run of it found by an offset).
//! A list per port held a workload's two entries at each of a k = 64 fat-tree's 393,216 ports,
//! in 393,216 allocations (21 MB asked for; docs/performance.md, "A k = 64 fat-tree").

use crate::net::{FlowId, PacketKind, PortId};

/// A conversation: a flow's data or its ACKs.
pub type Conversation = (FlowId, PacketKind);

#[derive(Debug, Clone, Default)]
pub struct Crossing {
    /// Those crossing every port, in flow order, data first.
    everywhere: Vec<Conversation>,
    /// Port p's own are `own[starts[p]..starts[p + 1]]`, in flow order, data first.
    starts: Vec<u32>,
    own: Vec<Conversation>,
}

impl Crossing {
    /// From those crossing every port (in flow order, data first) and each port's own.
    pub fn new(everywhere: Vec<Conversation>, by_port: Vec<Vec<Conversation>>) -> Crossing {
        let mut starts = Vec::with_capacity(by_port.len() + 1);
        starts.push(0);
        let own: Vec<Conversation> = by_port
            .into_iter()
            .flat_map(|at| {
                let end =
                    starts.last().copied().unwrap_or(0) + u32::try_from(at.len()).expect("under 2^32 conversations");
                starts.push(end);
                at
            })
            .collect();
        Crossing { everywhere, starts, own }
    }

    /// The conversations crossing port `p`, in flow order, data first.
    pub fn at(&self, p: PortId) -> Vec<Conversation> {
        let own = &self.own[self.starts[p.idx()] as usize..self.starts[p.idx() + 1] as usize];
        if self.everywhere.is_empty() {
            return own.to_vec();
        }
        // both in flow order, and a flow is in only one of them
        let mut all = Vec::with_capacity(own.len() + self.everywhere.len());
        let (mut a, mut b) = (own.iter().peekable(), self.everywhere.iter().peekable());
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            let next = if x.0 < y.0 { a.next() } else { b.next() };
            all.extend(next.copied());
        }
        all.extend(a.chain(b).copied());
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_lists_its_own_and_everywhere_conversations_merged_in_flow_order() {
        let (d, a) = (PacketKind::Data, PacketKind::Ack);
        let c = Crossing {
            everywhere: vec![(FlowId(1), d), (FlowId(1), a), (FlowId(4), d), (FlowId(4), a)],
            starts: vec![0, 3, 3],
            own: vec![(FlowId(0), d), (FlowId(2), d), (FlowId(5), a)],
        };
        let at0 = c.at(PortId(0));
        let expected = [(0, d), (1, d), (1, a), (2, d), (4, d), (4, a), (5, a)];
        assert_eq!(at0, expected.map(|(f, k)| (FlowId(f), k)));
        assert_eq!(c.at(PortId(1)), c.everywhere);
        let alone = Crossing { everywhere: vec![], ..c };
        assert_eq!(alone.at(PortId(0)), alone.own);
        assert!(alone.at(PortId(1)).is_empty());
    }
}
