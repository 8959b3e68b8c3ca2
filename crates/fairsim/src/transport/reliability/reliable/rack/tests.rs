//! RACK-TLP in the layer, over a timed loop: a sender whose line sends a packet a millisecond
//! and a SACK sink 10 ms away, packets arriving in the order they left unless one is held back
//! or lost. The first test is RFC 8985's own example (§3.4, Figure 1).

use crate::net::{Packet, PacketKind};
use crate::transport::controllers::aimd::{Aimd, AimdConfig, SsthreshFrom};
use crate::transport::reliability::reliable::{Recovery, Reliable, RttSamples, TcpReliability};
use crate::transport::reliability::sack::SackBlocks;
use crate::transport::reliability::sink::{AckNow, AckPolicy, Echo, Receiver};
use crate::transport::sender::{Action, AgentCtx, Event, Sender, TimerId};
use crate::units::Time;
use std::collections::{BTreeMap, HashMap};

const ONE_WAY: Time = Time::from_millis(10);
const PACKET_TIME: Time = Time::from_millis(1);

#[derive(Clone, Debug)]
enum Ev {
    Data { seq: u64, sent: Time },
    Ack { cumulative: u64, echo: Echo, blocks: SackBlocks },
    Timer(u8),
}

struct Net {
    tcp: Reliable<Aimd>,
    sink: Receiver,
    now: Time,
    events: BTreeMap<(Time, u64), Ev>,
    order: u64,
    timers: [Option<Time>; 4],
    /// Copies to lose: (packet, which transmission of it, from 1).
    lose: Vec<(u64, u32)>,
    /// Extra delay of a copy.
    late: HashMap<(u64, u32), Time>,
    copies: HashMap<u64, u32>,
    /// When the sender's line is free.
    line_free: Time,
    app_limit: u64,
    sent: Vec<u64>,
    counts: HashMap<&'static str, u32>,
}

impl Net {
    fn new(cfg: TcpReliability, cwnd: f64, app_limit: u64) -> Net {
        let aimd = AimdConfig {
            initial_cwnd: cwnd,
            initial_ssthresh: Some(cwnd),
            ssthresh_from: SsthreshFrom::Cwnd,
            ..Default::default()
        };
        let tcp = Reliable::tcp(&cfg, Recovery::NewReno, Aimd::checked(&aimd, 1000).unwrap()).unwrap();
        let sink = Receiver::new(AckPolicy { sack: true, dsack: cfg.dsack, ..Default::default() });
        Net {
            tcp,
            sink,
            now: Time::ZERO,
            events: BTreeMap::new(),
            order: 0,
            timers: [None; 4],
            lose: vec![],
            late: HashMap::new(),
            copies: HashMap::new(),
            line_free: Time::ZERO,
            app_limit,
            sent: vec![],
            counts: HashMap::new(),
        }
    }

    fn rack() -> TcpReliability {
        TcpReliability { window: 1000, sack: true, rack: true, tlp: true, dsack: true, ..Default::default() }
    }

    fn at(&mut self, t: Time, ev: Ev) {
        self.order += 1;
        self.events.insert((t, self.order), ev);
    }

    fn call(&mut self, sack: &[(u64, u64)], f: impl FnOnce(&mut Reliable<Aimd>, &mut AgentCtx)) {
        let mut actions = vec![];
        let mut ctx = AgentCtx::new(self.now, self.app_limit, &mut actions);
        ctx.sack = sack;
        f(&mut self.tcp, &mut ctx);
        for a in actions {
            match a {
                Action::Send { seq } => self.send(seq),
                Action::SetTimeout(TimerId(id), at) | Action::SetTimer(TimerId(id), at) => {
                    self.timers[id as usize] = Some(at);
                    self.at(at, Ev::Timer(id));
                }
                Action::CancelTimer(TimerId(id)) => self.timers[id as usize] = None,
                Action::Count(e) => {
                    let name = match e {
                        Event::Timeout => "timeouts",
                        Event::FastRetransmit => "recoveries",
                        Event::SpuriousRetransmit => "spurious",
                        Event::LossProbe => "probes",
                        Event::Abandoned => "abandoned",
                    };
                    *self.counts.entry(name).or_default() += 1;
                }
                _ => {}
            }
        }
    }

