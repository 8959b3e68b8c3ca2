//! The contract of a transport (a flow-control protocol): the `Sender` trait, what it may do
//! (`Action`, through `AgentCtx`), what it records (`Series`, `Event`), and what it is built for
//! (`FlowInfo`).
//!
//! A sender decides which sequence numbers go out and when; it never sees the network. The
//! engine turns its actions into packets, delivers ACKs back to it, and runs its timers.

use crate::component::{Declaration, Kind};
use crate::net::Packet;
use crate::units::Time;
use serde::Serialize;

pub use crate::timer::TimerId;

/// A quantity a sender can record over time (when the flow is traced).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Series {
    /// Congestion window, packets.
    Cwnd,
    Ssthresh,
    /// The window in force for protocols without cwnd (Generic, DECbit), packets.
    Window,
    /// Sending rate, packets per second (rate-based protocols).
    Rate,
    /// The protocol's estimate of what it measures (Packet-Pair: the bottleneck service rate
    /// in packets per second; Vegas: its packets queued in the network).
    RateEstimate,
    /// A raw measurement (Packet-Pair: the rate one probe gave).
    Probe,
    /// Packets sent and not yet acknowledged.
    Outstanding,
    /// The averaging weight of an estimator (Packet-Pair's fuzzy α: near 1 it keeps its
    /// estimate, near 0 it follows the last probe).
    Weight,
    /// The protocol's estimate of the path's round trip without queueing, seconds (BBR's
    /// min_rtt).
    MinRtt,
    /// A series a component written outside Rust names itself (a controller in Python's
    /// `ctx.record`): any name but the ones above, by its place among the names given
    /// (`Series::named`). An index, not the name: a series is in every recorded action, which
    /// a name's two words would make twice as large.
    Named(u16),
}

/// The names `Series::named` was given, in order; each leaked once (a handful per process).
static NAMED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

impl Series {
    /// Every series with a name of its own, in the order of the enum.
    pub const ALL: [Series; 9] = [
        Series::Cwnd,
        Series::Ssthresh,
        Series::Window,
        Series::Rate,
        Series::RateEstimate,
        Series::Probe,
        Series::Outstanding,
        Series::Weight,
        Series::MinRtt,
    ];

    /// The series called `name` (as `name` writes it).
    pub fn from_name(name: &str) -> Option<Series> {
        Series::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Series::Cwnd => "cwnd",
            Series::Ssthresh => "ssthresh",
            Series::Window => "window",
            Series::Rate => "rate",
            Series::RateEstimate => "rate_estimate",
            Series::Probe => "probe",
            Series::Outstanding => "outstanding",
            Series::Weight => "weight",
            Series::MinRtt => "min_rtt",
            Series::Named(i) => NAMED.lock().unwrap_or_else(|e| e.into_inner())[i as usize],
        }
    }

    /// The series called `name`: a built-in one, or one of a component's own; `None` once
    /// 65,536 names of its own were given.
    pub fn named(name: &str) -> Option<Series> {
        if let Some(s) = Series::from_name(name) {
            return Some(s);
        }
        let mut names = NAMED.lock().unwrap_or_else(|e| e.into_inner());
        let i = match names.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                names.push(Box::leak(name.to_owned().into_boxed_str()));
                names.len() - 1
            }
        };
        u16::try_from(i).ok().map(Series::Named)
    }
}

/// What a sender asks the engine to do.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Action {
    /// Send data packet `seq` now (a retransmission if it was sent before).
    Send {
        seq: u64,
    },
    /// The same, with a priority in its header for disciplines that read one (BLT's
    /// opportunism level: a larger number is less important).
    SendWithPriority {
        seq: u64,
        priority: u8,
    },
    /// Arm a timer to fire exactly at the given instant (pacing).
    SetTimer(TimerId, Time),
    /// Arm a timeout: it fires at the given instant or later, by the hosts' clock noise
    /// (`run.clock_jitter`, `node::HostClock`).
    SetTimeout(TimerId, Time),
    CancelTimer(TimerId),
    /// Record a value of a time series (kept only if the flow is traced).
    Record(Series, f64),
    /// Count an event in the flow's statistics.
    Count(Event),
    /// The window was reduced in answer to an ECN echo: the next new data packet carries CWR
    /// (RFC 3168 §6.1.2).
    ReducedForEcn,
    /// From now on the flow's own `window` is (`true`) or is no longer (`false`) what holds
    /// the sender back: said on a change only (`window::WindowLimit`).
    WindowLimited(bool),
}

