//! Flow-control protocols (transports): the `Sender` trait, its context, and the registry.
//!
//! A sender decides which sequence numbers go out and when; it never sees the network. The
//! engine turns its actions into packets, delivers ACKs back to it, and runs its timers.
//!
//! Window protocols are the reliability layer (`reliable`: window, duplicate ACKs, the
//! retransmission timer) under a congestion controller (`controller`): Jacobson's window for
//! JK, Reno and NewReno (`aimd`), Vegas, DECbit's window law, Generic's fixed window. Packet-Pair
//! and RLM set their own rates and are whole senders. The sink side (`sink`) is common to all.

pub mod aimd;
mod averaged_timeout;
pub mod controller;
mod decbit;
pub mod fuzzy;
mod generic;
mod packet_pair;
pub mod pp_law;
pub mod reliable;
mod retransmit;
pub mod rlm;
pub mod rto;
pub mod sink;
mod vegas;
pub mod window;

pub use aimd::{Aimd, AimdConfig};
pub use controller::Controller;
pub use decbit::{decbit, Decbit, DecbitConfig};
pub use generic::{generic, Generic, GenericConfig};
pub use packet_pair::{PacketPair, PacketPairConfig};
pub use reliable::{AveragedReliability, Recovery, Reliable, TcpReliability};
pub use vegas::{Vegas, VegasConfig};

use crate::net::Packet;
use crate::params::{fields, parse_over, parse_params, split, Built, ParamError, Params};
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
}

impl Series {
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
        }
    }
}

/// What a sender asks the engine to do.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Action {
    /// Send data packet `seq` now (a retransmission if it was sent before).
    Send {
        seq: u64,
    },
    SetTimer(TimerId, Time),
    CancelTimer(TimerId),
    /// Record a value of a time series (kept only if the flow is traced).
    Record(Series, f64),
    /// Count an event in the flow's statistics.
    Count(Event),
}

/// Transport events counted per flow and interval.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The retransmission timer expired.
    Timeout,
    /// A loss was detected by duplicate ACKs and repaired by fast retransmit.
    FastRetransmit,
}

/// What a sender may see and do while handling an event.
pub struct AgentCtx<'a> {
    pub now: Time,
    /// The application has handed the transport packets `0..app_limit` so far.
    pub app_limit: u64,
    actions: &'a mut Vec<Action>,
}

impl<'a> AgentCtx<'a> {
    pub fn new(now: Time, app_limit: u64, actions: &'a mut Vec<Action>) -> Self {
        AgentCtx { now, app_limit, actions }
    }
    pub fn send(&mut self, seq: u64) {
        self.actions.push(Action::Send { seq });
    }
    pub fn set_timer(&mut self, timer: TimerId, at: Time) {
        self.actions.push(Action::SetTimer(timer, at));
    }
    pub fn cancel_timer(&mut self, timer: TimerId) {
        self.actions.push(Action::CancelTimer(timer));
    }
    pub fn record(&mut self, series: Series, value: f64) {
        self.actions.push(Action::Record(series, value));
    }
    pub fn count(&mut self, event: Event) {
        self.actions.push(Action::Count(event));
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
}

/// Flow properties a transport is built with.
pub struct FlowInfo<'a> {
    /// The flow's `window`, which overrides the transport's own default.
    pub window: Option<u32>,
    pub packet_size: u32,
    /// The run's seed and the flow's name, for senders that draw random numbers.
    pub seed: u64,
    pub name: &'a str,
    /// Whether the application always has data (an FTP without `size`): senders that set their
    /// own rate, such as RLM, carry nothing else.
    pub unending: bool,
}

pub struct TransportKind {
    pub name: &'static str,
    pub summary: &'static str,
    pub reference: &'static str,
    pub build: fn(&Params, &FlowInfo) -> Built<dyn Sender>,
}

/// The transport's parameters with the flow's `window`, which overrides the transport's own,
/// checked against the largest window.
fn with_flow_window(params: &Params, flow: &FlowInfo) -> Result<Params, ParamError> {
    let mut params = params.clone();
    if let Some(w) = flow.window {
        params.insert("window".into(), toml::Value::Integer(w as i64));
    }
    if let Some(w) = params.get("window").and_then(toml::Value::as_integer) {
        // the flow's own window is checked where it is written, so this is the transport's
        crate::limits::check(w, crate::limits::MAX_WINDOW.into(), "packets")
            .map_err(|e| ParamError::at("window", e))?;
    }
    Ok(params)
}

/// Parses a transport's config, letting the flow's `window` override the config's; `make`
/// checks the values and builds the sender.
fn build_with<C, S>(
    params: &Params,
    flow: &FlowInfo,
    make: impl FnOnce(C) -> Result<S, ParamError>,
) -> Built<dyn Sender>
where
    C: serde::de::DeserializeOwned + Serialize,
    S: Sender + 'static,
{
    let (config, resolved) = parse_params::<C>(&with_flow_window(params, flow)?)?;
    Ok((Box::new(make(config)?), resolved))
}

/// One table for a window transport's parts: the reliability layer's (over its typed
/// `defaults`), then each controller part's, resolved side by side.
struct Parts {
    tables: std::vec::IntoIter<Params>,
    resolved: Params,
}

impl Parts {
    fn split(params: &Params, flow: &FlowInfo, fields: &[&[&str]]) -> Result<Parts, ParamError> {
        let tables = split(&with_flow_window(params, flow)?, fields)?;
        Ok(Parts { tables: tables.into_iter(), resolved: Params::new() })
    }

