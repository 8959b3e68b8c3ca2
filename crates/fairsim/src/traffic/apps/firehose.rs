//! Firehose: an ill-behaved source that sends at a fixed rate whatever happens and ignores
//! flow control (Demers, Keshav & Shenker 1989 §4's malicious source; Keshav 1991 §6.3).

use super::{AppDeclaration, AppInfo};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::App;
use crate::units::Rate;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FirehoseConfig {
    /// The sending rate; the rate of the flow's first link when absent.
    pub rate: Option<Rate>,
}

fn build(c: &FirehoseConfig, flow: &AppInfo) -> Result<App, ParamError> {
    let rate = c.rate.or(flow.first_hop).ok_or_else(|| ParamError::at("rate", "app `firehose` needs `rate`"))?;
    Ok(App::Firehose { rate })
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
