//! CBR: a constant bit rate, open loop; each gap may be scaled by a uniform factor in
//! [1 − jitter, 1 + jitter) to break phase locks (the CSFQ paper's UDP sources, Stoica, Shenker
//! & Zhang 1998 §3).

use super::{required_rate, AppDeclaration};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::App;
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

fn build(c: &CbrConfig) -> Result<App, ParamError> {
    let rate = required_rate(c.rate, "cbr")?;
    if !(0.0..1.0).contains(&c.jitter) {
        return Err(ParamError::at("jitter", "jitter is a fraction of the gap in [0, 1)"));
    }
    Ok(App::Cbr { rate, jitter: c.jitter })
}

pub static DECLARATION: AppDeclaration<CbrConfig> = Declaration {
    about: About {
        name: "cbr",
        summary: "constant bit rate `rate`, optional `jitter`, open loop",
        reference: "Stoica, Shenker & Zhang 1998 §3",
    },
    defaults: || (CbrConfig::default(),),
    build: |(c,), _| Ok(Box::new(build(c)?)),
};
