use super::*;
use crate::net::PacketKind;
use crate::units::Time;

fn dctcp() -> Dctcp {
    let mut a = Aimd::checked(&AimdConfig::default(), 10_000).unwrap();
    (a.cwnd, a.ssthresh) = (100.0, 50.0);
    Dctcp::checked(&DctcpConfig::default(), a).unwrap()
}

/// One window of `n` packets, each acknowledged by its own ACK; the first `marked` ACKs carry
/// the echo.
fn window(d: &mut Dctcp, win: &mut SendWindow, n: u64, marked: u64) {
    let mut actions = vec![];
    for _ in 0..n {
        win.send_next(Time::ZERO);
    }
    for k in 0..n {
        let ack =
            Packet { seq: win.una() + 1, ..Packet::blank() }.with_kind(PacketKind::Ack).with_congestion(k < marked);
        d.on_ack_arrival(&ack, win, &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions));
        win.on_ack(ack.seq);
    }
}

/// ACKs of `marks.len()` packets, one each, marked as given (the packets sent beforehand).
fn acks(d: &mut Dctcp, win: &mut SendWindow, marks: &[bool]) {
    let mut actions = vec![];
    for &marked in marks {
        let ack = Packet { seq: win.una() + 1, ..Packet::blank() }.with_kind(PacketKind::Ack).with_congestion(marked);
        d.on_ack_arrival(&ack, win, &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions));
        win.on_ack(ack.seq);
    }
}

#[test]
fn alpha_follows_rfc_8257s_steps_on_a_worked_example() {
    // RFC 8257 §3.3: count the ACK, then close the window once the ACK passes WindowEnd
    let (mut d, mut win) = (dctcp(), SendWindow::default());
    for _ in 0..4 {
        win.send_next(Time::ZERO);
    }
    // the first ACK closes the empty first window: M = 1/1, α = 1; WindowEnd = 4
    acks(&mut d, &mut win, &[true]);
    assert_eq!(d.alpha, 1.0);
    // three more ACKs, one marked: the window is still open (3 ≤ 4)
    acks(&mut d, &mut win, &[false, true, false]);
    assert_eq!(d.alpha, 1.0);
    for _ in 0..4 {
        win.send_next(Time::ZERO);
    }
    // the next ACK passes WindowEnd: M = 1/4, α = 15/16 + 1/64
    acks(&mut d, &mut win, &[false]);
    assert_eq!(d.alpha, 15.0 / 16.0 + 1.0 / 64.0);
}

#[test]
fn alpha_settles_at_the_fraction_marked() {
    let (mut d, mut win) = (dctcp(), SendWindow::default());
    for _ in 0..250 {
        window(&mut d, &mut win, 10, 5);
    }
    assert!((d.alpha - 0.5).abs() < 1e-4, "α settles at F = 0.5: {}", d.alpha);
}

#[test]
fn an_echo_cuts_the_window_by_half_of_alpha() {
    // RFC 8257 §3.3: cwnd ← cwnd·(1 − α/2)
    let mut d = dctcp();
    d.alpha = 0.5;
    let mut actions = vec![];
    let win = SendWindow::default();
    d.on_congestion(
        Congestion::Ecn,
        Load { flight: 100, pipe: 100 },
        &win,
        &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions),
    );
    assert_eq!((d.aimd.cwnd, d.aimd.ssthresh), (75.0, 75.0));
    // a loss is Reno's: half the flight
    d.on_congestion(
        Congestion::Timeout,
        Load { flight: 60, pipe: 60 },
        &win,
        &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions),
    );
    assert_eq!((d.aimd.cwnd, d.aimd.ssthresh), (1.0, 30.0));
}

#[test]
fn without_marks_alpha_decays_and_the_cut_vanishes() {
    let (mut d, mut win) = (dctcp(), SendWindow::default());
    for _ in 0..300 {
        window(&mut d, &mut win, 4, 0);
    }
    assert!(d.alpha < 1e-8);
    let mut actions = vec![];
    d.on_congestion(
        Congestion::Ecn,
        Load { flight: 100, pipe: 100 },
        &win,
        &mut AgentCtx::new(Time::ZERO, u64::MAX, &mut actions),
    );
    assert!(d.aimd.cwnd > 99.99, "cwnd {}", d.aimd.cwnd);
}

#[test]
fn bad_parameters_are_refused() {
    let a = || Aimd::checked(&AimdConfig::default(), 64).unwrap();
    assert!(Dctcp::checked(&DctcpConfig { g: 0.0, ..Default::default() }, a()).is_err());
    assert!(Dctcp::checked(&DctcpConfig { initial_alpha: 2.0, ..Default::default() }, a()).is_err());
}
