//! A FIFO of packets that keeps its byte count: the building block of the disciplines that
//! queue in arrival order (FCFS, Random Drop, RED and the other AQMs, FQ-CoDel's flow queues).
//!
//! Its packets wait in the run's pool (`net::packet_pool`), which every call that reads or
//! changes them names: the queue itself is the numbers of its first and last slots, so an empty
//! queue holds no memory at all.

use crate::net::packet_pool::{InFlight, List, PacketPool};
use crate::net::Packet;

/// 24 bytes: its list in the pool and its bytes.
#[derive(Debug, Default)]
pub struct Fifo {
    packets: List,
    bytes: u64,
}

impl Fifo {
    #[inline(always)]
    pub fn push(&mut self, pkt: Packet, pool: &mut PacketPool) {
        self.bytes += pkt.size as u64;
        self.packets.push_packet(pkt, pool);
    }

    #[inline(always)]
    pub fn pop(&mut self, pool: &mut PacketPool) -> Option<Packet> {
        let taken = self.packets.pop_front(pool);
        self.counted_out(taken)
    }

    /// Takes the packet at the tail (the newest).
    pub fn pop_back(&mut self, pool: &mut PacketPool) -> Option<Packet> {
        let taken = self.packets.pop_back(pool);
        self.counted_out(taken)
    }

    /// The packet at the head.
    #[inline]
    pub fn front<'a>(&self, pool: &'a PacketPool) -> Option<&'a Packet> {
        self.packets.front(pool).map(|e| &e.pkt)
    }

    /// Removes the packet at `index` (0 = the head).
    pub fn remove(&mut self, index: usize, pool: &mut PacketPool) -> Option<Packet> {
        let taken = self.packets.remove(index, pool);
        self.counted_out(taken)
    }

    /// The packet of an entry taken out of the list, its bytes no longer counted.
    #[inline(always)]
    fn counted_out(&mut self, taken: Option<InFlight>) -> Option<Packet> {
        let pkt = taken?.pkt;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    /// Gives every packet's slot back to the pool.
    pub fn clear(&mut self, pool: &mut PacketPool) {
        self.packets.clear(pool);
        self.bytes = 0;
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The packets from the head to the tail.
    pub fn iter<'a>(&self, pool: &'a PacketPool) -> impl DoubleEndedIterator<Item = &'a Packet> + ExactSizeIterator {
        self.packets.iter(pool).map(|e| &e.pkt)
    }

    pub fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.iter(pool).for_each(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(id: u64) -> Packet {
        Packet { id, size: 100 + id as u32, ..Packet::blank() }
    }

    #[test]
    fn a_fifo_keeps_its_bytes_through_every_way_out() {
        let mut pool = PacketPool::standalone();
        let mut q = Fifo::default();
        (0..5).for_each(|i| q.push(packet(i), &mut pool));
        assert_eq!(q.bytes(), 510);
        assert_eq!(q.pop(&mut pool).map(|p| p.id), Some(0));
        assert_eq!(q.pop_back(&mut pool).map(|p| p.id), Some(4));
        assert_eq!(q.remove(1, &mut pool).map(|p| p.id), Some(2));
        assert_eq!((q.iter(&pool).map(|p| p.id).collect::<Vec<_>>(), q.bytes()), (vec![1, 3], 204));
        assert_eq!(q.front(&pool).map(|p| p.id), Some(1));
        q.clear(&mut pool);
        assert!(q.is_empty() && q.bytes() == 0);
    }

    #[test]
    fn an_empty_queue_is_24_bytes_and_holds_no_memory() {
        assert_eq!(std::mem::size_of::<Fifo>(), 24);
    }
}
