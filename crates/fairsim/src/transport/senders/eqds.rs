//! EQDS's sender: a speculative first round trip at line rate, then credit from the receiver's
//! paced pulls; packets the network trimmed are NACKed and sent again on urgent credit.
//!
//! Reference: Olteanu, Eran, Dumitrescu, Popescu, Antichi, Raiciu, Handley, "An edge-queued
//! datagram service for all datacenter traffic", NSDI 2022 (EQDS). A sender keeps its data in
//! its own queue at the edge and sends only against credit; the receiver grants credit in pulls
//! paced at its line rate, shared among its senders; in the first round trip a sender may send
//! speculatively; the core trims (`qdisc::trim`), and a trimmed packet's header makes the
//! receiver NACK it and grant credit for it ahead of everything else. The defaults are htsim's
//! `EqdsSrc`/`EqdsSink`/`EqdsPullPacer` (Broadcom/csg-htsim 841d9e7, `sim/eqds.cpp`;
//! validation/htsim/ndp-eqds-model.md §6), against which this is validated.
//!
//! Choices, and where this differs from htsim's EQDS:
//! - Credit is in bytes: `speculative_window` packets' worth at the start (htsim's `-cwnd 50`
//!   × 4,150 B), `pull_bytes` (4,096) per pull. A packet may go while credit is above zero and
//!   spends its size, so credit may go below zero by up to a packet (htsim's `spendCredit`):
//!   pulled credit first, else speculative credit while speculating.
//! - The NIC sends one packet per slot (a packet's time at the source's line, htsim's
//!   `EqdsNIC`), each decided when its slot comes: a speculative burst stops at the receiver's
//!   first answer (ACK, NACK or pull), one base round trip after the start, rather than going
//!   out whole at once. Speculative credit left then is spent without sending at the next
//!   attempt to send, all of it; htsim spends it a packet's worth per attempt, which would hold
//!   back the pull target of a sender with nothing in flight, never to be asked again. htsim's
//!   NIC shares
//!   its slots among a host's flows in turn; here each flow has its own slots, the host's line
//!   then serving them in turn.
//! - Each data packet asks for credit up to pull number pulled + ⌈(min(backlog, window) −
//!   credit) / pull_bytes⌉ (htsim's `computePullTarget`, in pulls rather than 512-byte quanta),
//!   the backlog counting packets to send again.
//! - The receiver's pacer sends one pull per `pull_spacing` bytes of its line (htsim: 0.99 ×
//!   (4,160 + 38) bytes, 332.48 ns at 100 Gb/s): urgent pulls (one per trimmed header) first,
//!   then its senders in turn while they ask for more (`node::pull`). htsim grants 9 quanta of
//!   urgent credit per trimmed 4,150-byte packet, here one pull of 4,096 bytes, which the
//!   negative-credit rule makes enough.
//! - The sink acknowledges every packet; htsim's every 16 KB, with a SACK bitmap. Completion is
//!   at the source on the covering ACK in both.
//! - New data that finds the sender idle (all sent, no credit) starts a new speculative window,
//!   as at the start: otherwise an application producing data over time (Telnet) would wait
//!   forever, the receiver knowing nothing to pull. htsim grants idle senders slow speculative
//!   pulls instead; its files have all their data at the start.
//! - The retransmission timeout (htsim's, a fixed 219.7 µs on its fabric, with an RTS when
//!   credit is short) is `rto`: the lowest unacknowledged packet goes again, unpulled
//!   (`backlog::Unanswered`), no RTS; on by default, as htsim's, at the data-centre transports'
//!   default (`senders::timeout`).
//! - Left out: idle senders' slow
//!   speculative pulls, the NIC's 20:1 control-to-data service, per-entropy path penalties
//!   (fairsim sprays with `forwarding = "spray"`), the short last packet (fairsim's last packet
//!   is full), ECN.

