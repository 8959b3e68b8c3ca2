//! HPCC: a window and pacing rate set per ACK from the in-band telemetry its data packets
//! gathered at every switch egress (`net::int`).
//!
//! Reference: Li, Miao, Liu, Zhuang, Feng, Tang, Cao, Zhang, Kim, Alizadeh, Yu, "HPCC: High
//! Precision Congestion Control", SIGCOMM 2019, Algorithm 1. Per ACK, for each hop i of its
//! records `ack.L` against the previous ACK's `L`:
//!
//! ```text
//!   txRate_i = (ack.L[i].txBytes − L[i].txBytes) / (ack.L[i].ts − L[i].ts),
//!   u_i = min(ack.L[i].qlen, L[i].qlen) / (ack.L[i].B · T) + txRate_i / ack.L[i].B;
//! ```
//!
//! u is the largest u_i, τ that hop's ts difference, capped at T; then
//!
//! ```text
//!   U = (1 − τ/T) · U + (τ/T) · u                       (MeasureInflight)
//!   W = Wc / (U/η) + W_AI    if U ≥ η or incStage ≥ maxStage (incStage = 0 on an update)
//!   W = Wc + W_AI            otherwise                        (incStage + 1 on an update)
//! ```
//!
//! where the reference window Wc takes the new W only on an update: the first ACK of a packet
//! sent after the last update (`ack.seq > lastUpdateSeq`, then `lastUpdateSeq = snd_nxt`), once
//! per round trip; every other ACK computes W from the same Wc. Then L = ack.L, and the rate
//! R = W / T paces the packets, each sent while the bytes in flight stay within W.
//!
//! Defaults (htsim's `HPCCSrc`, Broadcom/csg-htsim 841d9e7, `sim/hpcc.cpp`, read in
//! validation/htsim/roce-hpcc-swift-model.md §3), but T: η = 0.95, maxStage = 5, W_init = the
//! source's line rate × T, U = η at the start. T = `base_rtt` is the flow's own path's base
//! round trip as the authors' ns-3 code computes it per pair (`pairRtt`: twice the propagation
//! plus a packet's transmission at every hop; their option of one network-wide T, the largest,
//! is `base_rtt` given): htsim's static 12 µs "known baseline RTT" is a constant of its 100 Gb/s
//! fabric (a lone 10 MB flow across a 10 Gb/s k = 8 fat-tree took 61.6 ms with it, 10.0 ms with
//! its path's 55 µs: docs/decisions.md). With `htsim_compat`, T is htsim's 12 µs.
//!
//! Choices and deviations, the paper's first:
//! - W_AI = W_init · (1 − η) / N, N = `flows` (10 by default, htsim's unused constant `N`; the
//!   paper leaves N to the operator as the expected number of flows on a link), or `w_ai` bytes.
//! - W is kept within `[min_window, W_init]`: the upper bound as the authors' ns-3 code keeps
//!   it (the rate at most the NIC's; W_init is the window at line rate), the lower one fairsim's (one packet by default, so a flow can
//!   always send; the authors' ns-3 code has a minimum rate, 100 Mb/s). Both bound W and Wc.
//! - The first ACK with records (and any whose hop count differs from the last) only sets L
//!   and `lastUpdateSeq`, as the authors' ns-3 code (`UpdateRateHp`, "first RTT") does: there is
//!   no rate before a second record. A
//!   hop whose two records have the same `ts` is skipped; if every hop is, U is left as it was.
//!   U is taken as at least 10⁻⁹ in U/η, so an idle path cannot divide by zero.
//! - An ACK without records (a path without switches, a delayed ACK's timer) changes nothing but
//!   the bytes in flight.
//! - Loss: go-back-N. The sink discards a packet above the next expected and NACKs it with its
//!   cumulative ACK (`AckPolicy::go_back_n`); the sender sends again from there, with W = Wc = one
//!   packet (htsim's `cwnd = MSS`). A NACK caused by a packet sent before the last go-back is
//!   stale and ignored. With `rto` the sender goes back the same way when nothing has been
//!   acknowledged for that long: on by default (`senders::timeout`), where htsim has none
//!   (the paper runs over PFC, which loses nothing): without it a flow whose last packets are
//!   lost at a failed link stalls for ever. `rto = "0s"` is htsim's.
//! - Pacing: a packet may go when the window allows and `packet / R` has passed since the last.
//! - Switches stamp at the end of serialization, htsim's point (`int_stamp = "end"`), or at
//!   dequeue, the paper's and its ns-3 code's (`int_stamp = "dequeue"`); see `net::int`.
//!
//! `htsim_compat = true` reproduces htsim's departures from the paper (model §3.4), each of which
//! is a choice of its own here:
//! - no reference window: W is computed from the current W on every ACK and kept (the
//!   multiplicative step and +W_AI compound per ACK); incStage still moves only on updates;
//! - L is set only when the hop count changes, never per ACK: txRate is the average since that
//!   first record, and the qlen term is min(ack.qlen, first.qlen);
//! - τ/T in whole numbers (0 until τ reaches T, then 1: U = u);
//! - W_AI = one packet (unless `w_ai` is written), and no upper bound on W;
//! - incStage starts at 0 (htsim leaves it uninitialised).

