//! Swift: a delay-based AIMD window with separate fabric and endpoint targets.
//!
//! Reference: G. Kumar, N. Dukkipati, K. Jang, H. M. G. Wassel, X. Wu, B. Montazeri, Y. Wang,
//! K. Springborn, C. Alfeld, M. Ryan, D. Wetherall, A. Vahdat, "Swift: Delay is Simple and
//! Effective for Congestion Control in the Datacenter", SIGCOMM 2020. Algorithm 1 and the §3
//! formulas below were checked against the paper's text (its §3.3–3.5 and Algorithm 1 lines
//! 7–32); the defaults the paper leaves open (its Table 2 names the parameters only) are htsim's
//! (Broadcom/csg-htsim 841d9e7, `sim/swift.cpp`, read for validation/htsim/
//! roce-hpcc-swift-model.md §4).
//!
//! The model, as built (each window in packets):
//! - Two windows, each steered by Algorithm 1: the fabric window `fcwnd` by the fabric delay
//!   against the fabric target, the endpoint window `ecwnd` by the endpoint delay against
//!   `endpoint_target`; cwnd = min(fcwnd, ecwnd).
//! - Fabric target = `base_target` + hops·`hop_scale` + fs(fcwnd), fs(w) = α/√w + β_fs clamped to
//!   [0, `fs_range`], α = fs_range/(1/√`fs_min_cwnd` − 1/√`fs_max_cwnd`), β_fs = −α/√fs_max_cwnd
//!   (§3.5): the target grows with the path's hops and as the window shrinks (more flows share
//!   the bottleneck, each with a smaller window).
//! - Algorithm 1, on every ACK (duplicates too): retransmit count ← 0; if delay < target,
//!   additive increase: w += ai·n/w when w ≥ 1, w += ai·n below (n = packets newly acknowledged);
//!   else, if the last decrease is at least an RTT old, w ·= max(1 − β·(delay − target)/delay,
//!   1 − max_mdf). On fast recovery: retransmit count ← 0, w ·= 1 − max_mdf if it may decrease.
//!   On a retransmission timeout: retransmit count + 1; at `retx_reset_threshold` in a row
//!   w = min_cwnd, else w ·= 1 − max_mdf if it may decrease. Then w is clamped to
//!   [`min_cwnd`, `max_cwnd`], and the decrease time is taken when w fell.
//! - Below one packet the window no longer limits: one packet leaves every srtt/cwnd (the
//!   reliability layer's pacer, `pacing_rate` = cwnd/srtt packets per second); at or above one
//!   packet, ⌊cwnd⌋ (+ the recovery inflation below) may be outstanding and nothing is paced.
//! - Loss recovery is the reliability layer's (`reliable`): fast retransmit after 3 duplicate
//!   ACKs with NewReno's partial ACKs, go-back-N on the retransmission timer (RTO doubled per
//!   expiry); SACK, RACK etc. may be switched on as for any TCP.
//!
//! Timestamps and delays (the paper's NIC hardware timestamps): a data packet's send time is the
//! moment the transport hands it to its host's port (`Packet::sent_at`, exact), its ACK's arrival
//! is read at once (exact); the NIC is that port, so NIC queueing and serialisation are part of
//! the network and of the fabric delay (no NIC delay is modelled apart: 0). The sink reports how
//! long it held the packet (`Packet::ack_delay_ns`, a delayed ACK's wait). A remote host delay
//! (`host_delay` + a uniform draw in [0, `host_delay_jitter`) per ACK, from the flow's own
//! random stream; default 0 as htsim) models the remote NIC-to-host time the paper's endpoint
//! delay measures: it is *reported* in the ACK, not waited for (fairsim's sink answers at once),
//! so it adds to the endpoint delay only, never to the round trip or the ACK clock.
//! - `delay = "split"` (the paper): endpoint delay = hold + host delay; fabric delay = round
//!   trip − hold.
//! - `delay = "rtt"` (htsim): one delay, the round trip + host delay, against the fabric target,
//!   one window; no endpoint window.
//!
//! Hops: fairsim's packets carry no TTL; the transport is told the links of its flow's path of
//! fewest hops when it is built (`FlowInfo::links`; in a fat tree every shortest path has as
//! many). `hops = "switches"` (the paper's count, from the TTL) is links − 1; `"links"` (htsim's
//! `route.hop_count()`, its Pipes) is the links. A workload whose connections draw their ends
//! uses its flow's route for every connection.
//!
//! Deviations and choices the paper leaves open:
//! - constants (htsim's "guesses", as defaults): ai = 1, β = 0.8, max_mdf = 0.5, base 20 µs,
//!   h = base/6.55 ≈ 3.053 µs per hop (3,053 ns here), fs_range = 5·base = 100 µs,
//!   fs_min_cwnd 0.1, fs_max_cwnd 100, retransmit reset after 5 timeouts, min_cwnd 0.001
//!   packets (the paper's §3.4, "down to a minimum of 0.001 packets"; htsim's is 0.0025, 10 bytes
//!   of 4,000-byte packets, which validation/htsim/swift-fabric.toml sets), max_cwnd 1,000, initial cwnd 15 (htsim's
//!   `-cwnd`), endpoint target 20 µs (a choice: htsim has none; it only binds when the sink holds
//!   ACKs or a host delay is modelled), RTO initial 1 ms, min 100 µs (htsim), checked on an
//!   exact timer (htsim scans every 10 ms);
//! - "RTT" (the MD guard and the pacing interval) is the sender's smoothed round trip (gain
//!   1/8 of every ACK's round trip), as it stood before the ACK (htsim's `_rtt`); before the first
//!   sample a decrease is always allowed;
//! - each window keeps its own decrease time; a loss or timeout reduces both windows (the paper
//!   does not say which: the window in force must fall);
//! - the decrease time is taken when w *fell* (htsim); a test of "w ≤ previous" would renew it
//!   on every suppressed decrease and allow no second one under lasting congestion;
//! - flow scaling reads the fabric window (`fs_integer = true`: htsim's ⌊fcwnd⌋, with fs_range
//!   below one packet, for its integer division);
//! - fast recovery: the decrease is taken when the loss is detected (the paper's "on fast
//!   recovery"; htsim takes it when recovery ends), and the window is inflated by one packet per
//!   further duplicate ACK (at most cwnd), deflated by partial ACKs, as htsim does;
//! - packets, not bytes: ACK-clocked growth per packet acknowledged; Swift has no slow start;
//! - ECN is refused (Swift reads delay only).

