//! Generic flow control: a fixed sliding window and a timeout of β·rtt.
//!
//! Reference: Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm",
//! SIGCOMM 1989, §3 ("generic" = XNS SPP or TCP per RFC 793), and Keshav, "Congestion Control
//! in Computer Networks", PhD thesis, 1991, §6.5:
//! - a sliding window of constant size (5 in every simulation of both);
//! - packets not acknowledged before the timeout are retransmitted and a new timeout is set;
//! - timeout = β·rtt with "typically β ~ 2", rtt an exponentially averaged estimate;
//! - a retransmitted packet's rtt sample runs "from their first transmission to their
//!   acknowledgement".
//!
//! Choices the papers leave open, made here (each a parameter):
//! - `gain` of the exponential average: 1/8 (TCP's srtt gain);
//! - the average starts at `initial_rtt` = 1.5 s (so the first timeout is 3 s, RFC 1122's initial
//!   RTO) and every sample, the first included, is averaged in. Taking the first sample whole
//!   instead (as TCP does) makes Generic time out spuriously while queues build at start-up:
//!   the first ACKs come back fast, later ones wait behind the other flows' windows. The
//!   thesis reports no retransmissions at all in its underloaded Scenario 1, which rules that out;
//! - on timeout `retransmit = "all"` (default) resends every unacknowledged packet (go-back-N),
//!   reading the papers' plural "packets ... are retransmitted"; `"oldest"` resends only the
//!   oldest, the cumulative ACK of its retransmission covering what arrived after it (the
//!   thesis's Scenario 3 counts about one retransmission per drop, which this reproduces and
//!   go-back-N with windows of 40 does not); there is no exponential backoff (JK's addition);
//! - one sample per ACK that advances the window, for the highest packet it acknowledges;
//!   duplicate ACKs are ignored.
//!
//! Here Generic is the reliability layer with the averaged timeout (`reliable`, its parameters
//! `AveragedReliability`) under a controller that never changes the window.

use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::transport::reliability::controller::Controller;
use crate::transport::reliability::reliable::{AveragedReliability, Reliable};
use crate::transport::reliability::retransmit::AveragedTimer;
use crate::transport::reliability::window::SendWindow;
use crate::transport::sender::TransportDeclaration;
use crate::transport::sender::{AgentCtx, Series};

/// Generic's parameters: the window and the averaged timeout's.
pub type GenericConfig = AveragedReliability;

/// A window that never moves.
pub struct FixedWindow {
    window: u32,
}

impl Controller for FixedWindow {
    fn window(&self) -> u64 {
        self.window as u64
    }

    fn fixed_window(&self) -> bool {
        true
    }

    fn on_start(&mut self, _win: &SendWindow, ctx: &mut AgentCtx) {
        ctx.record(Series::Window, self.window as f64);
    }
}

pub type Generic = Reliable<FixedWindow, AveragedTimer>;

/// A Generic sender, after checking that the parameters make sense.
pub fn generic(cfg: &GenericConfig) -> Result<Generic, ParamError> {
    Reliable::averaged(cfg, FixedWindow { window: cfg.window })
}

