//! The packets a run holds, waiting in its queues or propagating on its links, kept in one pool:
//! a queue (`qdisc::fifo::Fifo`) or a link's pipe is a `List` threaded through the pool's slots by
//! their 32-bit numbers, so it holds no place of its own, empty or not, and the pool holds as
//! many packets as the run holds at once, in slots given back as soon as they are read (htsim's
//! queues likewise hold pointers into its packet pools).
//!
//! Why: a queue or a pipe that kept its packets in a ring of its own kept the ring's places while
//! they were empty. In a k = 64 fat-tree's first 10 µs, 65,536 hosts' queues held the 16 places
//! their initial window had filled for the two or three packets left of it: 1.05 million places
//! (84 MB) for 305,000 packets; at 20 µs, 1.37 million places of queues and pipes (114 MB) held
//! 660,000 packets (docs/performance.md, "Choices behind these figures").
//!
//! The pool grows by chunks of `CHUNK` slots and never moves a slot: a list's numbers stay good
//! for the run. A parallel run's partitions each have their own pool, whose chunks take numbers
//! from one counter shared by the run (`ChunkNumbers`), so that a slot's number names it in every
//! partition's pool: when the partitions are put together, their chunks go into one pool at
//! their numbers (`PacketPool::absorb`) and every list's numbers still hold. Which slot a packet
//! takes changes nothing the run computes, only where the packet is kept.

use super::packet::Packet;
use crate::units::Time;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Slots in a chunk (a power of two, for the number's split): 24 kB, one for every 256 packets
/// held at once. A pool is at most a chunk larger than the packets it has held at once, which
/// matters to the small runs compared with htsim (the k = 8 HPCC permutation's engine 9.8 MB
/// against 9.9 with chunks of 1,024); a k = 64 run's 2,600 chunks cost 20 kB of chunk table.
pub const CHUNK: usize = 256;
const CHUNK_BITS: u32 = CHUNK.trailing_zeros();

/// The number no slot has: the end of a list.
const NONE: u32 = u32::MAX;
const OWN_SLOT: &str = "a slot of the pool's own chunks";

/// A packet, with when it reaches the far end of the link it propagates on: what a pipe holds.
/// A queue's packets leave `arrival` as it is.
#[derive(Copy, Clone, Debug)]
pub struct InFlight {
    pub pkt: Packet,
    pub arrival: Time,
}

/// An entry and the numbers of the slots before and after it in its list (`next` also links
/// the free list): 96 bytes.
#[derive(Copy, Clone, Debug)]
struct Slot {
    entry: InFlight,
    next: u32,
    prev: u32,
}

/// The numbers of a run's chunks, shared by its partitions' pools.
#[derive(Clone, Default, Debug)]
pub struct ChunkNumbers(Arc<AtomicU32>);

impl ChunkNumbers {
    fn next(&self) -> usize {
        let n = self.0.fetch_add(1, Ordering::Relaxed);
        // `NONE >> CHUNK_BITS` chunks are 4 billion slots, the last of which would be numbered `NONE`
        assert!(n < NONE >> CHUNK_BITS, "more than 4 billion packets held at once");
        n as usize
    }
}

/// A run's (or a partition's) packets: see the module's comment.
pub struct PacketPool {
    /// Indexed by chunk number; `None` where the chunk is another partition's. Of a fixed
    /// size, so that a slot's place in its chunk needs no bounds check.
    chunks: Vec<Option<Box<[Slot; CHUNK]>>>,
    /// The first free slot, `NONE` if none.
    free: u32,
    /// Slots in lists.
    held: u32,
    numbers: ChunkNumbers,
}

impl Default for PacketPool {
    fn default() -> Self {
        Self::standalone()
    }
}

impl std::fmt::Debug for PacketPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PacketPool({} chunks, {} slots held)", self.chunks.iter().flatten().count(), self.held)
    }
}

impl PacketPool {
    /// An empty pool whose chunks take their numbers from `numbers`.
    fn new(numbers: ChunkNumbers) -> Self {
        PacketPool { chunks: vec![], free: NONE, held: 0, numbers }
    }

    /// A pool of its own numbers: a run's, or a discipline's in its tests.
    pub fn standalone() -> Self {
        Self::new(ChunkNumbers::default())
    }

    /// A new pool that numbers its chunks as this one does: a partition's.
    pub fn sibling(&self) -> Self {
        Self::new(self.numbers.clone())
    }

