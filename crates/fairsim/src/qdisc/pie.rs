//! PIE, proportional integral controller enhanced: drops arrivals at random with a probability
//! steered by the queueing delay.
//!
//! Reference: RFC 8033 (R. Pan, P. Natarajan, F. Baker, G. White, "Proportional Integral
//! Controller Enhanced (PIE): A Lightweight Control Scheme to Address the Bufferbloat Problem",
//! 2017). Every `t_update` (15 ms) the drop probability moves by
//! p = α·(qdelay − target) + β·(qdelay − qdelay_old) (§4.2), α = 0.125 and β = 1.25 per second,
//! scaled down while the probability is small (the auto-tuning table of §4.2: ÷2048 below
//! 0.000001, ÷512 below 0.00001, ÷128, ÷32, ÷8, ÷2 below 0.1), an increase capped at 2% once the
//! probability is 10% or more, and a 2% decay per update while the queue stays empty (§4.2).
//! An arrival is dropped with that probability (§4.1) except during the burst allowance
//! (`max_burst`, 150 ms, given back once the queue has been quiet, §4.4), when the delay was
//! under half the target and the probability under 20%, or when the queue holds at most two
//! packets of the mean size (§4.1's safeguards). The buffer's limit drops what it cannot hold.
//!
//! Choices and deviations: qdelay is the sojourn of the packet last dequeued (0 once the queue is
//! empty), the timestamp method of RFC 8033 §5.1 that Linux and ns-3 use by default, not the
//! departure-rate estimate; the periodic update has no timer of its own: each enqueue and
//! dequeue first applies every update that fell due before it, which gives the same sequence of
//! probabilities because the inputs do not change between packets (one by one up to 1000 in
//! one gap, and skipped once they change nothing; past 1000, which only a `t_update` far below
//! the packets' spacing reaches, the rest in closed form, equal up to rounding); the "mean packet size" of
//! the safeguard is the port's largest data packet; derandomization (§5.1's optional accumulated
//! probability) is a parameter, off by default as in Linux; drops are `early` drops; with `ecn`
//! an ECN-capable packet is marked instead while the probability is at most 10% (§5.1).

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketKind};
use crate::params::ParamError;
use crate::units::{BufferLimit, Time};
use rand::Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PieConfig {
    /// The queueing delay PIE steers towards (QDELAY_REF; RFC 8033: 15 ms).
    pub target: Time,
    /// How often the drop probability is updated (T_UPDATE; 15 ms).
    pub t_update: Time,
    /// α, per second: the weight of the delay's distance from target (0.125).
    pub alpha: f64,
    /// β, per second: the weight of the delay's change since the last update (1.25).
    pub beta: f64,
    /// Bursts are let through for this long after a quiet spell (MAX_BURST; 150 ms).
    pub max_burst: Time,
    /// RFC 8033 §5.1's derandomization: drops spaced by the accumulated probability.
    pub derandomize: bool,
    /// Mark ECN-capable packets instead of dropping them while the probability is at most 10%
    /// (RFC 8033 §5.1; above it, drop even those, as an overloaded queue must).
    pub ecn: bool,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: Time::from_millis(15),
            t_update: Time::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Time::from_millis(150),
            derandomize: false,
            ecn: false,
        }
    }
}

/// The controller: drop probability and what it is computed from.
#[derive(Clone, Debug)]
struct Controller {
    drop_prob: f64,
    qdelay: f64,
    qdelay_old: f64,
    /// Seconds of burst still allowed.
    burst_allowance: f64,
    /// Derandomization's accumulated probability.
    accu_prob: f64,
    next_update: Time,
}

pub struct Pie {
    cfg: PieConfig,
    queue: Fifo,
    limit: BufferLimit,
    /// Two packets of the port's largest data packet: a queue this short is never dropped from.
    small_queue: u64,
    ctl: Controller,
    early_drops: u64,
}

/// RFC 8033 §4.2's auto-tuning: below each bound, the divisor of a step.
const SCALE: [(f64, f64); 6] =
    [(0.000001, 2048.0), (0.00001, 512.0), (0.0001, 128.0), (0.001, 32.0), (0.01, 8.0), (0.1, 2.0)];

/// RFC 8033 §4.2's auto-tuning: the smaller the probability, the smaller its steps.
fn tuned(p: f64, drop_prob: f64) -> f64 {
    match SCALE.iter().find(|&&(below, _)| drop_prob < below) {
        Some(&(_, divisor)) => p / divisor,
        None => p,
    }
}

/// The range `[lo, hi)` of the auto-tuning table that `drop_prob` is in (the top one: [0.1, 1]).
fn tuning_range(drop_prob: f64) -> (f64, f64) {
    let mut lo = 0.0;
    for &(bound, _) in &SCALE {
        if drop_prob < bound {
            return (lo, bound);
        }
        lo = bound;
    }
    (lo, 1.0)
}

/// The largest probability below `x`, or 0.
fn below(x: f64) -> f64 {
    if x > 0.0 {
        f64::from_bits(x.to_bits() - 1)
    } else {
        0.0
    }
}

