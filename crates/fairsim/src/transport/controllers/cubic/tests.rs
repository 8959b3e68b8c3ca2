use super::*;

const RTT: f64 = 0.1;

fn cubic(window: f64) -> Cubic {
    // ssthresh from cwnd, as the `linux` stack's CUBIC (Linux's bictcp_recalc_ssthresh)
    let cfg =
        AimdConfig { ssthresh_from: crate::transport::controllers::aimd::SsthreshFrom::Cwnd, ..Default::default() };
    let mut a = Aimd::checked(&cfg, 100_000).unwrap();
    (a.cwnd, a.ssthresh) = (window, window);
    let mut c = Cubic::checked(CubicConfig::default(), a).unwrap();
    sample(&mut c, RTT);
    c
}

/// A round-trip sample of `rtt_s` (the test's context carries nothing the controller reads).
fn sample(c: &mut Cubic, rtt_s: f64) {
    c.on_rtt_sample(RttSample { rtt_s, ack: 0, next: 0 }, &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut vec![]));
}

/// The end of a fast recovery.
fn recovered(c: &mut Cubic) {
    c.on_recovery_end(&mut AgentCtx::new(Time::ZERO, u64::MAX, &mut vec![]));
}

fn loss(c: &mut Cubic, event: Congestion) {
    let mut actions = vec![];
    c.on_congestion(
        event,
        Load { flight: 0, pipe: 0 },
        &SendWindow::default(),
        &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions),
    );
}

const FAST_RETRANSMIT: Congestion = Congestion::FastRetransmit { dupacks: 3, recovering: true };

/// Congestion avoidance over a path of constant round trip `rtt` from `from` for `secs`: each
/// round trip brings one ACK per packet of the window, evenly spaced. Returns (t, cwnd) at the
/// end of each round.
fn rounds(c: &mut Cubic, from: f64, secs: f64, rtt: f64) -> Vec<(f64, f64)> {
    let (mut t, mut out, mut actions) = (from, vec![], vec![]);
    while t < from + secs {
        let n = c.window().max(1);
        for i in 0..n {
            let now = Time::from_secs_f64(t + rtt * (i + 1) as f64 / n as f64);
            c.on_ack(NewAck { count: 1 }, &mut AgentCtx::new(now, u64::MAX, &mut actions));
        }
        t += rtt;
        out.push((t, c.aimd.cwnd));
    }
    out
}

fn at(curve: &[(f64, f64)], t: f64) -> f64 {
    curve.iter().find(|&&(x, _)| x >= t).expect("inside the curve").1
}

#[test]
fn a_loss_multiplies_the_window_by_beta_and_k_is_the_time_back_to_w_max() {
    // RFC 9438 §4.6 and Figure 2: W_max = 100, cwnd_epoch = 70, K = ∛(30/0.4) = 4.217 s
    let mut c = cubic(100.0);
    loss(&mut c, FAST_RETRANSMIT);
    assert_eq!((c.w_max, c.aimd.ssthresh), (100.0, 70.0));
    recovered(&mut c);
    assert_eq!(c.aimd.cwnd, 70.0);
    let e = c.epoch(Time::from_secs(1));
    assert!((e.k - 4.2172).abs() < 1e-4, "K = {}", e.k);
    assert_eq!(e.w_est, 70.0);
}

#[test]
fn the_window_follows_the_cubic_curve_concave_then_flat_then_convex() {
    // RFC 9438 Figure 1: W_cubic(t) = C(t − K)³ + W_max; aiming at the curve one round trip
    // ahead (§4.4), the window stays between the curve now and the curve then
    // a large window on a long path, where the cubic grows faster than Reno (§4.3)
    let mut c = cubic(1000.0);
    loss(&mut c, FAST_RETRANSMIT);
    recovered(&mut c);
    let curve = rounds(&mut c, 0.0, 13.0, RTT);
    let k = (300.0f64 / 0.4).cbrt();
    let w = |t: f64| 0.4 * (t - k).powi(3) + 1000.0;
    for t in [0.5, 1.0, 2.0, k / 2.0, k, k + 1.0, k + 2.0, k + 3.0] {
        let got = at(&curve, t);
        assert!(w(t) - 0.5 < got && got < w(t + RTT) + 0.5, "t = {t}: {got} vs {}..{}", w(t), w(t + RTT));
    }
    // flat around W_max: it changes by under 1.5 packets in the second around K
    assert!(at(&curve, k + 0.5) - at(&curve, k - 0.5) < 1.5);
    // concave before, convex after
    let gain = |a: f64, b: f64| at(&curve, b) - at(&curve, a);
    assert!(gain(0.0, 1.0) > gain(1.0, 2.0) && gain(1.0, 2.0) > gain(2.0, 3.0));
    assert!(gain(k + 1.0, k + 2.0) < gain(k + 2.0, k + 3.0));
}

#[test]
fn where_reno_would_grow_faster_the_window_follows_reno() {
    // RFC 9438 §4.3: a small window on a short path, where W_cubic(t) < W_est
    let mut c = cubic(10.0);
    sample(&mut c, 0.001);
    loss(&mut c, FAST_RETRANSMIT);
    recovered(&mut c);
    let curve = rounds(&mut c, 0.0, 0.2, 0.001);
    // 200 round trips: α = 0.53 a round up to W_max = 10 (6 rounds), then 1 a round
    let cubic_curve = 0.4 * (0.2 - (3.0f64 / 0.4).cbrt()).powi(3) + 10.0;
    let last = curve.last().unwrap().1;
    assert!(cubic_curve < 8.0, "the cubic alone would still be below W_max");
    assert!((180.0..215.0).contains(&last), "{last} after 200 Reno-like round trips");
}

#[test]
fn fast_convergence_lowers_w_max_when_the_window_had_not_regrown() {
    // RFC 9438 §4.7
    let mut c = cubic(100.0);
    loss(&mut c, FAST_RETRANSMIT);
    recovered(&mut c);
    c.aimd.cwnd = 80.0;
    loss(&mut c, FAST_RETRANSMIT);
    assert!((c.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9);
    assert_eq!(c.aimd.ssthresh, 56.0);
    let mut plain = Cubic { cfg: CubicConfig { fast_convergence: false, ..Default::default() }, ..cubic(100.0) };
    loss(&mut plain, FAST_RETRANSMIT);
    plain.aimd.cwnd = 80.0;
    loss(&mut plain, FAST_RETRANSMIT);
    assert_eq!(plain.w_max, 80.0);
}

#[test]
fn after_a_timeout_slow_start_then_an_epoch_with_k_zero_from_the_window_it_reached() {
    // RFC 9438 §4.8
    let mut c = cubic(100.0);
    loss(&mut c, Congestion::Timeout);
    assert_eq!((c.aimd.cwnd, c.aimd.ssthresh), (1.0, 70.0));
    let curve = rounds(&mut c, 0.0, 0.8, RTT);
    assert!(curve[5].1 >= 64.0 && curve[5].1 <= 71.0, "slow start doubles each round: {:?}", &curve[..6]);
    let e = c.epoch.expect("congestion avoidance began");
    assert_eq!(e.k, 0.0);
    assert!((70.0..72.0).contains(&c.w_max), "W_max {} is the window when the epoch began", c.w_max);
}

#[test]
fn parameters_out_of_range_are_refused() {
    let a = || Aimd::checked(&AimdConfig::default(), 64).unwrap();
    assert!(Cubic::checked(CubicConfig { beta: 1.0, ..Default::default() }, a()).is_err());
    assert!(Cubic::checked(CubicConfig { c: 0.0, ..Default::default() }, a()).is_err());
}
