//! The packet buffer of Fair Queueing, in the four structures Keshav 1991 (chapter 3) compares.
//!
//! The abstraction is the thesis's *bounded heap*: insert a packet tagged with its bid; take
//! the smallest bid to transmit; when the buffer is over its limit, drop the largest bid.
//! - `List` (LINK): an ordered doubly linked list, insertion scanning from the tail (bids rise
//!   within a conversation, so most insertions land near the end);
//! - `Tree` (TREE): an unbalanced binary search tree;
//! - `DoubleHeap` (HEAP): a min-heap and a max-heap over the same packets, cross-indexed
//!   (Appendix 3.A);
//! - `Perc` (PERC): per-conversation FIFOs plus a min-heap of the conversations' head bids and a
//!   max-heap of their tail bids.
//!
//! Every structure counts its elementary operations as the thesis does (§3.3.5): one link
//! traversed for lists and trees, one swap of two elements for heaps. `Perc` also supports the
//! 1989 paper's buffer policy (drop the last packet of the longest conversation); the others
//! only drop the largest bid, as chapter 3 does.

use crate::heap::{IndexedHeap, Max, Tag};
use crate::net::Packet;
use crate::qdisc::perconv::{Conversations, Entry};
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Structure {
    #[default]
    Perc,
    List,
    Tree,
    DoubleHeap,
}

/// Elementary operations counted as in the thesis (links traversed or element swaps).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Ops {
    pub inserts: u64,
    pub insert_ops: u64,
    pub max_insert_ops: u64,
    pub removals: u64,
    pub removal_ops: u64,
}

impl Ops {
    fn inserted(&mut self, ops: u64) {
        self.inserts += 1;
        self.insert_ops += ops;
        self.max_insert_ops = self.max_insert_ops.max(ops);
    }
    fn removed(&mut self, ops: u64) {
        self.removals += 1;
        self.removal_ops += ops;
    }
}

pub trait BidStore: Send + Sync {
    fn insert(&mut self, conv: usize, pkt: Packet, bid: f64, aux: f64);
    /// The packet with the smallest bid (ties: first in).
    fn pop_min(&mut self) -> Option<(usize, Entry)>;
    /// The packet with the largest bid (ties: last in).
    fn pop_max(&mut self) -> Option<(usize, Entry)>;
    /// The last packet of conversation `conv` (only `Perc` keeps conversations apart).
    fn pop_last_of(&mut self, _conv: usize) -> Option<Entry> {
        unreachable!("validated: only the per-conversation store drops by conversation")
    }
    /// The conversation using the most buffer (only `Perc`).
    fn longest(&self, _prefer: usize) -> Option<usize> {
        unreachable!("validated: only the per-conversation store drops by conversation")
    }
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn bytes(&self) -> u64;
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet));
    fn ops(&self) -> Ops;
}

pub fn new_store(s: Structure, convs: usize, limit: BufferLimit, by_conversation: bool) -> Box<dyn BidStore> {
    match s {
        Structure::Perc => Box::new(Perc::new(convs, limit, by_conversation)),
        Structure::List => Box::<List>::default(),
        Structure::Tree => Box::<Tree>::default(),
        Structure::DoubleHeap => Box::<DoubleHeap>::default(),
    }
}

// ----- PERC ---------------------------------------------------------------------------------

pub struct Perc {
    convs: Conversations,
    heads: IndexedHeap<Tag>,
    /// Tails by bid, kept only to drop the largest bid (with `by_conversation` drops, the
    /// longest conversation is tracked instead).
    tails: Option<IndexedHeap<Max<Tag>>>,
    ops: Ops,
}

impl Perc {
    /// `by_conversation`: drops take the last packet of the longest conversation; otherwise the
    /// largest bid.
    pub fn new(count: usize, limit: BufferLimit, by_conversation: bool) -> Perc {
        Perc {
            convs: Conversations::new(count, limit, by_conversation),
            heads: Default::default(),
            tails: (!by_conversation).then(Default::default),
            ops: Ops::default(),
        }
    }

    fn swaps(&self) -> u64 {
        self.heads.swaps + self.tails.as_ref().map_or(0, |t| t.swaps)
    }

    /// Re-keys conversation `c` in the heaps after its queue changed.
    fn rekey(&mut self, c: usize) {
        match (self.convs.front(c), self.convs.back(c)) {
            (Some(h), Some(t)) => {
                let (hk, tk) = (Tag(h.tag, h.seq), Tag(t.tag, t.seq));
                self.heads.set(c, hk);
                if let Some(tails) = &mut self.tails {
                    tails.set(c, Max(tk));
                }
            }
            _ => {
                self.heads.remove(c);
                if let Some(tails) = &mut self.tails {
                    tails.remove(c);
                }
            }
        }
    }

