//! The timings several applications share, and the draws behind them.
//!
//! - `Exponential` gaps (Telnet, Poisson): the first one counted from the start time.
//! - `Constant` gaps (CBR, firehose): size·8/rate, rounded up to the nanosecond, the first
//!   packet at the start time; each gap may be scaled by U[1 − jitter, 1 + jitter) (the CSFQ
//!   paper's UDP sources use jitter 0.5).
//!
//! An application with a timing of its own (on-off) keeps it in its own file.

use super::application::Timing;
use crate::rng::SimRng;
use crate::units::Time;
use rand::Rng;
use rand_distr::{Distribution, Exp1, Pareto};

/// An exponential draw with the given mean.
pub fn exponential(mean: f64, rng: &mut SimRng) -> f64 {
    let draw: f64 = Exp1.sample(rng);
    mean * draw
}

/// A Pareto draw with the given mean and shape (> 1): scale = mean·(shape − 1)/shape.
pub fn pareto(mean: f64, shape: f64, rng: &mut SimRng) -> f64 {
    let scale = mean * (shape - 1.0) / shape;
    Pareto::new(scale, shape).expect("validated shape > 1").sample(rng)
}

/// A factor uniform in [1 − jitter, 1 + jitter), for a jitter in [0, 1); exactly 1 when no
/// `f64` lies strictly inside that range (a jitter of zero, or below about 1e-16).
pub fn jitter_factor(jitter: f64, rng: &mut SimRng) -> f64 {
    let (low, high) = (1.0 - jitter, 1.0 + jitter);
    if low < high {
        rng.random_range(low..high)
    } else {
        1.0
    }
}

/// Packets after exponentially distributed gaps of mean `mean` seconds.
#[derive(Clone, Debug)]
pub struct Exponential {
    pub mean: f64,
}

impl Timing for Exponential {
    fn first(&mut self, start: Time, rng: &mut SimRng) -> Time {
        start + Time::from_secs_f64(exponential(self.mean, rng))
    }

    fn next(&mut self, now: Time, rng: &mut SimRng) -> Time {
        now + Time::from_secs_f64(exponential(self.mean, rng))
    }
}

/// Packets `gap` apart, each gap scaled by a uniform factor in [1 − jitter, 1 + jitter).
#[derive(Clone, Debug)]
pub struct Constant {
    pub gap: Time,
    pub jitter: f64,
}

impl Timing for Constant {
    fn first(&mut self, start: Time, _: &mut SimRng) -> Time {
        start
    }

    fn next(&mut self, now: Time, rng: &mut SimRng) -> Time {
        if self.jitter > 0.0 {
            now + Time::from_secs_f64(self.gap.as_secs_f64() * jitter_factor(self.jitter, rng))
        } else {
            now + self.gap
        }
    }
}

/// The mean gap between the instants `timing` draws over `n` packets from a start at zero.
#[cfg(test)]
pub(crate) fn mean_gap(timing: &mut dyn Timing, n: usize) -> f64 {
    let mut rng = crate::rng::stream(11, "gaps");
    let first = timing.first(Time::ZERO, &mut rng);
    let mut t = first;
    for _ in 0..n {
        t = timing.next(t, &mut rng);
    }
    (t - first).as_secs_f64() / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_gaps_have_the_configured_mean() {
        let m = mean_gap(&mut Exponential { mean: 5.0 }, 50_000);
        assert!((m - 5.0).abs() < 0.1, "mean gap {m}");
    }

    #[test]
    fn constant_gaps_are_exact_and_jitter_keeps_the_mean() {
        assert_eq!(mean_gap(&mut Constant { gap: Time::from_millis(100), jitter: 0.0 }, 10), 0.1);
        let m = mean_gap(&mut Constant { gap: Time::from_millis(100), jitter: 0.5 }, 50_000);
        assert!((m - 0.1).abs() < 0.002, "mean gap {m}");
    }
}
