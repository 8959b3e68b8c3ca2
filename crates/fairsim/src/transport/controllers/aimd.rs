//! Jacobson's window law, the controller of JK (Tahoe), Reno and NewReno: slow start,
//! congestion avoidance, halving on loss.
//!
//! References:
//! - JK: V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988; modelled, as Demers,
//!   Keshav & Shenker 1989 §3 and Keshav 1991 §6.5 do, by adding to Generic "adjustable
//!   windows, better timeout calculations and fast retransmit" (4.3BSD Tahoe): after a fast
//!   retransmit the window restarts from one packet.
//! - Reno: fast recovery as in RFC 2581 (W. Stevens, RFC 2001): after fast retransmit
//!   ssthresh = max(flight/2, 2), cwnd = ssthresh + 3, +1 per further duplicate ACK, back to
//!   ssthresh on the ACK that ends recovery.
//! - NewReno: RFC 6582: a partial ACK deflates the window by what it acknowledged, less one.
//!
//! The three differ only in how the reliability layer recovers (`reliable::Recovery`); this
//! file is the window they share. Choices (parameters): windows count packets;
//! `counting = "packets"` grows cwnd per ACK (RFC 5681), `"bytes"` by the packets an ACK covers
//! (appropriate byte counting, RFC 3465); initial cwnd 1, initial ssthresh unbounded (the flow's
//! window caps it); on a timeout ssthresh = max(flight/2, 2) and cwnd = 1, or, with
//! `after_timeout = "halved"`, cwnd = ssthresh: Hasegawa, Matsuo, Murata & Miyahara 2001 §2.2
//! summarise Reno as halving the window on a loss "detected by timeout or fast retransmission".
//! "flight" is RFC 5681's FlightSize with `classic`; `ssthresh_from` makes it the pipe (ns-3's
//! `TcpNewReno::GetSsThresh` on `BytesInFlight()`) or the congestion window (the `linux` stack:
//! Linux's `tcp_reno_ssthresh`, cwnd/2).

use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::transport::reliability::controller::{Congestion, Controller, Load, NewAck};
use crate::transport::reliability::reliable::{Recovery, Reliable, TcpReliability};
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, Series};
use crate::transport::stack::Stack;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Counting {
    #[default]
    Packets,
    Bytes,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AimdConfig {
    /// The congestion window at the start, packets.
    pub initial_cwnd: f64,
    /// The slow-start threshold at the start, packets; unbounded when absent.
    pub initial_ssthresh: Option<f64>,
    /// What an ACK grows the window by: per ACK (`packets`) or per packet acknowledged (`bytes`).
    pub counting: Counting,
    /// The window after a timeout: `one` packet (RFC 5681) or `halved` (the new ssthresh, as
    /// Hasegawa et al. 2001 model Reno).
    pub after_timeout: AfterTimeout,
    /// What the slow-start threshold after a loss is half of (CUBIC: β of): `flight`, the
    /// packets outstanding (RFC 5681's FlightSize, `classic`); `pipe`, those of them still in the
    /// network (RFC 6675's pipe: ns-3's `BytesInFlight()`); or `cwnd`, the congestion window
    /// (Linux's `tcp_reno_ssthresh` and CUBIC's `bictcp_recalc_ssthresh`, `linux`).
    pub ssthresh_from: SsthreshFrom,
}

/// What the slow-start threshold after a loss is computed from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    #[default]
    Flight,
    Pipe,
    Cwnd,
}

/// The congestion window after a retransmission timeout.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AfterTimeout {
    #[default]
    One,
    Halved,
}

impl AimdConfig {
    /// The window's options as `stack` chooses them: the initial window and how ACKs grow it.
    pub fn of_stack(stack: Stack) -> AimdConfig {
        match stack {
            Stack::Linux => AimdConfig {
                initial_cwnd: 10.0,
                counting: Counting::Bytes,
                ssthresh_from: SsthreshFrom::Cwnd,
                ..Default::default()
            },
            Stack::Classic => AimdConfig::default(),
        }
    }
}

