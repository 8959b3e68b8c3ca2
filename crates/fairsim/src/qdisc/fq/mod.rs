//! Fair Queueing (FQ) and FQ with congestion-bit setting (FQbit).
//!
//! Reference: Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm",
//! SIGCOMM 1989, §2.2 and §4; Keshav, "Congestion Control in Computer Networks", PhD thesis,
//! UC Berkeley 1991, chapters 2–3 and §6.5.
//!
//! Algorithm (non-preemptive, as both simulated it). For packet i of conversation α, of P bits,
//! arriving at t, with R(t) the round number of bit-by-bit round robin (see `round`):
//!   F_i = max(F_{i−1}, R(t)) + P/w_α        (finish number; w_α = 1 unless weighted)
//!   B_i = P/w_α + max(F_{i−1}, R(t) − δ)    (bid; δ = 0 in every simulation of both)
//! Whenever the line is free the packet with the smallest bid is sent (ties: first arrived).
//! Buffer policy (1989 §2.2): when the buffer overflows, the last packet of the conversation
//! using the most buffer space is dropped — possibly the arriving one.
//!
//! Parameters and the choices the papers leave open:
//! - `charge_drops` (default true): the 1989 paper leaves F and S unchanged when it drops a
//!   packet, "charging" a flooding source for throughput it could not use (its Scenario 3 needs
//!   this); the thesis's simulations do *not* (§6.5: "we do not punish malicious sources by
//!   incrementing the finish number even for dropped packets"). Uncharged, the conversation's
//!   last finish number is rolled back to what it was before the dropped packet arrived (the
//!   dropped packet is always its latest), and it becomes inactive if R has passed that value.
//! - `drop` = `longest` (1989, chapter 2; default) or `largest_bid` (chapter 3: drop in order
//!   of decreasing bid, which accounts for packet lengths).
//! - `buffer` = `perc` (default) | `list` | `tree` | `double_heap`: the packet buffer's data
//!   structure, for the chapter 3 study. The order of service and drops is the same for all;
//!   only the counted work differs. The non-PERC structures support `drop = "largest_bid"` only.
//! - "Most buffer space" is measured as the port's buffer is (packets or bytes); ties between
//!   conversations go to the arriving packet's, else to the lowest-numbered conversation.
//! - `key`: what a conversation is (flow, pair or source; see `classify`); ACKs of a flow are
//!   their own conversation.
//! - `delta` (δ) is in bytes, a number of bits of round (per unit weight).
//! - Weights (§2.3 "arbitrary bandwidth priorities"): N_ac is the sum of the active
//!   conversations' weights and packet sizes are divided by the weight (the flows' `weight`).
//! - FQbit (1989 §4, thesis §6.5): the congestion bit is set on an arriving packet when its
//!   conversation's queue exceeds `mark_threshold` (1/3) of its fair share of the buffer. The
//!   fair share is taken as the buffer divided by the number of conversations with packets
//!   queued (the arriving one included) — the papers do not define it; with an unlimited
//!   buffer nothing is marked.
//! - The preemptive variant exists for analysis only, in `crate::reference`.

pub mod buffers;

