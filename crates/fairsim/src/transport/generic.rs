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

#[cfg(test)]
use super::averaged_timeout::RETRANSMIT;
use super::averaged_timeout::{AveragedTimeout, Resend};
use super::window::SendWindow;
use super::{AgentCtx, Event, Sender, Series};
use crate::net::Packet;
use crate::params::ParamError;
use crate::transport::TimerId;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GenericConfig {
    /// Window in packets.
    pub window: u32,
    /// Timeout multiplier β.
    pub beta: f64,
    /// Gain g of the rtt average: rtt ← (1 − g)·rtt + g·sample.
    pub gain: f64,
    /// The rtt estimate before the first sample.
    pub initial_rtt: Time,
    /// What a timeout sends again: `all` unacknowledged packets or the `oldest`.
    pub retransmit: Resend,
}

impl Default for GenericConfig {
    fn default() -> Self {
        GenericConfig {
            window: 5,
            beta: 2.0,
            gain: 0.125,
            initial_rtt: Time::from_millis(1500),
            retransmit: Resend::All,
        }
    }
}

pub struct Generic {
    cfg: GenericConfig,
    win: SendWindow,
    timer: AveragedTimeout,
}

impl Generic {
    /// Builds a sender after checking that the parameters make sense.
    pub fn checked(cfg: GenericConfig) -> Result<Self, ParamError> {
        if cfg.window == 0 {
            return Err(ParamError::at("window", "a window must be at least 1 packet"));
        }
        AveragedTimeout::check(cfg.initial_rtt, cfg.beta, cfg.gain)?;
        Ok(Generic::new(cfg))
    }

    pub fn new(cfg: GenericConfig) -> Self {
        let timer = AveragedTimeout::new(cfg.initial_rtt, cfg.beta, cfg.gain);
        Generic { cfg, win: SendWindow::default(), timer }
    }

    fn fill_window(&mut self, ctx: &mut AgentCtx) {
        while self.win.can_send(self.cfg.window as u64, ctx.app_limit) {
            let seq = self.win.send_next(ctx.now);
            ctx.send(seq);
            self.timer.arm_if_idle(ctx);
        }
    }
}

impl Sender for Generic {
    fn on_start(&mut self, ctx: &mut AgentCtx) {
        ctx.record(Series::Window, self.cfg.window as f64);
        self.fill_window(ctx);
    }

    fn on_data(&mut self, ctx: &mut AgentCtx) {
        self.fill_window(ctx);
    }

    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        let Some(acked) = self.win.on_ack(ack.seq) else { return };
        self.timer.sample((ctx.now - acked.newest_first_sent).as_secs_f64());
        self.timer.after_ack(self.win.in_flight() > 0, ctx);
        self.fill_window(ctx);
    }

    fn on_timer(&mut self, _timer: TimerId, ctx: &mut AgentCtx) {
        self.timer.fired();
        if self.win.in_flight() == 0 {
            return;
        }
        ctx.count(Event::Timeout);
        self.timer.resend(self.cfg.retransmit, &mut self.win, ctx);
        self.fill_window(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::pkt;
    use crate::transport::Action;

    fn ack(seq: u64) -> Packet {
        let mut p = pkt(0, seq, 40);
        p.kind = crate::net::PacketKind::Ack;
        p
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
        let mut g = Generic::new(GenericConfig::default());
        let a = run(&mut g, 0, |g, c| g.on_start(c));
        assert_eq!(sends(&a), vec![0, 1, 2, 3, 4]);
        assert!(a.contains(&Action::SetTimer(RETRANSMIT, Time::from_secs(3))), "β·initial_rtt = 2 × 1.5 s");
    }

    #[test]
    fn each_ack_slides_the_window_by_one_and_updates_rtt() {
        let mut g = Generic::new(GenericConfig::default());
        run(&mut g, 0, |g, c| g.on_start(c));
        let a = run(&mut g, 2, |g, c| g.on_ack(&ack(1), c));
        assert_eq!(sends(&a), vec![5]);
        let rtt1 = 0.875 * 1.5 + 0.125 * 2.0;
        assert_eq!(g.timer.rtt(), rtt1, "averaged from the initial estimate");
        assert!(a.contains(&Action::SetTimer(RETRANSMIT, Time::from_secs(2) + Time::from_secs_f64(2.0 * rtt1))));
        run(&mut g, 4, |g, c| g.on_ack(&ack(2), c));
        assert_eq!(g.timer.rtt(), 0.875 * rtt1 + 0.125 * 4.0);
        assert!(sends(&run(&mut g, 5, |g, c| g.on_ack(&ack(2), c))).is_empty(), "duplicate ACK ignored");
    }

    #[test]
    fn timeout_goes_back_n_and_rtt_counts_from_first_transmission() {
        let mut g = Generic::new(GenericConfig::default());
        run(&mut g, 0, |g, c| g.on_start(c));
        let a = run(&mut g, 3, |g, c| g.on_timer(RETRANSMIT, c));
        assert_eq!(sends(&a), vec![0, 1, 2, 3, 4], "all unacknowledged packets are resent");
        run(&mut g, 5, |g, c| g.on_ack(&ack(1), c));
        assert_eq!(g.timer.rtt(), 0.875 * 1.5 + 0.125 * 5.0, "sample from the first transmission at t = 0");
    }

    #[test]
    fn a_timeout_can_resend_only_the_oldest_packet() {
        let mut g = Generic::new(GenericConfig { retransmit: Resend::Oldest, ..Default::default() });
        run(&mut g, 0, |g, c| g.on_start(c));
        let a = run(&mut g, 3, |g, c| g.on_timer(RETRANSMIT, c));
        assert_eq!(sends(&a), vec![0], "only the oldest goes again");
        assert!(a.contains(&Action::SetTimer(RETRANSMIT, Time::from_secs(6))), "and the timer restarts");
        // its ACK covers the four packets that arrived after it; the window slides by five
        let a = run(&mut g, 4, |g, c| g.on_ack(&ack(5), c));
        assert_eq!(sends(&a), vec![5, 6, 7, 8, 9]);
    }

    #[test]
    fn nonsense_parameters_are_refused() {
        let bad = |c: GenericConfig| Generic::checked(c).err().map(|e| e.path);
        assert_eq!(bad(GenericConfig { gain: 1.5, ..Default::default() }), Some(vec!["gain".to_string()]));
        assert_eq!(bad(GenericConfig { beta: 0.0, ..Default::default() }), Some(vec!["beta".to_string()]));
        assert_eq!(bad(GenericConfig { window: 0, ..Default::default() }), Some(vec!["window".to_string()]));
        assert!(Generic::checked(GenericConfig::default()).is_ok());
    }

    #[test]
    fn idle_sender_cancels_its_timer_and_window_respects_app_limit() {
        let mut g = Generic::new(GenericConfig { window: 5, ..Default::default() });
        let mut actions = vec![];
        g.on_start(&mut AgentCtx::new(Time::ZERO, 2, &mut actions));
        assert_eq!(sends(&actions), vec![0, 1]);
        let a = run(&mut g, 1, |g, c| g.on_ack(&ack(2), c));
        assert!(a.contains(&Action::CancelTimer(RETRANSMIT)));
    }
}
