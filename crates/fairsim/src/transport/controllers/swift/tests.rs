use super::*;
use crate::net::PacketKind;
use crate::transport::reliability::pacer::PACE;
use crate::transport::sender::{Action, Sender};

const US: f64 = 1e-6;

fn swift_with(cfg: SwiftConfig, links: u32) -> Swift {
    Swift::checked(&cfg, links, || crate::rng::stream(1, "swift:test")).unwrap()
}

fn swift() -> Swift {
    swift_with(SwiftConfig::default(), 4)
}

fn at(us: u64) -> Time {
    Time::from_micros(us)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-9)
}

#[test]
fn the_fabric_target_grows_by_h_per_hop_switches_or_links() {
    let (cfg, h) = (SwiftConfig::default(), 3_053e-9);
    let target = |hops: Hops, links: u32| swift_with(SwiftConfig { hops, ..cfg.clone() }, links).fabric_target();
    // a fat tree's inter-pod path: 6 links, 5 switches
    assert!(close(target(Hops::Switches, 6) - target(Hops::Switches, 2), 4.0 * h));
    assert!(close(target(Hops::Links, 6) - target(Hops::Switches, 6), h), "links count one more");
    // at the initial window (15 packets) every part is there: base + hops·h + fs(15)
    let s = swift_with(cfg.clone(), 6);
    let fs = s.scaling.alpha / 15f64.sqrt() + s.scaling.beta;
    assert!(close(s.fabric_target(), 20.0 * US + 5.0 * h + fs));
}

#[test]
fn flow_scaling_is_alpha_over_root_cwnd_plus_beta_clamped_to_the_range() {
    let s = swift().scaling;
    // htsim's constants: α = 100 µs/(1/√0.1 − 1/√100) = 32.66 µs, β = −α/10
    assert!(close(s.alpha, 100.0 * US / (1.0 / 0.1f64.sqrt() - 0.1)));
    assert!((s.alpha / US - 32.66).abs() < 0.01);
    assert!(close(s.beta, -s.alpha / 10.0));
    // all of the range at fs_min_cwnd, nothing at fs_max_cwnd, clamped beyond
    assert!(close(s.at(0.1), 100.0 * US));
    assert!(s.at(100.0).abs() < 1e-18);
    assert_eq!((s.at(0.01), s.at(1000.0)), (1e-4, 0.0));
    // in between, exactly the formula; and the target grows as the window shrinks (more flows)
    for w in [0.2, 0.5, 1.0, 4.0, 15.0, 50.0] {
        assert!(close(s.at(w), s.alpha / w.sqrt() + s.beta), "{w}");
    }
    let falling: Vec<f64> = [50.0, 15.0, 4.0, 1.0, 0.5, 0.2].iter().map(|&w| s.at(w)).collect();
    assert!(falling.windows(2).all(|p| p[1] > p[0]), "{falling:?}");
}

#[test]
fn fs_integer_reads_the_whole_packets_of_the_window_as_htsim() {
    let s = swift_with(SwiftConfig { fs_integer: true, ..Default::default() }, 2).scaling;
    let exact = swift().scaling;
    assert_eq!(s.at(3.9), exact.at(3.0));
    assert_eq!(s.at(0.5), 1e-4, "below one packet: √0, the top of the clamp");
    assert!(exact.at(0.5) < 1e-4);
}

#[test]
fn below_target_the_window_grows_by_ai_per_window_of_acks() {
    let mut s = swift();
    s.fabric.cwnd = 10.0;
    let e = s.endpoint.as_mut().unwrap();
    e.cwnd = 1000.0;
    s.on_measure(at(100), 5.0 * US, 0.0, 1);
    assert!(close(s.fabric.cwnd, 10.1), "ai/cwnd per packet acknowledged");
    // a window's worth of ACKs: about one packet more per round trip
    for k in 0..10 {
        s.on_measure(at(101 + k), 5.0 * US, 0.0, 1);
    }
    let gain = s.fabric.cwnd - 10.1;
    assert!(gain > 10.0 / 11.1 && gain < 10.0 / 10.1, "{}", s.fabric.cwnd);
    // an ACK of several packets counts each; below one packet the increase is ai per packet
    let before = s.fabric.cwnd;
    s.on_measure(at(200), 5.0 * US, 0.0, 3);
    assert!(close(s.fabric.cwnd, before + 3.0 / before));
    s.fabric.cwnd = 0.25;
    s.on_measure(at(300), 5.0 * US, 0.0, 1);
    assert!(close(s.fabric.cwnd, 1.25));
    // a duplicate ACK (nothing new acknowledged) grows nothing
    s.on_measure(at(301), 5.0 * US, 0.0, 0);
    assert!(close(s.fabric.cwnd, 1.25));
}

