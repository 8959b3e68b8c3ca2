//! The retransmission timeout of Jacobson and Karels: a smoothed round-trip time and its mean
//! deviation, with exponential backoff.
//!
//! References: V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988 (and its appendix
//! by Jacobson & Karels); P. Karn & C. Partridge, "Improving Round-Trip Time Estimates in
//! Reliable Transport Protocols", SIGCOMM 1987 (no samples from retransmitted packets; back off
//! the timer); RFC 6298 for the first-sample rule. RTO = srtt + k·rttvar with gains 1/8 and 1/4;
//! Jacobson 1988 used k = 2, RFC 6298 k = 4 (the default here). The timer is fine-grained (no
//! 500 ms BSD ticks); `min_rto` and `max_rto` bound it. RFC 6298 §2.3's clock granularity G
//! enters as RTO = srtt + max(G, k·rttvar) (`clock_granularity`, 0 by default: a perfect
//! clock); Linux's RTO, srtt + max(4·mdev, 200 ms), is this rule with G = 200 ms.

use crate::params::ParamError;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RtoConfig {
    /// Before the first sample.
    pub initial_rto: Time,
    /// The smallest timeout; at most `max_rto`.
    pub min_rto: Time,
    /// The largest, backoff included (and the initial timeout cut to it).
    pub max_rto: Time,
    /// k in srtt + k·rttvar.
    pub rttvar_factor: f64,
    /// G in srtt + max(G, k·rttvar) (RFC 6298 §2.3).
    pub clock_granularity: Time,
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            initial_rto: Time::from_secs(3),
            min_rto: Time::from_secs(1),
            max_rto: Time::from_secs(64),
            rttvar_factor: 4.0,
            clock_granularity: Time::ZERO,
        }
    }
}

impl RtoConfig {
    /// A timeout that can be zero would fire again at the instant it was set, and the sender
    /// would retransmit at that instant for ever: before the first sample, after backing off
    /// to `max_rto`, and when srtt + k·rttvar is not a number. A `min_rto` above `max_rto`
    /// would be ignored (the timeout is cut to `max_rto` last): refused.
    pub fn check(&self) -> Result<(), ParamError> {
        for (name, t) in [("initial_rto", self.initial_rto), ("max_rto", self.max_rto)] {
            if t == Time::ZERO {
                return Err(ParamError::at(name, "must be longer than 0s"));
            }
        }
        // the timeout is raised to min_rto and then cut to max_rto: above it, min_rto did nothing
        ParamError::unless_ordered(
            ("min_rto", self.min_rto),
            ("max_rto", self.max_rto),
            "the smallest timeout must not exceed the largest",
        )?;
        if !(self.rttvar_factor >= 0.0 && self.rttvar_factor.is_finite()) {
            return Err(ParamError::at("rttvar_factor", "must be a number, 0 or more"));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rto {
    srtt: Option<f64>,
    rttvar: f64,
    backoff: u32,
}

impl Rto {
    /// A round-trip sample in seconds (from a packet sent once only, per Karn).
    pub fn sample(&mut self, rtt: f64) {
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - rtt).abs();
                self.srtt = Some(0.875 * s + 0.125 * rtt);
            }
        }
        self.backoff = 0;
    }

