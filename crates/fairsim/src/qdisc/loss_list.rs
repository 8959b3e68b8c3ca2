//! FCFS that drops chosen packets: the data packets of one flow with given sequence numbers,
//! the first time each arrives (retransmissions pass). A tool for testing and studying loss
//! recovery with losses placed exactly (as ns-3's list error models are), not a paper's
//! discipline. Beyond those drops it is FCFS with drop-tail at the port's buffer.

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, DropReason, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::{FlowId, Packet};
use crate::params::ParamError;
use crate::units::BufferLimit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LossListConfig {
    /// The flow whose packets are dropped.
    pub flow: String,
    /// Sequence numbers of its data packets to drop on their first transmission.
    pub seqs: Vec<u64>,
}

pub struct LossList {
    queue: Fifo,
    limit: BufferLimit,
    flow: FlowId,
    pending: BTreeSet<u64>,
}

impl LossList {
    pub fn new(cfg: LossListConfig, port: &PortInfo) -> Result<LossList, ParamError> {
        let f = port
            .flows
            .iter()
            .position(|m| m.name == cfg.flow)
            .ok_or_else(|| ParamError::at("flow", format!("no flow `{}`", cfg.flow)))?;
        Ok(LossList {
            queue: Fifo::default(),
            limit: port.buffer,
            flow: FlowId::from_idx(f),
            pending: cfg.seqs.into_iter().collect(),
        })
    }
}

impl Qdisc for LossList {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let chosen = pkt.is_data() && pkt.flow == self.flow && !pkt.retransmission() && self.pending.remove(&pkt.seq);
        if chosen {
            ctx.drop(pkt, DropReason::Injected);
        } else {
            ctx.push_or_drop(&mut self.queue, self.limit, pkt);
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.queue.pop(ctx.pool)
    }

    fn drained(&self) -> bool {
        self.queue.is_empty() // a FIFO
    }

    inspect_store!(queue);
    fn chainable(&self) -> bool {
        true // a FIFO: it drops only the arrivals its list names
    }
}

/// The `loss_list` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<LossListConfig> = Declaration {
    about: About {
        name: "loss_list",
        summary: "FCFS that drops chosen packets of one flow (by sequence number), for testing loss recovery",
        reference: "a testing tool, like ns-3's list error models",
    },
    defaults: || (LossListConfig::default(),),
    build: |(c,), port| Ok(Box::new(LossList::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{pkt, port, with_ctx};

    #[test]
    fn drops_the_listed_first_transmissions_only() {
        let cfg = LossListConfig { flow: "f1".into(), seqs: vec![2, 4] };
        let mut q = LossList::new(cfg, &port(BufferLimit::Unlimited, &[(0, 1), (0, 1)])).unwrap();
        let (_, drops) = with_ctx(|ctx| {
            for s in 0..6 {
                q.enqueue(pkt(0, s, 100), ctx);
                q.enqueue(pkt(1, s, 100), ctx);
            }
            q.enqueue(pkt(1, 4, 100).with_retransmission(true), ctx);
        });
        let dropped: Vec<_> = drops.iter().map(|(p, r)| (p.flow.0, p.seq, *r)).collect();
        assert_eq!(dropped, vec![(1, 2, DropReason::Injected), (1, 4, DropReason::Injected)]);
        assert_eq!(q.len_packets(), 11);
        assert!(LossList::new(
            LossListConfig { flow: "nope".into(), seqs: vec![] },
            &port(BufferLimit::Unlimited, &[])
        )
        .is_err());
    }
}
