//! CSFQ: Core-Stateless Fair Queueing. Edge routers estimate each flow's rate and write it into
//! its packets as a label; every router (edge or core) drops an arriving packet with
//! probability max(0, 1 − α/label), α being its own estimate of the fair share, and keeps no
//! per-flow state beyond the edge.
//!
//! Reference: I. Stoica, S. Shenker, H. Zhang, "Core-Stateless Fair Queueing: Achieving
//! Approximately Fair Bandwidth Allocations in High Speed Networks", SIGCOMM 1998, §2 (Figure 2's
//! pseudocode, Eqs. 3–7, and §2.2.2's buffer amendments):
//! - flow rate at the edge, on every packet (Eq. 3): r ← (1 − e^{−T/K})·l/T + e^{−T/K}·r, T the
//!   time since the flow's previous packet; the label is r (r/w with weights);
//! - per link, the aggregate arrival rate Â on every arrival and the accepted rate F̂ on every
//!   packet the probabilistic test lets through, by the same formula with K_α (Eq. 5): Figure 2
//!   calls `estimate_rate(F̂, p)` only when the packet is not dropped, so F̂'s T is the time
//!   since the previous packet let through, and a dropped arrival leaves F̂ as it is;
//! - α: a link is congested if Â ≥ C throughout an interval of K_c, and then α ← α·C/F̂ at the
//!   end of the interval (Eq. 6); uncongested if Â < C throughout K_c, and then α ← the largest
//!   label seen in the interval;
//! - every buffer overflow lowers α by 1%, by at most 25% between two regular updates;
//! - once uncongested, a link stays so while its buffer is less than half full, and drops nothing
//!   (the paper's rule read with its derivative code: an uncongested, calm link does not drop);
//! - forwarded packets leave with label min(label, α) (Eq. 7).
//!
//! Choices the paper leaves open, made here: α starts at the line rate C, Â and F̂ at 0; a
//! flow's first packet is estimated as if its predecessor had come K earlier; packets arriving
//! at the same instant as the previous one add their bits to the next interval's sample (T = 0
//! would divide by zero); α is kept at most C after Eq. 6; an uncongested window that saw no
//! packet leaves α unchanged (a largest label of 0 would drop everything); the 25% budget is
//! renewed at every regular update. Roles: a port labels a packet as an edge would when the
//! packet has no label yet (`role = "auto"`: the first CSFQ router on a path is the edge, the
//! paper's convention in §3), always (`"edge"`, re-estimating at an island's border) or never
//! (`"core"`). Only a port that labels keeps per-flow state, and only for the flows it labels.
//! Labels are 32-bit floats unless `label_format = "byte"` asks for §2.7's 8-bit encoding
//! (`label.rs`).

mod label;
pub use label::LabelFormat;

use super::classify::{Classifier, ConversationKey};
use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, DropReason, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::units::{BufferLimit, Time};
use rand::Rng;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Label packets that arrive without a label (the first CSFQ router of their path).
    #[default]
    Auto,
    /// Estimate and label every packet (the border of an island).
    Edge,
    /// Never label: no per-flow state at all.
    Core,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CsfqConfig {
    /// `auto` labels unlabelled packets (the first CSFQ router of a path), `edge` always labels, `core` never
    /// does.
    pub role: Role,
    /// How the edge tells flows apart.
    pub key: ConversationKey,
    /// Averaging constant of the flow rates (Eq. 3); by default `time_constant`.
    pub k: Option<Time>,
    /// Averaging constant of the aggregate arrival and accepted rates (Eq. 5); by default
    /// `time_constant`.
    pub k_alpha: Option<Time>,
    /// Length of the congested / uncongested test (the window K_c); by default `time_constant`.
    pub k_c: Option<Time>,
    /// Fraction α loses at each buffer overflow (at most `max_overflow_decrease`).
    pub overflow_decrease: f64,
    /// Most α may lose to overflows between two regular updates.
    pub max_overflow_decrease: f64,
    /// Buffer occupancy (fraction) below which an uncongested link stays uncongested.
    pub low_occupancy: f64,
    /// Rewrite labels to min(label, α) (Eq. 7); off only to show what relabeling is for.
    pub relabel: bool,
    /// How labels travel: 32-bit floats, or the paper's 8-bit float for the ToS byte (§2.7).
    pub label_format: LabelFormat,
}

