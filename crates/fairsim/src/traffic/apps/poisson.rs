//! Poisson: packets after exponential gaps, open loop unless given a transport (Keshav 1991
//! §6.3's Poisson sources). The gap is given directly or as the rate it makes.

use super::{positive, AppDeclaration, AppInfo};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::App;
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

fn build(c: &PoissonConfig, flow: &AppInfo) -> Result<App, ParamError> {
    let mean_gap = match (c.mean_gap, c.rate) {
        (Some(g), None) => positive(Some(g), "mean_gap", "poisson")?,
        (None, Some(r)) => {
            let secs = flow.packet_size as f64 * 8.0 / r.0 as f64;
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
    Ok(App::Poisson { mean_gap })
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
