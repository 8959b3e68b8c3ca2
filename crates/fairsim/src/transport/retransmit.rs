//! The retransmission timer of the reliability layer, in its two kinds:
//! - `Averaged`: Generic's β·rtt with an exponentially averaged rtt that takes every sample,
//!   a retransmitted packet's from its first transmission; armed when a packet leaves an idle
//!   sender, no backoff; on expiry resends all or the oldest (`averaged_timeout`).
//! - `Rto`: Jacobson/Karels srtt + k·rttvar with Karn's rule and exponential backoff, armed
//!   after a window's sends from idle; on expiry goes back to the oldest (`rto`).
//!
//! The two differ in when they arm (per packet from idle, or once after the sends) and so in
//! the order of the sender's actions; both orders are kept exactly as the protocols' own.

use super::averaged_timeout::{AveragedTimeout, Resend, RETRANSMIT};
use super::rto::{Rto, RtoConfig};
use super::window::{Acked, SendWindow};
use super::AgentCtx;

pub enum RetransmitTimer {
    Averaged { timer: AveragedTimeout, resend: Resend },
    Rto { rto: Rto, cfg: RtoConfig },
}

impl RetransmitTimer {
    /// A round trip measured by an ACK that acknowledged `acked`.
    pub fn sample(&mut self, acked: &Acked, ctx: &AgentCtx) {
        let rtt = (ctx.now - acked.newest_first_sent).as_secs_f64();
        match self {
            RetransmitTimer::Averaged { timer, .. } => timer.sample(rtt),
            // Karn: a retransmitted packet's round trip is ambiguous
            RetransmitTimer::Rto { rto, .. } if !acked.newest_retransmitted => rto.sample(rtt),
            RetransmitTimer::Rto { .. } => {}
        }
    }

    /// Sets the timer from now.
    pub fn restart(&mut self, ctx: &mut AgentCtx) {
        match self {
            RetransmitTimer::Averaged { timer, .. } => timer.restart(ctx),
            RetransmitTimer::Rto { rto, cfg } => ctx.set_timer(RETRANSMIT, ctx.now + rto.timeout(cfg)),
        }
    }

    /// A packet left the sender.
    pub fn on_send(&mut self, ctx: &mut AgentCtx) {
        if let RetransmitTimer::Averaged { timer, .. } = self {
            timer.arm_if_idle(ctx);
        }
    }

    /// The sender, idle before, sent a window's worth.
    pub fn after_sends_from_idle(&mut self, ctx: &mut AgentCtx) {
        if let RetransmitTimer::Rto { .. } = self {
            self.restart(ctx);
        }
    }

    /// After an ACK that advanced the window: restart if packets remain outstanding, else stop.
    pub fn after_new_ack(&mut self, outstanding: bool, ctx: &mut AgentCtx) {
        match self {
            RetransmitTimer::Averaged { timer, .. } => timer.after_ack(outstanding, ctx),
            RetransmitTimer::Rto { .. } if outstanding => self.restart(ctx),
            RetransmitTimer::Rto { .. } => ctx.cancel_timer(RETRANSMIT),
        }
    }

    /// The timer went off (whether or not anything is outstanding).
    pub fn fired(&mut self) {
        if let RetransmitTimer::Averaged { timer, .. } = self {
            timer.fired();
        }
    }

    /// The timer expired with packets outstanding: backs off and retransmits (or rewinds `win`
    /// for the caller to send from the oldest on).
    pub fn expired(&mut self, win: &mut SendWindow, ctx: &mut AgentCtx) {
        match self {
            RetransmitTimer::Averaged { timer, resend } => timer.resend(*resend, win, ctx),
            RetransmitTimer::Rto { rto, .. } => {
                rto.back_off();
                win.go_back();
            }
        }
    }

    /// After the sends that follow an expiry.
    pub fn after_expiry_sends(&mut self, ctx: &mut AgentCtx) {
        if let RetransmitTimer::Rto { .. } = self {
            self.restart(ctx);
        }
    }

    /// The smoothed round trip of the RTO estimator, seconds (`None` before a sample).
    #[cfg(test)]
    pub fn srtt(&self) -> Option<f64> {
        match self {
            RetransmitTimer::Rto { rto, .. } => rto.srtt(),
            RetransmitTimer::Averaged { .. } => None,
        }
    }

    /// Generic's averaged rtt, seconds.
    #[cfg(test)]
    pub fn averaged_rtt(&self) -> Option<f64> {
        match self {
            RetransmitTimer::Averaged { timer, .. } => Some(timer.rtt()),
            RetransmitTimer::Rto { .. } => None,
        }
    }
}
