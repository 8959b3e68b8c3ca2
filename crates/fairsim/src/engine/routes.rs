//! Every flow's two routes (data and ACKs) in one flat table beside the flow states, for the
//! loop's forwarding: a packet arriving at the far end of a line looks up its next port here.
//!
//! The routes are also in each flow's state (`FlowState::data_route`, `ack_route`), which the
//! hosts read where a packet starts. Forwarding read them there too: the flow's 1.5-KB state,
//! then the route's own allocation, two cache misses at every hop once the flows outnumber the
//! cache (10,000 flows). Here the spans are 16 bytes a flow and the ports of all routes lie
//! together, a few hundred kilobytes at 10,000 flows. Only a cost: the ports are the same.

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
    /// By flow index: the scenario's flows, then connections' slots.
    spans: Vec<Span>,
}

impl Routes {
    /// Sets the routes of flow `flow` (the next index, or one set before: a connection's slot
    /// taken again). Routes of a slot's new connection have its flow's lengths, so they
    /// overwrite the old ones; others are appended.
    pub fn set(&mut self, flow: usize, data: &[PortId], ack: &[PortId]) {
        if flow == self.spans.len() {
            self.spans.push(Span::default());
        }
        let span = &mut self.spans[flow];
        if span.data_len as usize != data.len() || span.ack_len as usize != ack.len() {
            span.data = self.ports.len() as u32;
            self.ports.extend_from_slice(data);
            span.ack = self.ports.len() as u32;
            self.ports.extend_from_slice(ack);
            (span.data_len, span.ack_len) = (data.len() as u32, ack.len() as u32);
        } else {
            let (d, a) = (span.data as usize, span.ack as usize);
            self.ports[d..d + data.len()].copy_from_slice(data);
            self.ports[a..a + ack.len()].copy_from_slice(ack);
        }
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
    fn hops_are_the_routes_and_a_slot_taken_again_gets_its_new_routes() {
        let mut r = Routes::default();
        r.set(0, &ports(&[1, 2, 3]), &ports(&[4, 5]));
        r.set(1, &ports(&[6]), &ports(&[]));
        let route = |r: &Routes, f, data| (0..5).map_while(|h| r.hop(f, data, h)).map(|p| p.0).collect::<Vec<_>>();
        assert_eq!((route(&r, 0, true), route(&r, 0, false)), (vec![1, 2, 3], vec![4, 5]));
        assert_eq!((route(&r, 1, true), route(&r, 1, false)), (vec![6], vec![]));
        // a connection's own access line replaces the first hop: same lengths, in place
        let used = r.ports.len();
        r.set(0, &ports(&[9, 2, 3]), &ports(&[4, 5]));
        assert_eq!((route(&r, 0, true), r.ports.len()), (vec![9, 2, 3], used));
        // other lengths are appended
        r.set(1, &ports(&[7, 8]), &ports(&[3]));
        assert_eq!((route(&r, 1, true), route(&r, 1, false)), (vec![7, 8], vec![3]));
        assert_eq!(route(&r, 0, true), vec![9, 2, 3], "another flow's routes are untouched");
    }
}
