//! The DECbit source: a window driven by congestion bits that gateways set and sinks echo.
//!
//! References: K. K. Ramakrishnan and R. Jain, "A Binary Feedback Scheme for Congestion
//! Avoidance in Computer Networks with a Connectionless Network Layer", SIGCOMM 1988 (DEC
//! TR-506..510), as used by Demers, Keshav & Shenker 1989 §3 and Keshav 1991 §6.5: if fewer than
//! half of the bits in the last window's acknowledgements are set, the window grows by one
//! packet, otherwise it is multiplied by 0.875; the decision is taken once every two round
//! trips — the acknowledgements of packets sent before the last change are ignored, those of the
//! next window's packets are counted. The window is capped by `window` (5 in the papers).
//!
//! Choices the papers leave open (parameters): the window starts at one packet; losses are
//! handled as Generic does (timeout β·rtt, go-back-N) and a timeout also sets the window back to
//! one packet — DECbit avoids congestion by the bits and, with its gateways, should see no loss.

use super::averaged_timeout::{AveragedTimeout, Resend};
use super::window::SendWindow;
use super::{AgentCtx, Event, Sender, Series};
use crate::net::Packet;
use crate::params::ParamError;
use crate::transport::TimerId;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DecbitConfig {
    /// The largest window, packets.
    pub window: u32,
    /// Added when fewer than `threshold` of the bits were set.
    pub increase: f64,
    /// Multiplies the window otherwise.
    pub decrease: f64,
    pub threshold: f64,
    /// Timeout multiplier and rtt averaging, as in Generic.
    pub beta: f64,
    pub gain: f64,
    pub initial_rtt: Time,
    /// What a timeout sends again, as in Generic.
    pub retransmit: Resend,
}

impl Default for DecbitConfig {
    fn default() -> Self {
        DecbitConfig {
            window: 5,
            increase: 1.0,
            decrease: 0.875,
            threshold: 0.5,
            beta: 2.0,
            gain: 0.125,
            initial_rtt: Time::from_millis(1500),
            retransmit: Resend::All,
        }
    }
}

pub struct Decbit {
    cfg: DecbitConfig,
    win: SendWindow,
    w: f64,
    /// Bits are counted on the acknowledgements of `size` packets numbered from `from` on (sent
    /// after the last change; a cumulative ACK may skip some of `from..from + size`).
    from: u64,
    size: u64,
    seen: u64,
    set: u64,
    timer: AveragedTimeout,
}

impl Decbit {
    pub fn checked(cfg: DecbitConfig) -> Result<Decbit, ParamError> {
        if cfg.window == 0 {
            return Err(ParamError::at("window", "a window must be at least 1 packet"));
        }
        if !(cfg.decrease > 0.0 && cfg.decrease < 1.0) {
            return Err(ParamError::at("decrease", "a decrease factor is between 0 and 1"));
        }
        AveragedTimeout::check(cfg.initial_rtt, cfg.beta, cfg.gain)?;
        let timer = AveragedTimeout::new(cfg.initial_rtt, cfg.beta, cfg.gain);
        Ok(Decbit { cfg, win: SendWindow::default(), w: 1.0, from: 0, size: 1, seen: 0, set: 0, timer })
    }

    fn allowed(&self) -> u64 {
        (self.w.floor() as u64).clamp(1, self.cfg.window as u64)
    }

    fn fill(&mut self, ctx: &mut AgentCtx) {
        while self.win.can_send(self.allowed(), ctx.app_limit) {
            let seq = self.win.send_next(ctx.now);
            ctx.send(seq);
            self.timer.arm_if_idle(ctx);
        }
    }

    /// Starts counting bits on the packets sent from now on, under the window just set.
    fn new_cycle(&mut self, ctx: &mut AgentCtx) {
        self.from = self.win.nxt().max(self.win.una());
        self.size = self.allowed();
        self.seen = 0;
        self.set = 0;
        ctx.record(Series::Window, self.w);
    }
}

impl Sender for Decbit {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.new_cycle(ctx);
        self.fill(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        self.fill(ctx);
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        if ack.echo_seq >= self.from {
            self.seen += 1;
            self.set += u64::from(ack.congestion);
            if self.seen == self.size {
                let w = if (self.set as f64) < self.cfg.threshold * self.seen as f64 {
                    self.w + self.cfg.increase
                } else {
                    self.w * self.cfg.decrease
                };
                self.w = w.clamp(1.0, self.cfg.window as f64);
                self.new_cycle(ctx);
            }
        }
        if let Some(acked) = self.win.on_ack(ack.seq) {
            self.timer.sample((ctx.now - acked.newest_first_sent).as_secs_f64());
            self.timer.after_ack(self.win.in_flight() > 0, ctx);
        }
        self.fill(ctx);
    }

    fn on_timer(&mut self, _timer: TimerId, ctx: &mut AgentCtx) {
        self.timer.fired();
        if self.win.in_flight() == 0 {
            return;
        }
        ctx.count(Event::Timeout);
        self.w = 1.0;
        self.timer.resend(self.cfg.retransmit, &mut self.win, ctx);
        self.new_cycle(ctx);
        self.fill(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Packet;
    use crate::net::PacketKind;
    use crate::transport::Action;

    fn ack(seq: u64, echo: u64, bit: bool) -> Packet {
        Packet { kind: PacketKind::Ack, seq, echo_seq: echo, congestion: bit, ..Packet::blank() }
    }

    fn sends(d: &mut Decbit, f: impl FnOnce(&mut Decbit, &mut AgentCtx)) -> Vec<u64> {
        let mut actions = vec![];
        f(d, &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions));
        actions.iter().filter_map(|a| if let Action::Send { seq } = a { Some(*seq) } else { None }).collect()
    }

    #[test]
    fn grows_by_one_per_clear_window_and_shrinks_by_an_eighth_on_bits() {
        let mut d = Decbit::checked(DecbitConfig { window: 20, ..Default::default() }).unwrap();
        assert_eq!(sends(&mut d, |d, c| d.on_start(c)), vec![0]);
        // packet 0's ACK is clear: window 2, counted on packets 1 and 2
        assert_eq!(sends(&mut d, |d, c| d.on_ack(&ack(1, 0, false), c)), vec![1, 2]);
        assert_eq!(d.w, 2.0);
        sends(&mut d, |d, c| d.on_ack(&ack(2, 1, true), c));
        sends(&mut d, |d, c| d.on_ack(&ack(3, 2, false), c));
        // one bit of two: not fewer than half, so × 0.875
        assert_eq!(d.w, 1.75);
        // acknowledgements of packets sent before the change do not count
        let (from, size) = (d.from, d.size);
        assert!(from >= 3 && size == 1);
    }
}
