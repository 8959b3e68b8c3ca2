//! A FIFO of packets that keeps its byte count: the building block of the disciplines that
//! queue in arrival order (FCFS, Random Drop, and the per-conversation queues of FQ and DRR).

use crate::net::block_queue::BlockQueue;
use crate::net::Packet;

#[derive(Debug, Default)]
pub struct Fifo {
    packets: BlockQueue<Packet>,
    bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, pkt: Packet) {
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
    }

    pub fn pop(&mut self) -> Option<Packet> {
        let pkt = self.packets.pop_front()?;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    /// Removes the packet at `index` (0 = the head).
    pub fn remove(&mut self, index: usize) -> Option<Packet> {
        let pkt = self.packets.remove(index)?;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Packet> + ExactSizeIterator {
        self.packets.iter()
    }

    pub fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.packets.iter().for_each(f)
    }
}
