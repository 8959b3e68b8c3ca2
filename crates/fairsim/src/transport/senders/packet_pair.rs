//! Packet-Pair flow control, PP_CTH: rate-based, probing the bottleneck with pairs of packets.
//!
//! Reference: Keshav 1991, chapters 4 and 5 (and "A Control-Theoretic Approach to Flow Control",
//! SIGCOMM 1991). Behind Fair Queueing gateways a conversation's packets are served at a rate of
//! their own, so two packets sent back to back come back as ACKs spaced by the bottleneck's
//! service time: every pair is a probe of the service rate μ. PP_CTH sends pairs, predicts μ
//! from the probes with the fuzzy averager (`fuzzy`), and after every probe sets its sending rate
//! by the control law (`pp_law`, eq. 5.14) so as to keep `setpoint` packets (B/2) queued at the
//! bottleneck. Start-up: one pair; the first packet's round trip estimates the propagation delay
//! R, the pair's spacing the first μ. Pairs then leave every 2/λ. A window (5 in the thesis)
//! caps the packets outstanding. Losses (`timers`): one timer per packet of `timeout_factor`
//! (X = 3) round trips, doubling for a packet each time it times out (§4.4, `per_packet`: the
//! chapter-6 simulations implement chapter 4, `pp_timers`, and the thesis's reproduction uses
//! it); or the single timer that §7 suggests (`single`, the default): re-armed at every
//! transmission, on expiry the oldest unacknowledged packet is sent again and the timeout
//! doubles until new data is acknowledged. A timed-out packet is sent at the next opportunity.
//! The default is the single timer because per-packet timers are fragile where the queue
//! builds after the first round trips: in a 1 Mb/s FQ dumbbell with windows of 20 (the test
//! `packet_pair_probes_find_the_fair_share_behind_fair_queueing`) packets sent while the
//! smoothed round trip was still short time out spuriously, their duplicates lengthen the
//! queue, and the timeouts cascade (420 drops of one PP flow in 200 s against none).
//!
//! Choices the thesis leaves open (parameters where it matters):
//! - `law = "per_probe"` (eq. 5.14, J = the smoothed round trip; default, as PP_CTH) or
//!   `"per_epoch"` (eq. 5.9 with gain `alpha` = 0.9, applied once per round trip, with
//!   n̂_b = S − R·μ̂);
//! - the probe is μ = 1 / (spacing of the pair's two ACKs); it is predicted, not the spacing;
//! - the rate is kept within [μ̂/10, 4·μ̂], so that probing never stops and a bad estimate of
//!   the queue cannot send a burst;
//! - no queue-priming burst (the law builds the queue up to the setpoint by itself) and no drift
//!   correction (n̂_b is recomputed from S and R at every probe, so it does not drift);
//! - retransmissions go before new data; a tick that finds the window full sends nothing;
//! - a pair one of whose packets is retransmitted is dropped from the probes: its ACKs' spacing
//!   measures the wait for the retransmission, and taken as a probe it drives the estimate, and
//!   with it the rate, to almost nothing (a flow of the thesis's Scenario 3 starved that way).

use super::fuzzy::{Fuzzy, FuzzyConfig};
use super::pp_law;
use super::pp_timers::PacketTimers;
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::transport::reliability::window::{SendWindow, WindowLimit};
use crate::transport::sender::TimerId;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, Event, Sender, Series};
use crate::units::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Law {
    #[default]
    PerProbe,
    PerEpoch,
}