use crate::component::{About, Declaration};
use crate::net::int::{IntHop, IntStamp};
use crate::net::{Control, Packet};
use crate::params::ParamError;
use crate::transport::sender::{AckPolicy, FlowInfo, Series, TransportDeclaration};
use crate::transport::sender::{AgentCtx, Sender, TimerId};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// htsim's HPCC base RTT, a constant of its 100 Gb/s fabric (`htsim_compat`'s default T).
const HTSIM_BASE_RTT: Time = Time::from_micros(12);

const PACE: TimerId = TimerId(0);
const RETRANSMIT: TimerId = TimerId(1);

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HpccConfig {
    /// T: the base round trip the control aims at; default: the flow's own path's, as HPCC's
    /// authors compute it per pair (`FlowInfo::base_rtt`), or with `htsim_compat` htsim's fixed
    /// 12 µs.
    pub base_rtt: Option<Time>,
    /// η: the target utilisation of the most loaded link.
    pub eta: f64,
    /// maxStage: additive steps before a multiplicative one when below η.
    pub max_stage: u32,
    /// N in W_AI = W_init·(1 − η)/N: the expected number of flows sharing a link.
    pub flows: u32,
    /// W_AI in bytes, instead of W_init·(1 − η)/N (htsim_compat: one packet).
    pub w_ai: Option<u64>,
    /// The smallest window, bytes; absent: one packet.
    pub min_window: Option<u64>,
    /// The NIC's rate, for W_init = rate × T; absent: the source's line.
    pub rate: Option<Rate>,
    /// Where switches stamp: "end" of serialization (htsim) or "dequeue" (the paper's ns-3).
    pub int_stamp: IntStamp,
    /// Reproduce htsim's HPCC: per-ACK window, L frozen, integer τ/T, W_AI = one packet, no cap.
    pub htsim_compat: bool,
    /// Go back to the first unacknowledged packet when nothing is acknowledged for this long
    /// while packets are out; 0: never (htsim; HPCC runs over PFC); default: 5 ms, or three of
    /// the path's base round trips if longer (`senders::timeout`).
    pub rto: Option<Time>,
}

impl Default for HpccConfig {
    fn default() -> Self {
        HpccConfig {
            base_rtt: None,
            eta: 0.95,
            max_stage: 5,
            flows: 10,
            w_ai: None,
            min_window: None,
            rate: None,
            int_stamp: IntStamp::End,
            htsim_compat: false,
            rto: None,
        }
    }
}

/// HPCC's control law (Algorithm 1), apart from sending: what an ACK's records make of the
/// window.
#[derive(Clone, Debug)]
pub struct HpccLaw {
    /// T, seconds and ns.
    t: f64,
    t_ns: u64,
    eta: f64,
    max_stage: u32,
    w_ai: f64,
    w_init: f64,
    min_window: f64,
    compat: bool,
    /// The window in force, and the reference window Wc, bytes.
    pub w: f64,
    pub wc: f64,
    /// The utilisation estimate U.
    pub u: f64,
    pub inc_stage: u32,
    /// lastUpdateSeq: the next new packet when Wc was last updated.
    pub last_update_seq: u64,
    /// L: the records of the last ACK (htsim_compat: of the first of its hop count).
    pub prev: Vec<IntHop>,
}