use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::transport::reliability::controller::{Congestion, Controller, Load, NewAck};
use crate::transport::reliability::reliable::{Recovery, Reliable, RttSamples, TcpReliability};
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, FlowInfo, Series};
use crate::units::Time;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// What a hop of the fabric target's scaling is.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Hops {
    /// Switches crossed (the paper: from the IP TTL): the path's links less one.
    #[default]
    Switches,
    /// Links crossed, host links included (htsim's `route.hop_count()`).
    Links,
}

/// Which delays the windows follow.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DelayModel {
    /// The paper: a fabric window on the fabric delay, an endpoint window on the endpoint delay.
    #[default]
    Split,
    /// htsim: one window on the whole round trip, against the fabric target.
    Rtt,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SwiftConfig {
    /// The fabric target before hop and flow scaling (htsim: 20 µs).
    pub base_target: Time,
    /// h, added to the fabric target per hop (htsim: base/6.55 ≈ 3.053 µs).
    pub hop_scale: Time,
    /// What a hop is: `switches` crossed (the paper) or `links` (htsim).
    pub hops: Hops,
    /// The most flow scaling adds to the fabric target (htsim: 5·base = 100 µs); 0 turns it off.
    pub fs_range: Time,
    /// The window, packets, at or below which flow scaling adds all of `fs_range` (0.1).
    pub fs_min_cwnd: f64,
    /// The window, packets, at or above which flow scaling adds nothing (100).
    pub fs_max_cwnd: f64,
    /// Flow scaling reads ⌊fcwnd⌋, and all of `fs_range` below one packet (htsim's integer
    /// division), instead of fcwnd.
    pub fs_integer: bool,
    /// The endpoint window's target delay (a choice: 20 µs).
    pub endpoint_target: Time,
    /// `split`: fabric and endpoint windows on their own delays (the paper); `rtt`: one window
    /// on the round trip (htsim).
    pub delay: DelayModel,
    /// The remote host's time from NIC to acknowledgement that each ACK reports (its endpoint
    /// delay; not waited for); 0 as htsim.
    pub host_delay: Time,
    /// Each ACK's host delay adds a uniform draw from [0, this), from the flow's own stream.
    pub host_delay_jitter: Time,
    /// ai: the additive increase, packets per window of ACKs (1).
    pub ai: f64,
    /// β: the multiplicative decrease's gain on (delay − target)/delay (0.8).
    pub beta: f64,
    /// The largest fraction one decrease takes off (0.5).
    pub max_mdf: f64,
    /// The window at the start, packets (htsim's `-cwnd`: 15).
    pub initial_cwnd: f64,
    /// The smallest window, packets (the paper's 0.001; htsim: 10 bytes, 0.0025 of its 4,000-byte
    /// packets).
    pub min_cwnd: f64,
    /// The largest window, packets (htsim: 1,000).
    pub max_cwnd: f64,
    /// Timeouts in a row that put the window at `min_cwnd` (htsim: 5).
    pub retx_reset_threshold: u32,
}