/// How losses are timed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Timers {
    /// One timer per packet (thesis §4.4).
    PerPacket,
    /// One timer per conversation (thesis §7).
    #[default]
    Single,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PacketPairConfig {
    /// Most packets outstanding, whatever the rate allows.
    pub window: u32,
    /// Packets to keep queued at the bottleneck (B/2; 5 in the thesis's simulations).
    pub setpoint: f64,
    /// The control law: once per probe, or once per epoch with gain `alpha`.
    pub law: Law,
    /// Gain of the per-epoch law.
    pub alpha: f64,
    /// Timeout in round trips.
    pub timeout_factor: f64,
    /// One retransmission timer per packet, or one per conversation.
    pub timers: Timers,
    /// Before the first round trip is measured.
    pub initial_timeout: Time,
    /// Fuzzy predictor: a relative prediction error below this is low.
    pub error_low: f64,
    /// Fuzzy predictor: the middle of the medium-error band.
    pub error_mid: f64,
    /// Fuzzy predictor: above this the error is high.
    pub error_high: f64,
    /// Fuzzy predictor: the averaging weight when the error is high.
    pub out_low: f64,
    /// Fuzzy predictor: the averaging weight when the error is low.
    pub out_high: f64,
}

impl Default for PacketPairConfig {
    fn default() -> Self {
        let f = FuzzyConfig::default();
        PacketPairConfig {
            window: 5,
            setpoint: 5.0,
            law: Law::PerProbe,
            alpha: 0.9,
            timeout_factor: 3.0,
            timers: Timers::Single,
            initial_timeout: Time::from_secs(3),
            error_low: f.error_low,
            error_mid: f.error_mid,
            error_high: f.error_high,
            out_low: f.out_low,
            out_high: f.out_high,
        }
    }
}

const RETRANSMIT: TimerId = TimerId(0);
const TICK: TimerId = TimerId(1);

pub struct PacketPair {
    cfg: PacketPairConfig,
    win: SendWindow,
    mu: Fuzzy,
    /// Propagation delay estimate R, smoothed round trip, sending rate λ (packets/s).
    prop: Option<f64>,
    rtt: Option<f64>,
    rate: f64,
    /// Pairs in flight (first, second), and the ACK time of a pair's first packet.
    pairs: VecDeque<(u64, u64)>,
    first_acked: Option<(u64, Time)>,
    retransmit: VecDeque<u64>,
    /// The single timer's doubling.
    backoff: f64,
    /// The timers of `Timers::PerPacket`.
    packet_timers: PacketTimers,
    ticking: bool,
    /// Per-epoch law: decide on the first probe sent after this sequence number.
    epoch_from: u64,
    /// Whether the window held back the last pair the rate allowed, until an ACK opens it.
    window_limit: WindowLimit,
}

impl PacketPair {
    pub fn checked(cfg: PacketPairConfig) -> Result<PacketPair, ParamError> {
        if cfg.window < 2 {
            return Err(ParamError::at("window", "Packet-Pair sends pairs: the window must be at least 2"));
        }
        if cfg.setpoint.is_nan() || cfg.setpoint < 0.0 {
            return Err(ParamError::at("setpoint", "must not be negative"));
        }
        if !(cfg.alpha > 0.0 && cfg.alpha <= 1.0) {
            return Err(ParamError::at("alpha", "the gain is in (0, 1] (stable below 1)"));
        }
        // a timeout of zero would fire again at the instant it was set, for ever
        if cfg.initial_timeout == Time::ZERO {
            return Err(ParamError::at("initial_timeout", "must be longer than 0s"));
        }
        if !(cfg.timeout_factor > 0.0 && cfg.timeout_factor.is_finite()) {
            return Err(ParamError::at("timeout_factor", "must be a positive number"));
        }
        let mu = Fuzzy::new(&FuzzyConfig {
            error_low: cfg.error_low,
            error_mid: cfg.error_mid,
            error_high: cfg.error_high,
            out_low: cfg.out_low,
            out_high: cfg.out_high,
        });
        Ok(PacketPair {
            cfg,
            win: SendWindow::default(),
            mu,
            prop: None,
            rtt: None,
            rate: 0.0,
            pairs: VecDeque::new(),
            first_acked: None,
            retransmit: VecDeque::new(),
            backoff: 1.0,
            packet_timers: PacketTimers::default(),
            ticking: false,
            window_limit: WindowLimit::default(),
            epoch_from: 0,
        })
    }

    /// The single timer's timeout: X·r_t (the initial timeout before a round trip is known),
    /// doubled by the backoff.
    fn timeout(&self) -> Time {
        match self.rtt {
            Some(r) => Time::from_secs_f64(self.cfg.timeout_factor * r * self.backoff),
            None => Time(self.cfg.initial_timeout.0.saturating_mul(self.backoff as u64)),
        }
    }

