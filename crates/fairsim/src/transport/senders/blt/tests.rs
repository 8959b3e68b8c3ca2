use super::*;
use crate::net::PacketKind;
use crate::transport::sender::Action;

fn flow() -> FlowInfo {
    FlowInfo {
        window: None,
        packet_size: 500,
        seed: 1,
        name: "f".into(),
        unending: false,
        access_rate: Rate(4_000_000),
        links: 2,
        base_rtt: crate::units::Time::ZERO,
    }
}

/// A sender of a 20-packet file at 4 Mb/s (a packet per millisecond), driven by hand.
struct Harness {
    s: Blt,
    now: Time,
    sent: Vec<(u64, u8)>,
    pace: Option<Time>,
}

impl Harness {
    fn new(priorities: bool) -> Harness {
        let cfg = BltConfig::default(); // paced at the access line, 4 Mb/s
        let mut h =
            Harness { s: Blt::new(&cfg, &flow(), priorities).unwrap(), now: Time::ZERO, sent: vec![], pace: None };
        h.call(|s, c| s.on_start(c));
        h
    }

    fn call(&mut self, f: impl FnOnce(&mut Blt, &mut AgentCtx)) {
        let mut actions = vec![];
        f(&mut self.s, &mut AgentCtx::new(self.now, 20, &mut actions));
        for a in actions {
            match a {
                Action::SendWithPriority { seq, priority } => self.sent.push((seq, priority)),
                Action::SetTimer(PACE, at) => self.pace = Some(at),
                Action::CancelTimer(PACE) => self.pace = None,
                _ => {}
            }
        }
    }

    /// Lets the pacing timer run until `n` more packets have gone (or the burst ends).
    fn pace(&mut self, n: usize) {
        for _ in 0..n {
            let Some(at) = self.pace.take() else { return };
            self.now = at;
            self.call(|s, c| s.on_timer(PACE, c));
        }
    }

    fn ack(&mut self, cumulative: u64, caused_by: u64, sent_at: Time) {
        let ack = Packet { seq: cumulative, echo_seq: caused_by, echo_sent_at: sent_at, ..Packet::blank() }
            .with_kind(PacketKind::Ack);
        self.call(|s, c| s.on_ack(&ack, c));
    }
}

#[test]
fn the_packet_at_offset_j_has_priority_floor_log2_of_j_plus_1() {
    assert_eq!((0..16).map(opportunism).collect::<Vec<_>>(), [0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 4]);
    assert_eq!(opportunism(199), 7, "a 100 KB file of 500-byte packets spans priorities 0..7");
    assert_eq!(opportunism(1999), 10);
    let mut h = Harness::new(true);
    h.pace(30);
    let priorities: Vec<u8> = h.sent.iter().map(|&(_, p)| p).collect();
    assert_eq!(h.sent.len(), 20, "the whole file in one burst, then nothing");
    assert_eq!(priorities, (0..20).map(opportunism).collect::<Vec<_>>());
}

#[test]
fn the_burst_is_paced_at_the_access_line() {
    let mut h = Harness::new(true);
    h.pace(3);
    assert_eq!(h.now, Time::from_millis(3), "500 bytes at 4 Mb/s: a packet each millisecond");
}

#[test]
fn a_loss_restarts_the_burst_at_the_lost_packet_with_priority_0() {
    let mut h = Harness::new(true);
    h.pace(9); // packets 0..=9 sent
    h.ack(3, 2, Time::from_millis(2)); // 0, 1, 2 arrived
    h.ack(3, 4, Time::from_millis(4)); // 3 lost: 4 arrived, a duplicate ACK
    let restart: Vec<(u64, u8)> = h.sent[10..].to_vec();
    assert_eq!(restart, vec![(3, 0)], "the lost packet first, at priority 0");
    h.pace(3);
    assert_eq!(&h.sent[10..], &[(3, 0), (4, 1), (5, 1), (6, 2)], "then go-back-N with priorities from 0");
}

#[test]
fn duplicates_of_packets_sent_before_the_restart_do_not_restart_again() {
    let mut h = Harness::new(true);
    h.pace(9);
    h.ack(3, 2, Time::from_millis(2));
    h.ack(3, 4, Time::from_millis(4)); // the hole at 3: restart
    let after_restart = h.sent.len();
    assert_eq!(h.sent.last(), Some(&(3, 0)));
    h.ack(3, 5, Time::from_millis(5)); // 5 was sent before the restart
    h.ack(3, 2, Time::from_millis(8)); // a duplicate delivery of 2, at or below the ACK
    assert_eq!(h.sent.len(), after_restart, "no second restart");
}

#[test]
fn bully_tyrant_sends_the_same_packets_with_every_priority_0() {
    let (mut blt, mut bt) = (Harness::new(true), Harness::new(false));
    for h in [&mut blt, &mut bt] {
        h.pace(9);
        h.ack(3, 2, Time::from_millis(2));
        h.ack(3, 4, Time::from_millis(4));
        h.pace(30);
    }
    let seqs = |h: &Harness| h.sent.iter().map(|&(s, _)| s).collect::<Vec<_>>();
    assert_eq!(seqs(&blt), seqs(&bt));
    assert!(bt.sent.iter().all(|&(_, p)| p == 0));
    assert!(blt.sent.iter().any(|&(_, p)| p > 0));
}

#[test]
fn a_timeout_restarts_at_the_first_unacknowledged_packet() {
    let mut h = Harness::new(true);
    h.pace(30);
    h.ack(12, 11, Time::from_millis(11));
    h.now = Time::from_secs(5);
    h.call(|s, c| s.on_timer(RETRANSMIT, c));
    assert_eq!(h.sent.last(), Some(&(12, 0)));
}

#[test]
fn the_clock_granularity_floors_the_variance_term_of_the_timeout() {
    // a worked example of RFC 6298 §2.3: one 30 ms sample gives srtt 30 ms and rttvar 15 ms, so
    // RTO = 30 + max(G, 60) ms: 90 ms with a perfect clock, 130 ms with G = 100 ms
    for (g, rto_ms) in [(0, 90), (100, 130)] {
        let cfg = BltConfig {
            min_rto: Time::from_millis(1),
            clock_granularity: Time::from_millis(g),
            ..BltConfig::default()
        };
        let mut s = Blt::new(&cfg, &flow(), true).unwrap();
        let mut actions = vec![];
        s.on_start(&mut AgentCtx::new(Time::ZERO, 20, &mut actions));
        let now = Time::from_millis(30);
        let ack =
            Packet { seq: 1, echo_seq: 0, echo_sent_at: Time::ZERO, ..Packet::blank() }.with_kind(PacketKind::Ack);
        let mut actions = vec![];
        s.on_ack(&ack, &mut AgentCtx::new(now, 20, &mut actions));
        let timeout = actions.iter().find_map(|a| match a {
            Action::SetTimeout(RETRANSMIT, at) => Some(*at),
            _ => None,
        });
        assert_eq!(timeout, Some(now + Time::from_millis(rto_ms)), "G = {g} ms");
    }
}