impl Default for SwiftConfig {
    fn default() -> Self {
        SwiftConfig {
            base_target: Time::from_micros(20),
            hop_scale: Time(3_053),
            hops: Hops::Switches,
            fs_range: Time::from_micros(100),
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            fs_integer: false,
            endpoint_target: Time::from_micros(20),
            delay: DelayModel::Split,
            host_delay: Time::ZERO,
            host_delay_jitter: Time::ZERO,
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            initial_cwnd: 15.0,
            min_cwnd: 0.001,
            max_cwnd: 1000.0,
            retx_reset_threshold: 5,
        }
    }
}

/// Algorithm 1's constants, shared by both windows.
#[derive(Copy, Clone, Debug)]
struct Law {
    ai: f64,
    beta: f64,
    max_mdf: f64,
    min_cwnd: f64,
    max_cwnd: f64,
}

/// One window under Algorithm 1, with the time of its last decrease.
#[derive(Copy, Clone, Debug)]
pub(in crate::transport) struct Window {
    pub cwnd: f64,
    last_decrease: Option<Time>,
}

impl Window {
    fn new(cwnd: f64) -> Window {
        Window { cwnd, last_decrease: None }
    }

    /// Whether a decrease is allowed at `now`: the last one is at least `rtt` old.
    fn can_decrease(&self, now: Time, rtt: Option<f64>) -> bool {
        match (self.last_decrease, rtt) {
            (Some(t), Some(rtt)) => (now - t).as_secs_f64() >= rtt,
            _ => true,
        }
    }

    /// Clamps the window and takes the decrease time if it fell below `prev`.
    fn settle(&mut self, prev: f64, law: &Law, now: Time) {
        self.cwnd = self.cwnd.clamp(law.min_cwnd, law.max_cwnd);
        if self.cwnd < prev {
            self.last_decrease = Some(now);
        }
    }

    /// An ACK that newly acknowledged `acked` packets, with `delay` against `target` (seconds).
    fn on_ack(&mut self, delay: f64, target: f64, acked: u64, law: &Law, now: Time, rtt: Option<f64>) {
        let prev = self.cwnd;
        if delay < target {
            let n = acked as f64;
            if self.cwnd >= 1.0 {
                self.cwnd += law.ai * n / self.cwnd;
            } else {
                self.cwnd += law.ai * n;
            }
        } else if self.can_decrease(now, rtt) {
            self.cwnd *= (1.0 - law.beta * (delay - target) / delay).max(1.0 - law.max_mdf);
        }
        self.settle(prev, law, now);
    }

    /// A loss: the largest decrease, if one is allowed.
    fn on_loss(&mut self, law: &Law, now: Time, rtt: Option<f64>) {
        let prev = self.cwnd;
        if self.can_decrease(now, rtt) {
            self.cwnd *= 1.0 - law.max_mdf;
        }
        self.settle(prev, law, now);
    }

    /// Too many timeouts in a row: the smallest window.
    fn reset(&mut self, law: &Law, now: Time) {
        let prev = self.cwnd;
        self.cwnd = law.min_cwnd;
        self.settle(prev, law, now);
    }
}