use super::backlog::{Backlog, PullsHeard, Unanswered};
use crate::component::{About, Declaration};
use crate::net::{Control, Packet};
use crate::params::ParamError;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, FlowInfo, PullSpec, Sender, TimerId};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EqdsConfig {
    /// Packets a sender may send speculatively in its first round trip, and the most credit it
    /// asks for beyond what it holds (htsim's `-cwnd`, 50 by default).
    pub speculative_window: u32,
    /// The credit one pull grants.
    pub pull_bytes: Bytes,
    /// The receiver sends one pull per this many bytes of its line's time.
    pub pull_spacing: Bytes,
    /// The header priority of data packets; control packets have 0.
    pub data_priority: u8,
    /// Sends the lowest unacknowledged packet again when nothing has come back for this long;
    /// 0: never; default: 5 ms, or three of the path's base round trips if longer
    /// (`senders::timeout`).
    pub rto: Option<Time>,
}

impl Default for EqdsConfig {
    fn default() -> Self {
        EqdsConfig {
            speculative_window: 50,
            pull_bytes: Bytes(4096),
            pull_spacing: Bytes(4156),
            data_priority: 1,
            rto: None,
        }
    }
}

/// The NIC's next slot.
const SLOT: TimerId = TimerId(0);
/// `rto`.
const RETRANSMIT: TimerId = TimerId(1);

pub struct Eqds {
    packet_size: i64,
    window: i64,
    pull_bytes: i64,
    pull_spacing: u32,
    data_priority: u8,
    /// Speculative and pulled credit, bytes; speculation ends at the first answer.
    speculative: i64,
    pulled_credit: i64,
    speculating: bool,
    pulled: PullsHeard,
    backlog: Backlog,
    /// The application's data so far, packets.
    app_limit: u64,
    /// A packet's time at the source's line, and whether the NIC's next slot is yet to come.
    slot: Time,
    waiting: bool,
    unanswered: Unanswered,
}

impl Eqds {
    pub fn new(c: &EqdsConfig, flow: &FlowInfo) -> Result<Eqds, ParamError> {
        let packet_size = flow.packet_size;
        if c.speculative_window == 0 {
            return Err(ParamError::at("speculative_window", "must be at least 1"));
        }
        let positive = |b: Bytes, field: &str| {
            u32::try_from(b.0)
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| ParamError::at(field, "must be at least one byte and below 4 GB"))
        };
        let pull_bytes = positive(c.pull_bytes, "pull_bytes")?;
        let pull_spacing = positive(c.pull_spacing, "pull_spacing")?;
        Ok(Eqds {
            packet_size: packet_size.into(),
            window: i64::from(c.speculative_window) * i64::from(packet_size),
            pull_bytes: pull_bytes.into(),
            pull_spacing,
            data_priority: c.data_priority,
            speculative: 0,
            pulled_credit: 0,
            speculating: false,
            pulled: PullsHeard::default(),
            backlog: Backlog::default(),
            app_limit: 0,
            slot: flow.access_rate.tx_time(packet_size),
            waiting: false,
            unanswered: Unanswered::new(super::timeout(c.rto, flow), RETRANSMIT),
        })
    }

    fn credit(&self) -> i64 {
        self.speculative + self.pulled_credit
    }

    /// Sends one packet if its slot has come and credit allows (retransmissions first, then new
    /// data), and waits for the next slot; credit kept from speculation is spent without sending
    /// (htsim's `spendCredit`).
    fn send(&mut self, ctx: &mut AgentCtx) {
        self.app_limit = ctx.app_limit;
        if self.waiting || self.credit() <= 0 || self.backlog.len(ctx.app_limit) == 0 {
            return;
        }
        if self.pulled_credit > 0 {
            self.pulled_credit -= self.packet_size;
        } else if self.speculating {
            self.speculative -= self.packet_size;
        } else {
            // what speculation left goes, all at once: spent a packet per attempt (htsim's
            // `spendCredit`), it would hold back the pull target of a sender with nothing in
            // flight, and nothing would ever ask the receiver for its pulls
            self.speculative = self.speculative.min(0);
            return;
        }
        let seq = self.backlog.take(ctx.app_limit).expect("a packet waits");
        ctx.send_with_priority(seq, self.data_priority);
        self.unanswered.sent(seq, ctx);
        self.waiting = true;
        ctx.set_timer(SLOT, ctx.now + self.slot);
    }
}

