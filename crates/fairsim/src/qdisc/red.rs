//! RED: Random Early Detection, a FIFO that drops early, with a probability that grows with an
//! exponentially averaged queue length.
//!
//! Reference: S. Floyd and V. Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM Transactions on Networking 1(4), 1993 (the algorithm of its Figure 2):
//! - on every arrival, avg ← (1 − w_q)·avg + w_q·q, q the queue found by the arrival; after an
//!   idle period the average decays as if m = idle time / s small packets had arrived to an
//!   empty queue, avg ← (1 − w_q)^m·avg, s a typical transmission time;
//! - below `min_th` nothing is dropped; at or above `max_th` every arrival is dropped; between
//!   them p_b = max_p·(avg − min_th)/(max_th − min_th), and the packet is dropped with
//!   probability p_a = p_b/(1 − count·p_b), count being the packets accepted since the last
//!   drop, which spaces drops evenly;
//! - in byte mode p_b is scaled by the packet's size over `mean_packet_size`, so large packets
//!   are likelier to go.
//!
//! Two options for Hasegawa, Matsuo, Murata & Miyahara, "Comparisons of Packet Scheduling
//! Algorithms for Fair Service among Connections on the Internet" (2001):
//! - `p_mode = "constant"`: between the thresholds every arrival is dropped with probability
//!   `max_p`, independently (no count spacing), the reading its analysis takes ("all arriving
//!   packets are dropped with probability p"); `"linear"` (default) is Floyd and Jacobson's;
//! - `flow_p = { flow = p, ... }`: a flow's own `max_p` (its *Enhanced RED*, whose per-connection
//!   probabilities are computed offline from the analytic model, before the run); ACKs and
//!   unnamed flows keep `max_p`.
//!
//! Choices left open, made here (each a parameter): thresholds in packets or bytes (the average
//! is kept in the same unit); `w_q` = 0.002 and `max_p` = 0.1 (ns-2's defaults, which the CSFQ
//! paper's comparisons used); `gentle` (off, as in 1993): between `max_th` and 2·`max_th` the
//! probability rises linearly from `max_p` to 1 instead of jumping to 1; s is the transmission
//! time of a `mean_packet_size` packet (1000 bytes) on the line; the port's `buffer` is the hard
//! limit, beyond which arrivals are tail-dropped; the average is updated before the arrival is
//! counted in the queue, as the paper's q is "the current queue size" (`count_arrival` counts it
//! in, and the packet on the line where the buffer holds it, for htsim's RandomQueue: see its
//! parameter).

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::{FlowId, Packet};
use crate::params::ParamError;
use crate::units::{BufferLimit, Bytes, Rate, Time};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// Below this average nothing is dropped early (packets, or bytes as `16KB`).
    pub min_th: BufferLimit,
    /// At or above this average everything is dropped (unless `gentle`).
    pub max_th: BufferLimit,
    /// Drop probability as the average reaches `max_th`.
    pub max_p: f64,
    /// Weight of the queue average.
    pub w_q: f64,
    /// Between `max_th` and twice it, the probability rises from `max_p` to 1 instead of jumping (Floyd
    /// 2000).
    pub gentle: bool,
    /// Scale each packet's probability by its size (byte mode).
    pub byte_mode: bool,
    /// The typical packet: for byte mode, and for the average's decay while idle.
    pub mean_packet_size: Bytes,
    /// `linear`: the probability grows from 0 to `max_p` between the thresholds, drops spaced by
    /// the count (Floyd & Jacobson); `constant`: `max_p` throughout, independent drops.
    pub p_mode: PMode,
    /// Per-flow `max_p`, `{ flow = p }` (Enhanced RED, Hasegawa et al. 2001).
    pub flow_p: BTreeMap<String, f64>,
    /// Mark ECN-capable packets (CE) instead of dropping them early (RFC 3168 §5; `red` only,
    /// not DRR's per-queue RED).
    pub ecn: bool,
    /// ns-2's and ns-3's `wait`: no drop until count·p_b reaches 1, then p_a = p_b/(2 − count·p_b),
    /// so drops come uniformly 1/p_b to 2/p_b arrivals apart (instead of 1 to 1/p_b; ns-3's
    /// default is on, Floyd & Jacobson's Figure 2 is off).
    pub wait: bool,
    /// With `ecn`, still drop when the average is in the forced-drop region (at or above
    /// `max_th`, or twice it when `gentle`), as ns-3's `UseHardDrop` does; `false` marks there
    /// too (a DCTCP threshold: `min_th = K`, `max_th = K + 1`, `w_q = 1`).
    pub hard_drop: bool,
    /// The queue measured is the one the arrival would make (what it finds plus itself, and the
    /// packet on the line where the buffer holds it: `buffer_includes_line`) instead of the one
    /// it finds (`red` only): with `w_q = 1`, `p_mode = "constant"`, `min_th` one above the
    /// early-drop level, `max_th` above the buffer and the line in the buffer, this is htsim's
    /// RandomQueue, which drops an arrival that would take the port above `max − 3·MTU` with
    /// probability 0.1.
    pub count_arrival: bool,
}

