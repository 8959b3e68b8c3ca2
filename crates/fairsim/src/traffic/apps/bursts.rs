//! Bursts: `burst` packets back to back every `period`, open loop: a video frame, a periodic
//! sensor dump, a synchronised incast sender. Bursty arrivals are what queue management is
//! for: RED's averaging, CoDel's interval and PIE's burst allowance are tuned against them
//! (Floyd & Jacobson 1993 §1; RFC 8289 §3; RFC 8033 §4.4), which on-off sources with random
//! periods test only on average.
//!
//! Choices made here: the first burst at the start time; within a burst packets leave at
//! `rate` (the flow's first line by default, so the burst is as tight as the host can send it);
//! a burst that takes longer than the period delays the next (none is skipped).

use super::checks::{positive, text};
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::traffic::application::{AppDeclaration, AppInfo, Application, FlowControl, Source, Timing, DEFAULT_PAYLOAD};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BurstsConfig {
    /// Packets in each burst.
    pub burst: Option<u32>,
    /// The time from the start of one burst to the start of the next.
    pub period: Option<Time>,
    /// The rate within a burst; the rate of the flow's first link when absent.
    pub rate: Option<Rate>,
}

/// `burst` packets at `rate` every `period`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bursts {
    pub burst: u32,
    pub period: Time,
    pub rate: Rate,
    pub payload: u32,
}

impl Application for Bursts {
    fn name(&self) -> &'static str {
        "bursts"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::OpenLoopByDefault
    }
    fn demand_bps(&self) -> Option<f64> {
        Some(self.burst as f64 * self.payload as f64 * 8.0 / self.period.as_secs_f64())
    }
    fn source(&self) -> Source {
        let gap = self.rate.tx_time(self.payload);
        Source::Timed(Box::new(BurstTiming { burst: self.burst, period: self.period, gap, sent: 0, began: Time::ZERO }))
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        vec![
            ("burst", toml::Value::Integer(self.burst.into())),
            ("period", text(self.period)),
            ("rate", text(self.rate)),
        ]
    }
}

#[derive(Clone, Debug)]
struct BurstTiming {
    burst: u32,
    period: Time,
    /// Between two packets of a burst.
    gap: Time,
    /// Packets of the current burst so far.
    sent: u32,
    /// When the current burst began.
    began: Time,
}

impl Timing for BurstTiming {
    fn first(&mut self, start: Time, _: &mut SimRng) -> Time {
        (self.began, self.sent) = (start, 1);
        start
    }

    fn next(&mut self, now: Time, _: &mut SimRng) -> Time {
        if self.sent < self.burst {
            self.sent += 1;
            return now + self.gap;
        }
        // the next burst at its time, or at once if this one overran the period
        self.began = (self.began + self.period).max(now + self.gap);
        self.sent = 1;
        self.began
    }
}

fn build(c: &BurstsConfig, flow: &AppInfo) -> Result<Bursts, ParamError> {
    let payload = flow.payload(DEFAULT_PAYLOAD);
    let burst = c.burst.filter(|&n| n > 0);
    let burst =
        burst.ok_or_else(|| ParamError::at("burst", "app `bursts` needs `burst`, packets per burst, at least 1"))?;
    let period = positive(c.period, "period", "bursts")?;
    let rate = c.rate.or(flow.first_hop_rate(payload));
    let rate = rate.ok_or_else(|| ParamError::at("rate", "app `bursts` needs `rate`"))?;
    Ok(Bursts { burst, period, rate, payload })
}

pub static DECLARATION: AppDeclaration<BurstsConfig> = Declaration {
    about: About {
        name: "bursts",
        summary: "`burst` packets back to back (at `rate`, the access line's by default) every `period`, open loop",
        reference: "bursty arrivals for AQM: Floyd & Jacobson 1993 §1, RFC 8289 §3, RFC 8033 §4.4",
    },
    defaults: || (BurstsConfig::default(),),
    build: |(c,), flow| Ok(Box::new(build(c, flow)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;

    fn instants(params: &str, n: usize) -> Vec<Time> {
        let info = AppInfo { packet_size: Some(1000), first_line: Some((Rate(8_000_000), 0)) };
        let (app, _) = super::super::find("bursts").unwrap().build(&params.parse::<Params>().unwrap(), &info).unwrap();
        let Source::Timed(mut t) = app.source() else { panic!("bursts are timed") };
        let mut rng = crate::rng::stream(1, "bursts");
        let mut at = vec![t.first(Time::from_secs(1), &mut rng)];
        while at.len() < n {
            let last = *at.last().unwrap();
            at.push(t.next(last, &mut rng));
        }
        at
    }

    #[test]
    fn a_burst_leaves_at_the_line_rate_and_the_next_comes_a_period_later() {
        // 1000-byte packets at 8 Mb/s: 1 ms apart; three a burst, every 100 ms
        let at: Vec<u64> = instants("burst = 3\nperiod = \"100ms\"", 7).iter().map(|t| t.0 / 1_000_000).collect();
        assert_eq!(at, [1000, 1001, 1002, 1100, 1101, 1102, 1200]);
    }

    #[test]
    fn a_burst_longer_than_its_period_delays_the_next() {
        // 5 packets 1 ms apart every 3 ms: each burst takes 5 ms, the next follows at once
        let at: Vec<u64> = instants("burst = 5\nperiod = \"3ms\"", 7).iter().map(|t| t.0 / 1_000_000).collect();
        assert_eq!(at, [1000, 1001, 1002, 1003, 1004, 1005, 1006]);
    }

    #[test]
    fn its_demand_is_a_burst_per_period() {
        let info = AppInfo { packet_size: None, first_line: None };
        let p: Params = "burst = 10\nperiod = \"1s\"\nrate = \"1Mbps\"".parse().unwrap();
        let (app, _) = super::super::find("bursts").unwrap().build(&p, &info).unwrap();
        assert_eq!(app.demand_bps(), Some(80_000.0));
        let p: Params = "burst = 10\nperiod = \"1s\"".parse().unwrap();
        let e = super::super::find("bursts").unwrap().build(&p, &info).map(|_| ()).unwrap_err();
        assert_eq!((e.path, e.message.as_str()), (vec!["rate".to_string()], "app `bursts` needs `rate`"));
    }
}