/// Transport events counted per flow and interval.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The retransmission timer expired.
    Timeout,
    /// A loss was detected by duplicate ACKs (or RACK) and repaired by fast retransmit.
    FastRetransmit,
    /// A D-SACK reported a packet the receiver already had: a retransmission sent in vain.
    SpuriousRetransmit,
    /// A tail loss probe was sent (RFC 8985 §7).
    LossProbe,
    /// The sender gave up after `max_backoffs` expiries of its timer in a row.
    Abandoned,
}

/// What a sender may see and do while handling an event.
pub struct AgentCtx<'a> {
    pub now: Time,
    /// The application has handed the transport packets `0..app_limit` so far.
    pub app_limit: u64,
    /// On an ACK: its SACK blocks (packets `start..end` received), if the flow uses SACK.
    pub sack: &'a [(u64, u64)],
    /// Whether priority flow control holds the source's line paused (`engine::pfc`): a sender
    /// that sets its own pace (RoCE's NIC) waits instead of sending.
    pub paused: bool,
    /// On an ACK: the INT records it echoes (`net::int`), one per switch egress its data packet
    /// crossed, in path order, if the transport asks for telemetry (`Sender::telemetry`).
    pub int: &'a [crate::net::int::IntHop],
    actions: &'a mut Vec<Action>,
    /// Whether the flow keeps its time series (`Action::Record`): most do not, and an ACK's
    /// two or three records would otherwise be queued and carried out only to be dropped.
    records: bool,
}

impl<'a> AgentCtx<'a> {
    pub fn new(now: Time, app_limit: u64, actions: &'a mut Vec<Action>) -> Self {
        AgentCtx { now, app_limit, sack: &[], int: &[], paused: false, actions, records: true }
    }
    /// The same for a flow that keeps no time series: `record` does nothing.
    pub fn without_records(self) -> Self {
        AgentCtx { records: false, ..self }
    }
    /// Whether the flow keeps its time series: what `record` records goes somewhere.
    pub fn recording(&self) -> bool {
        self.records
    }
    pub fn send(&mut self, seq: u64) {
        self.actions.push(Action::Send { seq });
    }
    pub fn send_with_priority(&mut self, seq: u64, priority: u8) {
        self.actions.push(Action::SendWithPriority { seq, priority });
    }
    /// Arms `timer` to fire exactly at `at`: for pacing, where lateness would add up.
    pub fn set_timer(&mut self, timer: TimerId, at: Time) {
        self.actions.push(Action::SetTimer(timer, at));
    }
    /// Arms the timeout `timer` for `at`; a noisy host clock may fire it late.
    pub fn set_timeout(&mut self, timer: TimerId, at: Time) {
        self.actions.push(Action::SetTimeout(timer, at));
    }
    pub fn cancel_timer(&mut self, timer: TimerId) {
        self.actions.push(Action::CancelTimer(timer));
    }
    pub fn record(&mut self, series: Series, value: f64) {
        if self.records {
            self.actions.push(Action::Record(series, value));
        }
    }
    pub fn count(&mut self, event: Event) {
        self.actions.push(Action::Count(event));
    }
    /// Says the window was reduced for an ECN echo (the next new data packet carries CWR).
    pub fn reduced_for_ecn(&mut self) {
        self.actions.push(Action::ReducedForEcn);
    }
    /// Says whether the flow's own window now holds the sender back (on a change only).
    pub fn window_limited(&mut self, limited: bool) {
        self.actions.push(Action::WindowLimited(limited));
    }
}