impl HpccLaw {
    /// The law for packets of `packet` bytes from a NIC of `line` rate.
    pub fn new(c: &HpccConfig, line: Rate, packet: u32, path_rtt: Time) -> Result<HpccLaw, ParamError> {
        let base_rtt = c.base_rtt.unwrap_or(if c.htsim_compat { HTSIM_BASE_RTT } else { path_rtt });
        if base_rtt == Time::ZERO {
            return Err(ParamError::at("base_rtt", "must be above 0"));
        }
        if !(c.eta > 0.0 && c.eta <= 1.0) {
            return Err(ParamError::at("eta", "must be above 0 and at most 1"));
        }
        if c.flows == 0 {
            return Err(ParamError::at("flows", "must be at least 1"));
        }
        if line.0 == 0 {
            return Err(ParamError::at("rate", "must be above 0"));
        }
        let t = base_rtt.as_secs_f64();
        let w_init = line.0 as f64 / 8.0 * t;
        let mss = packet as f64;
        let w_ai = match c.w_ai {
            Some(b) => b as f64,
            None if c.htsim_compat => mss,
            None => w_init * (1.0 - c.eta) / c.flows as f64,
        };
        let min_window = c.min_window.map_or(mss, |b| b as f64);
        if min_window <= 0.0 {
            return Err(ParamError::at("min_window", "must be above 0"));
        }
        let w = w_init.max(min_window);
        Ok(HpccLaw {
            t,
            t_ns: base_rtt.0,
            eta: c.eta,
            max_stage: c.max_stage,
            w_ai,
            w_init,
            min_window,
            compat: c.htsim_compat,
            w,
            wc: w,
            u: c.eta,
            inc_stage: 0,
            last_update_seq: 0,
            prev: vec![],
        })
    }

    /// W_init, bytes.
    pub fn w_init(&self) -> f64 {
        self.w_init
    }

    /// W_AI, bytes.
    pub fn w_ai(&self) -> f64 {
        self.w_ai
    }

    /// An ACK acknowledging up to `ack_seq` (cumulative) with records `int` came back while the
    /// next new packet is `snd_nxt`: the window it gives (`NewAck`).
    pub fn on_ack(&mut self, ack_seq: u64, int: &[IntHop], snd_nxt: u64) -> f64 {
        if int.is_empty() {
            return self.w;
        }
        if self.prev.len() != int.len() {
            // a first record, or another path: nothing to compare with yet
            self.prev = int.to_vec();
            if !self.compat {
                self.last_update_seq = snd_nxt;
                return self.w;
            }
        }
        let u = self.measure_inflight(int);
        let update = ack_seq > self.last_update_seq;
        let w = self.compute_wind(u, update);
        if update {
            self.last_update_seq = snd_nxt;
        }
        self.w = w;
        if self.compat {
            self.wc = w; // htsim keeps no reference window: the next ACK starts from this one
        } else {
            self.prev.copy_from_slice(int);
        }
        self.w
    }

    /// MeasureInflight: U from the records `int` against L.
    pub fn measure_inflight(&mut self, int: &[IntHop]) -> f64 {
        let mut u = 0.0;
        let mut tau_ns = None;
        for (now, before) in int.iter().zip(&self.prev) {
            let dt = now.ts.0.saturating_sub(before.ts.0);
            if dt == 0 {
                continue;
            }
            let b = now.rate.0 as f64 / 8.0; // bytes per second
            let tx_rate = now.tx_bytes.saturating_sub(before.tx_bytes) as f64 / (dt as f64 * 1e-9);
            let qlen = now.qlen.min(before.qlen) as f64;
            let u_i = qlen / (b * self.t) + tx_rate / b;
            if tau_ns.is_none() || u_i > u {
                u = u_i;
                tau_ns = Some(dt);
            }
        }
        let Some(tau_ns) = tau_ns else { return self.u };
        let tau_ns = tau_ns.min(self.t_ns);
        let k = if self.compat { (tau_ns / self.t_ns) as f64 } else { tau_ns as f64 / self.t_ns as f64 };
        self.u = (1.0 - k) * self.u + k * u;
        self.u
    }

