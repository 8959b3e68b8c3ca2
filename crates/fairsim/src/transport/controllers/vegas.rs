//! TCP Vegas's congestion avoidance and slow start.
//!
//! Reference: L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 13(8), 1995 (SIGCOMM 1994). BaseRTT is the smallest round-trip
//! time seen; once per round trip the sender compares the rate it expects, cwnd/BaseRTT, with
//! the rate it gets, cwnd/RTT, and takes diff = (expected − actual)·BaseRTT, in packets — the
//! number of its packets queued in the network. In congestion avoidance, diff < α adds one
//! packet to the window, diff > β removes one, otherwise the window holds; in slow start,
//! diff > γ ends it. Loss recovery is Reno's (see `tcp`).
//!
//! Choices (parameters): α = 1, β = 3, γ = 1 (the paper's defaults, as Hasegawa et al. 2001
//! recommend); "RTT" is the smallest sample of the round (the last window's packets);
//! samples come from the ACK's echo of its data packet's send time (a fine-grained clock, as
//! Vegas uses), so retransmissions give samples too. Leaving slow start, the window is cut by
//! an eighth (the paper's "decrease by 1/8"). Vegas's slow start doubling every *other* RTT and
//! its fine-grained timeout checks on duplicate ACKs are not modelled: slow start grows one
//! packet per ACK, and losses are detected as in Reno.
//!
//! A controller of its own (`Controller for Vegas`): it keeps Jacobson's window (`aimd`) for
//! what Vegas does not change — the response to a loss, fast recovery — and replaces its growth.

use super::aimd::AimdConfig;
use super::aimd::{linux_stack, Aimd};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::transport::reliability::controller::{Congestion, Controller, Load, NewAck, RttSample};
use crate::transport::reliability::reliable::{Recovery, Reliable, TcpReliability};
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, Series};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// Fewer of its packets queued than this, the window grows by one per round trip.
    pub alpha: f64,
    /// More than this, it shrinks by one.
    pub beta: f64,
    /// More than this ends slow start.
    pub gamma: f64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig { alpha: 1.0, beta: 3.0, gamma: 1.0 }
    }
}

pub struct Vegas {
    /// The window Vegas steers, and Reno's response to losses.
    pub(in crate::transport) aimd: Aimd,
    cfg: VegasConfig,
    base_rtt: f64,
    round_min_rtt: f64,
    /// The round ends when this packet is acknowledged.
    round_end: u64,
    round_done: bool,
}

impl Vegas {
    pub fn checked(cfg: VegasConfig, aimd: Aimd) -> Result<Vegas, ParamError> {
        if !(cfg.alpha >= 0.0 && cfg.beta >= cfg.alpha) {
            return Err(ParamError::at("beta", "Vegas needs 0 ≤ alpha ≤ beta"));
        }
        if cfg.gamma.is_nan() || cfg.gamma < 0.0 {
            return Err(ParamError::at("gamma", "must not be negative"));
        }
        Ok(Vegas { aimd, cfg, base_rtt: f64::INFINITY, round_min_rtt: f64::INFINITY, round_end: 0, round_done: false })
    }

    /// An RTT sample from the ACK of packet `ack` − 1; `nxt` is the next packet to be sent.
    fn on_rtt(&mut self, rtt: f64, ack: u64, nxt: u64) {
        self.base_rtt = self.base_rtt.min(rtt);
        self.round_min_rtt = self.round_min_rtt.min(rtt);
        if ack > self.round_end {
            self.round_done = true;
            self.round_end = nxt;
        }
    }

    fn on_loss(&mut self) {
        self.round_min_rtt = f64::INFINITY;
        self.round_done = false;
    }

    /// The packets this flow keeps queued, by Vegas's estimate.
    fn diff(&self, cwnd: f64) -> f64 {
        cwnd * (1.0 - self.base_rtt / self.round_min_rtt)
    }

