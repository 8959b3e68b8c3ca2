//! The reliability layer's ACK processing with SACK: RFC 6675's conservative loss recovery,
//! optionally paced by PRR (RFC 6937). The scoreboard's routines are in `transport::sack`.
//!
//! On each ACK: the cumulative acknowledgement slides the window, the SACK blocks mark the
//! scoreboard; an ACK that SACKs new data is a duplicate ACK (RFC 6675 §5, whether or not it
//! also advanced the cumulative ACK). The `dupack_threshold`-th duplicate, or a first
//! unacknowledged packet that `IsLost` already, starts recovery (§5 step 4): RecoveryPoint is the
//! highest packet sent, the controller sets ssthresh and cwnd = ssthresh (no inflation: the pipe
//! counts what left the network), the first unacknowledged packet is retransmitted, and then,
//! on this ACK and every later one until RecoveryPoint is acknowledged, the layer sends what
//! `NextSeg` chooses while the pipe is below cwnd, or, with PRR, PRR's `sndcnt` packets. As in
//! NewReno (RFC 6582 §3.2 step 1, RFC 6675 §5.1) no recovery starts before the highest packet
//! sent at the last timeout is acknowledged.

use super::{Reliable, RttSample};
use crate::net::Packet;
use crate::transport::reliability::controller::{Congestion, Controller, Hook, NewAck};
use crate::transport::reliability::prr::Prr;
use crate::transport::reliability::retransmit::RetransmitTimer;
use crate::transport::reliability::sack::{lost_below, Next, SackRecovery};
use crate::transport::sender::{AgentCtx, Event};

impl<C: Controller, T: RetransmitTimer> Reliable<C, T> {
    pub(super) fn on_sack_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        let (una, sacked) = (self.win.una(), self.win.sacked());
        let acked = self.win.on_ack(ack.seq);
        let mut newly_sacked = 0;
        for &(start, end) in ctx.sack {
            newly_sacked += self.win.mark_sacked(start, end);
        }
        // RFC 6937's DeliveredData: the change in the cumulative ACK plus that in SACKed data
        let delivered = (self.win.una() - una + self.win.sacked()) - sacked;
        if let Some(acked) = acked {
            self.timer.sample(&acked, ack.echo_sent_at, ctx);
            let rtt_s = (ctx.now - ack.echo_sent_at).as_secs_f64();
            tell!(self.on_rtt_sample(RttSample { rtt_s, ack: ack.seq, next: self.win.nxt() }, ctx));
            self.dupacks = 0;
            if !self.in_recovery {
                // what this ACK delivered: packets SACKed before (during a recovery, or before
                // a timeout) were delivered then and do not open the window again (Linux's
                // `delivered`), or a cumulative ACK after a timeout would burst the window open
                tell!(self.on_ack(NewAck { count: delivered }, ctx));
            } else if ack.seq >= self.recover {
                self.in_recovery = false;
                tell!(self.on_recovery_end(ctx));
            } else {
                self.sack_recovery.slid(self.win.una());
            }
            self.timer.after_new_ack(self.win.in_flight() > 0, ctx);
            tell!(self.trace(ctx));
        }
        if self.in_recovery {
            self.recovery_sends(delivered, ctx);
            return;
        }
        let Some(rule) = self.dupack_rule else { return };
        if newly_sacked == 0 || self.win.in_flight() == 0 {
            return;
        }
        self.dupacks += 1;
        let threshold = rule.threshold as u64;
        let lost = lost_below(&self.win, threshold) > self.win.una();
        if (self.dupacks as u64 >= threshold || lost) && self.win.una() >= self.recover {
            self.begin_recovery(delivered, ctx);
        }
    }

    /// RFC 6675 §5 step 4: fast retransmit, and recovery until everything sent is acknowledged.
    fn begin_recovery(&mut self, delivered: u64, ctx: &mut AgentCtx) {
        let load = self.load();
        let flight = load.flight;
        let una = self.win.una();
        self.in_recovery = true;
        self.recover = self.win.high();
        self.ecn_recover = self.win.nxt(); // a loss's reduction answers this window's marks too
        ctx.count(Event::FastRetransmit);
        let event = Congestion::FastRetransmit { dupacks: 0, recovering: true };
        tell!(self.on_congestion(event, load, &self.win, ctx));
        self.sack_recovery = SackRecovery::begin(una);
        self.prr = Prr::begin(flight);
        let budget = self.prr_budget(delivered);
        self.win.resend(una);
        ctx.send(una);
        tell!(self.on_packet_sent(una, ctx));
        self.sack_recovery.retransmitted(una);
        self.prr.sent();
        self.timer.restart(ctx);
        tell!(self.trace(ctx));
        self.send_in_recovery(budget.saturating_sub(1), ctx);
    }

    /// An ACK during recovery: PRR's (or the pipe's) allowance goes out.
    fn recovery_sends(&mut self, delivered: u64, ctx: &mut AgentCtx) {
        let budget = self.prr_budget(delivered);
        self.send_in_recovery(budget, ctx);
    }

    /// What PRR lets this ACK send, or no limit but the pipe's without PRR.
    fn prr_budget(&mut self, delivered: u64) -> u64 {
        if !self.features.prr {
            return u64::MAX;
        }
        let threshold = self.threshold();
        let pipe = self.sack_recovery.pipe(&self.win, threshold);
        self.prr.on_ack(delivered, pipe, self.ctrl.window())
    }

    fn threshold(&self) -> u64 {
        self.dupack_rule.map_or(3, |d| d.threshold as u64)
    }

    /// Sends up to `budget` packets chosen by `NextSeg`; without PRR, while the pipe is below
    /// cwnd (RFC 6675 §5 step C: each packet sent adds one to the pipe).
    fn send_in_recovery(&mut self, mut budget: u64, ctx: &mut AgentCtx) {
        let threshold = self.threshold();
        let mut pipe = self.sack_recovery.pipe(&self.win, threshold);
        let cwnd = if self.features.prr { u64::MAX } else { self.ctrl.window().max(1) };
        while budget > 0 && pipe < cwnd {
            let app_limited = self.win.high() >= ctx.app_limit;
            let may_send_new = self.win.nxt() == self.win.high() && self.win.can_send(self.cap, ctx.app_limit);
            let next = self.sack_recovery.next_seg(&self.win, threshold, may_send_new, app_limited);
            let seq = match next {
                Some(Next::Retransmit(seq)) => {
                    self.win.resend(seq);
                    self.sack_recovery.retransmitted(seq);
                    seq
                }
                Some(Next::Rescue(seq)) => {
                    self.win.resend(seq);
                    seq
                }
                Some(Next::New) => self.win.send_next(ctx.now),
                None => break,
            };
            ctx.send(seq);
            if next == Some(Next::New) {
                self.timer.on_send(ctx); // as `fill` does for new data
            }
            tell!(self.on_packet_sent(seq, ctx));
            self.prr.sent();
            pipe += 1;
            budget -= 1;
        }
        tell!(self.after_fill(self.win.in_flight(), ctx));
    }
}

#[cfg(test)]
mod tests;
