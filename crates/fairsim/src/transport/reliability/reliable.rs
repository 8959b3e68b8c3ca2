//! The reliability layer of every window-based protocol: the send window, cumulative ACKs,
//! duplicate ACKs with fast retransmit and fast recovery, the retransmission timer, go-back-N.
//! It implements `Sender` and asks a congestion controller (`controller`) how many packets may
//! be outstanding, so a new window-based protocol is one controller.
//!
//! References for the loss recovery it performs:
//! - fast retransmit after `dupack_threshold` duplicate ACKs (Jacobson 1988, 4.3BSD Tahoe);
//!   duplicate ACKs count only while data is outstanding;
//! - fast recovery (RFC 2581, W. Stevens RFC 2001): the layer stays in recovery until the ACK
//!   that covers what was outstanding when it began; the controller inflates and deflates;
//! - partial ACKs (NewReno, RFC 6582): an ACK during recovery that leaves a hole retransmits it
//!   at once and stays in recovery, so several losses of one window are repaired without a
//!   timeout; after a timeout NewReno remembers the highest packet sent (`recover`, §3.2 step 4)
//!   and duplicate ACKs below it start no fast retransmit (step 1);
//! - duplicate deliveries (`ignore_duplicate_deliveries`): a duplicate ACK caused by a packet the
//!   receiver already had (its echoed sequence number below the cumulative ACK, as when go-back-N
//!   sends again what arrived) starts no fast retransmit; only one caused by a packet beyond the
//!   hole does. These are RFC 6582 §4's duplicate ACKs after a timeout, told apart by the packet
//!   that caused them, as RFC 2883's D-SACK lets a receiver report a duplicate; it makes
//!   Kim & Farber's footnote 5 (with no reordering, one duplicate ACK means a drop) exact, and
//!   it is the filter their BLT source has (`blt`);
//! - on a timeout the oldest unacknowledged packet and everything after it is sent again
//!   (go-back-N, as BSD does), or, for Generic's timer with `retransmit = "oldest"`, the oldest
//!   alone (see `retransmit`).
//!
//! - limited transmit (RFC 3042, `limited_transmit`): the first and second duplicate ACKs each
//!   let one new packet out beyond the window;
//! - with SACK (`sack`), the loss recovery of RFC 6675 instead of NewReno's (`reliable::sack`):
//!   the scoreboard, `IsLost`, the pipe and `NextSeg` of `transport::sack`; the window does not
//!   inflate in recovery (the pipe counts what left the network), and with `prr` (RFC 6937) each
//!   ACK in recovery sends what Proportional Rate Reduction allows (`transport::prr`).
//!
//! - with RACK (`rack`, RFC 8985) the SACK recovery tells losses by time instead of by count
//!   (`reliable::rack`): a packet is lost once one sent after it was delivered and a reordering
//!   window has passed; tail loss probes (`tlp`) replace most timeouts after the last packets of
//!   a flight are lost; D-SACK (`dsack`, RFC 2883) reports spurious retransmissions, which widen
//!   RACK's window; Linux's duplicate threshold may rise with the reordering seen
//!   (`adaptive_reordering`, `reordering`).
//!
//! Choices: windows count packets; the sink's ACK policy (every packet, delayed ACKs, SACK
//! blocks) is a setting of this layer, carried out by the sink (`sink`). A controller that gives
//! a pacing rate (BBR) has its window's sends spaced (`pacer`).

