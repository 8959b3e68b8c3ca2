use super::*;
use crate::qdisc::testing::{pkt, port, with_ctx_at};

fn pie() -> Pie {
    Pie::new(PieConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1)])).unwrap()
}

#[test]
fn the_probability_moves_by_alpha_and_beta_scaled_while_it_is_small() {
    // RFC 8033 §4.2 with qdelay = 35 ms after an empty queue: p = 0.125·0.020 + 1.25·0.035
    let mut q = pie();
    q.ctl.qdelay = 0.035;
    q.update();
    let p: f64 = 0.125 * 0.020 + 1.25 * 0.035;
    assert!((q.ctl.drop_prob - p / 2048.0).abs() < 1e-15, "{} vs {}", q.ctl.drop_prob, p / 2048.0);
    // the next update: the delay holds, only α's term remains, scaled for the probability now
    // (2.26e-5: between 0.00001 and 0.0001, so ÷128)
    let before = q.ctl.drop_prob;
    q.update();
    assert!((q.ctl.drop_prob - before - 0.125 * 0.020 / 128.0).abs() < 1e-15);
}

#[test]
fn the_auto_tuning_table_scales_each_range() {
    for (prob, divisor) in
        [(0.0, 2048.0), (0.000005, 512.0), (0.00005, 128.0), (0.0005, 32.0), (0.005, 8.0), (0.05, 2.0), (0.5, 1.0)]
    {
        assert_eq!(tuned(1.0, prob), 1.0 / divisor, "at {prob}");
    }
}

#[test]
fn a_high_probability_grows_by_at_most_two_percent_and_an_empty_queue_decays_it() {
    let mut q = pie();
    q.ctl.drop_prob = 0.5;
    q.ctl.qdelay = 1.0; // a second of delay would add 1.25 + 0.12
    q.update();
    assert!((q.ctl.drop_prob - 0.52).abs() < 1e-12);
    // empty for two updates: −α·target each time, and ×0.98 once both delays are 0
    q.ctl.qdelay = 0.0;
    q.update(); // β·(0 − 1) pulls it down hard; qdelay_old was 1 s, so no decay yet
    let before = q.ctl.drop_prob;
    q.update();
    let expected = ((before - 0.125 * 0.015 / if before < 0.1 { 2.0 } else { 1.0 }) * 0.98).max(0.0);
    assert!((q.ctl.drop_prob - expected).abs() < 1e-12, "{} vs {expected}", q.ctl.drop_prob);
}

#[test]
fn bursts_pass_for_max_burst_then_a_standing_queue_is_dropped_from() {
    // RFC 8033 §4.4: no early drops while the burst allowance lasts
    let mut q = pie();
    let mut drops_by_t = vec![];
    let mut t = Time::ZERO;
    let mut seq = 0;
    // 2 packets in, 1 out every millisecond: the queue (and its delay) grows without end
    while t < Time::from_secs(2) {
        for _ in 0..2 {
            let (_, d) = with_ctx_at(t, |ctx| q.enqueue(Packet { enqueued_at: t, ..pkt(0, seq, 1000) }, ctx));
            seq += 1;
            drops_by_t.extend(d.iter().map(|_| t));
        }
        with_ctx_at(t, |ctx| q.dequeue(ctx));
        t += Time::from_millis(1);
    }
    let first = drops_by_t.first().expect("PIE drops from a growing queue");
    assert!(*first >= Time::from_millis(150), "first drop at {first}: inside the burst allowance");
    assert!(q.ctl.drop_prob > 0.1, "probability {}", q.ctl.drop_prob);
}

#[test]
fn updates_missed_while_idle_are_applied_in_order_as_a_timer_would() {
    // one long gap between packets, against the same gap cut by many events
    let run = |probe_every: Option<Time>| {
        let mut q = pie();
        q.ctl.drop_prob = 0.3;
        let mut t = Time::ZERO;
        while t < Time::from_millis(600) {
            if probe_every.is_some() {
                with_ctx_at(t, |ctx| q.dequeue(ctx));
            }
            t += probe_every.unwrap_or(Time::from_millis(600));
        }
        with_ctx_at(Time::from_millis(600), |ctx| q.dequeue(ctx));
        (q.ctl.drop_prob, q.ctl.burst_allowance, q.ctl.next_update)
    };
    assert_eq!(run(None), run(Some(Time::from_millis(7))));
}

#[test]
fn bad_parameters_are_refused() {
    let p = port(BufferLimit::Unlimited, &[]);
    assert!(Pie::new(PieConfig { t_update: Time::ZERO, ..Default::default() }, &p).is_err());
    assert!(Pie::new(PieConfig { alpha: -1.0, ..Default::default() }, &p).is_err());
}

