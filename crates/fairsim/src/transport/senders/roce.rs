//! RoCEv2's sender: a NIC that paces a flow's packets at a rate, goes back to the first packet
//! not acknowledged when the receiver NACKs, and waits while priority flow control pauses its
//! line; at the line's rate (`roce`, htsim's `RoceSrc`) or at the rate DCQCN sets (`dcqcn`).
//!
//! References: the InfiniBand Trade Association, "Supplement to InfiniBand Architecture
//! Specification Volume 1 Release 1.2.1, Annex A17: RoCEv2", 2014 (go-back-N reliable
//! connections over UDP/IP); Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
//! SIGCOMM 2015 (DCQCN: the reaction point is `dcqcn.rs`; the notification point is the sink's
//! `AckPolicy::cnp_interval`, a CNP at most once per N = 50 µs per flow while CE-marked packets
//! arrive; the congestion point is `red` with `ecn = true`). Validated against htsim's `RoceSrc`
//! (Broadcom/csg-htsim 841d9e7, `sim/roce.cpp`), which has no congestion control
//! (docs/validation.md, "RoCE and PFC").
//!
//! Choices, and where htsim and the papers differ:
//! - The pace is one packet per `size / rate`, the first at the flow's start; a rate change
//!   applies from the next packet on (htsim: a fixed spacing at the line's rate).
//! - Go-back-N: the sink discards a packet above the next expected and NACKs it with its
//!   cumulative acknowledgement; the sender goes back there. A NACK caused by a packet sent
//!   before the last go-back is stale and ignored (htsim goes back on every NACK; with PFC and
//!   one path per flow it never NACKs).
//! - Data packets have priority 1 and the sink's answers 0, for a host's `strict_priority`
//!   interface (htsim's host queue sends ACKs first).
//! - While PFC pauses the host's line the NIC sends nothing and looks again one packet time
//!   later (htsim's source stops its clock and restarts at the resume: the difference is under
//!   one packet time).
//! - `rto`, the NIC's retransmission timeout: nothing acknowledged for `rto` while packets are
//!   outstanding goes back to the first unacknowledged packet and counts a timeout. On by default
//!   (`senders::timeout`), where htsim's RoCE arms none: a lossless fabric never needs it,
//!   and a failed link would otherwise leave a flow stalled for ever; `rto = "0s"` is htsim's.
//! - DCQCN's timers run from the first CNP (see `dcqcn.rs`); the byte counter counts every
//!   byte sent, retransmissions included.

use super::dcqcn::{Dcqcn, DcqcnConfig};
use crate::component::{About, Declaration};
use crate::net::{Control, Packet};
use crate::params::ParamError;
use crate::transport::sender::{AckPolicy, AgentCtx, Event, FlowInfo, Sender, Series, TimerId, TransportDeclaration};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RoceConfig {
    /// The NIC's rate before any notification; default: its line's.
    pub rate: Option<Rate>,
    /// Goes back to the first unacknowledged packet when nothing is acknowledged for this long
    /// while packets are outstanding; 0: never (htsim's RoCE arms none); default: 5 ms, or
    /// three of the path's base round trips if longer (`senders::timeout`).
    pub rto: Option<Time>,
}

/// DCQCN's notification point: the sink's CNP interval N.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NotificationConfig {
    /// At most one CNP per flow per this interval while CE-marked packets arrive.
    pub cnp_interval: Time,
}

impl Default for NotificationConfig {
    fn default() -> Self {
        NotificationConfig { cnp_interval: Time::from_micros(50) }
    }
}

/// The header priority of an RDMA NIC's data packets: its ACKs, NACKs and CNPs have 0 and go
/// first at a host's `strict_priority` interface (htsim's `PRIO_LO` and `PRIO_HI`).
pub const DATA_PRIORITY: u8 = 1;

/// The pace's timer.
const PACE: TimerId = TimerId(0);
/// DCQCN's α timer and rate-increase timer, whichever is due first.
const CC: TimerId = TimerId(1);
/// `rto`.
const RETRANSMIT: TimerId = TimerId(2);

