use super::*;
use crate::net::PacketKind;
use crate::transport::controllers::aimd::{Aimd, AimdConfig};
use crate::transport::reliability::averaged_timeout::RETRANSMIT;
use crate::transport::reliability::controller::{Congestion, Controller, Load, NewAck};
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::Action;

/// The parameters these tests vary, of the reliability layer and of Jacobson's window.
#[derive(Default)]
struct TcpConfig {
    window: u32,
    initial_cwnd: f64,
    initial_ssthresh: Option<f64>,
}

fn tcp(recovery: Recovery, c: TcpConfig) -> Reliable<Aimd> {
    let reliability = TcpReliability { window: c.window, ..Default::default() };
    let aimd = AimdConfig {
        initial_cwnd: c.initial_cwnd.max(1.0),
        initial_ssthresh: c.initial_ssthresh,
        ..Default::default()
    };
    Reliable::tcp(&reliability, recovery, Aimd::checked(&aimd, c.window).unwrap()).unwrap()
}

/// Drives one sender by hand: actions are collected, ACKs are made up.
struct Harness {
    tcp: Reliable<Aimd>,
    now: Time,
    sent: Vec<u64>,
    timer: Option<Time>,
}

impl Harness {
    fn new(recovery: Recovery, cfg: TcpConfig) -> Harness {
        Harness::started(tcp(recovery, cfg))
    }

    fn started(tcp: Reliable<Aimd>) -> Harness {
        let mut h = Harness { tcp, now: Time::ZERO, sent: vec![], timer: None };
        h.call(|t, c| t.on_start(c));
        h
    }

    fn call(&mut self, f: impl FnOnce(&mut Reliable<Aimd>, &mut AgentCtx)) {
        let mut actions = vec![];
        f(&mut self.tcp, &mut AgentCtx::new(self.now, u64::MAX, &mut actions));
        for a in actions {
            match a {
                Action::Send { seq } | Action::SendWithPriority { seq, .. } => self.sent.push(seq),
                Action::SetTimer(_, at) | Action::SetTimeout(_, at) => self.timer = Some(at),
                Action::CancelTimer(_) => self.timer = None,
                Action::Record(..) | Action::Count(..) | Action::ReducedForEcn | Action::WindowLimited(_) => {}
            }
        }
    }

    /// An ACK (next expected `ack`) for data sent at `echo`, arriving at `at` seconds.
    fn ack(&mut self, ack: u64, at: f64) {
        self.now = Time::from_secs_f64(at);
        let p = Packet { seq: ack, echo_sent_at: Time::ZERO, ..Packet::blank() }.with_kind(PacketKind::Ack);
        self.call(|t, c| t.on_ack(&p, c));
    }

    /// A duplicate or new ACK (next expected `ack`) caused by the arrival of packet `echo_seq`.
    fn ack_caused_by(&mut self, ack: u64, echo_seq: u64, at: f64) {
        self.now = Time::from_secs_f64(at);
        let p = Packet { seq: ack, echo_seq, echo_sent_at: Time::ZERO, ..Packet::blank() }.with_kind(PacketKind::Ack);
        self.call(|t, c| t.on_ack(&p, c));
    }

    fn sent_since(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.sent)
    }
}

fn cfg() -> TcpConfig {
    TcpConfig { window: 1000, initial_cwnd: 1.0, ..Default::default() }
}

#[test]
fn slow_start_doubles_each_round_trip_then_congestion_avoidance_adds_one() {
    let mut h = Harness::new(Recovery::Reno, TcpConfig { initial_ssthresh: Some(16.0), ..cfg() });
    let mut per_round = vec![];
    let mut acked = 0;
    for round in 1..=8 {
        let burst = h.sent_since();
        per_round.push(burst.len());
        for _ in &burst {
            acked += 1;
            h.ack(acked, round as f64);
        }
    }
    // 1, 2, 4, 8, 16 in slow start; then 1/cwnd per ACK, just under one packet per round trip
    // (16 ACKs take cwnd from 16 to 16.97, so round 6 still sends 16)
    assert_eq!(&per_round[..5], &[1, 2, 4, 8, 16]);
    assert_eq!(&per_round[5..], &[16, 17, 18]);
}