/// The fabric target's flow scaling: fs(w) = α/√w + β_fs, clamped to [0, fs_range].
#[derive(Copy, Clone, Debug)]
pub(in crate::transport) struct FlowScaling {
    /// Seconds.
    pub range: f64,
    pub alpha: f64,
    pub beta: f64,
    integer: bool,
}

impl FlowScaling {
    fn new(cfg: &SwiftConfig) -> FlowScaling {
        let range = cfg.fs_range.as_secs_f64();
        let alpha = range / (1.0 / cfg.fs_min_cwnd.sqrt() - 1.0 / cfg.fs_max_cwnd.sqrt());
        FlowScaling { range, alpha, beta: -alpha / cfg.fs_max_cwnd.sqrt(), integer: cfg.fs_integer }
    }

    /// What flow scaling adds to the target at fabric window `w` (packets), seconds.
    pub fn at(&self, w: f64) -> f64 {
        let w = if self.integer { w.floor() } else { w };
        if w <= 0.0 {
            return self.range; // htsim's α/√0: the clamp's top
        }
        (self.alpha / w.sqrt() + self.beta).clamp(0.0, self.range)
    }
}

pub struct Swift {
    law: Law,
    pub(in crate::transport) fabric: Window,
    /// `None` with `delay = "rtt"`.
    pub(in crate::transport) endpoint: Option<Window>,
    /// base_target + hops·h, seconds.
    fixed_target: f64,
    pub(in crate::transport) scaling: FlowScaling,
    endpoint_target: f64,
    host_delay: f64,
    host_jitter: f64,
    rng: Option<SimRng>,
    retx_reset_threshold: u32,
    /// Timeouts since the last ACK.
    pub(in crate::transport) retransmit_cnt: u32,
    /// Smoothed round trip, seconds.
    pub(in crate::transport) srtt: Option<f64>,
    /// Packets the window is inflated by during fast recovery (one per duplicate ACK).
    inflate: u64,
    target_series: Option<Series>,
    fabric_series: Option<Series>,
    endpoint_series: Option<Series>,
}

impl Swift {
    /// Swift for a path of `links` links (its path of fewest hops).
    pub fn checked(cfg: &SwiftConfig, links: u32, rng: impl FnOnce() -> SimRng) -> Result<Swift, ParamError> {
        let finite_positive = |v: f64| v > 0.0 && v.is_finite();
        if !(cfg.ai >= 0.0 && cfg.ai.is_finite()) {
            return Err(ParamError::at("ai", "must be 0 or more"));
        }
        if !(cfg.beta > 0.0 && cfg.beta <= 1.0) {
            return Err(ParamError::at("beta", "must be in (0, 1]"));
        }
        if !(cfg.max_mdf > 0.0 && cfg.max_mdf < 1.0) {
            return Err(ParamError::at("max_mdf", "must be in (0, 1)"));
        }
        if !finite_positive(cfg.min_cwnd) {
            return Err(ParamError::at("min_cwnd", "must be above 0 packets"));
        }
        if !(cfg.max_cwnd >= cfg.min_cwnd && cfg.max_cwnd.is_finite()) {
            return Err(ParamError::at("max_cwnd", "must be at least min_cwnd"));
        }
        if !(cfg.initial_cwnd >= cfg.min_cwnd && cfg.initial_cwnd <= cfg.max_cwnd) {
            return Err(ParamError::at("initial_cwnd", "must be within [min_cwnd, max_cwnd]"));
        }
        if !finite_positive(cfg.fs_min_cwnd) {
            return Err(ParamError::at("fs_min_cwnd", "must be above 0 packets"));
        }
        if !(cfg.fs_max_cwnd > cfg.fs_min_cwnd && cfg.fs_max_cwnd.is_finite()) {
            return Err(ParamError::at("fs_max_cwnd", "must exceed fs_min_cwnd"));
        }
        if cfg.retx_reset_threshold == 0 {
            return Err(ParamError::at("retx_reset_threshold", "must be at least 1 timeout"));
        }
        if cfg.base_target == Time::ZERO {
            return Err(ParamError::at("base_target", "must be above 0s"));
        }
        let hops = match cfg.hops {
            Hops::Switches => links.saturating_sub(1),
            Hops::Links => links,
        };
        let fixed_target = cfg.base_target.as_secs_f64() + hops as f64 * cfg.hop_scale.as_secs_f64();
        let law =
            Law { ai: cfg.ai, beta: cfg.beta, max_mdf: cfg.max_mdf, min_cwnd: cfg.min_cwnd, max_cwnd: cfg.max_cwnd };
        let split = cfg.delay == DelayModel::Split;
        Ok(Swift {
            law,
            fabric: Window::new(cfg.initial_cwnd),
            endpoint: split.then(|| Window::new(cfg.initial_cwnd)),
            fixed_target,
            scaling: FlowScaling::new(cfg),
            endpoint_target: cfg.endpoint_target.as_secs_f64(),
            host_delay: cfg.host_delay.as_secs_f64(),
            host_jitter: cfg.host_delay_jitter.as_secs_f64(),
            rng: (cfg.host_delay_jitter > Time::ZERO).then(rng),
            retx_reset_threshold: cfg.retx_reset_threshold,
            retransmit_cnt: 0,
            srtt: None,
            inflate: 0,
            target_series: own_series()[0],
            fabric_series: own_series()[1],
            endpoint_series: own_series()[2].filter(|_| split),
        })
    }