use super::averaged_timeout::{AveragedTimeout, Resend};
use super::controller::{Congestion, Connection, Controller, Hook, Load, NewAck, RttSample};
use super::pacer::{Pacer, PACE};
use super::prr::Prr;
use super::rack_tlp::{RackState, RACK_TIMER};
use super::reordering::Reordering;
use super::retransmit::{AveragedTimer, RetransmitTimer, RtoTimer};
use super::rto::RtoConfig;
use super::sack::SackRecovery;
use super::sink::{AckPolicy, EcnEcho};
use super::window::{Acked, SendWindow, WindowLimit};
use crate::net::Packet;
use crate::params::ParamError;
use crate::transport::sender::{AgentCtx, Event, Sender, TimerId};
use crate::transport::stack::{Stack, LINUX_WINDOW};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// Calls the controller's event `$hook`, having shown it the connection first if it
/// `observes` that event (`Reliable::show`).
macro_rules! tell {
    ($self:ident . $hook:ident ( $($arg:expr),* )) => {{
        $self.show(Hook::$hook);
        $self.ctrl.$hook($($arg),*)
    }};
}

/// How losses detected by duplicate ACKs are recovered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Fast retransmit only; the controller starts again from one packet (JK / 4.3BSD Tahoe).
    Tahoe,
    /// Fast retransmit and fast recovery (RFC 2581).
    Reno,
    /// Reno with partial ACKs (RFC 6582).
    NewReno,
}

/// The reliability parameters of the TCP family.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpReliability {
    /// Whose defaults the TCP options take (`stack::Stack`): `linux` (delayed ACKs, timestamps,
    /// SACK with PRR, limited transmit, an initial window of 10, Linux's RTO) or `classic` (the
    /// papers' TCP: an ACK a packet, Karn's samples, no SACK, a window of 1, RFC 6298's RTO
    /// bounds). An option set beside it wins.
    pub stack: Stack,
    /// The largest window, in packets (the receiver's window): with `stack = "linux"` the
    /// largest Linux's receive autotuning reaches (3 MiB of 1,448-byte segments), with
    /// `classic` the transport's own default (64; JK's is the papers' 5).
    pub window: u32,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// The retransmission timeout before the first round-trip sample.
    pub initial_rto: Time,
    /// The smallest retransmission timeout (at most `max_rto`).
    pub min_rto: Time,
    /// The largest, backoff included.
    pub max_rto: Time,
    /// k in srtt + k·rttvar.
    pub rttvar_factor: f64,
    /// G in srtt + max(G, k·rttvar) (RFC 6298 §2.3; Linux's 200 ms floor on the variance term).
    pub clock_granularity: Time,
    /// Round-trip samples: `karn` (none from retransmitted packets) or `timestamps` (every new
    /// ACK, from the echoed send time: RFC 7323's timestamp option; Kim & Farber's TCP).
    pub rtt_samples: RttSamples,
    /// The sink acknowledges once this many in-order packets are unacknowledged: 1 (every
    /// packet at once, the classic papers' sinks) or 2 (delayed ACKs, RFC 1122 and RFC 5681 §4.2,
    /// as real stacks do); out-of-order data is always acknowledged at once.
    pub ack_every: u32,
    /// The delayed-ACK timer: the longest an in-order packet waits for its ACK (RFC 1122: at
    /// most 500 ms; ns-3's and BSD's 200 ms).
    pub ack_delay: Time,
    /// ECN (RFC 3168): data packets are ECN-capable, the sink echoes CE marks as ECE until the
    /// sender's CWR, and the sender halves its window once per window of data for an echo.
    pub ecn: bool,
    /// SACK (RFC 2018): ACKs carry up to 3 blocks of data received above a hole, and the sender
    /// recovers from losses by RFC 6675's scoreboard instead of NewReno's partial ACKs.
    pub sack: bool,
    /// Proportional Rate Reduction (RFC 6937) paces what the sender sends during a SACK
    /// recovery (needs `sack`); without it, RFC 6675 sends whenever the pipe is below cwnd.
    pub prr: bool,
    /// Limited transmit (RFC 3042): the first two duplicate ACKs each send one new packet.
    pub limited_transmit: bool,
    /// A duplicate ACK caused by a packet the receiver already had (its echoed sequence number
    /// below the cumulative ACK) starts no fast retransmit: only holes count, as in BLT (without
    /// SACK; RFC 6582 §4's duplicate ACKs after a timeout).
    pub ignore_duplicate_deliveries: bool,
    /// RACK-TLP (RFC 8985): a SACK recovery starts when RACK deems a packet lost (one sent after
    /// it was delivered, and a reordering window passed), not after `dupack_threshold`
    /// duplicates; the window adapts to the reordering seen. Linux's default loss detection
    /// (`net.ipv4.tcp_recovery = 1`). Needs `sack`.
    pub rack: bool,
    /// Tail loss probes (RFC 8985 §7): about two round trips after the last send or ACK, one
    /// packet goes out so that a lost tail is found by RACK, not by a timeout. Needs `rack`.
    pub tlp: bool,
    /// D-SACK (RFC 2883): the sink reports a duplicate packet in a first SACK block; the sender
    /// counts it as a spurious retransmission, and RACK widens its reordering window. Needs
    /// `sack`.
    pub dsack: bool,
    /// Linux's adaptive duplicate threshold (`tcp_reordering`): raised to the reordering
    /// distance a SACK shows, at most 300 (`reordering`). Needs `sack`.
    pub adaptive_reordering: bool,
    /// A fast recovery whose retransmissions prove spurious has its window reduction taken
    /// back (`Controller::undo`): when D-SACKs report all of them (RFC 3708, Linux's
    /// `tcp_try_undo_dsack`), or, with `rtt_samples = "timestamps"`, when the ACK that ends it
    /// echoes a packet sent before its first retransmission (Eifel, RFC 3522; Linux's
    /// `tcp_try_undo_recovery`). Needs `sack`.
    pub undo: bool,
    /// The window when a NewReno recovery ends (RFC 6582 §3.2 step 3): `ssthresh` (its second
    /// choice, `classic`; ns-3's), or `flight`: min(ssthresh, max(FlightSize, 1) + 1), its
    /// first, which spares a burst when few packets are outstanding (`linux`: Linux never
    /// bursts a window out at the end of a recovery either).
    pub recovery_exit: RecoveryExit,
    /// The sender gives up after the timer has expired this many times in a row without a
    /// new ACK, and sends nothing more (4.3BSD's `TCP_MAXRXTSHIFT`, 12: `tcp_timers.c` drops
    /// the connection at the next expiry; counted as `abandoned`); 0 never gives up.
    pub max_backoffs: u32,
}

