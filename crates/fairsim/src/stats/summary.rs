//! Summaries over measurement intervals, as the thesis reports them (§6.3): the mean of the
//! interval means and the standard deviation of the interval means (first interval discarded,
//! which here is the warm-up), plus a 95% confidence interval from Student's t.
//!
//! The thesis calls ±3σ a "95% confidence interval"; we report the t interval under its proper
//! name, and the standard deviation so that the thesis's ±3σ can be formed from it.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub mean: f64,
    /// Sample standard deviation of the interval values (0 with a single interval).
    pub std: f64,
    /// Half-width of the 95% confidence interval of the mean (0 with a single interval).
    pub ci95: f64,
    /// Number of intervals summarised.
    pub n: usize,
}

impl Summary {
    /// Summarises the values of the intervals that have one (`None` = no value, e.g. no RTT
    /// sample in that interval). Returns `None` when no interval has a value.
    pub fn of(values: impl IntoIterator<Item = Option<f64>>) -> Option<Summary> {
        let xs: Vec<f64> = values.into_iter().flatten().collect();
        let n = xs.len();
        if n == 0 {
            return None;
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Some(Summary { mean, std: 0.0, ci95: 0.0, n });
        }
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let std = var.sqrt();
        let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).expect("n > 1").inverse_cdf(0.975);
        Some(Summary { mean, std, ci95: t * std / (n as f64).sqrt(), n })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_std_and_t_interval() {
        let s = Summary::of([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0].map(Some)).unwrap();
        assert_eq!(s.mean, 5.0);
        assert!((s.std - 2.138089935).abs() < 1e-9);
        // t(0.975, 7) = 2.364624252
        assert!((s.ci95 - 2.364624252 * 2.138089935 / 8f64.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn missing_values_are_skipped_and_single_values_have_no_spread() {
        let s = Summary::of([None, Some(3.0), None]).unwrap();
        assert_eq!((s.mean, s.std, s.ci95, s.n), (3.0, 0.0, 0.0, 1));
        assert!(Summary::of([None, None]).is_none());
    }
}
