//! NDP's sender: a first window at line rate, then one packet per pull from the receiver,
//! retransmissions first, each as soon as the receiver reports the header of a trimmed packet.
//!
//! Reference: Handley, Raiciu, Agache, Voinescu, Moore, Antichi and Wójcik, "Re-architecting
//! datacenter networks and stacks for low latency and high performance", SIGCOMM 2017 (NDP).
//! A sender starts at line rate with an initial window; switches trim what their short queues
//! cannot hold (`qdisc::trim`); the receiver answers every packet with an ACK and every header
//! with a NACK at once, and adds a pull for each to its pull queue, which it paces at its line
//! rate (`node::pull`); each pull releases one packet, a retransmission if one waits. The
//! defaults are htsim's `NdpSrc` (Broadcom/csg-htsim 841d9e7, `sim/ndp.cpp`), against which this
//! is validated (docs/validation.md, "NDP").
//!
//! Choices, and where the paper and htsim differ:
//! - New data goes on what is left of the initial window, then on pulls; a retransmission only
//!   on a pull (htsim's). Pulls carry a number per flow; the sender counts every number up to the
//!   highest it has heard, so a lost pull is made up by the next (as htsim). A pull that finds
//!   nothing to send is kept, and spent on the next NACK or new data (htsim's banked pulls). The
//!   window left over is kept too, for data produced later: an application that produces its
//!   data over time (Telnet) sends its first packets on the window and later ones on the pulls
//!   its earlier ones brought (htsim's files have all their data at the start).
//! - Retransmissions are sent in the order of their sequence numbers, before new data (htsim's
//!   `_rtx_queue`).
//! - The timeout for lost pulls and headers, the paper's last resort: when nothing has come back
//!   for `rto` while packets are unacknowledged, the lowest of them is sent again, unpulled, and
//!   the flow counts a timeout; the receiver's answer to it brings pulls again. On by default
//!   (`senders::timeout`: htsim's `DEFAULT_RTO_MIN`, or three base round trips if longer), though
//!   htsim's build never fires it (its
//!   `rtx_timer_hook` returns unless `RESEND_ON_TIMEOUT` is defined, which it is nowhere): without
//!   it a flow whose header or last pulls are lost (a full header queue, a failed link) stalls
//!   for ever. `rto = "0s"` is htsim's build.
//! - Control packets (ACK, NACK, pull) have priority 0 and data `data_priority` (1), for a
//!   host's `strict_priority` interface; htsim queues NACKs with the host's data, round robin
//!   by flow.
//! - Paths: any forwarding; `spray` is htsim's `-strat rand`, `permute` its `-strat perm` (each
//!   sender's packets over all its paths in turn, a new order each pass), chosen by the switches
//!   from the packet's sequence number rather than carried as a source route.
//! - Return-to-sender of headers (the paper's, for a full header queue) is left out, as htsim.

use super::backlog::{Backlog, PullsHeard, Unanswered};
use crate::component::{About, Declaration};
use crate::net::{Control, Packet};
use crate::params::ParamError;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, PullSpec, Sender, TimerId};
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NdpConfig {
    /// Packets sent at line rate before the first pull (htsim's `-cwnd`, 15 by default).
    pub initial_window: u32,
    /// The receiving host paces its pulls at this fraction of its line's rate (htsim's 0.99).
    pub pull_rate: f64,
    /// The header priority of data packets; control packets have 0.
    pub data_priority: u8,
    /// Sends the lowest unacknowledged packet again when nothing has come back for this long;
    /// 0: never (htsim); default: 5 ms, or three of the path's base round trips if longer
    /// (`senders::timeout`).
    pub rto: Option<Time>,
}

impl Default for NdpConfig {
    fn default() -> Self {
        NdpConfig { initial_window: 15, pull_rate: 0.99, data_priority: 1, rto: None }
    }
}

/// The timer of `rto`.
const RETRANSMIT: TimerId = TimerId(0);