    /// ComputeWind: the window from U, and Wc updated if `update`.
    pub fn compute_wind(&mut self, u: f64, update: bool) -> f64 {
        let base = if self.compat { self.w } else { self.wc };
        let w = if u >= self.eta || self.inc_stage >= self.max_stage {
            if update {
                self.inc_stage = 0;
            }
            base / (u.max(1e-9) / self.eta) + self.w_ai
        } else {
            if update {
                self.inc_stage += 1;
            }
            base + self.w_ai
        };
        let w = self.bounded(w);
        if update {
            self.wc = w;
        }
        w
    }

    /// `w` within the window's bounds (htsim_compat: no upper one).
    fn bounded(&self, w: f64) -> f64 {
        let w = if self.compat { w } else { w.min(self.w_init) };
        w.max(self.min_window)
    }

    /// A go-back-N restart: one packet's window (htsim), or `min_window` if larger.
    pub fn restart(&mut self, packet: f64) {
        self.w = packet.max(self.min_window);
        self.wc = self.w;
    }

    /// The pacing rate R = W/T, bytes per second.
    pub fn rate(&self) -> f64 {
        self.w / self.t
    }
}

pub struct Hpcc {
    law: HpccLaw,
    stamp: IntStamp,
    packet: f64,
    /// The next packet to send, and the first not yet acknowledged.
    snd_nxt: u64,
    snd_una: u64,
    /// When the pacer lets the next packet go, and whether its timer is set for it.
    next_send: Time,
    pacing: bool,
    /// When the sender last went back (NACKs caused by packets sent before are stale).
    went_back: Option<Time>,
    rto: Option<Time>,
    /// Whether the `rto` timer is set.
    timing: bool,
}

impl Hpcc {
    pub fn new(c: &HpccConfig, flow: &FlowInfo) -> Result<Hpcc, ParamError> {
        let line = c.rate.unwrap_or(flow.access_rate);
        Ok(Hpcc {
            law: HpccLaw::new(c, line, flow.packet_size, flow.base_rtt)?,
            stamp: c.int_stamp,
            packet: flow.packet_size as f64,
            snd_nxt: 0,
            snd_una: 0,
            next_send: Time::ZERO,
            pacing: false,
            went_back: None,
            rto: super::timeout(c.rto, flow),
            timing: false,
        })
    }

    /// The control law, for tests and traces.
    pub fn law(&self) -> &HpccLaw {
        &self.law
    }

    /// Sends what the window and the pacer allow now; arms the pacer for the next if the window
    /// would allow it.
    fn send(&mut self, ctx: &mut AgentCtx) {
        while self.snd_nxt < ctx.app_limit {
            let in_flight = (self.snd_nxt - self.snd_una) as f64 * self.packet;
            if in_flight + self.packet > self.law.w {
                return;
            }
            if ctx.now < self.next_send {
                if !self.pacing {
                    self.pacing = true;
                    ctx.set_timer(PACE, self.next_send);
                }
                return;
            }
            ctx.send_with_priority(self.snd_nxt, super::roce::DATA_PRIORITY);
            self.snd_nxt += 1;
            if let (Some(rto), false) = (self.rto, self.timing) {
                self.timing = true;
                ctx.set_timeout(RETRANSMIT, ctx.now + rto);
            }
            let gap = Time((self.packet / self.law.rate() * 1e9).round() as u64);
            self.next_send = ctx.now + gap;
        }
    }

    /// Sends again from the first unacknowledged packet, with one packet's window (a NACK, a
    /// timeout).
    fn go_back(&mut self, ctx: &mut AgentCtx) {
        self.snd_nxt = self.snd_una;
        self.went_back = Some(ctx.now);
        self.law.restart(self.packet);
    }

    /// The acknowledgements moved to `una`: the timeout runs again from now, if packets are out.
    fn acknowledged(&mut self, una: u64, ctx: &mut AgentCtx) {
        let advanced = una > self.snd_una;
        self.snd_una = self.snd_una.max(una);
        if let (Some(rto), true) = (self.rto, advanced) {
            self.timing = self.snd_una < self.snd_nxt;
            if self.timing {
                ctx.set_timeout(RETRANSMIT, ctx.now + rto);
            } else {
                ctx.cancel_timer(RETRANSMIT);
            }
        }
    }

    fn record(&self, ctx: &mut AgentCtx) {
        if ctx.recording() {
            ctx.record(Series::Window, self.law.w / self.packet);
            ctx.record(Series::RateEstimate, self.law.u);
        }
    }
}