/// The window when a NewReno recovery ends.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryExit {
    #[default]
    Ssthresh,
    Flight,
}

/// Where round-trip samples come from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttSamples {
    #[default]
    Karn,
    Timestamps,
}

/// The classic papers' TCP (`Stack::Classic`); `TcpReliability::of_stack(Stack::Linux)` gives today's.
impl TcpReliability {
    /// The reliability layer's options as `stack` chooses them (`stack.rs` tabulates both).
    pub fn of_stack(stack: Stack) -> TcpReliability {
        let classic = TcpReliability::default();
        match stack {
            Stack::Classic => classic,
            Stack::Linux => TcpReliability {
                stack: Stack::Linux,
                window: LINUX_WINDOW,
                ack_every: 2,
                rtt_samples: RttSamples::Timestamps,
                sack: true,
                prr: true,
                limited_transmit: true,
                initial_rto: Time::from_secs(1),
                min_rto: Time::from_millis(200),
                clock_granularity: Time::from_millis(200),
                recovery_exit: RecoveryExit::Flight,
                rack: true,
                tlp: true,
                dsack: true,
                adaptive_reordering: true,
                undo: true,
                ..classic
            },
        }
    }
}

impl Default for TcpReliability {
    fn default() -> Self {
        let rto = RtoConfig::default();
        TcpReliability {
            stack: Stack::Classic,
            window: 64,
            dupack_threshold: 3,
            initial_rto: rto.initial_rto,
            min_rto: rto.min_rto,
            max_rto: rto.max_rto,
            rttvar_factor: rto.rttvar_factor,
            clock_granularity: rto.clock_granularity,
            rtt_samples: RttSamples::Karn,
            ack_every: 1,
            ack_delay: Time::from_millis(200),
            ecn: false,
            sack: false,
            prr: false,
            limited_transmit: false,
            ignore_duplicate_deliveries: false,
            recovery_exit: RecoveryExit::Ssthresh,
            rack: false,
            tlp: false,
            dsack: false,
            adaptive_reordering: false,
            undo: false,
            max_backoffs: 0,
        }
    }
}