/// Updates applied one by one in a single gap between packets before the rest are applied in
/// closed form (`Pie::fast_forward`): 15 s of a queue that is not at rest at the default
/// `t_update`, longer than any gap in which the probability of a real queue still moves (from
/// 1 it decays to 0 in under 200 updates of an empty queue).
const EXACT_UPDATES: u32 = 1000;

impl Pie {
    pub fn new(cfg: PieConfig, port: &PortInfo) -> Result<Pie, ParamError> {
        if cfg.t_update == Time::ZERO {
            return Err(ParamError::at("t_update", "must be above 0s"));
        }
        for (name, v) in [("alpha", cfg.alpha), ("beta", cfg.beta)] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(ParamError::at(name, "must be 0 or more"));
            }
        }
        let largest = port
            .crossing
            .iter()
            .filter(|(_, kind)| *kind == PacketKind::Data)
            .map(|(f, _)| port.flows[f.idx()].packet_size as u64)
            .max()
            .unwrap_or(1500);
        let ctl = Controller {
            drop_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            burst_allowance: cfg.max_burst.as_secs_f64(),
            accu_prob: 0.0,
            next_update: cfg.t_update,
        };
        Ok(Pie { limit: port.buffer, small_queue: 2 * largest, queue: Fifo::default(), ctl, cfg, early_drops: 0 })
    }

    /// RFC 8033 §4.2 `calculate_drop_prob`, and §4.4's burst allowance, once.
    fn update(&mut self) {
        let (cfg, c) = (&self.cfg, &mut self.ctl);
        let target = cfg.target.as_secs_f64();
        let p = cfg.alpha * (c.qdelay - target) + cfg.beta * (c.qdelay - c.qdelay_old);
        let mut p = tuned(p, c.drop_prob);
        if c.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02; // no sudden jumps once the probability is high
        }
        c.drop_prob += p;
        if c.qdelay == 0.0 && c.qdelay_old == 0.0 {
            c.drop_prob *= 0.98; // the queue has been empty: decay
        }
        c.drop_prob = c.drop_prob.clamp(0.0, 1.0);
        // §4.4: a quiet queue earns its burst allowance back
        let quiet = c.drop_prob == 0.0 && c.qdelay < target / 2.0 && c.qdelay_old < target / 2.0;
        c.qdelay_old = c.qdelay;
        c.burst_allowance =
            if quiet { cfg.max_burst.as_secs_f64() } else { (c.burst_allowance - cfg.t_update.as_secs_f64()).max(0.0) };
    }

    /// Applies every periodic update due at or before `now`: one by one while they change the
    /// controller, as a timer would, and at once for the rest. A controller that an update
    /// leaves as it was (at rest, or pinned at a probability of 0 or 1 with its burst allowance
    /// spent or given back) stays so until the next packet, so the updates still due are
    /// skipped, exactly. Past `EXACT_UPDATES` updates in one gap (over 15 s of a queue that is
    /// not at rest, at the default `t_update`), the rest are applied in closed form
    /// (`fast_forward`), so that a tiny `t_update` costs no more than a few thousand steps
    /// per packet.
    fn catch_up(&mut self, now: Time) {
        let step = self.cfg.t_update.0;
        let mut applied = 0;
        while self.ctl.next_update <= now {
            // the updates due: this one and every whole period after it up to `now`
            let due = (now.0 - self.ctl.next_update.0) / step + 1;
            let c = &self.ctl;
            if c.drop_prob == 0.0
                && c.qdelay == 0.0
                && c.qdelay_old == 0.0
                && c.burst_allowance == self.cfg.max_burst.as_secs_f64()
            {
                // at rest: nothing changes until the next packet
                self.ctl.next_update.0 = self.ctl.next_update.0.saturating_add(due.saturating_mul(step));
                return;
            }
            let before = (c.drop_prob.to_bits(), c.qdelay_old.to_bits(), c.burst_allowance.to_bits());
            if applied == EXACT_UPDATES {
                self.fast_forward(due);
            } else {
                self.update();
            }
            let c = &self.ctl;
            let after = (c.drop_prob.to_bits(), c.qdelay_old.to_bits(), c.burst_allowance.to_bits());
            if applied == EXACT_UPDATES || before == after {
                // done, or at a fixed point: the updates still due change nothing
                self.ctl.next_update.0 = self.ctl.next_update.0.saturating_add(due.saturating_mul(step));
                return;
            }
            applied += 1;
            self.ctl.next_update += self.cfg.t_update;
        }
    }

    /// `n` updates at once, in closed form, while the delay holds (`qdelay_old` = `qdelay`,
    /// as after any update): within a range of the auto-tuning table every update moves the
    /// probability by the same step (and decays it by 2% while the queue is empty), so the
    /// probability after k of them is an arithmetic (or, with the decay, an arithmetico-geometric)
    /// sequence; the burst allowance drains by `t_update` each, or is given back by an update
    /// that finds the queue quiet. Equal to `n` calls of `update` up to the rounding of the sums.
    fn fast_forward(&mut self, mut n: u64) {
        let (cfg, c) = (&self.cfg, &mut self.ctl);
        let target = cfg.target.as_secs_f64();
        let tu = cfg.t_update.as_secs_f64();
        let max_burst = cfg.max_burst.as_secs_f64();
        let empty = c.qdelay == 0.0 && c.qdelay_old == 0.0;
        let lull = c.qdelay < target / 2.0 && c.qdelay_old < target / 2.0;
        let delta = cfg.alpha * (c.qdelay - target) + cfg.beta * (c.qdelay - c.qdelay_old);
        // at most two spans per range of the table, and one where nothing moves
        for _ in 0..64 {
            if n == 0 {
                break;
            }
            let dp = c.drop_prob;
            let mut s = tuned(delta, dp);
            if dp >= 0.1 && s > 0.02 {
                s = 0.02;
            }
            let (lo, hi) = tuning_range(dp);
            // how many updates this span lasts, and the probability after them
            let still = s == 0.0 || (dp == 0.0 && s < 0.0) || (dp == 1.0 && s > 0.0 && !empty);
            let (k, next) = if still && !empty {
                (n, dp)
            } else if empty {
                // x ← 0.98·(x + s), s ≤ 0: x_k = f + 0.98^k·(x − f), f = 49·s
                let f = 0.98 * s / (1.0 - 0.98);
                let k = if s == 0.0 || dp == 0.0 {
                    n
                } else {
                    // the first k with x_k < lo
                    let k = ((lo - f) / (dp - f)).ln() / 0.98f64.ln();
                    (k.floor() as u64).saturating_add(1).clamp(1, n)
                };
                let x = f + 0.98f64.powf(k as f64) * (dp - f);
                (k, if k < n { x.min(below(lo)) } else { x })
            } else if s > 0.0 {
                // the first k with x + k·s ≥ hi (1 in the top range, where it is held)
                let k = (((hi - dp) / s).ceil() as u64).clamp(1, n);
                let x = dp + k as f64 * s;
                (k, if k < n { x.max(hi) } else { x })
            } else {
                // the first k with x + k·s < lo
                let k = (((dp - lo) / -s).floor() as u64).saturating_add(1).clamp(1, n);
                let x = dp + k as f64 * s;
                (k, if k < n { x.min(below(lo)) } else { x })
            };
            c.drop_prob = next.clamp(0.0, 1.0);
            c.burst_allowance =
                if c.drop_prob == 0.0 && lull { max_burst } else { (c.burst_allowance - k as f64 * tu).max(0.0) };
            n -= k;
        }
        c.qdelay_old = c.qdelay;
    }

    /// RFC 8033 §4.1 `drop_early`, with §5.1's derandomization if chosen.
    fn drop_early(&mut self, rng: &mut crate::rng::SimRng) -> bool {
        let c = &mut self.ctl;
        if c.burst_allowance > 0.0 {
            return false;
        }
        let target = self.cfg.target.as_secs_f64();
        if (c.qdelay_old < target / 2.0 && c.drop_prob < 0.2) || self.queue.bytes() <= self.small_queue {
            return false;
        }
        if self.cfg.derandomize {
            if c.drop_prob == 0.0 {
                c.accu_prob = 0.0;
            }
            c.accu_prob += c.drop_prob;
            if c.accu_prob < 0.85 {
                return false;
            }
            if c.accu_prob >= 8.5 {
                c.accu_prob = 0.0;
                return true;
            }
        }
        let drop = rng.random::<f64>() < c.drop_prob;
        if drop {
            c.accu_prob = 0.0;
        }
        drop
    }
}