impl Sender for Hpcc {
    fn largest_window(&self) -> Option<f64> {
        Some(self.law.w_init() / self.packet)
    }

    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.record(ctx);
        self.send(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        self.send(ctx);
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        match ack.control() {
            Control::Ack => {
                self.acknowledged(ack.seq, ctx);
                self.snd_nxt = self.snd_nxt.max(self.snd_una);
                self.law.on_ack(ack.seq, ctx.int, self.snd_nxt);
            }
            Control::Nack => {
                self.acknowledged(ack.seq, ctx);
                // a NACK of a packet sent before the last go-back asks for what is under way
                if self.went_back.is_some_and(|at| ack.echo_sent_at < at) {
                    self.snd_nxt = self.snd_nxt.max(self.snd_una);
                } else {
                    self.go_back(ctx);
                }
            }
            Control::Pull | Control::Cnp => return, // neither comes without its transport asking
        }
        self.record(ctx);
        self.send(ctx);
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx) {
        if timer == RETRANSMIT {
            self.timing = false;
            if self.snd_una < self.snd_nxt {
                ctx.count(crate::transport::sender::Event::Timeout);
                self.go_back(ctx);
            }
        } else {
            self.pacing = false;
        }
        self.send(ctx);
    }

    fn ack_policy(&self) -> AckPolicy {
        AckPolicy { go_back_n: true, ..AckPolicy::default() }
    }

    fn telemetry(&self) -> Option<IntStamp> {
        Some(self.stamp)
    }
}

