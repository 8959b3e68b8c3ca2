//! Generators of packet instants for the timed applications.
//!
//! - Telnet and Poisson: exponential gaps, the first one counted from the start time.
//! - CBR and firehose: a constant gap (size·8/rate, rounded up to the nanosecond), the first
//!   packet at the start time; CBR may scale each gap by U[1 − jitter, 1 + jitter) (the CSFQ
//!   paper's UDP sources use jitter 0.5).
//! - On-off: starts "on"; while on, CBR at its rate; on and off periods are exponential or
//!   Pareto with the given means (Pareto scale = mean·(shape − 1)/shape), or fixed (each lasts
//!   exactly its mean). Every on period sends at least the packet at its beginning.

use super::{App, Periods};
use crate::rng::SimRng;
use crate::units::Time;
use rand::Rng;
use rand_distr::{Distribution, Exp1, Pareto};

#[derive(Clone, Debug)]
enum Gaps {
    Exponential { mean: f64 },
    Constant { gap: Time, jitter: f64 },
    OnOff { gap: Time, on: Period, off: Period, on_until: Time },
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

fn exp_gap(mean: f64, rng: &mut SimRng) -> Time {
    Time::from_secs_f64(exponential(mean, rng))
}

#[derive(Clone, Debug)]
pub struct TimedSource {
    gaps: Gaps,
}

impl TimedSource {
    /// The generator of a timed application; `None` for FTP, which is not timed.
    pub fn new(app: &App, packet_size: u32) -> Option<TimedSource> {
        let gaps = match *app {
            App::Ftp { .. } | App::Web { .. } | App::Files { .. } => return None,
            App::Telnet { mean_gap } | App::Poisson { mean_gap } => Gaps::Exponential { mean: mean_gap.as_secs_f64() },
            App::Cbr { rate, jitter } => Gaps::Constant { gap: rate.tx_time(packet_size), jitter },
            App::Firehose { rate } => Gaps::Constant { gap: rate.tx_time(packet_size), jitter: 0.0 },
            App::OnOff { rate, on_mean, off_mean, periods, shape } => Gaps::OnOff {
                gap: rate.tx_time(packet_size),
                on: Period { mean: on_mean.as_secs_f64(), periods, shape },
                off: Period { mean: off_mean.as_secs_f64(), periods, shape },
                on_until: Time::ZERO,
            },
        };
        Some(TimedSource { gaps })
    }

    /// The instant of the first packet of an application starting at `start`.
    pub fn first(&mut self, start: Time, rng: &mut SimRng) -> Time {
        match &mut self.gaps {
            Gaps::Exponential { mean } => start + exp_gap(*mean, rng),
            Gaps::Constant { .. } => start,
            Gaps::OnOff { on, on_until, .. } => {
                *on_until = start + on.draw(rng);
                start
            }
        }
    }

    /// The instant of the packet after the one sent at `now`.
    pub fn next(&mut self, now: Time, rng: &mut SimRng) -> Time {
        match &mut self.gaps {
            Gaps::Exponential { mean } => now + exp_gap(*mean, rng),
            Gaps::Constant { gap, jitter } if *jitter > 0.0 => {
                now + Time::from_secs_f64(gap.as_secs_f64() * jitter_factor(*jitter, rng))
            }
            Gaps::Constant { gap, .. } => now + *gap,
            Gaps::OnOff { gap, on, off, on_until } => {
                let t = now + *gap;
                if t < *on_until {
                    return t;
                }
                let resume = *on_until + off.draw(rng);
                *on_until = resume + on.draw(rng);
                resume
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::units::Rate;

    fn mean_gap(app: &App, n: usize) -> f64 {
        let mut rng = stream(11, "gaps");
        let mut s = TimedSource::new(app, 1000).unwrap();
        let first = s.first(Time::ZERO, &mut rng);
        let mut t = first;
        for _ in 0..n {
            t = s.next(t, &mut rng);
        }
        (t - first).as_secs_f64() / n as f64
    }

    #[test]
    fn poisson_gaps_have_the_configured_mean() {
        let m = mean_gap(&App::Telnet { mean_gap: Time::from_secs(5) }, 50_000);
        assert!((m - 5.0).abs() < 0.1, "mean gap {m}");
    }

    #[test]
    fn cbr_is_exact_and_jitter_keeps_the_mean() {
        let cbr = App::Cbr { rate: Rate(80_000), jitter: 0.0 };
        assert_eq!(mean_gap(&cbr, 10), 0.1);
        let m = mean_gap(&App::Cbr { rate: Rate(80_000), jitter: 0.5 }, 50_000);
        assert!((m - 0.1).abs() < 0.002, "mean gap {m}");
    }

    #[test]
    fn onoff_mean_rate_is_peak_times_duty_cycle() {
        for periods in [Periods::Exponential, Periods::Pareto] {
            let app = App::OnOff {
                rate: Rate(80_000),
                on_mean: Time::from_secs(2),
                off_mean: Time::from_secs(2),
                periods,
                shape: 1.5,
            };
            // peak 10 packets/s, half the time on: 0.2 s per packet on average
            let m = mean_gap(&app, 200_000);
            assert!((m - 0.2).abs() < 0.02, "{periods:?}: mean gap {m}");
        }
    }

    #[test]
    fn fixed_periods_follow_the_schedule_exactly() {
        let app = App::OnOff {
            rate: Rate(40_000),
            on_mean: Time::from_secs(300),
            off_mean: Time::from_secs(300),
            periods: Periods::Fixed,
            shape: 1.5,
        };
        let mut rng = stream(3, "gaps");
        let mut s = TimedSource::new(&app, 1000).unwrap();
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
