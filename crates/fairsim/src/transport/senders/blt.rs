//! BLT, window control by bandwidth-latency tradeoff, and its no-control baseline Bully-Tyrant.
//!
//! Reference: H. Kim and D. J. Farber, "Congestion control by bandwidth-delay tradeoff in very
//! high-speed networks: the case of window-based control", U. Penn. MS-CIS-94-55, 1994, §3.3:
//! - a source sends all its remaining data in one burst, at its access line's rate; no window,
//!   no slow start, no congestion avoidance;
//! - the packet at offset j from the burst's first packet carries priority ⌊log2(j + 1)⌋ (its
//!   "degree of opportunism": a larger number is less important), so the burst is the windows
//!   of 1, 2, 4, ... packets back to back, and a priority push-out switch (`pushout`) keeps the
//!   largest window it can absorb;
//! - on a loss signal, a duplicate ACK or a timeout, the source quits the burst and starts a new
//!   one from the lost packet, whose priority is 0 again (go-back-N from it);
//! - Bully-Tyrant (§4.2.6) is the same source without priorities: every packet at 0, which a
//!   push-out switch treats as drop-tail FIFO.
//!
//! Choices the paper leaves open (parameters, or said here):
//! - the burst is paced at the source's access line (or at `rate`, if given), so that a burst can
//!   be quit (a source that handed its whole file to the line at once could not take it back);
//! - the stream of duplicate ACKs behind a hole: only a duplicate ACK caused by a packet sent
//!   since the last restart, beyond the hole (its echoed sequence number above the cumulative
//!   ACK), restarts the burst; duplicates of packets the receiver already had do not;
//! - round trips from the ACKs' echoed send times (the paper's TCP uses timestamps, and BLT is
//!   compared "for fairness" under the same rules), into Jacobson and Karels's RTO (`rto.rs`)
//!   with its bounds and clock granularity (RFC 6298 §2.3), backed off at each timeout, which
//!   restarts the burst at the first packet not yet acknowledged;
//! - a cumulative ACK beyond the next packet to send moves it forward: data the receiver holds
//!   is not sent again;
//! - priorities above 255 are carried as 255 (the paper's 4 header bits reach 15: 64K packets).

use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::transport::reliability::rto::{Rto, RtoConfig};
use crate::transport::sender::{AgentCtx, Sender, TimerId};
use crate::transport::sender::{FlowInfo, TransportDeclaration};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

const PACE: TimerId = TimerId(0);
const RETRANSMIT: TimerId = TimerId(1);

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BltConfig {
    /// The rate the burst is sent at; the source's access line when absent.
    pub rate: Option<Rate>,
    /// The retransmission timeout before the first round-trip sample.
    pub initial_rto: Time,
    /// The smallest retransmission timeout (at most `max_rto`).
    pub min_rto: Time,
    /// The largest, backoff included.
    pub max_rto: Time,
    /// G in srtt + max(G, 4·rttvar) (RFC 6298 §2.3: the clock's granularity).
    pub clock_granularity: Time,
}

impl Default for BltConfig {
    fn default() -> Self {
        let rto = RtoConfig::default();
        BltConfig {
            rate: None,
            initial_rto: rto.initial_rto,
            min_rto: rto.min_rto,
            max_rto: rto.max_rto,
            clock_granularity: rto.clock_granularity,
        }
    }
}

pub struct Blt {
    /// Whether packets carry their opportunism level (BLT) or all 0 (Bully-Tyrant).
    priorities: bool,
    /// Time between two packets of a burst at `rate`.
    gap: Time,
    rto_cfg: RtoConfig,
    rto: Rto,
    /// The first packet of the current burst, and when it began.
    base: u64,
    restarted: Time,
    /// The next packet to send, and the first not yet acknowledged.
    nxt: u64,
    una: u64,
    pacing: bool,
}

/// BLT's priority of the packet at offset `j` from its burst's first: ⌊log2(j + 1)⌋.
pub fn opportunism(j: u64) -> u8 {
    (63 - (j + 1).leading_zeros()).min(255) as u8
}

