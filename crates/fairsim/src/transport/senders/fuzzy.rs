//! The fuzzy exponential averager that predicts the bottleneck service rate from noisy probes.
//!
//! Reference: Keshav 1991 §5.6 (and Keshav & Khedkar, "Fuzzy Prediction", 1991). The estimate is
//! an exponential average θ̂ ← α·θ̂ + (1 − α)·θ̃ whose weight α is set at every step by a fuzzy
//! controller from the (smoothed) prediction error: "if error is low, then α is high; if error
//! is medium, then α is medium; if error is high, then α is low". The relative error is smoothed
//! by another exponential average whose weight β comes from a second fuzzy controller fed with
//! the change in error: a large change (a spike) gives a large β, so that spikes are ignored.
//! Both controllers defuzzify by the centroid.
//!
//! The membership functions were in the thesis's Figure 5.2, which is lost; the breakpoints here
//! are ours, and parameters: a relative error is fully *low* up to `error_low`, falling to zero
//! at `error_mid`; *medium* rises from `error_low` to a peak at `error_mid` and falls to zero at
//! `error_high`; *high* rises from `error_mid` to full at `error_high`. The change in error uses
//! the same sets. The weights α and β are *low* falling from 1 at 0 to 0 at `out_low`, *medium*
//! on [`out_low`, `out_high`] peaking at 0.5, *high* rising from `out_high` to 1 at 1. The
//! change in error is measured on the raw relative error.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FuzzyConfig {
    pub error_low: f64,
    pub error_mid: f64,
    pub error_high: f64,
    pub out_low: f64,
    pub out_high: f64,
}

impl Default for FuzzyConfig {
    fn default() -> Self {
        FuzzyConfig { error_low: 0.05, error_mid: 0.2, error_high: 0.5, out_low: 0.2, out_high: 0.8 }
    }
}

/// A trapezoid: 0 before `a`, rising to 1 at `b`, 1 until `c`, falling to 0 at `d`. Equal
/// corners make vertical sides (a = b: full from `a` on; c = d: full until `d`).
#[derive(Copy, Clone, Debug)]
struct Trap(f64, f64, f64, f64);

impl Trap {
    fn at(self, x: f64) -> f64 {
        let Trap(a, b, c, d) = self;
        if x < a || x > d {
            0.0
        } else if x < b {
            (x - a) / (b - a)
        } else if x <= c {
            1.0
        } else {
            (d - x) / (d - c)
        }
    }
}

/// Three rules mapping low/medium/high input to the output sets given, centroid-defuzzified.
fn infer(inputs: [Trap; 3], outputs: [Trap; 3], x: f64) -> f64 {
    let strength = inputs.map(|s| s.at(x));
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..=100 {
        let y = i as f64 / 100.0;
        let m = (0..3).map(|r| strength[r].min(outputs[r].at(y))).fold(0.0, f64::max);
        num += y * m;
        den += m;
    }
    if den > 0.0 {
        num / den
    } else {
        0.5
    }
}

#[derive(Clone, Debug)]
pub struct Fuzzy {
    inputs: [Trap; 3],
    weights: [Trap; 3],
    estimate: Option<f64>,
    error: f64,
    last_error: f64,
    /// The averaging weight α of the last observation (1 = history only, 0 = follow it).
    weight: f64,
}

impl Fuzzy {
    pub fn new(cfg: &FuzzyConfig) -> Fuzzy {
        let (l, m, h) = (cfg.error_low, cfg.error_mid, cfg.error_high);
        let (lo, hi) = (cfg.out_low, cfg.out_high);
        Fuzzy {
            inputs: [Trap(0.0, 0.0, l, m), Trap(l, m, m, h), Trap(m, h, f64::INFINITY, f64::INFINITY)],
            weights: [Trap(0.0, 0.0, 0.0, lo), Trap(lo, 0.5, 0.5, hi), Trap(hi, 1.0, 1.0, 1.0)],
            estimate: None,
            error: 0.0,
            last_error: 0.0,
            weight: 0.0,
        }
    }

    pub fn estimate(&self) -> Option<f64> {
        self.estimate
    }

    /// The averaging weight α used for the last observation (the thesis's Fig. 6.21 plots it).
    pub fn weight(&self) -> f64 {
        self.weight
    }

    /// Takes one observation; returns the new estimate.
    pub fn observe(&mut self, obs: f64) -> f64 {
        let Some(est) = self.estimate else {
            self.estimate = Some(obs);
            return obs;
        };
        let e = ((obs - est).abs() / obs.abs().max(f64::MIN_POSITIVE)).min(1.0);
        let change = (e - self.last_error).abs();
        self.last_error = e;
        let [lo, med, hi] = self.weights;
        // a large change in error means a spike: weigh the history heavily (β high)
        let beta = infer(self.inputs, [lo, med, hi], change);
        self.error = beta * self.error + (1.0 - beta) * e;
        // a large (smoothed) error means the rate really changed: follow it (α low)
        let alpha = infer(self.inputs, [hi, med, lo], self.error);
        self.weight = alpha;
        let next = alpha * est + (1.0 - alpha) * obs;
        self.estimate = Some(next);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn an_isolated_spike_is_ignored() {
        let mut f = Fuzzy::new(&FuzzyConfig::default());
        for _ in 0..20 {
            f.observe(100.0);
        }
        let after_spike = f.observe(200.0);
        assert!(after_spike < 110.0, "a single doubled probe moved the estimate to {after_spike}");
        // and the estimate drifts back as the probes stay at 100
        for _ in 0..30 {
            f.observe(100.0);
        }
        assert!((f.estimate().unwrap() - 100.0).abs() < 2.0, "{:?}", f.estimate());
    }

    #[test]
    fn a_sustained_step_is_tracked() {
        let mut f = Fuzzy::new(&FuzzyConfig::default());
        for _ in 0..20 {
            f.observe(100.0);
        }
        let mut steps = 0;
        while (f.observe(150.0) - 150.0).abs() > 0.05 * 150.0 {
            steps += 1;
            assert!(steps < 12, "not within 5% of the new rate after {steps} probes: {:?}", f.estimate());
        }
    }

    #[test]
    fn noise_is_smoothed() {
        let mut f = Fuzzy::new(&FuzzyConfig::default());
        let mut rng = crate::rng::stream(5, "fuzzy");
        let mut worst: f64 = 0.0;
        for k in 0..500 {
            let est = f.observe(100.0 * rng.random_range(0.9..1.1));
            if k > 50 {
                worst = worst.max((est - 100.0).abs());
            }
        }
        assert!(worst < 5.0, "±10% probe noise moved the estimate up to {worst}%");
    }

    #[test]
    fn memberships_and_centroids() {
        let low = Trap(0.0, 0.0, 0.05, 0.2);
        assert_eq!((low.at(0.0), low.at(0.05), low.at(0.125), low.at(0.3)), (1.0, 1.0, 0.5, 0.0));
        let high = Trap(0.2, 0.5, f64::INFINITY, f64::INFINITY);
        assert!((high.at(0.35) - 0.5).abs() < 1e-12 && high.at(0.9) == 1.0);
        // only the first rule fires: the centroid of the triangle 0.8–1–1
        let fires_first = [low, Trap(9.0, 9.0, 9.0, 9.0), Trap(9.0, 9.0, 9.0, 9.0)];
        let outputs = [Trap(0.8, 1.0, 1.0, 1.0), Trap(0.0, 0.0, 0.0, 0.2), Trap(0.0, 0.0, 0.0, 0.2)];
        let c = infer(fires_first, outputs, 0.0);
        assert!((c - 0.933).abs() < 0.01, "{c}");
    }
}