/// How the drop probability depends on the average between the thresholds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PMode {
    #[default]
    Linear,
    Constant,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_th: BufferLimit::Packets(5),
            max_th: BufferLimit::Packets(15),
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            byte_mode: false,
            mean_packet_size: Bytes(1000),
            p_mode: PMode::Linear,
            flow_p: BTreeMap::new(),
            ecn: false,
            hard_drop: true,
            wait: false,
            count_arrival: false,
        }
    }
}

/// RED's parameters, checked, with thresholds as numbers in the average's unit.
#[derive(Clone, Debug)]
pub struct RedRule {
    pub min_th: f64,
    pub max_th: f64,
    max_p: f64,
    gentle: bool,
    byte_mode: bool,
    mean_size: f64,
    /// Whether queues are measured in bytes (thresholds given in bytes).
    pub in_bytes: bool,
    constant: bool,
    /// `max_p` by flow id, where `flow_p` names the flow.
    flow_p: Vec<Option<f64>>,
}

impl RedRule {
    pub fn new(cfg: &RedConfig) -> Result<RedRule, ParamError> {
        let (min_th, max_th, in_bytes) = match (cfg.min_th, cfg.max_th) {
            (BufferLimit::Packets(a), BufferLimit::Packets(b)) => (a as f64, b as f64, false),
            (BufferLimit::Bytes(a), BufferLimit::Bytes(b)) => (a as f64, b as f64, true),
            _ => return Err(ParamError::at("max_th", "min_th and max_th must both be packets or both bytes")),
        };
        if min_th >= max_th {
            return Err(ParamError::at("max_th", "must exceed min_th"));
        }
        if !(cfg.max_p > 0.0 && cfg.max_p <= 1.0) {
            return Err(ParamError::at("max_p", "a probability in (0, 1]"));
        }
        // w_q = 1 follows the instantaneous queue (DCTCP's marking threshold)
        if !(cfg.w_q > 0.0 && cfg.w_q <= 1.0) {
            return Err(ParamError::at("w_q", "a weight in (0, 1]"));
        }
        if cfg.mean_packet_size.0 == 0 {
            return Err(ParamError::at("mean_packet_size", "must be positive"));
        }
        if cfg.gentle && cfg.p_mode == PMode::Constant {
            return Err(ParamError::at(
                "gentle",
                "goes with p_mode = \"linear\" (a constant p has no slope to extend)",
            ));
        }
        Ok(RedRule {
            min_th,
            max_th,
            max_p: cfg.max_p,
            gentle: cfg.gentle,
            byte_mode: cfg.byte_mode,
            mean_size: cfg.mean_packet_size.0 as f64,
            in_bytes,
            constant: cfg.p_mode == PMode::Constant,
            flow_p: vec![],
        })
    }