impl Default for AimdConfig {
    fn default() -> Self {
        AimdConfig {
            initial_cwnd: 1.0,
            initial_ssthresh: None,
            counting: Counting::Packets,
            after_timeout: AfterTimeout::One,
            ssthresh_from: SsthreshFrom::Flight,
        }
    }
}

pub struct Aimd {
    counting: Counting,
    after_timeout: AfterTimeout,
    ssthresh_from: SsthreshFrom,
    /// The flow's window: growing past it only delays the reaction to the next loss.
    cap: f64,
    pub(in crate::transport) cwnd: f64,
    pub(in crate::transport) ssthresh: f64,
    /// The window and threshold before the last fast recovery's reduction, for its `undo`.
    before_reduction: Option<(f64, f64)>,
}

impl Aimd {
    pub fn checked(cfg: &AimdConfig, window: u32) -> Result<Aimd, ParamError> {
        if cfg.initial_cwnd.is_nan() || cfg.initial_cwnd < 1.0 {
            return Err(ParamError::at("initial_cwnd", "must be at least 1 packet"));
        }
        Ok(Aimd {
            counting: cfg.counting,
            after_timeout: cfg.after_timeout,
            ssthresh_from: cfg.ssthresh_from,
            cap: window as f64,
            cwnd: cfg.initial_cwnd,
            ssthresh: cfg.initial_ssthresh.unwrap_or(f64::INFINITY),
            before_reduction: None,
        })
    }

    /// The response to a loss with the new slow-start threshold `ssthresh`: fast recovery starts
    /// from it (plus the duplicate ACKs that left the network), a timeout from one packet.
    pub(in crate::transport) fn reduce(&mut self, event: Congestion, ssthresh: f64) {
        // what an undo restores: the window, and a threshold of at least three quarters of it
        // (Linux's `prior_ssthresh`, `tcp_current_ssthresh`)
        self.before_reduction = matches!(event, Congestion::FastRetransmit { .. })
            .then_some((self.cwnd, self.ssthresh.max(0.75 * self.cwnd)));
        self.ssthresh = ssthresh;
        self.cwnd = match event {
            Congestion::FastRetransmit { dupacks, recovering: true } => self.ssthresh + dupacks as f64,
            Congestion::Timeout if self.after_timeout == AfterTimeout::Halved => self.ssthresh,
            Congestion::Ecn => self.ssthresh,
            Congestion::FastRetransmit { recovering: false, .. } | Congestion::Timeout => 1.0,
        };
    }

    /// What a new slow-start threshold is computed from after a loss with `load` outstanding,
    /// in packets (`ssthresh_from`).
    pub(in crate::transport) fn loss_base(&self, load: Load) -> f64 {
        match self.ssthresh_from {
            SsthreshFrom::Flight => load.flight as f64,
            SsthreshFrom::Pipe => load.pipe as f64,
            SsthreshFrom::Cwnd => self.cwnd,
        }
    }

    /// Growing past the flow's window only delays the reaction to the next loss.
    pub(in crate::transport) fn cap_window(&mut self) {
        self.cwnd = self.cwnd.min(self.cap);
    }

    /// What an ACK of `ack.count` packets grows the window by, in packets.
    pub(in crate::transport) fn units(&self, ack: NewAck) -> f64 {
        match self.counting {
            Counting::Packets => 1.0,
            Counting::Bytes => ack.count as f64,
        }
    }
}

/// Half of `base` (`Aimd::loss_base`), at least two packets: the new ssthresh after a loss.
fn halved(base: f64) -> f64 {
    (base / 2.0).max(2.0)
}

impl Controller for Aimd {
    fn window(&self) -> u64 {
        self.cwnd.floor() as u64
    }

    fn on_start(&mut self, _win: &SendWindow, ctx: &mut AgentCtx) {
        self.trace(ctx);
    }

