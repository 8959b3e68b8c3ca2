//! A host's clock noise (docs/reproductions.md, *Phase locks*): deterministic runs with commensurate rates and timers
//! lock into phase patterns that no real network holds for long (a loser's backed-off
//! retransmission always returning when the buffer is full; a CBR at half the line rate always
//! arriving just after the last free place was taken). A real host's timers fire late by an
//! amount that depends on its clock's tick and its scheduler, which moves such phases at
//! random. `run.clock_jitter` models that: every timeout a sender sets, and every instant of a
//! timed application, happens late by a uniform draw from [0, jitter) in whole nanoseconds.
//!
//! Choices: only timeouts are late (`AgentCtx::set_timeout`), never a pacing timer, whose
//! lateness would add up and lower the rate; a timed application keeps its nominal schedule
//! and only each packet's instant is late, so its rate is unchanged (a packet whose late
//! instant would precede the previous packet's is sent right after it:
//! `Simulation::app_packet`). Each flow draws from its own stream (`clock:<flow>`), so turning
//! the jitter on changes no other draw. Randomising the
//! order of same-instant events instead was rejected: it breaks ties only, and the locks above
//! are phases, not ties; and it would cost a random key on every event of the hot path.

use crate::rng::{stream, SimRng};
use crate::units::Time;
use rand::Rng;

/// How late a host's timers fire.
pub struct HostClock {
    /// `None`: exact. Boxed: a random stream's state is 336 bytes, which every flow and
    /// connection carried inline, and most clocks are exact.
    noise: Option<Box<(Time, SimRng)>>,
}

impl HostClock {
    /// The clock of flow `flow`'s hosts in a run seeded with `seed`, late by up to `jitter`.
    pub fn new(jitter: Time, seed: u64, flow: &str) -> HostClock {
        let noise = (jitter > Time::ZERO).then(|| Box::new((jitter, stream(seed, &format!("clock:{flow}")))));
        HostClock { noise }
    }

    /// An exact clock.
    pub fn exact() -> HostClock {
        HostClock { noise: None }
    }

    /// When something due at `due` happens.
    #[inline]
    pub fn late(&mut self, due: Time) -> Time {
        match &mut self.noise {
            None => due,
            Some(noise) => {
                let (jitter, rng) = &mut **noise;
                due + Time(rng.random_range(0..jitter.0))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_clock_is_on_time_and_a_noisy_one_late_within_its_jitter() {
        let due = Time::from_secs(5);
        assert_eq!(HostClock::exact().late(due), due);
        assert_eq!(HostClock::new(Time::ZERO, 1, "f").late(due), due);
        let mut c = HostClock::new(Time::from_millis(10), 1, "f");
        let lates: Vec<u64> = (0..1000).map(|_| (c.late(due) - due).0).collect();
        assert!(lates.iter().all(|&l| l < 10_000_000));
        let mean = lates.iter().sum::<u64>() as f64 / 1000.0;
        assert!((mean - 5e6).abs() < 0.5e6, "uniform over [0, 10 ms): mean {mean} ns");
    }

    #[test]
    fn each_flow_and_seed_has_its_own_noise() {
        let draw = |seed, flow| HostClock::new(Time::from_secs(1), seed, flow).late(Time::ZERO);
        assert_eq!(draw(1, "a"), draw(1, "a"));
        assert_ne!(draw(1, "a"), draw(2, "a"));
        assert_ne!(draw(1, "a"), draw(1, "b"));
    }
}