    /// A packet's first timeout: X·r_t, or the initial timeout.
    fn packet_timeout(&self) -> Time {
        match self.rtt {
            Some(r) => Time::from_secs_f64(self.cfg.timeout_factor * r),
            None => self.cfg.initial_timeout,
        }
    }

    /// Arms the engine's timer for the earliest packet timer, or stops it.
    fn arm_packet_timers(&self, ctx: &mut AgentCtx) {
        match self.packet_timers.next_deadline() {
            Some(at) => ctx.set_timeout(RETRANSMIT, at),
            None => ctx.cancel_timer(RETRANSMIT),
        }
    }

    /// Sends up to two packets back to back: retransmissions first (they are already counted in
    /// the window), then new packets if the window allows.
    fn send_pair(&mut self, ctx: &mut AgentCtx) {
        let mut sent = vec![];
        while sent.len() < 2 {
            if let Some(seq) = self.retransmit.pop_front() {
                if seq >= self.win.una() {
                    self.forget_pairs_with(seq);
                    self.win.resend(seq);
                    ctx.send(seq);
                    sent.push(seq);
                }
            } else if self.win.can_send(self.cfg.window as u64, ctx.app_limit) {
                let seq = self.win.send_next(ctx.now);
                ctx.send(seq);
                sent.push(seq);
            } else {
                break;
            }
        }
        if let [a, b] = sent[..] {
            self.pairs.push_back((a, b));
            if self.pairs.len() > self.cfg.window as usize {
                self.pairs.pop_front();
            }
        }
        match self.cfg.timers {
            Timers::Single if !sent.is_empty() => ctx.set_timeout(RETRANSMIT, ctx.now + self.timeout()),
            Timers::Single => {}
            Timers::PerPacket => {
                let base = self.packet_timeout();
                for &seq in &sent {
                    self.packet_timers.sent(seq, ctx.now, base);
                }
                if !sent.is_empty() {
                    self.arm_packet_timers(ctx);
                }
            }
        }
        ctx.record(Series::Outstanding, self.win.in_flight() as f64);
        let held_back = self.retransmit.is_empty() && self.window_full(ctx);
        self.window_limit.update(held_back, ctx);
    }

    /// Whether the window is full while the application has more data.
    fn window_full(&self, ctx: &AgentCtx) -> bool {
        self.win.full_with_data_waiting(self.cfg.window as u64, ctx.app_limit)
    }

    /// A pair one of whose packets is sent again is no probe: its ACKs would be spaced by the
    /// wait for the retransmission, not by the bottleneck's service.
    fn forget_pairs_with(&mut self, seq: u64) {
        let Some(&(first, _)) = self.pairs.iter().find(|p| p.0 == seq || p.1 == seq) else { return };
        self.pairs.retain(|p| p.0 != first);
        if self.first_acked.is_some_and(|f| f.0 == first) {
            self.first_acked = None;
        }
    }

    fn schedule_tick(&mut self, ctx: &mut AgentCtx) {
        if self.rate > 0.0 {
            ctx.set_timer(TICK, ctx.now + Time::from_secs_f64(2.0 / self.rate));
            self.ticking = true;
        }
    }

    /// A probe: the pair's ACKs came `spacing` seconds apart; `first` is its first packet.
    fn probe(&mut self, first: u64, spacing: f64, ctx: &mut AgentCtx) {
        let observed = 1.0 / spacing.max(1e-9);
        let mu = self.mu.observe(observed);
        ctx.record(Series::Probe, observed);
        ctx.record(Series::RateEstimate, mu);
        ctx.record(Series::Weight, self.mu.weight());
        let (Some(prop), Some(rtt)) = (self.prop, self.rtt) else { return };
        let outstanding = self.win.in_flight() as f64;
        let rate = match self.cfg.law {
            Law::PerProbe => pp_law::per_probe(self.cfg.setpoint, outstanding, prop, mu, rtt),
            Law::PerEpoch => {
                if first < self.epoch_from && self.rate > 0.0 {
                    return;
                }
                self.epoch_from = self.win.nxt();
                let queue = pp_law::queue_estimate(outstanding, prop, mu);
                pp_law::per_epoch(self.cfg.alpha, self.cfg.setpoint, queue, outstanding, mu, rtt)
            }
        };
        self.rate = rate.clamp(mu / 10.0, 4.0 * mu);
        ctx.record(Series::Rate, self.rate);
        if !self.ticking {
            self.schedule_tick(ctx);
        }
    }
}

