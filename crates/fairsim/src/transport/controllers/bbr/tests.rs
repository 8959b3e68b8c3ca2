use super::*;
use crate::net::PacketKind;
use crate::transport::reliability::delivery_rate::{Delivery, DeliveryRate, RateSample};

fn ms(v: f64) -> Time {
    Time::from_secs_f64(v / 1000.0)
}

fn bbr() -> Bbr {
    Bbr::checked(BbrConfig::default(), crate::rng::stream(1, "bbr:test")).unwrap()
}

/// One ACK that ends a round trip (its packet was sent after the round began), delivering one
/// packet with a sample of `bw` packets/s and a round trip of `rtt`, `pipe` packets in flight.
fn round(b: &mut Bbr, now: Time, bw: f64, rtt: Time, pipe: u64) {
    let prior_delivered = b.rate.delivered;
    b.rate.delivered += 1;
    let sample =
        RateSample { delivered: 1, interval: Time::from_secs_f64(1.0 / bw), prior_delivered, app_limited: false };
    b.update(Ack {
        now,
        delivery: Delivery { acked: 1, sample: Some(sample) },
        rtt: Some(rtt),
        prior_pipe: pipe,
        pipe,
    });
}

/// One ACK within the round, delivering a packet without a sample.
fn ack(b: &mut Bbr, now: Time, rtt: Time, pipe: u64) {
    b.rate.delivered += 1;
    b.update(Ack { now, delivery: Delivery { acked: 1, sample: None }, rtt: Some(rtt), prior_pipe: pipe, pipe });
}

/// BBR in PROBE_BW at the start of phase `phase`, BtlBw 1000 packets/s, min_rtt 50 ms, cwnd at
/// its target.
fn probing(phase: usize) -> Bbr {
    let mut b = bbr();
    round(&mut b, Time::ZERO, 1000.0, ms(50.0), 10);
    b.full_bw_reached = true;
    b.mode = Mode::ProbeBw;
    b.cycle_index = phase;
    b.cwnd = b.target(1000.0, 2.0);
    b.update_gains();
    b
}

#[test]
fn the_gain_cycle_is_the_papers_and_starts_anywhere_but_in_its_draining_phase() {
    // Cardwell et al. 2016: "an eight-phase cycle with the following pacing_gain values: 5/4,
    // 3/4, 1, 1, 1, 1, 1, 1"
    assert_eq!(GAIN_CYCLE, [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    // Linux's bbr_reset_probe_bw_mode: a random phase, never the 3/4 one
    let mut seen = [0; 8];
    for seed in 0..2000 {
        let mut b = Bbr::checked(BbrConfig::default(), crate::rng::stream(seed, "bbr:x")).unwrap();
        b.enter_probe_bw(Time::ZERO);
        seen[b.cycle_index] += 1;
    }
    assert_eq!(seen[1], 0, "{seen:?}");
    assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 200), "the other seven evenly: {seen:?}");
}