    fn removed(&mut self, c: usize, e: Option<Entry>, before: u64) -> Option<Entry> {
        self.rekey(c);
        self.ops.removed(self.swaps() - before);
        e
    }
}

impl BidStore for Perc {
    fn insert(&mut self, c: usize, pkt: Packet, bid: f64, aux: f64) {
        let before = self.swaps();
        let was_empty = self.convs.is_empty(c);
        let seq = self.convs.push(c, pkt, bid, aux);
        if was_empty {
            self.heads.set(c, Tag(bid, seq));
        }
        if let Some(tails) = &mut self.tails {
            tails.set(c, Max(Tag(bid, seq)));
        }
        self.ops.inserted(self.swaps() - before);
    }
    fn pop_min(&mut self) -> Option<(usize, Entry)> {
        let (_, c) = self.heads.peek()?;
        let before = self.swaps();
        let e = self.convs.pop_front(c);
        self.removed(c, e, before).map(|e| (c, e))
    }
    fn pop_max(&mut self) -> Option<(usize, Entry)> {
        let (_, c) = self.tails.as_ref().expect("created to drop the largest bid").peek()?;
        let before = self.swaps();
        let e = self.convs.pop_back(c);
        self.removed(c, e, before).map(|e| (c, e))
    }
    fn pop_last_of(&mut self, c: usize) -> Option<Entry> {
        let before = self.swaps();
        let e = self.convs.pop_back(c);
        self.removed(c, e, before)
    }
    fn longest(&self, prefer: usize) -> Option<usize> {
        self.convs.longest(prefer)
    }
    fn len(&self) -> usize {
        self.convs.total_packets()
    }
    fn bytes(&self) -> u64 {
        self.convs.total_bytes()
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.convs.for_each_packet(f)
    }
    fn ops(&self) -> Ops {
        self.ops
    }
}

// ----- shared bookkeeping of the homogeneous structures --------------------------------------

#[derive(Default)]
struct Totals {
    len: usize,
    bytes: u64,
    next_seq: u64,
    ops: Ops,
}

impl Totals {
    fn entry(&mut self, pkt: Packet, bid: f64, aux: f64) -> Entry {
        self.len += 1;
        self.bytes += pkt.size as u64;
        self.next_seq += 1;
        Entry { pkt, tag: bid, aux, seq: self.next_seq - 1 }
    }
    fn out(&mut self, e: &Entry) {
        self.len -= 1;
        self.bytes -= e.pkt.size as u64;
    }
}

const NIL: usize = usize::MAX;

/// Arena slots with a free list, for the linked structures.
struct Slab<N> {
    nodes: Vec<N>,
    free: Vec<usize>,
}

impl<N> Default for Slab<N> {
    fn default() -> Self {
        Slab { nodes: vec![], free: vec![] }
    }
}

impl<N> Slab<N> {
    fn alloc(&mut self, n: N) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.nodes[i] = n;
                i
            }
            None => {
                self.nodes.push(n);
                self.nodes.len() - 1
            }
        }
    }
    fn release(&mut self, i: usize) {
        self.free.push(i);
    }
}

// ----- LINK -----------------------------------------------------------------------------------

struct ListNode {
    key: Tag,
    conv: usize,
    entry: Entry,
    prev: usize,
    next: usize,
}

pub struct List {
    slab: Slab<ListNode>,
    head: usize,
    tail: usize,
    t: Totals,
}

impl Default for List {
    fn default() -> Self {
        List { slab: Slab::default(), head: NIL, tail: NIL, t: Totals::default() }
    }
}

impl List {
    fn unlink(&mut self, i: usize) -> (usize, Entry) {
        let (prev, next) = (self.slab.nodes[i].prev, self.slab.nodes[i].next);
        match prev {
            NIL => self.head = next,
            p => self.slab.nodes[p].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.slab.nodes[n].prev = prev,
        }
        self.slab.release(i);
        let n = &self.slab.nodes[i];
        let out = (n.conv, n.entry);
        self.t.out(&out.1);
        self.t.ops.removed(0);
        out
    }
}

