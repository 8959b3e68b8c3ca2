//! BBR v1: a sender that measures the path instead of reading losses as congestion.
//!
//! References: N. Cardwell, Y. Cheng, C. S. Gunn, S. H. Yeganeh, V. Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016; for the constants and the rules
//! the paper leaves out, draft-cardwell-iccrg-bbr-congestion-control-00 (2017) and Linux's
//! `net/ipv4/tcp_bbr.c` as of v1 (4.9, with the later v1 fixes noted below); delivery-rate
//! samples per draft-cheng-iccrg-delivery-rate-estimation-00 (`reliability/delivery_rate.rs`, shared with the controllers written in Python).
//!
//! The model (BtlBw, RTprop) and its four modes, as modelled here:
//! - BtlBw is the largest delivery-rate sample of the last 10 round trips (rounds counted by
//!   packet-timed round trips: a round ends when a packet sent after it began is delivered);
//!   application-limited samples count only if they raise it. RTprop (`min_rtt`) is the smallest
//!   round trip of the last 10 s. BDP = BtlBw·min_rtt.
//! - STARTUP paces at 2/ln 2 ≈ 2.885·BtlBw with cwnd 2.885·BDP (doubling each round); it ends
//!   once BtlBw has not grown 25% in 3 non-application-limited rounds.
//! - DRAIN paces at ln 2/2 of BtlBw until no more than a BDP (with the allowance below) is in
//!   flight.
//! - PROBE_BW cycles pacing gains 1.25, 0.75, 1, 1, 1, 1, 1, 1, a phase a min_rtt long; the 1.25
//!   phase lasts until a loss or until 1.25·BDP is in flight, the 0.75 phase ends early once a
//!   BDP is. It starts at a random phase other than 0.75 (Linux's rule), from the flow's own
//!   random stream; cwnd = 2·BDP.
//! - PROBE_RTT: when min_rtt has not been renewed for 10 s, cwnd drops to 4 packets until that
//!   much is in flight, then stays there for 200 ms and one round; then min_rtt's time is renewed,
//!   the previous cwnd restored and PROBE_BW (or STARTUP, if it never ended) resumed.
//! - cwnd: grows by the packets each ACK delivers up to its target gain·BDP + 3 packets, rounded
//!   up to an even number (Linux 4.9's `bbr_target_cwnd`: 3 send quanta, one packet each here,
//!   for there is no TSO; even for delayed ACKs), at least 4 packets; before the first round trip
//!   sample, 10 packets (the initial window). Before STARTUP ends it grows by every ACK below the
//!   target, as slow start does.
//! - Pacing: gain·BtlBw less Linux's 1% margin (`bbr_pacing_margin_percent`, 4.20 on); it starts
//!   at 2.885·cwnd per ms (Linux's rate before a round-trip sample; fairsim has no handshake) and
//!   from the first round trip at 2.885·cwnd/rtt; in STARTUP it only ever rises. A sender
//!   restarting from idle while application-limited paces at BtlBw in PROBE_BW.
//! - Losses (Linux's `bbr_set_cwnd_to_recover_or_restore`): on fast recovery cwnd is the packets
//!   in flight plus those the ACK delivered, and for the first round of recovery it only keeps
//!   pace with deliveries (packet conservation); each further loss takes a packet off; when
//!   recovery ends cwnd is restored to at least its value before. On a retransmission timeout
//!   cwnd = 1, STARTUP's plateau count restarts, and the old cwnd is restored once everything
//!   outstanding at the timeout has been acknowledged. No ssthresh-based reduction.
//!
//! Choices and deviations: windows count packets, rates packets per second; loss recovery is
//! the reliability layer's NewReno (no SACK yet), whose duplicate ACKs count as deliveries as
//! Linux counts them for a Reno connection; the layer paces only its window's sends, not its fast
//! retransmissions; BtlBw's filter is an exact windowed maximum (Linux approximates it with three
//! samples); a round-trip sample is the ACK's echo of its packet's send time (every new ACK,
//! retransmissions included); BBR's model runs when an ACK arrives, before the layer's own
//! handling, and the layer's recovery events (entry, partial ACK, end, timeout) then apply the
//! loss rules above, where Linux applies them in the same per-ACK pass; after a timeout the
//! packets duplicate ACKs reported stay counted as delivered (Linux forgets them and counts them
//! again on the ACK that jumps over them, a burst that inflates BtlBw: two flows through a
//! 20-packet buffer kept the line 66% busy with 18,000 losses that way, 95% with 1,100 this way). Left out: the long-term
//! (policer) bandwidth model (`lt_bw`), the ACK-aggregation allowance (`extra_acked`, 4.19 on),
//! TSO sizing, the +2 packets of later kernels in the 1.25 phase, and ECN (v1 ignores it: an
//! echo changes nothing).

