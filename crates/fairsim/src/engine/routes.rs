//! Every flow's two routes (data and ACKs) in one flat table beside the flow states, for the
//! loop's forwarding: a packet arriving at the far end of a line looks up its next port here.
//!
//! A flow's state keeps only the routes' first ports (`FlowState::data_line`, `ack_line`),
//! where the hosts start packets. Forwarding once read whole routes there: the flow's 1.5-KB
//! state, then the route's own allocation, two cache misses at every hop once the flows
//! outnumber the cache (10,000 flows). Here the spans are 16 bytes a flow and the ports of all
//! routes lie together, a few hundred kilobytes at 10,000 flows.

use crate::net::PortId;

/// Where a flow's routes lie in `Routes::ports`.
#[derive(Clone, Copy, Default)]
struct Span {
    data: u32,
    data_len: u32,
    ack: u32,
    ack_len: u32,
}

#[derive(Default)]
pub(super) struct Routes {
    ports: Vec<PortId>,
    /// By flow: the scenario's flows (a connection's packets carry its flow's id, and take its
    /// routes).
    spans: Vec<Span>,
}

impl Routes {
    /// Adds the routes of the next flow. A flow whose path is chosen at each switch has none:
    /// its packets come to the end of an empty route at every node (`forwarding`).
    pub fn push(&mut self, data: &[PortId], ack: &[PortId]) {
        let data_at = self.ports.len() as u32;
        self.ports.extend_from_slice(data);
        let ack_at = self.ports.len() as u32;
        self.ports.extend_from_slice(ack);
        self.spans.push(Span { data: data_at, data_len: data.len() as u32, ack: ack_at, ack_len: ack.len() as u32 });
    }

    /// Hop `hop` of flow `flow`'s data route (`data`) or ACK route; `None` past its end.
    #[inline]
    pub fn hop(&self, flow: usize, data: bool, hop: u16) -> Option<PortId> {
        let span = self.spans[flow];
        let (start, len) = if data { (span.data, span.data_len) } else { (span.ack, span.ack_len) };
        ((hop as u32) < len).then(|| self.ports[(start + hop as u32) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports(ids: &[u32]) -> Vec<PortId> {
        ids.iter().map(|&i| PortId(i)).collect()
    }

    #[test]
    fn hops_are_the_routes() {
        let mut r = Routes::default();
        r.push(&ports(&[1, 2, 3]), &ports(&[4, 5]));
        r.push(&ports(&[6]), &ports(&[]));
        let route = |r: &Routes, f, data| (0..5).map_while(|h| r.hop(f, data, h)).map(|p| p.0).collect::<Vec<_>>();
        assert_eq!((route(&r, 0, true), route(&r, 0, false)), (vec![1, 2, 3], vec![4, 5]));
        assert_eq!((route(&r, 1, true), route(&r, 1, false)), (vec![6], vec![]));
    }
}