    /// The rule at a port: `flow_p`'s names resolved to the port's flows.
    pub fn at_port(cfg: &RedConfig, port: &PortInfo) -> Result<RedRule, ParamError> {
        let mut rule = RedRule::new(cfg)?;
        if cfg.flow_p.is_empty() {
            return Ok(rule);
        }
        rule.flow_p = vec![None; port.flows.len()];
        for (name, &p) in &cfg.flow_p {
            let fail = |message: String| ParamError { path: vec!["flow_p".into(), name.clone()], message };
            let Some(f) = port.flows.iter().position(|m| &m.name == name) else {
                let hint = crate::error::did_you_mean(name, port.flows.iter().map(|m| m.name.as_str()));
                return Err(fail(format!("no flow `{name}`{hint}")));
            };
            if !(p > 0.0 && p <= 1.0) {
                return Err(fail(format!("a probability in (0, 1], not {p}")));
            }
            rule.flow_p[f] = Some(p);
        }
        Ok(rule)
    }

    /// The `max_p` of packets of `flow`.
    fn max_p_of(&self, flow: FlowId) -> f64 {
        self.flow_p.get(flow.0 as usize).copied().flatten().unwrap_or(self.max_p)
    }

    /// The queue as the thresholds measure it.
    pub fn measure(&self, packets: usize, bytes: u64) -> f64 {
        if self.in_bytes {
            bytes as f64
        } else {
            packets as f64
        }
    }

    /// p_b for a packet of `size` bytes at average `avg`: `None` below `min_th`, `Some(1.0)`
    /// where every packet goes.
    pub fn base_probability(&self, avg: f64, size: u32) -> Option<f64> {
        self.probability(avg, size, self.max_p)
    }

    /// p_b for packet `pkt` (its flow's `max_p`).
    pub fn probability_for(&self, avg: f64, pkt: &Packet) -> Option<f64> {
        let max_p = if pkt.is_data() { self.max_p_of(pkt.flow) } else { self.max_p };
        self.probability(avg, pkt.size, max_p)
    }

    /// Whether an average of `avg` is in the forced-drop region.
    pub fn forced(&self, avg: f64) -> bool {
        avg >= if self.gentle { 2.0 * self.max_th } else { self.max_th }
    }

    fn probability(&self, avg: f64, size: u32, max_p: f64) -> Option<f64> {
        if avg < self.min_th {
            return None;
        }
        let p = if avg < self.max_th {
            if self.constant {
                max_p
            } else {
                max_p * (avg - self.min_th) / (self.max_th - self.min_th)
            }
        } else if self.gentle && avg < 2.0 * self.max_th {
            max_p + (1.0 - max_p) * (avg - self.max_th) / self.max_th
        } else {
            return Some(1.0);
        };
        let scaled = if self.byte_mode { p * size as f64 / self.mean_size } else { p };
        Some(scaled.min(1.0))
    }
}

/// The exponentially averaged queue, with the decay over idle periods.
#[derive(Clone, Debug)]
pub struct QueueAverage {
    avg: f64,
    w_q: f64,
    /// When the queue last became empty (and the line idle), if it is now.
    idle_since: Option<Time>,
    /// Transmission time of a typical packet, seconds.
    typical_tx: f64,
}

impl QueueAverage {
    pub fn new(w_q: f64, mean_packet_size: Bytes, rate: Rate) -> QueueAverage {
        let typical_tx = rate.tx_time(mean_packet_size.0 as u32).as_secs_f64();
        QueueAverage { avg: 0.0, w_q, idle_since: Some(Time::ZERO), typical_tx }
    }

    pub fn get(&self) -> f64 {
        self.avg
    }

    /// An arrival finds `q` queued.
    pub fn arrival(&mut self, now: Time, q: f64) {
        if q == 0.0 && self.decay_if_idle(now) {
            return;
        }
        self.step(q);
    }

