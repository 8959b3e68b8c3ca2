//! FQ-CoDel: hashed flow queues served by deficit round robin, new flows first, CoDel in each.
//!
//! Reference: RFC 8290 (T. Høiland-Jørgensen, P. McKenney, D. Täht, J. Gettys, E. Dumazet,
//! "The Flow Queue CoDel Packet Scheduler and Active Queue Management Algorithm", 2018).
//! Packets are hashed by conversation onto `flows` queues (§4.1). A queue that receives a packet
//! while in neither list joins the tail of the *new* list with a deficit of one `quantum`
//! (§4.1). The scheduler serves the head of the new list, else of the old list (§4.2): a queue
//! whose deficit is spent gets another quantum and moves to the tail of the old list; otherwise
//! CoDel (`codel`, one state per queue, RFC 8289) dequeues from it, and its deficit pays for the
//! packet. A queue found empty leaves the new list for the old list's tail if the old list has
//! queues (so that a flow cannot starve the others by going briefly idle), and otherwise leaves
//! the lists. When the buffer overflows, packets are dropped from the head of the queue with the
//! most bytes (§4.1.1). With a quantum far below the packets (down to 1 byte), the rounds in
//! which no queue can be served are skipped at once, with the outcome of the rounds one by one.
//!
//! Choices and deviations: `flows` = 1024 and `quantum` = 1514 bytes (RFC 8290's and Linux's
//! defaults); the limit is the port's `buffer` (Linux: 10240 packets); conversations are this
//! project's (a flow's data, its ACKs apart: `classify`), hashed with a salt drawn from the port's
//! random stream at the first packet, so collisions differ between seeds as they differ between
//! Linux boots; an overflow drops up to `drop_batch` packets from the fattest queue, stopping
//! once half its bytes are gone (Linux's and ns-3's batch of 64; `drop_batch = 1` is the RFC's
//! single packet). Drops on overflow are `longest_queue` drops, CoDel's are `early`; with `ecn`
//! (on, as in Linux and ns-3) CoDel marks ECN-capable packets instead (overflow still drops).

use super::classify::{Buckets, Classifier, ConversationKey};
use super::codel::{CodelConfig, CodelState};
use super::discipline::QdiscDeclaration;
use super::discipline::{DropReason, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketPool};
use crate::params::ParamError;
use crate::units::{BufferLimit, Time};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelConfig {
    /// Hashed flow queues.
    pub flows: usize,
    /// Bytes a queue may send per round.
    pub quantum: u32,
    /// CoDel's target delay, per queue.
    pub target: Time,
    /// CoDel's interval.
    pub interval: Time,
    /// A queue of at most this many bytes is never dropped by CoDel.
    pub mtu: u32,
    /// On overflow, drop at most this many packets from the fattest queue (and no more than
    /// half its bytes).
    pub drop_batch: u32,
    /// CoDel marks ECN-capable packets instead of dropping them (on by default, as in Linux
    /// and ns-3).
    pub ecn: bool,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        let codel = CodelConfig::default();
        FqCodelConfig {
            flows: 1024,
            quantum: 1514,
            target: codel.target,
            interval: codel.interval,
            mtu: codel.mtu,
            drop_batch: 64,
            ecn: true,
        }
    }
}

/// Which of the scheduler's lists a queue is on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct FlowQueue {
    fifo: Fifo,
    codel: CodelState,
    deficit: i64,
    list: List,
}

pub struct FqCodel {
    codel: CodelConfig,
    quantum: i64,
    drop_batch: u32,
    limit: BufferLimit,
    classifier: Classifier,
    buckets: Buckets,
    salted: bool,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    packets: usize,
    bytes: u64,
    /// Queues that joined the new list, and packets dropped on overflow, over the run.
    new_flow_count: u64,
    overflow_drops: u64,
}

impl FqCodel {
    pub fn new(cfg: &FqCodelConfig, port: &PortInfo) -> Result<FqCodel, ParamError> {
        let codel = CodelConfig { target: cfg.target, interval: cfg.interval, mtu: cfg.mtu, ecn: cfg.ecn };
        codel.check()?;
        if cfg.quantum == 0 {
            return Err(ParamError::at("quantum", "must be at least 1 byte"));
        }
        if cfg.drop_batch == 0 {
            return Err(ParamError::at("drop_batch", "must be at least 1 packet"));
        }
        if cfg.flows == 0 {
            return Err(ParamError::at("flows", "needs at least one queue"));
        }
        crate::limits::check(cfg.flows, crate::limits::MAX_QUEUES, "queues").map_err(|e| ParamError::at("flows", e))?;
        let classifier = Classifier::new(ConversationKey::Flow, port);
        let buckets = Buckets::new(cfg.flows, &BTreeMap::new(), &classifier, port)?;
        let queues = (0..cfg.flows)
            .map(|_| FlowQueue { fifo: Fifo::default(), codel: CodelState::default(), deficit: 0, list: List::None })
            .collect();
        Ok(FqCodel {
            codel,
            quantum: cfg.quantum as i64,
            drop_batch: cfg.drop_batch,
            limit: port.buffer,
            classifier,
            buckets,
            salted: false,
            queues,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            packets: 0,
            bytes: 0,
            new_flow_count: 0,
            overflow_drops: 0,
        })
    }

