//! CBR: a constant bit rate, open loop; each gap may be scaled by a uniform factor in
//! [1 − jitter, 1 + jitter) to break phase locks (the CSFQ paper's UDP sources, Stoica, Shenker
//! & Zhang 1998 §3).

use super::checks::{required_rate, text};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::application::{AppDeclaration, AppInfo, Application, FlowControl, Source, DEFAULT_PAYLOAD};
use crate::traffic::timing::Constant;
use crate::units::Rate;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CbrConfig {
    /// The sending rate.
    pub rate: Option<Rate>,
    /// Each gap is scaled by a uniform factor in [1 − jitter, 1 + jitter); 0 keeps it exact.
    pub jitter: f64,
}

/// Constant bit rate, each gap scaled by a uniform factor in [1 − jitter, 1 + jitter).
#[derive(Clone, Debug, PartialEq)]
pub struct Cbr {
    pub rate: Rate,
    pub jitter: f64,
    pub payload: u32,
}

impl Application for Cbr {
    fn name(&self) -> &'static str {
        "cbr"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::OpenLoopByDefault
    }
    fn demand_bps(&self) -> Option<f64> {
        Some(self.rate.0 as f64)
    }
    fn source(&self) -> Source {
        Source::Timed(Box::new(Constant { gap: self.rate.tx_time(self.payload), jitter: self.jitter }))
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        vec![("rate", text(self.rate)), ("jitter", toml::Value::Float(self.jitter))]
    }
}

fn build(c: &CbrConfig, flow: &AppInfo) -> Result<Cbr, ParamError> {
    let rate = required_rate(c.rate, "cbr")?;
    if !(0.0..1.0).contains(&c.jitter) {
        return Err(ParamError::at("jitter", "jitter is a fraction of the gap in [0, 1)"));
    }
    Ok(Cbr { rate, jitter: c.jitter, payload: flow.payload(DEFAULT_PAYLOAD) })
}

pub static DECLARATION: AppDeclaration<CbrConfig> = Declaration {
    about: About {
        name: "cbr",
        summary: "constant bit rate `rate`, optional `jitter`, open loop",
        reference: "Stoica, Shenker & Zhang 1998 §3",
    },
    defaults: || (CbrConfig::default(),),
    build: |(c,), flow| Ok(Box::new(build(c, flow)?)),
};