/// The reliability parameters of Generic and DECbit: a fixed timeout rule, no duplicate ACKs.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AveragedReliability {
    /// Window in packets.
    pub window: u32,
    /// Timeout multiplier β: the timeout is β times the averaged round trip.
    pub beta: f64,
    /// Gain g of the rtt average: rtt ← (1 − g)·rtt + g·sample.
    pub gain: f64,
    /// The rtt estimate before the first sample.
    pub initial_rtt: Time,
    /// What a timeout sends again: `all` unacknowledged packets or the `oldest`.
    pub retransmit: Resend,
    /// The shortest timeout (0s: none, the papers give none).
    pub min_timeout: Time,
}

impl Default for AveragedReliability {
    fn default() -> Self {
        AveragedReliability {
            window: 5,
            beta: 2.0,
            gain: 0.125,
            initial_rtt: Time::from_millis(1500),
            retransmit: Resend::All,
            min_timeout: Time::ZERO,
        }
    }
}

fn check_window(window: u32) -> Result<(), ParamError> {
    if window == 0 {
        return Err(ParamError::at("window", "a window must be at least 1 packet"));
    }
    Ok(())
}

fn ack_policy(cfg: &TcpReliability) -> Result<AckPolicy, ParamError> {
    if !(1..=MAX_ACK_EVERY).contains(&cfg.ack_every) {
        return Err(ParamError::at("ack_every", format!("must be 1 to {MAX_ACK_EVERY} packets")));
    }
    if cfg.ack_every > 1 && cfg.ack_delay == Time::ZERO {
        return Err(ParamError::at("ack_delay", "delayed ACKs need a timer above 0s"));
    }
    let ecn = if cfg.ecn { EcnEcho::Classic } else { EcnEcho::Off };
    Ok(AckPolicy {
        every: cfg.ack_every,
        delay: cfg.ack_delay,
        ecn,
        sack: cfg.sack,
        dsack: cfg.dsack,
        ..Default::default()
    })
}

/// Acknowledging fewer than one packet in this many would starve any window the layer allows.
const MAX_ACK_EVERY: u32 = 64;

/// Duplicate-ACK handling: the threshold and what recovery follows.
#[derive(Copy, Clone, Debug)]
struct DupAcks {
    threshold: u32,
    recovery: Recovery,
}

/// The reliability features a flow may switch on (all off: the classic papers' TCP).
#[derive(Copy, Clone, Debug, Default)]
struct Features {
    sack: bool,
    prr: bool,
    limited_transmit: bool,
    ignore_duplicate_deliveries: bool,
    recovery_exit: RecoveryExit,
    dsack: bool,
    adaptive_reordering: bool,
    undo: bool,
    timestamps: bool,
    max_backoffs: u32,
}

