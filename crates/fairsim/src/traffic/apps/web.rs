//! Web: a group of TCP transfers starting at exponential gaps, with Pareto-distributed sizes
//! (the CSFQ paper's web traffic, Stoica, Shenker & Zhang 1998 §3.4, sizes after Crovella &
//! Bestavros). Validation expands it into FTP flows `name#0`, `name#1`, … whose starts and
//! sizes are drawn for each seed from the group's own stream (`Scenario::draws`).

use super::checks::pareto_shape;
use super::ftp::Ftp;
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::application::{
    AppDeclaration, AppInfo, Application, FlowControl, Source, Transfers, DEFAULT_PAYLOAD,
};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// The number of transfers.
    pub transfers: Option<u32>,
    /// The mean time between the starts of two transfers.
    pub mean_gap: Option<Time>,
    /// The mean transfer size.
    pub size: Option<Bytes>,
    /// The Pareto shape of the sizes.
    pub shape: f64,
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig { transfers: None, mean_gap: None, size: None, shape: 1.2 }
    }
}

/// `transfers` FTP transfers: validation expands the group into one flow per transfer, so the
/// engine never runs it as such.
#[derive(Clone, Debug)]
pub struct Web(Transfers);

impl Application for Web {
    fn name(&self) -> &'static str {
        "web"
    }
    fn payload_size(&self) -> u32 {
        self.0.each.payload_size()
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::Needed(
            "the transfers of app `web` need flow control: each ends when its last packet is acknowledged",
        )
    }
    fn demand_bps(&self) -> Option<f64> {
        None
    }
    fn source(&self) -> Source {
        Source::Bulk { packets: None }
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        vec![] // expanded into its transfers, which the resolved scenario lists
    }
    fn transfers(&self) -> Option<&Transfers> {
        Some(&self.0)
    }
}

fn build(c: &WebConfig, flow: &AppInfo) -> Result<Web, ParamError> {
    let transfers = c.transfers.filter(|&n| n > 0);
    let transfers = transfers.ok_or_else(|| ParamError::at("transfers", "app `web` needs `transfers`, at least 1"))?;
    let mean_gap = c.mean_gap.filter(|&t| t > Time::ZERO).ok_or_else(|| {
        ParamError::at("mean_gap", "app `web` needs `mean_gap`, the mean time between transfers, longer than 0s")
    })?;
    let mean_size = c
        .size
        .filter(|s| s.0 > 0)
        .ok_or_else(|| ParamError::at("size", "app `web` needs `size`, the mean transfer size, larger than 0B"))?;
    let each = Arc::new(Ftp { packets: None, payload: flow.payload(DEFAULT_PAYLOAD) });
    Ok(Web(Transfers { count: transfers, mean_gap, mean_size, shape: pareto_shape(c.shape)?, each }))
}

pub static DECLARATION: AppDeclaration<WebConfig> = Declaration {
    about: About {
        name: "web",
        summary: "`transfers` TCP transfers, exponential gaps (`mean_gap`), Pareto sizes (`size` mean, `shape`)",
        reference: "Stoica, Shenker & Zhang 1998 §3.4",
    },
    defaults: || (WebConfig::default(),),
    build: |(c,), flow| Ok(Box::new(build(c, flow)?)),
};
