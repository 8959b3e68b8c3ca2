//! Firehose: an ill-behaved source that sends at a fixed rate whatever happens and ignores
//! flow control (Demers, Keshav & Shenker 1989 §4's malicious source; Keshav 1991 §6.3).

use super::checks::text;
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::application::{AppDeclaration, AppInfo, Application, FlowControl, Source, DEFAULT_PAYLOAD};
use crate::traffic::timing::Constant;
use crate::units::Rate;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FirehoseConfig {
    /// The sending rate; the rate of the flow's first link when absent.
    pub rate: Option<Rate>,
}

/// Sends at `rate` and ignores flow control.
#[derive(Clone, Debug, PartialEq)]
pub struct Firehose {
    pub rate: Rate,
    pub payload: u32,
}

impl Application for Firehose {
    fn name(&self) -> &'static str {
        "firehose"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::Refused("a firehose ignores flow control; remove `transport`")
    }
    fn demand_bps(&self) -> Option<f64> {
        Some(self.rate.0 as f64)
    }
    fn source(&self) -> Source {
        Source::Timed(Box::new(Constant { gap: self.rate.tx_time(self.payload), jitter: 0.0 }))
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        vec![("rate", text(self.rate))]
    }
}

fn build(c: &FirehoseConfig, flow: &AppInfo) -> Result<Firehose, ParamError> {
    let payload = flow.payload(DEFAULT_PAYLOAD);
    let rate = c.rate.or(flow.first_hop_rate(payload));
    let rate = rate.ok_or_else(|| ParamError::at("rate", "app `firehose` needs `rate`"))?;
    Ok(Firehose { rate, payload })
}

pub static DECLARATION: AppDeclaration<FirehoseConfig> = Declaration {
    about: About {
        name: "firehose",
        summary: "ill-behaved: sends at `rate` or its access line's rate, ignores ACKs",
        reference: "DKS 1989 §4; Keshav 1991 §6.3",
    },
    defaults: || (FirehoseConfig::default(),),
    build: |(c,), flow| Ok(Box::new(build(c, flow)?)),
};