#[test]
fn jk_fast_retransmit_resends_the_hole_and_restarts_from_one_packet() {
    let mut h = Harness::new(Recovery::Tahoe, TcpConfig { initial_cwnd: 8.0, ..cfg() });
    assert_eq!(h.sent_since(), (0..8).collect::<Vec<_>>());
    // packet 0 lost: packets 1, 2, 3 each bring a duplicate ACK
    for _ in 0..3 {
        h.ack(0, 1.0);
    }
    assert_eq!(h.sent_since(), vec![0], "only the missing packet goes again");
    assert_eq!(h.tcp.ctrl.cwnd, 1.0);
    assert_eq!(h.tcp.ctrl.ssthresh, 4.0, "half of the 8 in flight");
    // the retransmission fills the hole: everything up to 8 is acknowledged, slow start resumes
    h.ack(8, 2.0);
    assert_eq!(h.sent_since(), vec![8, 9], "cwnd 2 after one ACK in slow start");
}

#[test]
fn reno_recovers_one_loss_without_a_timeout() {
    let mut h = Harness::new(Recovery::Reno, TcpConfig { initial_cwnd: 10.0, initial_ssthresh: Some(10.0), ..cfg() });
    h.sent_since();
    for _ in 0..3 {
        h.ack(0, 1.0);
    }
    assert_eq!(h.sent_since(), vec![0]);
    assert_eq!((h.tcp.ctrl.ssthresh, h.tcp.ctrl.cwnd), (5.0, 8.0), "cwnd = ssthresh + 3");
    // six more duplicate ACKs inflate the window past the 10 in flight: new data goes out
    for _ in 0..6 {
        h.ack(0, 1.0);
    }
    assert_eq!(h.sent_since(), vec![10, 11, 12, 13]);
    h.ack(10, 2.0); // the retransmission arrived: recovery ends
    assert!(!h.tcp.in_recovery);
    assert_eq!(h.tcp.ctrl.cwnd, 5.0, "deflated to ssthresh");
    assert!(h.timer.is_some());
}

#[test]
fn newreno_repairs_two_losses_of_one_window_with_partial_acks() {
    for (recovery, second_hole_resent) in [(Recovery::NewReno, true), (Recovery::Reno, false)] {
        let mut h = Harness::new(recovery, TcpConfig { initial_cwnd: 10.0, initial_ssthresh: Some(10.0), ..cfg() });
        h.sent_since();
        // packets 0 and 5 lost; 1–4 and 6–9 arrive
        for _ in 0..8 {
            h.ack(0, 1.0);
        }
        assert_eq!(h.sent_since()[0], 0);
        h.ack(5, 2.0); // the retransmitted 0 fills the first hole: a partial ACK (5 < 10)
        let resent = h.sent_since().contains(&5);
        assert_eq!(resent, second_hole_resent, "{recovery:?}");
        assert_eq!(h.tcp.in_recovery, recovery == Recovery::NewReno);
    }
}

#[test]
fn newreno_ends_recovery_at_ssthresh_or_at_the_flight_plus_one() {
    // RFC 6582 §3.2 step 3: the full ACK sets cwnd to ssthresh (its second choice, `classic`) or
    // to min(ssthresh, max(FlightSize, 1) + 1) (its first, `linux`), which spares a burst when
    // few packets are outstanding: here none, the flow's window of 10 having held the sender
    for (exit, cwnd) in [(RecoveryExit::Ssthresh, 5.0), (RecoveryExit::Flight, 2.0)] {
        let reliability = TcpReliability { window: 10, recovery_exit: exit, ..Default::default() };
        let aimd = Aimd::checked(&AimdConfig { initial_cwnd: 10.0, ..Default::default() }, 10).unwrap();
        let mut h = Harness {
            tcp: Reliable::tcp(&reliability, Recovery::NewReno, aimd).unwrap(),
            ..Harness::new(Recovery::NewReno, cfg())
        };
        h.sent_since();
        h.call(|t, c| t.on_start(c));
        assert_eq!(h.sent_since().len(), 10);
        for _ in 1..10 {
            h.ack(0, 1.0); // packet 0 lost, 1–9 arrive
        }
        assert_eq!(h.sent_since(), vec![0], "{exit:?}: the window of 10 lets nothing new out");
        h.ack(10, 2.0); // the retransmission: everything acknowledged, nothing outstanding
        assert!(!h.tcp.in_recovery);
        assert_eq!((h.tcp.ctrl.ssthresh, h.tcp.ctrl.cwnd), (5.0, cwnd), "{exit:?}");
    }
}

