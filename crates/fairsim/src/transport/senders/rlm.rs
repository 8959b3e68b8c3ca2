//! RLM: Receiver-driven Layered Multicast, emulated over a unicast path. The source offers
//! `layers` cumulative layers, layer i a constant-rate stream of `base_rate`·2^(i−1); the
//! receiver subscribes to layers 1..k, adds one by a *join experiment* when its join timer fires
//! and drops one when an experiment causes loss or when loss stays above a threshold.
//!
//! Reference: S. McCanne, V. Jacobson and M. Vetterli, "Receiver-driven Layered Multicast",
//! SIGCOMM 1996; the state machine and constants of its ns-2 implementation (`tcl/rlm/rlm.tcl`),
//! which is what the CSFQ paper (Stoica, Shenker & Zhang 1998, §3.3) ran:
//! - states steady (S), hysteresis (H), measurement (M), drop (D);
//! - one join timer per level: the next experiment comes after I/2 + an exponential draw of mean
//!   I (below 4I), I the timer of the level to add; a failed experiment doubles it (`alpha`, up
//!   to `max_join`) for that level and every level above; in S each detection period relaxes the
//!   current level's timer by `beta`, not below `init_join`;
//! - a loss (a gap in a layer's sequence numbers) while our own experiment is recent — within
//!   TD + 2·TDVAR of it — fails the experiment: the layer is dropped, and the time from the join to
//!   the loss updates the detection-time estimate TD, TDVAR (gains 1/4);
//! - any other loss in S leads through H (waiting TD + 1.5·TDVAR) to M, where a loss rate above
//!   `loss_threshold` (over at least `min_packets` packets) drops a layer.
//!
//! Emulation: with one receiver, the multicast tree is the unicast path. The receiver's state
//! machine runs at the source and learns which packets arrived from the sink's per-packet ACKs
//! (the ACK echoes the packet that caused it), so it sees a loss one ACK trip later than a real
//! receiver would; a subscription change takes effect at the source at once, as a graft or prune
//! reaching the source after the same trip would. Deviations from ns-2, both to keep the
//! receiver alive: the join timer is re-armed after a layer is dropped from the top level (ns-2
//! stops experimenting for good once it has joined every layer), and the base layer is never
//! dropped (ns-2 can fall to no layer and never rejoin). Each layer's packets leave at gaps of
//! the mean scaled by U[1 − jitter, 1 + jitter) (ns-2's `random_`).

use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::transport::sender::TimerId;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, Sender, Series};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RlmConfig {
    /// Number of layers.
    pub layers: u32,
    /// Rate of layer 1; layer i sends base_rate·2^(i−1).
    pub base_rate: Rate,
    /// Each layer's packet gaps are scaled by U[1 − jitter, 1 + jitter).
    pub jitter: f64,
    /// Backoff factor of a failed join experiment.
    pub alpha: f64,
    /// Relaxation factor of the join timer in steady state.
    pub beta: f64,
    /// The join timer at the start.
    pub init_join: Time,
    /// The join timer's upper bound.
    pub max_join: Time,
    /// The detection time (how long to wait for loss after a join) at the start.
    pub init_detect: Time,
    /// Its initial deviation.
    pub init_detect_var: Time,
    /// Gain of the detection-time estimator.
    pub gain: f64,
    /// Loss rate over which a layer is dropped.
    pub loss_threshold: f64,
    /// Packets to see before a loss rate is judged.
    pub min_packets: u32,
}

impl Default for RlmConfig {
    fn default() -> Self {
        RlmConfig {
            layers: 7,
            base_rate: Rate(32_000),
            jitter: 0.5,
            alpha: 2.0,
            beta: 0.75,
            init_join: Time::from_secs(5),
            max_join: Time::from_secs(60),
            init_detect: Time::from_secs(5),
            init_detect_var: Time::from_secs(2),
            gain: 0.25,
            loss_threshold: 0.25,
            min_packets: 10,
        }
    }
}