impl Sender for PacketPair {
    fn has_window_limit(&self) -> bool {
        true
    }

    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.send_pair(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        // before the first probe, or with the clock stopped for lack of data
        if !self.ticking {
            self.send_pair(ctx);
        }
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        let sample = (ctx.now - ack.echo_sent_at).as_secs_f64();
        if self.prop.is_none() {
            self.prop = Some(sample); // the first packet of the first pair
        }
        self.rtt = Some(self.rtt.map_or(sample, |r| 0.875 * r + 0.125 * sample));
        let advanced = self.win.on_ack(ack.seq).is_some();
        if !self.window_full(ctx) {
            self.window_limit.update(false, ctx); // the next tick may send
        }
        match self.cfg.timers {
            Timers::Single if advanced => {
                self.backoff = 1.0;
                if self.win.in_flight() > 0 {
                    ctx.set_timeout(RETRANSMIT, ctx.now + self.timeout());
                } else {
                    ctx.cancel_timer(RETRANSMIT);
                }
            }
            Timers::Single => {}
            Timers::PerPacket => {
                self.packet_timers.acked(ack.echo_seq, self.win.una());
                self.arm_packet_timers(ctx);
            }
        }
        let echo = ack.echo_seq;
        if let Some(&(first, _)) = self.pairs.iter().find(|p| p.0 == echo || p.1 == echo) {
            if echo == first {
                self.first_acked = Some((first, ctx.now));
            } else if let Some((_, t)) = self.first_acked.filter(|f| f.0 == first) {
                self.pairs.retain(|p| p.0 != first);
                self.first_acked = None;
                self.probe(first, (ctx.now - t).as_secs_f64(), ctx);
            }
        }
        if !self.ticking && self.win.in_flight() == 0 && self.prop.is_some() {
            // the start-up pair was not a probe (lost half): keep going at the line's pace
            self.send_pair(ctx);
        }
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx) {
        if timer == TICK {
            self.ticking = false;
            self.send_pair(ctx);
            self.schedule_tick(ctx);
            return;
        }
        if self.win.in_flight() == 0 {
            return;
        }
        match self.cfg.timers {
            Timers::Single => {
                ctx.count(Event::Timeout);
                let oldest = self.win.una();
                if !self.retransmit.contains(&oldest) {
                    self.retransmit.push_front(oldest);
                }
                self.backoff = (self.backoff * 2.0).min(64.0);
                ctx.set_timeout(RETRANSMIT, ctx.now + self.timeout());
            }
            Timers::PerPacket => {
                let expired = self.packet_timers.expire(ctx.now);
                for &seq in expired.iter().rev() {
                    ctx.count(Event::Timeout);
                    if !self.retransmit.contains(&seq) {
                        self.retransmit.push_front(seq);
                    }
                }
                self.arm_packet_timers(ctx);
            }
        }
        if !self.ticking {
            self.send_pair(ctx);
            self.schedule_tick(ctx);
        }
    }
}

/// Packet-Pair, a whole sender.
pub static DECLARATION: TransportDeclaration<(PacketPairConfig,)> = Declaration {
    about: About {
        name: "pp",
        summary: "Packet-Pair (PP_CTH): rate from pair probes, fuzzy predictor, setpoint control law",
        reference: "Keshav 1991, chapters 4-5 (needs fair-queueing gateways)",
    },
    defaults: || (PacketPairConfig::default(),),
    build: |(c,), _| Ok(Box::new(PacketPair::checked(c.clone())?)),
};