/// The reliability layer under controller `C`, with retransmission timer `T` (the TCP family's
/// unless said otherwise).
pub struct Reliable<C, T = RtoTimer> {
    pub(in crate::transport) ctrl: C,
    win: SendWindow,
    /// The flow's window: the controller's window is capped by it.
    cap: u64,
    pub(in crate::transport) timer: T,
    dupack_rule: Option<DupAcks>,
    dupacks: u32,
    /// In fast recovery until `recover` (one past the highest packet sent when it began, or
    /// when the timer last expired) is acknowledged.
    pub(in crate::transport) in_recovery: bool,
    recover: u64,
    /// How the flow's sink acknowledges, and echoes ECN marks.
    acks: AckPolicy,
    /// An ECN echo is answered only by an ACK that covers a packet past this one, sent after
    /// the last reduction (one reduction per window of data, RFC 3168 §6.1.2).
    ecn_recover: u64,
    features: Features,
    /// During a SACK recovery: RFC 6675's retransmission state, and PRR's.
    sack_recovery: SackRecovery,
    prr: Prr,
    /// Spaces sends when the controller gives a pacing rate.
    pacer: Pacer,
    /// Whether the flow's window (`cap`) rather than the controller's holds the sender back.
    window_limit: WindowLimit,
    /// The reordering seen, and the duplicate threshold it may have raised.
    reordering: Reordering,
    /// RACK-TLP's state, for a flow that detects losses by it.
    rack: Option<Box<RackState>>,
    /// The last fast recovery, while its reduction may still be undone.
    undo: Option<Undo>,
    /// Expiries of the timer since the last new ACK (4.3BSD's `t_rxtshift`); past
    /// `max_backoffs`, the sender has given up (`abandoned`).
    timeouts_in_a_row: u32,
}

/// A fast recovery whose retransmissions may yet prove spurious (Linux's `undo_marker`,
/// `undo_retrans` and `retrans_stamp`).
#[derive(Copy, Clone, Debug)]
struct Undo {
    /// The first unacknowledged packet when it began: D-SACKs below it are of older sends.
    marker: u64,
    /// When its first retransmission left.
    first_resent: Time,
    /// Its retransmissions that no D-SACK has reported yet.
    unreported: u64,
}

impl<C: Controller> Reliable<C, RtoTimer> {
    /// The TCP family's layer: Jacobson/Karels RTO, fast retransmit, `recovery`.
    pub fn tcp(cfg: &TcpReliability, recovery: Recovery, ctrl: C) -> Result<Self, ParamError> {
        check_window(cfg.window)?;
        if cfg.dupack_threshold == 0 {
            return Err(ParamError::at("dupack_threshold", "must be at least 1 duplicate ACK"));
        }
        let rto = RtoConfig {
            initial_rto: cfg.initial_rto,
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            rttvar_factor: cfg.rttvar_factor,
            clock_granularity: cfg.clock_granularity,
        };
        rto.check()?;
        let timer = RtoTimer::new(rto, cfg.rtt_samples == RttSamples::Timestamps);
        let dupacks = DupAcks { threshold: cfg.dupack_threshold, recovery };
        for (on, key, why) in [
            (cfg.prr, "prr", "Proportional Rate Reduction paces a SACK recovery"),
            (cfg.rack, "rack", "RACK tells losses from SACK blocks"),
            (cfg.dsack, "dsack", "D-SACK is a SACK block"),
            (cfg.adaptive_reordering, "adaptive_reordering", "reordering is seen in SACK blocks"),
            (cfg.undo, "undo", "a recovery is undone from SACK blocks and its timestamps"),
        ] {
            if on && !cfg.sack {
                return Err(ParamError::at(key, format!("{why}: set sack = true too")));
            }
        }
        if cfg.tlp && !cfg.rack {
            return Err(ParamError::at(
                "tlp",
                "tail loss probes leave the losses they reveal to RACK: set rack = true too",
            ));
        }
        let features = Features {
            sack: cfg.sack,
            prr: cfg.prr,
            limited_transmit: cfg.limited_transmit,
            ignore_duplicate_deliveries: cfg.ignore_duplicate_deliveries,
            recovery_exit: cfg.recovery_exit,
            dsack: cfg.dsack,
            adaptive_reordering: cfg.adaptive_reordering,
            undo: cfg.undo,
            timestamps: cfg.rtt_samples == RttSamples::Timestamps,
            max_backoffs: cfg.max_backoffs,
        };
        let acks = ack_policy(cfg)?;
        let max_ack_delay = if acks.every > 1 { acks.delay } else { Time::ZERO };
        let rack = cfg.rack.then(|| Box::new(RackState::new(cfg.tlp, max_ack_delay)));
        let reordering = Reordering::new(cfg.dupack_threshold as u64, cfg.adaptive_reordering);
        Ok(Self { acks, features, reordering, rack, ..Self::new(ctrl, cfg.window, timer, Some(dupacks)) })
    }
}

