//! Nagle's round robin: one queue per conversation, served one packet per turn.
//!
//! Reference: J. Nagle, "On Packet Switches with Infinite Storage", IEEE Transactions on
//! Communications 35(4), 1987 (RFC 970), as described by Demers, Keshav & Shenker 1989 §1: the
//! baseline Fair Queueing improves on. Its flaws, which the tests show: it ignores packet
//! lengths (long packets get more bandwidth), and its static order gives no promptness control.
//!
//! Choices: Nagle's queues were per source; here `key` chooses (flow by default). On overflow
//! the last packet of the longest queue is dropped (Nagle kept "infinite storage").

use super::classify::{Classifier, ConversationKey};
use super::discipline::PortInfo;
use super::discipline::QdiscDeclaration;
use super::round_robin::{Cost, RoundRobin, RrDrop, Turns, Weighing};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NagleConfig {
    pub key: ConversationKey,
}

/// Builds Nagle's round robin.
pub fn nagle(cfg: NagleConfig, port: &PortInfo) -> Result<RoundRobin, ParamError> {
    let classifier = Classifier::new(cfg.key, port);
    Ok(RoundRobin::new(
        classifier,
        None,
        port,
        Turns { cost: Cost::Packets, quantum: 1, weighing: Weighing::Largest },
        RrDrop::Longest,
        BufferLimit::Unlimited,
    ))
}

/// The `nagle` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<NagleConfig> = Declaration {
    about: About {
        name: "nagle",
        summary: "Nagle's round robin: one packet per conversation per turn",
        reference: "Nagle 1987, as described by DKS 1989 §1",
    },
    defaults: || (NagleConfig::default(),),
    build: |(c,), port| Ok(Box::new(nagle(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::replay::replay;
    use crate::qdisc::testing::{pkt, port};
    use crate::units::{Rate, Time};

    #[test]
    fn alternates_packets_so_long_packets_get_more_bandwidth() {
        let mut q = nagle(NagleConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1), (0, 1)])).unwrap();
        let arrivals: Vec<_> =
            (0..20).flat_map(|s| [(Time::ZERO, pkt(0, s, 1000)), (Time::ZERO, pkt(1, s, 250))]).collect();
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let flows: Vec<u32> = r.sent.iter().take(6).map(|(_, _, p)| p.flow.0).collect();
        assert_eq!(flows, vec![0, 1, 0, 1, 0, 1]);
        // equal packets, so four times the bytes for the long-packet conversation (DKS89 §1's flaw)
        let bytes = |f| r.sent.iter().take(20).filter(|(_, _, p)| p.flow.0 == f).map(|(_, _, p)| p.size).sum::<u32>();
        assert_eq!(bytes(0), 4 * bytes(1));
    }
}
