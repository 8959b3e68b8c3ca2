//! Self-Clocked Fair Queueing (SCFQ).
//!
//! Reference: S. J. Golestani, "A Self-Clocked Fair Queueing Scheme for Broadband
//! Applications", IEEE INFOCOM 1994. Instead of emulating bit-by-bit round robin, the system
//! virtual time v(t) is the finish tag of the packet in service; a packet of L bits of
//! conversation k arriving at t gets F = max(F_prev(k), v(t)) + L/w_k, and the smallest tag is
//! sent first.
//!
//! Choices the paper leaves open or that differ here:
//! - Golestani resets v and all tags when the server goes idle; here v keeps the tag of the last
//!   packet sent. Conversations that arrive after an idle period start at max(F_prev, v) either
//!   way; only the absolute numbers differ.
//! - Buffer policy (not in the paper): drop the last packet of the conversation using the most
//!   buffer, rolling its tag back (see `tagged`).
//! - Ties between equal tags: first arrived first.

use super::classify::ConversationKey;
use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::tagged::Tagged;
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ScfqConfig {
    pub key: ConversationKey,
}

pub struct Scfq {
    q: Tagged,
    /// Virtual time: the tag of the packet last put on the line.
    v: f64,
}

impl Scfq {
    pub fn new(cfg: ScfqConfig, port: &PortInfo) -> Result<Scfq, ParamError> {
        Ok(Scfq { q: Tagged::new(cfg.key, port, 0.0), v: 0.0 })
    }
}

impl Qdisc for Scfq {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let c = self.q.classifier.conv(&pkt);
        let tag = self.q.last(c).max(self.v) + pkt.size as f64 * 8.0 / self.q.classifier.weight(c);
        self.q.insert(c, pkt, tag, ctx);
    }

    fn dequeue(&mut self, _ctx: &mut QdiscCtx) -> Option<Packet> {
        let e = self.q.pop()?;
        self.v = e.tag;
        Some(e.pkt)
    }

    fn drained(&self) -> bool {
        self.q.is_empty() // v keeps the last tag sent
    }

    inspect_store!(q);
    fn chainable(&self) -> bool {
        true // its dequeue takes the least tag among its own packets
    }
}

/// The `scfq` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<ScfqConfig> = Declaration {
    about: About {
        name: "scfq",
        summary: "self-clocked fair queueing: virtual time = tag of the packet in service",
        reference: "Golestani, INFOCOM 1994",
    },
    defaults: || (ScfqConfig::default(),),
    build: |(c,), port| Ok(Box::new(Scfq::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::replay::replay;
    use crate::qdisc::testing::{pkt, port};
    use crate::units::{BufferLimit, Rate, Time};

    #[test]
    fn tags_follow_the_packet_in_service() {
        // Golestani's rule with two backlogged conversations of 1000- and 500-byte packets
        let mut q = Scfq::new(ScfqConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1), (0, 1)])).unwrap();
        let arrivals: Vec<_> =
            (0..3).flat_map(|s| [(Time::ZERO, pkt(0, s, 1000)), (Time::ZERO, pkt(1, s, 500))]).collect();
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let order: Vec<_> = r.sent.iter().map(|(_, _, p)| (p.flow.0, p.seq)).collect();
        // tags: flow 0 at 8000, 16000, 24000; flow 1 at 4000, 8000, 12000 (v = 0 at arrival)
        assert_eq!(order, vec![(1, 0), (0, 0), (1, 1), (1, 2), (0, 1), (0, 2)]);
        // a late arrival starts from the tag in service, not from 0
        let mut q = Scfq::new(ScfqConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1), (0, 1)])).unwrap();
        let mut arrivals: Vec<_> = (0..6).map(|s| (Time::ZERO, pkt(0, s, 1000))).collect();
        arrivals.push((Time(2_500_000), pkt(1, 0, 1000)));
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let pos = r.sent.iter().position(|(_, _, p)| p.flow.0 == 1).unwrap();
        assert_eq!(pos, 4, "v = 24000 when it arrives, so its tag 32000 ties with flow 0's 4th packet");
    }
}