mod max_filter;

use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::transport::reliability::controller::{Congestion, Controller, Load, NewAck};
use crate::transport::reliability::delivery_rate::{Delivery, DeliveryRate, RateSample};
use crate::transport::reliability::reliable::{Recovery, Reliable, TcpReliability};
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, Series};
use crate::transport::stack::Stack;
use crate::units::Time;
use max_filter::MaxFilter;
use rand::Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BbrConfig {
    /// The congestion window before the first round-trip sample, packets (Linux's
    /// TCP_INIT_CWND, RFC 6928: 10).
    pub initial_cwnd: u32,
    /// STARTUP's pacing and cwnd gain: 2/ln 2 ≈ 2.885, the smallest that doubles the delivery
    /// rate every round trip.
    pub high_gain: f64,
    /// DRAIN's pacing gain: ln 2/2, STARTUP's inverse, to drain in a round the queue it built.
    pub drain_gain: f64,
    /// PROBE_BW's cwnd gain: cwnd = 2·BDP, room for delayed and stretched ACKs.
    pub cwnd_gain: f64,
    /// Round trips over which BtlBw is the largest delivery-rate sample (10: a gain cycle of
    /// eight and two more).
    pub bw_window: u32,
    /// How long a min_rtt holds without a sample as low before PROBE_RTT (10 s).
    pub min_rtt_window: Time,
    /// How long PROBE_RTT keeps cwnd at `min_cwnd` once that little is in flight (200 ms; and at
    /// least one round trip).
    pub probe_rtt_duration: Time,
    /// STARTUP ends once BtlBw has grown less than this factor (1.25) ...
    pub full_bw_growth: f64,
    /// ... in this many rounds in a row (3).
    pub full_bw_rounds: u32,
    /// The smallest cwnd, and PROBE_RTT's, packets (4).
    pub min_cwnd: u32,
    /// Pacing this fraction below gain·BtlBw, so a queue left over drains (Linux 4.20 on: 0.01;
    /// 0 as in the paper and 4.9).
    pub pacing_margin: f64,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            initial_cwnd: 10,
            high_gain: 2.0 / std::f64::consts::LN_2,
            drain_gain: std::f64::consts::LN_2 / 2.0,
            cwnd_gain: 2.0,
            bw_window: 10,
            min_rtt_window: Time::from_secs(10),
            probe_rtt_duration: Time::from_millis(200),
            full_bw_growth: 1.25,
            full_bw_rounds: 3,
            min_cwnd: 4,
            pacing_margin: 0.01,
        }
    }
}

/// PROBE_BW's pacing gains, one phase each, in order (the paper's Figure and `bbr_pacing_gain`).
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// The pacing rate before any round-trip sample assumes this round trip (Linux: 1 ms).
const RTT_BEFORE_SAMPLES: f64 = 0.001;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Where loss recovery stands (Linux's congestion-avoidance states, as BBR reads them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum LossState {
    Open,
    /// Fast recovery, until the layer ends it.
    Recovery,
    /// After a retransmission timeout, until every packet outstanding then is acknowledged.
    Loss {
        until: u64,
    },
}