impl Default for CsfqConfig {
    fn default() -> Self {
        CsfqConfig {
            role: Role::Auto,
            key: ConversationKey::Flow,
            k: None,
            k_alpha: None,
            k_c: None,
            overflow_decrease: 0.01,
            max_overflow_decrease: 0.25,
            low_occupancy: 0.5,
            relabel: true,
            label_format: LabelFormat::Float,
        }
    }
}

/// The shortest default of K, K_α and K_c: the paper's 100 ms.
const SHORTEST_CONSTANT: Time = Time::from_millis(100);

impl CsfqConfig {
    /// The configuration with K, K_α and K_c filled in where the scenario leaves them out.
    pub fn resolved(mut self, port: &PortInfo) -> CsfqConfig {
        let t = time_constant(port);
        for k in [&mut self.k, &mut self.k_alpha, &mut self.k_c] {
            k.get_or_insert(t);
        }
        self
    }
}

/// The default of K, K_α and K_c at a port: §3's rule, "roughly two times larger than the
/// maximum queueing delay", but at least 100 ms (§2.7's range starts there, and an unlimited
/// buffer has no largest delay). The rule gives the paper's own 100, 250 and 400 ms within 5%;
/// a fixed 100 ms would misjudge slow lines, where one window's burst outlasts K_α and looks
/// like congestion (on a 56 kb/s line with 8 packets of buffer, the link ran 67% busy with
/// 100 ms and 88% with the rule's 2.3 s).
pub fn time_constant(port: &PortInfo) -> Time {
    port.drain_time().map_or(SHORTEST_CONSTANT, |d| Time::from_secs_f64(2.0 * d.as_secs_f64()).max(SHORTEST_CONSTANT))
}

/// A rate averaged with weight e^{−T/K}, T the time since the previous sample (Eqs. 3 and 5).
#[derive(Clone, Copy, Debug)]
pub struct RateEstimate {
    rate: f64,
    last: Option<Time>,
    /// Bits that arrived at the instant of the last sample, carried into the next one.
    pending: f64,
}

impl RateEstimate {
    pub const fn new() -> RateEstimate {
        RateEstimate { rate: 0.0, last: None, pending: 0.0 }
    }

    /// The current estimate, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Takes `bits` arriving at `now`; returns the new estimate.
    pub fn sample(&mut self, now: Time, bits: f64, k: f64) -> f64 {
        let t = match self.last {
            None => k, // the first packet: as if the previous one had come K earlier
            Some(last) => (now - last).as_secs_f64(),
        };
        if t <= 0.0 {
            self.pending += bits;
            return self.rate;
        }
        let w = (-t / k).exp();
        self.rate = (1.0 - w) * (bits + self.pending) / t + w * self.rate;
        self.pending = 0.0;
        self.last = Some(now);
        self.rate
    }
}

impl Default for RateEstimate {
    fn default() -> Self {
        RateEstimate::new()
    }
}

/// The link's fair-share estimator: the congestion test over windows of K_c and α's updates.
#[derive(Clone, Debug)]
pub struct FairShare {
    capacity: f64,
    k_alpha: f64,
    k_c: Time,
    pub alpha: f64,
    arrivals: RateEstimate,
    accepted: RateEstimate,
    congested: bool,
    window_start: Time,
    max_label: f64,
    /// α at the last regular update, for the 25% cap on overflow decreases.
    alpha_at_update: f64,
}

impl FairShare {
    pub fn new(capacity: f64, k_alpha: Time, k_c: Time) -> FairShare {
        FairShare {
            capacity,
            k_alpha: k_alpha.as_secs_f64(),
            k_c,
            alpha: capacity,
            arrivals: RateEstimate::new(),
            accepted: RateEstimate::new(),
            congested: false,
            window_start: Time::ZERO,
            max_label: 0.0,
            alpha_at_update: capacity,
        }
    }