#[test]
fn newreno_does_not_fast_retransmit_on_duplicates_of_what_was_sent_before_a_timeout() {
    for (recovery, resent) in [(Recovery::NewReno, false), (Recovery::Reno, true)] {
        let mut h = Harness::new(recovery, TcpConfig { initial_cwnd: 10.0, ..cfg() });
        h.sent_since();
        h.now = h.timer.unwrap();
        h.call(|t, c| t.on_timer(RETRANSMIT, c));
        assert_eq!(h.sent_since(), vec![0], "go-back-N from the oldest");
        // packets 1-3 of the first flight arrive late: three duplicate ACKs asking for 0
        for _ in 0..3 {
            h.ack(0, 3.5);
        }
        assert_eq!(h.sent_since().contains(&0), resent, "{recovery:?} (RFC 6582 §3.2 steps 1 and 4)");
    }
}

#[test]
fn duplicates_of_packets_the_receiver_had_start_no_fast_retransmit_when_ignored() {
    // A worked example with Kim & Farber's TCP (fast retransmit on one duplicate ACK). Packets
    // 0-9 go out; 0 and 5 are lost. The duplicate ACK caused by 1 retransmits 0, which is lost
    // again, and the timer expires: go-back-N sends 0 (cwnd 1). It arrives: ACK 5, cwnd 2, so 5
    // and 6 go again. 5 arrives: ACK 10 (the receiver holds 6-9), cwnd 3, so 10-12 go. Then 6
    // arrives a second time: its ACK asks for 10 again. Counted, it retransmits 10, which is not
    // lost but on its way, and halves the window; ignored (6 is below the cumulative ACK), the
    // sender waits for 10's own ACK.
    for (ignore, spurious) in [(false, true), (true, false)] {
        let reliability = TcpReliability {
            window: 1000,
            dupack_threshold: 1,
            ignore_duplicate_deliveries: ignore,
            ..Default::default()
        };
        let aimd = AimdConfig { initial_cwnd: 10.0, ..Default::default() };
        let tcp = Reliable::tcp(&reliability, Recovery::Reno, Aimd::checked(&aimd, 1000).unwrap()).unwrap();
        let mut h = Harness { tcp, now: Time::ZERO, sent: vec![], timer: None };
        h.call(|t, c| t.on_start(c));
        assert_eq!(h.sent_since(), (0..10).collect::<Vec<_>>());
        h.ack_caused_by(0, 1, 0.1); // a hole shown by a packet beyond it: a loss signal either way
        assert_eq!(h.sent_since(), vec![0]);
        h.now = h.timer.unwrap();
        h.call(|t, c| t.on_timer(RETRANSMIT, c));
        assert_eq!(h.sent_since(), vec![0], "go-back-N from the oldest");
        h.ack_caused_by(5, 0, 4.0);
        assert_eq!(h.sent_since(), vec![5, 6]);
        h.ack_caused_by(10, 5, 4.1);
        assert_eq!(h.sent_since(), vec![10, 11, 12]);
        h.ack_caused_by(10, 6, 4.2); // 6 again: the receiver had it
        assert_eq!(h.sent_since() == vec![10], spurious, "ignore = {ignore}");
        assert_eq!(h.tcp.in_recovery, spurious);
    }
}

#[test]
fn timeouts_back_off_exponentially_and_go_back_n() {
    let mut h = Harness::new(Recovery::Reno, TcpConfig { initial_cwnd: 4.0, ..cfg() });
    h.sent_since();
    let first = h.timer.unwrap();
    assert_eq!(first, Time::from_secs(3), "initial RTO");
    h.now = first;
    h.call(|t, c| t.on_timer(RETRANSMIT, c));
    assert_eq!(h.sent_since(), vec![0], "go-back-N from the oldest, cwnd 1");
    assert_eq!(h.timer.unwrap() - h.now, Time::from_secs(6));
    h.now = h.timer.unwrap();
    h.call(|t, c| t.on_timer(RETRANSMIT, c));
    assert_eq!(h.timer.unwrap() - h.now, Time::from_secs(12));
    assert_eq!(h.tcp.ctrl.ssthresh, 2.0);
}

#[test]
fn karn_takes_no_sample_from_a_retransmitted_packet() {
    let mut h = Harness::new(Recovery::Reno, TcpConfig { initial_cwnd: 1.0, ..cfg() });
    h.now = Time::from_secs(3);
    h.call(|t, c| t.on_timer(RETRANSMIT, c)); // packet 0 sent again
    h.ack(1, 3.5);
    assert_eq!(h.tcp.timer.rto.srtt(), None, "ambiguous: no sample");
    h.sent_since();
    h.ack(2, 4.0); // packet 1, sent once at 3.5, acknowledged at 4.0
    assert_eq!(h.tcp.timer.rto.srtt(), Some(0.5));
}

