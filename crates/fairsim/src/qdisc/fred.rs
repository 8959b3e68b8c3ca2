//! FRED: Flow Random Early Drop, RED with per-flow accounting of the flows that have packets in
//! the buffer, which penalises flows that hold more than their share.
//!
//! Reference: D. Lin and R. Morris, "Dynamics of Random Early Detection", SIGCOMM 1997, the
//! FRED algorithm of its figure, as the CSFQ paper (Stoica, Shenker & Zhang 1998, §3) used it:
//! - state (queued packets `qlen` and a `strike` count) for each flow with packets in the
//!   buffer, created on its first packet and forgotten when its last one leaves;
//! - `avgcq` = avg / active flows (at least 1), the average per-flow queue;
//! - on arrival, a flow that holds `maxq` packets (min_th; 2 once avg ≥ max_th), or more than
//!   2·avgcq while avg ≥ max_th, or at least avgcq after more than one strike, is non-adaptive:
//!   the packet is dropped and the flow gets a strike;
//! - between the thresholds RED's count advances and only a "robust" flow, one holding at least
//!   max(min_q, avgcq), may lose the packet, with RED's probability p_a; below min_th nothing is
//!   dropped; at or above max_th every packet is dropped;
//! - the average moves at every accepted arrival and every departure (RED's arrivals only), with
//!   RED's decay over idle periods.
//!
//! The CSFQ paper compares FRED-1 and FRED-2, "FRED-2 guarantees to each flow a minimum number of
//! buffers". We read FRED-1 as the algorithm above and FRED-2 as Lin and Morris's support for
//! many flows (`many_flows = true`): above max_th a flow holding fewer than 2 packets is still
//! accepted (up to the physical buffer) instead of every packet being dropped. This reading is
//! ours; the paper gives no parameters for either.
//!
//! Choices left open, made here: thresholds in packets or bytes (queues then counted in bytes, and
//! min_q and the 2-packet allowances scaled by `mean_packet_size`); `max_p` = 0.02 and `min_q` = 2
//! (Lin and Morris's); `w_q` = 0.002; the port's `buffer` is the hard limit; the average counts the
//! queue after an accepted packet joins it, and after a departure leaves it.

use super::classify::{Classifier, ConversationKey};
use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, DropReason, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use super::red::{DropSpacing, QueueAverage, RedConfig, RedRule};
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::units::{BufferLimit, Bytes};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FredConfig {
    /// As RED: below this average nothing is dropped early.
    pub min_th: BufferLimit,
    /// As RED: at or above this average everything is dropped.
    pub max_th: BufferLimit,
    /// As RED: drop probability as the average reaches `max_th`.
    pub max_p: f64,
    /// As RED: weight of the queue average.
    pub w_q: f64,
    /// Packets a flow may hold before it can be dropped at random.
    pub min_q: u32,
    /// Lin and Morris's support for many flows (the CSFQ paper's FRED-2).
    pub many_flows: bool,
    /// As RED: the typical packet, for the average's decay while idle.
    pub mean_packet_size: Bytes,
    /// How flows are told apart.
    pub key: ConversationKey,
}