impl<C: Controller> Reliable<C, AveragedTimer> {
    /// Generic's layer: the averaged timeout, duplicate ACKs ignored.
    pub fn averaged(cfg: &AveragedReliability, ctrl: C) -> Result<Self, ParamError> {
        check_window(cfg.window)?;
        AveragedTimeout::check(cfg.initial_rtt, cfg.beta, cfg.gain)?;
        let timer = AveragedTimeout::new(cfg.initial_rtt, cfg.beta, cfg.gain, cfg.min_timeout);
        Ok(Self::new(ctrl, cfg.window, AveragedTimer { timer, resend: cfg.retransmit }, None))
    }
}

impl<C: Controller, T: RetransmitTimer> Reliable<C, T> {
    fn new(ctrl: C, cap: u32, timer: T, dupack_rule: Option<DupAcks>) -> Self {
        Reliable {
            ctrl,
            win: SendWindow::default(),
            cap: cap as u64,
            timer,
            dupack_rule,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            acks: AckPolicy::default(),
            ecn_recover: 0,
            features: Features::default(),
            sack_recovery: SackRecovery::default(),
            prr: Prr::begin(0),
            pacer: Pacer::default(),
            window_limit: WindowLimit::default(),
            reordering: Reordering::new(3, false),
            rack: None,
            undo: None,
            timeouts_in_a_row: 0,
        }
    }

    /// Whether the sender gave up after `max_backoffs` expiries in a row: it sends and answers
    /// nothing more. No new ACK is taken after that, so the count stays past the limit.
    fn abandoned(&self) -> bool {
        self.features.max_backoffs != 0 && self.timeouts_in_a_row > self.features.max_backoffs
    }

    /// An ACK of new data: the count of expiries in a row starts again, and the timer restarts
    /// (or stops, with nothing outstanding).
    fn timer_after_new_ack(&mut self, ctx: &mut AgentCtx) {
        self.timeouts_in_a_row = 0;
        self.timer.after_new_ack(self.win.in_flight() > 0, ctx);
    }

    /// The sink echoes ECN marks as `echo` (DCTCP's exact echo instead of RFC 3168's).
    pub fn with_ecn_echo(mut self, echo: EcnEcho) -> Self {
        self.acks.ecn = echo;
        self
    }

    /// An ACK carried an ECN echo: the window is reduced, without a retransmission, at most once
    /// per window of data and not during loss recovery (RFC 3168 §6.1.2).
    fn ecn_echo(&mut self, ctx: &mut AgentCtx) {
        if self.in_recovery || self.win.una() <= self.ecn_recover {
            return;
        }
        self.ecn_recover = self.win.nxt();
        tell!(self.on_congestion(Congestion::Ecn, self.load(), &self.win, ctx));
        ctx.reduced_for_ecn();
        tell!(self.trace(ctx));
    }

    /// Shows the controller the connection as it is now, if it `observes` `hook` (a controller
    /// written in Python, before the hooks its class defines). For every other controller the
    /// test is a constant and this is nothing.
    #[inline(always)]
    fn show(&mut self, hook: Hook) {
        if self.ctrl.observes(hook) {
            let (srtt, timeout) = self.timer.estimate();
            self.ctrl.observe(&Connection {
                srtt,
                timeout,
                flight: self.win.in_flight(),
                una: self.win.una(),
                next: self.win.nxt(),
                in_recovery: self.in_recovery,
            });
        }
    }