    fn send(&mut self, seq: u64) {
        self.sent.push(seq);
        let copy = {
            let c = self.copies.entry(seq).or_default();
            *c += 1;
            *c
        };
        self.line_free = self.line_free.max(self.now) + PACKET_TIME;
        if self.lose.contains(&(seq, copy)) {
            return;
        }
        let extra = self.late.get(&(seq, copy)).copied().unwrap_or(Time::ZERO);
        let sent = self.now;
        self.at(self.line_free + ONE_WAY + extra, Ev::Data { seq, sent });
    }

    fn count(&self, name: &str) -> u32 {
        self.counts.get(name).copied().unwrap_or(0)
    }

    /// Runs until nothing is left to happen (or a minute passes).
    fn run(&mut self) {
        self.call(&[], |t, c| t.on_start(c));
        while let Some(((t, _), ev)) = self.events.pop_first() {
            if t > Time::from_secs(60) {
                break;
            }
            self.now = t;
            match ev {
                Ev::Data { seq, sent } => {
                    let echo = Echo { sent_at: sent, arrived: t, seq, congestion: false, cumulative: 0 };
                    let (_, AckNow::Send(echo)) = self.sink.take(seq, echo, false, t) else {
                        panic!("ACKs are immediate")
                    };
                    let blocks = self.sink.take_sack_blocks();
                    self.at(t + ONE_WAY, Ev::Ack { cumulative: echo.cumulative, echo, blocks });
                }
                Ev::Ack { cumulative, echo, blocks } => {
                    let ack =
                        Packet { seq: cumulative, echo_sent_at: echo.sent_at, echo_seq: echo.seq, ..Packet::blank() }
                            .with_kind(PacketKind::Ack);
                    self.call(blocks.as_slice(), |s, c| s.on_ack(&ack, c));
                }
                Ev::Timer(id) if self.timers[id as usize] == Some(t) => {
                    self.timers[id as usize] = None;
                    self.call(&[], |s, c| s.on_timer(TimerId(id), c));
                }
                Ev::Timer(_) => {}
            }
        }
    }
}

#[test]
fn rfc_8985_figure_1_a_probe_then_rack_repairs_three_losses_and_a_lost_retransmission() {
    // §3.4: P0..P3 sent, P1..P3 dropped; the probe resends P3, whose SACK lets RACK mark P1 and
    // P2 lost; P1's retransmission is dropped too, and the SACK of P2's retransmission marks it
    // lost; no timeout
    let mut n = Net::new(Net::rack(), 10.0, 4);
    n.lose = vec![(1, 1), (2, 1), (3, 1), (1, 2)];
    n.run();
    assert_eq!(n.sent, vec![0, 1, 2, 3, 3, 1, 2, 1]);
    assert_eq!(n.sink.ack(), 4, "everything arrived");
    assert_eq!((n.count("probes"), n.count("recoveries"), n.count("timeouts")), (1, 1, 0));
}

#[test]
fn the_probe_goes_two_round_trips_after_the_last_ack() {
    let mut n = Net::new(Net::rack(), 10.0, 4);
    n.lose = vec![(3, 1)];
    n.run();
    // P0..P2's ACKs arrive at 20 ms (srtt 20 ms): the tail P3 is probed at 20 + 2·20 ms
    assert_eq!(n.sent, vec![0, 1, 2, 3, 3]);
    assert_eq!((n.count("probes"), n.count("timeouts"), n.count("spurious")), (1, 0, 0));
    assert_eq!(n.sink.ack(), 4);
}