    fn on_ack(&mut self, ack: NewAck, _ctx: &mut AgentCtx) {
        let units = self.units(ack);
        if self.cwnd >= self.ssthresh {
            self.cwnd += units / self.cwnd;
        } else if self.counting == Counting::Packets {
            self.cwnd += units;
        } else {
            // counting packets acknowledged, slow start stops at ssthresh and the rest of the
            // ACK counts in congestion avoidance (Linux's tcp_slow_start): an ACK that covers a
            // SACKed window after a timeout must not open the window by all of it at once
            let slow = units.min(self.ssthresh - self.cwnd);
            self.cwnd += slow;
            self.cwnd += (units - slow) / self.cwnd;
        }
        self.cap_window();
    }

    fn on_congestion(&mut self, event: Congestion, load: Load, _win: &SendWindow, _ctx: &mut AgentCtx) {
        self.reduce(event, halved(self.loss_base(load)));
    }

    fn on_recovery_dupack(&mut self, _ctx: &mut AgentCtx) {
        self.cwnd += 1.0;
    }

    fn on_partial_ack(&mut self, ack: NewAck, _ctx: &mut AgentCtx) {
        self.cwnd = (self.cwnd - ack.count as f64 + 1.0).max(1.0);
    }

    fn on_recovery_end(&mut self, _ctx: &mut AgentCtx) {
        self.cwnd = self.ssthresh;
    }

    fn moderate(&mut self, packets: u64, _ctx: &mut AgentCtx) {
        self.cwnd = self.cwnd.min(packets as f64);
    }

    /// Linux's `tcp_undo_cwnd_reduction` with Reno's `undo_cwnd`: the window at least what it
    /// was before the reduction, the threshold at least its `prior_ssthresh`.
    fn undo(&mut self, _ctx: &mut AgentCtx) {
        if let Some((cwnd, ssthresh)) = self.before_reduction.take() {
            self.cwnd = self.cwnd.max(cwnd).min(self.cap);
            self.ssthresh = self.ssthresh.max(ssthresh);
        }
    }

    fn trace(&self, ctx: &mut AgentCtx) {
        ctx.record(Series::Cwnd, self.cwnd);
        if self.ssthresh.is_finite() {
            ctx.record(Series::Ssthresh, self.ssthresh);
        }
    }

    fn after_fill(&self, in_flight: u64, ctx: &mut AgentCtx) {
        ctx.record(Series::Outstanding, in_flight as f64);
    }
}

/// Implements the `Controller` events that a controller built on Jacobson's window (in its field
/// `aimd`) leaves to it: the window itself, the start, fast recovery's inflation and deflation,
/// and tracing. CUBIC, DCTCP and Vegas replace growth and the decrease, and keep these.
macro_rules! reno_recovery {
    () => {
        fn window(&self) -> u64 {
            self.aimd.window()
        }

        fn on_start(&mut self, win: &SendWindow, ctx: &mut AgentCtx) {
            self.aimd.on_start(win, ctx);
        }

        fn on_recovery_dupack(&mut self, ctx: &mut AgentCtx) {
            self.aimd.on_recovery_dupack(ctx);
        }

        fn on_partial_ack(&mut self, ack: NewAck, ctx: &mut AgentCtx) {
            self.aimd.on_partial_ack(ack, ctx);
        }

        fn on_recovery_end(&mut self, ctx: &mut AgentCtx) {
            self.aimd.on_recovery_end(ctx);
        }

        fn moderate(&mut self, packets: u64, ctx: &mut AgentCtx) {
            self.aimd.moderate(packets, ctx);
        }

        fn undo(&mut self, ctx: &mut AgentCtx) {
            self.aimd.undo(ctx);
        }

        fn trace(&self, ctx: &mut AgentCtx) {
            self.aimd.trace(ctx);
        }

        fn after_fill(&self, in_flight: u64, ctx: &mut AgentCtx) {
            self.aimd.after_fill(in_flight, ctx);
        }
    };
}
pub(in crate::transport) use reno_recovery;