#[test]
fn above_target_the_window_falls_once_per_rtt_by_beta_bounded_by_max_mdf() {
    let mut s = swift_with(SwiftConfig { delay: DelayModel::Rtt, ..Default::default() }, 2);
    s.fabric.cwnd = 40.0;
    s.srtt = Some(30.0 * US);
    let target = s.fabric_target();
    let delay = target + 10.0 * US;
    s.on_measure(at(1000), delay, 0.0, 1);
    let want = 40.0 * (1.0 - 0.8 * (delay - target) / delay);
    assert!(close(s.fabric.cwnd, want), "{} vs {want}", s.fabric.cwnd);
    // within a round trip of it no second decrease (srtt is about 30 µs now)
    s.on_measure(at(1010), delay, 0.0, 1);
    assert!(close(s.fabric.cwnd, want));
    // after one, the next: a delay far above the target takes at most max_mdf
    let srtt = s.srtt.unwrap();
    let later = at(1000) + Time::from_secs_f64(srtt) + Time(1);
    s.on_measure(later, 10.0 * target, 0.0, 1);
    assert!(close(s.fabric.cwnd, want * 0.5), "{}", s.fabric.cwnd);
    // and never below min_cwnd
    s.fabric.cwnd = 0.0015;
    s.on_measure(later + at(1000), 10.0 * target, 0.0, 1);
    assert_eq!(s.fabric.cwnd, 0.001, "the paper's minimum");
}

#[test]
fn the_endpoint_window_follows_the_hold_and_host_delay_and_the_fabric_the_rest() {
    // the sink held the packet 50 µs (above the 20 µs endpoint target); the network took 5 µs
    let mut s = swift();
    s.on_measure(at(100), 55.0 * US, 50.0 * US, 1);
    let (f, e) = (s.fabric.cwnd, s.endpoint.unwrap().cwnd);
    assert!(close(f, 15.0 + 1.0 / 15.0), "fabric delay 5 µs is below its target: it grows");
    assert!(close(e, 15.0 * (1.0 - 0.8 * 30.0 / 50.0)), "endpoint delay 50 µs: it falls");
    assert_eq!(s.cwnd(), e, "cwnd is the smaller");
    // with one delay (htsim) the whole round trip is against the fabric target
    let mut one = swift_with(SwiftConfig { delay: DelayModel::Rtt, ..Default::default() }, 4);
    let target = one.fabric_target();
    one.on_measure(at(100), 55.0 * US, 50.0 * US, 1);
    assert!(one.endpoint.is_none());
    assert!(close(one.cwnd(), 15.0 * (1.0 - 0.8 * (55.0 * US - target) / (55.0 * US))));
    // a modelled host delay shows in the endpoint delay only
    let mut h = swift_with(SwiftConfig { host_delay: at(40), ..Default::default() }, 4);
    h.on_measure(at(100), 5.0 * US, 0.0, 1);
    assert!(h.fabric.cwnd > 15.0 && h.endpoint.unwrap().cwnd < 15.0);
    // drawn: within [host_delay, host_delay + jitter)
    let mut d = swift_with(SwiftConfig { host_delay: at(10), host_delay_jitter: at(5), ..Default::default() }, 4);
    let draws: Vec<f64> = (0..1000).map(|_| d.draw_host_delay()).collect();
    assert!(draws.iter().all(|&x| (10.0 * US..15.0 * US).contains(&x)));
    let mean = draws.iter().sum::<f64>() / 1000.0;
    assert!((mean - 12.5 * US).abs() < 0.2 * US, "{mean}");
}

#[test]
fn losses_take_max_mdf_and_repeated_timeouts_reset_to_min_cwnd() {
    let mut s = swift();
    let mut actions = vec![];
    let mut ctx = AgentCtx::new(at(10), u64::MAX, &mut actions);
    let win = SendWindow::default();
    let fr = Congestion::FastRetransmit { dupacks: 3, recovering: true };
    s.on_congestion(fr, Load::default(), &win, &mut ctx);
    assert_eq!((s.fabric.cwnd, s.endpoint.unwrap().cwnd), (7.5, 7.5), "both windows halve");
    s.srtt = Some(1e-3);
    for n in 1..5 {
        s.on_congestion(Congestion::Timeout, Load::default(), &win, &mut ctx);
        assert_eq!(s.retransmit_cnt, n);
        assert_eq!(s.cwnd(), 7.5, "no second decrease within the round trip");
    }
    s.on_congestion(Congestion::Timeout, Load::default(), &win, &mut ctx);
    assert_eq!(s.cwnd(), 0.001, "the fifth timeout in a row: min_cwnd");
    // an ACK starts the count again
    s.on_measure(at(20), 1.0 * US, 0.0, 1);
    assert_eq!(s.retransmit_cnt, 0);
}

