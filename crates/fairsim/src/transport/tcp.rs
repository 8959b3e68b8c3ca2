//! TCP-style window flow control: Jacobson/Karels (Tahoe), Reno, NewReno — and Vegas, which
//! keeps Reno's loss recovery and replaces how the window grows (see `vegas`).
//!
//! References:
//! - JK: V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988, with the RTO of
//!   Jacobson & Karels; modelled, as Demers, Keshav & Shenker 1989 §3 and Keshav 1991 §6.5 do,
//!   by adding to Generic "adjustable windows, better timeout calculations and fast
//!   retransmit" (4.3BSD Tahoe): slow start, congestion avoidance, fast retransmit after
//!   `dupack_threshold` duplicate ACKs followed by slow start from one packet, Karn's rule,
//!   exponential backoff, window capped by `window`.
//! - Reno: fast recovery as in RFC 2581 (W. Stevens, RFC 2001): after fast retransmit,
//!   ssthresh = max(flight/2, 2), cwnd = ssthresh + 3, +1 per further duplicate ACK, back to
//!   ssthresh on the next new ACK.
//! - NewReno: RFC 6582: a partial ACK during recovery retransmits the next hole and stays in
//!   recovery until everything outstanding when it began is acknowledged, so several losses in
//!   one window are repaired without a timeout.
//!
//! Choices (all parameters): windows count packets; `counting = "packets"` grows cwnd per ACK
//! (RFC 5681), `"bytes"` by the packets an ACK covers (appropriate byte counting, RFC 3465);
//! initial cwnd 1, initial ssthresh unbounded (the window caps it); the RTO of `rto`; on a
//! timeout ssthresh = max(flight/2, 2), cwnd = 1, and everything outstanding is sent again
//! (go-back-N, as BSD does). JK's fast retransmit resends only the missing packet and sets
//! cwnd = 1 (BSD Tahoe). Duplicate ACKs are counted only while data is outstanding.

use super::rto::{Rto, RtoConfig};
use super::vegas::{Vegas, VegasConfig};
use super::window::SendWindow;
use super::{AgentCtx, Event, Sender, Series};
use crate::net::Packet;
use crate::params::ParamError;
use crate::transport::TimerId;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counting {
    #[default]
    Packets,
    Bytes,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// The largest window, in packets (the receiver's window).
    pub window: u32,
    pub dupack_threshold: u32,
    pub initial_cwnd: f64,
    /// Unbounded when absent.
    pub initial_ssthresh: Option<f64>,
    pub counting: Counting,
    /// The retransmission timer (see `rto`).
    pub initial_rto: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    pub rttvar_factor: f64,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            window: 64,
            dupack_threshold: 3,
            initial_cwnd: 1.0,
            initial_ssthresh: None,
            counting: Counting::Packets,
            initial_rto: RtoConfig::default().initial_rto,
            min_rto: RtoConfig::default().min_rto,
            max_rto: RtoConfig::default().max_rto,
            rttvar_factor: RtoConfig::default().rttvar_factor,
        }
    }
}

impl TcpConfig {
    fn rto(&self) -> RtoConfig {
        RtoConfig {
            initial_rto: self.initial_rto,
            min_rto: self.min_rto,
            max_rto: self.max_rto,
            rttvar_factor: self.rttvar_factor,
        }
    }
}

/// How losses detected by duplicate ACKs are handled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Fast retransmit, then slow start from one packet (JK / 4.3BSD Tahoe).
    Tahoe,
    /// Fast retransmit and fast recovery (RFC 2581).
    Reno,
    /// Reno with partial ACKs (RFC 6582).
    NewReno,
}

const RETRANSMIT: TimerId = TimerId(0);

pub struct Tcp {
    cfg: TcpConfig,
    rto_cfg: RtoConfig,
    recovery: Recovery,
    vegas: Option<Vegas>,
    win: SendWindow,
    cwnd: f64,
    ssthresh: f64,
    rto: Rto,
    dupacks: u32,
    /// In fast recovery until `recover` (the highest sequence sent when it began) is acknowledged.
    in_recovery: bool,
    recover: u64,
}

impl Tcp {
    pub fn new(cfg: TcpConfig, recovery: Recovery, vegas: Option<VegasConfig>) -> Result<Tcp, ParamError> {
        if cfg.window == 0 {
            return Err(ParamError::at("window", "a window must be at least 1 packet"));
        }
        if cfg.dupack_threshold == 0 {
            return Err(ParamError::at("dupack_threshold", "must be at least 1 duplicate ACK"));
        }
        if cfg.initial_cwnd.is_nan() || cfg.initial_cwnd < 1.0 {
            return Err(ParamError::at("initial_cwnd", "must be at least 1 packet"));
        }
        cfg.rto().check()?;
        let vegas = vegas.map(Vegas::checked).transpose()?;
        Ok(Tcp {
            cwnd: cfg.initial_cwnd,
            ssthresh: cfg.initial_ssthresh.unwrap_or(f64::INFINITY),
            recovery,
            vegas,
            win: SendWindow::default(),
            rto: Rto::default(),
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            rto_cfg: cfg.rto(),
            cfg,
        })
    }