impl Default for FredConfig {
    fn default() -> Self {
        FredConfig {
            min_th: BufferLimit::Packets(5),
            max_th: BufferLimit::Packets(15),
            max_p: 0.02,
            w_q: 0.002,
            min_q: 2,
            many_flows: false,
            mean_packet_size: Bytes(1000),
            key: ConversationKey::Flow,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct FlowState {
    /// Queued, in the thresholds' unit (packets or bytes).
    qlen: f64,
    strikes: u32,
}

pub struct Fred {
    rule: RedRule,
    average: QueueAverage,
    spacing: DropSpacing,
    classifier: Classifier,
    flows: Vec<FlowState>,
    active: usize,
    min_q: f64,
    /// What "one packet" is in the thresholds' unit.
    packet: f64,
    many_flows: bool,
    queue: Fifo,
    limit: BufferLimit,
    flow_limit_drops: u64,
    early_drops: u64,
}

impl Fred {
    pub fn new(cfg: FredConfig, port: &PortInfo) -> Result<Fred, ParamError> {
        let red = RedConfig {
            min_th: cfg.min_th,
            max_th: cfg.max_th,
            max_p: cfg.max_p,
            w_q: cfg.w_q,
            mean_packet_size: cfg.mean_packet_size,
            ..RedConfig::default()
        };
        let rule = RedRule::new(&red)?;
        let packet = if rule.in_bytes { cfg.mean_packet_size.0 as f64 } else { 1.0 };
        let classifier = Classifier::new(cfg.key, port);
        Ok(Fred {
            average: QueueAverage::new(cfg.w_q, cfg.mean_packet_size, port.rate),
            spacing: DropSpacing::default(),
            flows: vec![FlowState::default(); classifier.count()],
            classifier,
            active: 0,
            min_q: cfg.min_q as f64 * packet,
            packet,
            many_flows: cfg.many_flows,
            queue: Fifo::default(),
            limit: port.buffer,
            flow_limit_drops: 0,
            early_drops: 0,
            rule,
        })
    }

    fn queued(&self) -> f64 {
        self.rule.measure(self.queue.len(), self.queue.bytes())
    }

    /// The average per-flow queue, at least one packet.
    fn avgcq(&self) -> f64 {
        let avg = self.average.get();
        let per_flow = if self.active > 0 { avg / self.active as f64 } else { avg };
        per_flow.max(self.packet)
    }

    fn size(&self, pkt: &Packet) -> f64 {
        if self.rule.in_bytes {
            pkt.size as f64
        } else {
            1.0
        }
    }
}

impl Qdisc for Fred {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        if self.queue.is_empty() {
            self.average.decay_if_idle(ctx.now);
        }
        let c = self.classifier.conv(&pkt);
        let (avg, avgcq) = (self.average.get(), self.avgcq());
        let FlowState { qlen, strikes } = self.flows[c];
        let above = avg >= self.rule.max_th;
        let maxq = if above { 2.0 * self.packet } else { self.rule.min_th };
        // a flow holding more than its share is not responding to drops
        if qlen >= maxq || (above && qlen > 2.0 * avgcq) || (qlen >= avgcq && strikes > 1) {
            self.flows[c].strikes += 1;
            self.flow_limit_drops += 1;
            ctx.drop(pkt, DropReason::FlowLimit);
            return;
        }
        if avg >= self.rule.min_th && !above {
            self.spacing.arrived();
            if qlen >= self.min_q.max(avgcq) {
                let p_b = self.rule.base_probability(avg, pkt.size).unwrap_or(0.0);
                if self.spacing.try_drop(p_b, ctx.rng()) {
                    self.early_drops += 1;
                    ctx.drop(pkt, DropReason::Early);
                    return;
                }
            }
        } else if avg < self.rule.min_th {
            self.spacing.below();
        } else if !self.many_flows {
            self.spacing.forced();
            self.early_drops += 1;
            ctx.drop(pkt, DropReason::Early);
            return;
        }
        if !ctx.room(self.limit).admits(self.queue.len(), self.queue.bytes(), pkt.size) {
            ctx.drop(pkt, DropReason::TailDrop);
            return;
        }
        let size = self.size(&pkt);
        if qlen == 0.0 {
            self.active += 1;
        }
        self.flows[c].qlen += size;
        self.queue.push(pkt, ctx.pool);
        self.average.step(self.queued());
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let pkt = self.queue.pop(ctx.pool)?;
        let c = self.classifier.conv(&pkt);
        let size = self.size(&pkt);
        let flow = &mut self.flows[c];
        flow.qlen -= size;
        if flow.qlen <= 0.0 {
            *flow = FlowState::default(); // its state goes with its last packet
            self.active -= 1;
        }
        self.average.step(self.queued());
        if self.queue.is_empty() {
            self.average.emptied(ctx.now);
        }
        Some(pkt)
    }

    inspect_store!(queue);

    fn gauge(&self) -> Option<(&'static str, f64)> {
        Some(("average_queue", self.average.get()))
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("average_queue", self.average.get()),
            ("early_drops", self.early_drops as f64),
            ("flow_limit_drops", self.flow_limit_drops as f64),
        ]
    }
    fn chainable(&self) -> bool {
        true // drops only arrivals; its dequeue updates its own counts and average as of the end
    }
}

/// The `fred` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<FredConfig> = Declaration {
    about: About {
        name: "fred",
        summary: "Flow RED: RED with per-flow accounting of buffered flows; many_flows = FRED-2",
        reference: "Lin & Morris, SIGCOMM 1997; the CSFQ paper's FRED-1 and FRED-2",
    },
    defaults: || (FredConfig::default(),),
    build: |(c,), port| Ok(Box::new(Fred::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{pkt, port, with_ctx};
    use crate::units::Time;

    fn fred(cfg: FredConfig, flows: usize) -> Fred {
        Fred::new(cfg, &port(BufferLimit::Packets(64), &vec![(0, 1); flows])).unwrap()
    }

    #[test]
    fn a_flow_holding_min_th_packets_is_refused_and_struck() {
        let mut q = fred(
            FredConfig { min_th: BufferLimit::Packets(4), max_th: BufferLimit::Packets(8), ..Default::default() },
            2,
        );
        let (_, drops) = with_ctx(|ctx| {
            for i in 0..6 {
                q.enqueue(pkt(0, i, 1000), ctx);
            }
        });
        assert_eq!(q.len_packets(), 4, "maxq = min_th while the average is low");
        assert_eq!(drops.len(), 2);
        assert!(drops.iter().all(|(_, r)| *r == DropReason::FlowLimit));
        assert_eq!(q.flows[0].strikes, 2);
        // a well-behaved flow still gets in
        let (_, drops) = with_ctx(|ctx| q.enqueue(pkt(1, 0, 1000), ctx));
        assert!(drops.is_empty());
    }

    #[test]
    fn a_flow_with_strikes_is_held_to_the_average_per_flow_queue() {
        let mut q = fred(FredConfig::default(), 2);
        q.flows[0].strikes = 2;
        let (_, drops) = with_ctx(|ctx| {
            q.enqueue(pkt(0, 0, 1000), ctx); // holds 0 < avgcq = 1: accepted
            q.enqueue(pkt(0, 1, 1000), ctx); // holds 1 ≥ avgcq with 2 strikes: refused
        });
        assert_eq!(q.len_packets(), 1);
        assert_eq!(drops.len(), 1);
    }

    #[test]
    fn state_exists_only_for_flows_with_packets_queued() {
        let mut q = fred(FredConfig::default(), 3);
        with_ctx(|ctx| {
            q.enqueue(pkt(0, 0, 1000), ctx);
            q.enqueue(pkt(1, 0, 1000), ctx);
        });
        assert_eq!(q.active, 2);
        with_ctx(|ctx| q.dequeue(ctx));
        assert_eq!((q.active, q.flows[0].qlen), (1, 0.0));
        with_ctx(|ctx| q.dequeue(ctx));
        assert_eq!(q.active, 0);
    }

    #[test]
    fn a_robust_flow_loses_packets_at_random_and_a_fragile_one_does_not() {
        let cfg = FredConfig {
            w_q: 0.2,
            min_th: BufferLimit::Packets(2),
            max_th: BufferLimit::Packets(40),
            max_p: 0.5,
            ..Default::default()
        };
        let mut q = fred(cfg, 2);
        let (_, drops) = with_ctx(|ctx| {
            for i in 0..4000u64 {
                ctx.now = Time::from_millis(i);
                // flow 0 sends three packets for every departure, flow 1 one in ten
                q.enqueue(pkt(0, i, 1000), ctx);
                if i % 10 == 0 {
                    q.enqueue(pkt(1, i, 1000), ctx);
                }
                if i % 3 == 0 {
                    q.dequeue(ctx);
                }
            }
        });
        let lost = |f: u32| drops.iter().filter(|(p, _)| p.flow.0 == f).count();
        assert!(lost(0) > 1000, "the flooding flow lost {}", lost(0));
        assert_eq!(lost(1), 0, "the sparse flow, never holding min_q packets, lost none");
    }

    #[test]
    fn above_max_th_fred_1_drops_everything_and_fred_2_keeps_two_packets_a_flow() {
        for (many, kept) in [(false, 0), (true, 2)] {
            let cfg = FredConfig { many_flows: many, ..Default::default() };
            let mut q = fred(cfg, 30);
            for _ in 0..10_000 {
                q.average.step(20.0); // the average far above max_th = 15
            }
            with_ctx(|ctx| {
                for f in 0..30 {
                    for i in 0..3 {
                        q.enqueue(pkt(f, i, 1000), ctx);
                    }
                }
            });
            assert_eq!(q.len_packets(), 30 * kept, "many_flows = {many}");
        }
    }
}
