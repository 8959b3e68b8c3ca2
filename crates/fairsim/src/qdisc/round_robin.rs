//! The round-robin family (DRR, SFQ, Nagle's round robin are its configurations): queues visited in turn from a list of active queues,
//! each sending up to its deficit (Deficit Round Robin), where a packet costs its size in
//! bytes (DRR) or one unit (packet-by-packet round robin: Nagle, SFQ).
//!
//! Conversations map onto queues one to one, or onto a fixed number of queues (explicitly by
//! flow name, else by hash). On overflow either the last packet of the queue using the most
//! buffer is dropped, or the arriving packet is refused when its own queue is full (per-queue
//! limits) or the buffer is.

use super::classify::{Buckets, Classifier};
use super::discipline::{DropReason, PortInfo, Qdisc, QdiscCtx};
use super::perconv::Conversations;
use super::red::{RedConfig, RedGate, RedRule};
use crate::net::{Packet, PacketPool};
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RrDrop {
    /// The last packet of the queue using the most buffer (buffer stealing).
    #[default]
    Longest,
    /// The arriving packet, when its queue or the buffer is full.
    Tail,
}

/// What a packet costs against a queue's deficit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cost {
    Bytes,
    Packets,
}

pub struct RoundRobin {
    pub classifier: Classifier,
    pub buckets: Option<Buckets>,
    queues: Conversations,
    active: VecDeque<usize>,
    in_active: Vec<bool>,
    deficit: Vec<u64>,
    quantum: Vec<u64>,
    cost: Cost,
    drop: RrDrop,
    limit: BufferLimit,
    queue_limit: BufferLimit,
    /// RED at each queue (DRR+), if any.
    red: Option<QueueRed>,
}

/// RED at every queue, each with its own average of its own occupancy: DRR+ (Hasegawa, Matsuo,
/// Murata & Miyahara 2001), whose RED drops early before a queue's tail overflows.
pub struct QueueRed {
    rule: RedRule,
    gates: Vec<RedGate>,
    early_drops: u64,
}

/// How a queue shared by several flows is weighted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Weighing {
    /// By the sum of their weights (DRR: a shared queue carries all of its connections).
    Sum,
    /// By the largest (Nagle's and SFQ's turns: a conversation is one user); hashed queues 1.
    Largest,
}

/// What a queue may send per round: `quantum` per unit of weight, in bytes (`Cost::Bytes`) or
/// packets (`Cost::Packets`), a queue's weight found by `weighing`.
#[derive(Copy, Clone, Debug)]
pub struct Turns {
    pub cost: Cost,
    pub quantum: u64,
    pub weighing: Weighing,
}

impl RoundRobin {
    pub fn new(
        classifier: Classifier,
        buckets: Option<Buckets>,
        port: &PortInfo,
        turns: Turns,
        drop: RrDrop,
        queue_limit: BufferLimit,
    ) -> RoundRobin {
        let Turns { cost, quantum, weighing } = turns;
        let n = buckets.as_ref().map_or(classifier.count(), |b| b.count);
        let weight = match (&buckets, weighing) {
            (Some(b), Weighing::Sum) => b.weights.clone(),
            (Some(_), Weighing::Largest) => vec![1.0; n],
            (None, Weighing::Sum) => (0..n).map(|c| classifier.total_weight(c)).collect(),
            (None, Weighing::Largest) => (0..n).map(|c| classifier.weight(c)).collect(),
        };
        let quantum = weight.iter().map(|w| ((quantum as f64) * w).round().max(1.0) as u64).collect();
        RoundRobin {
            queues: Conversations::new(n, port.buffer, drop == RrDrop::Longest),
            active: VecDeque::new(),
            in_active: vec![false; n],
            deficit: vec![0; n],
            quantum,
            cost,
            drop,
            limit: port.buffer,
            queue_limit,
            classifier,
            buckets,
            red: None,
        }
    }

    /// The same discipline with RED (`cfg`, its flow names resolved in `rule`) at every queue.
    pub fn with_red(mut self, rule: RedRule, cfg: &RedConfig, port: &PortInfo) -> RoundRobin {
        let gates = vec![RedGate::new(cfg, port.rate); self.in_active.len()];
        self.red = Some(QueueRed { rule, gates, early_drops: 0 });
        self
    }

    fn queue_of(&self, pkt: &Packet) -> usize {
        let c = self.classifier.conv(pkt);
        self.buckets.as_ref().map_or(c, |b| b.of(c))
    }

