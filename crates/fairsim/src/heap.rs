//! A binary heap over dense item ids (conversations) whose keys can change: push, update,
//! remove and pop in O(log n), with the number of element swaps counted, because swaps are the
//! elementary operation of the thesis's cost model for heaps (Keshav 1991, §3.3.3).
//!
//! The heap is a min-heap on `K`; use `Max<K>` for a max-heap. Keys that compare equal are
//! ordered by nothing in particular, so callers put a tie-breaker (an arrival sequence number)
//! in the key.

use std::cmp::Ordering;

/// Reverses the order of a key, for max-heaps.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Max<K>(pub K);

impl<K: PartialOrd> PartialOrd for Max<K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        other.0.partial_cmp(&self.0)
    }
}

/// A tag (finish number, bid, virtual time) and an arrival sequence number to break ties.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Tag(pub f64, pub u64);

impl PartialOrd for Tag {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.0.total_cmp(&other.0).then(self.1.cmp(&other.1)))
    }
}

const ABSENT: usize = usize::MAX;

#[derive(Debug, Clone)]
pub struct IndexedHeap<K> {
    heap: Vec<(K, usize)>,
    /// Position of each item in `heap`, or ABSENT.
    pos: Vec<usize>,
    /// Element swaps performed so far.
    pub swaps: u64,
}

impl<K> Default for IndexedHeap<K> {
    fn default() -> Self {
        IndexedHeap { heap: vec![], pos: vec![], swaps: 0 }
    }
}

impl<K: PartialOrd + Copy> IndexedHeap<K> {
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    pub fn contains(&self, item: usize) -> bool {
        self.pos.get(item).is_some_and(|&p| p != ABSENT)
    }
    pub fn peek(&self) -> Option<(K, usize)> {
        self.heap.first().copied()
    }
    pub fn key(&self, item: usize) -> Option<K> {
        self.contains(item).then(|| self.heap[self.pos[item]].0)
    }

    /// Inserts `item` with `key`, or changes its key if it is present.
    pub fn set(&mut self, item: usize, key: K) {
        if item >= self.pos.len() {
            self.pos.resize(item + 1, ABSENT);
        }
        match self.pos[item] {
            ABSENT => {
                self.heap.push((key, item));
                self.pos[item] = self.heap.len() - 1;
                self.sift_up(self.heap.len() - 1);
            }
            p => {
                self.heap[p].0 = key;
                let p = self.sift_up(p);
                self.sift_down(p);
            }
        }
    }

    pub fn pop(&mut self) -> Option<(K, usize)> {
        let top = self.peek()?;
        self.remove(top.1);
        Some(top)
    }

    pub fn remove(&mut self, item: usize) -> Option<K> {
        let p = *self.pos.get(item).filter(|&&p| p != ABSENT)?;
        let last = self.heap.len() - 1;
        if p != last {
            self.swap(p, last);
        }
        let (key, _) = self.heap.pop().expect("non-empty");
        self.pos[item] = ABSENT;
        if p < self.heap.len() {
            let p = self.sift_up(p);
            self.sift_down(p);
        }
        Some(key)
    }

    fn less(&self, a: usize, b: usize) -> bool {
        self.heap[a].0.partial_cmp(&self.heap[b].0) == Some(Ordering::Less)
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].1] = a;
        self.pos[self.heap[b].1] = b;
        self.swaps += 1;
    }

    fn sift_up(&mut self, mut p: usize) -> usize {
        while p > 0 {
            let parent = (p - 1) / 2;
            if !self.less(p, parent) {
                break;
            }
            self.swap(p, parent);
            p = parent;
        }
        p
    }

    fn sift_down(&mut self, mut p: usize) {
        loop {
            let (l, r) = (2 * p + 1, 2 * p + 2);
            let mut best = p;
            if l < self.heap.len() && self.less(l, best) {
                best = l;
            }
            if r < self.heap.len() && self.less(r, best) {
                best = r;
            }
            if best == p {
                return;
            }
            self.swap(p, best);
            p = best;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn behaves_like_a_sorted_map(ops in prop::collection::vec((0usize..20, 0u32..50, 0u8..3), 0..200)) {
            let mut h = IndexedHeap::<Tag>::default();
            let mut model = std::collections::BTreeMap::new();
            for (item, key, op) in ops {
                match op {
                    0 | 1 => {
                        h.set(item, Tag(key as f64, item as u64));
                        model.insert(item, key);
                    }
                    _ => {
                        prop_assert_eq!(h.remove(item).map(|t| t.0 as u32), model.remove(&item));
                    }
                }
                let want = model.iter().map(|(i, k)| (*k, *i)).min();
                prop_assert_eq!(h.peek().map(|(t, i)| (t.0 as u32, i)), want);
                prop_assert_eq!(h.len(), model.len());
            }
        }
    }

    #[test]
    fn max_heaps_and_swap_counts() {
        let mut h = IndexedHeap::<Max<Tag>>::default();
        for i in 0..8 {
            h.set(i, Max(Tag(i as f64, 0)));
        }
        // ascending keys into a max-heap: every insertion sifts to the root
        assert_eq!(h.swaps, [0, 1, 1, 2, 2, 2, 2, 3].iter().sum::<u64>());
        assert_eq!(h.pop().map(|(_, i)| i), Some(7));
        h.set(0, Max(Tag(100.0, 0)));
        assert_eq!(h.peek().map(|(_, i)| i), Some(0));
    }
}