    #[inline(always)]
    fn slot(&self, n: u32) -> &Slot {
        let chunk = self.chunks[(n >> CHUNK_BITS) as usize].as_deref().expect(OWN_SLOT);
        &chunk[n as usize & (CHUNK - 1)]
    }

    #[inline(always)]
    fn slot_mut(&mut self, n: u32) -> &mut Slot {
        let chunk = self.chunks[(n >> CHUNK_BITS) as usize].as_deref_mut().expect(OWN_SLOT);
        &mut chunk[n as usize & (CHUNK - 1)]
    }

    /// A free slot, taken off the free list, behind slot `prev`, its entry written by `write`;
    /// returns its number. Its `next` is left as it is: the list it joins sets it when an entry
    /// joins behind.
    #[inline(always)]
    fn put(&mut self, prev: u32, write: impl FnOnce(&mut InFlight)) -> u32 {
        if self.free == NONE {
            self.grow();
        }
        let n = self.free;
        let slot = self.slot_mut(n);
        let next_free = slot.next;
        write(&mut slot.entry);
        slot.prev = prev;
        (self.free, self.held) = (next_free, self.held + 1);
        n
    }

    /// Takes slot `n` out of its list (its neighbours are its list's to link), and frees it.
    #[inline(always)]
    fn take(&mut self, n: u32) -> Slot {
        let free = self.free;
        let slot = self.slot_mut(n);
        let taken = *slot;
        slot.next = free;
        self.free = n;
        self.held -= 1;
        taken
    }

    /// Slot `after` is followed by slot `n`, which knows it too: the neighbours of an entry
    /// taken out of a list's middle (its ends go by `List::pop`).
    #[inline(always)]
    fn link(&mut self, after: u32, n: u32) {
        self.slot_mut(after).next = n;
        self.slot_mut(n).prev = after;
    }

    /// A new chunk, its slots the free list in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let number = self.numbers.next();
        let first = (number << CHUNK_BITS) as u32;
        let blank = InFlight { pkt: Packet::blank(), arrival: Time::ZERO };
        let slots: Box<[Slot]> =
            (0..CHUNK as u32).map(|i| Slot { entry: blank, next: first + i + 1, prev: NONE }).collect();
        if self.chunks.len() <= number {
            self.chunks.resize_with(number + 1, Default::default);
        }
        self.chunks[number] = Some(slots.try_into().expect("CHUNK slots"));
        self.slot_mut(first + CHUNK as u32 - 1).next = self.free;
        self.free = first;
    }

    /// Gives the chunks back to the allocator if no list holds a slot: at the run's end, once
    /// its packets have gone (`Simulation::let_go_of_packets`), for its report to reuse. Returns
    /// the bytes given back.
    pub fn release_if_empty(&mut self) -> usize {
        if self.held > 0 {
            return 0;
        }
        let bytes = self.chunks.iter().flatten().count() * std::mem::size_of::<[Slot; CHUNK]>();
        (self.chunks, self.free) = (vec![], NONE);
        bytes
    }

    /// Takes in `other`'s chunks, at their numbers, and its free slots: `other` is a partition of
    /// the same run (`sibling`) whose lists now draw on this pool.
    pub fn absorb(&mut self, mut other: PacketPool) {
        if self.chunks.len() < other.chunks.len() {
            self.chunks.resize_with(other.chunks.len(), Default::default);
        }
        for (number, chunk) in other.chunks.drain(..).enumerate().filter(|(_, c)| c.is_some()) {
            debug_assert!(self.chunks[number].is_none(), "a chunk in two partitions");
            self.chunks[number] = chunk;
        }
        self.held += other.held;
        // other's free list, then this one's
        let Some(mut last) = Some(other.free).filter(|&n| n != NONE) else { return };
        while self.slot(last).next != NONE {
            last = self.slot(last).next;
        }
        self.slot_mut(last).next = self.free;
        self.free = other.free;
    }
}

/// A list of entries in a pool, first in first out (and out of the tail or the middle, for the
/// disciplines that push out): 12 bytes.
#[derive(Debug)]
pub struct List {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for List {
    fn default() -> Self {
        List { head: NONE, tail: NONE, len: 0 }
    }
}

impl List {
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `entry` at the tail.
    #[inline(always)]
    pub fn push_back(&mut self, entry: InFlight, pool: &mut PacketPool) {
        let n = pool.put(self.tail, |e| *e = entry);
        self.join(n, pool);
    }

