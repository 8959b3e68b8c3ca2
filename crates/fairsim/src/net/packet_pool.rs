//! The packets waiting in a run's queues, kept in one pool: a queue (`qdisc::fifo::Fifo`) is a
//! list threaded through the pool's slots by their 32-bit numbers, so it holds no place of its
//! own, empty or not, and the pool holds as many packets as wait at once, in slots given back
//! as soon as they are read (htsim's queues likewise hold pointers into its packet pools).
//!
//! Why: a queue that kept its packets in a ring of its own kept the ring's places while they
//! were empty. In a k = 64 fat-tree's first 10 µs, 65,536 hosts' queues held the 16 places their
//! initial window had filled for the two or three packets left of it: 1.05 million places
//! (84 MB) for 305,000 packets (docs/performance.md, "A k = 64 fabric: one pool of waiting
//! packets").
//!
//! The pool grows by chunks of `CHUNK` slots and never moves a slot: a queue's numbers stay
//! good for the run. A parallel run's partitions each have their own pool, whose chunks take
//! numbers from one counter shared by the run (`ChunkNumbers`), so that a slot's number names it
//! in every partition's pool: when the partitions are put together, their chunks go into one pool
//! at their numbers (`PacketPool::absorb`) and every queue's numbers still hold. Which slot a packet
//! takes changes nothing the run computes, only where the packet waits.

use super::packet::Packet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Slots in a chunk (a power of two, for the number's split): 88 kB, one for every 1,024
/// packets that wait at once.
pub const CHUNK: usize = 1024;
const CHUNK_BITS: u32 = CHUNK.trailing_zeros();

/// The number no slot has: the end of a list.
pub const NONE: u32 = u32::MAX;

/// A packet and the numbers of the slots before and after it in its queue (`next` also links
/// the free list): 88 bytes, the packet's 80 and the 8 its alignment would leave anyway.
#[derive(Copy, Clone)]
pub struct Slot {
    pub pkt: Packet,
    pub next: u32,
    pub prev: u32,
}

/// The numbers of a run's chunks, shared by its partitions' pools.
#[derive(Clone, Default, Debug)]
pub struct ChunkNumbers(Arc<AtomicU32>);

impl ChunkNumbers {
    fn next(&self) -> usize {
        let n = self.0.fetch_add(1, Ordering::Relaxed);
        // 4 million chunks are 4 billion slots, whose last number would be `NONE`
        assert!(n < NONE >> CHUNK_BITS, "more than 4 billion packets waiting at once");
        n as usize
    }
}

/// A run's (or a partition's) waiting packets: see the module's comment.
pub struct PacketPool {
    /// Indexed by chunk number; empty where the chunk is another partition's.
    chunks: Vec<Box<[Slot]>>,
    /// The first free slot, `NONE` if none.
    free: u32,
    numbers: ChunkNumbers,
}

impl std::fmt::Debug for PacketPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PacketPool({} chunks)", self.chunks.iter().filter(|c| !c.is_empty()).count())
    }
}

impl Default for PacketPool {
    fn default() -> Self {
        Self::standalone()
    }
}

impl PacketPool {
    /// An empty pool whose chunks take their numbers from `numbers`.
    pub fn new(numbers: ChunkNumbers) -> Self {
        PacketPool { chunks: vec![], free: NONE, numbers }
    }

    /// A pool of its own numbers, for a discipline's tests and benches.
    pub fn standalone() -> Self {
        Self::new(ChunkNumbers::default())
    }

    /// A new pool that numbers its chunks as this one does: a partition's.
    pub fn sibling(&self) -> Self {
        Self::new(self.numbers.clone())
    }

    /// Bytes the pool's chunks take.
    pub fn bytes(&self) -> usize {
        self.chunks.iter().map(|c| std::mem::size_of_val(&**c)).sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<Box<[Slot]>>()
    }

    #[inline(always)]
    fn slot(&self, n: u32) -> &Slot {
        &self.chunks[(n >> CHUNK_BITS) as usize][n as usize & (CHUNK - 1)]
    }

    #[inline(always)]
    fn slot_mut(&mut self, n: u32) -> &mut Slot {
        &mut self.chunks[(n >> CHUNK_BITS) as usize][n as usize & (CHUNK - 1)]
    }

    /// Puts `pkt` in a free slot; returns its number. The slot's `next` is left as it is: the
    /// queue sets it when a packet joins behind (`link`).
    #[inline(always)]
    pub fn put(&mut self, pkt: Packet) -> u32 {
        if self.free == NONE {
            self.grow();
        }
        let n = self.free;
        let slot = self.slot_mut(n);
        let next_free = slot.next;
        slot.pkt = pkt;
        self.free = next_free;
        n
    }