const SEND: TimerId = TimerId(0);
const JOIN: TimerId = TimerId(1);
const DETECT: TimerId = TimerId(2);

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Steady,
    Hysteresis,
    Measure,
    Drop,
}

pub struct Rlm {
    cfg: RlmConfig,
    rng: SimRng,
    /// Mean gap between packets of each layer, seconds.
    gap: Vec<f64>,
    next_send: Vec<Time>,
    /// Next sequence number within each layer, and the global sequence of the next packet.
    layer_seq: Vec<u64>,
    next_seq: u64,
    /// (global seq, layer, layer seq) of packets sent and not yet acknowledged.
    in_flight: VecDeque<(u64, usize, u64)>,
    sub: usize,
    state: State,
    join_timer: Vec<f64>,
    join_at: Vec<f64>,
    added_at: Vec<f64>,
    packets_at_add: Vec<u64>,
    received: Vec<u64>,
    lost: Vec<u64>,
    expected: Vec<Option<u64>>,
    detect: f64,
    detect_var: f64,
    measure_from: (u64, u64),
}

impl Rlm {
    /// `rng`: the sender's own stream (the layers' jitter and the join timers' draws).
    pub fn checked(cfg: RlmConfig, packet_size: u32, rng: SimRng) -> Result<Rlm, ParamError> {
        if !(1..=20).contains(&cfg.layers) {
            return Err(ParamError::at("layers", "between 1 and 20 layers"));
        }
        if cfg.base_rate.0 == 0 {
            return Err(ParamError::at("base_rate", "must be positive"));
        }
        if !(0.0..1.0).contains(&cfg.jitter) {
            return Err(ParamError::at("jitter", "a fraction in [0, 1)"));
        }
        if !(cfg.alpha >= 1.0 && cfg.alpha.is_finite() && (0.0..=1.0).contains(&cfg.beta)) {
            return Err(ParamError::at("alpha", "alpha ≥ 1 and beta in [0, 1]"));
        }
        // a join timer of zero would draw its delay forever (the draw is redrawn until below 4·I)
        if cfg.init_join == Time::ZERO {
            return Err(ParamError::at("init_join", "must be longer than 0s"));
        }
        if cfg.max_join < cfg.init_join {
            return Err(ParamError::at("max_join", "must be at least init_join"));
        }
        if !(cfg.gain > 0.0 && cfg.gain <= 1.0) {
            return Err(ParamError::at("gain", "a gain in (0, 1]"));
        }
        if !(cfg.loss_threshold > 0.0 && cfg.loss_threshold < 1.0) {
            return Err(ParamError::at("loss_threshold", "a fraction in (0, 1)"));
        }
        let n = cfg.layers as usize;
        let gap = (0..n).map(|i| packet_size as f64 * 8.0 / (cfg.base_rate.0 as f64 * 2f64.powi(i as i32))).collect();
        let init = cfg.init_join.as_secs_f64();
        Ok(Rlm {
            rng,
            gap,
            next_send: vec![Time::ZERO; n],
            layer_seq: vec![0; n],
            next_seq: 0,
            in_flight: VecDeque::new(),
            sub: 1,
            state: State::Steady,
            join_timer: vec![init; n],
            join_at: vec![f64::NEG_INFINITY; n],
            added_at: vec![0.0; n],
            packets_at_add: vec![0; n],
            received: vec![0; n],
            lost: vec![0; n],
            expected: vec![None; n],
            detect: cfg.init_detect.as_secs_f64(),
            detect_var: cfg.init_detect_var.as_secs_f64(),
            measure_from: (0, 0),
            cfg,
        })
    }

    /// The layers subscribed to (1..=layers).
    pub fn subscription(&self) -> usize {
        self.sub
    }

    fn recent(&self, t: f64, now: f64) -> bool {
        now < t + self.detect + 2.0 * self.detect_var
    }

    fn rate_pps(&self) -> f64 {
        self.gap[..self.sub].iter().map(|g| 1.0 / g).sum()
    }

