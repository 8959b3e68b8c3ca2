//! Per-conversation queues served smallest tag first: the common machinery of the disciplines
//! that stamp each packet with a number and send the smallest (SCFQ, Virtual Clock).
//!
//! Tags rise within a conversation, so only each conversation's head competes (a heap of heads,
//! the thesis's PERC structure). On overflow the last packet of the conversation using the most
//! buffer is dropped, as in Fair Queueing, and that conversation's last tag is rolled back to
//! what it was before the dropped packet arrived, so a dropped packet costs it nothing.

use super::classify::{Classifier, ConversationKey};
use super::discipline::{DropReason, PortInfo, QdiscCtx};
use super::fq::buffers::{BidStore, Perc};
use super::perconv::Entry;
use crate::net::{Packet, PacketPool};
use crate::units::BufferLimit;

pub struct Tagged {
    pub classifier: Classifier,
    store: Perc,
    last: Vec<f64>,
    limit: BufferLimit,
}

impl Tagged {
    /// `initial` is every conversation's last tag before its first packet.
    pub fn new(key: ConversationKey, port: &PortInfo, initial: f64) -> Tagged {
        let classifier = Classifier::new(key, port);
        let n = classifier.count();
        Tagged { store: Perc::new(n, port.buffer, true), last: vec![initial; n], limit: port.buffer, classifier }
    }

    /// The tag of conversation `c`'s most recent packet.
    pub fn last(&self, c: usize) -> f64 {
        self.last[c]
    }

    /// Queues `pkt` of conversation `c` with `tag`, then drops what does not fit.
    pub fn insert(&mut self, c: usize, pkt: Packet, tag: f64, ctx: &mut QdiscCtx) {
        let prev = std::mem::replace(&mut self.last[c], tag);
        self.store.insert(c, pkt, tag, prev);
        while ctx.room(self.limit).exceeded(self.store.len(), self.store.bytes()) {
            let victim = self.store.longest(c).expect("over the limit, so not empty");
            let e = self.store.pop_last_of(victim).expect("the longest conversation has packets");
            self.last[victim] = e.aux;
            ctx.drop(e.pkt, DropReason::LongestQueue);
        }
    }

    /// The queued packet with the smallest tag.
    pub fn pop(&mut self) -> Option<Entry> {
        self.store.pop_min().map(|(_, e)| e)
    }

    pub fn len(&self) -> usize {
        self.store.len()
    }

    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.store.bytes()
    }

    /// Its packets are its own: `_pool`, where FIFOs keep theirs, is for `inspect_store`.
    pub fn for_each_packet(&self, _pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.store.for_each_packet(f)
    }
}

/// Each crossing conversation's share of the line (its weight over the total weight of the
/// conversations that cross the port), indexed by conversation.
pub fn shares(classifier: &Classifier, port: &PortInfo) -> Vec<f64> {
    let mut crossing = vec![false; classifier.count()];
    for &(f, kind) in &port.crossing {
        let probe = Packet { flow: f, ..Packet::blank() }.with_kind(kind);
        crossing[classifier.conv(&probe)] = true;
    }
    let total: f64 = (0..classifier.count()).filter(|&c| crossing[c]).map(|c| classifier.weight(c)).sum();
    (0..classifier.count()).map(|c| if total > 0.0 { classifier.weight(c) / total } else { 1.0 }).collect()
}