use self::buffers::{new_store, BidStore, Structure};
use super::classify::{Classifier, ConversationKey};
use super::discipline::QdiscDeclaration;
use super::discipline::{DropReason, PortInfo, Qdisc, QdiscCtx};
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketPool};
use crate::params::ParamError;
use crate::reference::round::RoundNumber;
use crate::units::{BufferLimit, Bytes};
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FqDrop {
    /// 1989 / thesis chapter 2: the last packet of the conversation using the most buffer.
    #[default]
    Longest,
    /// Thesis chapter 3: the packet with the largest bid.
    LargestBid,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FqConfig {
    /// How conversations are told apart.
    pub key: ConversationKey,
    /// δ, the bid offset that favours conversations idle for a while (DKS 1989 §2.2); 0 = plain FQ.
    pub delta: Bytes,
    /// Whether a dropped packet still advances its conversation's finish number (the 1989 paper leaves it
    /// unchanged: `true`; the thesis does not charge drops: `wfq`).
    pub charge_drops: bool,
    /// Which packet goes when the buffer is full: the last of the longest conversation, or the one with the
    /// largest bid.
    pub drop: FqDrop,
    /// The data structure holding packets (thesis ch. 3); results are the same, only the cost differs.
    pub buffer: Structure,
    /// FQbit: mark when a conversation's queue exceeds this fraction of its buffer share.
    pub mark_threshold: Option<f64>,
}

impl Default for FqConfig {
    fn default() -> Self {
        FqConfig {
            key: ConversationKey::Flow,
            delta: Bytes(0),
            charge_drops: true,
            drop: FqDrop::Longest,
            buffer: Structure::Perc,
            mark_threshold: None,
        }
    }
}

/// FQbit's threshold: 1/3 of the fair share, "completely ad hoc" (1989 §4).
pub const FQBIT_THRESHOLD: f64 = 1.0 / 3.0;

pub struct Fq {
    cfg: FqConfig,
    classifier: Classifier,
    round: RoundNumber,
    store: Box<dyn BidStore>,
    limit: BufferLimit,
    /// Packets and bytes queued per conversation, and how many conversations have any.
    queued: Vec<(u32, u64)>,
    busy_convs: usize,
    delta_bits: f64,
}

impl Fq {
    pub fn new(cfg: FqConfig, port: &PortInfo) -> Result<Fq, ParamError> {
        if cfg.buffer != Structure::Perc && cfg.drop == FqDrop::Longest {
            return Err(ParamError::at(
                "buffer",
                "only the per-conversation buffer (`perc`) can drop by conversation; use drop = \"largest_bid\" with this structure",
            ));
        }
        if let Some(t) = cfg.mark_threshold {
            if !(t > 0.0 && t.is_finite()) {
                return Err(ParamError::at("mark_threshold", "must be a positive fraction of the fair share"));
            }
        }
        let classifier = Classifier::new(cfg.key, port);
        let n = classifier.count();
        let weights = (0..n).map(|c| classifier.weight(c)).collect();
        Ok(Fq {
            round: RoundNumber::new(weights),
            store: new_store(cfg.buffer, n, port.buffer, cfg.drop == FqDrop::Longest),
            limit: port.buffer,
            queued: vec![(0, 0); n],
            busy_convs: 0,
            delta_bits: cfg.delta.0 as f64 * 8.0,
            classifier,
            cfg,
        })
    }

    fn count(&mut self, c: usize, pkt: &Packet, sign: i64) {
        let q = &mut self.queued[c];
        let was_empty = q.0 == 0;
        q.0 = (q.0 as i64 + sign) as u32;
        q.1 = (q.1 as i64 + sign * pkt.size as i64) as u64;
        match (was_empty, q.0 == 0) {
            (true, false) => self.busy_convs += 1,
            (false, true) => self.busy_convs -= 1,
            _ => {}
        }
    }

    /// FQbit: whether conversation `c`'s queue, with the arriving packet, exceeds the threshold.
    fn over_mark_threshold(&self, c: usize, size: u32, threshold: f64) -> bool {
        let (pkts, bytes) = self.queued[c];
        let busy = (self.busy_convs + usize::from(pkts == 0)) as f64;
        match self.limit {
            BufferLimit::Packets(b) => (pkts + 1) as f64 > threshold * b as f64 / busy,
            BufferLimit::Bytes(b) => (bytes + size as u64) as f64 > threshold * b as f64 / busy,
            BufferLimit::Unlimited => false,
        }
    }

    fn drop_one(&mut self, arriving: usize, ctx: &mut QdiscCtx) {
        let (c, entry, reason) = match self.cfg.drop {
            FqDrop::Longest => {
                let c = self.store.longest(arriving).expect("over the limit, so not empty");
                (c, self.store.pop_last_of(c).expect("longest is not empty"), DropReason::LongestQueue)
            }
            FqDrop::LargestBid => {
                let (c, e) = self.store.pop_max().expect("over the limit, so not empty");
                (c, e, DropReason::LargestTag)
            }
        };
        self.count(c, &entry.pkt, -1);
        if !self.cfg.charge_drops {
            // the dropped packet is its conversation's latest: undo its finish number
            self.round.set_last_finish(c, entry.aux);
        }
        ctx.drop(entry.pkt, reason);
    }
}

impl Qdisc for Fq {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QdiscCtx) {
        let c = self.classifier.conv(&pkt);
        self.round.advance(ctx.now.0 as f64, ctx.rate.0 as f64);
        let size = pkt.size as f64 * 8.0 / self.classifier.weight(c);
        let (r, f_prev) = (self.round.r(), self.round.last_finish(c));
        let finish = f_prev.max(r) + size;
        let bid = size + f_prev.max(r - self.delta_bits);
        self.round.set_last_finish(c, finish);
        if let Some(t) = self.cfg.mark_threshold {
            if self.over_mark_threshold(c, pkt.size, t) {
                ctx.mark(&mut pkt);
            }
        }
        self.count(c, &pkt, 1);
        self.store.insert(c, pkt, bid, f_prev);
        while ctx.room(self.limit).exceeded(self.store.len(), self.store.bytes()) {
            self.drop_one(c, ctx);
        }
    }

    fn dequeue(&mut self, _ctx: &mut QdiscCtx) -> Option<Packet> {
        let (c, entry) = self.store.pop_min()?;
        self.count(c, &entry.pkt, -1);
        Some(entry.pkt)
    }

    fn drained(&self) -> bool {
        self.store.is_empty() // an empty store pops nothing
    }

    fn len_packets(&self) -> usize {
        self.store.len()
    }

    fn len_bytes(&self) -> u64 {
        self.store.bytes()
    }

    fn for_each_packet(&self, _: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.store.for_each_packet(f)
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        let ops = self.store.ops();
        vec![
            ("inserts", ops.inserts as f64),
            ("insert_ops", ops.insert_ops as f64),
            ("max_insert_ops", ops.max_insert_ops as f64),
            ("removals", ops.removals as f64),
            ("removal_ops", ops.removal_ops as f64),
            ("round_swaps", self.round.swaps() as f64),
        ]
    }
    fn chainable(&self) -> bool {
        true // its dequeue takes the least tag among its own packets
    }
}

