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

use super::{Reliable, RttSample, Undo};
use crate::net::Packet;
use crate::transport::reliability::controller::{Congestion, Controller, Hook, NewAck};
use crate::transport::reliability::prr::Prr;
use crate::transport::reliability::retransmit::RetransmitTimer;
use crate::transport::reliability::sack::{dsack_block, lost_below, Next, SackRecovery};
use crate::transport::reliability::window::{Acked, SentPacket};
use crate::transport::sender::{AgentCtx, Event};

impl<C: Controller, T: RetransmitTimer> Reliable<C, T> {
    pub(super) fn on_sack_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        if self.rack.is_some() {
            self.on_rack_ack(ack, ctx);
            return;
        }
        let (una, sacked) = (self.win.una(), self.win.sacked());
        let (acked, newly_sacked) = self.apply_ack(ack, ctx);
        // RFC 6937's DeliveredData: the change in the cumulative ACK plus that in SACKed data
        let delivered = (self.win.una() - una + self.win.sacked()) - sacked;
        if let Some(acked) = acked {
            self.sack_new_ack(ack, &acked, delivered, ctx);
        }
        self.undo_if_spurious(ctx);
        if self.in_recovery {
            self.recovery_sends(delivered, ctx);
            return;
        }
        if self.dupack_rule.is_none() || newly_sacked == 0 || self.win.in_flight() == 0 {
            return;
        }
        self.dupacks += 1;
        let threshold = self.threshold();
        let lost = lost_below(&self.win, threshold) > self.win.una();
        if (self.dupacks as u64 >= threshold || lost) && self.win.una() >= self.recover {
            self.begin_recovery(delivered, ctx);
        }
    }

    /// Applies `ack`'s cumulative acknowledgement and SACK blocks to the window; returns what
    /// the cumulative ACK acknowledged and how many packets were newly SACKed. RACK and the
    /// reordering detector are told of every packet newly delivered (when the flow keeps
    /// either), the cumulatively acknowledged ones first; a D-SACK block is counted as a
    /// spurious retransmission.
    pub(super) fn apply_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) -> (Option<Acked>, u64) {
        let (now, echoed, blocks) = (ctx.now, ack.echo_sent_at, ctx.sack);
        if self.features.dsack {
            if let Some((start, end)) = dsack_block(blocks, ack.seq) {
                for seq in start..end {
                    ctx.count(Event::SpuriousRetransmit);
                    self.reordering.dsacked(seq);
                    if let Some(u) = self.undo.as_mut().filter(|u| seq >= u.marker) {
                        u.unreported = u.unreported.saturating_sub(1);
                    }
                }
            }
        }
        let watch = self.rack.is_some() || self.features.adaptive_reordering;
        let (reordering, mut rack) = (&mut self.reordering, self.rack.as_deref_mut().map(|r| &mut r.rack));
        let mut delivered = |seq: u64, p: SentPacket| {
            reordering.delivered(seq, p.retransmitted);
            if let Some(rack) = rack.as_mut() {
                rack.delivered(seq, p, now, echoed);
            }
        };
        if watch {
            for seq in self.win.una()..ack.seq.min(self.win.high()) {
                let p = self.win.packet(seq);
                if !p.sacked {
                    delivered(seq, p);
                }
            }
        }
        let acked = self.win.on_ack(ack.seq);
        let mut newly_sacked = 0;
        for &(start, end) in blocks {
            newly_sacked += if watch {
                self.win.mark_sacked_each(start, end, &mut delivered)
            } else {
                self.win.mark_sacked(start, end)
            };
        }
        if let Some(r) = &mut self.rack {
            r.rack.acknowledged(self.win.una());
        }
        (acked, newly_sacked)
    }

    /// An ACK with SACK acknowledged new data (`acked`; `delivered` packets in all): the round
    /// trip, then the window's growth or the recovery's progress or end.
    pub(super) fn sack_new_ack(&mut self, ack: &Packet, acked: &Acked, delivered: u64, ctx: &mut AgentCtx) {
        self.timer.sample(acked, ack.echo_sent_at, ctx);
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
            if let Some(r) = &mut self.rack {
                r.rack.recovery_ended();
            }
            let timestamps = self.features.timestamps;
            if let Some(u) = self.undo.as_mut().filter(|u| timestamps && ack.echo_sent_at < u.first_resent) {
                u.unreported = 0; // the hole was filled by a packet sent before any retransmission
            }
        } else {
            self.sack_recovery.slid(self.win.una());
        }
        self.timer_after_new_ack(ctx);
        tell!(self.trace(ctx));
    }

    /// RFC 6675 §5 step 4: fast retransmit, and recovery until everything sent is acknowledged.
    /// With RACK the first retransmission is the first packet deemed lost; without, the first
    /// unacknowledged.
    pub(super) fn begin_recovery(&mut self, delivered: u64, ctx: &mut AgentCtx) {
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
        if self.features.undo {
            self.undo = Some(Undo { marker: una, first_resent: ctx.now, unreported: 0 });
        }
        let budget = self.prr_budget(delivered);
        let first = self.rack.as_mut().map_or(Some(una), |r| r.first_lost(&self.win));
        if let Some(seq) = first {
            self.retransmit(seq, ctx);
            self.prr.sent();
        }
        self.timer.restart(ctx);
        tell!(self.trace(ctx));
        self.send_in_recovery(budget.saturating_sub(1), ctx);
    }

    /// Outside a recovery, the last one's reduction is taken back once its retransmissions all
    /// proved spurious (`undo`).
    pub(super) fn undo_if_spurious(&mut self, ctx: &mut AgentCtx) {
        if self.in_recovery || self.undo.is_none_or(|u| u.unreported > 0) {
            return;
        }
        self.undo = None;
        tell!(self.undo(ctx));
        tell!(self.trace(ctx));
    }

    /// Sends packet `seq` again during a recovery.
    fn retransmit(&mut self, seq: u64, ctx: &mut AgentCtx) {
        if let Some(u) = &mut self.undo {
            u.unreported += 1;
        }
        self.win.resend(seq);
        match &mut self.rack {
            Some(r) => {
                self.win.retransmitted_out(seq);
                r.rack.on_send(seq, ctx.now, true);
            }
            None => self.sack_recovery.retransmitted(seq),
        }
        ctx.send(seq);
        tell!(self.on_packet_sent(seq, ctx));
    }

    /// An ACK during recovery: PRR's (or the pipe's) allowance goes out.
    pub(super) fn recovery_sends(&mut self, delivered: u64, ctx: &mut AgentCtx) {
        let budget = self.prr_budget(delivered);
        self.send_in_recovery(budget, ctx);
    }

    /// What PRR lets this ACK send, or no limit but the pipe's without PRR.
    fn prr_budget(&mut self, delivered: u64) -> u64 {
        if !self.features.prr {
            return u64::MAX;
        }
        self.prr.on_ack(delivered, self.pipe(), self.ctrl.window())
    }

    /// The duplicate threshold now (raised by reordering with `adaptive_reordering`).
    pub(super) fn threshold(&self) -> u64 {
        self.reordering.threshold()
    }

    /// The packets in the network: RFC 6675's `SetPipe`, or with RACK the count of its marks.
    fn pipe(&self) -> u64 {
        match self.rack {
            Some(_) => self.win.pipe_counted(),
            None => self.sack_recovery.pipe(&self.win, self.threshold()),
        }
    }

    /// Sends up to `budget` packets chosen by `NextSeg` (with RACK, the packets deemed lost and
    /// then new data, as Linux's `tcp_xmit_retransmit_queue`); without PRR, while the pipe is
    /// below cwnd (RFC 6675 §5 step C: each packet sent adds one to the pipe).
    fn send_in_recovery(&mut self, mut budget: u64, ctx: &mut AgentCtx) {
        let threshold = self.threshold();
        let mut pipe = self.pipe();
        let cwnd = if self.features.prr { u64::MAX } else { self.ctrl.window().max(1) };
        while budget > 0 && pipe < cwnd {
            let app_limited = self.win.high() >= ctx.app_limit;
            let may_send_new = self.win.nxt() == self.win.high() && self.win.can_send(self.cap, ctx.app_limit);
            let next = match &mut self.rack {
                Some(r) => match r.first_lost(&self.win) {
                    Some(seq) => Some(Next::Retransmit(seq)),
                    None => may_send_new.then_some(Next::New),
                },
                None => self.sack_recovery.next_seg(&self.win, threshold, may_send_new, app_limited),
            };
            match next {
                Some(Next::Retransmit(seq)) => self.retransmit(seq, ctx),
                Some(Next::Rescue(seq)) => {
                    if let Some(u) = &mut self.undo {
                        u.unreported += 1;
                    }
                    self.win.resend(seq);
                    ctx.send(seq);
                    tell!(self.on_packet_sent(seq, ctx));
                }
                Some(Next::New) => {
                    let seq = self.win.send_next(ctx.now);
                    if let Some(r) = &mut self.rack {
                        r.rack.on_send(seq, ctx.now, false);
                    }
                    ctx.send(seq);
                    self.timer.on_send(ctx); // as `fill` does for new data
                    tell!(self.on_packet_sent(seq, ctx));
                }
                None => break,
            }
            self.prr.sent();
            pipe += 1;
            budget -= 1;
        }
        tell!(self.after_fill(self.win.in_flight(), ctx));
    }
}

#[cfg(test)]
mod tests;