impl Sender for Eqds {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        self.speculating = true;
        self.speculative = self.window;
        self.send(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        // new data finds the sender idle (all sent, no pulled credit): it sends speculatively
        // again, as at its start, since the receiver cannot know of the data to pull it
        let idle = self.backlog.len(self.app_limit) == 0 && self.pulled_credit <= 0;
        if idle && !self.speculating {
            self.speculating = true;
            self.speculative = self.window;
        }
        self.send(ctx);
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        // the receiver answered: the first round trip is over (its credit left is kept)
        self.speculating = false;
        self.unanswered.answered(ack, ctx);
        match ack.control() {
            Control::Ack | Control::Cnp => {} // no CNP comes without `cnp_interval`
            Control::Nack => self.backlog.nacked(ack),
            Control::Pull => self.pulled_credit += self.pulled.heard(ack.seq) as i64 * self.pull_bytes,
        }
        self.send(ctx);
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx) {
        if timer == SLOT {
            self.waiting = false;
            self.send(ctx);
        } else {
            self.unanswered.expired(&mut self.backlog, self.data_priority, ctx);
        }
    }

    fn pulls(&self) -> Option<PullSpec> {
        Some(PullSpec { fraction: 1.0, slot: Some(self.pull_spacing), per_arrival: false })
    }

    fn pull_target(&self) -> u64 {
        // an FTP without end has u64::MAX packets to send: counted as the most an i64 holds, not
        // wrapped to a negative backlog that would never ask for a pull
        let backlog =
            i64::try_from(self.backlog.len(self.app_limit)).unwrap_or(i64::MAX).saturating_mul(self.packet_size);
        let wanted = backlog.min(self.window) - self.credit();
        self.pulled.last() + if wanted > 0 { (wanted as u64).div_ceil(self.pull_bytes as u64) } else { 0 }
    }
}

