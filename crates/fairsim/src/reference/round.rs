//! The round number R(t) of bit-by-bit round robin, computed exactly.
//!
//! Demers, Keshav & Shenker 1989 §2.2; Keshav 1991 §3.3 (Figure 3.1, "iterated deletion").
//! R advances at dR/dt = μ / N_ac(t), N_ac being the number (here: total weight) of active
//! conversations; a conversation is active while R has not passed the finish number of its
//! most recently arrived packet. A conversation leaving speeds R up, which can make others
//! leave sooner, so advancing R to time t repeats: find the smallest finish number among active
//! conversations; if R reaches it before t, jump there, deactivate, and go on at the new slope.
//!
//! Units: R is in bits per unit of weight (weight 1 = one slot of the round); time in ns.
//! Choices the papers leave open:
//! - with no conversation active R stays where it is (the papers only say R increases while
//!   bits are queued); a conversation arriving then starts at S = max(F_prev, R);
//! - a conversation becomes inactive when R *reaches* its finish number (Figure 3.1's test is
//!   `F ≤ R`), so an arrival at that very instant starts a new busy period for it — the finish
//!   number it gets is the same either way.

use crate::heap::{IndexedHeap, Tag};

#[derive(Debug, Default, Clone)]
pub struct RoundNumber {
    /// R at `checked`.
    r: f64,
    /// The time (ns, fractional) up to which R is known.
    checked: f64,
    /// Active conversations keyed by the finish number of their latest arrival.
    active: IndexedHeap<Tag>,
    active_weight: f64,
    last_finish: Vec<f64>,
    weight: Vec<f64>,
    /// (time, R) at every change of slope, when recording (for the fluid reference).
    trace: Option<Vec<(f64, f64)>>,
}

impl RoundNumber {
    pub fn new(weights: Vec<f64>) -> RoundNumber {
        RoundNumber { last_finish: vec![f64::NEG_INFINITY; weights.len()], weight: weights, ..Default::default() }
    }

    /// R at the time of the last `advance`.
    pub fn r(&self) -> f64 {
        self.r
    }

    /// The finish number of conversation `c`'s most recent packet (−∞ before its first).
    pub fn last_finish(&self, c: usize) -> f64 {
        self.last_finish[c]
    }

    pub fn is_active(&self, c: usize) -> bool {
        self.active.contains(c)
    }

    /// Total weight of the active conversations (N_ac with unit weights).
    pub fn active_weight(&self) -> f64 {
        self.active_weight
    }

    /// Advances R to time `now_ns` on a line of `rate_bps`, by iterated deletion.
    pub fn advance(&mut self, now_ns: f64, rate_bps: f64) {
        let per_ns = rate_bps / 1e9;
        while self.checked < now_ns {
            let Some((Tag(f_min, _), _)) = self.active.peek() else {
                self.checked = now_ns; // idle: R is frozen
                return;
            };
            let slope = per_ns / self.active_weight;
            let reached_at = self.checked + (f_min - self.r) / slope;
            if reached_at <= now_ns {
                self.r = f_min;
                self.checked = reached_at.max(self.checked);
                self.note();
                while let Some((Tag(f, _), c)) = self.active.peek() {
                    if f > f_min {
                        break;
                    }
                    self.active.pop();
                    self.deactivated(c);
                }
            } else {
                self.r += (now_ns - self.checked) * slope;
                self.checked = now_ns;
            }
        }
    }

    fn deactivated(&mut self, c: usize) {
        self.active_weight -= self.weight[c];
        if self.active.is_empty() {
            self.active_weight = 0.0; // no rounding residue while idle
        }
    }

    /// Records that conversation `c`'s latest packet finishes at round `finish` (call after
    /// `advance`, with finish > R): the conversation is active until R reaches it.
    pub fn set_last_finish(&mut self, c: usize, finish: f64) {
        self.last_finish[c] = finish;
        if finish > self.r {
            if !self.active.contains(c) {
                self.active_weight += self.weight[c];
            }
            self.active.set(c, Tag(finish, c as u64));
        } else if self.active.remove(c).is_some() {
            self.deactivated(c);
        }
    }

    /// Keeps (time, R) at every change of slope from now on; see `trace`.
    pub fn record(&mut self) {
        self.trace = Some(vec![(self.checked, self.r)]);
    }

    /// Records the current point of the trajectory (an arrival may change the slope here).
    pub fn note(&mut self) {
        if let Some(t) = &mut self.trace {
            t.push((self.checked, self.r));
        }
    }

    /// The recorded trajectory of R: piecewise linear between these points.
    pub fn trace(&self) -> &[(f64, f64)] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// Heap operations so far (the round number's share of the thesis's cost).
    pub fn swaps(&self) -> u64 {
        self.active.swaps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keshav 1991 §3.3, the worked example: line rate 1 bit per time unit; a 100-bit packet of
    /// A at t = 0; R(50) = 50; B's 100-bit packet arrives at 50 and finishes at round 150;
    /// R(100) = 75 (two active); A goes inactive when R reaches 100, at t = 150; R(200) = 150.
    #[test]
    fn the_thesis_worked_example_ends_at_r_200_equal_150() {
        let rate = 1e9; // one bit per ns: times in ns are the example's time units
        let mut r = RoundNumber::new(vec![1.0, 1.0]);
        r.advance(0.0, rate);
        r.set_last_finish(0, r.r() + 100.0);
        r.advance(50.0, rate);
        assert_eq!(r.r(), 50.0);
        let fb = r.last_finish(1).max(r.r()) + 100.0;
        assert_eq!(fb, 150.0);
        r.set_last_finish(1, fb);
        r.advance(100.0, rate);
        assert_eq!(r.r(), 75.0);
        assert!(r.is_active(0), "F_A = 100 > 75");
        r.advance(150.0, rate);
        assert_eq!(r.r(), 100.0);
        assert!(!r.is_active(0) && r.is_active(1));
        r.advance(200.0, rate);
        assert_eq!(r.r(), 150.0);
        assert!(!r.is_active(1), "B's finish number reached");
        assert_eq!(r.active_weight(), 0.0);
    }

    #[test]
    fn r_is_frozen_while_idle_and_weights_slow_it() {
        let mut r = RoundNumber::new(vec![1.0, 3.0]);
        r.advance(0.0, 1e9);
        r.set_last_finish(0, 10.0);
        r.advance(1000.0, 1e9);
        assert_eq!(r.r(), 10.0, "idle after round 10");
        r.set_last_finish(0, 20.0);
        r.set_last_finish(1, 20.0);
        // total weight 4: one bit per ns moves R by a quarter
        r.advance(1004.0, 1e9);
        assert_eq!(r.r(), 11.0);
    }

    #[test]
    fn iterated_deletion_handles_several_departures_in_one_step() {
        // three conversations finishing at rounds 1, 2 and 10; from t = 0 at 1 bit/ns
        let mut r = RoundNumber::new(vec![1.0; 3]);
        r.advance(0.0, 1e9);
        r.set_last_finish(0, 1.0);
        r.set_last_finish(1, 2.0);
        r.set_last_finish(2, 10.0);
        // R = 1 at t = 3 (three active); R = 2 at t = 5 (two); then slope 1: R = 7 at t = 10
        r.advance(10.0, 1e9);
        assert_eq!(r.r(), 7.0);
        assert!(!r.is_active(0) && !r.is_active(1) && r.is_active(2));
    }
}