    /// Queue `i`, at the head of the new list (or the old), leaves it for the old list's tail
    /// or for no list.
    fn leave_head(&mut self, from_new: bool, i: u32, to: List) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
        self.queues[i as usize].list = to;
        if to == List::Old {
            self.old_flows.push_back(i);
        }
    }

    /// Gives every queue of the old list at once the quanta of the whole rounds in which none
    /// of them could be served: with a quantum far below the packets (1 byte against 1500-byte
    /// packets) those are a round per byte, each visiting every queue. The rounds skipped are
    /// the first k, k the fewest any queue needs for a positive deficit; each gives every queue
    /// one quantum and leaves the list in its order, so what follows is what the rounds one by
    /// one would give. (Only when the new list is empty: its queues move to the old list.)
    fn skip_rounds(&mut self) {
        let quantum = self.quantum;
        let rounds = |i: &u32| {
            let deficit = self.queues[*i as usize].deficit;
            if deficit > 0 {
                0
            } else {
                deficit.unsigned_abs() / quantum as u64 + 1
            }
        };
        let k = self.old_flows.iter().map(rounds).min().unwrap_or(0);
        if k == 0 {
            return;
        }
        for &i in &self.old_flows {
            let q = &mut self.queues[i as usize];
            q.deficit = q.deficit.saturating_add((k as i64).saturating_mul(quantum));
        }
    }

    /// Drops from the head of the queue holding the most bytes (RFC 8290 §4.1.1), in a batch.
    fn drop_from_fattest(&mut self, ctx: &mut QdiscCtx) {
        let Some(fattest) = (0..self.queues.len()).max_by_key(|&i| (self.queues[i].fifo.bytes(), usize::MAX - i))
        else {
            return;
        };
        let q = &mut self.queues[fattest];
        let half = q.fifo.bytes() / 2;
        let mut dropped = 0u64;
        for _ in 0..self.drop_batch {
            let Some(pkt) = q.fifo.pop(ctx.pool) else { break };
            dropped += pkt.size as u64;
            self.packets -= 1;
            self.bytes -= pkt.size as u64;
            self.overflow_drops += 1;
            ctx.drop(pkt, DropReason::LongestQueue);
            if dropped >= half {
                break;
            }
        }
    }
}

impl Qdisc for FqCodel {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        if !self.salted {
            self.buckets.salt_from(ctx.rng());
            self.salted = true;
        }
        let i = self.buckets.of(self.classifier.conv(&pkt));
        let q = &mut self.queues[i];
        q.fifo.push(pkt, ctx.pool);
        self.packets += 1;
        self.bytes += pkt.size as u64;
        if q.list == List::None {
            q.list = List::New;
            q.deficit = self.quantum;
            self.new_flows.push_back(i as u32);
            self.new_flow_count += 1;
        }
        if ctx.room(self.limit).exceeded(self.packets, self.bytes) {
            self.drop_from_fattest(ctx);
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        // queues given a quantum without being served since the rounds were last skipped
        let mut passed = 0;
        loop {
            if passed >= self.old_flows.len() && self.new_flows.is_empty() {
                self.skip_rounds();
                passed = 0;
            }
            let (from_new, i) = match self.new_flows.front() {
                Some(&i) => (true, i),
                None => (false, *self.old_flows.front()?),
            };
            let q = &mut self.queues[i as usize];
            if q.deficit <= 0 {
                q.deficit += self.quantum;
                self.leave_head(from_new, i, List::Old);
                passed += 1;
                continue;
            }
            let (before, before_bytes) = (q.fifo.len(), q.fifo.bytes());
            let pkt = q.codel.dequeue(&self.codel, &mut q.fifo, ctx);
            // CoDel may have dropped packets from this queue before handing one over
            self.packets -= before - q.fifo.len();
            self.bytes -= before_bytes - q.fifo.bytes();
            if let Some(pkt) = pkt {
                q.deficit -= pkt.size as i64;
                return Some(pkt);
            }
            // empty: a new queue goes behind the old ones if there are any, else it is done
            let to = if from_new && !self.old_flows.is_empty() { List::Old } else { List::None };
            self.leave_head(from_new, i, to);
        }
    }

    fn len_packets(&self) -> usize {
        self.packets
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.queues.iter().for_each(|q| q.fifo.for_each_packet(pool, f));
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        let codel_drops: u64 = self.queues.iter().map(|q| q.codel.drops).sum();
        vec![
            ("codel_drops", codel_drops as f64),
            ("overflow_drops", self.overflow_drops as f64),
            ("new_flows", self.new_flow_count as f64),
        ]
    }

    fn gauge(&self) -> Option<(&'static str, f64)> {
        Some(("active_queues", (self.new_flows.len() + self.old_flows.len()) as f64))
    }
}

pub static DECLARATION: QdiscDeclaration<FqCodelConfig> = Declaration {
    about: About {
        name: "fq_codel",
        summary: "FQ-CoDel: hashed flow queues, deficit round robin with new flows first, CoDel per queue",
        reference: "RFC 8290",
    },
    defaults: || (FqCodelConfig::default(),),
    build: |(c,), port| Ok(Box::new(FqCodel::new(c, port)?)),
};

#[cfg(test)]
mod tests;