    /// The next gap of a layer; at least 1 ns, so that a layer faster than the clock still
    /// leaves one packet per event rather than looping at one instant.
    fn jittered(&mut self, layer: usize) -> Time {
        let factor = crate::traffic::jitter_factor(self.cfg.jitter, &mut self.rng);
        Time::from_secs_f64(self.gap[layer] * factor).max(Time(1))
    }

    /// Sends every subscribed layer's packets that are due, and sets the timer for the next.
    fn send_due(&mut self, ctx: &mut AgentCtx) {
        for layer in 0..self.sub {
            while self.next_send[layer] <= ctx.now {
                let seq = self.next_seq;
                self.next_seq += 1;
                self.in_flight.push_back((seq, layer, self.layer_seq[layer]));
                self.layer_seq[layer] += 1;
                ctx.send(seq);
                let gap = self.jittered(layer);
                self.next_send[layer] += gap;
            }
        }
        if let Some(next) = self.next_send[..self.sub].iter().min() {
            ctx.set_timer(SEND, *next);
        }
    }

    fn arm_join(&mut self, ctx: &mut AgentCtx) {
        if self.sub == self.cfg.layers as usize {
            return;
        }
        let i = self.join_timer[self.sub];
        let mut draw = f64::INFINITY;
        while draw >= 4.0 * i {
            draw = crate::traffic::exponential(i, &mut self.rng);
        }
        ctx.set_timer(JOIN, ctx.now + Time::from_secs_f64(i / 2.0 + draw).max(Time(1)));
    }

    fn arm_detect(&mut self, ctx: &mut AgentCtx, periods: f64) {
        let t = self.detect + periods * self.detect_var;
        // never at the same instant: a detection time estimated down to zero would loop there
        ctx.set_timer(DETECT, ctx.now + Time::from_secs_f64(t).max(Time(1)));
    }

    fn add_layer(&mut self, ctx: &mut AgentCtx) {
        let layer = self.sub;
        self.sub += 1;
        self.expected[layer] = None;
        self.packets_at_add[layer] = self.received[layer];
        let now = ctx.now.as_secs_f64();
        self.added_at[layer] = now;
        self.join_at[layer] = now;
        self.next_send[layer] = ctx.now;
        ctx.record(Series::Rate, self.rate_pps());
        self.send_due(ctx);
    }

    fn drop_layer(&mut self, ctx: &mut AgentCtx) {
        if self.sub > 1 {
            self.sub -= 1;
            ctx.record(Series::Rate, self.rate_pps());
        }
        self.state = State::Drop;
        self.arm_detect(ctx, 1.5);
        self.arm_join(ctx);
    }

    fn on_loss(&mut self, ctx: &mut AgentCtx) {
        let now = ctx.now.as_secs_f64();
        match self.state {
            State::Measure => {
                let received: u64 = self.received.iter().sum::<u64>() - self.measure_from.0;
                if received >= self.cfg.min_packets as u64 {
                    let lost = self.lost.iter().sum::<u64>() - self.measure_from.1;
                    if lost as f64 / (lost + received) as f64 > self.cfg.loss_threshold {
                        ctx.cancel_timer(DETECT);
                        self.drop_layer(ctx);
                    }
                }
            }
            State::Steady => {
                ctx.cancel_timer(DETECT);
                let failed = (0..self.sub.min(self.join_at.len())).rev().find(|&l| self.recent(self.join_at[l], now));
                if let Some(level) = failed {
                    let cap = self.cfg.max_join.as_secs_f64();
                    self.join_timer[level] = (self.cfg.alpha * self.join_timer[level]).min(cap);
                    for m in level + 1..self.join_timer.len() {
                        self.join_timer[m] = self.join_timer[m].max(self.join_timer[level]);
                    }
                    if level + 1 == self.sub {
                        let d = now - self.join_at[level];
                        let g = self.cfg.gain;
                        self.detect_var = (1.0 - g) * self.detect_var + g * (d - self.detect).abs();
                        self.detect = (1.0 - g) * self.detect + g * d;
                        self.join_at[level] = f64::NEG_INFINITY;
                        self.drop_layer(ctx);
                        return;
                    }
                }
                if self.recent(self.added_at[self.sub - 1], now) {
                    self.enter_measure(ctx);
                } else {
                    self.state = State::Hysteresis;
                    self.arm_detect(ctx, 1.5);
                }
            }
            State::Hysteresis | State::Drop => {}
        }
    }

