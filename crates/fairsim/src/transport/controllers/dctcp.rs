//! DCTCP: a window cut in proportion to the fraction of packets marked.
//!
//! Reference: RFC 8257 (S. Bensley, D. Thaler, P. Balasubramanian, L. Eggert, G. Judd, "Data
//! Center TCP (DCTCP): TCP Congestion Control for Data Centers", 2017), after Alizadeh et al.,
//! SIGCOMM 2010. Switches mark packets (ECN's CE) when their instantaneous queue exceeds a
//! threshold K; the receiver echoes each packet's mark exactly (`sink`, `EcnEcho::Dctcp`). Once
//! per window of data the sender updates α ← (1 − g)·α + g·F, F the fraction of the window's
//! packets whose ACKs carried the echo (§3.3), and on an echo it cuts the window once per window
//! to cwnd·(1 − α/2) (§3.3). Losses are handled as Reno handles them (§3.4).
//!
//! Choices: g = 1/16 and α starting at 1 (Linux's `dctcp_alpha_on_init`; the RFC leaves it to
//! the implementation); windows and F count packets, not bytes; the observation window ends when
//! the ACK passes the packet that was next to send when the window began (§3.3 step 4); the cut
//! leaves at least two packets, as Linux's does; slow start, growth and loss recovery are
//! NewReno's (`aimd`, `reliable`). The marking switch is RED with `min_th = K`, `max_th = K + 1`,
//! `w_q = 1`, `ecn = true`, `hard_drop = false` (docs/scenario-format.md).

use super::aimd::{linux_stack, Aimd, AimdConfig};
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::transport::reliability::controller::{Congestion, Controller, Load, NewAck, RttSample};
use crate::transport::reliability::reliable::{Recovery, Reliable, TcpReliability};
use crate::transport::reliability::sink::EcnEcho;
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::AgentCtx;
use crate::transport::sender::TransportDeclaration;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// g, the gain of the marked-fraction average (RFC 8257: 1/16).
    pub g: f64,
    /// α before the first window is observed (Linux: 1).
    pub initial_alpha: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: 1.0 / 16.0, initial_alpha: 1.0 }
    }
}

pub struct Dctcp {
    /// Slow start, growth and loss response: Reno's.
    pub(in crate::transport) aimd: Aimd,
    g: f64,
    pub(in crate::transport) alpha: f64,
    /// Packets acknowledged in the observation window, and those whose ACKs were marked.
    acked: u64,
    marked: u64,
    /// The window ends when this packet is acknowledged.
    window_end: u64,
}

impl Dctcp {
    pub fn checked(cfg: &DctcpConfig, aimd: Aimd) -> Result<Dctcp, ParamError> {
        if !(cfg.g > 0.0 && cfg.g <= 1.0) {
            return Err(ParamError::at("g", "must be in (0, 1]"));
        }
        if !(0.0..=1.0).contains(&cfg.initial_alpha) {
            return Err(ParamError::at("initial_alpha", "must be in [0, 1]"));
        }
        Ok(Dctcp { aimd, g: cfg.g, alpha: cfg.initial_alpha, acked: 0, marked: 0, window_end: 0 })
    }
}

impl Controller for Dctcp {
    super::aimd::reno_recovery!();

    /// RFC 8257 §3.3 steps 1-6, before the window slides.
    fn on_ack_arrival(&mut self, ack: &Packet, win: &SendWindow, _ctx: &mut AgentCtx) {
        let newly = ack.seq.min(win.high()).saturating_sub(win.una());
        self.acked += newly;
        if ack.congestion() {
            self.marked += newly;
        }
        if ack.seq > self.window_end {
            if self.acked > 0 {
                let f = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            }
            (self.acked, self.marked) = (0, 0);
            self.window_end = win.nxt();
        }
    }

    fn on_rtt_sample(&mut self, sample: RttSample, ctx: &mut AgentCtx) {
        self.aimd.on_rtt_sample(sample, ctx);
    }

    fn on_ack(&mut self, ack: NewAck, ctx: &mut AgentCtx) {
        self.aimd.on_ack(ack, ctx);
    }

    fn on_congestion(&mut self, event: Congestion, load: Load, win: &SendWindow, ctx: &mut AgentCtx) {
        match event {
            Congestion::Ecn => {
                let cut = (self.aimd.cwnd * (1.0 - self.alpha / 2.0)).max(2.0);
                self.aimd.reduce(event, cut);
            }
            _ => self.aimd.on_congestion(event, load, win, ctx),
        }
    }
}

/// DCTCP: ECN always on, the sink's exact echo, NewReno's loss recovery.
pub static DECLARATION: TransportDeclaration<(TcpReliability, AimdConfig, DctcpConfig)> = Declaration {
    about: About {
        name: "dctcp",
        summary: "DCTCP: ECN marks at a queue threshold, the window cut by the fraction marked",
        reference: "RFC 8257",
    },
    defaults: || {
        let (r, a) = linux_stack();
        (TcpReliability { ecn: true, ..r }, a, DctcpConfig::default())
    },
    build: |(r, a, d), _| {
        if !r.ecn {
            return Err(ParamError::at("ecn", "DCTCP needs ECN: leave `ecn` true"));
        }
        let dctcp = Dctcp::checked(d, Aimd::checked(a, r.window)?)?;
        Ok(Box::new(Reliable::tcp(r, Recovery::NewReno, dctcp)?.with_ecn_echo(EcnEcho::Dctcp)))
    },
};

#[cfg(test)]
mod tests;