#[test]
fn below_one_packet_it_sends_one_packet_per_srtt_over_cwnd() {
    let mut s = swift();
    s.fabric.cwnd = 0.25;
    assert_eq!(s.window(), 1, "no round trip known yet: one packet, unpaced");
    assert_eq!(s.pacing_rate(), None);
    s.srtt = Some(10.0 * US);
    assert!(close(s.pacing_rate().unwrap(), 0.25 / (10.0 * US)), "one packet per 40 µs");
    assert_eq!(s.window(), u64::MAX, "the rate alone limits");
    s.fabric.cwnd = 2.7;
    assert_eq!((s.window(), s.pacing_rate()), (2, None), "⌊cwnd⌋, unpaced");

    // through the reliability layer: after a send, the next waits 40 µs for the pacing timer
    let mut swift = swift_with(SwiftConfig { initial_cwnd: 0.25, ..Default::default() }, 2);
    swift.srtt = Some(10.0 * US);
    let mut tcp = Reliable::tcp(&reliability(), Recovery::NewReno, swift).unwrap();
    let mut actions = vec![];
    tcp.on_start(&mut AgentCtx::new(at(0), 100, &mut actions));
    let sends = |a: &[Action]| a.iter().filter(|a| matches!(a, Action::Send { .. })).count();
    assert_eq!(sends(&actions), 1);
    assert!(actions.contains(&Action::SetTimer(PACE, at(40))), "{actions:?}");
    actions.clear();
    tcp.on_timer(PACE, &mut AgentCtx::new(at(40), 100, &mut actions));
    assert_eq!(sends(&actions), 1, "the next packet, though the first is not acknowledged");
    assert!(actions.contains(&Action::SetTimer(PACE, at(80))));
}

#[test]
fn every_ack_runs_the_law_through_the_layer() {
    let mut tcp = Reliable::tcp(&reliability(), Recovery::NewReno, swift()).unwrap();
    let mut actions = vec![];
    tcp.on_start(&mut AgentCtx::new(at(0), 100, &mut actions));
    assert_eq!(actions.iter().filter(|a| matches!(a, Action::Send { .. })).count(), 15);
    let ack = Packet { seq: 1, echo_sent_at: at(0), echo_seq: 0, ..Packet::blank() }.with_kind(PacketKind::Ack);
    tcp.on_ack(&ack, &mut AgentCtx::new(at(5), 100, &mut actions));
    assert!(close(tcp.ctrl.fabric.cwnd, 15.0 + 1.0 / 15.0));
    assert!(close(tcp.ctrl.srtt.unwrap(), 5.0 * US));
}

#[test]
fn bad_settings_are_refused() {
    let bad = |cfg: SwiftConfig, key: &str| {
        let e = Swift::checked(&cfg, 2, || crate::rng::stream(1, "x")).err().expect("refused");
        assert_eq!(e.path, vec![key.to_string()]);
    };
    bad(SwiftConfig { beta: 0.0, ..Default::default() }, "beta");
    bad(SwiftConfig { max_mdf: 1.0, ..Default::default() }, "max_mdf");
    bad(SwiftConfig { min_cwnd: 0.0, ..Default::default() }, "min_cwnd");
    bad(SwiftConfig { initial_cwnd: 2000.0, ..Default::default() }, "initial_cwnd");
    bad(SwiftConfig { fs_max_cwnd: 0.1, ..Default::default() }, "fs_max_cwnd");
    bad(SwiftConfig { retx_reset_threshold: 0, ..Default::default() }, "retx_reset_threshold");
    let flow = FlowInfo {
        window: None,
        packet_size: 4000,
        seed: 1,
        name: "f".into(),
        unending: true,
        access_rate: crate::units::Rate(100_000_000_000),
        links: 6,
        base_rtt: crate::units::Time::from_micros(12),
    };
    let ecn = TcpReliability { ecn: true, ..reliability() };
    assert_eq!(build(&ecn, &SwiftConfig::default(), &flow).err().unwrap().path, vec!["ecn".to_string()]);
}
