//! On-off: CBR at `rate` during on periods, silent during off periods, the periods exponential,
//! Pareto or fixed (the CSFQ paper's on-off sources, Stoica, Shenker & Zhang 1998 §3; the
//! thesis's Scenario 3 background source with fixed periods).
//!
//! Its timing: starts "on"; while on, CBR at its rate; on and off periods are exponential or
//! Pareto with the given means (Pareto scale = mean·(shape − 1)/shape), or fixed (each lasts
//! exactly its mean). Every on period sends at least the packet at its beginning.

use super::checks::{pareto_shape, positive, required_rate, text};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::traffic::application::{AppDeclaration, AppInfo, Application, FlowControl, Source, Timing, DEFAULT_PAYLOAD};
use crate::traffic::timing::{exponential, pareto};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// Distribution of the on and off periods of an on-off source.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Periods {
    Exponential,
    Pareto,
    /// Every period lasts exactly its mean: a fixed schedule (the thesis's Scenario 3
    /// background source is on for 300 s, off for 300 s, on again).
    Fixed,
}

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

/// CBR at `rate` while on; on and off periods drawn from `periods`.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOff {
    pub rate: Rate,
    pub on_mean: Time,
    pub off_mean: Time,
    pub periods: Periods,
    pub shape: f64,
    pub payload: u32,
}

impl Application for OnOff {
    fn name(&self) -> &'static str {
        "onoff"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::OpenLoopByDefault
    }
    fn demand_bps(&self) -> Option<f64> {
        let on = self.on_mean.as_secs_f64();
        Some(self.rate.0 as f64 * on / (on + self.off_mean.as_secs_f64()))
    }
    fn source(&self) -> Source {
        let period = |mean: Time| Period { mean: mean.as_secs_f64(), periods: self.periods, shape: self.shape };
        Source::Timed(Box::new(OnOffTiming {
            gap: self.rate.tx_time(self.payload),
            on: period(self.on_mean),
            off: period(self.off_mean),
            on_until: Time::ZERO,
        }))
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        vec![
            ("rate", text(self.rate)),
            ("on_mean", text(self.on_mean)),
            ("off_mean", text(self.off_mean)),
            ("periods", toml::Value::try_from(self.periods).expect("an enum")),
            ("shape", toml::Value::Float(self.shape)),
        ]
    }
}

#[derive(Clone, Debug)]
struct Period {
    mean: f64,
    periods: Periods,
    shape: f64,
}

impl Period {
    fn draw(&self, rng: &mut SimRng) -> Time {
        let secs = match self.periods {
            Periods::Exponential => exponential(self.mean, rng),
            Periods::Pareto => pareto(self.mean, self.shape, rng),
            Periods::Fixed => self.mean,
        };
        Time::from_secs_f64(secs)
    }
}

#[derive(Clone, Debug)]
struct OnOffTiming {
    gap: Time,
    on: Period,
    off: Period,
    on_until: Time,
}

impl Timing for OnOffTiming {
    fn first(&mut self, start: Time, rng: &mut SimRng) -> Time {
        self.on_until = start + self.on.draw(rng);
        start
    }

    fn next(&mut self, now: Time, rng: &mut SimRng) -> Time {
        let t = now + self.gap;
        if t < self.on_until {
            return t;
        }
        let resume = self.on_until + self.off.draw(rng);
        self.on_until = resume + self.on.draw(rng);
        resume
    }
}

fn build(c: &OnOffConfig, flow: &AppInfo) -> Result<OnOff, ParamError> {
    let rate = required_rate(c.rate, "onoff")?;
    let shape = if c.periods == Periods::Pareto { pareto_shape(c.shape)? } else { c.shape };
    Ok(OnOff {
        rate,
        on_mean: positive(c.on_mean, "on_mean", "onoff")?,
        off_mean: positive(c.off_mean, "off_mean", "onoff")?,
        periods: c.periods,
        shape,
        payload: flow.payload(DEFAULT_PAYLOAD),
    })
}

pub static DECLARATION: AppDeclaration<OnOffConfig> = Declaration {
    about: About {
        name: "onoff",
        summary: "CBR `rate` during exponential or Pareto on periods (`on_mean`, `off_mean`)",
        reference: "Stoica, Shenker & Zhang 1998 §3",
    },
    defaults: || (OnOffConfig::default(),),
    build: |(c,), flow| Ok(Box::new(build(c, flow)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::traffic::timing::mean_gap;

    fn onoff(rate: u64, on: Time, off: Time, periods: Periods) -> OnOff {
        OnOff { rate: Rate(rate), on_mean: on, off_mean: off, periods, shape: 1.5, payload: 1000 }
    }

    fn timing(app: &OnOff) -> Box<dyn Timing> {
        let Source::Timed(t) = app.source() else { panic!("on-off is timed") };
        t
    }

    #[test]
    fn onoff_mean_rate_is_peak_times_duty_cycle() {
        for periods in [Periods::Exponential, Periods::Pareto] {
            let app = onoff(80_000, Time::from_secs(2), Time::from_secs(2), periods);
            // peak 10 packets/s, half the time on: 0.2 s per packet on average
            let m = mean_gap(timing(&app).as_mut(), 200_000);
            assert!((m - 0.2).abs() < 0.02, "{periods:?}: mean gap {m}");
        }
    }

    #[test]
    fn fixed_periods_follow_the_schedule_exactly() {
        let app = onoff(40_000, Time::from_secs(300), Time::from_secs(300), Periods::Fixed);
        let mut rng = stream(3, "gaps");
        let mut s = timing(&app);
        let mut t = s.first(Time::ZERO, &mut rng);
        let mut instants = vec![t];
        while t < Time::from_secs(900) {
            t = s.next(t, &mut rng);
            instants.push(t);
        }
        // 5 packets/s: 1500 packets in [0, 300), none in [300, 600), the next at 600 s
        assert_eq!(instants.iter().filter(|t| **t < Time::from_secs(300)).count(), 1500);
        assert!(!instants.iter().any(|t| *t >= Time::from_secs(300) && *t < Time::from_secs(600)));
        assert!(instants.contains(&Time::from_secs(600)));
    }
}