pub struct Ndp {
    pull_rate: f64,
    data_priority: u8,
    backlog: Backlog,
    pulled: PullsHeard,
    /// What is left of the initial window (for new data), and the pulls heard and not spent.
    window: u64,
    credit: u64,
    /// The initial window as configured: the most in flight before the first pull.
    initial_window: u64,
    unanswered: Unanswered,
}

impl Ndp {
    pub fn new(c: &NdpConfig, flow: &crate::transport::sender::FlowInfo) -> Result<Ndp, ParamError> {
        if c.initial_window == 0 {
            return Err(ParamError::at("initial_window", "must be at least 1: pulls answer packets"));
        }
        if !(c.pull_rate > 0.0 && c.pull_rate <= 1.0) {
            return Err(ParamError::at("pull_rate", "must be above 0 and at most 1 (a fraction of the line)"));
        }
        Ok(Ndp {
            pull_rate: c.pull_rate,
            data_priority: c.data_priority,
            backlog: Backlog::default(),
            pulled: PullsHeard::default(),
            window: c.initial_window.into(),
            initial_window: c.initial_window.into(),
            credit: 0,
            unanswered: Unanswered::new(super::timeout(c.rto, flow), RETRANSMIT),
        })
    }

    /// Sends a retransmission, else new data; returns whether there was anything to send.
    fn send_one(&mut self, ctx: &mut AgentCtx) -> bool {
        let Some(seq) = self.backlog.take(ctx.app_limit) else { return false };
        ctx.send_with_priority(seq, self.data_priority);
        self.unanswered.sent(seq, ctx);
        true
    }

    /// Sends while it may: new data on the window left, else (and a retransmission always) on
    /// a pull heard.
    fn serve(&mut self, ctx: &mut AgentCtx) {
        loop {
            let on_window = self.window > 0 && !self.backlog.resending();
            if !on_window && self.credit == 0 || !self.send_one(ctx) {
                return;
            }
            if on_window {
                self.window -= 1;
            } else {
                self.credit -= 1;
            }
        }
    }
}

impl Sender for Ndp {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.on_data(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        self.serve(ctx);
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        self.unanswered.answered(ack, ctx);
        match ack.control() {
            Control::Ack | Control::Cnp => return, // no CNP comes without `cnp_interval`
            Control::Nack => self.backlog.nacked(ack),
            Control::Pull => self.credit += self.pulled.heard(ack.seq),
        }
        self.serve(ctx);
    }

    fn on_timer(&mut self, _timer: TimerId, ctx: &mut AgentCtx) {
        self.unanswered.expired(&mut self.backlog, self.data_priority, ctx);
    }

    fn largest_window(&self) -> Option<f64> {
        Some(self.initial_window as f64)
    }

    fn pulls(&self) -> Option<PullSpec> {
        Some(PullSpec { fraction: self.pull_rate, slot: None, per_arrival: true })
    }
}