impl BidStore for List {
    fn insert(&mut self, conv: usize, pkt: Packet, bid: f64, aux: f64) {
        let entry = self.t.entry(pkt, bid, aux);
        let key = Tag(bid, entry.seq);
        // scan from the tail for the last node with a smaller key
        let (mut after, mut traversed) = (self.tail, 0);
        while after != NIL && self.slab.nodes[after].key > key {
            after = self.slab.nodes[after].prev;
            traversed += 1;
        }
        let next = if after == NIL { self.head } else { self.slab.nodes[after].next };
        let i = self.slab.alloc(ListNode { key, conv, entry, prev: after, next });
        match after {
            NIL => self.head = i,
            a => self.slab.nodes[a].next = i,
        }
        match next {
            NIL => self.tail = i,
            n => self.slab.nodes[n].prev = i,
        }
        self.t.ops.inserted(traversed);
    }
    fn pop_min(&mut self) -> Option<(usize, Entry)> {
        (self.head != NIL).then(|| self.unlink(self.head))
    }
    fn pop_max(&mut self) -> Option<(usize, Entry)> {
        (self.tail != NIL).then(|| self.unlink(self.tail))
    }
    fn len(&self) -> usize {
        self.t.len
    }
    fn bytes(&self) -> u64 {
        self.t.bytes
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        let mut i = self.head;
        while i != NIL {
            f(&self.slab.nodes[i].entry.pkt);
            i = self.slab.nodes[i].next;
        }
    }
    fn ops(&self) -> Ops {
        self.t.ops
    }
}

// ----- TREE -----------------------------------------------------------------------------------

struct TreeNode {
    key: Tag,
    conv: usize,
    entry: Entry,
    left: usize,
    right: usize,
    parent: usize,
}

pub struct Tree {
    slab: Slab<TreeNode>,
    root: usize,
    t: Totals,
}

impl Default for Tree {
    fn default() -> Self {
        Tree { slab: Slab::default(), root: NIL, t: Totals::default() }
    }
}

impl Tree {
    /// Replaces node `i` (which has at most one child) by that child.
    fn splice(&mut self, i: usize) -> (usize, Entry) {
        let n = &self.slab.nodes[i];
        let (child, parent) = (if n.left != NIL { n.left } else { n.right }, n.parent);
        if child != NIL {
            self.slab.nodes[child].parent = parent;
        }
        match parent {
            NIL => self.root = child,
            p if self.slab.nodes[p].left == i => self.slab.nodes[p].left = child,
            p => self.slab.nodes[p].right = child,
        }
        self.slab.release(i);
        let n = &self.slab.nodes[i];
        let out = (n.conv, n.entry);
        self.t.out(&out.1);
        out
    }

    /// The extreme node on one side (`left` = minimum), counting links followed.
    fn extreme(&self, left: bool) -> (usize, u64) {
        let (mut i, mut links) = (self.root, 0);
        loop {
            let n = &self.slab.nodes[i];
            let next = if left { n.left } else { n.right };
            if next == NIL {
                return (i, links);
            }
            i = next;
            links += 1;
        }
    }

    fn pop_extreme(&mut self, left: bool) -> Option<(usize, Entry)> {
        if self.root == NIL {
            return None;
        }
        let (i, links) = self.extreme(left);
        self.t.ops.removed(links);
        Some(self.splice(i))
    }
}

impl BidStore for Tree {
    fn insert(&mut self, conv: usize, pkt: Packet, bid: f64, aux: f64) {
        let entry = self.t.entry(pkt, bid, aux);
        let key = Tag(bid, entry.seq);
        let i = self.slab.alloc(TreeNode { key, conv, entry, left: NIL, right: NIL, parent: NIL });
        if self.root == NIL {
            self.root = i;
            self.t.ops.inserted(0);
            return;
        }
        let (mut at, mut links) = (self.root, 0);
        loop {
            links += 1;
            let go_left = key < self.slab.nodes[at].key;
            let next = if go_left { self.slab.nodes[at].left } else { self.slab.nodes[at].right };
            if next == NIL {
                if go_left {
                    self.slab.nodes[at].left = i;
                } else {
                    self.slab.nodes[at].right = i;
                }
                self.slab.nodes[i].parent = at;
                break;
            }
            at = next;
        }
        self.t.ops.inserted(links);
    }
    fn pop_min(&mut self) -> Option<(usize, Entry)> {
        self.pop_extreme(true)
    }
    fn pop_max(&mut self) -> Option<(usize, Entry)> {
        self.pop_extreme(false)
    }
    fn len(&self) -> usize {
        self.t.len
    }
    fn bytes(&self) -> u64 {
        self.t.bytes
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        let mut stack = vec![self.root];
        while let Some(i) = stack.pop() {
            if i != NIL {
                let n = &self.slab.nodes[i];
                f(&n.entry.pkt);
                stack.extend([n.left, n.right]);
            }
        }
    }
    fn ops(&self) -> Ops {
        self.t.ops
    }
}

// ----- HEAP (double heap) ---------------------------------------------------------------------

#[derive(Default)]
pub struct DoubleHeap {
    slab: Slab<(usize, Entry)>,
    min: IndexedHeap<Tag>,
    max: IndexedHeap<Max<Tag>>,
    t: Totals,
}