/// What BBR's per-ACK update reads from one ACK.
#[derive(Copy, Clone, Debug)]
pub(in crate::transport) struct Ack {
    pub now: Time,
    pub delivery: Delivery,
    /// A round trip measured by it.
    pub rtt: Option<Time>,
    /// Packets in flight before and after it (outstanding less duplicate-ACK deliveries).
    pub prior_pipe: u64,
    pub pipe: u64,
}

pub struct Bbr {
    cfg: BbrConfig,
    rng: SimRng,
    pub(in crate::transport) rate: DeliveryRate,
    pub(in crate::transport) mode: Mode,
    btl_bw: MaxFilter,
    /// Round trips counted, and the `delivered` count that ends the current one.
    pub(in crate::transport) round: u64,
    next_round_delivered: u64,
    round_start: bool,
    pub(in crate::transport) min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// STARTUP's plateau detection: the BtlBw to beat, rounds without beating it.
    full_bw: f64,
    full_bw_count: u32,
    pub(in crate::transport) full_bw_reached: bool,
    pub(in crate::transport) cycle_index: usize,
    cycle_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    idle_restart: bool,
    /// Packets BBR allows in flight (Linux's snd_cwnd, counted against outstanding packets less
    /// those duplicate ACKs reported delivered).
    pub(in crate::transport) cwnd: u64,
    /// cwnd before the last loss recovery or PROBE_RTT, to restore after.
    prior_cwnd: u64,
    /// Packets per second.
    pub(in crate::transport) pacing: f64,
    has_seen_rtt: bool,
    loss: LossState,
    packet_conservation: bool,
    /// The last ACK's time, packets in flight after it and packets it delivered, for the loss
    /// events the layer reports after it.
    last: (Time, u64, u64),
}

impl Bbr {
    pub fn checked(cfg: BbrConfig, rng: SimRng) -> Result<Bbr, ParamError> {
        let positive = |v: f64| v > 0.0 && v.is_finite();
        for (name, v) in [("high_gain", cfg.high_gain), ("drain_gain", cfg.drain_gain), ("cwnd_gain", cfg.cwnd_gain)] {
            if !positive(v) {
                return Err(ParamError::at(name, "a gain must be above 0"));
            }
        }
        if !(cfg.full_bw_growth > 1.0 && cfg.full_bw_growth.is_finite()) {
            return Err(ParamError::at("full_bw_growth", "must be above 1"));
        }
        for (name, v) in [
            ("initial_cwnd", cfg.initial_cwnd),
            ("bw_window", cfg.bw_window),
            ("full_bw_rounds", cfg.full_bw_rounds),
            ("min_cwnd", cfg.min_cwnd),
        ] {
            if v == 0 {
                return Err(ParamError::at(name, "must be at least 1"));
            }
        }
        if cfg.min_rtt_window == Time::ZERO {
            return Err(ParamError::at("min_rtt_window", "must be above 0s"));
        }
        if !(0.0..1.0).contains(&cfg.pacing_margin) {
            return Err(ParamError::at("pacing_margin", "must be in [0, 1)"));
        }
        let cwnd = cfg.initial_cwnd as u64;
        Ok(Bbr {
            btl_bw: MaxFilter::new(cfg.bw_window as u64),
            rng,
            rate: DeliveryRate::default(),
            mode: Mode::Startup,
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_index: 0,
            cycle_stamp: Time::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            cwnd,
            prior_cwnd: 0,
            pacing: cfg.high_gain * cwnd as f64 / RTT_BEFORE_SAMPLES,
            has_seen_rtt: false,
            loss: LossState::Open,
            packet_conservation: false,
            last: (Time::ZERO, 0, 0),
            cfg,
        })
    }

    /// BtlBw, packets per second.
    pub(in crate::transport) fn btl_bw(&self) -> f64 {
        self.btl_bw.get()
    }

