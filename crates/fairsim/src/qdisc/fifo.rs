//! A FIFO of packets that keeps its byte count: the building block of the disciplines that
//! queue in arrival order (FCFS, Random Drop, and the per-conversation queues of FQ and DRR).
//!
//! Its packets wait in the run's pool (`net::packet_pool`), which every call that reads or
//! changes them names: the queue itself is the numbers of its first and last slots, so an empty
//! queue holds no memory at all.

use crate::net::packet_pool::{PacketPool, NONE};
use crate::net::Packet;

/// 24 bytes: the ends of its list in the pool, its length and its bytes.
#[derive(Debug)]
pub struct Fifo {
    head: u32,
    tail: u32,
    len: u32,
    bytes: u64,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo { head: NONE, tail: NONE, len: 0, bytes: 0 }
    }
}

impl Fifo {
    #[inline(always)]
    pub fn push(&mut self, pkt: Packet, pool: &mut PacketPool) {
        self.bytes += pkt.size as u64;
        let n = pool.put(pkt);
        if self.len == 0 {
            self.head = n;
        } else {
            pool.link(self.tail, n);
        }
        self.tail = n;
        self.len += 1;
    }

    #[inline(always)]
    pub fn pop(&mut self, pool: &mut PacketPool) -> Option<Packet> {
        if self.len == 0 {
            return None;
        }
        let slot = pool.take(self.head);
        self.head = slot.next;
        self.len -= 1;
        self.bytes -= slot.pkt.size as u64;
        Some(slot.pkt)
    }

    /// Takes the packet at the tail (the newest).
    pub fn pop_back(&mut self, pool: &mut PacketPool) -> Option<Packet> {
        if self.len == 0 {
            return None;
        }
        let slot = pool.take(self.tail);
        self.tail = slot.prev;
        self.len -= 1;
        self.bytes -= slot.pkt.size as u64;
        Some(slot.pkt)
    }

    /// The packet at the head.
    #[inline]
    pub fn front<'a>(&self, pool: &'a PacketPool) -> Option<&'a Packet> {
        (self.len > 0).then(|| pool.get(self.head))
    }

    /// Removes the packet at `index` (0 = the head), found from the nearer end.
    pub fn remove(&mut self, index: usize, pool: &mut PacketPool) -> Option<Packet> {
        let len = self.len();
        if index >= len {
            return None;
        }
        if index == 0 {
            return self.pop(pool);
        }
        if index == len - 1 {
            return self.pop_back(pool);
        }
        let n = if index < len / 2 {
            (0..index).fold(self.head, |n, _| pool.next(n))
        } else {
            (index..len - 1).fold(self.tail, |n, _| pool.prev(n))
        };
        let slot = pool.take(n);
        pool.link(slot.prev, slot.next);
        self.len -= 1;
        self.bytes -= slot.pkt.size as u64;
        Some(slot.pkt)
    }

    /// Gives every packet's slot back to the pool.
    pub fn clear(&mut self, pool: &mut PacketPool) {
        while self.pop(pool).is_some() {}
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The packets from the head to the tail.
    pub fn iter<'a>(&self, pool: &'a PacketPool) -> Iter<'a> {
        Iter { pool, front: self.head, back: self.tail, left: self.len() }
    }

    pub fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.iter(pool).for_each(f)
    }
}

/// A queue's packets from its head (`Fifo::iter`).
pub struct Iter<'a> {
    pool: &'a PacketPool,
    front: u32,
    back: u32,
    left: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Packet;

    fn next(&mut self) -> Option<&'a Packet> {
        if self.left == 0 {
            return None;
        }
        let pkt = self.pool.get(self.front);
        self.left -= 1;
        if self.left > 0 {
            self.front = self.pool.next(self.front);
        }
        Some(pkt)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<'a> DoubleEndedIterator for Iter<'a> {
    fn next_back(&mut self) -> Option<&'a Packet> {
        if self.left == 0 {
            return None;
        }
        let pkt = self.pool.get(self.back);
        self.left -= 1;
        if self.left > 0 {
            self.back = self.pool.prev(self.back);
        }
        Some(pkt)
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn packet(id: u64) -> Packet {
        Packet { id, size: 100 + id as u32, ..Packet::blank() }
    }

    fn ids(q: &Fifo, pool: &PacketPool) -> Vec<u64> {
        q.iter(pool).map(|p| p.id).collect()
    }

    #[test]
    fn two_queues_in_one_pool_keep_their_own_order_and_bytes_as_a_vecdeque_would() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut pool = PacketPool::standalone();
        let (mut queues, mut models) = ([Fifo::default(), Fifo::default()], [VecDeque::new(), VecDeque::new()]);
        for id in 0..20_000u64 {
            let k = rng.random_range(0..2);
            let (q, model) = (&mut queues[k], &mut models[k]);
            match rng.random_range(0..11) {
                0..=4 => {
                    q.push(packet(id), &mut pool);
                    model.push_back(id);
                }
                5..=8 => assert_eq!(q.pop(&mut pool).map(|p| p.id), model.pop_front()),
                _ if !model.is_empty() => {
                    let i = rng.random_range(0..model.len());
                    assert_eq!(q.remove(i, &mut pool).map(|p| p.id), model.remove(i));
                }
                9 => assert!(q.remove(0, &mut pool).is_none()),
                _ => assert_eq!(q.pop_back(&mut pool).map(|p| p.id), model.pop_back()),
            }
            assert_eq!(ids(q, &pool), Vec::from(model.clone()));
            assert!(q.iter(&pool).rev().map(|p| p.id).eq(model.iter().rev().copied()));
            assert_eq!(q.bytes(), model.iter().map(|&i| 100 + i).sum::<u64>());
            assert_eq!(q.front(&pool).map(|p| p.id), model.front().copied());
        }
    }

    #[test]
    fn removing_the_tail_lets_the_next_packet_join_behind_the_one_before_it() {
        let mut pool = PacketPool::standalone();
        let mut q = Fifo::default();
        (0..3).for_each(|i| q.push(packet(i), &mut pool));
        assert_eq!(q.remove(2, &mut pool).map(|p| p.id), Some(2));
        q.push(packet(7), &mut pool);
        assert_eq!(ids(&q, &pool), [0, 1, 7]);
        q.clear(&mut pool);
        assert!(q.is_empty() && q.bytes() == 0);
    }

    #[test]
    fn an_empty_queue_is_24_bytes_and_holds_no_memory() {
        assert_eq!(std::mem::size_of::<Fifo>(), 24);
    }
}
