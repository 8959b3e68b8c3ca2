//! Generic's retransmission timer, shared with DECbit: β times an exponentially averaged round
//! trip (Demers, Keshav & Shenker 1989 §3; Keshav 1991 §6.5). The average starts at the initial
//! estimate and takes every sample, a retransmitted packet's measured from its first
//! transmission (the caller's business). One timer per flow: armed when a packet leaves an idle
//! sender, restarted by every ACK that advances the window, cancelled when nothing is outstanding.
//!
//! Left open by both papers: a floor under the timeout. Neither gives one; `min_timeout`
//! (default 0, none) lets a scenario set one, e.g. 4.3BSD's 1 s minimum that the JK source of
//! the same papers has, where β·rtt on a short, idle path is below the spacing of delayed or
//! clocked traffic and fires spuriously.

use super::window::SendWindow;
use crate::params::ParamError;
use crate::transport::sender::AgentCtx;
use crate::transport::sender::TimerId;
use crate::units::Time;
use serde::{Deserialize, Serialize};

pub const RETRANSMIT: TimerId = TimerId(0);

/// What a timeout sends again. The papers say "packets not acknowledged before the timeout are
/// retransmitted" without saying whether all of them go again at once.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Resend {
    /// Every unacknowledged packet, from the oldest on (go-back-N; 4.2BSD TCP's behaviour).
    #[default]
    All,
    /// The oldest unacknowledged packet only; the cumulative ACK of its retransmission covers
    /// what arrived after it.
    Oldest,
}

#[derive(Debug, Clone)]
pub struct AveragedTimeout {
    rtt: f64,
    beta: f64,
    gain: f64,
    /// The timeout is never shorter than this.
    floor: Time,
    armed: bool,
}

impl AveragedTimeout {
    /// Checks the parameters: a timeout that can be zero would fire again at the instant it
    /// was set, and a go-back-N sender would resend at that instant for ever.
    pub fn check(initial_rtt: Time, beta: f64, gain: f64) -> Result<(), ParamError> {
        if initial_rtt == Time::ZERO {
            return Err(ParamError::at("initial_rtt", "must be longer than 0s (the first timeout is beta times it)"));
        }
        if !(beta > 0.0 && beta.is_finite()) {
            return Err(ParamError::at("beta", "the timeout multiplier must be positive"));
        }
        if !(gain > 0.0 && gain <= 1.0) {
            return Err(ParamError::at("gain", "the averaging gain must be in (0, 1]"));
        }
        Ok(())
    }

    pub fn new(initial_rtt: Time, beta: f64, gain: f64, floor: Time) -> AveragedTimeout {
        AveragedTimeout { rtt: initial_rtt.as_secs_f64(), beta, gain, floor, armed: false }
    }

    /// The averaged round trip, seconds.
    pub fn rtt(&self) -> f64 {
        self.rtt
    }

    /// The timeout it sets: β times the averaged round trip, at least the floor.
    pub fn timeout(&self) -> Time {
        Time::from_secs_f64(self.beta * self.rtt).max(self.floor)
    }

    pub fn sample(&mut self, secs: f64) {
        self.rtt = (1.0 - self.gain) * self.rtt + self.gain * secs;
    }

    pub fn restart(&mut self, ctx: &mut AgentCtx) {
        ctx.set_timeout(RETRANSMIT, ctx.now + self.timeout());
        self.armed = true;
    }

    /// Arms the timer for a packet leaving a sender that had nothing outstanding.
    pub fn arm_if_idle(&mut self, ctx: &mut AgentCtx) {
        if !self.armed {
            self.restart(ctx);
        }
    }

    /// After an ACK advanced the window: restart if packets remain outstanding, else cancel.
    pub fn after_ack(&mut self, outstanding: bool, ctx: &mut AgentCtx) {
        if outstanding {
            self.restart(ctx);
        } else {
            ctx.cancel_timer(RETRANSMIT);
            self.armed = false;
        }
    }

    /// The timer went off.
    pub fn fired(&mut self) {
        self.armed = false;
    }

    /// After a timeout with packets outstanding: sends the oldest again (`Oldest`) and restarts
    /// the timer, or rewinds the window (`All`) for the caller to send from the oldest on.
    pub fn resend(&mut self, how: Resend, win: &mut SendWindow, ctx: &mut AgentCtx) {
        match how {
            Resend::All => win.go_back(),
            Resend::Oldest => {
                let oldest = win.una();
                win.resend(oldest);
                ctx.send(oldest);
                self.restart(ctx);
            }
        }
    }
}