    /// gain·BDP in packets, rounded up; the initial window before any round-trip sample.
    pub(in crate::transport) fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => self.cfg.initial_cwnd as u64,
            Some(rtt) => (bw * rtt.as_secs_f64() * gain).ceil() as u64,
        }
    }

    /// What may be in flight at `gain`: gain·BDP plus three send quanta, rounded up to even.
    pub(in crate::transport) fn target(&self, bw: f64, gain: f64) -> u64 {
        let cwnd = self.bdp(bw, gain) + 3;
        cwnd + cwnd % 2
    }

    /// BBR's update for one ACK (`bbr_main`): the model, then the gains, the pacing rate, cwnd.
    pub(in crate::transport) fn update(&mut self, ack: Ack) {
        self.update_bw(ack.delivery.sample);
        self.update_cycle_phase(ack);
        self.check_full_bw_reached(ack.delivery.sample);
        self.check_drain(ack);
        self.update_min_rtt(ack);
        self.update_gains();
        self.set_pacing_rate(self.pacing_gain);
        self.set_cwnd(ack);
    }

    fn update_bw(&mut self, sample: Option<RateSample>) {
        self.round_start = false;
        let Some(s) = sample else { return };
        if s.prior_delivered >= self.next_round_delivered {
            // the packet that gave the sample was sent after the round began: it is over
            self.next_round_delivered = self.rate.delivered;
            self.round += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = s.rate();
        if !s.app_limited || bw >= self.btl_bw() {
            self.btl_bw.update(self.round, bw);
        }
    }

    fn update_cycle_phase(&mut self, ack: Ack) {
        if self.mode == Mode::ProbeBw && self.phase_done(ack.now, ack.prior_pipe, false) {
            self.advance_cycle_phase(ack.now);
        }
    }

    /// Whether PROBE_BW's phase is over at `now` with `pipe` packets in flight before the ACK.
    fn phase_done(&self, now: Time, pipe: u64, losses: bool) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| now - self.cycle_stamp > m);
        let gain = GAIN_CYCLE[self.cycle_index];
        if gain > 1.0 {
            // probe until the queue the probe aims at is there, or a loss says it cannot be
            full_length && (losses || pipe >= self.target(self.btl_bw(), gain))
        } else if gain < 1.0 {
            // drain until the probe's queue is gone, or a phase has passed
            full_length || pipe <= self.target(self.btl_bw(), 1.0)
        } else {
            full_length
        }
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.cycle_stamp = now;
    }

    fn check_full_bw_reached(&mut self, sample: Option<RateSample>) {
        if self.full_bw_reached || !self.round_start || sample.is_none_or(|s| s.app_limited) {
            return;
        }
        if self.btl_bw() >= self.full_bw * self.cfg.full_bw_growth {
            self.full_bw = self.btl_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= self.cfg.full_bw_rounds;
    }

    fn check_drain(&mut self, ack: Ack) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain && ack.pipe <= self.target(self.btl_bw(), 1.0) {
            self.enter_probe_bw(ack.now);
        }
    }

    /// PROBE_BW from a random phase other than the 0.75 one (`bbr_reset_probe_bw_mode`): draining
    /// right after DRAIN or PROBE_RTT would only leave the line idle.
    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        let n = GAIN_CYCLE.len();
        self.cycle_index = n - 1 - self.rng.random_range(0..n - 1);
        self.advance_cycle_phase(now);
    }

    fn update_min_rtt(&mut self, ack: Ack) {
        let expired = ack.now > self.min_rtt_stamp + self.cfg.min_rtt_window;
        if let Some(rtt) = ack.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = ack.now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // the few packets in flight say nothing about the bottleneck's rate
            self.rate.mark_app_limited(ack.pipe);
            match self.probe_rtt_done {
                None if ack.pipe <= self.cfg.min_cwnd as u64 => {
                    self.probe_rtt_done = Some(ack.now + self.cfg.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = self.rate.delivered;
                }
                Some(done) => {
                    self.probe_rtt_round_done |= self.round_start;
                    if self.probe_rtt_round_done && ack.now > done {
                        self.min_rtt_stamp = ack.now;
                        self.cwnd = self.cwnd.max(self.prior_cwnd);
                        self.reset_mode(ack.now);
                    }
                }
                None => {}
            }
        }
        if ack.delivery.acked > 0 {
            self.idle_restart = false;
        }
    }

    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.enter_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw => (GAIN_CYCLE[self.cycle_index], self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    fn set_pacing_rate(&mut self, gain: f64) {
        if !self.has_seen_rtt {
            if let Some(rtt) = self.min_rtt {
                self.has_seen_rtt = true;
                self.pacing = self.cfg.high_gain * self.cwnd as f64 / rtt.as_secs_f64().max(1e-9);
            }
        }
        let rate = gain * self.btl_bw() * (1.0 - self.cfg.pacing_margin);
        // STARTUP never slows down on a low sample
        if rate > 0.0 && (self.full_bw_reached || rate > self.pacing) {
            self.pacing = rate;
        }
    }

    fn set_cwnd(&mut self, ack: Ack) {
        let acked = ack.delivery.acked;
        if acked > 0 {
            if self.packet_conservation {
                self.cwnd = self.cwnd.max(ack.pipe + acked);
            } else {
                let target = self.target(self.btl_bw(), self.cwnd_gain);
                if self.full_bw_reached {
                    self.cwnd = (self.cwnd + acked).min(target);
                } else if self.cwnd < target || self.rate.delivered < self.cfg.initial_cwnd as u64 {
                    self.cwnd += acked;
                }
                self.cwnd = self.cwnd.max(self.cfg.min_cwnd as u64);
            }
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.cfg.min_cwnd as u64);
        }
    }

    /// Remembers cwnd before a loss recovery or PROBE_RTT (`bbr_save_cwnd`); once in one, the
    /// larger of the two.
    fn save_cwnd(&mut self) {
        self.prior_cwnd = if self.loss == LossState::Open && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    /// `lost` packets were found lost on the last ACK: as many fewer may be in flight, but in
    /// packet conservation as many as are in flight plus what the ACK delivered.
    fn on_losses(&mut self, lost: u64) {
        let (now, pipe, acked) = self.last;
        self.cwnd = self.cwnd.saturating_sub(lost).max(1);
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(pipe.saturating_sub(lost) + acked);
        }
        if self.mode == Mode::ProbeBw && GAIN_CYCLE[self.cycle_index] > 1.0 && self.phase_done(now, pipe, true) {
            self.advance_cycle_phase(now);
        }
    }

    fn record(&self, ctx: &mut AgentCtx) {
        ctx.record(Series::Cwnd, self.cwnd as f64);
        ctx.record(Series::Rate, self.pacing);
        ctx.record(Series::RateEstimate, self.btl_bw());
        if let Some(rtt) = self.min_rtt {
            ctx.record(Series::MinRtt, rtt.as_secs_f64());
        }
    }

    fn state(&self) -> (u64, f64, f64, Option<Time>) {
        (self.cwnd, self.pacing, self.btl_bw(), self.min_rtt)
    }
}