    /// Window growth on a new ACK covering `units` (packets, or 1 per ACK).
    fn grow(&mut self, cwnd: &mut f64, ssthresh: &mut f64, units: f64, ctx: &mut AgentCtx) {
        let decide = std::mem::take(&mut self.round_done) && self.round_min_rtt.is_finite();
        let diff = decide.then(|| self.diff(*cwnd));
        if let Some(d) = diff {
            ctx.record(Series::RateEstimate, d);
            self.round_min_rtt = f64::INFINITY;
        }
        if *cwnd < *ssthresh {
            match diff {
                Some(d) if d > self.cfg.gamma => {
                    *cwnd = (*cwnd * 7.0 / 8.0).max(2.0);
                    *ssthresh = *cwnd;
                }
                _ => *cwnd += units,
            }
        } else if let Some(d) = diff {
            if d < self.cfg.alpha {
                *cwnd += 1.0;
            } else if d > self.cfg.beta {
                *cwnd = (*cwnd - 1.0).max(2.0);
                // still congestion avoidance: a smaller window must not look like slow start
                *ssthresh = ssthresh.min(*cwnd);
            }
        }
    }
}

impl Controller for Vegas {
    super::aimd::reno_recovery!();

    fn on_rtt_sample(&mut self, s: RttSample, _ctx: &mut AgentCtx) {
        self.on_rtt(s.rtt_s, s.ack, s.next);
    }

    fn on_ack(&mut self, ack: NewAck, ctx: &mut AgentCtx) {
        let units = self.aimd.units(ack);
        let (mut cwnd, mut ssthresh) = (self.aimd.cwnd, self.aimd.ssthresh);
        self.grow(&mut cwnd, &mut ssthresh, units, ctx);
        (self.aimd.cwnd, self.aimd.ssthresh) = (cwnd, ssthresh);
    }

    fn on_congestion(&mut self, event: Congestion, load: Load, win: &SendWindow, ctx: &mut AgentCtx) {
        self.aimd.on_congestion(event, load, win, ctx);
        self.on_loss();
    }
}

/// Vegas: its own controller, steering Jacobson's window, under Reno's loss recovery.
pub static DECLARATION: TransportDeclaration<(TcpReliability, AimdConfig, VegasConfig)> = Declaration {
    about: About {
        name: "vegas",
        summary: "TCP Vegas: window from expected vs actual rate once per RTT (alpha, beta, gamma)",
        reference: "Brakmo & Peterson, JSAC 1995",
    },
    defaults: || {
        let (r, a) = linux_stack();
        (r, a, VegasConfig::default())
    },
    build: |(r, a, v), _| {
        let vegas = Vegas::checked(v.clone(), Aimd::checked(a, r.window)?)?;
        Ok(Box::new(Reliable::tcp(r, Recovery::Reno, vegas)?))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn congestion_avoidance_moves_one_packet_per_round() {
        let aimd = Aimd::checked(&Default::default(), 64).unwrap();
        let mut v = Vegas::checked(VegasConfig::default(), aimd).unwrap();
        let mut actions = vec![];
        let mut ctx = AgentCtx::new(crate::units::Time::ZERO, u64::MAX, &mut actions);
        let (mut cwnd, mut ssthresh) = (10.0, 5.0);
        v.on_rtt(0.1, 1, 10); // first round: the RTT is the base, diff = 0 < α
        v.grow(&mut cwnd, &mut ssthresh, 1.0, &mut ctx);
        assert_eq!(cwnd, 11.0);
        v.on_rtt(0.2, 11, 20); // twice the base: half the window is queued, diff = 5.5 > β
        v.grow(&mut cwnd, &mut ssthresh, 1.0, &mut ctx);
        assert_eq!(cwnd, 10.0);
        // no decision before the round's last packet (19) is acknowledged
        v.on_rtt(0.3, 15, 30);
        v.grow(&mut cwnd, &mut ssthresh, 1.0, &mut ctx);
        assert_eq!(cwnd, 10.0);
    }
}