pub trait Sender: Send + Sync {
    /// The flow starts.
    fn on_start(&mut self, ctx: &mut AgentCtx);
    /// The application produced more data (`ctx.app_limit` grew).
    fn on_data(&mut self, ctx: &mut AgentCtx);
    /// An acknowledgement arrived.
    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx);
    /// A timer set by this sender expired.
    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx);
    /// When the flow's sink acknowledges: a setting of the transport, carried out by the sink.
    fn ack_policy(&self) -> AckPolicy {
        AckPolicy::default()
    }
    /// A receiver-driven transport (NDP, EQDS): its sink answers every data packet at once and
    /// every trimmed header with a NACK, and asks its host's pull pacer for pulls as this says
    /// (`node::pull`). `None`: no pulls.
    fn pulls(&self) -> Option<PullSpec> {
        None
    }
    /// With pulls that are not one per arrival (EQDS): the pull number up to which the sender
    /// asks for credit now, carried by each data packet it sends (in `echo_seq`).
    fn pull_target(&self) -> u64 {
        0
    }
    /// Whether the flow's own window can hold this sender back below what its control allows
    /// (it then says when, `AgentCtx::window_limited`, and the time is reported).
    fn has_window_limit(&self) -> bool {
        false
    }
    /// The most packets this sender's own window lets it have in flight whatever the network
    /// says (TCP's receiver window, NDP's initial window, HPCC's B·T), if it has such a bound:
    /// below its path's bandwidth-delay product, it cannot fill that path even alone.
    fn largest_window(&self) -> Option<f64> {
        None
    }
    /// Whether switches stamp in-band telemetry into the flow's data packets, and where
    /// (`net::int`); its ACKs then echo the records (`AgentCtx::int`). `None`: no telemetry.
    fn telemetry(&self) -> Option<crate::net::int::IntStamp> {
        None
    }
}

/// How a receiver-driven transport's sink asks for pulls, and how its host paces them: a
/// transport's answer to `Sender::pulls`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PullSpec {
    /// The pacer's rate as a fraction of the receiver's line.
    pub fraction: f64,
    /// The bytes a pull's slot takes at that rate: `None`, the flow's packet size (NDP: a pull
    /// per packet); EQDS gives its own, a pull granting credit rather than a packet.
    pub slot: Option<u32>,
    /// Each packet or header that arrives asks for one pull (NDP); otherwise the sender's data
    /// packets say up to which pull number it asks (`Packet::echo_seq`, EQDS's pull target), and
    /// a trimmed header asks for one pull ahead of every flow's others.
    pub per_arrival: bool,
}

/// Flow properties a transport is built with.
pub struct FlowInfo {
    /// The flow's `window`, which overrides the transport's own default.
    pub window: Option<u32>,
    pub packet_size: u32,
    /// The run's seed and the flow's name, for senders that draw random numbers.
    pub seed: u64,
    pub name: String,
    /// Whether the application always has data (an FTP without `size`): senders that set their
    /// own rate, such as RLM, carry nothing else.
    pub unending: bool,
    /// The rate of the flow's first line (its source's access line).
    pub access_rate: crate::units::Rate,
    /// The links of the flow's path of fewest hops, host links included (its data route; with
    /// forwarding that chooses paths at each switch, every path a fat tree offers has as many):
    /// the switches crossed are one fewer. Swift scales its target by it; packets carry no TTL.
    pub links: u32,
    /// The path's base round trip as HPCC's authors compute it (their ns-3 `pairRtt`): twice
    /// the propagation along the data path, plus one packet's transmission at every line of it.
    /// HPCC's base RTT and the data-centre transports' timeout default to what it gives.
    pub base_rtt: crate::units::Time,
}

#[cfg(test)]
impl FlowInfo {
    /// A flow of 1000-byte packets from a line of `access_rate`, two links long, for senders'
    /// tests.
    pub fn for_tests(access_rate: crate::units::Rate) -> FlowInfo {
        let base_rtt = crate::units::Time::from_micros(12);
        FlowInfo {
            window: None,
            packet_size: 1000,
            seed: 1,
            name: "f".into(),
            unending: false,
            access_rate,
            links: 2,
            base_rtt,
        }
    }
}