    /// Sends what the controller's window (capped by the flow's) and the application allow.
    fn fill(&mut self, ctx: &mut AgentCtx) {
        if self.abandoned() {
            return;
        }
        let idle = self.win.in_flight() == 0;
        let window = self.ctrl.window();
        let mut allowed = window.clamp(1, self.cap);
        if self.features.limited_transmit && !self.in_recovery {
            // RFC 3042: each of the first two duplicate ACKs, before fast retransmit, lets one
            // new packet out beyond the window (the receiver's window permitting)
            let threshold = self.dupack_rule.map_or(0, |d| d.threshold);
            if self.dupacks < threshold {
                allowed = (allowed + self.dupacks.min(2) as u64).min(self.cap);
            }
        }
        let mut sent = false;
        let high = self.win.high();
        while self.win.can_send(allowed, ctx.app_limit) && self.pacer.may_send(self.ctrl.pacing_rate(), ctx) {
            let seq = self.win.send_next(ctx.now);
            if let Some(r) = &mut self.rack {
                r.rack.on_send(seq, ctx.now, seq < high);
            }
            ctx.send(seq);
            tell!(self.on_packet_sent(seq, ctx));
            self.timer.on_send(ctx);
            sent = true;
        }
        if sent && idle {
            self.timer.after_sends_from_idle(ctx);
        }
        tell!(self.after_fill(self.win.in_flight(), ctx));
        self.note_window_limit(window, ctx);
        if self.rack.is_some() {
            self.arm_rack_timer(sent, ctx);
        }
    }

    /// Tells the engine whether the flow's window holds the sender back: full, with data
    /// waiting, while the controller's `window` has reached it (the controllers stop growing
    /// there, as ns-2's `maxcwnd` does, so reaching it is as far as they tell).
    fn note_window_limit(&mut self, window: u64, ctx: &mut AgentCtx) {
        if self.ctrl.fixed_window() {
            return;
        }
        let limited = window >= self.cap && self.win.full_with_data_waiting(self.cap, ctx.app_limit);
        self.window_limit.update(limited, ctx);
    }

    /// What is outstanding now, as a loss's new slow-start threshold may read it: the packets
    /// sent and not acknowledged, and those still in the network (RFC 6675's pipe with SACK;
    /// without it, less one per duplicate ACK since the last new one).
    fn load(&self) -> Load {
        let flight = self.win.in_flight();
        let pipe = if self.rack.is_some() {
            self.win.pipe_counted()
        } else if self.features.sack {
            SackRecovery::begin(self.win.una()).pipe(&self.win, self.reordering.threshold())
        } else {
            flight.saturating_sub(self.dupacks as u64)
        };
        Load { flight, pipe }
    }

    fn new_ack(&mut self, ack: &Packet, acked: Acked, ctx: &mut AgentCtx) {
        self.timer.sample(&acked, ack.echo_sent_at, ctx);
        let rtt_s = (ctx.now - ack.echo_sent_at).as_secs_f64();
        tell!(self.on_rtt_sample(RttSample { rtt_s, ack: ack.seq, next: self.win.nxt() }, ctx));
        let count = NewAck { count: acked.count };
        if self.in_recovery {
            let partial_acks = self.dupack_rule.is_some_and(|d| d.recovery == Recovery::NewReno);
            if partial_acks && ack.seq < self.recover {
                // the next hole was lost too: send it now and stay in recovery
                let next = self.win.una();
                self.win.resend(next);
                ctx.send(next);
                tell!(self.on_packet_sent(next, ctx));
                tell!(self.on_partial_ack(count, ctx));
                self.timer.restart(ctx);
                tell!(self.trace(ctx));
                return;
            }
            self.in_recovery = false;
            tell!(self.on_recovery_end(ctx));
            if partial_acks && self.features.recovery_exit == RecoveryExit::Flight {
                // RFC 6582 §3.2 step 3, its first choice
                tell!(self.moderate(self.win.in_flight().max(1) + 1, ctx));
            }
        } else {
            tell!(self.on_ack(count, ctx));
        }
        self.dupacks = 0;
        self.timer_after_new_ack(ctx);
        tell!(self.trace(ctx));
    }