    /// Packets that may be outstanding: the congestion window, capped by the window.
    fn allowed(&self) -> u64 {
        (self.cwnd.floor() as u64).clamp(1, self.cfg.window as u64)
    }

    fn trace(&self, ctx: &mut AgentCtx) {
        ctx.record(Series::Cwnd, self.cwnd);
        if self.ssthresh.is_finite() {
            ctx.record(Series::Ssthresh, self.ssthresh);
        }
    }

    fn arm(&mut self, ctx: &mut AgentCtx) {
        ctx.set_timer(RETRANSMIT, ctx.now + self.rto.timeout(&self.rto_cfg));
    }

    fn fill(&mut self, ctx: &mut AgentCtx) {
        let idle = self.win.in_flight() == 0;
        let mut sent = false;
        while self.win.can_send(self.allowed(), ctx.app_limit) {
            let seq = self.win.send_next(ctx.now);
            ctx.send(seq);
            sent = true;
        }
        if sent && idle {
            self.arm(ctx);
        }
        ctx.record(Series::Outstanding, self.win.in_flight() as f64);
    }

    /// Half the data in flight, at least two packets: the new ssthresh after a loss.
    fn halved(&self) -> f64 {
        ((self.win.in_flight() as f64) / 2.0).max(2.0)
    }

    fn grow(&mut self, acked: u64, ctx: &mut AgentCtx) {
        let units = match self.cfg.counting {
            Counting::Packets => 1.0,
            Counting::Bytes => acked as f64,
        };
        if let Some(v) = &mut self.vegas {
            v.grow(&mut self.cwnd, &mut self.ssthresh, units, ctx);
            return;
        }
        if self.cwnd < self.ssthresh {
            self.cwnd += units;
        } else {
            self.cwnd += units / self.cwnd;
        }
        // growing past the window only delays the reaction to the next loss
        self.cwnd = self.cwnd.min(self.cfg.window as f64);
    }

    fn new_ack(&mut self, ack: &Packet, acked: super::window::Acked, ctx: &mut AgentCtx) {
        if !acked.newest_retransmitted {
            self.rto.sample((ctx.now - acked.newest_first_sent).as_secs_f64());
        }
        if let Some(v) = &mut self.vegas {
            v.on_rtt((ctx.now - ack.echo_sent_at).as_secs_f64(), ack.seq, self.win.nxt());
        }
        if self.in_recovery {
            if self.recovery == Recovery::NewReno && ack.seq < self.recover {
                // partial ACK: the next hole was lost too; deflate by what was acknowledged
                let next = self.win.una();
                self.win.resend(next);
                ctx.send(next);
                self.cwnd = (self.cwnd - acked.count as f64 + 1.0).max(1.0);
                self.arm(ctx);
                self.trace(ctx);
                return;
            }
            self.in_recovery = false;
            self.cwnd = self.ssthresh;
        } else {
            self.grow(acked.count, ctx);
        }
        self.dupacks = 0;
        if self.win.in_flight() > 0 {
            self.arm(ctx);
        } else {
            ctx.cancel_timer(RETRANSMIT);
        }
        self.trace(ctx);
    }

    fn duplicate_ack(&mut self, ctx: &mut AgentCtx) {
        self.dupacks += 1;
        if self.in_recovery {
            self.cwnd += 1.0; // each duplicate ACK means a packet has left the network
            self.trace(ctx);
            return;
        }
        if self.dupacks != self.cfg.dupack_threshold {
            return;
        }
        let missing = self.win.una();
        self.ssthresh = self.halved();
        self.win.resend(missing);
        ctx.send(missing);
        ctx.count(Event::FastRetransmit);
        match self.recovery {
            Recovery::Tahoe => self.cwnd = 1.0,
            Recovery::Reno | Recovery::NewReno => {
                self.in_recovery = true;
                self.recover = self.win.nxt();
                self.cwnd = self.ssthresh + self.cfg.dupack_threshold as f64;
            }
        }
        if let Some(v) = &mut self.vegas {
            v.on_loss();
        }
        self.arm(ctx);
        self.trace(ctx);
    }
}

impl Sender for Tcp {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.trace(ctx);
        self.fill(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        self.fill(ctx);
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        match self.win.on_ack(ack.seq) {
            Some(acked) => self.new_ack(ack, acked, ctx),
            None if self.win.in_flight() > 0 && ack.seq == self.win.una() => self.duplicate_ack(ctx),
            None => {}
        }
        self.fill(ctx);
    }

    fn on_timer(&mut self, _timer: TimerId, ctx: &mut AgentCtx) {
        if self.win.in_flight() == 0 {
            return;
        }
        self.ssthresh = self.halved();
        self.cwnd = 1.0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.rto.back_off();
        ctx.count(Event::Timeout);
        if let Some(v) = &mut self.vegas {
            v.on_loss();
        }
        self.win.go_back();
        self.trace(ctx);
        self.fill(ctx);
        self.arm(ctx);
    }
}

#[cfg(test)]
mod tests;
