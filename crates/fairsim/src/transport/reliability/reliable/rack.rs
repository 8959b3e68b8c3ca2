//! The reliability layer's loss detection with RACK-TLP (RFC 8985), in place of the SACK
//! recovery's duplicate-ACK rule: what `transport::rack` and `transport::tlp` decide, carried
//! out on the window.
//!
//! On each ACK, in the order of RFC 8985 §6.2 and Linux's `tcp_ack`: the packets newly
//! delivered update RACK and the reordering seen (`apply_ack`); a D-SACK raises the reordering
//! window's multiplier; a tail loss probe's episode may end; the cumulative ACK is taken as in
//! any SACK recovery; then RACK marks what is lost. A first loss starts a recovery (RFC 6675
//! §5 step 4, with its congestion response and PRR), which retransmits the packets deemed lost
//! in order and then new data (Linux's `tcp_xmit_retransmit_queue`: no retransmission of a
//! packet not deemed lost, no rescue; the tail is TLP's).
//!
//! One timer slot (`RACK_TIMER`) serves RACK's reordering timer and TLP's probe timeout, as
//! Linux's one pending timer does: the reordering timer when packets wait for their deadline,
//! else the probe's when TLP may probe.
//!
//! Choices: after a retransmission timeout the layer goes back to the oldest packet and resends
//! everything not SACKed (go-back-N, as without RACK): every loss mark is forgotten, and RACK
//! neither marks nor probes until what was sent before the timeout is acknowledged (RFC 8985
//! also detects lost retransmissions during that repair; here the timer does). The multiplier
//! of the reordering window counts fast recoveries, not timeout repairs, towards its reset.

use super::Reliable;
use crate::net::Packet;
use crate::transport::reliability::controller::{Congestion, Controller, Hook};
use crate::transport::reliability::rack_tlp::{Armed, RackState, RACK_TIMER};
use crate::transport::reliability::retransmit::RetransmitTimer;
use crate::transport::reliability::sack::dsack_block;
use crate::transport::reliability::tlp::{self, AckView, Episode, Outcome};
use crate::transport::sender::{AgentCtx, Event};

impl<C: Controller, T: RetransmitTimer> Reliable<C, T> {
    fn rack_mut(&mut self) -> &mut RackState {
        self.rack.as_deref_mut().expect("a RACK flow")
    }