/// The `fq` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<FqConfig> = Declaration {
    about: About {
        name: "fq",
        summary: "Fair Queueing: smallest bid first, exact round number, drop from the longest conversation",
        reference: "Demers, Keshav & Shenker 1989 §2; Keshav 1991 ch. 2-3",
    },
    defaults: || (FqConfig::default(),),
    build: |(c,), port| Ok(Box::new(Fq::new(c.clone(), port)?)),
};

/// The `fqbit` discipline, as scenarios name it.
pub static FQBIT: QdiscDeclaration<FqConfig> = Declaration {
    about: About {
        name: "fqbit",
        summary: "FQ that sets the congestion bit above 1/3 of a conversation's buffer share (for DECbit)",
        reference: "Demers, Keshav & Shenker 1989 §4; Keshav 1991 §6.5",
    },
    defaults: || (FqConfig { mark_threshold: Some(FQBIT_THRESHOLD), ..FqConfig::default() },),
    build: |(c,), port| Ok(Box::new(Fq::new(c.clone(), port)?)),
};

/// The `wfq` discipline, as scenarios name it.
pub static WFQ: QdiscDeclaration<FqConfig> = Declaration {
    about: About {
        name: "wfq",
        summary: "weighted fair queueing: FQ with flow weights, dropped packets not charged",
        reference: "DKS 1989 §2.3; Parekh & Gallager 1993 (PGPS)",
    },
    defaults: || (FqConfig { charge_drops: false, ..FqConfig::default() },),
    build: |(c,), port| Ok(Box::new(Fq::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests;
