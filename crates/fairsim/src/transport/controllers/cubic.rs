//! CUBIC's congestion window: the Linux default.
//!
//! Reference: RFC 9438 (L. Xu, S. Ha, I. Rhee, V. Goel, L. Eggert, "CUBIC for Fast and Long-
//! Distance Networks", 2023). After a loss the window follows
//! W_cubic(t) = C·(t − K)³ + W_max (§4.2, Figure 1), t the time since congestion avoidance
//! began and K = ∛((W_max − cwnd_epoch)/C) (Figure 2) the time it takes back to W_max: concave up
//! to the window of the last loss, flat around it, convex beyond. Each ACK moves cwnd by
//! (target − cwnd)/cwnd towards target = W_cubic(t + RTT), clamped to [cwnd, 1.5·cwnd] (§4.4).
//! Where Reno would do better (short round trips, small windows) the window follows Reno's
//! estimate W_est, grown by α_cubic = 3(1 − β)/(1 + β) per window and by 1 once it has reached
//! the window of the last loss (§4.3). A loss sets ssthresh = max(β·cwnd, 2) with β = 0.7 (§4.6),
//! and with fast convergence a flow whose window had not regrown to its last W_max lowers W_max
//! to cwnd·(1 + β)/2, leaving room to newcomers (§4.7). After a timeout the first congestion
//! avoidance starts with K = 0 and W_max the window at its start (§4.8).
//!
//! Choices and deviations: windows count packets (segments); slow start is RFC 5681's (RFC 9438
//! §4.10 allows it; HyStart++, RFC 9406, which Linux uses, is not modelled); "RTT" is a smoothed
//! round trip (gain 1/8) of the reliability layer's samples; W_max comes from cwnd, and ssthresh
//! is β of what `ssthresh_from` says: cwnd with the `linux` stack (Linux's reading of §4.6,
//! `bictcp_recalc_ssthresh`), the flight size with `classic` (§4.6's words), or the pipe (ns-3's
//! `TcpCubic`); fast recovery is the reliability layer's
//! (Reno's inflation, as for `reno`/`newreno`), the window after recovery is ssthresh; the
//! spurious-loss undo of §4.9 is not modelled. It keeps Jacobson's window (`aimd`) for slow start
//! and the recovery it shares with Reno, and replaces congestion avoidance and the decrease.

use super::aimd::{linux_stack, Aimd, AimdConfig};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::transport::reliability::controller::{Congestion, Controller, Load, NewAck, RttSample};
use crate::transport::reliability::reliable::{Recovery, Reliable, TcpReliability};
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::AgentCtx;
use crate::transport::sender::TransportDeclaration;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, the cubic's scaling constant, in packets per second cubed (RFC 9438: 0.4).
    pub c: f64,
    /// β_cubic, the multiplicative decrease factor (RFC 9438: 0.7).
    pub beta: f64,
    /// Fast convergence (§4.7): lower W_max when a loss comes before the window regrew to it.
    pub fast_convergence: bool,
    /// The Reno-friendly region (§4.3): never grow slower than Reno would.
    pub reno_friendly: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true }
    }
}

/// One congestion-avoidance epoch: from its first ACK until the next loss.
#[derive(Copy, Clone, Debug)]
struct Epoch {
    start: Time,
    /// K, seconds.
    k: f64,
    /// Reno's window estimate, packets.
    w_est: f64,
}

pub struct Cubic {
    /// Slow start and fast recovery, shared with Reno.
    pub(in crate::transport) aimd: Aimd,
    cfg: CubicConfig,
    /// The window of the last loss (lowered by fast convergence), packets.
    w_max: f64,
    /// cwnd just before the last reduction (where α_cubic turns to 1).
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// The first epoch after a timeout starts with K = 0 (§4.8).
    after_timeout: bool,
    srtt: Option<f64>,
}