#[test]
fn updates_in_closed_form_match_updates_one_by_one() {
    // every range of the table, rising and falling, empty (decaying) and standing queues, with
    // the burst allowance given back, draining or spent
    let configs = [
        PieConfig::default(),
        PieConfig { alpha: 0.0, ..Default::default() },
        PieConfig { target: Time::ZERO, ..Default::default() },
        PieConfig { alpha: 2.0, t_update: Time::from_millis(1), ..Default::default() },
    ];
    for cfg in configs {
        for drop_prob in [0.0, 3e-7, 3e-6, 3e-5, 3e-4, 3e-3, 0.05, 0.1, 0.3, 0.99, 1.0] {
            for qdelay in [0.0, 0.001, 0.0149, 0.015, 0.0151, 0.02, 0.5] {
                for burst in [0.15, 0.05, 0.0] {
                    for n in [1u64, 2, 7, 100, 1000, 30_000] {
                        let mut one = Pie::new(cfg.clone(), &port(BufferLimit::Unlimited, &[(0, 1)])).unwrap();
                        one.ctl =
                            Controller { drop_prob, qdelay, qdelay_old: qdelay, burst_allowance: burst, ..one.ctl };
                        let mut all = Pie { ctl: one.ctl.clone(), cfg: cfg.clone(), ..pie() };
                        (0..n).for_each(|_| one.update());
                        all.fast_forward(n);
                        let (a, b) = (&one.ctl, &all.ctl);
                        let at = format!("{cfg:?} p {drop_prob} qdelay {qdelay} burst {burst} n {n}");
                        // the sums round otherwise, so a range of the table may be left one
                        // update apart: at most one untuned step
                        let step = (cfg.alpha * (qdelay - cfg.target.as_secs_f64())).abs().min(0.02);
                        let close = (a.drop_prob - b.drop_prob).abs() <= 1e-9 + step;
                        assert!(close, "{at}: {} vs {}", a.drop_prob, b.drop_prob);
                        assert_eq!(a.drop_prob == 0.0, b.drop_prob == 0.0, "{at}");
                        assert!((a.burst_allowance - b.burst_allowance).abs() < 1e-9, "{at}");
                        assert_eq!(a.burst_allowance > 0.0, b.burst_allowance > 0.0, "{at}");
                        assert_eq!(a.qdelay_old, b.qdelay_old, "{at}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_tiny_t_update_costs_a_bounded_number_of_steps_per_packet() {
    // 1 ns updates over 100 s of a standing queue: 10^11 updates, one packet a second. One by
    // one they took minutes; the same gaps at the default t_update give the same probability.
    let run = |t_update: Time| {
        let cfg = PieConfig { t_update, ..Default::default() };
        let mut q = Pie::new(cfg, &port(BufferLimit::Unlimited, &[(0, 1)])).unwrap();
        let started = std::time::Instant::now();
        for s in 0..100 {
            let t = Time::from_secs(s);
            for seq in 0..3 {
                with_ctx_at(t, |ctx| q.enqueue(Packet { enqueued_at: t, ..pkt(0, 3 * s + seq, 1000) }, ctx));
            }
            // the packet sent at t + 1 s waited 1 s: a standing delay far above target
            with_ctx_at(t + Time::from_secs(1), |ctx| q.dequeue(ctx));
        }
        (q.ctl.drop_prob, started.elapsed())
    };
    let (fine, took) = run(Time(1));
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    let (coarse, _) = run(Time::from_millis(15));
    assert_eq!((fine, coarse), (1.0, 1.0), "a standing second of delay drives both to certain drops");
}

#[test]
fn gaps_of_up_to_a_thousand_updates_are_applied_one_by_one() {
    // a realistic gap (here 999 updates of a decaying probability) gives the very bits of a timer
    let mut q = pie();
    q.ctl.drop_prob = 0.7;
    q.ctl.burst_allowance = 0.0;
    let mut timer = q.ctl.clone();
    let mut t = Time::ZERO;
    for _ in 0..999 {
        t += q.cfg.t_update;
        std::mem::swap(&mut q.ctl, &mut timer);
        q.update();
        std::mem::swap(&mut q.ctl, &mut timer);
    }
    q.catch_up(t);
    assert_eq!(q.ctl.drop_prob.to_bits(), timer.drop_prob.to_bits());
    assert_eq!(q.ctl.burst_allowance.to_bits(), timer.burst_allowance.to_bits());
}