    /// An arrival of `bits` with (incoming) `label`, dropped by the probabilistic test or not;
    /// `stay_uncongested`: the buffer is below the low-occupancy threshold.
    pub fn arrival(&mut self, now: Time, bits: f64, label: f64, dropped: bool, stay_uncongested: bool) {
        let a = self.arrivals.sample(now, bits, self.k_alpha);
        // Figure 2: `if (dropped == FALSE) estimate_rate(F̂, p)`, the packets let through alone
        if !dropped {
            self.accepted.sample(now, bits, self.k_alpha);
        }
        let window_over = now > self.window_start + self.k_c;
        // once uncongested, a link stays so while its buffer is calm (§2.2.2)
        let may_congest = self.congested || !stay_uncongested;
        if a >= self.capacity && may_congest {
            if !self.congested {
                self.congested = true;
                self.window_start = now;
            } else if window_over {
                let f = self.accepted.rate().max(f64::MIN_POSITIVE);
                self.regular_update((self.alpha * self.capacity / f).min(self.capacity));
                self.window_start = now;
            }
        } else if self.congested {
            self.congested = false;
            self.window_start = now;
            self.max_label = 0.0;
        } else if !window_over {
            self.max_label = self.max_label.max(label);
        } else {
            if self.max_label > 0.0 {
                self.regular_update(self.max_label);
            }
            self.window_start = now;
            self.max_label = 0.0;
        }
    }

    fn regular_update(&mut self, alpha: f64) {
        self.alpha = alpha;
        self.alpha_at_update = alpha;
    }

    /// The buffer overflowed: α loses `fraction`, unless that takes it more than `cap` below
    /// its value at the last regular update.
    pub fn overflow(&mut self, fraction: f64, cap: f64) {
        let lowered = self.alpha * (1.0 - fraction);
        if lowered >= self.alpha_at_update * (1.0 - cap) {
            self.alpha = lowered;
        }
    }

    pub fn congested(&self) -> bool {
        self.congested
    }
}

pub struct Csfq {
    cfg: CsfqConfig,
    classifier: Classifier,
    /// Per-flow rate estimates, grown only for the conversations this port labels.
    flows: Vec<Option<RateEstimate>>,
    share: FairShare,
    queue: Fifo,
    limit: BufferLimit,
    k: f64,
    early_drops: u64,
    overflows: u64,
}

impl Csfq {
    pub fn new(cfg: CsfqConfig, port: &PortInfo) -> Result<Csfq, ParamError> {
        let cfg = cfg.resolved(port);
        let [k, k_alpha, k_c] = [cfg.k, cfg.k_alpha, cfg.k_c].map(|t| t.expect("resolved"));
        for (name, t) in [("k", k), ("k_alpha", k_alpha), ("k_c", k_c)] {
            if t == Time::ZERO {
                return Err(ParamError::at(name, "must be longer than 0s"));
            }
        }
        if !(0.0..1.0).contains(&cfg.overflow_decrease) {
            return Err(ParamError::at("overflow_decrease", "a fraction in [0, 1)"));
        }
        if !(0.0..=1.0).contains(&cfg.max_overflow_decrease) {
            return Err(ParamError::at("max_overflow_decrease", "a fraction in [0, 1]"));
        }
        // an overflow lowers α only while its total loss since the update stays within the cap:
        // a single step above the cap could never be taken
        ParamError::unless_ordered(
            ("overflow_decrease", cfg.overflow_decrease),
            ("max_overflow_decrease", cfg.max_overflow_decrease),
            "no overflow could lower α",
        )?;
        if !(0.0..=1.0).contains(&cfg.low_occupancy) {
            return Err(ParamError::at("low_occupancy", "a fraction of the buffer in [0, 1]"));
        }
        Ok(Csfq {
            classifier: Classifier::new(cfg.key, port),
            flows: vec![],
            share: FairShare::new(port.rate.0 as f64, k_alpha, k_c),
            queue: Fifo::default(),
            limit: port.buffer,
            k: k.as_secs_f64(),
            early_drops: 0,
            overflows: 0,
            cfg,
        })
    }