    /// After an idle period, decays the average as if m = idle time / s small packets had
    /// arrived to an empty queue; returns whether the queue had been idle.
    pub fn decay_if_idle(&mut self, now: Time) -> bool {
        let Some(since) = self.idle_since.take() else { return false };
        let m = (now - since).as_secs_f64() / self.typical_tx;
        self.avg *= (1.0 - self.w_q).powf(m);
        true
    }

    /// One sample of the queue: avg ← (1 − w_q)·avg + w_q·q.
    pub fn step(&mut self, q: f64) {
        self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q;
    }

    /// The queue just became empty.
    pub fn emptied(&mut self, now: Time) {
        self.idle_since = Some(now);
    }
}

/// RED's count of packets accepted since the last early drop, and the drop decision it spaces.
#[derive(Clone, Debug)]
pub struct DropSpacing {
    count: i64,
    /// ns-2's `wait` rule (`RedConfig::wait`).
    wait: bool,
}

impl Default for DropSpacing {
    fn default() -> Self {
        DropSpacing { count: -1, wait: false }
    }
}

impl DropSpacing {
    /// Whether to drop, given p_b (`None`: below min_th). Updates the count.
    pub fn decide(&mut self, p_b: Option<f64>, rng: &mut impl Rng) -> bool {
        match p_b {
            None => {
                self.below();
                false
            }
            Some(p) if p >= 1.0 => {
                self.count = 0;
                true
            }
            Some(p) => {
                self.arrived();
                self.try_drop(p, rng)
            }
        }
    }

    /// The average is below min_th: the count starts over.
    pub fn below(&mut self) {
        self.count = -1;
    }

    /// One more arrival between the thresholds.
    pub fn arrived(&mut self) {
        self.count += 1;
    }

    /// Spacing with ns-2's `wait` rule.
    pub fn waiting(wait: bool) -> DropSpacing {
        DropSpacing { wait, ..Default::default() }
    }

    /// Drops with p_a = p_b/(1 − count·p_b) (the count as it stands), or with the `wait` rule
    /// 0 until count·p_b reaches 1 and p_b/(2 − count·p_b) after, starting the count over.
    pub fn try_drop(&mut self, p_b: f64, rng: &mut impl Rng) -> bool {
        let p_a = if self.wait {
            match self.count as f64 * p_b {
                cp if cp < 1.0 => 0.0,
                cp if cp < 2.0 => p_b / (2.0 - cp),
                _ => 1.0,
            }
        } else {
            let left = 1.0 - self.count as f64 * p_b;
            if left <= p_b {
                1.0
            } else {
                p_b / left
            }
        };
        let drop = rng.random::<f64>() < p_a;
        if drop {
            self.count = 0;
        }
        drop
    }

    /// A forced drop (average above max_th) starts the count over.
    pub fn forced(&mut self) {
        self.count = 0;
    }
}

/// One queue's RED state, its average and its drop count, deciding for each arrival: RED's
/// single queue has one, and DRR+ one per DRR queue.
#[derive(Clone, Debug)]
pub struct RedGate {
    average: QueueAverage,
    spacing: DropSpacing,
}

impl RedGate {
    pub fn new(cfg: &RedConfig, rate: Rate) -> RedGate {
        RedGate {
            average: QueueAverage::new(cfg.w_q, cfg.mean_packet_size, rate),
            spacing: DropSpacing::waiting(cfg.wait),
        }
    }

    /// Whether `pkt`, arriving to find `queued` (in the rule's unit), is dropped early.
    pub fn early_drop(&mut self, rule: &RedRule, now: Time, queued: f64, pkt: &Packet, rng: &mut impl Rng) -> bool {
        self.average.arrival(now, queued);
        let p_b = rule.probability_for(self.average.get(), pkt);
        if rule.constant {
            // independent drops, as the 2001 analysis assumes: no count spacing
            return p_b.is_some_and(|p| p >= 1.0 || rng.random::<f64>() < p);
        }
        self.spacing.decide(p_b, rng)
    }

