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
//! Choices left open, made here (each a parameter): thresholds in packets or bytes (the average
//! is kept in the same unit); `w_q` = 0.002 and `max_p` = 0.1 (ns-2's defaults, which the CSFQ
//! paper's comparisons used); `gentle` (off, as in 1993): between `max_th` and 2·`max_th` the
//! probability rises linearly from `max_p` to 1 instead of jumping to 1; s is the transmission
//! time of a `mean_packet_size` packet (1000 bytes) on the line; the port's `buffer` is the hard
//! limit, beyond which arrivals are tail-dropped; the average is updated before the arrival is
//! counted in the queue, as the paper's q is "the current queue size".

use super::fifo::Fifo;
use super::{inspect_store, DropReason, PortInfo, Qdisc, QdiscCtx};
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::qdisc::QdiscDeclaration;
use crate::units::{BufferLimit, Bytes, Rate, Time};
use rand::Rng;
use serde::{Deserialize, Serialize};

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
        if !(cfg.w_q > 0.0 && cfg.w_q < 1.0) {
            return Err(ParamError::at("w_q", "a weight in (0, 1)"));
        }
        if cfg.mean_packet_size.0 == 0 {
            return Err(ParamError::at("mean_packet_size", "must be positive"));
        }
        Ok(RedRule {
            min_th,
            max_th,
            max_p: cfg.max_p,
            gentle: cfg.gentle,
            byte_mode: cfg.byte_mode,
            mean_size: cfg.mean_packet_size.0 as f64,
            in_bytes,
        })
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
        if avg < self.min_th {
            return None;
        }
        let p = if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle && avg < 2.0 * self.max_th {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
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
}

impl Default for DropSpacing {
    fn default() -> Self {
        DropSpacing { count: -1 }
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

    /// Drops with p_a = p_b/(1 − count·p_b) (the count as it stands), starting the count over.
    pub fn try_drop(&mut self, p_b: f64, rng: &mut impl Rng) -> bool {
        let left = 1.0 - self.count as f64 * p_b;
        let p_a = if left <= p_b { 1.0 } else { p_b / left };
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

pub struct Red {
    rule: RedRule,
    average: QueueAverage,
    spacing: DropSpacing,
    queue: Fifo,
    limit: BufferLimit,
    early_drops: u64,
}

impl Red {
    pub fn new(cfg: RedConfig, port: &PortInfo) -> Result<Red, ParamError> {
        let rule = RedRule::new(&cfg)?;
        Ok(Red {
            rule,
            average: QueueAverage::new(cfg.w_q, cfg.mean_packet_size, port.rate),
            spacing: DropSpacing::default(),
            queue: Fifo::default(),
            limit: port.buffer,
            early_drops: 0,
        })
    }
}

impl Qdisc for Red {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        let q = self.rule.measure(self.queue.len(), self.queue.bytes());
        self.average.arrival(ctx.now, q);
        let p_b = self.rule.base_probability(self.average.get(), pkt.size);
        if self.spacing.decide(p_b, ctx.rng) {
            self.early_drops += 1;
            ctx.drop(pkt, DropReason::Early);
        } else {
            ctx.push_or_drop(&mut self.queue, self.limit, pkt);
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let pkt = self.queue.pop();
        if self.queue.is_empty() {
            self.average.emptied(ctx.now);
        }
        pkt
    }

    inspect_store!(queue);

    fn gauge(&self) -> Option<(&'static str, f64)> {
        Some(("average_queue", self.average.get()))
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![("average_queue", self.average.get()), ("early_drops", self.early_drops as f64)]
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