    /// The window in force, packets: the smaller of the two.
    pub fn cwnd(&self) -> f64 {
        self.endpoint.map_or(self.fabric.cwnd, |e| self.fabric.cwnd.min(e.cwnd))
    }

    /// The fabric target at the fabric window now, seconds.
    pub fn fabric_target(&self) -> f64 {
        self.fixed_target + self.scaling.at(self.fabric.cwnd)
    }

    /// The remote host delay an ACK reports, seconds.
    fn draw_host_delay(&mut self) -> f64 {
        match &mut self.rng {
            Some(rng) => self.host_delay + rng.random::<f64>() * self.host_jitter,
            None => self.host_delay,
        }
    }

    /// Algorithm 1 for an ACK that newly acknowledged `acked` packets, measured at `now` with
    /// round trip `rtt` and hold `hold` (seconds).
    pub(in crate::transport) fn on_measure(&mut self, now: Time, rtt: f64, hold: f64, acked: u64) {
        let host = self.draw_host_delay();
        let guard = self.srtt;
        self.retransmit_cnt = 0;
        let target = self.fabric_target();
        let law = self.law;
        match &mut self.endpoint {
            Some(e) => {
                e.on_ack(hold + host, self.endpoint_target, acked, &law, now, guard);
                self.fabric.on_ack((rtt - hold).max(0.0), target, acked, &law, now, guard);
            }
            None => self.fabric.on_ack(rtt + host, target, acked, &law, now, guard),
        }
        self.srtt = Some(guard.map_or(rtt, |s| 0.875 * s + 0.125 * rtt));
    }

    /// Each window, as `f` changes it.
    fn both(&mut self, f: impl Fn(&mut Window)) {
        f(&mut self.fabric);
        if let Some(e) = &mut self.endpoint {
            f(e);
        }
    }
}

impl Controller for Swift {
    fn window(&self) -> u64 {
        let cwnd = self.cwnd();
        if cwnd < 1.0 {
            // paced: the rate alone limits, as htsim's pacer sends whatever is outstanding
            return if self.pacing_rate().is_some() { u64::MAX } else { 1 };
        }
        cwnd.floor() as u64 + self.inflate
    }

    fn pacing_rate(&self) -> Option<f64> {
        let cwnd = self.cwnd();
        match self.srtt {
            Some(srtt) if cwnd < 1.0 && srtt > 0.0 => Some(cwnd / srtt),
            _ => None,
        }
    }

    fn on_start(&mut self, _win: &SendWindow, ctx: &mut AgentCtx) {
        self.trace(ctx);
    }

    fn on_ack_arrival(&mut self, ack: &Packet, win: &SendWindow, ctx: &mut AgentCtx) {
        let acked = ack.seq.min(win.high()).saturating_sub(win.una());
        let rtt = (ctx.now - ack.echo_sent_at).as_secs_f64();
        let hold = ack.ack_delay_ns as f64 * 1e-9;
        self.on_measure(ctx.now, rtt, hold, acked);
    }

