//! Pacing in the reliability layer: when the controller gives a rate (`Controller::pacing_rate`,
//! packets per second), packets leave at most one per 1/rate, the next one `1/rate` after the
//! last, on an exact timer (`TimerId(1)`, free in every window-based sender; `TimerId(0)` is the
//! retransmission timer, the last slot the sink's delayed ACK).
//!
//! As Linux's internal pacing (`tcp_internal_pacing`) or its `fq` discipline do: a send that
//! finds the pacing time passed goes at once and the next is due 1/rate after it, so a sender
//! held back by its window earns no credit for the time it waited. Retransmissions the layer
//! sends outside its window loop (fast retransmit, NewReno's partial ACKs) are not paced.

use super::{AgentCtx, TimerId};
use crate::units::Time;

/// The pacing timer.
pub const PACE: TimerId = TimerId(1);

#[derive(Debug, Default)]
pub struct Pacer {
    /// The earliest the next packet may leave.
    next: Time,
    /// When the pacing timer is armed for, so that it is armed once per wait.
    armed: Option<Time>,
}

impl Pacer {
    /// Whether a packet may leave now under `rate`; if it may, its departure is counted, and if
    /// not, the timer is armed for the moment it may. Without a rate, always.
    #[inline]
    pub fn may_send(&mut self, rate: Option<f64>, ctx: &mut AgentCtx) -> bool {
        let Some(rate) = rate else { return true };
        if ctx.now < self.next {
            if self.armed != Some(self.next) {
                ctx.set_timer(PACE, self.next);
                self.armed = Some(self.next);
            }
            return false;
        }
        self.next = ctx.now + Time::from_secs_f64(1.0 / rate);
        true
    }

    /// The pacing timer went off.
    pub fn fired(&mut self) {
        self.armed = None;
    }
}
