//! A queue that serves its connections in turn, one packet each, FIFO within a connection: a
//! band of `strict_priority` with `round_robin` (htsim's `FairPriorityQueue`, whose bands each
//! hold a `FairPullQueue` over flows; Broadcom/csg-htsim 841d9e7, `sim/queue.cpp`,
//! `sim/fairpullqueue.cpp`).
//!
//! Connections are told apart by `Packet::conn`, so the transfers of one workload, which share
//! its flow, take turns too. A connection is in the ring only while it has packets queued; one
//! that arrives joins at the back. The ring is searched in order: a host's interface holds the
//! few connections that send at once, and a search through them costs less than a hash.

use super::fifo::Fifo;
use crate::net::{FlowId, Packet, PacketPool};
use std::collections::VecDeque;

#[derive(Debug, Default)]
pub struct FlowRing {
    /// The connections with packets queued, the one to serve next first.
    ring: VecDeque<(FlowId, Fifo)>,
    packets: usize,
}

impl FlowRing {
    pub fn push(&mut self, pkt: Packet, pool: &mut PacketPool) {
        self.packets += 1;
        match self.ring.iter_mut().find(|(c, _)| *c == pkt.conn) {
            Some((_, queue)) => queue.push(pkt, pool),
            None => {
                let mut queue = Fifo::default();
                queue.push(pkt, pool);
                self.ring.push_back((pkt.conn, queue));
            }
        }
    }

    /// The next connection's first packet; the connection goes to the back if it has more.
    pub fn pop(&mut self, pool: &mut PacketPool) -> Option<Packet> {
        let (c, mut queue) = self.ring.pop_front()?;
        let pkt = queue.pop(pool);
        if !queue.is_empty() {
            self.ring.push_back((c, queue));
        }
        self.packets -= 1;
        pkt
    }

    /// Removes the last packet of the connection that would be served last.
    pub fn pop_last(&mut self, pool: &mut PacketPool) -> Option<Packet> {
        let (_, queue) = self.ring.back_mut()?;
        let pkt = queue.pop_back(pool);
        if queue.is_empty() {
            self.ring.pop_back();
        }
        self.packets -= 1;
        pkt
    }

    pub fn is_empty(&self) -> bool {
        self.packets == 0
    }

    pub fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.ring.iter().for_each(|(_, q)| q.for_each_packet(pool, f));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(conn: u32, seq: u64) -> Packet {
        Packet { conn: FlowId(conn), seq, size: 100, ..Packet::blank() }
    }

    #[test]
    fn connections_take_turns_one_packet_each_in_order_of_arrival() {
        let (mut r, mut pool) = (FlowRing::default(), PacketPool::standalone());
        for (c, s) in [(1, 0), (1, 1), (1, 2), (2, 0), (3, 0), (3, 1)] {
            r.push(pkt(c, s), &mut pool);
        }
        let order: Vec<_> = std::iter::from_fn(|| r.pop(&mut pool)).map(|p| (p.conn.0, p.seq)).collect();
        assert_eq!(order, vec![(1, 0), (2, 0), (3, 0), (1, 1), (3, 1), (1, 2)]);
        assert!(r.is_empty());
    }

    #[test]
    fn the_last_packet_of_the_last_connection_served_is_the_one_pushed_out() {
        let (mut r, mut pool) = (FlowRing::default(), PacketPool::standalone());
        for (c, s) in [(1, 0), (2, 0), (2, 1)] {
            r.push(pkt(c, s), &mut pool);
        }
        assert_eq!(r.pop_last(&mut pool).map(|p| (p.conn.0, p.seq)), Some((2, 1)));
        assert_eq!(r.pop_last(&mut pool).map(|p| (p.conn.0, p.seq)), Some((2, 0)));
        assert_eq!((r.pop(&mut pool).map(|p| p.conn.0), r.is_empty()), (Some(1), true));
    }
}