    /// Gives every queue in the round at once the quanta of the whole rounds in which none of
    /// them could send: with a quantum far below the packets (1 byte against 1500-byte packets)
    /// those are a round per byte, each visiting every active queue. The queue that sends next,
    /// and every deficit after it sends, are those the rounds one by one would give: the rounds
    /// skipped are the first k, k the fewest any queue needs, and each gives every queue one
    /// quantum and leaves the order as it was.
    fn skip_rounds(&mut self) {
        let rounds = |q: usize| match self.queues.front(q) {
            Some(head) => self.cost_of(&head.pkt).saturating_sub(self.deficit[q]).div_ceil(self.quantum[q]),
            None => u64::MAX, // emptied by drops: leaves the round at its turn, sends nothing
        };
        let k = self.active.iter().map(|&q| rounds(q)).min().unwrap_or(0);
        if k == 0 || k == u64::MAX {
            return;
        }
        for &q in &self.active {
            if self.queues.front(q).is_some() {
                self.deficit[q] = self.deficit[q].saturating_add(k.saturating_mul(self.quantum[q]));
            }
        }
    }

    fn cost_of(&self, pkt: &Packet) -> u64 {
        match self.cost {
            Cost::Bytes => pkt.size as u64,
            Cost::Packets => 1,
        }
    }
}

impl Qdisc for RoundRobin {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        if let Some(b) = &mut self.buckets {
            b.perturb_if_due(ctx.now, ctx.rng());
        }
        let q = self.queue_of(&pkt);
        if let Some(red) = &mut self.red {
            let queued = red.rule.measure(self.queues.len(q), self.queues.bytes_of(q));
            if red.gates[q].early_drop(&red.rule, ctx.now, queued, &pkt, ctx.rng()) {
                red.early_drops += 1;
                return ctx.drop(pkt, DropReason::Early);
            }
        }
        if self.drop == RrDrop::Tail {
            let (len, bytes) = (self.queues.len(q), self.queues.bytes_of(q));
            if !self.queue_limit.admits(len, bytes, pkt.size) {
                return ctx.drop(pkt, DropReason::QueueFull);
            }
            if !ctx.room(self.limit).admits(self.queues.total_packets(), self.queues.total_bytes(), pkt.size) {
                return ctx.drop(pkt, DropReason::TailDrop);
            }
        }
        self.queues.push(q, pkt, 0.0, 0.0);
        if !self.in_active[q] {
            self.in_active[q] = true;
            self.deficit[q] = self.quantum[q];
            self.active.push_back(q);
        }
        while self.queues.over(ctx.room(self.limit)) {
            let victim = self.queues.longest(q).expect("over the limit, so not empty");
            let e = self.queues.pop_back(victim).expect("longest has packets");
            ctx.drop(e.pkt, DropReason::LongestQueue);
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        // queues given a quantum without sending since the rounds were last skipped
        let mut passed = 0;
        loop {
            if passed > 0 && passed >= self.active.len() {
                self.skip_rounds();
                passed = 0;
            }
            let &q = self.active.front()?;
            let Some(head) = self.queues.front(q) else {
                // emptied by drops while waiting its turn
                self.active.pop_front();
                self.in_active[q] = false;
                continue;
            };
            let cost = self.cost_of(&head.pkt);
            if cost <= self.deficit[q] {
                self.deficit[q] -= cost;
                let e = self.queues.pop_front(q).expect("has a head");
                if self.queues.is_empty(q) {
                    self.active.pop_front();
                    self.in_active[q] = false;
                    self.deficit[q] = 0;
                    if let Some(red) = &mut self.red {
                        red.gates[q].emptied(ctx.now);
                    }
                }
                return Some(e.pkt);
            }
            self.deficit[q] += self.quantum[q];
            self.active.rotate_left(1);
            passed += 1;
        }
    }

    fn drained(&self) -> bool {
        self.active.is_empty() // queues emptied by drops stay active until a dequeue passes them
    }

    fn len_packets(&self) -> usize {
        self.queues.total_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.queues.total_bytes()
    }

    fn for_each_packet(&self, _: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.queues.for_each_packet(f)
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        self.red.as_ref().map_or(vec![], |red| vec![("early_drops", red.early_drops as f64)])
    }
    fn chainable(&self) -> bool {
        true // its dequeue reads only its own queues, deficits and turn
    }
}