    fn on_ack(&mut self, _ack: NewAck, _ctx: &mut AgentCtx) {}

    fn on_congestion(&mut self, event: Congestion, _load: Load, _win: &SendWindow, ctx: &mut AgentCtx) {
        let (law, now, rtt) = (self.law, ctx.now, self.srtt);
        self.inflate = 0;
        match event {
            Congestion::FastRetransmit { .. } => {
                self.retransmit_cnt = 0;
                self.both(|w| w.on_loss(&law, now, rtt));
            }
            Congestion::Timeout => {
                self.retransmit_cnt += 1;
                if self.retransmit_cnt >= self.retx_reset_threshold {
                    self.both(|w| w.reset(&law, now));
                } else {
                    self.both(|w| w.on_loss(&law, now, rtt));
                }
            }
            Congestion::Ecn => {} // refused when built: ECN is off
        }
    }

    fn on_recovery_dupack(&mut self, _ctx: &mut AgentCtx) {
        // htsim: one packet per duplicate ACK, at most the window
        self.inflate = (self.inflate + 1).min(self.cwnd().floor() as u64);
    }

    fn on_partial_ack(&mut self, ack: NewAck, _ctx: &mut AgentCtx) {
        self.inflate = self.inflate.saturating_sub(ack.count) + 1;
    }

    fn on_recovery_end(&mut self, _ctx: &mut AgentCtx) {
        self.inflate = 0;
    }

    fn trace(&self, ctx: &mut AgentCtx) {
        if !ctx.recording() {
            return;
        }
        ctx.record(Series::Cwnd, self.cwnd());
        ctx.record(Series::Rate, self.pacing_rate().unwrap_or(0.0));
        if let Some(s) = self.target_series {
            ctx.record(s, self.fabric_target());
        }
        if let Some(s) = self.fabric_series {
            ctx.record(s, self.fabric.cwnd);
        }
        if let (Some(s), Some(e)) = (self.endpoint_series, self.endpoint) {
            ctx.record(s, e.cwnd);
        }
    }
}

/// Swift's own series: its fabric target, seconds, and its two windows, packets (named once).
fn own_series() -> [Option<Series>; 3] {
    static NAMED: std::sync::OnceLock<[Option<Series>; 3]> = std::sync::OnceLock::new();
    *NAMED.get_or_init(|| ["target_delay", "fabric_cwnd", "endpoint_cwnd"].map(Series::named))
}

/// Swift's reliability defaults: an ACK per packet, round trips from timestamps, no SACK
/// (htsim's NewReno-like recovery), htsim's RTO (1 ms initially, at least 100 µs), a receiver's
/// window as large as `max_cwnd`.
pub fn reliability() -> TcpReliability {
    TcpReliability {
        window: 1000,
        ack_every: 1,
        rtt_samples: RttSamples::Timestamps,
        initial_rto: Time::from_millis(1),
        min_rto: Time::from_micros(100),
        ..TcpReliability::default()
    }
}

/// Swift under the reliability layer, for `flow`.
fn build(r: &TcpReliability, s: &SwiftConfig, flow: &FlowInfo) -> Result<Swift, ParamError> {
    if r.ecn {
        return Err(ParamError::at("ecn", "Swift reads delay, not ECN marks: leave `ecn` false"));
    }
    Swift::checked(s, flow.links, || crate::rng::stream(flow.seed, &format!("swift:{}", flow.name)))
}

/// Swift: its own controller under the reliability layer's NewReno recovery.
pub static DECLARATION: TransportDeclaration<(TcpReliability, SwiftConfig)> = Declaration {
    about: About {
        name: "swift",
        summary: "Swift: delay-based AIMD window, fabric target scaled by hops and flows, endpoint target, paced below one packet",
        reference: "Kumar et al., SIGCOMM 2020",
    },
    defaults: || (reliability(), SwiftConfig::default()),
    build: |(r, s), flow| Ok(Box::new(Reliable::tcp(r, Recovery::NewReno, build(r, s, flow)?)?)),
};

#[cfg(test)]
mod tests;