    /// The queue just became empty.
    pub fn emptied(&mut self, now: Time) {
        self.average.emptied(now);
    }

    pub fn average(&self) -> f64 {
        self.average.get()
    }
}

pub struct Red {
    rule: RedRule,
    gate: RedGate,
    queue: Fifo,
    limit: BufferLimit,
    early_drops: u64,
    ecn: bool,
    hard_drop: bool,
    count_arrival: bool,
}

impl Red {
    pub fn new(cfg: RedConfig, port: &PortInfo) -> Result<Red, ParamError> {
        let rule = RedRule::at_port(&cfg, port)?;
        Ok(Red {
            rule,
            gate: RedGate::new(&cfg, port.rate),
            queue: Fifo::default(),
            limit: port.buffer,
            early_drops: 0,
            ecn: cfg.ecn,
            hard_drop: cfg.hard_drop,
            count_arrival: cfg.count_arrival,
        })
    }
}

impl Qdisc for Red {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let q = if self.count_arrival {
            // the port as the arrival would leave it: the packet on the line too, where it takes
            // a place in the buffer (htsim's `_queuesize + size`)
            let (line_pkts, line_bytes) = ctx.line().map_or((0, 0), |size| (1, size as u64));
            self.rule.measure(self.queue.len() + 1 + line_pkts, self.queue.bytes() + pkt.size as u64 + line_bytes)
        } else {
            self.rule.measure(self.queue.len(), self.queue.bytes())
        };
        let pkt = if self.gate.early_drop(&self.rule, ctx.now, q, &pkt, ctx.rng()) {
            let hard = self.hard_drop && self.rule.forced(self.gate.average());
            match ctx.signal(pkt, self.ecn && !hard) {
                Some(marked) => marked,
                None => {
                    self.early_drops += 1;
                    return;
                }
            }
        } else {
            pkt
        };
        ctx.push_or_drop(&mut self.queue, self.limit, pkt);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let pkt = self.queue.pop(ctx.pool);
        if self.queue.is_empty() {
            self.gate.emptied(ctx.now);
        }
        pkt
    }

    inspect_store!(queue);

    fn chainable(&self) -> bool {
        // a FIFO that drops only arrivals and draws only for them; its dequeue notes when the
        // queue empties, as of the end it is made for
        true
    }

    fn gauge(&self) -> Option<(&'static str, f64)> {
        Some(("average_queue", self.gate.average()))
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![("average_queue", self.gate.average()), ("early_drops", self.early_drops as f64)]
    }
}