impl Controller for Bbr {
    fn window(&self) -> u64 {
        // the layer counts every outstanding packet; BBR does not count those duplicate ACKs
        // reported delivered
        self.cwnd + self.rate.dup_delivered
    }

    fn on_start(&mut self, _win: &SendWindow, ctx: &mut AgentCtx) {
        self.min_rtt_stamp = ctx.now;
        self.record(ctx);
    }

    fn on_ack_arrival(&mut self, ack: &Packet, win: &SendWindow, ctx: &mut AgentCtx) {
        let before = self.state();
        let now = ctx.now;
        let prior_pipe = win.in_flight().saturating_sub(self.rate.dup_delivered);
        let (delivery, rtt) = self.rate.on_ack(ack, win, now);
        let (una, nxt, pipe) = self.rate.after(ack, win);
        if let LossState::Loss { until } = self.loss {
            if una >= until {
                self.loss = LossState::Open;
                self.cwnd = self.cwnd.max(self.prior_cwnd);
            }
        }
        self.rate.note_app_limited(nxt, win, ctx.app_limit, pipe, self.cwnd);
        self.last = (now, pipe, delivery.acked);
        self.update(Ack { now, delivery, rtt, prior_pipe, pipe });
        if self.state() != before {
            self.record(ctx);
        }
    }

