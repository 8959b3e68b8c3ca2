//! Telnet: one packet after each exponentially distributed gap, flow controlled (Demers, Keshav
//! & Shenker 1989 §4: 40-byte packets, mean gap 5 s; Keshav 1991 §6.3).

use super::{positive, AppDeclaration};
use crate::component::{About, Declaration};
use crate::traffic::App;
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

pub static DECLARATION: AppDeclaration<TelnetConfig> = Declaration {
    about: About {
        name: "telnet",
        summary: "40-byte packets after exponential gaps (mean `mean_gap`, 5 s), flow controlled",
        reference: "DKS 1989 §4; Keshav 1991 §6.3",
    },
    defaults: || (TelnetConfig::default(),),
    build: |(c,), _| Ok(Box::new(App::Telnet { mean_gap: positive(Some(c.mean_gap), "mean_gap", "telnet")? })),
};
