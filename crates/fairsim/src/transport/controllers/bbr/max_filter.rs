//! BtlBw's windowed maximum: the largest sample of the last `window` round trips.
//!
//! Exact (a monotonic queue of the samples that may still become the maximum), where Linux's
//! `minmax` keeps three samples and approximates it. As there, the window moves only when a
//! sample is added: a sender that takes no samples (application-limited) keeps its estimate.

use std::collections::VecDeque;

#[derive(Debug)]
pub struct MaxFilter {
    /// Round trips a sample counts for: one taken in round r counts until round r + window.
    window: u64,
    /// (round, value), values decreasing from the front.
    samples: VecDeque<(u64, f64)>,
}

impl MaxFilter {
    pub fn new(window: u64) -> MaxFilter {
        MaxFilter { window, samples: VecDeque::new() }
    }

    /// The maximum, 0 before the first sample.
    pub fn get(&self) -> f64 {
        self.samples.front().map_or(0.0, |&(_, v)| v)
    }

    /// Adds `value` taken in round `round` (rounds never go back).
    pub fn update(&mut self, round: u64, value: f64) {
        while self.samples.back().is_some_and(|&(_, v)| v <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((round, value));
        while self.samples.front().is_some_and(|&(r, _)| round - r > self.window) {
            self.samples.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maximum_of_the_last_window_rounds() {
        let mut f = MaxFilter::new(10);
        f.update(0, 5.0);
        f.update(3, 3.0);
        assert_eq!(f.get(), 5.0);
        f.update(10, 1.0);
        assert_eq!(f.get(), 5.0, "round 0's sample counts until round 10");
        f.update(11, 1.0);
        assert_eq!(f.get(), 3.0, "then round 3's");
        f.update(14, 2.0);
        assert_eq!(f.get(), 2.0);
        f.update(14, 7.0);
        assert_eq!(f.get(), 7.0);
    }
}