impl Blt {
    pub fn new(cfg: &BltConfig, flow: &FlowInfo, priorities: bool) -> Result<Blt, ParamError> {
        let rate = cfg.rate.unwrap_or(flow.access_rate);
        if rate.0 == 0 {
            return Err(ParamError::at("rate", "the burst's rate must be above 0"));
        }
        let rto_cfg = RtoConfig {
            initial_rto: cfg.initial_rto,
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            clock_granularity: cfg.clock_granularity,
            ..RtoConfig::default()
        };
        rto_cfg.check()?;
        Ok(Blt {
            priorities,
            gap: rate.tx_time(flow.packet_size),
            rto_cfg,
            rto: Rto::default(),
            base: 0,
            restarted: Time::ZERO,
            nxt: 0,
            una: 0,
            pacing: false,
        })
    }

    /// Quits the current burst and starts one at packet `n`, whose priority is 0.
    fn burst_from(&mut self, n: u64, ctx: &mut AgentCtx) {
        self.base = n;
        self.nxt = n.max(self.una);
        self.restarted = ctx.now;
        ctx.cancel_timer(PACE);
        self.pacing = false;
        self.send_next(ctx);
        ctx.set_timeout(RETRANSMIT, ctx.now + self.rto.timeout(&self.rto_cfg));
    }

    /// Sends the burst's next packet and paces the one after it.
    fn send_next(&mut self, ctx: &mut AgentCtx) {
        if self.nxt >= ctx.app_limit {
            self.pacing = false;
            return;
        }
        let priority = if self.priorities { opportunism(self.nxt - self.base) } else { 0 };
        ctx.send_with_priority(self.nxt, priority);
        self.nxt += 1;
        self.pacing = true;
        ctx.set_timer(PACE, ctx.now + self.gap);
    }
}

impl Sender for Blt {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.burst_from(0, ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        if !self.pacing {
            self.send_next(ctx);
        }
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        self.rto.sample((ctx.now - ack.echo_sent_at).as_secs_f64());
        if ack.seq > self.una {
            self.una = ack.seq;
            self.nxt = self.nxt.max(self.una);
            if self.una >= ctx.app_limit {
                ctx.cancel_timer(RETRANSMIT);
                return;
            }
            ctx.set_timeout(RETRANSMIT, ctx.now + self.rto.timeout(&self.rto_cfg));
        } else if ack.seq == self.una && ack.echo_sent_at >= self.restarted && ack.echo_seq > ack.seq {
            // a hole at `una`, shown by a packet of the current burst beyond it (counted as
            // a fast retransmit: a restart on a duplicate ACK)
            ctx.count(crate::transport::sender::Event::FastRetransmit);
            self.burst_from(ack.seq, ctx);
        }
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx) {
        if timer == PACE {
            self.send_next(ctx);
        } else if self.una < ctx.app_limit {
            ctx.count(crate::transport::sender::Event::Timeout);
            self.rto.back_off();
            self.burst_from(self.una, ctx);
        }
    }
}

/// BLT: the whole remaining file in one burst, packets tagged with their opportunism level.
pub static DECLARATION: TransportDeclaration<(BltConfig,)> = Declaration {
    about: About {
        name: "blt",
        summary:
            "bandwidth-latency tradeoff: the rest of the file in one burst, priorities ⌊log2(j+1)⌋, restart at a loss",
        reference: "Kim & Farber, U. Penn. MS-CIS-94-55, 1994, §3.3",
    },
    defaults: || (BltConfig::default(),),
    build: |(c,), flow| Ok(Box::new(Blt::new(c, flow, true)?)),
};

/// Bully-Tyrant: BLT without priorities, the paper's no-control baseline.
pub static BULLY_TYRANT: TransportDeclaration<(BltConfig,)> = Declaration {
    about: About {
        name: "bully_tyrant",
        summary: "BLT without priorities: bursts the rest of the file, restarts at a loss, no congestion control",
        reference: "Kim & Farber 1994, §4.2.6",
    },
    defaults: || (BltConfig::default(),),
    build: |(c,), flow| Ok(Box::new(Blt::new(c, flow, false)?)),
};

#[cfg(test)]
mod tests;