impl DoubleHeap {
    fn swaps(&self) -> u64 {
        self.min.swaps + self.max.swaps
    }
    fn take(&mut self, slot: usize, before: u64) -> (usize, Entry) {
        self.min.remove(slot);
        self.max.remove(slot);
        self.slab.release(slot);
        let out = self.slab.nodes[slot];
        self.t.out(&out.1);
        self.t.ops.removed(self.swaps() - before);
        out
    }
}

impl BidStore for DoubleHeap {
    fn insert(&mut self, conv: usize, pkt: Packet, bid: f64, aux: f64) {
        let before = self.swaps();
        let entry = self.t.entry(pkt, bid, aux);
        let key = Tag(bid, entry.seq);
        let slot = self.slab.alloc((conv, entry));
        self.min.set(slot, key);
        self.max.set(slot, Max(key));
        self.t.ops.inserted(self.swaps() - before);
    }
    fn pop_min(&mut self) -> Option<(usize, Entry)> {
        let (_, slot) = self.min.peek()?;
        Some(self.take(slot, self.swaps()))
    }
    fn pop_max(&mut self) -> Option<(usize, Entry)> {
        let (_, slot) = self.max.peek()?;
        Some(self.take(slot, self.swaps()))
    }
    fn len(&self) -> usize {
        self.t.len
    }
    fn bytes(&self) -> u64 {
        self.t.bytes
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        let free: std::collections::HashSet<usize> = self.slab.free.iter().copied().collect();
        self.slab.nodes.iter().enumerate().filter(|(i, _)| !free.contains(i)).for_each(|(_, (_, e))| f(&e.pkt));
    }
    fn ops(&self) -> Ops {
        self.t.ops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::pkt;
    use proptest::prelude::*;

    fn all() -> Vec<Box<dyn BidStore>> {
        [Structure::Perc, Structure::List, Structure::Tree, Structure::DoubleHeap]
            .map(|s| new_store(s, 8, BufferLimit::Unlimited, false))
            .into()
    }

    proptest! {
        /// Bids rise within a conversation, as in FQ; every structure must then agree on the
        /// order in which packets leave, whichever end they leave from.
        #[test]
        fn the_four_structures_are_the_same_bounded_heap(
            ops in prop::collection::vec((0usize..8, 1u32..40, 0u8..4), 1..300)
        ) {
            let mut stores = all();
            let mut last = [0.0f64; 8];
            let mut seq = 0;
            for (conv, step, op) in ops {
                let outcome: Vec<Option<(usize, u64)>> = stores
                    .iter_mut()
                    .map(|s| match op {
                        0 | 1 => None,
                        2 => s.pop_min().map(|(c, e)| (c, e.pkt.seq)),
                        _ => s.pop_max().map(|(c, e)| (c, e.pkt.seq)),
                    })
                    .collect();
                if op < 2 {
                    last[conv] += step as f64;
                    seq += 1;
                    for s in &mut stores {
                        s.insert(conv, pkt(conv as u32, seq, 100), last[conv], 0.0);
                    }
                }
                prop_assert!(outcome.windows(2).all(|w| w[0] == w[1]), "{:?}", outcome);
                prop_assert!(stores.iter().all(|s| s.len() == stores[0].len()));
            }
        }
    }

    #[test]
    fn a_list_fed_in_order_costs_nothing_and_a_tree_degenerates() {
        let mut list = List::default();
        let mut tree = Tree::default();
        for i in 0..100 {
            list.insert(0, pkt(0, i, 10), i as f64, 0.0);
            tree.insert(0, pkt(0, i, 10), i as f64, 0.0);
        }
        assert_eq!(list.ops().insert_ops, 0, "each insertion lands at the tail");
        assert_eq!(tree.ops().insert_ops, (0..100).sum::<u64>(), "ordered keys make the tree a path");
        assert_eq!(tree.ops().max_insert_ops, 99);
    }

    #[test]
    fn perc_counts_heap_swaps_per_conversation_not_per_packet() {
        let mut perc = Perc::new(4, BufferLimit::Unlimited, false);
        let mut heap = DoubleHeap::default();
        // 4 conversations, 50 packets each, interleaved with rising bids
        for i in 0..200u64 {
            let c = (i % 4) as usize;
            perc.insert(c, pkt(c as u32, i, 10), i as f64, 0.0);
            heap.insert(c, pkt(c as u32, i, 10), i as f64, 0.0);
        }
        assert!(perc.ops().insert_ops < heap.ops().insert_ops, "{:?} vs {:?}", perc.ops(), heap.ops());
    }
}