#[test]
fn the_window_caps_the_congestion_window() {
    let mut h = Harness::new(Recovery::Tahoe, TcpConfig { window: 5, initial_cwnd: 50.0, initial_ssthresh: None });
    assert_eq!(h.sent_since().len(), 5);
}

/// A congestion controller is a few lines: the layer does the rest. This one adds a packet per
/// ACK and halves on any loss.
struct Halving {
    w: f64,
}

impl Controller for Halving {
    fn window(&self) -> u64 {
        self.w as u64
    }
    fn on_ack(&mut self, _ack: NewAck, _ctx: &mut AgentCtx) {
        self.w += 1.0;
    }
    fn on_congestion(&mut self, _e: Congestion, _load: Load, _win: &SendWindow, _ctx: &mut AgentCtx) {
        self.w = (self.w / 2.0).max(1.0);
    }
}

#[test]
fn a_new_controller_gets_loss_detection_and_retransmission_from_the_layer() {
    let reliability = TcpReliability { window: 100, ..Default::default() };
    let mut s = Reliable::tcp(&reliability, Recovery::Tahoe, Halving { w: 4.0 }).unwrap();
    let mut actions = vec![];
    let mut at = |s: &mut Reliable<Halving>, secs: u64, f: &dyn Fn(&mut Reliable<Halving>, &mut AgentCtx)| {
        actions.clear();
        f(s, &mut AgentCtx::new(Time::from_secs(secs), u64::MAX, &mut actions));
        actions.iter().filter_map(|a| if let Action::Send { seq } = a { Some(*seq) } else { None }).collect::<Vec<_>>()
    };
    let ack = |seq| Packet { seq, ..Packet::blank() }.with_kind(PacketKind::Ack);
    assert_eq!(at(&mut s, 0, &|s, c| s.on_start(c)), vec![0, 1, 2, 3]);
    assert_eq!(at(&mut s, 1, &|s, c| s.on_ack(&ack(1), c)), vec![4, 5], "window 5 from packet 1");
    // packet 1 is lost: three duplicate ACKs retransmit it and halve the window
    assert!(at(&mut s, 2, &|s, c| s.on_ack(&ack(1), c)).is_empty());
    assert!(at(&mut s, 2, &|s, c| s.on_ack(&ack(1), c)).is_empty());
    assert_eq!(at(&mut s, 2, &|s, c| s.on_ack(&ack(1), c)), vec![1]);
    assert_eq!(s.ctrl.w, 2.5);
    // and the layer's timer goes back to the oldest packet when nothing comes back
    assert_eq!(at(&mut s, 9, &|s, c| s.on_timer(RETRANSMIT, c)), vec![1]);
    assert_eq!(s.ctrl.w, 1.25);
}

#[test]
fn timestamps_sample_a_retransmitted_packet_from_its_echoed_send_time() {
    // RFC 7323 §4: the echo names the transmission, so the retransmission's round trip is sure
    let reliability = TcpReliability { window: 1000, rtt_samples: RttSamples::Timestamps, ..Default::default() };
    let aimd = Aimd::checked(&AimdConfig::default(), 1000).unwrap();
    let mut h = Harness {
        tcp: Reliable::tcp(&reliability, Recovery::Reno, aimd).unwrap(),
        now: Time::ZERO,
        sent: vec![],
        timer: None,
    };
    h.call(|t, c| t.on_start(c));
    h.now = Time::from_secs(3);
    h.call(|t, c| t.on_timer(RETRANSMIT, c)); // packet 0 sent again at 3 s
    h.now = Time::from_millis(3400);
    let ack = Packet { seq: 1, echo_sent_at: Time::from_secs(3), ..Packet::blank() }.with_kind(PacketKind::Ack);
    h.call(|t, c| t.on_ack(&ack, c));
    assert_eq!(h.tcp.timer.rto.srtt(), Some(0.4), "sampled, where Karn's rule takes nothing");
}