pub struct Roce {
    /// The rate in bit/s at which packets are paced, when there is no DCQCN.
    fixed_rate: f64,
    dcqcn: Option<Dcqcn>,
    /// DCQCN's periods K and T, and when each is next due (`Time::MAX`: stopped).
    alpha_period: Time,
    rate_period: Time,
    alpha_due: Time,
    increase_due: Time,
    /// B, and the bytes sent since the byte counter's last stage.
    byte_counter: u64,
    bytes: u64,
    packet_size: u32,
    /// The next packet to send, and the cumulative acknowledgement heard.
    next: u64,
    acked: u64,
    /// When the sender last went back: NACKs of packets sent before are stale.
    went_back: Time,
    /// Whether the pace's timer is armed (the NIC is sending or waiting out a pause).
    pacing: bool,
    rto: Option<Time>,
    cnp_interval: Option<Time>,
}

impl Roce {
    pub fn new(
        c: &RoceConfig,
        cc: Option<(&DcqcnConfig, &NotificationConfig)>,
        flow: &FlowInfo,
    ) -> Result<Roce, ParamError> {
        let rate = c.rate.unwrap_or(flow.access_rate);
        if rate.bits_per_sec() == 0 {
            return Err(ParamError::at("rate", "must be above 0"));
        }
        if let Some((d, n)) = cc {
            if !(d.g > 0.0 && d.g <= 1.0) {
                return Err(ParamError::at("g", "must be above 0 and at most 1"));
            }
            for (name, t) in
                [("alpha_timer", d.alpha_timer), ("rate_timer", d.rate_timer), ("cnp_interval", n.cnp_interval)]
            {
                if t == Time::ZERO {
                    return Err(ParamError::at(name, "must be above 0"));
                }
            }
            if d.byte_counter.0 == 0 {
                return Err(ParamError::at("byte_counter", "must be above 0 bytes"));
            }
        }
        let line = rate.bits_per_sec() as f64;
        Ok(Roce {
            fixed_rate: line,
            dcqcn: cc.map(|(d, _)| Dcqcn::new(d, line)),
            alpha_period: cc.map_or(Time::MAX, |(d, _)| d.alpha_timer),
            rate_period: cc.map_or(Time::MAX, |(d, _)| d.rate_timer),
            alpha_due: Time::MAX,
            increase_due: Time::MAX,
            byte_counter: cc.map_or(u64::MAX, |(d, _)| d.byte_counter.0),
            bytes: 0,
            packet_size: flow.packet_size.max(1),
            next: 0,
            acked: 0,
            went_back: Time::ZERO,
            pacing: false,
            rto: super::timeout(c.rto, flow),
            cnp_interval: cc.map(|(_, n)| n.cnp_interval),
        })
    }

    fn rate(&self) -> f64 {
        self.dcqcn.as_ref().map_or(self.fixed_rate, |d| d.current)
    }

    /// One packet's time at the current rate.
    fn spacing(&self) -> Time {
        Time::from_secs_f64(f64::from(self.packet_size) * 8.0 / self.rate()).max(Time(1))
    }

    /// Sends the next packet if the line is not paused and there is one, and arms the pace for
    /// the packet after it (or for a look after the pause); stops when there is nothing to send.
    fn pace(&mut self, ctx: &mut AgentCtx) {
        if !ctx.paused {
            if self.next >= ctx.app_limit {
                self.pacing = false;
                return;
            }
            ctx.send_with_priority(self.next, DATA_PRIORITY);
            if self.rto.is_some() && self.next == self.acked {
                self.arm_rto(ctx);
            }
            self.next += 1;
            self.count_bytes(ctx);
        }
        self.pacing = true;
        ctx.set_timer(PACE, ctx.now + self.spacing());
    }

    /// The byte counter counts what was just sent; each B bytes is an increase stage.
    fn count_bytes(&mut self, ctx: &mut AgentCtx) {
        let Some(d) = self.dcqcn.as_mut() else { return };
        self.bytes += u64::from(self.packet_size);
        if self.bytes >= self.byte_counter {
            self.bytes -= self.byte_counter;
            if !d.at_line_rate() {
                d.byte_counter();
                self.record(ctx);
            }
        }
    }

    fn arm_rto(&self, ctx: &mut AgentCtx) {
        if let Some(rto) = self.rto {
            ctx.set_timeout(RETRANSMIT, ctx.now + rto);
        }
    }