/// Today's TCP's options (`stack = "linux"`): the reliability layer's, and the initial window.
pub fn linux_stack() -> (TcpReliability, AimdConfig) {
    (TcpReliability::of_stack(Stack::Linux), AimdConfig::of_stack(Stack::Linux))
}

/// JK: Jacobson's window without fast recovery, the papers' window of 5.
pub static JK: TransportDeclaration<(TcpReliability, AimdConfig)> = Declaration {
    about: About {
        name: "jk",
        summary: "Jacobson/Karels (4.3BSD Tahoe): slow start, congestion avoidance, fast retransmit",
        reference: "Jacobson, SIGCOMM 1988; as modelled by DKS 1989 §3 and Keshav 1991 §6.5",
    },
    defaults: || (TcpReliability { window: 5, ..Default::default() }, AimdConfig::default()),
    build: |(r, a), _| Ok(Box::new(Reliable::tcp(r, Recovery::Tahoe, Aimd::checked(a, r.window)?)?)),
};

/// Reno: Jacobson's window with fast recovery.
pub static RENO: TransportDeclaration<(TcpReliability, AimdConfig)> = Declaration {
    about: About {
        name: "reno",
        summary: "TCP Reno: JK plus fast recovery",
        reference: "RFC 2581 (Stevens, RFC 2001)",
    },
    defaults: linux_stack,
    build: |(r, a), _| Ok(Box::new(Reliable::tcp(r, Recovery::Reno, Aimd::checked(a, r.window)?)?)),
};

/// NewReno: Reno with partial ACKs.
pub static NEWRENO: TransportDeclaration<(TcpReliability, AimdConfig)> = Declaration {
    about: About {
        name: "newreno",
        summary: "TCP NewReno: Reno that repairs several losses of a window by partial ACKs",
        reference: "RFC 6582",
    },
    defaults: linux_stack,
    build: |(r, a), _| Ok(Box::new(Reliable::tcp(r, Recovery::NewReno, Aimd::checked(a, r.window)?)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Time;

    fn after_timeout(rule: AfterTimeout) -> (f64, f64) {
        let cfg =
            AimdConfig { initial_cwnd: 16.0, initial_ssthresh: Some(8.0), after_timeout: rule, ..Default::default() };
        let mut a = Aimd::checked(&cfg, 64).unwrap();
        let (mut actions, win) = (vec![], SendWindow::default());
        a.on_congestion(
            Congestion::Timeout,
            Load { flight: 16, pipe: 16 },
            &win,
            &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions),
        );
        (a.cwnd, a.ssthresh)
    }

    #[test]
    fn counting_packets_acknowledged_slow_start_stops_at_ssthresh() {
        // RFC 3465 counting, as Linux's tcp_slow_start: an ACK of 40 packets at cwnd 2 with
        // ssthresh 10 takes 8 to reach ssthresh and counts the other 32 at 1/cwnd each
        let cfg = AimdConfig {
            initial_cwnd: 2.0,
            initial_ssthresh: Some(10.0),
            counting: Counting::Bytes,
            ..Default::default()
        };
        let mut a = Aimd::checked(&cfg, 1000).unwrap();
        let mut actions = vec![];
        a.on_ack(NewAck { count: 40 }, &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions));
        assert_eq!(a.cwnd, 10.0 + 32.0 / 10.0);
    }

    #[test]
    fn a_timeout_restarts_from_one_packet_or_as_hasegawa_et_al_model_it_from_half() {
        assert_eq!(after_timeout(AfterTimeout::One), (1.0, 8.0), "RFC 5681");
        assert_eq!(after_timeout(AfterTimeout::Halved), (8.0, 8.0), "ssth = cwnd/2; cwnd = ssth");
    }
}