    /// `pkt` at the tail, its arrival left as the slot had it: a queue's packet.
    #[inline(always)]
    pub fn push_packet(&mut self, pkt: Packet, pool: &mut PacketPool) {
        let n = pool.put(self.tail, |e| e.pkt = pkt);
        self.join(n, pool);
    }

    /// Slot `n`, which knows its tail already, joins at the tail.
    #[inline(always)]
    fn join(&mut self, n: u32, pool: &mut PacketPool) {
        if self.len == 0 {
            self.head = n;
        } else {
            pool.slot_mut(self.tail).next = n;
        }
        self.tail = n;
        self.len += 1;
    }

    #[inline(always)]
    pub fn pop_front(&mut self, pool: &mut PacketPool) -> Option<InFlight> {
        self.pop::<false>(pool)
    }

    /// Takes the entry at the tail (the newest).
    pub fn pop_back(&mut self, pool: &mut PacketPool) -> Option<InFlight> {
        self.pop::<true>(pool)
    }

    /// Takes the entry at the head, or at the tail if `BACK`.
    #[inline(always)]
    fn pop<const BACK: bool>(&mut self, pool: &mut PacketPool) -> Option<InFlight> {
        if self.len == 0 {
            return None;
        }
        let end = if BACK { &mut self.tail } else { &mut self.head };
        let slot = pool.take(*end);
        *end = if BACK { slot.prev } else { slot.next };
        self.len -= 1;
        Some(slot.entry)
    }

    /// Removes the entry `index` places behind the head, found from the nearer end.
    pub fn remove(&mut self, index: usize, pool: &mut PacketPool) -> Option<InFlight> {
        let len = self.len();
        match index {
            _ if index >= len => None,
            0 => self.pop_front(pool),
            _ if index == len - 1 => self.pop_back(pool),
            _ => {
                let n = if index < len / 2 {
                    (0..index).fold(self.head, |n, _| pool.slot(n).next)
                } else {
                    (index..len - 1).fold(self.tail, |n, _| pool.slot(n).prev)
                };
                let slot = pool.take(n);
                pool.link(slot.prev, slot.next);
                self.len -= 1;
                Some(slot.entry)
            }
        }
    }

    #[inline(always)]
    pub fn front<'a>(&self, pool: &'a PacketPool) -> Option<&'a InFlight> {
        (self.len > 0).then(|| &pool.slot(self.head).entry)
    }

    #[inline(always)]
    pub fn back<'a>(&self, pool: &'a PacketPool) -> Option<&'a InFlight> {
        (self.len > 0).then(|| &pool.slot(self.tail).entry)
    }

    #[inline(always)]
    pub fn back_mut<'a>(&self, pool: &'a mut PacketPool) -> Option<&'a mut InFlight> {
        (self.len > 0).then(|| &mut pool.slot_mut(self.tail).entry)
    }

    /// Gives every entry's slot back to the pool.
    pub fn clear(&mut self, pool: &mut PacketPool) {
        while self.pop_front(pool).is_some() {}
    }

    /// The entries from the head to the tail.
    pub fn iter<'a>(&self, pool: &'a PacketPool) -> Iter<'a> {
        Iter { pool, front: self.head, back: self.tail, left: self.len() }
    }
}

/// A list's entries from its head (`List::iter`).
pub struct Iter<'a> {
    pool: &'a PacketPool,
    front: u32,
    back: u32,
    left: usize,
}

impl<'a> Iter<'a> {
    /// The entry at the front end, or at the back end if `BACK`, which then moves inwards.
    fn step<const BACK: bool>(&mut self) -> Option<&'a InFlight> {
        if self.left == 0 {
            return None;
        }
        let end = if BACK { &mut self.back } else { &mut self.front };
        let slot = self.pool.slot(*end);
        *end = if BACK { slot.prev } else { slot.next };
        self.left -= 1;
        Some(&slot.entry)
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a InFlight;

