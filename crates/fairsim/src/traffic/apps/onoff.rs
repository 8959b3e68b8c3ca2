//! On-off: CBR at `rate` during on periods, silent during off periods, the periods exponential,
//! Pareto or fixed (the CSFQ paper's on-off sources, Stoica, Shenker & Zhang 1998 §3; the
//! thesis's Scenario 3 background source with fixed periods).

use super::{pareto_shape, positive, required_rate, AppDeclaration};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::{App, Periods};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct OnOffConfig {
    /// The rate while on.
    pub rate: Option<Rate>,
    /// The mean length of an on period.
    pub on_mean: Option<Time>,
    /// The mean length of an off period.
    pub off_mean: Option<Time>,
    /// How period lengths are drawn.
    pub periods: Periods,
    /// The Pareto shape, with `periods = "pareto"`.
    pub shape: f64,
}

impl Default for OnOffConfig {
    fn default() -> Self {
        OnOffConfig { rate: None, on_mean: None, off_mean: None, periods: Periods::Exponential, shape: 1.5 }
    }
}

fn build(c: &OnOffConfig) -> Result<App, ParamError> {
    let rate = required_rate(c.rate, "onoff")?;
    let shape = if c.periods == Periods::Pareto { pareto_shape(c.shape)? } else { c.shape };
    Ok(App::OnOff {
        rate,
        on_mean: positive(c.on_mean, "on_mean", "onoff")?,
        off_mean: positive(c.off_mean, "off_mean", "onoff")?,
        periods: c.periods,
        shape,
    })
}

pub static DECLARATION: AppDeclaration<OnOffConfig> = Declaration {
    about: About {
        name: "onoff",
        summary: "CBR `rate` during exponential or Pareto on periods (`on_mean`, `off_mean`)",
        reference: "Stoica, Shenker & Zhang 1998 §3",
    },
    defaults: || (OnOffConfig::default(),),
    build: |(c,), _| Ok(Box::new(build(c)?)),
};
