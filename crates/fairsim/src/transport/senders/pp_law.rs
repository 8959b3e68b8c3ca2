//! The control laws of Packet-Pair (Keshav 1991, chapter 5). Pure functions, so that the
//! thesis's analysis can be checked on them directly.
//!
//! - Once per epoch (round trip), eq. 5.9 with the gain α of §5.3.5:
//!   λ(k+1) = (α / RTT(k))·[ B/2 − n̂_b(k) − S(k) + 2·μ̂(k)·RTT(k) ]
//!   asymptotically stable for α < 1 (the poles z⁻¹ = (1 ± i√(4α − 1))/(2α) lie outside the unit
//!   circle), on it for α = 1; the thesis recommends α = 0.9.
//! - Once per probe, eq. 5.14 (§5.7), with R the propagation delay and J the control horizon:
//!   λ = (B/2 − S + R·μ̂ + J·μ̂) / J, i.e. μ̂ plus the setpoint error spread over J; stable for
//!   any J > 0. PP_CTH, the version the thesis simulates, uses this law with J = one round trip.
//!
//! Rates in packets per second, times in seconds, queues in packets; `setpoint` is B/2.

/// The queue the conversation has at the bottleneck, estimated as outstanding packets minus
/// those in the pipe: n̂_b = S − R·μ̂ (eq. 5.12).
pub fn queue_estimate(outstanding: f64, prop_delay: f64, mu: f64) -> f64 {
    outstanding - prop_delay * mu
}

/// Eq. 5.14: the sending rate that brings the queue to the setpoint over `horizon` seconds.
pub fn per_probe(setpoint: f64, outstanding: f64, prop_delay: f64, mu: f64, horizon: f64) -> f64 {
    (setpoint - outstanding + prop_delay * mu + horizon * mu) / horizon
}

/// Eq. 5.9 with gain α: the next epoch's rate.
pub fn per_epoch(alpha: f64, setpoint: f64, queue: f64, outstanding: f64, mu: f64, rtt: f64) -> f64 {
    alpha / rtt * (setpoint - queue - outstanding + 2.0 * mu * rtt)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thesis's deterministic model (§5.3.4): per epoch of length RTT, S(k) = λ(k)·RTT and
    /// n_b(k+1) = n_b(k) + (λ(k) − μ)·RTT, the queue observed exactly. Returns (λ, n_b) per epoch.
    fn epochs(alpha: f64, mu: impl Fn(usize) -> f64, n: usize) -> Vec<(f64, f64)> {
        let (rtt, setpoint) = (1.0, 5.0);
        let (mut lambda, mut queue) = (mu(0), 0.0);
        let mut out = vec![];
        for k in 0..n {
            out.push((lambda, queue));
            let outstanding = lambda * rtt;
            let next_queue = (queue + (lambda - mu(k)) * rtt).max(0.0);
            lambda = per_epoch(alpha, setpoint, queue, outstanding, mu(k), rtt);
            queue = next_queue;
        }
        out
    }

    /// Appendix 5.A: constant service rate, empty queue, α = 1: the law is at λ = μ with B/2
    /// packets queued from the third epoch on.
    #[test]
    fn appendix_5a_steady_state_in_a_few_epochs() {
        let e = epochs(1.0, |_| 10.0, 8);
        assert_eq!(e[1].0, 15.0, "λ(1) = μ + (B/2)/RTT");
        for &(lambda, queue) in &e[3..] {
            assert_eq!((lambda, queue), (10.0, 5.0));
        }
    }

    /// §5.3.5: the thesis's closed loop (its eq. 5.9 substituted into 5.2, RTT(k+1)/RTT(k) ≈ 1,
    /// n̂_b = n_b) has the characteristic equation α·z⁻² − z⁻¹ + 1 = 0, i.e. a deviation x of the
    /// queue from its setpoint obeys x(k+2) = x(k+1) − α·x(k). Its poles have |z⁻¹| = 1/√α:
    /// stable for α < 1, on the unit circle (a lasting oscillation of period 6) for α = 1.
    #[test]
    fn the_thesis_closed_loop_is_stable_below_unit_gain_and_not_at_it() {
        let deviations = |alpha: f64| {
            let mut x = vec![1.0, 1.0];
            for k in 0..120 {
                x.push(x[k + 1] - alpha * x[k]);
            }
            x
        };
        let tail_peak = |x: &[f64]| x[100..].iter().map(|v: &f64| v.abs()).fold(0.0, f64::max);
        assert!(tail_peak(&deviations(0.9)) < 1e-2, "α = 0.9 decays");
        let unit = deviations(1.0);
        assert!((tail_peak(&unit) - 1.0).abs() < 1e-12, "α = 1 neither grows nor decays");
        assert_eq!(&unit[..8], &[1.0, 1.0, 0.0, -1.0, -1.0, 0.0, 1.0, 1.0], "period 6");
        for alpha in [0.3f64, 0.5, 0.9, 1.0] {
            // |z⁻¹| = 1/√α for the complex roots (α > 1/4)
            let im = (4.0 * alpha - 1.0).sqrt();
            let modulus = (1.0 + im * im).sqrt() / (2.0 * alpha);
            assert!((modulus - 1.0 / alpha.sqrt()).abs() < 1e-12);
        }
    }

    /// Eq. 5.9 itself in the deterministic model, with S(k) = λ(k)·RTT and the queue observed
    /// exactly: it settles — at α = 1 in two epochs (deadbeat), below 1 at the offset
    /// B/2 − μ·RTT·(1 − α)/α the thesis's fixed point implies (while that offset stays positive:
    /// a smaller α empties the queue and leaves the line underused). The instability at α = 1
    /// belongs to the thesis's simplified loop above, not to this model of the law.
    #[test]
    fn the_law_in_the_deterministic_model_settles_after_a_rate_change() {
        let mu = |k: usize| if k < 5 { 10.0 } else { 6.0 };
        for alpha in [0.8, 0.9, 1.0] {
            let e = epochs(alpha, mu, 200);
            let want = 5.0 - 6.0 * (1.0 - alpha) / alpha;
            assert!((e[199].1 - want).abs() < 1e-6 && (e[199].0 - 6.0).abs() < 1e-9, "α = {alpha}: {:?}", e[199]);
        }
    }

    #[test]
    fn per_probe_law_brings_the_queue_to_the_setpoint() {
        // fluid model (eq. 5.11): hold λ for J, the queue moves by (λ − μ)·J
        let (mu, prop, setpoint) = (50.0, 0.1, 5.0);
        let mut queue: f64 = 0.0;
        for _ in 0..20 {
            let horizon = prop + queue / mu; // J: one round trip
            let outstanding = queue + prop * mu;
            let lambda = per_probe(setpoint, outstanding, prop, mu, horizon);
            queue = (queue + (lambda - mu) * horizon).max(0.0);
        }
        assert!((queue - setpoint).abs() < 1e-9, "{queue}");
        assert_eq!(queue_estimate(12.0, 0.1, 50.0), 7.0);
    }
}