#[test]
fn probe_bw_walks_the_cycle_in_order_each_phase_a_min_rtt_long() {
    // draft-cardwell-00 §4.3.4.3: a phase lasts a min_rtt; 1.25 also until 1.25·BDP is in
    // flight, 0.75 ends early once no more than a BDP is
    let mut b = probing(0);
    let (bdp, probed) = (b.target(1000.0, 1.0), b.target(1000.0, 1.25));
    let (mut phases, mut t) = (vec![(0, Time::ZERO)], Time::ZERO);
    while phases.len() < 10 {
        t += ms(10.0);
        // in flight: the probe's extra quarter once it is out, the BDP once it has drained
        let pipe = if b.cycle_index == 0 && t > ms(30.0) { probed } else { bdp };
        ack(&mut b, t, ms(50.0), pipe);
        if b.cycle_index != phases.last().unwrap().0 {
            phases.push((b.cycle_index, t));
        }
    }
    let order: Vec<usize> = phases.iter().map(|p| p.0).collect();
    assert_eq!(order, [0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
    let lengths: Vec<Time> = phases.windows(2).map(|w| w[1].1 - w[0].1).collect();
    // ACKs every 10 ms: a min_rtt of 50 ms is over at the first ACK after it, 60 ms
    assert_eq!(lengths[0], ms(60.0), "1.25: a min_rtt, the probe's queue built by then");
    assert_eq!(lengths[1], ms(10.0), "0.75: at once, only a BDP in flight");
    assert!(lengths[2..8].iter().all(|&l| l == ms(60.0)), "{lengths:?}");
    // the gains the phases set
    let mut b = probing(0);
    let mut gains = vec![];
    for phase in 0..8 {
        b.cycle_index = phase;
        b.update_gains();
        gains.push(b.pacing_gain);
    }
    assert_eq!(gains, GAIN_CYCLE);
}

#[test]
fn startup_ends_after_three_rounds_without_25_percent_growth() {
    // draft-cardwell-00 §4.3.2.2 / Linux bbr_check_full_bw_reached
    let mut b = bbr();
    let rtt = ms(50.0);
    let mut t = Time::ZERO;
    for bw in [100.0, 200.0, 400.0, 800.0] {
        t += rtt;
        round(&mut b, t, bw, rtt, 1000);
    }
    // 900, 999: less than 25% above 800; 1000 is exactly 25%: growth, the count restarts
    for bw in [900.0, 999.0, 1000.0, 1100.0, 1200.0] {
        t += rtt;
        round(&mut b, t, bw, rtt, 1000);
        assert_eq!(b.mode, Mode::Startup, "bw {bw}");
    }
    t += rtt;
    round(&mut b, t, 1240.0, rtt, 1000);
    assert_eq!(b.mode, Mode::Drain, "three rounds below 1250");
    assert!(b.full_bw_reached);
    // the gains: STARTUP 2/ln2 for both, DRAIN ln2/2 for pacing
    assert!((b.cfg.high_gain - 2.885).abs() < 1e-3 && (b.pacing_gain - 0.3466).abs() < 1e-4);
}

#[test]
fn startup_paces_and_grows_cwnd_at_2_over_ln2_and_drain_ends_at_one_bdp_in_flight() {
    let mut b = bbr();
    let rtt = ms(50.0);
    round(&mut b, rtt, 1000.0, rtt, 10);
    // startup: pacing 2.885·BtlBw less 1%, cwnd target 2.885·BDP + 3, even
    assert!((b.pacing - 2.0 / std::f64::consts::LN_2 * 1000.0 * 0.99).abs() < 1e-6, "{}", b.pacing);
    assert_eq!(b.target(1000.0, b.cwnd_gain), 148, "⌈144.27⌉ + 3, even");
    // full bandwidth: DRAIN while more than a BDP (50 + 3, even: 54) is in flight
    b.full_bw_reached = true;
    round(&mut b, ms(100.0), 1000.0, rtt, 120);
    assert_eq!(b.mode, Mode::Drain);
    assert!((b.pacing - 1000.0 * std::f64::consts::LN_2 / 2.0 * 0.99).abs() < 1e-6);
    ack(&mut b, ms(101.0), rtt, 55);
    assert_eq!(b.mode, Mode::Drain);
    ack(&mut b, ms(102.0), rtt, 54);
    assert_eq!(b.mode, Mode::ProbeBw);
    assert_ne!(b.cycle_index, 1);
}

#[test]
fn cwnd_is_twice_the_bdp_of_btlbw_and_min_rtt() {
    // BDP = BtlBw·RTprop = 1000 packets/s · 50 ms = 50 packets; cwnd_gain 2, +3 packets' quanta
    let mut b = probing(3);
    assert_eq!(b.bdp(b.btl_bw(), 1.0), 50);
    b.cwnd = 10;
    for k in 1..200 {
        ack(&mut b, ms(k as f64), ms(50.0), 50);
    }
    assert_eq!(b.cwnd, 2 * 50 + 3 + 1, "2·BDP + 3, rounded up to even");
    assert_eq!(b.window(), b.cwnd);
    // a higher BtlBw raises it
    round(&mut b, ms(300.0), 2000.0, ms(50.0), 50);
    for k in 1..200 {
        ack(&mut b, ms(300.0 + k as f64), ms(50.0), 50);
    }
    assert_eq!(b.cwnd, 2 * 100 + 4);
}

#[test]
fn min_rtt_unrefreshed_for_10s_enters_probe_rtt_at_4_packets_for_200ms_and_a_round() {
    let mut b = probing(2);
    let cwnd = b.cwnd;
    // round trips 10 ms above min_rtt: the estimate is never renewed
    let (rtt, mut t) = (ms(60.0), Time::ZERO);
    while b.mode == Mode::ProbeBw {
        t += ms(10.0);
        round(&mut b, t, 1000.0, rtt, 50);
    }
    assert!(t > Time::from_secs(10) && t <= Time::from_secs(10) + ms(10.0), "{t:?}");
    assert_eq!(b.mode, Mode::ProbeRtt);
    assert_eq!(b.cwnd, 4);
    assert_eq!(b.min_rtt, Some(rtt), "an expired estimate takes the next sample");
    // in flight falls to 4 after a while; then 200 ms and a round at cwnd 4
    let start = t;
    let mut drained_at = None;
    while b.mode == Mode::ProbeRtt {
        t += ms(10.0);
        let pipe = if t - start < ms(60.0) { 50 } else { 4 };
        if pipe == 4 && drained_at.is_none() {
            drained_at = Some(t);
        }
        round(&mut b, t, 1000.0, rtt, pipe);
        if b.mode == Mode::ProbeRtt {
            assert_eq!(b.cwnd, 4);
        }
    }
    let held = t - drained_at.unwrap();
    assert!(held > ms(200.0) && held <= ms(210.0), "held {held:?}");
    assert_eq!(b.mode, Mode::ProbeBw, "BtlBw was full: back to PROBE_BW");
    // restored, plus the packet this ACK delivered (the new min_rtt's target is higher)
    assert_eq!(b.cwnd, cwnd + 1);
}

#[test]
fn a_delivery_rate_sample_worked_by_hand() {
    // draft-cheng-iccrg-delivery-rate-estimation §3: packets 0..4 leave at 0, 1, 2, 3 ms from
    // idle; their ACKs return from 100 ms
    let mut r = DeliveryRate::default();
    for seq in 0..4 {
        r.on_send(seq, ms(seq as f64));
    }
    r.on_rtt(ms(100.0));
    // packet 0's ACK at 100 ms: 1 delivered over max(send 0 ms, ack 100 ms) = 10 packets/s
    let d = r.on_cumulative(1, ms(100.0));
    let s = d.sample.unwrap();
    assert_eq!((d.acked, s.delivered, s.interval), (1, 1, ms(100.0)));
    assert_eq!(s.rate(), 10.0);
    // packet 4 leaves at 100 ms: it remembers delivered = 1, delivered at 100 ms, and the send
    // time of the packet whose ACK last gave a sample, 0 ms
    r.on_send(4, ms(100.0));
    for (seq, at) in [(2, 101.0), (3, 102.0), (4, 103.0)] {
        r.on_cumulative(seq, ms(at));
    }
    // packet 4's ACK at 200 ms: 4 delivered since 100 ms; send phase 100 − 0 = 100 ms, ACK
    // phase 200 − 100 = 100 ms: 40 packets/s
    let s = r.on_cumulative(5, ms(200.0)).sample.unwrap();
    assert_eq!((s.delivered, s.interval, s.prior_delivered), (4, ms(100.0), 1));
    assert_eq!(s.rate(), 40.0);
    // packet 2's sample (ACK at 101 ms, sent at 1 ms with delivered 0): interval 101 ms
    let mut r = DeliveryRate::default();
    r.on_rtt(ms(100.0));
    r.on_send(0, Time::ZERO);
    r.on_send(1, ms(1.0));
    r.on_cumulative(1, ms(100.0));
    let s = r.on_cumulative(2, ms(101.0)).sample.unwrap();
    assert_eq!((s.delivered, s.interval), (2, ms(101.0)));
}

#[test]
fn a_compressed_ack_phase_loses_to_the_send_phase_and_a_sample_shorter_than_min_rtt_is_refused() {
    // draft-cheng §3.1: interval = max(send phase, ACK phase)
    let mut r = DeliveryRate::default();
    r.on_rtt(ms(100.0));
    // packets 0 and 1 leave at 0; packet 0's ACK at 100 ms (packet 1 still out: no idle restart)
    r.on_send(0, Time::ZERO);
    r.on_send(1, Time::ZERO);
    r.on_cumulative(1, ms(100.0));
    // packets 2..=11 leave 10 ms apart from 100 ms; the ACKs of 1..=11 come back bunched,
    // 1 ms apart from 200 ms
    for seq in 2..=11 {
        r.on_send(seq, ms(80.0 + 10.0 * seq as f64));
    }
    for seq in 1..11 {
        r.on_cumulative(seq + 1, ms(199.0 + seq as f64));
    }
    let s = r.on_cumulative(12, ms(210.0)).sample.unwrap();
    // packet 11: sent 190 ms after packet 0 (send phase), ACKed 110 ms after packet 0's ACK
    assert_eq!((s.delivered, s.interval), (11, ms(190.0)));
    assert!((s.rate() - 11.0 / 0.190).abs() < 1e-9, "not the ACK train's 11/0.110");
    // from idle, two packets ACKed 50 ms later: an interval under min_rtt is not believed
    r.on_send(11, ms(400.0));
    r.on_send(12, ms(400.0));
    assert_eq!(r.on_cumulative(13, ms(450.0)).sample, None);
}

#[test]
fn duplicate_acks_count_as_deliveries_and_the_cumulative_ack_only_what_they_did_not() {
    let mut r = DeliveryRate::default();
    for seq in 0..6 {
        r.on_send(seq, Time::ZERO);
    }
    // packet 0 lost: 1..6 arrive, five duplicate ACKs (at most outstanding − 1)
    for k in 0..6 {
        let d = r.on_duplicate(ms(10.0 + k as f64));
        assert_eq!(d.acked, if k < 5 { 1 } else { 0 });
        assert!(d.sample.is_none(), "a duplicate ACK names no packet");
    }
    assert_eq!((r.delivered, r.dup_delivered), (5, 5));
    // the retransmission fills the hole: the ACK covers 6 packets, of which 1 is new
    let d = r.on_cumulative(6, ms(50.0));
    assert_eq!((d.acked, r.delivered, r.dup_delivered), (1, 6, 0));
    // after a timeout the duplicates no longer reduce the pipe, but what they reported stays
    // counted: the ACK that jumps over them counts the hole alone
    for seq in 6..12 {
        r.on_send(seq, ms(60.0));
    }
    for k in 0..3 {
        r.on_duplicate(ms(70.0 + k as f64));
    }
    r.on_timeout();
    assert_eq!((r.delivered, r.dup_delivered), (9, 0));
    r.on_send(6, ms(1000.0));
    let d = r.on_cumulative(10, ms(1100.0));
    assert_eq!((d.acked, r.delivered), (1, 10), "packets 7, 8, 9 were counted by their duplicates");
}

fn ack_packet(seq: u64, echo: Time) -> Packet {
    Packet { seq, echo_sent_at: echo, ..Packet::blank() }.with_kind(PacketKind::Ack)
}

#[test]
fn fast_recovery_conserves_packets_for_a_round_then_restores_cwnd() {
    // through the controller's events, as the layer calls them
    let mut b = probing(3);
    let cwnd = b.cwnd;
    let (mut win, mut actions) = (SendWindow::default(), vec![]);
    let mut ctx = AgentCtx::new(ms(1000.0), u64::MAX, &mut actions);
    for _ in 0..100 {
        let seq = win.send_next(ctx.now);
        b.on_packet_sent(seq, &mut ctx);
    }
    // packet 0 lost: three duplicate ACKs, the third starts recovery
    for _ in 0..3 {
        b.on_ack_arrival(&ack_packet(0, ctx.now), &win, &mut ctx);
    }
    assert_eq!(b.window(), cwnd + 3, "duplicate ACKs let as many packets out");
    b.on_congestion(
        Congestion::FastRetransmit { dupacks: 3, recovering: true },
        Load { flight: 100, pipe: 100 },
        &win,
        &mut ctx,
    );
    // in flight: 100 − 3 reported, the lost one not counted: 96, plus the ACK's 1 delivered
    assert_eq!(b.cwnd, 97);
    assert_eq!(b.window(), 100, "no new packet beside the retransmission");
    // each further duplicate ACK lets one new packet out
    b.on_ack_arrival(&ack_packet(0, ctx.now), &win, &mut ctx);
    assert_eq!((b.cwnd, b.window()), (97, 101));
    b.on_recovery_end(&mut ctx);
    assert_eq!(b.cwnd, cwnd.max(97), "restored");
}

#[test]
fn a_timeout_sets_cwnd_to_one_and_restores_it_once_everything_outstanding_is_acknowledged() {
    let mut b = probing(3);
    let cwnd = b.cwnd;
    let (mut win, mut actions) = (SendWindow::default(), vec![]);
    let mut ctx = AgentCtx::new(ms(1000.0), u64::MAX, &mut actions);
    for _ in 0..20 {
        let seq = win.send_next(ctx.now);
        b.on_packet_sent(seq, &mut ctx);
    }
    win.go_back();
    b.on_congestion(Congestion::Timeout, Load { flight: 20, pipe: 20 }, &win, &mut ctx);
    assert_eq!(b.window(), 1);
    let seq = win.send_next(ctx.now);
    b.on_packet_sent(seq, &mut ctx);
    ctx.now = ms(2000.0);
    b.on_ack_arrival(&ack_packet(1, ms(1000.0)), &win, &mut ctx);
    win.on_ack(1);
    assert!(b.cwnd < cwnd, "still recovering: {}", b.cwnd);
    b.on_ack_arrival(&ack_packet(20, ms(1000.0)), &win, &mut ctx);
    assert_eq!(b.cwnd, cwnd);
}

#[test]
fn bad_parameters_are_refused() {
    let rng = || crate::rng::stream(1, "t");
    assert!(Bbr::checked(BbrConfig { cwnd_gain: 0.0, ..Default::default() }, rng()).is_err());
    assert!(Bbr::checked(BbrConfig { full_bw_growth: 1.0, ..Default::default() }, rng()).is_err());
    assert!(Bbr::checked(BbrConfig { min_cwnd: 0, ..Default::default() }, rng()).is_err());
    assert!(Bbr::checked(BbrConfig { pacing_margin: 1.0, ..Default::default() }, rng()).is_err());
}