    /// Takes slot `n` out, which becomes free: its packet and its neighbours' numbers.
    #[inline(always)]
    pub fn take(&mut self, n: u32) -> Slot {
        let free = self.free;
        let slot = self.slot_mut(n);
        let taken = *slot;
        slot.next = free;
        self.free = n;
        taken
    }

    /// Slot `after` is followed by slot `n` (`NONE`: by none), which `n` knows too.
    #[inline(always)]
    pub fn link(&mut self, after: u32, n: u32) {
        self.slot_mut(after).next = n;
        if n != NONE {
            self.slot_mut(n).prev = after;
        }
    }

    /// The packet in slot `n`.
    #[inline(always)]
    pub fn get(&self, n: u32) -> &Packet {
        &self.slot(n).pkt
    }

    /// The packet in slot `n`, to change in place.
    #[inline(always)]
    pub fn get_mut(&mut self, n: u32) -> &mut Packet {
        &mut self.slot_mut(n).pkt
    }

    /// The slot after slot `n`.
    #[inline(always)]
    pub fn next(&self, n: u32) -> u32 {
        self.slot(n).next
    }

    /// The slot before slot `n` (in a queue, if `n` is not its head).
    #[inline(always)]
    pub fn prev(&self, n: u32) -> u32 {
        self.slot(n).prev
    }

    /// A new chunk, its slots the free list in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let number = self.numbers.next();
        let first = (number << CHUNK_BITS) as u32;
        let chunk: Box<[Slot]> =
            (0..CHUNK as u32).map(|i| Slot { pkt: Packet::blank(), next: first + i + 1, prev: NONE }).collect();
        if self.chunks.len() <= number {
            self.chunks.resize_with(number + 1, Default::default);
        }
        self.chunks[number] = chunk;
        self.slot_mut(first + CHUNK as u32 - 1).next = NONE;
        self.free = first;
    }

    /// Takes in `other`'s chunks, at their numbers, and its free slots: `other` is a partition of
    /// the same run (`sibling`) whose queues now draw on this pool.
    pub fn absorb(&mut self, mut other: PacketPool) {
        if self.chunks.len() < other.chunks.len() {
            self.chunks.resize_with(other.chunks.len(), Default::default);
        }
        for (number, chunk) in other.chunks.drain(..).enumerate().filter(|(_, c)| !c.is_empty()) {
            debug_assert!(self.chunks[number].is_empty(), "a chunk in two partitions");
            self.chunks[number] = chunk;
        }
        // other's free list, then this one's
        let mut last = other.free;
        if last == NONE {
            return;
        }
        while self.next(last) != NONE {
            last = self.next(last);
        }
        self.slot_mut(last).next = self.free;
        self.free = other.free;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(id: u64) -> Packet {
        Packet { id, ..Packet::blank() }
    }

    #[test]
    fn a_slot_given_back_is_the_next_taken_and_a_chunk_is_made_only_when_none_is_free() {
        let mut pool = PacketPool::standalone();
        let numbers: Vec<u32> = (0..CHUNK as u64).map(|i| pool.put(packet(i))).collect();
        assert_eq!(numbers, (0..CHUNK as u32).collect::<Vec<_>>());
        assert_eq!(pool.chunks.len(), 1);
        assert_eq!(pool.take(5).pkt.id, 5);
        assert_eq!(pool.put(packet(99)), 5, "the slot just freed");
        assert_eq!(pool.put(packet(100)), CHUNK as u32, "a second chunk");
        assert_eq!(pool.chunks.len(), 2);
        assert_eq!(pool.get(5).id, 99);
    }

    #[test]
    fn partitions_number_their_chunks_apart_and_one_absorbs_the_others_with_their_free_slots() {
        let mut a = PacketPool::standalone();
        let mut b = a.sibling();
        let in_b = b.put(packet(1));
        let in_a = a.put(packet(2));
        assert_eq!(in_b >> CHUNK_BITS, 0, "b numbered its chunk first");
        assert_eq!(in_a >> CHUNK_BITS, 1);
        a.absorb(b);
        assert_eq!((a.get(in_b).id, a.get(in_a).id), (1, 2));
        // every free slot of both is free in the one pool, and none twice
        let mut taken: Vec<u32> = (0..2 * CHUNK - 2).map(|i| a.put(packet(i as u64))).collect();
        taken.extend([in_a, in_b]);
        taken.sort_unstable();
        assert_eq!(taken, (0..2 * CHUNK as u32).collect::<Vec<_>>());
        assert_eq!(a.chunks.iter().filter(|c| !c.is_empty()).count(), 2, "no third chunk");
    }
}