    /// Estimates the rate of `pkt`'s flow (edge work) and returns its label.
    fn label(&mut self, pkt: &Packet, now: Time) -> f64 {
        let c = self.classifier.conv(pkt);
        if self.flows.len() <= c {
            self.flows.resize(c + 1, None);
        }
        let r = self.flows[c].get_or_insert_with(RateEstimate::new).sample(now, pkt.size as f64 * 8.0, self.k);
        r / self.classifier.weight(c)
    }

    fn below_low_occupancy(&self) -> bool {
        let fraction = self.cfg.low_occupancy;
        match self.limit {
            BufferLimit::Packets(n) => (self.queue.len() as f64) < fraction * n as f64,
            BufferLimit::Bytes(n) => (self.queue.bytes() as f64) < fraction * n as f64,
            BufferLimit::Unlimited => true, // no buffer to fill: the Â test alone decides
        }
    }

    /// Conversations with per-flow state at this port (zero at a core router).
    pub fn flow_states(&self) -> usize {
        self.flows.iter().filter(|f| f.is_some()).count()
    }
}

impl Qdisc for Csfq {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QdiscCtx) {
        let labels = match self.cfg.role {
            Role::Edge => true,
            Role::Core => false,
            Role::Auto => pkt.label == 0.0,
        };
        if labels {
            pkt.label = self.cfg.label_format.carry(self.label(&pkt, ctx.now));
        }
        let label = pkt.label as f64;
        let alpha = self.share.alpha;
        // an uncongested link with a calm buffer drops nothing (§2.2.2): α is then only the
        // largest rate seen, kept for when congestion begins
        let calm = self.below_low_occupancy();
        let dropping = self.share.congested() || !calm;
        let prob = if dropping && label > 0.0 { (1.0 - alpha / label).max(0.0) } else { 0.0 };
        let dropped = prob > 0.0 && prob > ctx.rng().random::<f64>();
        self.share.arrival(ctx.now, pkt.size as f64 * 8.0, label, dropped, calm);
        if dropped {
            self.early_drops += 1;
            ctx.drop(pkt, DropReason::Early);
            return;
        }
        if self.cfg.relabel && dropping && label > self.share.alpha {
            pkt.label = self.cfg.label_format.carry(self.share.alpha);
        }
        if !ctx.push_or_drop(&mut self.queue, self.limit, pkt) {
            self.overflows += 1;
            self.share.overflow(self.cfg.overflow_decrease, self.cfg.max_overflow_decrease);
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.queue.pop(ctx.pool)
    }

    fn drained(&self) -> bool {
        self.queue.is_empty() // a FIFO; α moves only at arrivals
    }

    inspect_store!(queue);

    fn gauge(&self) -> Option<(&'static str, f64)> {
        Some(("alpha_bps", self.share.alpha))
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("alpha_bps", self.share.alpha),
            ("early_drops", self.early_drops as f64),
            ("overflows", self.overflows as f64),
            ("flow_states", self.flow_states() as f64),
        ]
    }
    fn chainable(&self) -> bool {
        true // a FIFO: its rates and α move only at arrivals
    }
}

/// The `csfq` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<CsfqConfig> = Declaration {
    about: About {
        name: "csfq",
        summary: "core-stateless fair queueing: rate labels from the edge, drops with probability 1 − α/label",
        reference: "Stoica, Shenker & Zhang, SIGCOMM 1998",
    },
    defaults: || (CsfqConfig::default(),),
    build: |(c,), port| {
        // K's default depends on the port: resolved here, so the resolved scenario shows it
        *c = c.clone().resolved(port);
        Ok(Box::new(Csfq::new(c.clone(), port)?))
    },
};

#[cfg(test)]
mod tests;