/// Generic: the averaged timeout under a fixed window.
pub static DECLARATION: TransportDeclaration<(AveragedReliability,)> = Declaration {
    about: About {
        name: "generic",
        summary: "fixed window, timeout = beta x averaged rtt, go-back-N on timeout",
        reference: "Generic flow control of Demers, Keshav & Shenker 1989 §3 and Keshav 1991 §6.5",
    },
    defaults: || (AveragedReliability::default(),),
    build: |(r,), _| Ok(Box::new(generic(r)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Packet;
    use crate::qdisc::testing::pkt;
    use crate::transport::reliability::averaged_timeout::{Resend, RETRANSMIT};
    use crate::transport::sender::{Action, Sender};
    use crate::units::Time;

    fn ack(seq: u64) -> Packet {
        pkt(0, seq, 40).with_kind(crate::net::PacketKind::Ack)
    }

    fn run(s: &mut Generic, now: u64, f: impl FnOnce(&mut Generic, &mut AgentCtx)) -> Vec<Action> {
        let mut actions = vec![];
        f(s, &mut AgentCtx::new(Time::from_secs(now), u64::MAX, &mut actions));
        actions
    }

    fn sends(actions: &[Action]) -> Vec<u64> {
        actions.iter().filter_map(|a| if let Action::Send { seq } = a { Some(*seq) } else { None }).collect()
    }

    #[test]
    fn sends_a_full_window_and_arms_the_initial_timeout() {
        let mut g = generic(&GenericConfig::default()).unwrap();
        let a = run(&mut g, 0, |g, c| g.on_start(c));
        assert_eq!(sends(&a), vec![0, 1, 2, 3, 4]);
        assert!(a.contains(&Action::SetTimeout(RETRANSMIT, Time::from_secs(3))), "β·initial_rtt = 2 × 1.5 s");
    }

    #[test]
    fn each_ack_slides_the_window_by_one_and_updates_rtt() {
        let mut g = generic(&GenericConfig::default()).unwrap();
        run(&mut g, 0, |g, c| g.on_start(c));
        let a = run(&mut g, 2, |g, c| g.on_ack(&ack(1), c));
        assert_eq!(sends(&a), vec![5]);
        let rtt1 = 0.875 * 1.5 + 0.125 * 2.0;
        assert_eq!(g.timer.timer.rtt(), rtt1, "averaged from the initial estimate");
        assert!(a.contains(&Action::SetTimeout(RETRANSMIT, Time::from_secs(2) + Time::from_secs_f64(2.0 * rtt1))));
        run(&mut g, 4, |g, c| g.on_ack(&ack(2), c));
        assert_eq!(g.timer.timer.rtt(), 0.875 * rtt1 + 0.125 * 4.0);
        assert!(sends(&run(&mut g, 5, |g, c| g.on_ack(&ack(2), c))).is_empty(), "duplicate ACK ignored");
    }

    #[test]
    fn timeout_goes_back_n_and_rtt_counts_from_first_transmission() {
        let mut g = generic(&GenericConfig::default()).unwrap();
        run(&mut g, 0, |g, c| g.on_start(c));
        let a = run(&mut g, 3, |g, c| g.on_timer(RETRANSMIT, c));
        assert_eq!(sends(&a), vec![0, 1, 2, 3, 4], "all unacknowledged packets are resent");
        run(&mut g, 5, |g, c| g.on_ack(&ack(1), c));
        assert_eq!(g.timer.timer.rtt(), 0.875 * 1.5 + 0.125 * 5.0, "sample from the first transmission at t = 0");
    }

    #[test]
    fn a_timeout_can_resend_only_the_oldest_packet() {
        let mut g = generic(&GenericConfig { retransmit: Resend::Oldest, ..Default::default() }).unwrap();
        run(&mut g, 0, |g, c| g.on_start(c));
        let a = run(&mut g, 3, |g, c| g.on_timer(RETRANSMIT, c));
        assert_eq!(sends(&a), vec![0], "only the oldest goes again");
        assert!(a.contains(&Action::SetTimeout(RETRANSMIT, Time::from_secs(6))), "and the timer restarts");
        // its ACK covers the four packets that arrived after it; the window slides by five
        let a = run(&mut g, 4, |g, c| g.on_ack(&ack(5), c));
        assert_eq!(sends(&a), vec![5, 6, 7, 8, 9]);
    }

    #[test]
    fn the_timeout_is_never_shorter_than_its_floor() {
        let cfg = GenericConfig { initial_rtt: Time::from_millis(60), ..Default::default() };
        let a = run(&mut generic(&cfg).unwrap(), 0, |g, c| g.on_start(c));
        assert!(a.contains(&Action::SetTimeout(RETRANSMIT, Time::from_millis(120))), "no floor: β·rtt");
        let floored = GenericConfig { min_timeout: Time::from_secs(1), ..cfg };
        let a = run(&mut generic(&floored).unwrap(), 0, |g, c| g.on_start(c));
        assert!(a.contains(&Action::SetTimeout(RETRANSMIT, Time::from_secs(1))), "β·rtt = 120 ms < 1 s");
    }

    #[test]
    fn nonsense_parameters_are_refused() {
        let bad = |c: GenericConfig| generic(&c).err().map(|e| e.path);
        assert_eq!(bad(GenericConfig { gain: 1.5, ..Default::default() }), Some(vec!["gain".to_string()]));
        assert_eq!(bad(GenericConfig { beta: 0.0, ..Default::default() }), Some(vec!["beta".to_string()]));
        assert_eq!(bad(GenericConfig { window: 0, ..Default::default() }), Some(vec!["window".to_string()]));
        assert!(generic(&GenericConfig::default()).is_ok());
    }

    #[test]
    fn idle_sender_cancels_its_timer_and_window_respects_app_limit() {
        let mut g = generic(&GenericConfig { window: 5, ..Default::default() }).unwrap();
        let mut actions = vec![];
        g.on_start(&mut AgentCtx::new(Time::ZERO, 2, &mut actions));
        assert_eq!(sends(&actions), vec![0, 1]);
        let a = run(&mut g, 1, |g, c| g.on_ack(&ack(2), c));
        assert!(a.contains(&Action::CancelTimer(RETRANSMIT)));
    }
}