    /// Goes back to the first packet not acknowledged, and sends on from there.
    fn go_back(&mut self, ctx: &mut AgentCtx) {
        self.next = self.acked;
        self.went_back = ctx.now;
        if !self.pacing {
            self.pace(ctx);
        }
    }

    /// Arms DCQCN's timer for whichever of its two periods is due first.
    fn arm_cc(&self, ctx: &mut AgentCtx) {
        let due = self.alpha_due.min(self.increase_due);
        if due == Time::MAX {
            ctx.cancel_timer(CC);
        } else {
            ctx.set_timer(CC, due);
        }
    }

    fn on_cnp(&mut self, ctx: &mut AgentCtx) {
        let Some(d) = self.dcqcn.as_mut() else { return };
        d.on_cnp();
        self.bytes = 0;
        self.alpha_due = ctx.now + self.alpha_period;
        self.increase_due = ctx.now + self.rate_period;
        self.arm_cc(ctx);
        self.record(ctx);
    }

    fn on_cc_timer(&mut self, ctx: &mut AgentCtx) {
        let Some(d) = self.dcqcn.as_mut() else { return };
        if self.alpha_due <= ctx.now {
            d.alpha_timer();
            self.alpha_due = ctx.now + self.alpha_period;
        }
        if self.increase_due <= ctx.now {
            d.rate_timer();
            // at the line's rate an increase changes nothing until the next CNP restarts it
            self.increase_due = if d.at_line_rate() { Time::MAX } else { ctx.now + self.rate_period };
        }
        self.arm_cc(ctx);
        self.record(ctx);
    }

    fn record(&self, ctx: &mut AgentCtx) {
        if let (Some(d), true) = (&self.dcqcn, ctx.recording()) {
            let packets = |bps: f64| bps / (f64::from(self.packet_size) * 8.0);
            ctx.record(Series::Rate, packets(d.current));
            ctx.record(Series::RateEstimate, packets(d.target));
            if let Some(alpha) = Series::named("alpha") {
                ctx.record(alpha, d.alpha);
            }
        }
    }
}

impl Sender for Roce {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.pace(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        if !self.pacing {
            self.pace(ctx);
        }
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        match ack.control() {
            Control::Cnp => return self.on_cnp(ctx),
            Control::Pull => return,
            Control::Ack | Control::Nack => {}
        }
        if ack.seq > self.acked {
            self.acked = ack.seq;
            self.next = self.next.max(self.acked);
            if self.rto.is_some() {
                if self.acked < self.next {
                    self.arm_rto(ctx);
                } else {
                    ctx.cancel_timer(RETRANSMIT);
                }
            }
        }
        if ack.control() == Control::Nack && ack.echo_sent_at >= self.went_back && self.next > self.acked {
            self.go_back(ctx);
        }
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx) {
        match timer {
            PACE => self.pace(ctx),
            CC => self.on_cc_timer(ctx),
            _ if self.next > self.acked => {
                ctx.count(Event::Timeout);
                self.go_back(ctx);
                self.arm_rto(ctx);
            }
            _ => {}
        }
    }

    fn ack_policy(&self) -> AckPolicy {
        AckPolicy { go_back_n: true, cnp_interval: self.cnp_interval, ..AckPolicy::default() }
    }
}

/// `roce`: RoCEv2 at a fixed rate (the line's), go-back-N; htsim's `RoceSrc`.
pub static ROCE: TransportDeclaration<(RoceConfig,)> = Declaration {
    about: About {
        name: "roce",
        summary: "RoCEv2 without congestion control: paced at the line's rate, go-back-N, waits out PFC pauses",
        reference: "IBTA RoCEv2 (Annex A17), 2014; htsim's RoceSrc",
    },
    defaults: || (RoceConfig::default(),),
    build: |(c,), flow| Ok(Box::new(Roce::new(c, None, flow)?)),
};

