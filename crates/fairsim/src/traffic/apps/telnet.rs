//! Telnet: one packet after each exponentially distributed gap, flow controlled (Demers, Keshav
//! & Shenker 1989 §4: 40-byte packets, mean gap 5 s; Keshav 1991 §6.3).

use super::checks::{positive, text};
use crate::component::{About, Declaration};
use crate::traffic::application::{AppDeclaration, Application, FlowControl, Source};
use crate::traffic::timing::Exponential;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TelnetConfig {
    /// The mean of the exponential gaps between packets.
    pub mean_gap: Time,
}

impl Default for TelnetConfig {
    fn default() -> Self {
        TelnetConfig { mean_gap: Time::from_secs(5) }
    }
}

/// Telnet's payload when the flow gives none: a keystroke's 40 bytes.
pub const TELNET_PAYLOAD: u32 = 40;

/// One packet after each exponentially distributed gap of mean `mean_gap`, flow controlled.
#[derive(Clone, Debug, PartialEq)]
pub struct Telnet {
    pub mean_gap: Time,
    pub payload: u32,
}

impl Application for Telnet {
    fn name(&self) -> &'static str {
        "telnet"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::ByDefault
    }
    fn demand_bps(&self) -> Option<f64> {
        Some(self.payload as f64 * 8.0 / self.mean_gap.as_secs_f64())
    }
    fn source(&self) -> Source {
        Source::Timed(Box::new(Exponential { mean: self.mean_gap.as_secs_f64() }))
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        vec![("mean_gap", text(self.mean_gap))]
    }
}

pub static DECLARATION: AppDeclaration<TelnetConfig> = Declaration {
    about: About {
        name: "telnet",
        summary: "40-byte packets after exponential gaps (mean `mean_gap`, 5 s), flow controlled",
        reference: "DKS 1989 §4; Keshav 1991 §6.3",
    },
    defaults: || (TelnetConfig::default(),),
    build: |(c,), flow| {
        let mean_gap = positive(Some(c.mean_gap), "mean_gap", "telnet")?;
        Ok(Box::new(Telnet { mean_gap, payload: flow.payload(TELNET_PAYLOAD) }))
    },
};
