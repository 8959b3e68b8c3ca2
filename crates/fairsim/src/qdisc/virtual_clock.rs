//! Virtual Clock.
//!
//! Reference: L. Zhang, "Virtual Clock: A New Traffic Control Algorithm for Packet Switching
//! Networks", ACM SIGCOMM 1990. Each conversation k has a reserved rate r_k and a virtual clock;
//! a packet of L bits arriving at real time t advances it, VC_k = max(t, VC_k) + L/r_k, and is
//! stamped with it; the smallest stamp is sent first. DKS 1989 §5 calls FQ with absolute shares
//! "very similar to the Virtual Clock algorithm".
//!
//! Choices made here:
//! - reservations: each conversation that crosses the port reserves its weighted share of the
//!   line, r_k = μ·w_k / Σ w (the flows' `weight`); the paper takes them from the connection's
//!   declared average rate, which scenarios do not have;
//! - Zhang's monitoring of conversations that run ahead of their clock (the "auxiliary
//!   virtual clock") is not modelled;
//! - buffer policy (not in the paper): drop the last packet of the conversation using the most
//!   buffer, rolling its clock back (see `tagged`); ties between stamps: first arrived first.

use super::classify::ConversationKey;
use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::tagged::{shares, Tagged};
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VirtualClockConfig {
    pub key: ConversationKey,
}

pub struct VirtualClock {
    q: Tagged,
    /// Seconds per bit for each conversation: 1 / r_k.
    per_bit: Vec<f64>,
}

impl VirtualClock {
    pub fn new(cfg: VirtualClockConfig, port: &PortInfo) -> Result<VirtualClock, ParamError> {
        let q = Tagged::new(cfg.key, port, 0.0);
        let per_bit = shares(&q.classifier, port).iter().map(|s| 1.0 / (s * port.rate.0 as f64)).collect();
        Ok(VirtualClock { q, per_bit })
    }
}

impl Qdisc for VirtualClock {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let c = self.q.classifier.conv(&pkt);
        let clock = self.q.last(c).max(ctx.now.as_secs_f64()) + pkt.size as f64 * 8.0 * self.per_bit[c];
        self.q.insert(c, pkt, clock, ctx);
    }

    fn dequeue(&mut self, _ctx: &mut QdiscCtx) -> Option<Packet> {
        self.q.pop().map(|e| e.pkt)
    }

    fn drained(&self) -> bool {
        self.q.is_empty() // an empty queue pops nothing
    }

    inspect_store!(q);
    fn chainable(&self) -> bool {
        true // its dequeue takes the least stamp among its own packets
    }
}

/// The `virtual_clock` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<VirtualClockConfig> = Declaration {
    about: About {
        name: "virtual_clock",
        summary: "Virtual Clock: stamps advance at each conversation's reserved (weighted) rate",
        reference: "Zhang, SIGCOMM 1990",
    },
    defaults: || (VirtualClockConfig::default(),),
    build: |(c,), port| Ok(Box::new(VirtualClock::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::replay::replay;
    use crate::qdisc::testing::{pkt, port};
    use crate::units::{BufferLimit, Rate, Time};

    #[test]
    fn a_conversation_that_ran_ahead_of_its_clock_waits_for_the_others() {
        // two conversations reserve half of a 1 packet/ms line each; conversation 0 queues 10
        // packets at once, so its clock runs to 20 ms; conversation 1's three packets arrive at
        // 5 ms and, their clocks being 7, 9 and 11 ms, go ahead of conversation 0's later ones
        let mut q =
            VirtualClock::new(VirtualClockConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1), (0, 1)])).unwrap();
        let mut arrivals: Vec<_> = (0..10).map(|s| (Time::ZERO, pkt(0, s, 1000))).collect();
        arrivals.extend((0..3).map(|s| (Time::from_millis(5), pkt(1, s, 1000))));
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let order: Vec<u32> = r.sent.iter().map(|(_, _, p)| p.flow.0).collect();
        // clocks: flow 0's packets at 2, 4, ..., 20 ms; flow 1's at 7, 9, 11 ms
        assert_eq!(order, vec![0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0]);
    }
}