/// `dcqcn`: RoCEv2 with DCQCN's rate control.
pub static DCQCN: TransportDeclaration<(RoceConfig, DcqcnConfig, NotificationConfig)> = Declaration {
    about: About {
        name: "dcqcn",
        summary: "RoCEv2 with DCQCN: CNPs from the receiver cut the NIC's rate by α/2; fast recovery, additive and hyper increase",
        reference: "Zhu et al., SIGCOMM 2015",
    },
    defaults: || (RoceConfig::default(), DcqcnConfig::default(), NotificationConfig::default()),
    build: |(c, d, n), flow| Ok(Box::new(Roce::new(c, Some((d, n)), flow)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;
    use crate::transport::Action;

    fn flow() -> FlowInfo {
        FlowInfo::for_tests(Rate(8_000_000_000)) // 1000 B in 1 µs
    }

    fn reply(control: Control, seq: u64, echo_sent_at: Time) -> Packet {
        Packet { seq, echo_sent_at, ..Packet::blank() }.with_kind(PacketKind::Ack).with_control(control)
    }

    /// Calls `f` at `now` with a file of `file` packets; returns its actions.
    fn call(s: &mut Roce, now: Time, file: u64, paused: bool, f: impl FnOnce(&mut Roce, &mut AgentCtx)) -> Vec<Action> {
        let mut actions = vec![];
        let mut ctx = AgentCtx::new(now, file, &mut actions);
        ctx.paused = paused;
        f(s, &mut ctx);
        actions
    }

    fn us(n: u64) -> Time {
        Time::from_micros(n)
    }

    #[test]
    fn paced_at_the_line_waits_out_a_pause_and_goes_back_on_a_nack() {
        let mut r = Roce::new(&RoceConfig { rto: Some(Time::ZERO), ..Default::default() }, None, &flow()).unwrap();
        assert_eq!(
            call(&mut r, us(0), 10, false, |s, c| s.on_start(c)),
            vec![Action::SendWithPriority { seq: 0, priority: 1 }, Action::SetTimer(PACE, us(1))]
        );
        assert_eq!(
            call(&mut r, us(1), 10, false, |s, c| s.on_timer(PACE, c)),
            vec![Action::SendWithPriority { seq: 1, priority: 1 }, Action::SetTimer(PACE, us(2))]
        );
        assert_eq!(
            call(&mut r, us(2), 10, true, |s, c| s.on_timer(PACE, c)),
            vec![Action::SetTimer(PACE, us(3))],
            "paused: looks again"
        );
        assert_eq!(
            call(&mut r, us(3), 10, false, |s, c| s.on_timer(PACE, c))[0],
            Action::SendWithPriority { seq: 2, priority: 1 }
        );
        // packet 1 was lost: the NACK of 2 says 1 is expected
        call(&mut r, us(4), 10, false, |s, c| s.on_ack(&reply(Control::Nack, 1, us(3)), c));
        assert_eq!(
            call(&mut r, us(4), 10, false, |s, c| s.on_timer(PACE, c))[0],
            Action::SendWithPriority { seq: 1, priority: 1 }
        );
        // a NACK of a packet sent before the go-back is stale
        call(&mut r, us(5), 10, false, |s, c| s.on_ack(&reply(Control::Nack, 1, us(3)), c));
        assert_eq!(
            call(&mut r, us(5), 10, false, |s, c| s.on_timer(PACE, c))[0],
            Action::SendWithPriority { seq: 2, priority: 1 }
        );
        assert!(r.ack_policy().go_back_n);
        assert_eq!(r.ack_policy().cnp_interval, None, "no CNPs without DCQCN");
    }

    #[test]
    fn a_cnp_halves_the_pace_and_the_rate_timer_brings_it_back() {
        let (d, n) = (DcqcnConfig::default(), NotificationConfig::default());
        let mut r = Roce::new(&RoceConfig::default(), Some((&d, &n)), &flow()).unwrap();
        assert_eq!(r.ack_policy().cnp_interval, Some(us(50)));
        call(&mut r, us(0), 1000, false, |s, c| s.on_start(c));
        let actions = call(&mut r, us(10), 1000, false, |s, c| s.on_ack(&reply(Control::Cnp, 0, us(10)), c));
        assert!(actions.contains(&Action::SetTimer(CC, us(65))), "{actions:?}");
        assert_eq!(r.spacing(), us(2), "half the rate: twice the spacing");
        call(&mut r, us(65), 1000, false, |s, c| s.on_timer(CC, c));
        // fast recovery: Rc = (Rt + Rc)/2 = 3/4 of the line
        assert_eq!(r.spacing(), Time(1333));
    }
}