#[test]
fn an_ecn_echo_halves_the_window_once_per_window_without_resending_and_asks_for_cwr() {
    // RFC 3168 §6.1.2
    let reliability = TcpReliability { window: 1000, ecn: true, ..Default::default() };
    let aimd = Aimd::checked(&AimdConfig { initial_cwnd: 10.0, ..Default::default() }, 1000).unwrap();
    let mut h = Harness {
        tcp: Reliable::tcp(&reliability, Recovery::NewReno, aimd).unwrap(),
        ..Harness::new(Recovery::NewReno, cfg())
    };
    h.sent_since();
    h.call(|t, c| t.on_start(c));
    assert_eq!(h.sent_since().len(), 10);
    let echo = |h: &mut Harness, ack: u64| {
        let p = Packet { seq: ack, ..Packet::blank() }.with_kind(PacketKind::Ack).with_congestion(true);
        let mut actions = vec![];
        h.tcp.on_ack(&p, &mut AgentCtx::new(h.now, u64::MAX, &mut actions));
        actions
    };
    let first = echo(&mut h, 1);
    assert!(first.contains(&Action::ReducedForEcn), "the next new packet carries CWR");
    assert_eq!(h.tcp.ctrl.ssthresh, 4.5, "half of the 9 still in flight after this ACK");
    assert!(!first.iter().any(|a| matches!(a, Action::Send { seq } if *seq < 10)), "nothing is resent");
    // more echoes for the same window of data: no further reduction
    for ack in 2..=10 {
        assert!(!echo(&mut h, ack).contains(&Action::ReducedForEcn), "ACK {ack}");
    }
    assert_eq!(h.tcp.ctrl.ssthresh, 4.5);
    // once the data sent after the reduction is acknowledged, an echo reduces again
    let next = h.tcp.win.nxt();
    assert!(echo(&mut h, next).contains(&Action::ReducedForEcn));
}

#[test]
fn after_max_backoffs_expiries_in_a_row_the_sender_gives_up_as_4_3bsd_drops_a_connection() {
    let reliability = TcpReliability { max_backoffs: 2, ..Default::default() };
    let aimd = Aimd::checked(&AimdConfig::default(), 64).unwrap();
    let mut h = Harness::started(Reliable::tcp(&reliability, Recovery::Reno, aimd).unwrap());
    h.sent_since();
    let mut counted = vec![];
    for expiry in 1..=3 {
        h.now = h.timer.unwrap();
        let mut actions = vec![];
        h.tcp.on_timer(RETRANSMIT, &mut AgentCtx::new(h.now, u64::MAX, &mut actions));
        let sent = actions.iter().filter(|a| matches!(a, Action::Send { .. })).count();
        counted.extend(actions.iter().filter_map(|a| match a {
            Action::Count(e) => Some(*e),
            _ => None,
        }));
        if expiry <= 2 {
            assert_eq!(sent, 1, "expiry {expiry}: the oldest packet again");
            let rearmed = actions.iter().find_map(|a| match a {
                Action::SetTimeout(_, at) => Some(*at),
                _ => None,
            });
            h.timer = rearmed;
        } else {
            assert_eq!(sent, 0, "the third expiry in a row gives up");
            assert!(!actions.iter().any(|a| matches!(a, Action::SetTimeout(..))), "and arms nothing");
        }
    }
    assert_eq!(counted.iter().filter(|e| **e == Event::Abandoned).count(), 1);
    h.ack(1, 100.0);
    h.call(|t, c| t.on_data(c));
    for timer in [RETRANSMIT, PACE, RACK_TIMER] {
        h.call(|t, c| t.on_timer(timer, c)); // none of its timers sends again
    }
    assert!(h.sent_since().is_empty(), "an abandoned sender answers nothing");
}

#[test]
fn a_new_ack_starts_the_count_of_expiries_again() {
    let reliability = TcpReliability { max_backoffs: 1, ..Default::default() };
    let aimd = Aimd::checked(&AimdConfig::default(), 64).unwrap();
    let mut h = Harness::started(Reliable::tcp(&reliability, Recovery::Reno, aimd).unwrap());
    h.now = h.timer.unwrap();
    h.call(|t, c| t.on_timer(RETRANSMIT, c)); // the first expiry: packet 0 again
    h.ack(1, h.now.as_secs_f64() + 0.5);
    h.sent_since();
    h.now = h.timer.unwrap();
    h.call(|t, c| t.on_timer(RETRANSMIT, c)); // the first expiry since that ACK
    assert_eq!(h.sent_since(), vec![1], "not given up: the ACK began a new count");
}
