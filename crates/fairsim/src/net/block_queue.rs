//! A first-in first-out queue stored in small blocks that all queues of a thread share: what
//! the disciplines' FIFOs and the links' pipes hold their packets in.
//!
//! Why not a `VecDeque`: a `VecDeque` keeps the capacity of its longest moment, rounded up to a
//! power of two, for as long as it lives. A simulation has a queue and a pipe at every port,
//! and each meets its own burst at its own time, so the sum of every port's high-water mark
//! grew far past the packets ever held at once (massif, the 256-flow dumbbell of
//! docs/performance.md over 10 s: 26 of 40 MB in the pipes' `VecDeque`s). Here a queue longer
//! than one block holds a chain of blocks of `BLOCK` entries and hands each back to its
//! thread's free list as soon as it has been read through, so the memory follows the packets
//! held at once, as in simulators that keep one pool of packets (htsim's queues hold pointers
//! into one). The free list keeps at most `MAX_FREE_BLOCKS`, and gives the allocator the rest,
//! so that a run's memory follows the packets it holds now rather than the most it ever held:
//! at the end of a k = 64 fat-tree's 20 µs, 39,820 blocks (52 MB) lay idle in the list, given
//! back by the hosts' queues once they had sent their initial windows.
//!
//! A queue that fits in one block uses it as a ring, as a `VecDeque` would: most queues and
//! pipes hold a few packets at a time, and a ring that stays with its port stays in the cache.
//! (A first form read every block straight through and took the next from the free list: the
//! k = 8 fat-tree ran 16% longer than with `VecDeque`s.) The ring starts at `FIRST_RING` entries
//! (`Pooled`) and doubles as its queue first needs it, up to a block: a k = 64 fat-tree has
//! 393,216 ports, most of whose pipes never hold more than a packet or two, and a whole block for
//! each port's queue and pipe was most of its run's memory (docs/performance.md, "A k = 64
//! fat-tree"). A discipline's queue starts at 2 entries, a pipe's at 1: a pipe of a 1 µs, 10 Gb/s
//! link holds one full-size packet at a time, and of the k = 64 fabric's pipes that carried one,
//! those that never held two kept 9 MB of empty second places at the run's end. A
//! ring smaller than a block stays when its queue empties. A discipline's ring of a whole block
//! goes back to the free list then, and the queue starts again from `FIRST_RING`: a host's
//! queue fills to its initial window once and then holds a packet or two, and at k = 64 the
//! 62,973 hosts' empty blocks were 82 MB of the run's end (docs/performance.md, "A k = 64
//! fabric: an emptied queue's block"). A pipe keeps its block: a long link's pipe empties
//! between a window's bursts, every round trip (the TCP dumbbell's 18 pipes did so 32,000
//! times, 2% more instructions when they gave their blocks back), and at k = 64 only 35 pipes
//! ever need one.
//!
//! The free list is per thread because the engine runs a simulation on one thread; a queue
//! dropped on another thread gives its blocks to that thread's list, which is harmless. Nothing
//! here changes what a queue returns, only where its entries are kept: the order is a
//! `VecDeque`'s, and the tests below check it against one.

use crate::net::Packet;
use crate::units::Time;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::thread::LocalKey;

/// Entries in a block (a power of two, for the ring's index): 16 packets are 1.3-1.4 kB, small
/// beside a busy queue and a few kilobytes at a port (its queue's and its pipe's block).
pub const BLOCK: usize = 16;
/// The most blocks a thread's free list keeps (the module's comment): 5-6 MB of each kind,
/// enough for a queue of 65,536 packets to drain and fill again without the allocator.
const MAX_FREE_BLOCKS: usize = 4096;

type Block<T> = Box<[T; BLOCK]>;

/// What a `BlockQueue` can hold: a small `Copy` record with a free list of blocks of its own.
pub trait Pooled: Copy + 'static {
    fn free_blocks() -> &'static LocalKey<RefCell<Vec<Block<Self>>>>;
    /// Whether a ring of a whole block goes back to the free list when its queue empties: a
    /// discipline's queue's does, a pipe's stays (the module's comment).
    const GIVES_BACK_EMPTIED: bool;
    /// Entries in a queue's first ring (a power of two; the module's comment).
    const FIRST_RING: usize;
}

