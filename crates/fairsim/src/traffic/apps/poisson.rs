//! Poisson: packets after exponential gaps, open loop unless given a transport (Keshav 1991
//! §6.3's Poisson sources). The gap is given directly or as the rate it makes.

use super::checks::{positive, text};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::application::{AppDeclaration, AppInfo, Application, FlowControl, Source, DEFAULT_PAYLOAD};
use crate::traffic::timing::Exponential;
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PoissonConfig {
    /// The mean of the exponential gaps between packets (or give `rate`).
    pub mean_gap: Option<Time>,
    /// The mean rate, which sets the mean gap from the packet size (or give `mean_gap`).
    pub rate: Option<Rate>,
}

/// Like Telnet, but open loop unless given a transport.
#[derive(Clone, Debug, PartialEq)]
pub struct Poisson {
    pub mean_gap: Time,
    pub payload: u32,
}

impl Application for Poisson {
    fn name(&self) -> &'static str {
        "poisson"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::OpenLoopByDefault
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

fn build(c: &PoissonConfig, flow: &AppInfo) -> Result<Poisson, ParamError> {
    let payload = flow.payload(DEFAULT_PAYLOAD);
    let mean_gap = match (c.mean_gap, c.rate) {
        (Some(g), None) => positive(Some(g), "mean_gap", "poisson")?,
        (None, Some(r)) => {
            let secs = payload as f64 * 8.0 / r.0 as f64;
            let gap = Time::from_secs_f64(secs);
            if gap == Time::ZERO {
                return Err(ParamError::at(
                    "rate",
                    format!("{r} is a packet every {secs:e} s, below the engine's 1 ns"),
                ));
            }
            gap
        }
        _ => return Err(ParamError::at("mean_gap", "app `poisson` needs exactly one of `mean_gap` and `rate`")),
    };
    Ok(Poisson { mean_gap, payload })
}

pub static DECLARATION: AppDeclaration<PoissonConfig> = Declaration {
    about: About {
        name: "poisson",
        summary: "packets after exponential gaps (`mean_gap` or `rate`), open loop",
        reference: "Keshav 1991 §6.3",
    },
    defaults: || (PoissonConfig::default(),),
    build: |(c,), flow| Ok(Box::new(build(c, flow)?)),
};