/// The `ndp` transport, as scenarios name it.
pub static DECLARATION: TransportDeclaration<(NdpConfig,)> = Declaration {
    about: About {
        name: "ndp",
        summary: "NDP: a first window at line rate, then one packet per receiver pull; NACKed trimmed packets sent again first",
        reference: "Handley et al., SIGCOMM 2017; htsim's NdpSrc/NdpSink",
    },
    defaults: || (NdpConfig::default(),),
    build: |(c,), flow| Ok(Box::new(Ndp::new(c, flow)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Action;
    use crate::units::Time;

    use super::super::pull_testing::{call, control, sent};

    fn flow() -> crate::transport::sender::FlowInfo {
        crate::transport::sender::FlowInfo::for_tests(crate::units::Rate(100_000_000_000))
    }

    #[test]
    fn a_first_window_then_one_packet_per_pull_number_retransmissions_first() {
        let mut ndp = Ndp::new(&NdpConfig { initial_window: 3, ..Default::default() }, &flow()).unwrap();
        assert_eq!(call(&mut ndp, 10, |s, ctx| s.on_start(ctx)), vec![0, 1, 2]);
        assert_eq!(
            call(&mut ndp, 10, |s, ctx| s.on_ack(&control(Control::Ack, 1, 0), ctx)),
            Vec::<u64>::new(),
            "ACKs pull nothing"
        );
        assert_eq!(call(&mut ndp, 10, |s, ctx| s.on_ack(&control(Control::Pull, 1, 0), ctx)), vec![3]);
        // pull 2 was lost: pull 3 makes up for it
        assert_eq!(call(&mut ndp, 10, |s, ctx| s.on_ack(&control(Control::Pull, 3, 0), ctx)), vec![4, 5]);
        assert_eq!(
            call(&mut ndp, 10, |s, ctx| s.on_ack(&control(Control::Pull, 2, 0), ctx)),
            Vec::<u64>::new(),
            "late and stale"
        );
        // headers of 2 and 1 came back: the NACKs send nothing until pulled, then the lowest first
        assert_eq!(call(&mut ndp, 10, |s, ctx| s.on_ack(&control(Control::Nack, 1, 2), ctx)), Vec::<u64>::new());
        assert_eq!(call(&mut ndp, 10, |s, ctx| s.on_ack(&control(Control::Nack, 1, 1), ctx)), Vec::<u64>::new());
        assert_eq!(call(&mut ndp, 10, |s, ctx| s.on_ack(&control(Control::Pull, 5, 0), ctx)), vec![1, 2]);
        assert_eq!(call(&mut ndp, 10, |s, ctx| s.on_ack(&control(Control::Pull, 6, 0), ctx)), vec![6]);
    }

    #[test]
    fn a_pull_with_nothing_to_send_is_kept_for_the_next_nack() {
        let mut ndp = Ndp::new(&NdpConfig { initial_window: 2, ..Default::default() }, &flow()).unwrap();
        assert_eq!(call(&mut ndp, 2, |s, ctx| s.on_start(ctx)), vec![0, 1]);
        assert_eq!(call(&mut ndp, 2, |s, ctx| s.on_ack(&control(Control::Pull, 1, 0), ctx)), Vec::<u64>::new());
        assert_eq!(call(&mut ndp, 2, |s, ctx| s.on_ack(&control(Control::Nack, 1, 1), ctx)), vec![1], "sent at once");
        // a NACK of a packet the receiver has since acknowledged is stale
        assert_eq!(call(&mut ndp, 2, |s, ctx| s.on_ack(&control(Control::Pull, 2, 0), ctx)), Vec::<u64>::new());
        assert_eq!(call(&mut ndp, 2, |s, ctx| s.on_ack(&control(Control::Nack, 2, 0), ctx)), Vec::<u64>::new());
    }

    #[test]
    fn with_rto_the_lowest_unacknowledged_packet_goes_again_when_nothing_comes_back() {
        let rto = Some(Time::from_micros(100));
        let mut ndp = Ndp::new(&NdpConfig { initial_window: 3, rto, ..Default::default() }, &flow()).unwrap();
        let mut actions = vec![];
        ndp.on_start(&mut AgentCtx::new(Time::ZERO, 3, &mut actions));
        // the first packet, sent with none unanswered, starts the timeout; the others leave it
        let armed = Action::SetTimeout(RETRANSMIT, Time::from_micros(100));
        assert_eq!((sent(&actions), &actions[1]), (vec![0, 1, 2], &armed));
        assert_eq!(actions.iter().filter(|&a| *a == armed).count(), 1);
        // 0 and 2 are acknowledged (1's header and its pulls were lost): 1 goes again on the timeout
        call(&mut ndp, 3, |s, ctx| s.on_ack(&control(Control::Ack, 1, 0), ctx));
        call(&mut ndp, 3, |s, ctx| s.on_ack(&control(Control::Ack, 1, 2), ctx));
        let mut actions = vec![];
        ndp.on_timer(RETRANSMIT, &mut AgentCtx::new(Time::from_micros(150), 3, &mut actions));
        assert_eq!(sent(&actions), vec![1]);
        assert!(actions.contains(&Action::Count(crate::transport::sender::Event::Timeout)));
        // its ACK covers all: the timer stops
        let mut actions = vec![];
        ndp.on_ack(&control(Control::Ack, 3, 1), &mut AgentCtx::new(Time::from_micros(160), 3, &mut actions));
        assert_eq!(actions, vec![Action::CancelTimer(RETRANSMIT)]);
    }

    #[test]
    fn a_retransmission_waits_for_a_pull_while_new_data_may_use_the_window_left() {
        // a file of 2 packets and a window of 5: 3 places left, which no retransmission takes
        let mut ndp = Ndp::new(&NdpConfig { initial_window: 5, ..Default::default() }, &flow()).unwrap();
        assert_eq!(call(&mut ndp, 2, |s, ctx| s.on_start(ctx)), vec![0, 1]);
        assert_eq!(call(&mut ndp, 2, |s, ctx| s.on_ack(&control(Control::Nack, 0, 1), ctx)), Vec::<u64>::new());
        assert_eq!(call(&mut ndp, 2, |s, ctx| s.on_ack(&control(Control::Pull, 1, 0), ctx)), vec![1]);
        // data produced later (a timed application) goes on the window left
        assert_eq!(call(&mut ndp, 5, |s, ctx| s.on_data(ctx)), vec![2, 3, 4]);
    }

    #[test]
    fn the_timeout_is_on_by_default_and_0_turns_it_off() {
        let armed = |config: &NdpConfig| {
            let mut actions = vec![];
            Ndp::new(config, &flow()).unwrap().on_start(&mut AgentCtx::new(Time::ZERO, 1, &mut actions));
            actions.iter().any(|a| matches!(a, Action::SetTimeout(RETRANSMIT, _)))
        };
        assert!(armed(&NdpConfig::default()));
        assert!(!armed(&NdpConfig { rto: Some(Time::ZERO), ..Default::default() }));
    }

    #[test]
    fn a_packet_sent_on_a_pull_with_none_unanswered_starts_the_timeout() {
        let rto = Some(Time::from_micros(100));
        let mut ndp = Ndp::new(&NdpConfig { initial_window: 1, rto, ..Default::default() }, &flow()).unwrap();
        call(&mut ndp, 3, |s, ctx| s.on_start(ctx));
        // packet 0 acknowledged: nothing waits, the timer stops
        call(&mut ndp, 3, |s, ctx| s.on_ack(&control(Control::Ack, 1, 0), ctx));
        // its pull sends packet 1, which is then all that waits for an answer
        let mut actions = vec![];
        ndp.on_ack(&control(Control::Pull, 1, 0), &mut AgentCtx::new(Time::from_micros(10), 3, &mut actions));
        assert_eq!(sent(&actions), vec![1]);
        assert_eq!(actions.last(), Some(&Action::SetTimeout(RETRANSMIT, Time::from_micros(110))));
    }

    #[test]
    fn new_data_does_not_put_off_the_timeout() {
        let rto = Some(Time::from_micros(100));
        let mut ndp = Ndp::new(&NdpConfig { initial_window: 1, rto, ..Default::default() }, &flow()).unwrap();
        let mut actions = vec![];
        ndp.on_start(&mut AgentCtx::new(Time::ZERO, 1, &mut actions));
        assert_eq!(actions.last(), Some(&Action::SetTimeout(RETRANSMIT, Time::from_micros(100))));
        // more data at 50 µs, no credit left, packet 0 unanswered: the timer stays as it was
        let mut actions = vec![];
        ndp.on_data(&mut AgentCtx::new(Time::from_micros(50), 2, &mut actions));
        assert_eq!(actions, vec![]);
    }

    #[test]
    fn settings_out_of_range_are_refused() {
        assert!(Ndp::new(&NdpConfig { initial_window: 0, ..Default::default() }, &flow()).is_err());
        assert!(Ndp::new(&NdpConfig { pull_rate: 1.5, ..Default::default() }, &flow()).is_err());
        assert!(Ndp::new(&NdpConfig { pull_rate: 0.0, ..Default::default() }, &flow()).is_err());
    }
}