    fn next<C: serde::de::DeserializeOwned + Serialize>(&mut self, defaults: &C) -> Result<C, ParamError> {
        let (config, resolved) = parse_over(defaults, &self.tables.next().expect("one table per part"))?;
        self.resolved.extend(resolved);
        Ok(config)
    }
}

/// JK, Reno, NewReno: the TCP reliability layer with `recovery` under Jacobson's window; JK
/// defaults to the papers' window of 5, the others to 64.
fn build_tcp(params: &Params, flow: &FlowInfo, recovery: Recovery, window: u32) -> Built<dyn Sender> {
    let mut parts = Parts::split(params, flow, &[fields::<TcpReliability>(), fields::<AimdConfig>()])?;
    let reliability = parts.next(&TcpReliability { window, ..Default::default() })?;
    let aimd = parts.next(&AimdConfig::default())?;
    let sender = Reliable::tcp(&reliability, recovery, Aimd::checked(&aimd, reliability.window)?)?;
    Ok((Box::new(sender), parts.resolved))
}

/// Vegas: Reno's reliability layer under Vegas, which steers Jacobson's window.
fn build_vegas(params: &Params, flow: &FlowInfo) -> Built<dyn Sender> {
    let fields = [fields::<TcpReliability>(), fields::<AimdConfig>(), fields::<VegasConfig>()];
    let mut parts = Parts::split(params, flow, &fields)?;
    let reliability = parts.next(&TcpReliability::default())?;
    let aimd = Aimd::checked(&parts.next(&AimdConfig::default())?, reliability.window)?;
    let vegas = Vegas::checked(parts.next(&VegasConfig::default())?, aimd)?;
    Ok((Box::new(Reliable::tcp(&reliability, Recovery::Reno, vegas)?), parts.resolved))
}

/// DECbit: Generic's reliability layer under DECbit's window law.
fn build_decbit(params: &Params, flow: &FlowInfo) -> Built<dyn Sender> {
    let mut parts = Parts::split(params, flow, &[fields::<AveragedReliability>(), fields::<DecbitConfig>()])?;
    let reliability = parts.next(&AveragedReliability::default())?;
    let law = parts.next(&DecbitConfig::default())?;
    Ok((Box::new(decbit(&reliability, law)?), parts.resolved))
}

pub static TRANSPORTS: &[TransportKind] = &[
    TransportKind {
        name: "generic",
        summary: "fixed window, timeout = beta x averaged rtt, go-back-N on timeout",
        reference: "Generic flow control of Demers, Keshav & Shenker 1989 §3 and Keshav 1991 §6.5",
        build: |p, f| build_with(p, f, |c: GenericConfig| generic(&c)),
    },
    TransportKind {
        name: "jk",
        summary: "Jacobson/Karels (4.3BSD Tahoe): slow start, congestion avoidance, fast retransmit",
        reference: "Jacobson, SIGCOMM 1988; as modelled by DKS 1989 §3 and Keshav 1991 §6.5",
        build: |p, f| build_tcp(p, f, Recovery::Tahoe, 5),
    },
    TransportKind {
        name: "reno",
        summary: "TCP Reno: JK plus fast recovery",
        reference: "RFC 2581 (Stevens, RFC 2001)",
        build: |p, f| build_tcp(p, f, Recovery::Reno, 64),
    },
    TransportKind {
        name: "newreno",
        summary: "TCP NewReno: Reno that repairs several losses of a window by partial ACKs",
        reference: "RFC 6582",
        build: |p, f| build_tcp(p, f, Recovery::NewReno, 64),
    },
    TransportKind {
        name: "decbit",
        summary: "DECbit source: window +1 or x 0.875 from the congestion bits, once per two round trips",
        reference: "Ramakrishnan & Jain, SIGCOMM 1988; as used by DKS 1989 §3",
        build: build_decbit,
    },
    TransportKind {
        name: "pp",
        summary: "Packet-Pair (PP_CTH): rate from pair probes, fuzzy predictor, setpoint control law",
        reference: "Keshav 1991, chapters 4-5 (needs fair-queueing gateways)",
        build: |p, f| build_with(p, f, PacketPair::checked),
    },
    TransportKind {
        name: "rlm",
        summary: "receiver-driven layered multicast, one receiver: join experiments add layers, loss drops them",
        reference: "McCanne, Jacobson & Vetterli, SIGCOMM 1996 (ns-2's rlm.tcl constants)",
        build: |p, f| {
            if !f.unending {
                return Err(ParamError::new(
                    "RLM sends its layers at their own rates and carries no application's data: use app = \"ftp\" without `size`",
                ));
            }
            let (config, resolved) = parse_params::<rlm::RlmConfig>(p)?;
            let rng = crate::rng::stream(f.seed, &format!("rlm:{}", f.name));
            Ok((Box::new(rlm::Rlm::checked(config, f.packet_size, rng)?), resolved))
        },
    },
    TransportKind {
        name: "vegas",
        summary: "TCP Vegas: window from expected vs actual rate once per RTT (alpha, beta, gamma)",
        reference: "Brakmo & Peterson, JSAC 1995",
        build: build_vegas,
    },
];

/// The name that means "no flow control" (open-loop sources).
pub const NONE: &str = "none";

pub fn find(name: &str) -> Option<&'static TransportKind> {
    TRANSPORTS.iter().find(|k| k.name == name)
}
