//! Pacing in the reliability layer: when the controller gives a rate (`Controller::pacing_rate`,
//! packets per second), packets leave at most one per 1/rate, the next one `1/rate` after the
//! last, on an exact timer (`TimerId(1)`, free in every window-based sender; `TimerId(0)` is the
//! retransmission timer, the last slot the sink's delayed ACK).
//!
//! As Linux's internal pacing (`tcp_internal_pacing`) or its `fq` discipline do: a send that
//! finds the pacing time passed goes at once and the next is due 1/rate after it, so a sender
//! held back by its window earns no credit for the time it waited. Retransmissions the layer
//! sends outside its window loop (fast retransmit, NewReno's partial ACKs) are not paced.

use crate::transport::sender::{AgentCtx, TimerId};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Packet, PacketKind};
    use crate::transport::reliability::controller::Controller;
    use crate::transport::reliability::reliable::{Recovery, Reliable, TcpReliability};
    use crate::transport::sender::{Action, Sender};

    /// A controller that allows `window` packets out, paced at `rate` if given.
    struct Stub {
        window: u64,
        rate: Option<f64>,
    }

    impl Controller for Stub {
        fn window(&self) -> u64 {
            self.window
        }
        fn pacing_rate(&self) -> Option<f64> {
            self.rate
        }
    }

    /// The layer under a stub, with the send times and the pacing timer it set.
    struct Run {
        tcp: Reliable<Stub>,
        sent: Vec<Time>,
        pace: Option<Time>,
    }

    impl Run {
        fn call(&mut self, now: Time, f: impl FnOnce(&mut Reliable<Stub>, &mut AgentCtx)) {
            let mut actions = vec![];
            f(&mut self.tcp, &mut AgentCtx::new(now, u64::MAX, &mut actions));
            for a in actions {
                match a {
                    Action::Send { .. } => self.sent.push(now),
                    Action::SetTimer(id, at) if id == PACE => self.pace = Some(at),
                    _ => {}
                }
            }
        }
    }

    /// Runs the layer until `until`: the pacing timer fires when armed; every packet is
    /// acknowledged `rtt` after it left. Returns the send times.
    fn sends(rate: Option<f64>, window: u64, rtt: Time, until: Time) -> Vec<Time> {
        let cfg = TcpReliability { window: 1000, ..Default::default() };
        let tcp = Reliable::tcp(&cfg, Recovery::NewReno, Stub { window, rate }).unwrap();
        let mut r = Run { tcp, sent: vec![], pace: None };
        r.call(Time::ZERO, |t, c| t.on_start(c));
        let mut acked = 0;
        loop {
            // the next event: the pacing timer or the next ACK
            let next_ack = r.sent.get(acked).map(|&s| s + rtt);
            let now = match (r.pace, next_ack) {
                (Some(p), a) if a.is_none_or(|a| p <= a) => p,
                (_, Some(a)) => a,
                _ => break,
            };
            if now >= until {
                break;
            }
            if r.pace == Some(now) {
                r.pace = None;
                r.call(now, |t, c| t.on_timer(PACE, c));
            } else {
                acked += 1;
                let ack =
                    Packet { seq: acked as u64, echo_sent_at: now - rtt, ..Packet::blank() }.with_kind(PacketKind::Ack);
                r.call(now, |t, c| t.on_ack(&ack, c));
            }
        }
        r.sent
    }

    #[test]
    fn a_pacing_rate_spaces_packets_exactly_one_over_the_rate_apart() {
        // 1000 packets/s under a window of 50 that never binds (a round trip of 10 ms holds 10)
        let t = sends(Some(1000.0), 50, Time::from_millis(10), Time::from_secs(1));
        assert!(t.len() >= 999, "{} packets in a second", t.len());
        assert!(t.windows(2).all(|w| w[1] - w[0] == Time::from_millis(1)), "{:?}", &t[..5]);
        // without a rate the window goes at once, and again as each ACK returns
        let t = sends(None, 50, Time::from_millis(10), Time::from_millis(5));
        assert_eq!(t, vec![Time::ZERO; 50]);
    }

    #[test]
    fn a_window_that_binds_holds_pacing_back_and_the_next_packet_waits_for_both() {
        // 1000 packets/s, but only 4 packets a 10 ms round trip: 4 paced, then one per ACK
        let t = sends(Some(1000.0), 4, Time::from_millis(10), Time::from_millis(25));
        let ms = |v: u64| Time::from_millis(v);
        assert_eq!(&t[..8], &[ms(0), ms(1), ms(2), ms(3), ms(10), ms(11), ms(12), ms(13)]);
    }
}
