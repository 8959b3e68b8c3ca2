//! WF²Q+ (Worst-case Fair Weighted Fair Queueing, plus).
//!
//! Reference: J. C. R. Bennett and H. Zhang, "Hierarchical Packet Fair Queueing Algorithms",
//! IEEE/ACM Transactions on Networking 5(5), 1997 (WF²Q+ is §4). Each conversation i with rate
//! r_i (its share of the line) keeps start and finish tags for its head packet:
//! - a packet reaching an empty queue: S_i = max(F_i, V), F_i = S_i + L/r_i;
//! - after a departure, the next head: S_i = F_i, F_i = S_i + L/r_i;
//! - the system virtual time V(t + τ) = max(V(t) + τ, min over backlogged i of S_i), in seconds
//!   of line time;
//! - only *eligible* heads (S_i ≤ V) compete, and the smallest F_i is sent. Eligibility is what
//!   keeps a conversation from running ahead of GPS (WFQ lacks it).
//!
//! Choices made here:
//! - rates are the weighted shares of the line among the conversations crossing the port
//!   (r_i = μ·w_i / Σw), as for Virtual Clock;
//! - V is brought up to date when a packet is chosen: V ← max(V, min S), the packet is chosen,
//!   then V ← V + L/μ for the work it represents;
//! - buffer policy (not in the paper): drop the last packet of the conversation using the most
//!   buffer; a dropped head has its tags undone. Ties: first arrived first.

use super::classify::{Classifier, ConversationKey};
use super::discipline::QdiscDeclaration;
use super::discipline::{DropReason, PortInfo, Qdisc, QdiscCtx};
use super::perconv::Conversations;
use super::tagged::shares;
use crate::component::{About, Declaration};
use crate::heap::{IndexedHeap, Tag};
use crate::net::{Packet, PacketPool};
use crate::params::ParamError;
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Wf2qConfig {
    pub key: ConversationKey,
}

pub struct Wf2q {
    classifier: Classifier,
    convs: Conversations,
    limit: BufferLimit,
    /// Seconds per bit at each conversation's rate, and at the line's.
    per_bit: Vec<f64>,
    line_per_bit: f64,
    start: Vec<f64>,
    finish: Vec<f64>,
    /// Backlogged heads not yet eligible, by start tag; eligible heads, by finish tag.
    waiting: IndexedHeap<Tag>,
    eligible: IndexedHeap<Tag>,
    v: f64,
}

impl Wf2q {
    pub fn new(cfg: Wf2qConfig, port: &PortInfo) -> Result<Wf2q, ParamError> {
        let classifier = Classifier::new(cfg.key, port);
        let n = classifier.count();
        let rate = port.rate.0 as f64;
        Ok(Wf2q {
            per_bit: shares(&classifier, port).iter().map(|s| 1.0 / (s * rate)).collect(),
            line_per_bit: 1.0 / rate,
            convs: Conversations::new(n, port.buffer, true),
            limit: port.buffer,
            start: vec![0.0; n],
            finish: vec![0.0; n],
            waiting: IndexedHeap::default(),
            eligible: IndexedHeap::default(),
            v: 0.0,
            classifier,
        })
    }

    /// Tags conversation `c`'s (new) head, starting at `s`.
    fn tag_head(&mut self, c: usize, s: f64) {
        let head = self.convs.front(c).expect("tagging a non-empty conversation");
        self.start[c] = s;
        self.finish[c] = s + head.pkt.size as f64 * 8.0 * self.per_bit[c];
        self.waiting.set(c, Tag(s, head.seq));
    }

    fn untag(&mut self, c: usize) {
        self.waiting.remove(c);
        self.eligible.remove(c);
    }
}

impl Qdisc for Wf2q {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let c = self.classifier.conv(&pkt);
        let was_empty = self.convs.is_empty(c);
        // aux: the finish tag before this packet, to undo a dropped head
        self.convs.push(c, pkt, 0.0, self.finish[c]);
        if was_empty {
            let s = self.finish[c].max(self.v);
            self.tag_head(c, s);
        }
        while self.convs.over(ctx.room(self.limit)) {
            let victim = self.convs.longest(c).expect("over the limit, so not empty");
            let e = self.convs.pop_back(victim).expect("longest has packets");
            if self.convs.is_empty(victim) {
                self.untag(victim);
                self.finish[victim] = e.aux;
            }
            ctx.drop(e.pkt, DropReason::LongestQueue);
        }
    }

    fn dequeue(&mut self, _ctx: &mut QdiscCtx) -> Option<Packet> {
        if let Some((Tag(s_min, _), _)) = self.waiting.peek() {
            if self.eligible.is_empty() {
                self.v = self.v.max(s_min);
            }
        }
        while let Some((Tag(s, _), c)) = self.waiting.peek() {
            if s > self.v {
                break;
            }
            self.waiting.remove(c);
            let seq = self.convs.front(c).expect("backlogged").seq;
            self.eligible.set(c, Tag(self.finish[c], seq));
        }
        let (_, c) = self.eligible.pop()?;
        let e = self.convs.pop_front(c).expect("eligible heads are queued");
        self.v += e.pkt.size as f64 * 8.0 * self.line_per_bit;
        if !self.convs.is_empty(c) {
            let f = self.finish[c];
            self.tag_head(c, f);
        }
        Some(e.pkt)
    }

    fn drained(&self) -> bool {
        // no packet, so no conversation waiting or eligible: v stays as it is
        self.convs.total_packets() == 0
    }

    fn len_packets(&self) -> usize {
        self.convs.total_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.convs.total_bytes()
    }

    fn for_each_packet(&self, _: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.convs.for_each_packet(f)
    }
    fn chainable(&self) -> bool {
        true // its dequeue reads only its own tags and virtual time
    }
}

/// The `wf2qplus` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<Wf2qConfig> = Declaration {
    about: About {
        name: "wf2qplus",
        summary: "WF2Q+: smallest finish tag among heads eligible by start tag",
        reference: "Bennett & Zhang, IEEE/ACM ToN 1997",
    },
    defaults: || (Wf2qConfig::default(),),
    build: |(c,), port| Ok(Box::new(Wf2q::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::replay::replay;
    use crate::qdisc::testing::pkt;
    use crate::qdisc::testing::port;
    use crate::units::{Rate, Time};

    /// Bennett & Zhang's example of why eligibility matters: conversation 0 has half the line,
    /// ten others a twentieth each, all backlogged at 0 with equal packets. WFQ sends ten of
    /// conversation 0's packets back to back first; WF²Q+ interleaves them with the others.
    #[test]
    fn the_heavy_conversation_is_interleaved_not_bursted() {
        let mut info = port(BufferLimit::Unlimited, &[(0, 1); 11]);
        let mut metas = info.flows.to_vec();
        metas[0].weight = 10.0;
        info.flows = metas.into();
        let mut q = Wf2q::new(Wf2qConfig::default(), &info).unwrap();
        let mut arrivals: Vec<_> = (0..11).map(|s| (Time::ZERO, pkt(0, s, 1000))).collect();
        arrivals.extend((1..11).map(|f| (Time::ZERO, pkt(f, 0, 1000))));
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let order: Vec<u32> = r.sent.iter().take(20).map(|(_, _, p)| p.flow.0).collect();
        // at most one packet ahead of GPS: conversation 0 gets every other slot
        for pair in order.chunks(2) {
            assert_eq!(pair.iter().filter(|&&f| f == 0).count(), 1, "{order:?}");
        }
    }
}
