//! The contract of an application (what a flow's source produces, and when): the
//! `Application` trait its declaration builds, the three shapes of traffic the engine runs
//! (`Source`), and what an application is built for (`AppInfo`).
//!
//! An application is a component like a discipline or a transport: its own file holds its
//! typed parameters, its checks, its timing and its declaration, and the registry lists it.
//! The engine knows only the shapes: *bulk* (a file, finite or infinite, all available at once,
//! sent as fast as flow control allows), *timed* (one packet at a time, at instants a `Timing`
//! draws), and an *open population* of bulk transfers arriving as a Poisson process.

use crate::component::{Declaration, Kind};
use crate::rng::SimRng;
use crate::units::{Bytes, Rate, Time};
use std::fmt::Debug;

/// A flow's application, resolved from the scenario: one per flow, shared by every run.
pub trait Application: Debug + Send + Sync {
    /// The name a scenario writes (`app = "cbr"`).
    fn name(&self) -> &'static str;
    /// Application bytes of a data packet (the payload, under any headers): what its rates and
    /// sizes count.
    fn payload_size(&self) -> u32;
    /// Whether it runs over flow control.
    fn flow_control(&self) -> FlowControl;
    /// The long-run payload rate it asks for, bit/s (`None`: as much as it can get).
    fn demand_bps(&self) -> Option<f64>;
    /// How the engine runs it: built afresh for each run.
    fn source(&self) -> Source;
    /// Its keys as the resolved scenario writes them, every default filled in (`app` itself
    /// excepted).
    fn resolved(&self) -> Vec<(&'static str, toml::Value)>;
    /// A group of transfers that validation expands into one flow each (`web`), if it is one.
    fn transfers(&self) -> Option<&Transfers> {
        None
    }
}

/// Whether an application runs over flow control.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlowControl {
    /// Over the pair's transport unless the flow says `transport = "none"` (a "conversation" in
    /// the papers' sense).
    ByDefault,
    /// Open loop unless the flow names a transport.
    OpenLoopByDefault,
    /// It cannot run open loop; the message says why.
    Needed(&'static str),
    /// It ignores flow control (an ill-behaved source); the message says so. Its packets are
    /// still acknowledged, unless the flow says `acks = false`, so that its round trips show.
    Refused(&'static str),
}

/// The shapes of traffic the engine runs.
#[derive(Debug)]
pub enum Source {
    /// All its data at once: `packets` (`None`: without end), as fast as flow control allows.
    Bulk { packets: Option<u64> },
    /// One packet at each instant `Timing` draws.
    Timed(Box<dyn Timing>),
    /// An open population: connections arrive (`traffic::population` says when, between which
    /// hosts and with how much), each sending its file over its own sender
    /// (`engine::connections`).
    Population(super::population::Population),
}

/// The instants of a timed application's packets, drawn from the flow's random stream.
pub trait Timing: Debug + Send + Sync {
    /// The first packet's instant, for an application starting at `start`.
    fn first(&mut self, start: Time, rng: &mut SimRng) -> Time;
    /// The instant of the packet after the one due at `now`.
    fn next(&mut self, now: Time, rng: &mut SimRng) -> Time;
}

/// A group of bulk transfers over one path (`web`): validation makes `count` flows, each
/// running `each`, whose starts come at exponential gaps (mean `mean_gap`) after the group's
/// start and whose sizes are Pareto-distributed (mean `mean_size`, `shape`), drawn for each run
/// from the group's own stream.
#[derive(Debug, Clone)]
pub struct Transfers {
    pub count: u32,
    pub mean_gap: Time,
    pub mean_size: Bytes,
    pub shape: f64,
    /// The application of each transfer: a bulk transfer whose size each run draws.
    pub each: std::sync::Arc<dyn Application>,
}

/// What an application is built for: its flow.
pub struct AppInfo {
    /// The flow's `packet_size` as written (its payload, when the flow has headers), if given.
    pub packet_size: Option<u32>,
    /// The flow's first line, if its route is known: its rate, and the header bytes an
    /// open-loop (UDP) packet carries on it.
    pub first_line: Option<(Rate, u32)>,
}

/// The payload of a data packet when the flow gives none (Telnet's is 40 bytes).
pub const DEFAULT_PAYLOAD: u32 = 1000;

impl AppInfo {
    /// The flow's payload size: as written, else the application's `default`.
    pub fn payload(&self, default: u32) -> u32 {
        self.packet_size.unwrap_or(default)
    }

    /// The payload rate that fills the flow's first line with packets of `payload` bytes (a
    /// firehose's default rate), if the route is known.
    pub fn first_hop_rate(&self, payload: u32) -> Option<Rate> {
        self.first_line.map(|(rate, headers)| {
            let wire = payload as u128 + headers as u128;
            Rate((rate.0 as u128 * payload as u128 / wire) as u64)
        })
    }
}

/// An application's declaration: one configuration, built for a flow.
pub type AppDeclaration<C> = Declaration<(C,), AppInfo, dyn Application>;

/// A registered application.
pub type AppKind = dyn Kind<AppInfo, dyn Application>;