    /// Doubles the timeout (after it expired).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
    }

    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }

    /// The timeout `timeout` gives, in seconds, before its rounding to the nanosecond: for a
    /// controller that reads it at every event, which the rounding would cost more than its use.
    pub fn timeout_secs(&self, cfg: &RtoConfig) -> f64 {
        let base = match self.srtt {
            None => cfg.initial_rto.as_secs_f64(),
            Some(s) => {
                let g = cfg.clock_granularity.as_secs_f64();
                (s + g.max(cfg.rttvar_factor * self.rttvar)).max(cfg.min_rto.as_secs_f64())
            }
        };
        (base * (1u64 << self.backoff) as f64).min(cfg.max_rto.as_secs_f64())
    }

    pub fn timeout(&self, cfg: &RtoConfig) -> Time {
        let base = match self.srtt {
            None => cfg.initial_rto,
            Some(s) => {
                let g = cfg.clock_granularity.as_secs_f64();
                Time::from_secs_f64(s + g.max(cfg.rttvar_factor * self.rttvar)).max(cfg.min_rto)
            }
        };
        Time(base.0.saturating_mul(1 << self.backoff)).min(cfg.max_rto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_then_smoothing_then_backoff() {
        let cfg = RtoConfig { min_rto: Time::ZERO, ..Default::default() };
        let mut r = Rto::default();
        assert_eq!(r.timeout(&cfg), Time::from_secs(3));
        r.sample(1.0); // srtt 1, rttvar 0.5: 1 + 4 × 0.5
        assert_eq!(r.timeout(&cfg), Time::from_secs(3));
        r.sample(1.0); // rttvar 0.375: 2.5 s
        assert_eq!(r.timeout(&cfg), Time::from_millis(2500));
        r.back_off();
        r.back_off();
        assert_eq!(r.timeout(&cfg), Time::from_secs(10), "doubled twice");
        r.sample(1.0);
        assert!(r.timeout(&cfg) < Time::from_secs(3), "a valid sample ends the backoff");
        let capped = RtoConfig { max_rto: Time::from_secs(4), ..cfg };
        (0..10).for_each(|_| r.back_off());
        assert_eq!(r.timeout(&capped), Time::from_secs(4));
    }

    #[test]
    fn the_timeout_in_seconds_is_the_timers_before_its_rounding() {
        let cfg = RtoConfig { min_rto: Time::from_millis(200), max_rto: Time::from_secs(60), ..Default::default() };
        let mut r = Rto::default();
        let same = |r: &Rto| (r.timeout_secs(&cfg) - r.timeout(&cfg).as_secs_f64()).abs() < 1e-9;
        assert!(same(&r), "before a sample");
        for rtt in [0.0123, 0.0456, 0.00789, 1.5] {
            r.sample(rtt);
            assert!(same(&r), "after {rtt}");
        }
        (0..20).for_each(|_| r.back_off());
        assert!(same(&r), "backed off to the cap");
    }

    #[test]
    fn a_min_rto_above_max_rto_is_refused_naming_it() {
        let cfg = RtoConfig { min_rto: Time::from_secs(10), max_rto: Time::from_secs(5), ..Default::default() };
        let e = cfg.check().unwrap_err();
        assert_eq!(e.path, vec!["min_rto".to_string()]);
        assert!(e.message.contains("min_rto (10s) is above max_rto (5s)"), "{}", e.message);
        let equal = RtoConfig { min_rto: Time::from_secs(5), max_rto: Time::from_secs(5), ..Default::default() };
        assert!(equal.check().is_ok(), "a fixed timeout: min_rto = max_rto");
    }

    #[test]
    fn the_clock_granularity_bounds_the_variance_term() {
        // RFC 6298 §2.2–2.3: RTO = SRTT + max(G, K·RTTVAR); a steady path's RTTVAR decays to 0
        let cfg = RtoConfig { min_rto: Time::ZERO, clock_granularity: Time::from_millis(200), ..Default::default() };
        let mut r = Rto::default();
        r.sample(0.1); // rttvar 0.05: 4 × 0.05 = 0.2, equal to G
        assert_eq!(r.timeout(&cfg), Time::from_millis(300));
        for _ in 0..50 {
            r.sample(0.1);
        }
        assert_eq!(r.timeout(&cfg), Time::from_millis(300), "srtt 0.1 + G");
        let fine = RtoConfig { clock_granularity: Time::ZERO, ..cfg };
        assert!(r.timeout(&fine) < Time::from_millis(101), "without G the RTO hugs srtt");
    }
}