    fn duplicate_ack(&mut self, rule: DupAcks, ack: &Packet, ctx: &mut AgentCtx) {
        if self.features.ignore_duplicate_deliveries && !self.in_recovery && ack.echo_seq < ack.seq {
            // caused by a packet the receiver already had, not by one beyond a hole
            return;
        }
        self.dupacks += 1;
        if self.in_recovery {
            tell!(self.on_recovery_dupack(ctx)); // each duplicate ACK means a packet has left the network
            tell!(self.trace(ctx));
            return;
        }
        if self.dupacks != rule.threshold {
            return;
        }
        if rule.recovery == Recovery::NewReno && self.win.una() < self.recover {
            // RFC 6582 §3.2 step 1: duplicates of packets sent before the last timeout (or
            // recovery) do not start another fast retransmit
            return;
        }
        let load = self.load();
        let missing = self.win.una();
        self.win.resend(missing);
        ctx.send(missing);
        tell!(self.on_packet_sent(missing, ctx));
        ctx.count(Event::FastRetransmit);
        let recovering = rule.recovery != Recovery::Tahoe;
        if recovering {
            self.in_recovery = true;
            self.recover = self.win.nxt();
        }
        self.ecn_recover = self.win.nxt(); // a loss's reduction answers this window's marks too
        let event = Congestion::FastRetransmit { dupacks: rule.threshold, recovering };
        tell!(self.on_congestion(event, load, &self.win, ctx));
        self.timer.restart(ctx);
        tell!(self.trace(ctx));
    }
}

impl<C: Controller, T: RetransmitTimer> Sender for Reliable<C, T> {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        tell!(self.on_start(&self.win, ctx));
        self.fill(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        self.fill(ctx);
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        if self.abandoned() {
            return;
        }
        tell!(self.on_ack_arrival(ack, &self.win, ctx));
        if self.features.sack {
            self.on_sack_ack(ack, ctx);
        } else {
            match (self.win.on_ack(ack.seq), self.dupack_rule) {
                (Some(acked), _) => self.new_ack(ack, acked, ctx),
                (None, Some(rule)) if self.win.in_flight() > 0 && ack.seq == self.win.una() => {
                    self.duplicate_ack(rule, ack, ctx)
                }
                (None, _) => {}
            }
        }
        if ack.congestion() && self.acks.ecn != EcnEcho::Off {
            self.ecn_echo(ctx);
        }
        if self.features.sack && self.in_recovery {
            // a SACK recovery sends what it allows itself
            self.note_window_limit(self.ctrl.window(), ctx);
        } else {
            self.fill(ctx);
        }
    }

    fn ack_policy(&self) -> AckPolicy {
        self.acks
    }

    fn has_window_limit(&self) -> bool {
        !self.ctrl.fixed_window()
    }

    fn largest_window(&self) -> Option<f64> {
        self.has_window_limit().then_some(self.cap as f64)
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx) {
        if self.abandoned() {
            return; // a pacing slot, a loss probe or a reordering timer would send again
        }
        if timer == PACE {
            self.pacer.fired();
            self.fill(ctx);
            return;
        }
        if timer == RACK_TIMER {
            self.rack_timer_fired(ctx);
            return;
        }
        self.timer.fired();
        if self.win.in_flight() == 0 {
            return;
        }
        self.timeouts_in_a_row += 1;
        if self.abandoned() {
            ctx.count(Event::Abandoned);
            return;
        }
        let load = self.load();
        self.in_recovery = false;
        // RFC 6582 §3.2 step 4: remember the highest packet sent, for NewReno's step 1
        self.recover = self.win.high();
        self.ecn_recover = self.win.high();
        self.dupacks = 0;
        ctx.count(Event::Timeout);
        self.undo = None;
        if self.rack.is_some() {
            self.rack_timed_out(ctx);
        }
        self.timer.expired(&mut self.win, ctx);
        tell!(self.on_congestion(Congestion::Timeout, load, &self.win, ctx));
        tell!(self.trace(ctx));
        self.fill(ctx);
        self.timer.after_expiry_sends(ctx);
    }
}

mod rack;
mod sack;
#[cfg(test)]
mod tests;