impl Qdisc for Pie {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        self.catch_up(ctx.now);
        let pkt = if self.drop_early(ctx.rng()) {
            let Some(marked) = ctx.signal(pkt, self.cfg.ecn && self.ctl.drop_prob <= 0.1) else {
                self.early_drops += 1;
                return;
            };
            marked
        } else {
            pkt
        };
        ctx.push_or_drop(&mut self.queue, self.limit, pkt);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.catch_up(ctx.now);
        let pkt = self.queue.pop(ctx.pool);
        self.ctl.qdelay = match &pkt {
            Some(p) if !self.queue.is_empty() => (ctx.now - p.enqueued_at).as_secs_f64(),
            _ => 0.0,
        };
        pkt
    }

    inspect_store!(queue);

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![("early_drops", self.early_drops as f64), ("drop_prob", self.ctl.drop_prob)]
    }

    fn gauge(&self) -> Option<(&'static str, f64)> {
        Some(("drop_prob", self.ctl.drop_prob))
    }
    fn chainable(&self) -> bool {
        true // drops only arrivals; its dequeue brings its own state up to the end
    }
}

pub static DECLARATION: QdiscDeclaration<PieConfig> = Declaration {
    about: About {
        name: "pie",
        summary: "PIE: random early drops with a probability steered by the queueing delay (PI control)",
        reference: "RFC 8033",
    },
    defaults: || (PieConfig::default(),),
    build: |(c,), port| Ok(Box::new(Pie::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests;
