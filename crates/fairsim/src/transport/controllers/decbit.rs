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
//!
//! Here DECbit's window law is a controller (`Controller for Decbit`) under the reliability
//! layer with Generic's averaged timeout (`reliable`).

use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::transport::reliability::controller::{Congestion, Controller, Load};
use crate::transport::reliability::reliable::{AveragedReliability, Reliable};
use crate::transport::reliability::retransmit::AveragedTimer;
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, Series};
use serde::{Deserialize, Serialize};

/// The window law's parameters (the window and the timeout are the reliability layer's).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DecbitConfig {
    /// Added to the window when fewer than `threshold` of the bits were set, packets.
    pub increase: f64,
    /// Multiplies the window otherwise.
    pub decrease: f64,
    /// The share of set bits at which the window stops growing.
    pub threshold: f64,
}

impl Default for DecbitConfig {
    fn default() -> Self {
        DecbitConfig { increase: 1.0, decrease: 0.875, threshold: 0.5 }
    }
}

pub struct Decbit {
    cfg: DecbitConfig,
    /// The flow's window, packets.
    cap: u64,
    w: f64,
    /// Bits are counted on the acknowledgements of `size` packets numbered from `from` on (sent
    /// after the last change; a cumulative ACK may skip some of `from..from + size`).
    from: u64,
    size: u64,
    seen: u64,
    set: u64,
}

/// A DECbit sender, after checking that the parameters make sense.
pub fn decbit(
    reliability: &AveragedReliability,
    cfg: DecbitConfig,
) -> Result<Reliable<Decbit, AveragedTimer>, ParamError> {
    if !(cfg.decrease > 0.0 && cfg.decrease < 1.0) {
        return Err(ParamError::at("decrease", "a decrease factor is between 0 and 1"));
    }
    let law = Decbit { cfg, cap: reliability.window as u64, w: 1.0, from: 0, size: 1, seen: 0, set: 0 };
    Reliable::averaged(reliability, law)
}

impl Decbit {
    fn allowed(&self) -> u64 {
        (self.w.floor() as u64).clamp(1, self.cap)
    }

    /// Starts counting bits on the packets sent from now on, under the window just set.
    fn new_cycle(&mut self, win: &SendWindow, ctx: &mut AgentCtx) {
        self.from = win.nxt().max(win.una());
        self.size = self.allowed();
        self.seen = 0;
        self.set = 0;
        ctx.record(Series::Window, self.w);
    }
}

impl Controller for Decbit {
    fn window(&self) -> u64 {
        self.allowed()
    }

    fn on_start(&mut self, win: &SendWindow, ctx: &mut AgentCtx) {
        self.new_cycle(win, ctx);
    }

    fn on_ack_arrival(&mut self, ack: &Packet, win: &SendWindow, ctx: &mut AgentCtx) {
        if ack.echo_seq < self.from {
            return;
        }
        self.seen += 1;
        self.set += u64::from(ack.congestion());
        if self.seen == self.size {
            let w = if (self.set as f64) < self.cfg.threshold * self.seen as f64 {
                self.w + self.cfg.increase
            } else {
                self.w * self.cfg.decrease
            };
            self.w = w.clamp(1.0, self.cap as f64);
            self.new_cycle(win, ctx);
        }
    }

    fn on_congestion(&mut self, _event: Congestion, _load: Load, win: &SendWindow, ctx: &mut AgentCtx) {
        // only timeouts reach a DECbit sender: it ignores duplicate ACKs
        self.w = 1.0;
        self.new_cycle(win, ctx);
    }
}

/// DECbit: its window law under Generic's timeout.
pub static DECLARATION: TransportDeclaration<(AveragedReliability, DecbitConfig)> = Declaration {
    about: About {
        name: "decbit",
        summary: "DECbit source: window +1 or x 0.875 from the congestion bits, once per two round trips",
        reference: "Ramakrishnan & Jain, SIGCOMM 1988; as used by DKS 1989 §3",
    },
    defaults: || (AveragedReliability::default(), DecbitConfig::default()),
    build: |(r, law), _| Ok(Box::new(decbit(r, law.clone())?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Packet;
    use crate::net::PacketKind;
    use crate::transport::sender::{Action, Sender};
    use crate::units::Time;

    fn ack(seq: u64, echo: u64, bit: bool) -> Packet {
        Packet { seq, echo_seq: echo, ..Packet::blank() }.with_kind(PacketKind::Ack).with_congestion(bit)
    }

    fn sends(
        d: &mut Reliable<Decbit, AveragedTimer>,
        f: impl FnOnce(&mut Reliable<Decbit, AveragedTimer>, &mut AgentCtx),
    ) -> Vec<u64> {
        let mut actions = vec![];
        f(d, &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions));
        actions.iter().filter_map(|a| if let Action::Send { seq } = a { Some(*seq) } else { None }).collect()
    }

    #[test]
    fn grows_by_one_per_clear_window_and_shrinks_by_an_eighth_on_bits() {
        let reliability = AveragedReliability { window: 20, ..Default::default() };
        let mut d = decbit(&reliability, DecbitConfig::default()).unwrap();
        assert_eq!(sends(&mut d, |d, c| d.on_start(c)), vec![0]);
        // packet 0's ACK is clear: window 2, counted on packets 1 and 2
        assert_eq!(sends(&mut d, |d, c| d.on_ack(&ack(1, 0, false), c)), vec![1, 2]);
        assert_eq!(d.ctrl.w, 2.0);
        sends(&mut d, |d, c| d.on_ack(&ack(2, 1, true), c));
        sends(&mut d, |d, c| d.on_ack(&ack(3, 2, false), c));
        // one bit of two: not fewer than half, so × 0.875
        assert_eq!(d.ctrl.w, 1.75);
        // acknowledgements of packets sent before the change do not count
        let (from, size) = (d.ctrl.from, d.ctrl.size);
        assert!(from >= 3 && size == 1);
    }
}