/// A transport's declaration: its parts' configurations, built for a flow.
pub type TransportDeclaration<P> = Declaration<P, FlowInfo, dyn Sender>;

/// A registered transport.
pub type TransportKind = dyn Kind<FlowInfo, dyn Sender>;

/// When the sink acknowledges in-order data, and what its ACKs' congestion bit says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckPolicy {
    /// Acknowledge once this many in-order packets are unacknowledged (1: every packet at once).
    pub every: u32,
    /// The longest an in-order packet waits for its ACK.
    pub delay: Time,
    pub ecn: EcnEcho,
    /// ACKs carry SACK blocks (RFC 2018).
    pub sack: bool,
    /// With `sack`, the ACK of a duplicate packet reports it in a first, D-SACK block
    /// (RFC 2883).
    pub dsack: bool,
    /// A go-back-N sink (a RoCE NIC's, htsim's `RoceSink`/`HPCCSink`): a packet above the next
    /// expected is discarded and answered at once by a NACK carrying the cumulative ACK
    /// (`Control::Nack`); the sender is to send again from it. Every packet is acknowledged at
    /// once; `every`, `ecn` and `sack` are not read.
    pub go_back_n: bool,
    /// DCQCN's notification point: data packets are ECN-capable, and a CE-marked one makes the
    /// sink send a CNP (`Control::Cnp`), at most one per this interval.
    pub cnp_interval: Option<Time>,
}

impl Default for AckPolicy {
    fn default() -> Self {
        AckPolicy {
            every: 1,
            delay: Time::ZERO,
            ecn: EcnEcho::Off,
            sack: false,
            dsack: false,
            go_back_n: false,
            cnp_interval: None,
        }
    }
}

/// What an ACK's congestion bit echoes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EcnEcho {
    /// The bits of the packets it acknowledges (DECbit); the transport sends no ECT packets.
    Off,
    /// RFC 3168's ECE: from a CE mark until a CWR.
    Classic,
    /// RFC 8257's exact per-packet echo.
    Dctcp,
}

#[cfg(test)]
mod tests {
    use super::Series::{self, *};

    #[test]
    fn every_series_is_listed_and_found_by_its_name() {
        for s in Series::ALL {
            assert_eq!(Series::from_name(s.name()), Some(s));
        }
        assert_eq!(Series::from_name("Cwnd"), None);
        // a new series does not compile in this match until it is named here, and the test
        // fails until it is in `ALL` too
        let every = |s: Series| match s {
            Cwnd | Ssthresh | Window | Rate | RateEstimate | Probe | Outstanding | Weight | MinRtt | Named(_) => {
                [Cwnd, Ssthresh, Window, Rate, RateEstimate, Probe, Outstanding, Weight, MinRtt]
            }
        };
        assert_eq!(every(Cwnd), Series::ALL);
    }

    #[test]
    fn a_series_of_a_components_own_keeps_its_name_and_actions_stay_small() {
        assert_eq!(Series::named("cwnd"), Some(Cwnd));
        let mine = Series::named("queue_estimate").unwrap();
        assert_eq!((Series::named("queue_estimate"), mine.name()), (Some(mine), "queue_estimate"));
        assert_ne!(Series::named("other"), Some(mine));
        assert!(std::mem::size_of::<super::Action>() <= 16, "an action is pushed for every send");
    }

    #[test]
    fn a_flow_without_time_series_queues_no_records_and_every_other_action() {
        use super::{Action, AgentCtx};
        use crate::units::Time;
        let act = |ctx: &mut AgentCtx| {
            ctx.record(Cwnd, 10.0);
            ctx.send(7);
            ctx.record(Outstanding, 3.0);
        };
        let mut actions = vec![];
        act(&mut AgentCtx::new(Time::ZERO, 8, &mut actions));
        assert_eq!(actions, [Action::Record(Cwnd, 10.0), Action::Send { seq: 7 }, Action::Record(Outstanding, 3.0)]);
        actions.clear();
        act(&mut AgentCtx::new(Time::ZERO, 8, &mut actions).without_records());
        assert_eq!(actions, [Action::Send { seq: 7 }]);
    }
}
