//! A first-in first-out queue stored in small blocks that all queues of a thread share: what
//! the disciplines' FIFOs and the links' pipes hold their packets in.
//!
//! Why not a `VecDeque`: a `VecDeque` keeps the capacity of its longest moment, rounded up to a
//! power of two, for as long as it lives. A simulation has a queue and a pipe at every port,
//! and each meets its own burst at its own time, so the sum of every port's high-water mark
//! grew far past the packets ever held at once (massif, the 256-flow dumbbell of
//! docs/performance.md over 10 s: 26 of 40 MB in the pipes' `VecDeque`s). Here a queue holds
//! blocks of `BLOCK` entries and hands a block back to its thread's free list as soon as it has
//! been read through, so the memory follows the packets held at once, as in simulators that
//! keep one pool of packets (htsim's queues hold pointers into one). A queue keeps its last
//! block when it empties: a port that sends a packet now and then would otherwise take a block
//! and give it back for every packet.
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

/// Entries in a block: 16 packets are 1.3-1.4 kB, small beside a busy queue and only a few
/// kilobytes at an idle port (its queue's and its pipe's last block).
pub const BLOCK: usize = 16;

/// What a `BlockQueue` can hold: a small `Copy` record with a free list of blocks of its own.
pub trait Pooled: Copy + 'static {
    fn free_blocks() -> &'static LocalKey<RefCell<Vec<Vec<Self>>>>;
}

macro_rules! pooled {
    ($t:ty, $list:ident) => {
        thread_local! {
            static $list: RefCell<Vec<Vec<$t>>> = const { RefCell::new(Vec::new()) };
        }
        impl Pooled for $t {
            fn free_blocks() -> &'static LocalKey<RefCell<Vec<Vec<Self>>>> {
                &$list
            }
        }
    };
}

pooled!(Packet, FREE_PACKET_BLOCKS);
pooled!((Time, Packet), FREE_TIMED_PACKET_BLOCKS);

/// Gives every free block of this thread back to the allocator: when a run ends, for its
/// report to reuse, and so that a long-lived process (Python's) keeps none between runs.
#[inline(never)]
pub fn release_free_blocks() {
    FREE_PACKET_BLOCKS.with_borrow_mut(Vec::clear);
    FREE_TIMED_PACKET_BLOCKS.with_borrow_mut(Vec::clear);
}

fn take_block<T: Pooled>() -> Vec<T> {
    T::free_blocks().with_borrow_mut(Vec::pop).unwrap_or_else(|| Vec::with_capacity(BLOCK))
}

fn give_back<T: Pooled>(mut block: Vec<T>) {
    block.clear();
    T::free_blocks().with_borrow_mut(|free| free.push(block));
}

/// A FIFO of `T` in blocks of `BLOCK`. Every block but the last is full; the first one's
/// entries before `head` have been read and are dead.
pub struct BlockQueue<T: Pooled> {
    blocks: VecDeque<Vec<T>>,
    head: usize,
    len: usize,
}

impl<T: Pooled> Default for BlockQueue<T> {
    fn default() -> Self {
        BlockQueue { blocks: VecDeque::new(), head: 0, len: 0 }
    }
}

impl<T: Pooled + std::fmt::Debug> std::fmt::Debug for BlockQueue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Pooled> Drop for BlockQueue<T> {
    fn drop(&mut self) {
        self.blocks.drain(..).for_each(give_back);
    }
}

impl<T: Pooled> BlockQueue<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn push_back(&mut self, entry: T) {
        match self.blocks.back_mut() {
            Some(last) if last.len() < BLOCK => last.push(entry),
            _ => {
                let mut block = take_block();
                block.push(entry);
                self.blocks.push_back(block);
            }
        }
        self.len += 1;
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.blocks[0][self.head])
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let first = &self.blocks[0];
        let entry = first[self.head];
        self.head += 1;
        self.len -= 1;
        if self.head == first.len() {
            // read through: a full block goes back unless it is the last, which is kept empty
            if self.blocks.len() > 1 {
                give_back(self.blocks.pop_front().expect("more than one block"));
            } else {
                self.blocks[0].clear();
            }
            self.head = 0;
        }
        Some(entry)
    }

    /// The entry `index` places behind the head.
    #[inline]
    pub fn get(&self, index: usize) -> Option<&T> {
        (index < self.len).then(|| {
            let at = self.head + index;
            &self.blocks[at / BLOCK][at % BLOCK]
        })
    }

    /// Removes the entry `index` places behind the head, moving those behind it up by one.
    pub fn remove(&mut self, index: usize) -> Option<T> {
        if index >= self.len {
            return None;
        }
        let at = self.head + index;
        let (mut block, offset) = (at / BLOCK, at % BLOCK);
        let entry = self.blocks[block].remove(offset);
        // keep every block but the last full: each later block lends its first entry forward
        while block + 1 < self.blocks.len() {
            let moved = self.blocks[block + 1].remove(0);
            self.blocks[block].push(moved);
            block += 1;
        }
        self.len -= 1;
        if self.blocks.len() > 1 && self.blocks.back().is_some_and(Vec::is_empty) {
            give_back(self.blocks.pop_back().expect("more than one block"));
        }
        if self.len == 0 {
            self.blocks[0].clear();
            self.head = 0;
        }
        Some(entry)
    }

    /// The entries from the head to the tail.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        (0..self.len).map(|i| self.get(i).expect("an index below the length"))
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

    #[derive(Debug, Clone)]
    enum Op {
        Push,
        Pop,
        Remove(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![4 => Just(Op::Push), 3 => Just(Op::Pop), 1 => (0usize..80).prop_map(Op::Remove)]
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
                }
                prop_assert_eq!(q.len(), model.len());
                prop_assert_eq!(q.front().map(|p| p.id), model.front().copied());
                prop_assert_eq!(ids(&q), model.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(q.iter().rev().map(|p| p.id).collect::<Vec<_>>(),
                    model.iter().rev().copied().collect::<Vec<_>>());
                // every block but the last full, none empty but a lone last one
                let sizes: Vec<usize> = q.blocks.iter().map(Vec::len).collect();
                prop_assert!(sizes.len() <= 1 || sizes[..sizes.len() - 1].iter().all(|&s| s == BLOCK));
                prop_assert!(q.is_empty() || sizes.iter().all(|&s| s > 0));
                prop_assert_eq!(sizes.iter().sum::<usize>() - q.head, q.len());
            }
        }
    }

    #[test]
    fn a_queue_holds_only_the_blocks_its_entries_need_and_shares_the_rest() {
        release_free_blocks();
        let free = || FREE_PACKET_BLOCKS.with_borrow(Vec::len);
        let mut q = BlockQueue::default();
        (0..10 * BLOCK as u64).for_each(|i| q.push_back(entry(i)));
        assert_eq!(q.blocks.len(), 10);
        (0..9 * BLOCK).for_each(|_| assert!(q.pop_front().is_some()));
        assert_eq!((q.blocks.len(), free()), (1, 9), "read-through blocks go to the free list");
        let mut other = BlockQueue::default();
        (0..3 * BLOCK as u64).for_each(|i| other.push_back(entry(i)));
        assert_eq!(free(), 6, "another queue takes them from there");
        (0..BLOCK).for_each(|_| assert!(q.pop_front().is_some()));
        assert_eq!((q.blocks.len(), q.is_empty(), free()), (1, true, 6), "an empty queue keeps its last block");
        drop((q, other));
        assert_eq!(free(), 10, "a dropped queue gives back every block");
        release_free_blocks();
        assert_eq!(free(), 0);
    }
}