/// The `red` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<RedConfig> = Declaration {
    about: About {
        name: "red",
        summary: "Random Early Detection: early drops with a probability growing with the averaged queue",
        reference: "Floyd & Jacobson, IEEE/ACM ToN 1993",
    },
    defaults: || (RedConfig::default(),),
    build: |(c,), port| Ok(Box::new(Red::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::discipline::DropReason;
    use crate::qdisc::testing::{pkt, port, with_ctx};
    use crate::rng::stream;

    fn rule(gentle: bool, byte_mode: bool) -> RedRule {
        RedRule::new(&RedConfig { gentle, byte_mode, ..Default::default() }).unwrap()
    }

    #[test]
    fn the_probability_rises_linearly_between_the_thresholds() {
        let r = rule(false, false);
        assert_eq!(r.base_probability(4.9, 1000), None);
        assert_eq!(r.base_probability(5.0, 1000), Some(0.0));
        assert!((r.base_probability(10.0, 1000).unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(r.base_probability(15.0, 1000), Some(1.0), "at max_th every packet goes");
        let g = rule(true, false);
        assert!((g.base_probability(22.5, 1000).unwrap() - (0.1 + 0.9 * 0.5)).abs() < 1e-12, "gentle");
        assert_eq!(g.base_probability(30.0, 1000), Some(1.0));
        let b = rule(false, true);
        assert!((b.base_probability(10.0, 100).unwrap() - 0.005).abs() < 1e-12, "small packets go less");
    }

    #[test]
    fn drops_are_spaced_evenly_not_geometrically() {
        // with p_b fixed at 0.1 the count makes the gap between drops uniform on 1..=10
        let mut rng = stream(5, "red");
        let mut spacing = DropSpacing::default();
        let mut gaps = vec![];
        let mut since = 0;
        for _ in 0..100_000 {
            since += 1;
            if spacing.decide(Some(0.1), &mut rng) {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.iter().all(|&g| (1..=10).contains(&g)), "never more than 1/p_b apart");
        // the paper's count makes every gap of 1..9 about equally likely (a geometric law with
        // p = 0.1 would make a gap of 1 more than twice as likely as a gap of 9)
        let freq = |n: i32| gaps.iter().filter(|&&g| g == n).count() as f64;
        let (low, high) = (1..=9).map(freq).fold((f64::MAX, 0.0f64), |(l, h), f| (l.min(f), h.max(f)));
        assert!(high / low < 1.3, "gap frequencies from {low} to {high}");
    }

    #[test]
    fn with_ns_2s_wait_rule_drops_come_one_to_two_over_p_b_apart() {
        // ns-2 red.cc (`wait_`): no drop while count·p_b < 1, then p_b/(2 − count·p_b)
        let mut rng = stream(5, "red");
        let mut spacing = DropSpacing::waiting(true);
        let (mut gaps, mut since) = (vec![], 0);
        for _ in 0..100_000 {
            since += 1;
            if spacing.decide(Some(0.1), &mut rng) {
                gaps.push(since);
                since = 0;
            }
        }
        // the count reaches 1/p_b = 10 on the tenth arrival after a drop, and p_a reaches 1 at
        // the nineteenth: gaps uniform on 10..=19 (the classic rule's 1..=10, shifted by 1/p_b)
        // (the first gap counts from the count's start at −1: one more)
        let gaps = &gaps[1..];
        assert!(gaps.iter().all(|&g| (10..=19).contains(&g)), "{:?}", &gaps[..20]);
        let mean = gaps.iter().sum::<i32>() as f64 / gaps.len() as f64;
        assert!((mean - 14.5).abs() < 0.2, "mean gap {mean}");
    }

    #[test]
    fn the_average_follows_the_queue_and_decays_while_idle() {
        let mut a = QueueAverage::new(0.002, Bytes(1000), Rate(8_000_000)); // 1 ms per packet
        a.arrival(Time::ZERO, 0.0);
        for _ in 0..5000 {
            a.arrival(Time::ZERO, 20.0);
        }
        assert!((a.get() - 20.0).abs() < 0.01, "{}", a.get());
        a.emptied(Time::from_secs(1));
        a.arrival(Time::from_millis(1500), 0.0); // idle 500 ms = 500 packet times
        let expected = 20.0 * 0.998f64.powf(500.0);
        assert!((a.get() - expected).abs() < 0.05, "{} vs {expected}", a.get());
    }

    #[test]
    fn a_queue_fed_too_fast_is_held_near_the_thresholds_not_at_the_buffer() {
        let cfg = RedConfig { w_q: 0.02, ..Default::default() };
        let mut q = Red::new(cfg, &port(BufferLimit::Packets(100), &[(0, 1)])).unwrap();
        // two arrivals per departure, one every millisecond
        let (_, drops) = with_ctx(|ctx| {
            for i in 0..20_000u64 {
                ctx.now = Time::from_millis(i);
                q.enqueue(pkt(0, i, 1000), ctx);
                if i % 2 == 1 {
                    q.dequeue(ctx);
                }
            }
        });
        assert!(q.len_packets() < 20, "RED kept the queue at {} of 100", q.len_packets());
        assert!(drops.iter().all(|(_, r)| *r == DropReason::Early), "no tail drops");
        assert!(drops.len() > 9_000, "about half the arrivals dropped early: {}", drops.len());
    }

    /// Early drops of each flow when flows 0 and 1 alternate into a queue held between the
    /// thresholds (one departure per two arrivals; a large w_q so that the average follows).
    fn early_drops_by_flow(cfg: RedConfig) -> [usize; 2] {
        let cfg = RedConfig { w_q: 0.5, min_th: BufferLimit::Packets(2), max_th: BufferLimit::Packets(1000), ..cfg };
        let mut q = Red::new(cfg, &port(BufferLimit::Packets(2000), &[(0, 1), (2, 1)])).unwrap();
        let (_, drops) = with_ctx(|ctx| {
            for i in 0..40_000u64 {
                q.enqueue(pkt((i % 2) as u32, i, 1000), ctx);
                if q.len_packets() > 10 {
                    q.dequeue(ctx);
                }
            }
        });
        let early = |f: u32| drops.iter().filter(|(p, r)| p.flow.0 == f && *r == DropReason::Early).count();
        [early(0), early(1)]
    }

    /// Of `trials` arrivals of `size` bytes, each to a fresh queue first filled with `level`
    /// packets of 4,000 bytes (arrivals dropped while filling are sent again), the fraction
    /// dropped, under htsim's RandomQueue at `-q 8 -mtu 4000` (`count_arrival`) or not.
    fn htsim_drop_rate(level: usize, size: u32, count_arrival: bool, trials: u32) -> f64 {
        htsim_drop_rate_behind(None, level, size, count_arrival, trials)
    }

    /// `htsim_drop_rate` at a port whose buffer holds the packet on its line (`line`: its size).
    fn htsim_drop_rate_behind(line: Option<u32>, level: usize, size: u32, count_arrival: bool, trials: u32) -> f64 {
        let cfg = RedConfig {
            min_th: BufferLimit::Bytes(20_001),
            max_th: BufferLimit::Bytes(32_001),
            w_q: 1.0,
            max_p: 0.1,
            p_mode: PMode::Constant,
            count_arrival,
            ..Default::default()
        };
        let mut rng = crate::rng::LazyStream::new(5, "random_queue");
        let mut dropped = 0;
        for _ in 0..trials {
            let mut q = Red::new(cfg.clone(), &port(BufferLimit::Bytes(32_000), &[])).unwrap();
            let (mut drops, mut marks) = (vec![], 0);
            let mut pool = crate::net::PacketPool::standalone();
            let mut ctx =
                QdiscCtx::new(Time::ZERO, Rate(1), &mut rng, &mut drops, &mut marks, &mut pool).with_line(line);
            let mut seq = 0;
            while q.len_packets() < level {
                q.enqueue(pkt(0, seq, 4000), &mut ctx);
                seq += 1;
            }
            q.enqueue(pkt(0, seq, size), &mut ctx);
            dropped += (q.len_packets() == level) as u32;
        }
        dropped as f64 / trials as f64
    }

    #[test]
    fn count_arrival_reproduces_htsims_random_queue() {
        // htsim: an arrival that would take the queue above max − 3·MTU = 20,000 B is dropped with
        // probability 0.1, one that would take it above 32,000 B always
        assert_eq!(htsim_drop_rate(4, 4000, true, 2_000), 0.0, "16,000 + 4,000 is not above 20,000");
        let p = htsim_drop_rate(5, 4000, true, 20_000);
        assert!((p - 0.1).abs() < 0.01, "20,000 + 4,000: {p}");
        let p = htsim_drop_rate(7, 4000, true, 20_000);
        assert!((p - 0.1).abs() < 0.01, "28,000 + 4,000 fits the buffer: {p}");
        assert_eq!(htsim_drop_rate(8, 4000, true, 2_000), 1.0, "32,000 + 4,000 never fits");
        let p = htsim_drop_rate(4, 4001, true, 20_000);
        assert!((p - 0.1).abs() < 0.01, "the arrival's own bytes count: 16,000 + 4,001: {p}");
        // measuring the queue found instead: 20,000 B is below min_th, nothing goes early
        assert_eq!(htsim_drop_rate(5, 4000, false, 2_000), 0.0);
        // htsim's `_queuesize` holds the packet on the line: 3 waiting + 1 on the line + the
        // arrival make 16,000 B, 4 + 1 + 1 make 24,000 B
        assert_eq!(htsim_drop_rate_behind(Some(4000), 3, 4000, true, 2_000), 0.0, "16,000 with the line");
        let p = htsim_drop_rate_behind(Some(4000), 4, 4000, true, 20_000);
        assert!((p - 0.1).abs() < 0.01, "16,000 waiting + 4,000 on the line + 4,000: {p}");
    }

    #[test]
    fn a_constant_p_drops_each_arrival_with_that_probability_wherever_the_average_is() {
        // Hasegawa et al.'s reading: between the thresholds every packet goes with p, independently
        let [a, b] = early_drops_by_flow(RedConfig { p_mode: PMode::Constant, max_p: 0.02, ..Default::default() });
        let rate = (a + b) as f64 / 40_000.0;
        assert!((rate - 0.02).abs() < 0.004, "{rate}");
        // the linear rule, at an average of about 10 of a 2..1000 range, drops far less
        let [a, b] = early_drops_by_flow(RedConfig { max_p: 0.02, ..Default::default() });
        assert!(((a + b) as f64 / 40_000.0) < 0.002);
    }

    #[test]
    fn flow_p_gives_a_flow_its_own_probability() {
        // Enhanced RED: the paper's per-connection p_i
        let flow_p = BTreeMap::from([("f0".to_string(), 0.08)]);
        let cfg = RedConfig { p_mode: PMode::Constant, max_p: 0.02, flow_p, ..Default::default() };
        let [a, b] = early_drops_by_flow(cfg);
        let (ra, rb) = (a as f64 / 20_000.0, b as f64 / 20_000.0);
        assert!((ra - 0.08).abs() < 0.01 && (rb - 0.02).abs() < 0.005, "{ra} {rb}");
    }

    #[test]
    fn flow_p_names_flows_of_the_scenario_and_probabilities() {
        let at = |flow_p: BTreeMap<String, f64>| {
            RedRule::at_port(&RedConfig { flow_p, ..Default::default() }, &port(BufferLimit::Packets(10), &[(0, 1)]))
                .err()
                .map(|e| (e.path, e.message))
        };
        let (path, message) = at(BTreeMap::from([("f9".to_string(), 0.1)])).unwrap();
        assert_eq!(path, ["flow_p", "f9"]);
        assert!(message.starts_with("no flow `f9`"), "{message}");
        let (_, message) = at(BTreeMap::from([("f0".to_string(), 1.5)])).unwrap();
        assert!(message.contains("(0, 1]"), "{message}");
        assert!(at(BTreeMap::from([("f0".to_string(), 0.1)])).is_none());
    }

    #[test]
    fn mixed_threshold_units_and_bad_values_are_refused() {
        let bad = |c: RedConfig| RedRule::new(&c).err().map(|e| e.path);
        let mixed = RedConfig { min_th: BufferLimit::Bytes(16_000), ..Default::default() };
        assert_eq!(bad(mixed), Some(vec!["max_th".to_string()]));
        assert_eq!(bad(RedConfig { max_p: 0.0, ..Default::default() }), Some(vec!["max_p".to_string()]));
        let inverted = RedConfig { min_th: BufferLimit::Packets(20), ..Default::default() };
        assert_eq!(bad(inverted), Some(vec!["max_th".to_string()]));
    }
}