macro_rules! pooled {
    ($t:ty, $list:ident, $gives_back:expr, $first:expr) => {
        thread_local! {
            static $list: RefCell<Vec<Block<$t>>> = const { RefCell::new(Vec::new()) };
        }
        impl Pooled for $t {
            fn free_blocks() -> &'static LocalKey<RefCell<Vec<Block<Self>>>> {
                &$list
            }
            const GIVES_BACK_EMPTIED: bool = $gives_back;
            const FIRST_RING: usize = $first;
        }
    };
}

pooled!(Packet, FREE_PACKET_BLOCKS, true, 2);
pooled!(InFlight, FREE_IN_FLIGHT_BLOCKS, false, 1);

/// A packet propagating on a link, with when it reaches the far end: what a port's pipe holds.
/// The packet comes first (`repr(C)`), so that taking it out copies it in the 16-byte pieces
/// the entry was read in. With the time first (a tuple's layout), each piece straddled two of
/// the stores just before it, and a load that spans two stores waits until they reach the
/// cache (no store forwarding): a stall on every arrival, the hottest instruction of the
/// 256-flow dumbbell (docs/performance.md).
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct InFlight {
    pub pkt: Packet,
    pub arrival: Time,
}

/// Gives every free block of this thread back to the allocator: when a run ends, for its
/// report to reuse, and so that a long-lived process (Python's) keeps none between runs.
/// Returns the bytes it gave back.
#[inline(never)]
pub fn release_free_blocks() -> usize {
    fn release<T: Pooled>() -> usize {
        T::free_blocks().with_borrow_mut(std::mem::take).len() * std::mem::size_of::<[T; BLOCK]>()
    }
    release::<Packet>() + release::<InFlight>()
}

/// A block from the free list, or a new one filled with `entry` (a block holds initialised
/// entries; which ones are live is the queue's to know).
fn take_block<T: Pooled>(entry: T) -> Block<T> {
    T::free_blocks().with_borrow_mut(Vec::pop).unwrap_or_else(|| Box::new([entry; BLOCK]))
}

/// `block` to the free list, or to the allocator if the list is full.
fn give_back<T: Pooled>(block: Block<T>) {
    T::free_blocks().with_borrow_mut(|free| {
        if free.len() < MAX_FREE_BLOCKS {
            free.push(block)
        }
    });
}

/// `front` (a whole block, or a ring smaller than one) back to the free list, or to the
/// allocator if smaller.
fn give_back_front<T: Pooled>(front: Box<[T]>) {
    if let Ok(block) = Block::<T>::try_from(front) {
        give_back(block);
    }
}

/// A FIFO of `T`. Within one block it is a ring: entry i at `(head + i) % front.len()` of
/// `front`, whose length is a power of two up to `BLOCK`. Longer, it is a chain: `front` (a
/// whole block) from `head` to its end, the full blocks of `middle`, then `back` from its
/// start, every block but the last full.
///
/// 40 bytes: a port holds two (its discipline's FIFO and its pipe), and a k = 64 fat-tree has
/// 393,216 ports. The chain's middle is boxed (only a queue of more than two blocks has one),
/// and the hot path reads only `head` and `len` of it: in a chain, `head + len` is
/// `BLOCK` times the blocks before `back`, plus the entries in `back`. Both are 32-bit: `head`
/// is below `BLOCK`, and 4 billion packets would take 350 GB.
pub struct BlockQueue<T: Pooled> {
    front: Option<Box<[T]>>,
    head: u32,
    len: u32,
    #[allow(clippy::box_collection)] // boxed: 8 bytes where few queues have one, not 32
    middle: Option<Box<VecDeque<Block<T>>>>,
    /// The block being written when there is more than one (`None`: the ring).
    back: Option<Block<T>>,
}

impl<T: Pooled> Default for BlockQueue<T> {
    fn default() -> Self {
        BlockQueue { front: None, head: 0, len: 0, middle: None, back: None }
    }
}