/// The `eqds` transport, as scenarios name it.
pub static DECLARATION: TransportDeclaration<(EqdsConfig,)> = Declaration {
    about: About {
        name: "eqds",
        summary: "EQDS: a speculative first round trip, then credit from the receiver's paced pulls; trimmed packets NACKed and sent again first",
        reference: "Olteanu et al., NSDI 2022; htsim's EqdsSrc/EqdsSink",
    },
    defaults: || (EqdsConfig::default(),),
    build: |(c,), flow| Ok(Box::new(Eqds::new(c, flow)?)),
};

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::pull_testing::{call, control};

    fn eqds() -> Eqds {
        // packets of 4,150 bytes, a speculative window of 3, pulls of 4,096 bytes
        let flow = FlowInfo { packet_size: 4150, ..FlowInfo::for_tests(crate::units::Rate(100_000_000_000)) };
        Eqds::new(&EqdsConfig { speculative_window: 3, ..Default::default() }, &flow).unwrap()
    }

    /// The NIC's next slot comes: the packets sent then.
    fn slot(s: &mut Eqds, file: u64) -> Vec<u64> {
        call(s, file, |s, ctx| s.on_timer(SLOT, ctx))
    }

    #[test]
    fn a_speculative_window_a_packet_a_slot_then_a_packet_whenever_credit_is_above_zero() {
        let mut s = eqds();
        assert_eq!(call(&mut s, 20, |s, ctx| s.on_start(ctx)), vec![0]);
        assert_eq!((slot(&mut s, 20), slot(&mut s, 20), slot(&mut s, 20)), (vec![1], vec![2], vec![]));
        // it asks for a window beyond its credit (none left): ⌈12,450 / 4,096⌉ = 4 pulls
        assert_eq!(s.pull_target(), 4);
        // the first ACK ends speculation; pull 1 gives 4,096 bytes: one packet, 54 bytes in debt
        assert_eq!(call(&mut s, 20, |s, ctx| s.on_ack(&control(Control::Ack, 1, 0), ctx)), Vec::<u64>::new());
        assert_eq!(call(&mut s, 20, |s, ctx| s.on_ack(&control(Control::Pull, 1, 0), ctx)), vec![3]);
        assert_eq!(s.credit(), -54);
        // pulls 2 and 3 (2 lost, 3 makes up for it): 8,192 − 54 bytes, two packets, a slot each
        assert_eq!(call(&mut s, 20, |s, ctx| s.on_ack(&control(Control::Pull, 3, 0), ctx)), Vec::<u64>::new());
        assert_eq!((slot(&mut s, 20), slot(&mut s, 20), slot(&mut s, 20)), (vec![4], vec![5], vec![]));
        // a NACK of 1: sent again first, on the next credit
        assert_eq!(call(&mut s, 20, |s, ctx| s.on_ack(&control(Control::Nack, 1, 1), ctx)), Vec::<u64>::new());
        assert_eq!(call(&mut s, 20, |s, ctx| s.on_ack(&control(Control::Pull, 4, 0), ctx)), vec![1]);
    }

    #[test]
    fn a_speculative_burst_stops_at_the_first_answer_and_its_credit_left_goes_unsent() {
        let mut s = eqds();
        assert_eq!(call(&mut s, 20, |s, ctx| s.on_start(ctx)), vec![0]);
        call(&mut s, 20, |s, ctx| s.on_ack(&control(Control::Ack, 1, 0), ctx));
        // two packets' worth of speculative credit left: kept (the pull target counts it) ...
        // ⌈(12,450 − 8,300) / 4,096⌉ = 2 pulls ...
        assert_eq!((s.credit(), s.pull_target()), (8300, 2));
        // ... until the next attempt to send, which spends it all without sending: ⌈12,450 / 4,096⌉
        assert_eq!(slot(&mut s, 20), Vec::<u64>::new());
        assert_eq!((s.credit(), s.pull_target()), (0, 4));
    }

    #[test]
    fn a_file_without_end_asks_for_a_window_of_pulls() {
        let mut s = eqds();
        call(&mut s, u64::MAX, |s, ctx| s.on_start(ctx));
        // its backlog is as large as can be: it asks for its window beyond its credit
        assert_eq!(s.pull_target(), 2, "⌈(12,450 − 8,300) / 4,096⌉");
    }

    #[test]
    fn new_data_for_an_idle_sender_goes_speculatively() {
        let mut s = eqds();
        assert_eq!(call(&mut s, 1, |s, ctx| s.on_start(ctx)), vec![0]);
        assert_eq!(slot(&mut s, 1), Vec::<u64>::new());
        call(&mut s, 1, |s, ctx| s.on_ack(&control(Control::Ack, 1, 0), ctx));
        assert_eq!(call(&mut s, 2, |s, ctx| s.on_data(ctx)), vec![1], "no credit pulled, yet sent");
    }

    #[test]
    fn a_short_file_asks_for_no_more_than_its_backlog() {
        let mut s = eqds();
        assert_eq!((call(&mut s, 2, |s, ctx| s.on_start(ctx)), slot(&mut s, 2)), (vec![0], vec![1]));
        assert_eq!(s.pull_target(), 0, "all sent, credit left");
        // a NACK of 1: the credit left covers the packet to send again, until a slot spends it
        call(&mut s, 2, |s, ctx| s.on_ack(&control(Control::Nack, 0, 1), ctx));
        assert_eq!(slot(&mut s, 2), Vec::<u64>::new());
        assert_eq!(s.pull_target(), 2, "one packet to send again, no credit: ⌈4,150 / 4,096⌉");
        // the receiver's urgent pull for the header
        assert_eq!(call(&mut s, 2, |s, ctx| s.on_ack(&control(Control::Pull, 1, 0), ctx)), vec![1]);
    }
}
