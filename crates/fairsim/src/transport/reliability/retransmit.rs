//! The retransmission timer of the reliability layer, in its two kinds (a type parameter of
//! `Reliable`, so the per-ACK path has no dispatch):
//! - `AveragedTimer`: Generic's β·rtt with an exponentially averaged rtt that takes every
//!   sample, a retransmitted packet's from its first transmission; armed when a packet leaves an
//!   idle sender, no backoff; on expiry resends all or the oldest (`averaged_timeout`).
//! - `RtoTimer`: Jacobson/Karels srtt + k·rttvar with Karn's rule and exponential backoff, armed
//!   after a window's sends from idle; on expiry goes back to the oldest (`rto`).
//!
//! The two differ in when they arm (per packet from idle, or once after the sends) and so in
//! the order of the sender's actions; both orders are kept exactly as the protocols' own.

use super::averaged_timeout::{AveragedTimeout, Resend, RETRANSMIT};
use super::controller::Timeout;
use super::rto::{Rto, RtoConfig};
use super::window::{Acked, SendWindow};
use crate::transport::sender::AgentCtx;
use crate::units::Time;

pub trait RetransmitTimer: Send + Sync + 'static {
    /// A round trip measured by an ACK that acknowledged `acked`, echoing the send time
    /// `echoed` of the transmission that caused it.
    fn sample(&mut self, acked: &Acked, echoed: Time, ctx: &AgentCtx);
    /// Sets the timer from now.
    fn restart(&mut self, ctx: &mut AgentCtx);
    /// A packet left the sender.
    fn on_send(&mut self, _ctx: &mut AgentCtx) {}
    /// The sender, idle before, sent a window's worth.
    fn after_sends_from_idle(&mut self, _ctx: &mut AgentCtx) {}
    /// After an ACK that advanced the window: restart if packets remain outstanding, else stop.
    fn after_new_ack(&mut self, outstanding: bool, ctx: &mut AgentCtx);
    /// The timer went off (whether or not anything is outstanding).
    fn fired(&mut self) {}
    /// The timer expired with packets outstanding: backs off and retransmits (or rewinds `win`
    /// for the caller to send from the oldest on).
    fn expired(&mut self, win: &mut SendWindow, ctx: &mut AgentCtx);
    /// After the sends that follow an expiry.
    fn after_expiry_sends(&mut self, _ctx: &mut AgentCtx) {}
    /// The round-trip estimate, seconds (`None` before a sample), and what gives the timeout.
    fn estimate(&self) -> (Option<f64>, Timeout);
    /// The smoothed round trip (`None` before a sample): `estimate`'s, without building the
    /// timeout's state (RACK-TLP reads it on every ACK).
    fn srtt(&self) -> Option<Time> {
        self.estimate().0.map(Time::from_secs_f64)
    }
    /// When the timer will expire, if it is armed and says (a tail loss probe is never later).
    fn deadline(&self) -> Option<Time> {
        None
    }
}

pub struct AveragedTimer {
    pub(in crate::transport) timer: AveragedTimeout,
    pub(in crate::transport) resend: Resend,
}

impl RetransmitTimer for AveragedTimer {
    #[inline]
    fn sample(&mut self, acked: &Acked, _echoed: Time, ctx: &AgentCtx) {
        self.timer.sample((ctx.now - acked.newest_first_sent).as_secs_f64());
    }
    fn restart(&mut self, ctx: &mut AgentCtx) {
        self.timer.restart(ctx);
    }
    #[inline]
    fn on_send(&mut self, ctx: &mut AgentCtx) {
        self.timer.arm_if_idle(ctx);
    }
    #[inline]
    fn after_new_ack(&mut self, outstanding: bool, ctx: &mut AgentCtx) {
        self.timer.after_ack(outstanding, ctx);
    }
    fn fired(&mut self) {
        self.timer.fired();
    }
    fn expired(&mut self, win: &mut SendWindow, ctx: &mut AgentCtx) {
        self.timer.resend(self.resend, win, ctx);
    }
    fn estimate(&self) -> (Option<f64>, Timeout) {
        (Some(self.timer.rtt()), Timeout::Fixed(self.timer.timeout().as_secs_f64()))
    }
}

pub struct RtoTimer {
    pub(in crate::transport) rto: Rto,
    pub(in crate::transport) cfg: RtoConfig,
    /// Round trips from the echoed send time of every ACK's transmission (the timestamp
    /// option, RFC 7323 §4), retransmissions included, instead of Karn's rule.
    pub(in crate::transport) timestamps: bool,
    /// When it expires, if armed.
    deadline: Option<Time>,
}

impl RtoTimer {
    pub fn new(cfg: RtoConfig, timestamps: bool) -> RtoTimer {
        RtoTimer { rto: Rto::default(), cfg, timestamps, deadline: None }
    }
}

impl RetransmitTimer for RtoTimer {
    #[inline]
    fn sample(&mut self, acked: &Acked, echoed: Time, ctx: &AgentCtx) {
        if self.timestamps {
            // the echo names the very transmission, so a retransmission's round trip is sure
            self.rto.sample((ctx.now - echoed).as_secs_f64());
            return;
        }
        // Karn: a retransmitted packet's round trip is ambiguous
        if !acked.newest_retransmitted {
            self.rto.sample((ctx.now - acked.newest_first_sent).as_secs_f64());
        }
    }
    fn restart(&mut self, ctx: &mut AgentCtx) {
        let at = ctx.now + self.rto.timeout(&self.cfg);
        self.deadline = Some(at);
        ctx.set_timeout(RETRANSMIT, at);
    }
    fn after_sends_from_idle(&mut self, ctx: &mut AgentCtx) {
        self.restart(ctx);
    }
    #[inline]
    fn after_new_ack(&mut self, outstanding: bool, ctx: &mut AgentCtx) {
        if outstanding {
            self.restart(ctx);
        } else {
            self.deadline = None;
            ctx.cancel_timer(RETRANSMIT);
        }
    }
    fn fired(&mut self) {
        self.deadline = None;
    }
    fn deadline(&self) -> Option<Time> {
        self.deadline
    }
    fn srtt(&self) -> Option<Time> {
        self.rto.srtt().map(Time::from_secs_f64)
    }
    fn expired(&mut self, win: &mut SendWindow, _ctx: &mut AgentCtx) {
        self.rto.back_off();
        win.go_back();
    }
    fn after_expiry_sends(&mut self, ctx: &mut AgentCtx) {
        self.restart(ctx);
    }
    fn estimate(&self) -> (Option<f64>, Timeout) {
        (self.rto.srtt(), Timeout::Rto(self.rto, self.cfg))
    }
}