impl<T: Pooled + std::fmt::Debug> std::fmt::Debug for BlockQueue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Pooled> Drop for BlockQueue<T> {
    fn drop(&mut self) {
        self.front.take().into_iter().for_each(give_back_front);
        self.middle.take().into_iter().flat_map(|middle| *middle).chain(self.back.take()).for_each(give_back);
    }
}

impl<T: Pooled> BlockQueue<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where the head is in `front`.
    #[inline(always)]
    fn head(&self) -> usize {
        self.head as usize
    }

    /// Full blocks between `front` and `back`.
    fn middle_len(&self) -> usize {
        self.middle.as_ref().map_or(0, |middle| middle.len())
    }

    // always inlined: out of line, the entry (80-88 bytes) is copied once more, onto the stack
    #[inline(always)]
    pub fn push_back(&mut self, entry: T) {
        let (head, len) = (self.head(), self.len());
        // a chain's next place in `back`, 0 if it is full (the type's comment)
        let in_back = (head + len) % BLOCK;
        match (&mut self.front, &mut self.back) {
            // the ring's length is a power of two: the mask is the modulo, and spares the bounds check
            (Some(ring), None) if len < ring.len() => ring[(head + len) & (ring.len() - 1)] = entry,
            (_, Some(back)) if in_back != 0 => back[in_back] = entry,
            _ => self.push_slow(entry),
        }
        self.len += 1;
    }

    /// A first entry, one past a full ring, or one past the chain's last full block.
    #[cold]
    #[inline(never)]
    fn push_slow(&mut self, entry: T) {
        let (head, len) = (self.head(), self.len());
        let Some(front) = &mut self.front else {
            (self.front, self.head) = (Some(vec![entry; T::FIRST_RING].into_boxed_slice()), 0);
            return;
        };
        if front.len() < BLOCK {
            // a full ring smaller than a block: twice its size, its entries in order from 0
            let mut ring: Box<[T]> = match 2 * front.len() {
                BLOCK => take_block(entry),
                size => vec![entry; size].into_boxed_slice(),
            };
            (0..len).for_each(|i| ring[i] = front[(head + i) & (front.len() - 1)]);
            ring[len] = entry;
            (self.front, self.head) = (Some(ring), 0);
            return;
        }
        if self.back.is_none() {
            // the ring is full: straighten it into the chain's first block
            front.rotate_left(head);
            self.head = 0;
            let mut back = take_block(entry);
            back[0] = entry;
            self.back = Some(back);
        } else {
            let full = self.back.replace(take_block(entry)).expect("a chain");
            self.middle.get_or_insert_default().push_back(full);
            self.back.as_mut().expect("a chain")[0] = entry;
        }
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        // `head` is below the block's length, a power of two: the mask only spares the bounds check
        self.front.as_ref().filter(|_| self.len > 0).map(|block| &block[self.head() & (block.len() - 1)])
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        let block = self.front.as_ref().filter(|_| self.len > 0)?;
        let (entry, ring) = (block[self.head() & (block.len() - 1)], block.len());
        self.len -= 1;
        self.head += 1;
        if self.head() == ring {
            self.past_the_end();
        }
        // a chain never empties here (its `back` holds an entry), so this is a ring
        if T::GIVES_BACK_EMPTIED && self.len == 0 && ring == BLOCK {
            self.emptied();
        }
        Some(entry)
    }

    /// The queue emptied from a ring of a whole block, which goes back to the free list for the
    /// queues that fill meanwhile; the next entry starts a ring of `FIRST_RING` (`push_slow`).
    /// Not a whole block again: a host's queue empties after nearly every packet, and would pass
    /// a block to and from the free list each time (0.6% more instructions on the TCP dumbbell,
    /// against 0.14% for this form). A queue emptied by `remove` keeps its ring.
    #[inline(never)]
    fn emptied(&mut self) {
        give_back_front(self.front.take().expect("a ring"));
        self.head = 0;
    }

    /// The head passed the end of `front`: a ring goes round; a chain's next block takes the
    /// place of the one read through, which goes back to the free list, and with one block
    /// left the queue is a ring again (from its start).
    #[inline(never)]
    fn past_the_end(&mut self) {
        self.head = 0;
        if self.back.is_none() {
            return;
        }
        let next = match self.middle.as_mut().and_then(|middle| middle.pop_front()) {
            Some(block) => block,
            None => self.back.take().expect("a chain"),
        };
        give_back_front(self.front.replace(next).expect("a chain"));
    }

    /// Block and place of the entry `index` places behind the head (`index < len`).
    fn locate(&self, index: usize) -> (usize, usize) {
        if self.back.is_none() {
            let ring = self.front.as_ref().map_or(BLOCK, |ring| ring.len());
            return (0, (self.head() + index) & (ring - 1));
        }
        let at = self.head() + index;
        (at / BLOCK, at % BLOCK)
    }

    fn block(&self, k: usize) -> &[T] {
        match k {
            0 => self.front.as_deref(),
            k if k <= self.middle_len() => return &self.middle.as_ref().expect("a middle")[k - 1][..],
            _ => self.back.as_deref().map(|b| &b[..]),
        }
        .expect("a block where entries are")
    }

    fn block_mut(&mut self, k: usize) -> &mut [T] {
        match k {
            0 => self.front.as_deref_mut(),
            k if k <= self.middle_len() => return &mut self.middle.as_mut().expect("a middle")[k - 1][..],
            _ => self.back.as_deref_mut().map(|b| &mut b[..]),
        }
        .expect("a block where entries are")
    }

    /// The entry `index` places behind the head.
    #[inline]
    pub fn get(&self, index: usize) -> Option<&T> {
        (index < self.len()).then(|| {
            let (k, at) = self.locate(index);
            &self.block(k)[at]
        })
    }

    /// The entry at the tail.
    #[inline]
    pub fn last(&self) -> Option<&T> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The entry at the tail, to change in place.
    #[inline]
    pub fn last_mut(&mut self) -> Option<&mut T> {
        let index = self.len().checked_sub(1)?;
        let (k, at) = self.locate(index);
        Some(&mut self.block_mut(k)[at])
    }

    /// Removes the entry `index` places behind the head, closing the gap from the nearer end
    /// (as `VecDeque::remove` does).
    pub fn remove(&mut self, index: usize) -> Option<T> {
        let entry = *self.get(index)?;
        if index < self.len() / 2 {
            (0..index).rev().for_each(|i| self.copy(i, i + 1));
            self.pop_front();
        } else {
            (index..self.len() - 1).for_each(|i| self.copy(i + 1, i));
            self.drop_last();
        }
        Some(entry)
    }

    /// Copies the entry `from` places behind the head to the place `to`.
    fn copy(&mut self, from: usize, to: usize) {
        let ((fb, fa), (tb, ta)) = (self.locate(from), self.locate(to));
        let entry = self.block(fb)[fa];
        self.block_mut(tb)[ta] = entry;
    }

    /// Forgets the entry at the tail.
    fn drop_last(&mut self) {
        self.len -= 1;
        if self.back.is_some() && (self.head() + self.len()) % BLOCK == 0 {
            // the last block is empty: the one before it is the last now
            let emptied = match self.middle.as_mut().and_then(|middle| middle.pop_back()) {
                Some(last) => self.back.replace(last),
                None => self.back.take(), // one block left: a ring from `head`
            };
            give_back(emptied.expect("a chain"));
        }
    }

    /// The entries from the head to the tail.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        (0..self.len()).map(|i| self.get(i).expect("an index below the length"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry(id: u64) -> Packet {
        Packet { id, ..Packet::blank() }
    }

    fn ids(q: &BlockQueue<Packet>) -> Vec<u64> {
        q.iter().map(|p| p.id).collect()
    }

    impl BlockQueue<Packet> {
        /// Entries of the chain in `back` (only with more than one block, where `back` holds 1
        /// to `BLOCK`).
        fn in_back(&self) -> usize {
            match (self.head() + self.len()) % BLOCK {
                0 => BLOCK,
                some => some,
            }
        }

        /// Live entries in each block.
        fn block_sizes(&self) -> Vec<usize> {
            match (&self.front, &self.back) {
                (None, _) => vec![],
                (Some(_), None) => vec![self.len()],
                (Some(_), Some(_)) => {
                    let middle = std::iter::repeat_n(BLOCK, self.middle_len());
                    std::iter::once(BLOCK - self.head()).chain(middle).chain([self.in_back()]).collect()
                }
            }
        }

        fn block_count(&self) -> usize {
            self.front.iter().count() + self.middle_len() + self.back.iter().count()
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push,
        Pop,
        Remove(usize),
        /// Changes the entry at the tail in place.
        ChangeLast,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => Just(Op::Push),
            3 => Just(Op::Pop),
            1 => (0usize..80).prop_map(Op::Remove),
            1 => Just(Op::ChangeLast)
        ]
    }

    proptest! {
        /// Any sequence of pushes, pops and removals leaves what a `VecDeque` would hold.
        #[test]
        fn behaves_as_a_vecdeque(ops in proptest::collection::vec(op(), 0..400)) {
            let (mut q, mut model) = (BlockQueue::default(), VecDeque::new());
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Push => {
                        q.push_back(entry(n as u64));
                        model.push_back(n as u64);
                    }
                    Op::Pop => prop_assert_eq!(q.pop_front().map(|p| p.id), model.pop_front()),
                    Op::Remove(i) => prop_assert_eq!(q.remove(i).map(|p| p.id), model.remove(i)),
                    Op::ChangeLast => {
                        if let (Some(p), Some(id)) = (q.last_mut(), model.back_mut()) {
                            (p.id, *id) = (1_000 + n as u64, 1_000 + n as u64);
                        }
                    }
                }
                prop_assert_eq!(q.last().map(|p| p.id), model.back().copied());
                prop_assert_eq!(q.len(), model.len());
                prop_assert_eq!(q.front().map(|p| p.id), model.front().copied());
                prop_assert_eq!(ids(&q), model.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(q.iter().rev().map(|p| p.id).collect::<Vec<_>>(),
                    model.iter().rev().copied().collect::<Vec<_>>());
                // a ring of one block, or a chain whose middle blocks are full and none empty
                let sizes = q.block_sizes();
                prop_assert_eq!(sizes.iter().sum::<usize>(), q.len());
                prop_assert!(sizes.iter().all(|&s| s <= BLOCK));
                if sizes.len() > 1 {
                    prop_assert!(sizes.iter().all(|&s| s > 0));
                    prop_assert!(sizes[1..sizes.len() - 1].iter().all(|&s| s == BLOCK));
                }
            }
        }
    }

    #[test]
    fn a_queue_is_small_beside_the_packets_it_holds() {
        // two at each of a k = 64 fat-tree's 393,216 ports: 72 bytes each with the middle inline
        assert!(std::mem::size_of::<BlockQueue<Packet>>() <= 40, "{}", std::mem::size_of::<BlockQueue<Packet>>());
    }

    fn ring<T: Pooled>(q: &BlockQueue<T>) -> usize {
        q.front.as_ref().map_or(0, |f| f.len())
    }

    #[test]
    fn a_ring_is_as_long_as_its_queue_has_been_at_most() {
        let mut q = BlockQueue::default();
        assert_eq!(ring(&q), 0, "a queue never used holds nothing");
        q.push_back(entry(0));
        assert_eq!(ring(&q), 2, "a discipline's queue starts with two places");
        assert!(q.pop_front().is_some());
        for held in 1..=BLOCK {
            (0..held as u64).for_each(|i| q.push_back(entry(i)));
            assert_eq!(ring(&q), held.next_power_of_two().max(2));
            assert_eq!(ids(&q), (0..held as u64).collect::<Vec<_>>());
            assert_eq!(q.block_count(), 1, "a ring grows to a block, not beyond");
            (0..held).for_each(|_| assert!(q.pop_front().is_some()));
            let kept = if held <= BLOCK / 2 { held.next_power_of_two().max(2) } else { 0 };
            assert_eq!(ring(&q), kept, "after {held}: a smaller ring stays when emptied, a block goes");
        }
    }

    #[test]
    fn a_pipe_starts_with_one_place_and_grows_as_a_queue_does() {
        let in_flight = |id| InFlight { pkt: entry(id), arrival: Time(id) };
        let mut pipe = BlockQueue::default();
        pipe.push_back(in_flight(0));
        assert_eq!(ring(&pipe), 1, "one packet propagating takes one place");
        for held in 2..=BLOCK {
            pipe.push_back(in_flight(held as u64 - 1));
            assert_eq!(ring(&pipe), held.next_power_of_two());
        }
        let arrivals: Vec<u64> = std::iter::from_fn(|| pipe.pop_front()).map(|e| e.arrival.0).collect();
        assert_eq!(arrivals, (0..BLOCK as u64).collect::<Vec<_>>());
    }

    #[test]
    fn the_free_list_keeps_a_bounded_number_of_blocks_and_gives_the_rest_to_the_allocator() {
        release_free_blocks();
        let mut q = BlockQueue::default();
        let entries = (MAX_FREE_BLOCKS + 10) * BLOCK;
        (0..entries as u64).for_each(|i| q.push_back(entry(i)));
        (0..entries).for_each(|_| assert!(q.pop_front().is_some()));
        assert_eq!(FREE_PACKET_BLOCKS.with_borrow(Vec::len), MAX_FREE_BLOCKS);
        assert_eq!(release_free_blocks(), MAX_FREE_BLOCKS * std::mem::size_of::<[Packet; BLOCK]>());
    }

    #[test]
    fn an_emptied_block_goes_back_from_a_queue_and_stays_in_a_pipe() {
        release_free_blocks();
        let free_packets = || FREE_PACKET_BLOCKS.with_borrow(Vec::len);
        let mut queue = BlockQueue::default();
        (0..BLOCK as u64).for_each(|i| queue.push_back(entry(i)));
        (0..BLOCK).for_each(|_| assert!(queue.pop_front().is_some()));
        assert_eq!((ring(&queue), free_packets()), (0, 1), "the discipline's block is on the free list");
        queue.push_back(entry(7));
        assert_eq!((ring(&queue), free_packets(), ids(&queue)), (2, 1, vec![7]), "and it starts again small");

        let mut pipe = BlockQueue::default();
        let in_flight = |id| InFlight { pkt: entry(id), arrival: Time::ZERO };
        (0..BLOCK as u64).for_each(|i| pipe.push_back(in_flight(i)));
        (0..BLOCK).for_each(|_| assert!(pipe.pop_front().is_some()));
        assert_eq!(ring(&pipe), BLOCK, "a pipe's block stays with it");
        drop((queue, pipe));
        release_free_blocks();
    }

    #[test]
    fn a_queue_holds_only_the_blocks_its_entries_need_and_shares_the_rest() {
        release_free_blocks();
        let free = || FREE_PACKET_BLOCKS.with_borrow(Vec::len);
        let mut q = BlockQueue::default();
        (0..10 * BLOCK as u64).for_each(|i| q.push_back(entry(i)));
        assert_eq!(q.block_count(), 10);
        (0..9 * BLOCK).for_each(|_| assert!(q.pop_front().is_some()));
        assert_eq!((q.block_count(), free()), (1, 9), "read-through blocks go to the free list");
        let mut other = BlockQueue::default();
        (0..3 * BLOCK as u64).for_each(|i| other.push_back(entry(i)));
        assert_eq!(free(), 6, "another queue takes them from there");
        (0..BLOCK).for_each(|_| assert!(q.pop_front().is_some()));
        assert_eq!((q.block_count(), q.is_empty(), free()), (0, true, 7), "an emptied queue gives back its last block");
        drop((q, other));
        assert_eq!(free(), 10, "a dropped queue gives back every block");
        assert_eq!(release_free_blocks(), 10 * std::mem::size_of::<[Packet; BLOCK]>(), "the bytes given back");
        assert_eq!(free(), 0);
    }
}
