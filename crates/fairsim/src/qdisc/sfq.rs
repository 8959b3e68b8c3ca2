//! Stochastic Fairness Queueing (SFQ).
//!
//! Reference: P. E. McKenney, "Stochastic Fairness Queueing", IEEE INFOCOM 1990 (cited by
//! Keshav 1991 §3.3 as the way to avoid per-conversation state). Conversations are hashed onto
//! a fixed number of queues served packet by packet in round robin; conversations that collide
//! share a queue; the hash function is perturbed periodically so that collisions do not last.
//!
//! Choices: `queues` = 128 and `perturb` = 10 s (Linux's defaults; McKenney leaves both to the
//! designer; `perturb = "0s"` never perturbs). At a perturbation, queued packets stay where
//! they are and new arrivals follow the new hash, so a conversation may briefly have packets in
//! two queues (and be reordered). On overflow the last packet of the longest queue is dropped.
//! The new salt comes from the port's random stream, so runs repeat.

use super::classify::{Buckets, Classifier, ConversationKey};
use super::discipline::PortInfo;
use super::discipline::QdiscDeclaration;
use super::round_robin::{Cost, RoundRobin, RrDrop, Turns, Weighing};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::units::{BufferLimit, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SfqConfig {
    /// How conversations are told apart.
    pub key: ConversationKey,
    /// Hash buckets.
    pub queues: usize,
    /// How often the hash changes; `0s`: never.
    pub perturb: Time,
}

impl Default for SfqConfig {
    fn default() -> Self {
        SfqConfig { key: ConversationKey::Flow, queues: 128, perturb: Time::from_secs(10) }
    }
}

/// Builds stochastic fairness queueing.
pub fn sfq(cfg: SfqConfig, port: &PortInfo) -> Result<RoundRobin, ParamError> {
    let classifier = Classifier::new(cfg.key, port);
    let buckets = Buckets::new(cfg.queues, &BTreeMap::new(), &classifier, port)?.perturbed_every(cfg.perturb);
    Ok(RoundRobin::new(
        classifier,
        Some(buckets),
        port,
        Turns { cost: Cost::Packets, quantum: 1, weighing: Weighing::Largest },
        RrDrop::Longest,
        BufferLimit::Unlimited,
    ))
}

/// The `sfq` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<SfqConfig> = Declaration {
    about: About {
        name: "sfq",
        summary: "stochastic fairness queueing: hashed queues, packet round robin, perturbed hash",
        reference: "McKenney, INFOCOM 1990",
    },
    defaults: || (SfqConfig::default(),),
    build: |(c,), port| Ok(Box::new(sfq(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::discipline::Qdisc;
    use crate::qdisc::testing::{pkt, port, with_ctx_at};

    #[test]
    fn colliding_conversations_share_a_queue_until_the_hash_is_perturbed() {
        // two queues, many flows: some pair collides; after a perturbation the mapping changes
        let info = port(BufferLimit::Unlimited, &[(0, 1); 16]);
        let mut q = sfq(SfqConfig { queues: 2, perturb: Time::from_secs(1), ..Default::default() }, &info).unwrap();
        let queue_of = |q: &RoundRobin, f: u32| q.buckets.as_ref().unwrap().of(q.classifier.conv(&pkt(f, 0, 1)));
        let before: Vec<usize> = (0..16).map(|f| queue_of(&q, f)).collect();
        assert!(before.iter().all(|&b| b < 2) && before.contains(&0) && before.contains(&1));
        with_ctx_at(Time::from_secs(2), |ctx| q.enqueue(pkt(0, 0, 100), ctx));
        let after: Vec<usize> = (0..16).map(|f| queue_of(&q, f)).collect();
        assert_ne!(before, after, "the hash changed");
    }
}
