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

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].1] = a;
        self.pos[self.heap[b].1] = b;
        self.swaps += 1;
    }

    /// Moves the entry at `p` up to its place; returns that place. The entry is held aside and
    /// the larger ones moved down into the hole it leaves, one position write each, instead of
    /// swapping it up; each move is counted as the swap it stands for, so `swaps` (the thesis's
    /// cost, reported) and every position are those of swapping (the test `sifts_with_a_hole_as_swapping_would`).
    fn sift_up(&mut self, mut p: usize) -> usize {
        let entry = self.heap[p];
        while p > 0 {
            let parent = (p - 1) / 2;
            if entry.0.partial_cmp(&self.heap[parent].0) != Some(Ordering::Less) {
                break;
            }
            self.place(p, self.heap[parent]);
            p = parent;
        }
        self.heap[p] = entry;
        self.pos[entry.1] = p;
        p
    }

    /// Moves the entry at `p` down to its place, as `sift_up` does: with a hole.
    fn sift_down(&mut self, mut p: usize) {
        let entry = self.heap[p];
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * p + 1, 2 * p + 2);
            // the smaller child, if smaller than the entry (left first on ties, as swapping chose)
            let mut best = None;
            let mut best_key = entry.0;
            if l < n && self.heap[l].0.partial_cmp(&best_key) == Some(Ordering::Less) {
                (best, best_key) = (Some(l), self.heap[l].0);
            }
            if r < n && self.heap[r].0.partial_cmp(&best_key) == Some(Ordering::Less) {
                best = Some(r);
            }
            let Some(child) = best else { break };
            self.place(p, self.heap[child]);
            p = child;
        }
        self.heap[p] = entry;
        self.pos[entry.1] = p;
    }

    /// Puts `moved` at `p` during a sift: one swap of the textbook heap.
    #[inline]
    fn place(&mut self, p: usize, moved: (K, usize)) {
        self.heap[p] = moved;
        self.pos[moved.1] = p;
        self.swaps += 1;
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

    /// The textbook heap the hole-based sifts replaced: swaps up and down.
    struct Swapping(IndexedHeap<Tag>);

    impl Swapping {
        fn less(&self, a: usize, b: usize) -> bool {
            self.0.heap[a].0.partial_cmp(&self.0.heap[b].0) == Some(Ordering::Less)
        }
        fn set(&mut self, item: usize, key: Tag) {
            let h = &mut self.0;
            if item >= h.pos.len() {
                h.pos.resize(item + 1, ABSENT);
            }
            match h.pos[item] {
                ABSENT => {
                    h.heap.push((key, item));
                    h.pos[item] = h.heap.len() - 1;
                    self.up(self.0.heap.len() - 1);
                }
                p => {
                    h.heap[p].0 = key;
                    let p = self.up(p);
                    self.down(p);
                }
            }
        }
        fn remove(&mut self, item: usize) -> Option<Tag> {
            let h = &mut self.0;
            let p = *h.pos.get(item).filter(|&&p| p != ABSENT)?;
            let last = h.heap.len() - 1;
            if p != last {
                h.swap(p, last);
            }
            let (key, _) = h.heap.pop().expect("non-empty");
            h.pos[item] = ABSENT;
            if p < h.heap.len() {
                let p = self.up(p);
                self.down(p);
            }
            Some(key)
        }
        fn up(&mut self, mut p: usize) -> usize {
            while p > 0 {
                let parent = (p - 1) / 2;
                if !self.less(p, parent) {
                    break;
                }
                self.0.swap(p, parent);
                p = parent;
            }
            p
        }
        fn down(&mut self, mut p: usize) {
            loop {
                let (l, r) = (2 * p + 1, 2 * p + 2);
                let mut best = p;
                if l < self.0.heap.len() && self.less(l, best) {
                    best = l;
                }
                if r < self.0.heap.len() && self.less(r, best) {
                    best = r;
                }
                if best == p {
                    return;
                }
                self.0.swap(p, best);
                p = best;
            }
        }
    }

    proptest! {
        /// Same layout, same positions, same swap count as swapping, after every operation:
        /// keys from a small range, so that ties of the first field are common.
        #[test]
        fn sifts_with_a_hole_as_swapping_would(ops in prop::collection::vec((0usize..40, 0u32..8, 0u64..3, 0u8..3), 0..300)) {
            let mut hole = IndexedHeap::<Tag>::default();
            let mut swapping = Swapping(IndexedHeap::default());
            for (item, key, seq, op) in ops {
                if op < 2 {
                    hole.set(item, Tag(key as f64, seq));
                    swapping.set(item, Tag(key as f64, seq));
                } else {
                    prop_assert_eq!(hole.remove(item), swapping.remove(item));
                }
                prop_assert_eq!(&hole.heap, &swapping.0.heap);
                prop_assert_eq!(&hole.pos, &swapping.0.pos);
                prop_assert_eq!(hole.swaps, swapping.0.swaps);
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