    pub(super) fn on_rack_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        let (una, sacked) = (self.win.una(), self.win.sacked());
        self.rack_mut().rack.sample_rtt(ctx.now.saturating_sub(ack.echo_sent_at));
        let dsack = dsack_block(ctx.sack, ack.seq);
        let (acked, newly_sacked) = self.apply_ack(ack, ctx);
        let delivered = (self.win.una() - una + self.win.sacked()) - sacked;
        let (una_now, nxt) = (self.win.una(), self.win.nxt());
        self.rack_mut().rack.dsack_seen(una_now, nxt, dsack.is_some());
        let view = AckView { ack: ack.seq, news: acked.is_some() || newly_sacked > 0, dsack };
        self.end_episode(view, ctx);
        if let Some(acked) = &acked {
            self.sack_new_ack(ack, acked, delivered, ctx);
        }
        self.undo_if_spurious(ctx);
        self.detect_losses(ctx);
        if self.in_recovery {
            self.recovery_sends(delivered, ctx);
        } else if self.win.lost() > 0 {
            self.begin_recovery(delivered.max(1), ctx);
        }
        self.arm_rack_timer(acked.is_some(), ctx);
    }

    /// RACK marks the packets whose deadline passed, and keeps the reordering timer's time.
    /// Not while the layer repairs a timeout by going back (see the module's choices).
    fn detect_losses(&mut self, ctx: &mut AgentCtx) {
        let repairing_timeout = !self.in_recovery && self.win.una() < self.recover;
        let srtt = self.timer.srtt();
        let (seen, in_recovery, threshold) = (self.reordering.seen(), self.in_recovery, self.threshold());
        let r = self.rack.as_deref_mut().expect("a RACK flow");
        if repairing_timeout {
            r.reorder_at = None;
            return;
        }
        let reo_wnd = r.rack.reo_wnd(seen, in_recovery, self.win.sacked(), threshold, srtt);
        let (lost, wait) = r.rack.detect_loss(&mut self.win, ctx.now, reo_wnd);
        if lost > 0 {
            r.rxt_scan = 0;
        }
        r.reorder_at = wait.map(|w| ctx.now + w);
    }

    /// Arms `RACK_TIMER` for what should be watched now: the reordering timer if packets wait
    /// for their deadline, else a probe timeout if TLP may probe (restarted if `restart`: new
    /// data left, or an ACK acknowledged new data), else nothing.
    pub(super) fn arm_rack_timer(&mut self, restart: bool, ctx: &mut AgentCtx) {
        let may_probe =
            !self.in_recovery && self.win.una() >= self.recover && self.win.sacked() == 0 && self.win.in_flight() > 0;
        let srtt = self.timer.srtt();
        let rto_expiry = self.timer.deadline();
        let flight = self.win.in_flight();
        let r = self.rack.as_deref_mut().expect("a RACK flow");
        let want = match r.reorder_at {
            Some(at) => Some((Armed::Reorder, at)),
            None if r.tlp && may_probe => match r.armed {
                Some((Armed::Probe, at)) if !restart => Some((Armed::Probe, at)),
                _ => {
                    let at = ctx.now + tlp::pto(srtt, flight, r.max_ack_delay);
                    Some((Armed::Probe, rto_expiry.map_or(at, |e| at.min(e))))
                }
            },
            None => None,
        };
        if want != r.armed {
            match want {
                Some((_, at)) => ctx.set_timeout(RACK_TIMER, at),
                None => ctx.cancel_timer(RACK_TIMER),
            }
            r.armed = want;
        }
    }

    pub(super) fn rack_timer_fired(&mut self, ctx: &mut AgentCtx) {
        let Some((armed, _)) = self.rack_mut().armed.take() else { return };
        match armed {
            Armed::Reorder => {
                self.detect_losses(ctx);
                if self.in_recovery {
                    self.recovery_sends(0, ctx);
                } else if self.win.lost() > 0 {
                    self.begin_recovery(1, ctx);
                }
            }
            Armed::Probe => self.send_probe(ctx),
        }
        self.arm_rack_timer(false, ctx);
    }

    /// RFC 8985 §7.3: one packet, new if the receiver's window and the application allow,
    /// else the highest packet sent again; the retransmission timer restarts from it.
    fn send_probe(&mut self, ctx: &mut AgentCtx) {
        let (una, high) = (self.win.una(), self.win.high());
        if self.in_recovery || una < self.recover || self.win.in_flight() == 0 {
            return;
        }
        if self.rack_mut().episode.is_some() {
            return; // one probe per episode: the retransmission timer watches the rest
        }
        let new = self.win.nxt() == high && self.win.can_send(self.cap, ctx.app_limit);
        let (seq, resent) = if new {
            (self.win.send_next(ctx.now), None)
        } else {
            let Some(seq) = (una..high).rev().find(|&s| !self.win.is_sacked(s)) else { return };
            self.win.resend(seq);
            self.win.retransmitted_out(seq);
            (seq, Some(seq))
        };
        let end = self.win.high();
        let r = self.rack_mut();
        r.rack.on_send(seq, ctx.now, resent.is_some());
        r.episode = Some(Episode { end, resent });
        ctx.send(seq);
        ctx.count(Event::LossProbe);
        if new {
            self.timer.on_send(ctx);
        }
        tell!(self.on_packet_sent(seq, ctx));
        self.timer.restart(ctx);
    }

    /// §7.4: an ACK may end the open probe's episode; if the probe repaired a loss, the window
    /// is reduced once, as by a fast recovery that ends at once (Linux enters and leaves CWR).
    fn end_episode(&mut self, view: AckView, ctx: &mut AgentCtx) {
        let r = self.rack_mut();
        let Some(episode) = r.episode else { return };
        let outcome = episode.on_ack(view);
        if outcome != Outcome::Open {
            r.episode = None;
        }
        if outcome == Outcome::Loss && !self.in_recovery {
            // a real loss: the D-SACKs of an earlier recovery must not undo this reduction (the
            // controller's state to restore is now this one's)
            self.undo = None;
            let load = self.load();
            self.ecn_recover = self.win.nxt();
            let event = Congestion::FastRetransmit { dupacks: 0, recovering: true };
            tell!(self.on_congestion(event, load, &self.win, ctx));
            tell!(self.on_recovery_end(ctx));
            tell!(self.trace(ctx));
        }
    }

    /// The retransmission timer expired: the layer goes back to the oldest packet, so the loss
    /// marks, the probe's episode and RACK's timer are dropped.
    pub(super) fn rack_timed_out(&mut self, ctx: &mut AgentCtx) {
        self.win.forget_losses();
        let r = self.rack_mut();
        r.episode = None;
        r.reorder_at = None;
        r.rxt_scan = 0;
        if r.armed.take().is_some() {
            ctx.cancel_timer(RACK_TIMER);
        }
    }
}

#[cfg(test)]
mod tests;