    fn enter_measure(&mut self, ctx: &mut AgentCtx) {
        self.state = State::Measure;
        self.measure_from = (self.received.iter().sum(), self.lost.iter().sum());
        let periods = self.sub as f64 / 2.0 + 1.5;
        self.arm_detect(ctx, periods);
    }

    /// The packet at the top layer has arrived since it was joined.
    fn top_receiving(&mut self, now: f64) -> bool {
        let top = self.sub - 1;
        if self.received[top] != self.packets_at_add[top] {
            return true;
        }
        if now - self.added_at[top] > self.detect {
            self.detect = 1.2 * (now - self.added_at[top]);
        }
        false
    }
}

impl Sender for Rlm {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.next_send[0] = ctx.now;
        ctx.record(Series::Rate, self.rate_pps());
        self.send_due(ctx);
        self.arm_join(ctx);
    }

    fn on_data(&mut self, _ctx: &mut AgentCtx) {}

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        // the ACK names the packet that reached the receiver: everything sent before it and not
        // acknowledged is either lost or overtaken; a layer's gap in sequence is a loss event
        while let Some(&(seq, layer, lseq)) = self.in_flight.front() {
            if seq > ack.echo_seq {
                break;
            }
            self.in_flight.pop_front();
            if seq != ack.echo_seq || layer >= self.sub {
                continue;
            }
            self.received[layer] += 1;
            let gap = match self.expected[layer] {
                Some(e) if lseq > e => lseq - e,
                _ => 0,
            };
            self.expected[layer] = Some(lseq + 1);
            if gap > 0 {
                self.lost[layer] += gap;
                self.on_loss(ctx);
            }
        }
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx) {
        let now = ctx.now.as_secs_f64();
        match timer {
            SEND => self.send_due(ctx),
            JOIN => {
                let pending = (0..self.sub).any(|l| self.recent(self.join_at[l], now));
                if self.state == State::Steady && !pending && self.top_receiving(now) {
                    self.add_layer(ctx);
                }
                self.arm_join(ctx);
            }
            _ => match self.state {
                State::Hysteresis => self.enter_measure(ctx),
                State::Drop | State::Measure => {
                    self.state = State::Steady;
                    self.arm_detect(ctx, 1.5);
                }
                State::Steady => {
                    let top = self.sub - 1;
                    let floor = self.cfg.init_join.as_secs_f64();
                    self.join_timer[top] = (self.cfg.beta * self.join_timer[top]).max(floor);
                    self.arm_detect(ctx, 1.5);
                }
            },
        }
    }
}

/// RLM, a whole sender: its layers are the source.
pub static DECLARATION: TransportDeclaration<(RlmConfig,)> = Declaration {
    about: About {
        name: "rlm",
        summary: "receiver-driven layered multicast, one receiver: join experiments add layers, loss drops them",
        reference: "McCanne, Jacobson & Vetterli, SIGCOMM 1996 (ns-2's rlm.tcl constants)",
    },
    defaults: || (RlmConfig::default(),),
    build: |(c,), flow| {
        if !flow.unending {
            return Err(ParamError::new(
                "RLM sends its layers at their own rates and carries no application's data: use app = \"ftp\" without `size`",
            ));
        }
        let rng = crate::rng::stream(flow.seed, &format!("rlm:{}", flow.name));
        Ok(Box::new(Rlm::checked(c.clone(), flow.packet_size, rng)?))
    },
};