    fn next(&mut self) -> Option<&'a InFlight> {
        self.step::<false>()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<'a> DoubleEndedIterator for Iter<'a> {
    fn next_back(&mut self) -> Option<&'a InFlight> {
        self.step::<true>()
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::VecDeque;

    fn entry(id: u64) -> InFlight {
        InFlight { pkt: Packet { id, ..Packet::blank() }, arrival: Time(id) }
    }

    fn ids(list: &List, pool: &PacketPool) -> Vec<u64> {
        list.iter(pool).map(|e| e.pkt.id).collect()
    }

    #[test]
    fn a_slot_given_back_is_the_next_taken_and_a_chunk_is_made_only_when_none_is_free() {
        let mut pool = PacketPool::standalone();
        let mut list = List::default();
        (0..CHUNK as u64).for_each(|i| list.push_back(entry(i), &mut pool));
        assert_eq!((list.head, list.tail, pool.chunks.len()), (0, CHUNK as u32 - 1, 1));
        assert_eq!(list.remove(5, &mut pool).map(|e| e.pkt.id), Some(5));
        list.push_back(entry(99), &mut pool);
        assert_eq!(list.tail, 5, "the slot just freed");
        list.push_back(entry(100), &mut pool);
        assert_eq!((list.tail, pool.chunks.len()), (CHUNK as u32, 2), "a second chunk");
        assert_eq!(list.back(&pool).map(|e| e.arrival), Some(Time(100)));
    }

    #[test]
    fn lists_in_one_pool_keep_their_own_order_as_vecdeques_would() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut pool = PacketPool::standalone();
        let mut lists = [List::default(), List::default(), List::default()];
        let mut models: [VecDeque<u64>; 3] = Default::default();
        for id in 0..30_000u64 {
            let k = rng.random_range(0..lists.len());
            let (list, model) = (&mut lists[k], &mut models[k]);
            match rng.random_range(0..12) {
                0..=5 => {
                    list.push_back(entry(id), &mut pool);
                    model.push_back(id);
                }
                6..=8 => assert_eq!(list.pop_front(&mut pool).map(|e| e.pkt.id), model.pop_front()),
                9 => assert_eq!(list.pop_back(&mut pool).map(|e| e.pkt.id), model.pop_back()),
                _ => {
                    let i = rng.random_range(0..model.len() + 1); // one past the end: nothing
                    assert_eq!(list.remove(i, &mut pool).map(|e| e.pkt.id), model.remove(i));
                }
            }
            assert_eq!(ids(list, &pool), Vec::from(model.clone()));
            assert!(list.iter(&pool).rev().map(|e| e.pkt.id).eq(model.iter().rev().copied()));
            assert_eq!(list.front(&pool).map(|e| e.pkt.id), model.front().copied());
            assert_eq!(list.back(&pool).map(|e| e.arrival), model.back().map(|&i| Time(i)));
        }
        // every slot not in a list is free: the lists and the free list hold each slot once
        let mut free = 0;
        let mut n = pool.free;
        while n != NONE {
            free += 1;
            n = pool.slot(n).next;
        }
        let held: usize = lists.iter().map(List::len).sum();
        assert_eq!(free + held, pool.chunks.len() * CHUNK);
    }

    #[test]
    fn partitions_number_their_chunks_apart_and_one_absorbs_the_others_with_their_free_slots() {
        let mut a = PacketPool::standalone();
        let mut b = a.sibling();
        let (mut in_a, mut in_b) = (List::default(), List::default());
        in_b.push_back(entry(1), &mut b);
        in_a.push_back(entry(2), &mut a);
        assert_eq!((in_b.head >> CHUNK_BITS, in_a.head >> CHUNK_BITS), (0, 1), "b numbered its chunk first");
        a.absorb(b);
        assert_eq!((ids(&in_b, &a), ids(&in_a, &a)), (vec![1], vec![2]));
        // every free slot of both is free in the one pool, and none twice
        let mut rest = List::default();
        (0..2 * CHUNK as u64 - 2).for_each(|i| rest.push_back(entry(i), &mut a));
        let mut taken: Vec<u32> =
            std::iter::successors(Some(rest.head), |&n| Some(a.slot(n).next)).take(rest.len()).collect();
        taken.extend([in_a.head, in_b.head]);
        taken.sort_unstable();
        assert_eq!(taken, (0..2 * CHUNK as u32).collect::<Vec<_>>());
        assert_eq!(a.chunks.iter().flatten().count(), 2, "no third chunk");
    }

    #[test]
    fn a_list_is_12_bytes_and_a_slot_96() {
        assert_eq!((std::mem::size_of::<List>(), std::mem::size_of::<Slot>()), (12, 96));
    }
}