    fn on_packet_sent(&mut self, seq: u64, ctx: &mut AgentCtx) {
        if self.rate.outstanding() == 0 && self.rate.app_limited() {
            // restarting from idle: the pipe is empty, no need to probe or drain
            self.idle_restart = true;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(1.0);
            }
        }
        self.rate.on_send(seq, ctx.now);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing)
    }

    fn on_congestion(&mut self, event: Congestion, _load: Load, win: &SendWindow, _ctx: &mut AgentCtx) {
        match event {
            Congestion::FastRetransmit { .. } => {
                self.save_cwnd();
                self.loss = LossState::Recovery;
                self.on_losses(1);
                // packet conservation for a round from now: as many in flight as are, the lost
                // packet not counted, plus what this ACK delivered
                self.packet_conservation = true;
                self.next_round_delivered = self.rate.delivered;
                let (_, pipe, acked) = self.last;
                self.cwnd = pipe.saturating_sub(1) + acked;
            }
            Congestion::Timeout => {
                self.save_cwnd();
                self.loss = LossState::Loss { until: win.high() };
                self.rate.on_timeout();
                self.cwnd = 1;
                self.full_bw = 0.0;
            }
            Congestion::Ecn => {}
        }
    }

    fn on_partial_ack(&mut self, _ack: NewAck, _ctx: &mut AgentCtx) {
        self.on_losses(1);
    }

    fn on_recovery_end(&mut self, _ctx: &mut AgentCtx) {
        self.loss = LossState::Open;
        self.packet_conservation = false;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    fn trace(&self, ctx: &mut AgentCtx) {
        ctx.record(Series::Cwnd, self.cwnd as f64);
    }

    fn after_fill(&self, in_flight: u64, ctx: &mut AgentCtx) {
        ctx.record(Series::Outstanding, in_flight as f64);
    }
}

/// BBR v1 over NewReno's loss recovery (no SACK yet), paced by the layer.
pub static DECLARATION: TransportDeclaration<(TcpReliability, BbrConfig)> = Declaration {
    about: About {
        name: "bbr",
        summary: "BBR v1: paced at the bottleneck rate it measures, cwnd twice the bandwidth-delay product",
        reference:
            "Cardwell et al., ACM Queue 14(5) 2016; draft-cardwell-iccrg-bbr-congestion-control-00; Linux tcp_bbr.c v1",
    },
    // Linux's options but SACK: BBR's delivery-rate samples count cumulative and duplicate ACKs
    // (the layer's NewReno recovery), not SACK blocks
    defaults: || {
        let linux = TcpReliability::of_stack(Stack::Linux);
        let no_sack = TcpReliability {
            sack: false,
            prr: false,
            rack: false,
            tlp: false,
            dsack: false,
            adaptive_reordering: false,
            undo: false,
            ..linux
        };
        (no_sack, BbrConfig::default())
    },
    build: |(r, b), flow| {
        if r.sack {
            let why = "BBR's delivery-rate samples are not SACK-aware here: set sack = false";
            return Err(crate::params::ParamError::at("sack", why));
        }
        let rng = crate::rng::stream(flow.seed, &format!("bbr:{}", flow.name));
        Ok(Box::new(Reliable::tcp(r, Recovery::NewReno, Bbr::checked(b.clone(), rng)?)?))
    },
};

#[cfg(test)]
mod tests;