/// The `hpcc` transport, as scenarios name it.
pub static DECLARATION: TransportDeclaration<(HpccConfig,)> = Declaration {
    about: About {
        name: "hpcc",
        summary:
            "HPCC: window and pacing rate per ACK from the switches' in-band telemetry (link utilisation and queue)",
        reference: "Li et al., SIGCOMM 2019 (Algorithm 1); htsim's HPCCSrc for the defaults and htsim_compat",
    },
    defaults: || (HpccConfig::default(),),
    build: |(c,), flow| Ok(Box::new(Hpcc::new(c, flow)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Action;

    const GBPS_100: Rate = Rate(100_000_000_000);

    fn hop(qlen: u64, tx_bytes: u64, ts_ns: u64) -> IntHop {
        IntHop { qlen, tx_bytes, ts: Time(ts_ns), rate: GBPS_100 }
    }

    /// The paper's law at 100 Gb/s, T = 12 µs, η = 0.95, 1000-byte packets: W_init = 150,000 B,
    /// W_AI = 150,000 · 0.05 / 10 = 750 B.
    fn law(compat: bool) -> HpccLaw {
        HpccLaw::new(&HpccConfig { htsim_compat: compat, ..Default::default() }, GBPS_100, 1000, Time::from_micros(12))
            .unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn the_window_from_one_record_is_algorithm_1() {
        let mut l = law(false);
        assert_eq!((l.w_init(), l.w, l.u), (150_000.0, 150_000.0, 0.95));
        assert!(close(l.w_ai(), 750.0));
        // the first ACK only sets L (and lastUpdateSeq)
        let first = [hop(30_000, 1_000_000, 100_000), hop(0, 5_000_000, 99_000)];
        assert_eq!(l.on_ack(1, &first, 20), 150_000.0);
        assert_eq!((l.last_update_seq, l.prev.as_slice()), (20, &first[..]));
        // 6 µs later: hop 0 sent 75,000 B (the line's rate) and holds 45,000 B; hop 1 sent
        // 37,500 B over 7 µs with an empty queue
        let next = [hop(45_000, 1_075_000, 106_000), hop(0, 5_037_500, 106_000)];
        // by hand from the paper's formulas: B = 12.5e9 B/s, B·T = 150,000 B
        let u0 = 30_000.0 / 150_000.0 + (75_000.0 / 6e-6) / 12.5e9; // 0.2 + 1.0
        let u1 = 0.0 / 150_000.0 + (37_500.0 / 7e-6) / 12.5e9; // 0.43
        assert!(u0 > u1);
        let tau_over_t = 6.0 / 12.0; // hop 0's τ
        let big_u = (1.0 - tau_over_t) * 0.95 + tau_over_t * u0; // 1.075 ≥ η
        let w = 150_000.0 / (big_u / 0.95) + 150_000.0 * (1.0 - 0.95) / 10.0; // decrease from Wc
                                                                              // ACK 21 > lastUpdateSeq 20: an update
        let got = l.on_ack(21, &next, 40);
        assert!(close(l.u, big_u), "U {} against {big_u}", l.u);
        assert!(close(got, w), "W {got} against {w}");
        assert!(close(l.wc, w) && l.inc_stage == 0 && l.last_update_seq == 40);
        assert_eq!(l.prev.as_slice(), &next[..], "L = ack.L");
    }

    #[test]
    fn below_eta_the_window_grows_additively_then_multiplicatively_after_max_stage() {
        let mut l = law(false);
        l.u = 0.5;
        for stage in 1..=5 {
            let w = l.compute_wind(0.5, true);
            assert!(close(w, (150_000.0f64 - 5.0 * 750.0).min(150_000.0)) || w <= 150_000.0);
            assert_eq!(l.inc_stage, stage);
        }
        // the cap: W ≤ W_init, so the additive steps from W_init stayed there
        assert_eq!(l.wc, 150_000.0);
        let mut l = law(false);
        l.wc = 50_000.0;
        for stage in 1..=5u32 {
            let w = l.compute_wind(0.5, true);
            assert!(close(w, 50_000.0 + stage as f64 * 750.0), "stage {stage}: {w}");
        }
        // incStage reached maxStage: Wc / (U/η) + W_AI, a multiplicative increase at U < η
        let wc = l.wc;
        let w = l.compute_wind(0.5, true);
        assert!(close(w, wc / (0.5 / 0.95) + 750.0));
        assert_eq!(l.inc_stage, 0);
    }

    #[test]
    fn the_reference_window_moves_once_per_round_trip_and_each_ack_starts_from_it() {
        let rec = |k: u64| [hop(30_000, 1_000_000 + k * 75_000, 100_000 + k * 6_000)];
        let mut l = law(false);
        l.on_ack(1, &rec(0), 10);
        let w1 = l.on_ack(11, &rec(1), 20); // an update: Wc = W1
        let u1 = l.u;
        // ACKs 12..20 are of packets sent before the update: W from the same Wc each time
        let w2 = l.on_ack(12, &rec(2), 21);
        let expected = w1 / (l.u / 0.95) + 750.0;
        assert!(close(w2, expected), "{w2} against {expected}");
        assert!(close(l.wc, w1) && l.last_update_seq == 20, "Wc and lastUpdateSeq stay");
        assert!(l.u > u1, "U moved on, Wc did not");
        // htsim_compat: the same ACKs compound, each from the window the last one left
        let mut h = law(true);
        h.on_ack(1, &rec(0), 10);
        let h1 = h.on_ack(11, &rec(1), 20);
        let h2 = h.on_ack(12, &rec(2), 21);
        assert!(close(h2, h1 / (h.u.max(1e-9) / 0.95) + 1000.0), "from W, not Wc");
        assert_eq!(h.wc, h2, "no reference window of its own");
    }

    #[test]
    fn htsim_compat_freezes_l_rounds_tau_over_t_adds_a_packet_and_has_no_cap() {
        let mut h = law(true);
        assert_eq!(h.w_ai(), 1000.0, "W_AI = MSS");
        let first = [hop(0, 0, 100_000)];
        // htsim computes the window on the first ACK too: U = η, so W/(η/η) + one packet
        assert_eq!(h.on_ack(1, &first, 10), 151_000.0);
        // 6 µs later: τ/T = 0 in whole numbers, U stays at η, and the window grows by a packet
        let w = h.on_ack(2, &[hop(20_000, 75_000, 106_000)], 11);
        assert_eq!((h.u, w), (0.95, 151_000.0 / 1.0 + 1000.0));
        assert!(w > h.w_init(), "no cap at W_init");
        assert_eq!(h.prev.as_slice(), &first[..], "L frozen at the first record");
        // 14 µs after the first: τ ≥ T, so U = u exactly, against the first record: the average
        // rate since it (150,000 B in 14 µs) and min(qlen, first qlen) = 0
        let w_before = h.w;
        h.on_ack(3, &[hop(20_000, 150_000, 114_000)], 12);
        let u = (150_000.0 / 14e-6) / 12.5e9;
        assert!(close(h.u, u), "{} against {u}", h.u);
        assert!(u < 0.95 && h.inc_stage == 0);
        assert!(close(h.w, w_before + 1000.0), "below η and stage 0: additive, from W");
        // the paper's law would have mixed in half the new sample at τ = 6 µs
        let mut p = law(false);
        p.on_ack(1, &first, 10);
        p.on_ack(2, &[hop(20_000, 75_000, 106_000)], 11);
        assert!(close(p.u, 0.5 * 0.95 + 0.5 * 1.0));
    }

    fn flow_info() -> FlowInfo {
        FlowInfo::for_tests(GBPS_100)
    }

    fn sent(actions: &[Action]) -> Vec<u64> {
        actions
            .iter()
            .filter_map(|a| if let Action::SendWithPriority { seq, .. } = a { Some(*seq) } else { None })
            .collect()
    }

    fn ack(seq: u64, control: Control, echo_sent_at: Time) -> Packet {
        Packet { seq, echo_sent_at, ..Packet::blank() }.with_kind(crate::net::PacketKind::Ack).with_control(control)
    }

    #[test]
    fn packets_are_paced_at_w_over_t_within_the_window() {
        let mut s = Hpcc::new(&HpccConfig::default(), &flow_info()).unwrap();
        let mut actions = vec![];
        s.on_start(&mut AgentCtx::new(Time::ZERO, 1000, &mut actions));
        // W = W_init: R = the line rate, 1000 B each 80 ns
        assert_eq!(sent(&actions), vec![0]);
        assert_eq!(actions.last(), Some(&Action::SetTimer(PACE, Time(80))));
        let mut actions = vec![];
        s.on_timer(PACE, &mut AgentCtx::new(Time(80), 1000, &mut actions));
        assert_eq!(sent(&actions), vec![1]);
        assert_eq!(s.law().w, 150_000.0);
        assert!(s.telemetry() == Some(IntStamp::End) && s.ack_policy().go_back_n);
    }

    #[test]
    fn a_nack_goes_back_to_the_cumulative_ack_with_one_packet_of_window_and_stale_ones_are_ignored() {
        let mut s = Hpcc::new(&HpccConfig::default(), &flow_info()).unwrap();
        s.snd_nxt = 30;
        s.snd_una = 5;
        let mut actions = vec![];
        s.on_ack(&ack(7, Control::Nack, Time(10)), &mut AgentCtx::new(Time(1_000), 1000, &mut actions));
        assert_eq!(sent(&actions), vec![7], "from the cumulative ACK");
        assert_eq!((s.law().w, s.law().wc), (1000.0, 1000.0));
        // another NACK for a packet sent before the go-back: stale, nothing moves back
        let mut actions = vec![];
        s.on_ack(&ack(7, Control::Nack, Time(20)), &mut AgentCtx::new(Time(2_000), 1000, &mut actions));
        assert_eq!((s.snd_nxt, sent(&actions)), (8, vec![]));
        // one for a packet sent after it: back again
        // one for a packet sent after it: back again, once the pacer (one packet per T = 12 µs
        // at a window of one packet) lets it go
        let mut actions = vec![];
        s.on_ack(&ack(7, Control::Nack, Time(1_500)), &mut AgentCtx::new(Time(3_000), 1000, &mut actions));
        assert_eq!((s.snd_nxt, sent(&actions)), (7, vec![]));
        assert_eq!(actions.last(), Some(&Action::SetTimer(PACE, Time(13_000))));
        let mut actions = vec![];
        s.on_timer(PACE, &mut AgentCtx::new(Time(13_000), 1000, &mut actions));
        assert_eq!(sent(&actions), vec![7]);
    }

    #[test]
    fn settings_out_of_range_are_refused() {
        let bad = |c: HpccConfig| Hpcc::new(&c, &flow_info()).is_err();
        assert!(bad(HpccConfig { eta: 0.0, ..Default::default() }));
        assert!(bad(HpccConfig { eta: 1.5, ..Default::default() }));
        assert!(bad(HpccConfig { base_rtt: Some(Time::ZERO), ..Default::default() }));
        assert!(bad(HpccConfig { flows: 0, ..Default::default() }));
        assert!(bad(HpccConfig { min_window: Some(0), ..Default::default() }));
    }
}
