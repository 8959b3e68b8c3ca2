use super::*;
use crate::qdisc::testing::{pkt, port, with_ctx_at};

fn codel() -> Codel {
    Codel::new(CodelConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1)])).unwrap()
}

fn ms(t: f64) -> Time {
    Time::from_secs_f64(t / 1000.0)
}

/// Queues `n` 1000-byte packets that arrived at `at`.
fn fill(q: &mut Codel, n: u64, at: Time) {
    for seq in 0..n {
        with_ctx_at(at, |ctx| q.enqueue(Packet { enqueued_at: at, ..pkt(0, seq, 1000) }, ctx));
    }
}

/// Dequeues one packet every `step` from `from` until `until`; returns the drop times, in ms.
fn drain(q: &mut Codel, from: Time, until: Time, step: Time) -> Vec<f64> {
    let (mut t, mut drops) = (from, vec![]);
    while t < until {
        let (_, dropped) = with_ctx_at(t, |ctx| q.dequeue(ctx));
        drops.extend(dropped.iter().map(|_| t.as_secs_f64() * 1000.0));
        t += step;
    }
    drops
}

#[test]
fn a_queue_below_target_never_drops() {
    let mut q = codel();
    for k in 0..1000u64 {
        let now = ms(k as f64);
        // each packet waits 4 ms: below the 5 ms target
        with_ctx_at(now, |ctx| q.enqueue(Packet { enqueued_at: now, ..pkt(0, k, 1000) }, ctx));
        let (_, drops) = with_ctx_at(now + ms(4.0), |ctx| q.dequeue(ctx));
        assert!(drops.is_empty());
    }
    assert!(!q.state.dropping());
}

#[test]
fn a_standing_queue_is_dropped_at_intervals_shrinking_as_one_over_the_root_of_count() {
    // RFC 8289 §5: the first drop an interval after the sojourn went above target, then the
    // control law: next = previous + interval/√count
    let mut q = codel();
    fill(&mut q, 30_000, Time::ZERO);
    // a packet every 50 µs: each drop comes at the first dequeue at or after its due time
    let drops = drain(&mut q, ms(10.0), ms(1010.0), ms(0.05));
    assert!((drops[0] - 110.0).abs() < 0.051, "first drop at {}", drops[0]);
    let mut expected = drops[0];
    for (count, &t) in drops.iter().enumerate().skip(1) {
        expected += 100.0 / (count as f64).sqrt();
        assert!((0.0..0.051).contains(&(t - expected)), "drop {count} at {t}, law says {expected}");
    }
    assert!(drops.len() >= 20, "{} drops in a second", drops.len());
    assert_eq!(q.state.count() as usize, drops.len());
}

#[test]
fn a_queue_holding_at_most_one_mtu_never_drops() {
    let mut q = codel();
    fill(&mut q, 2, Time::ZERO);
    // the sojourn is far above target, but after the first dequeue one 1000-byte packet remains
    assert!(drain(&mut q, ms(500.0), ms(700.0), ms(100.0)).is_empty());
}

#[test]
fn leaving_the_dropping_state_and_returning_soon_resumes_near_the_last_drop_rate() {
    // RFC 8289 §5 (Linux's variant): count = count − lastcount when the last episode was recent
    let mut q = codel();
    fill(&mut q, 30_000, Time::ZERO);
    drain(&mut q, ms(10.0), ms(600.0), ms(0.05));
    let count = q.state.count();
    assert!(count > 3);
    // the queue empties: the episode ends
    with_ctx_at(Time::ZERO, |ctx| while q.queue.pop(ctx.pool).is_some() {});
    assert!(drain(&mut q, ms(600.0), ms(601.0), ms(1.0)).is_empty());
    assert!(!q.state.dropping());
    // a new standing queue 300 ms later (within 16 intervals)
    fill(&mut q, 30_000, ms(900.0));
    let again = drain(&mut q, ms(910.0), ms(1200.0), ms(0.05));
    assert!(q.state.dropping());
    // the new episode's second drop comes interval/√(count − 1) after its first, not interval
    let gap = again[1] - again[0];
    let law = 100.0 / ((count - 1) as f64).sqrt();
    assert!((gap - law).abs() < 0.051, "gap {gap}, expected {law} (count was {count})");
}

#[test]
fn bad_parameters_are_refused() {
    let p = port(BufferLimit::Unlimited, &[]);
    assert!(Codel::new(CodelConfig { interval: Time::ZERO, ..Default::default() }, &p).is_err());
    assert!(Codel::new(CodelConfig { target: Time::from_millis(200), ..Default::default() }, &p).is_err());
}