impl Cubic {
    pub fn checked(cfg: CubicConfig, aimd: Aimd) -> Result<Cubic, ParamError> {
        if !(cfg.c > 0.0 && cfg.c.is_finite()) {
            return Err(ParamError::at("c", "must be above 0"));
        }
        if !(cfg.beta > 0.0 && cfg.beta < 1.0) {
            return Err(ParamError::at("beta", "must be between 0 and 1"));
        }
        Ok(Cubic { aimd, cfg, w_max: 0.0, cwnd_prior: 0.0, epoch: None, after_timeout: false, srtt: None })
    }

    /// W_cubic(t) of the epoch, packets.
    fn w_cubic(&self, k: f64, t: f64) -> f64 {
        self.cfg.c * (t - k).powi(3) + self.w_max
    }

    /// α_cubic: Reno's additive increase scaled so that its average window matches Reno's with
    /// β (§4.3), and 1 once W_est has passed the window of the last loss.
    fn alpha(&self, w_est: f64) -> f64 {
        let beta = self.cfg.beta;
        if w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - beta) / (1.0 + beta)
        }
    }

    /// The epoch under way, begun at `now` if none is (the first ACK of congestion avoidance).
    fn epoch(&mut self, now: Time) -> Epoch {
        if let Some(e) = self.epoch {
            return e;
        }
        let cwnd = self.aimd.cwnd;
        let k = if self.after_timeout || self.w_max <= cwnd {
            self.w_max = cwnd;
            0.0
        } else {
            ((self.w_max - cwnd) / self.cfg.c).cbrt()
        };
        self.after_timeout = false;
        let e = Epoch { start: now, k, w_est: cwnd };
        self.epoch = Some(e);
        e
    }
}

impl Controller for Cubic {
    super::aimd::reno_recovery!();

    fn on_rtt_sample(&mut self, sample: RttSample, _ctx: &mut AgentCtx) {
        self.srtt = Some(match self.srtt {
            None => sample.rtt_s,
            Some(s) => s + (sample.rtt_s - s) / 8.0,
        });
    }

    fn on_ack(&mut self, ack: NewAck, ctx: &mut AgentCtx) {
        if self.aimd.cwnd < self.aimd.ssthresh {
            self.aimd.on_ack(ack, ctx); // slow start
            return;
        }
        let mut e = self.epoch(ctx.now);
        let units = self.aimd.units(ack);
        let cwnd = self.aimd.cwnd;
        let t = (ctx.now - e.start).as_secs_f64();
        e.w_est += self.alpha(e.w_est) * units / cwnd;
        self.epoch = Some(e);
        let cubic_now = self.w_cubic(e.k, t);
        self.aimd.cwnd = if self.cfg.reno_friendly && cubic_now < e.w_est {
            e.w_est
        } else {
            let target = self.w_cubic(e.k, t + self.srtt.unwrap_or(0.0)).clamp(cwnd, 1.5 * cwnd);
            cwnd + units * (target - cwnd) / cwnd
        };
        self.aimd.cap_window();
    }

    fn on_congestion(&mut self, event: Congestion, load: Load, _win: &SendWindow, _ctx: &mut AgentCtx) {
        let cwnd = self.aimd.cwnd;
        let beta = self.cfg.beta;
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + beta) / 2.0 } else { cwnd };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_timeout = event == Congestion::Timeout;
        // RFC 9438 §4.6 reads flight_size, Linux (and RFC 9438's note) cwnd: `ssthresh_from`
        self.aimd.reduce(event, (self.aimd.loss_base(load) * beta).max(2.0));
    }
}

/// CUBIC with NewReno's loss recovery, as Linux pairs them (without SACK and PRR for now).
pub static DECLARATION: TransportDeclaration<(TcpReliability, AimdConfig, CubicConfig)> = Declaration {
    about: About {
        name: "cubic",
        summary: "TCP CUBIC: a cubic window curve around the window of the last loss (the Linux default)",
        reference: "RFC 9438",
    },
    defaults: || {
        let (r, a) = linux_stack();
        (r, a, CubicConfig::default())
    },
    build: |(r, a, c), _| {
        let cubic = Cubic::checked(c.clone(), Aimd::checked(a, r.window)?)?;
        Ok(Box::new(Reliable::tcp(r, Recovery::NewReno, cubic)?))
    },
};

#[cfg(test)]
mod tests;