#[test]
fn a_lost_probe_leaves_the_tail_to_the_retransmission_timer() {
    let mut n = Net::new(Net::rack(), 10.0, 4);
    n.lose = vec![(3, 1), (3, 2)];
    n.run();
    assert_eq!((n.count("probes"), n.count("timeouts")), (1, 1));
    assert_eq!(n.sink.ack(), 4);
}

const MS: u64 = 1_000_000;

/// 40 packets from a window of 10 (slow start), packet 5 arriving `early` late (so reordering
/// is seen), then packet 25 `late` late; returns what was sent again and how many
/// retransmissions the receiver already had.
fn reordered(cfg: TcpReliability, early: Time, late: Time) -> (Vec<u64>, u32) {
    reordered_at(cfg, early, 25, late)
}

fn reordered_at(cfg: TcpReliability, early: Time, which: u64, late: Time) -> (Vec<u64>, u32) {
    let mut n = Net::new(cfg, 10.0, 40);
    n.late.insert((5, 1), early);
    n.late.insert((which, 1), late);
    n.run();
    assert_eq!(n.sink.ack(), 40);
    assert_eq!(n.count("timeouts"), 0);
    let mut seen = std::collections::HashSet::new();
    let again = n.sent.iter().copied().filter(|&s| !seen.insert(s)).collect();
    (again, n.count("spurious"))
}

#[test]
fn rack_waits_a_quarter_of_the_minimum_round_trip_for_a_late_packet_once_reordering_was_seen() {
    // packet 5 arrives after 6 (reordering seen); the minimum round trip is 21 ms, so packet
    // 25 arriving 4 ms late is within min_RTT/4
    let (resent, spurious) = reordered(Net::rack(), Time(MS + MS / 2), Time(4 * MS));
    assert_eq!((resent, spurious), (vec![], 0), "nothing sent again");
    // three duplicates declare it lost at once, and its retransmission is reported a duplicate
    let dupthresh = TcpReliability { rack: false, tlp: false, ..Net::rack() };
    let (resent, spurious) = reordered(dupthresh, Time(MS + MS / 2), Time(4 * MS));
    assert_eq!((resent, spurious), (vec![25, 39], 2), "a spurious fast retransmit (and RFC 6675's rescue)");
    // later than the window: RACK deems it lost too
    let (resent, _) = reordered(Net::rack(), Time(MS + MS / 2), Time(9 * MS));
    assert_eq!(resent, vec![25]);
}

#[test]
fn the_adaptive_duplicate_threshold_rises_with_a_spurious_retransmission_and_spares_the_next() {
    // packet 5 arrives after 6..9: a fast retransmit, which D-SACK shows was spurious; with the
    // adaptive threshold, packet 20 arriving 8 ms late is then tolerated
    let fixed = TcpReliability { rack: false, tlp: false, ..Net::rack() };
    let (first, then) = (Time(4 * MS + MS / 2), Time(8 * MS));
    assert_eq!(reordered_at(fixed.clone(), first, 20, then), (vec![5, 20], 2));
    let adaptive = TcpReliability { adaptive_reordering: true, ..fixed };
    assert_eq!(reordered_at(adaptive, first, 20, then), (vec![5], 1));
}

#[test]
fn a_recovery_whose_retransmission_proved_spurious_is_undone() {
    // the 3-duplicate rule resends packet 20 when it is 8 ms late; the original fills the hole
    // (its ACK echoes a send before the retransmission) and the retransmission is D-SACKed
    let run = |undo: bool| {
        let cfg = TcpReliability { rack: false, tlp: false, undo, rtt_samples: RttSamples::Timestamps, ..Net::rack() };
        let mut n = Net::new(cfg, 10.0, 40);
        n.late.insert((20, 1), Time(8 * MS));
        n.run();
        assert_eq!((n.count("recoveries"), n.count("spurious")), (1, 1));
        (n.tcp.ctrl.cwnd, n.tcp.ctrl.ssthresh)
    };
    let (kept, undone) = (run(false), run(true));
    assert!(undone.0 > kept.0 && undone.1 > kept.1, "undone {undone:?}, kept {kept:?}");
}
