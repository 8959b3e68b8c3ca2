//! Traffic sources: what the application at a flow's source produces, and when.
//!
//! Two shapes: *bulk* (FTP: a file, finite or infinite, all available at once, sent as fast as
//! flow control allows) and *timed* (one packet at a time, at instants a generator draws:
//! Telnet, Poisson, CBR, on-off, firehose). A timed source either feeds a transport or, open
//! loop, goes straight onto the network.

pub mod apps;
mod timed;

pub use apps::{find, AppInfo, AppKind, APPS};
pub use timed::{exponential, jitter_factor, pareto, TimedSource};

use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// Distribution of the on and off periods of an on-off source.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Periods {
    Exponential,
    Pareto,
    /// Every period lasts exactly its mean: a fixed schedule (the thesis's Scenario 3
    /// background source is on for 300 s, off for 300 s, on again).
    Fixed,
}

/// An application, resolved from a scenario's flow.
#[derive(Clone, Debug, PartialEq)]
pub enum App {
    /// FTP: `packets` to send (`None` = infinite), limited only by flow control.
    Ftp { packets: Option<u64> },
    /// Telnet: one packet after each exponentially distributed gap.
    Telnet { mean_gap: Time },
    /// Poisson: like Telnet, but open loop unless given a transport.
    Poisson { mean_gap: Time },
    /// Constant bit rate, each gap scaled by a uniform factor in [1 − jitter, 1 + jitter).
    Cbr { rate: Rate, jitter: f64 },
    /// Ill-behaved: sends at `rate` (the access line's rate by default) and ignores flow control.
    Firehose { rate: Rate },
    /// On-off: CBR at `rate` while on; on and off periods drawn from `periods`.
    OnOff { rate: Rate, on_mean: Time, off_mean: Time, periods: Periods, shape: f64 },
    /// Web: `transfers` FTP transfers; validation expands it into one flow per transfer, so the
    /// engine never runs it as such.
    Web { transfers: u32, mean_gap: Time, mean_size: Bytes, shape: f64 },
    /// Files: an open population; connections arrive `arrivals` per second (Poisson), each
    /// with a file of `packets` and its own sender (`engine::connections`).
    Files { arrivals: f64, packets: u64 },
}

impl App {
    pub fn name(&self) -> &'static str {
        match self {
            App::Ftp { .. } => "ftp",
            App::Telnet { .. } => "telnet",
            App::Poisson { .. } => "poisson",
            App::Cbr { .. } => "cbr",
            App::Firehose { .. } => "firehose",
            App::OnOff { .. } => "onoff",
            App::Web { .. } => "web",
            App::Files { .. } => "files",
        }
    }

    /// Whether the application needs flow control by default (it is a "conversation" in the
    /// papers' sense) rather than being an open-loop source.
    pub fn flow_controlled_by_default(&self) -> bool {
        matches!(self, App::Ftp { .. } | App::Telnet { .. } | App::Web { .. } | App::Files { .. })
    }

    /// The long-run rate the application asks for, in bit/s (`None` = as much as it can get).
    pub fn demand_bps(&self, packet_size: u32) -> Option<f64> {
        let bits = packet_size as f64 * 8.0;
        match *self {
            App::Ftp { .. } | App::Web { .. } => None,
            App::Files { arrivals, packets } => Some(arrivals * packets as f64 * bits),
            App::Telnet { mean_gap } | App::Poisson { mean_gap } => Some(bits / mean_gap.as_secs_f64()),
            App::Cbr { rate, .. } | App::Firehose { rate } => Some(rate.0 as f64),
            App::OnOff { rate, on_mean, off_mean, .. } => {
                let on = on_mean.as_secs_f64();
                Some(rate.0 as f64 * on / (on + off_mean.as_secs_f64()))
            }
        }
    }
}
