//! RACK, time-based loss detection: RFC 8985 §6 (Cheng, Cardwell, Dukkipati, Jha, "The
//! RACK-TLP Loss Detection Algorithm for TCP", 2021).
//!
//! A packet is deemed lost once a packet sent after it has been delivered and a reordering
//! window has passed beyond the round trip that delivery took: loss is told by time, not by a
//! count of duplicate ACKs, so a receiver that sees packets out of order (sprayed over many
//! paths) does not make its sender retransmit what is merely late.
//!
//! What it keeps (the RFC's names in brackets):
//! - the most recently sent of the packets delivered: its transmission time [RACK.xmit_ts],
//!   sequence number [RACK.end_seq − 1] and the round trip of its delivery [RACK.rtt]
//!   (§6.2 step 2); a retransmitted packet whose delivery may be that of an earlier copy (the
//!   ACK echoes a time before the retransmission, or its round trip is below the minimum) is
//!   passed over;
//! - the minimum round trip [RACK.min_RTT], from every ACK's echoed send time;
//! - whether reordering was seen (`reordering::Reordering`, §6.2 step 3);
//! - the reordering window's multiplier and persistence, raised by D-SACKs (§6.2 step 4).
//!
//! The reordering window (§6.2 step 4): 0 before any reordering was seen if the sender is in
//! recovery or at least DupThresh packets are SACKed (loss is then as likely as with the
//! duplicate-ACK rule); otherwise min(multiplier · min_RTT / 4, SRTT).
//!
//! Loss detection (§6.2 step 5): every packet sent before RACK.xmit_ts and not yet delivered is
//! lost once now ≥ its transmission + RACK.rtt + the reordering window; for the others still
//! waiting the RACK reordering timer is set to the latest of their deadlines (the RFC's
//! `max(remaining, timeout)`, Linux's `tcp_rack_detect_loss`).
//!
//! Choices: the transmissions are kept in the order they left (the RFC's suggestion, Linux's
//! `tsorted_sent_queue`), a packet's entry going stale when it is delivered, deemed lost, or
//! sent again; a packet's latest transmission time is its first one unless it was retransmitted
//! (`resent_at`). Sequence numbers count packets. min_RTT is the connection's minimum (the RFC
//! leaves its filter open; Linux keeps a windowed minimum of 5 minutes, longer than any run
//! here that would notice).

use super::window::{SendWindow, SentPacket};
use crate::units::Time;
use std::collections::{BTreeMap, VecDeque};

/// How many recoveries without a D-SACK the reordering window keeps its multiplier for
/// (RFC 8985 §6.2 step 4: 16).
const REO_WND_PERSIST: u32 = 16;

/// The most recently sent packet among those delivered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Latest {
    sent: Time,
    seq: u64,
    rtt: Time,
}

#[derive(Debug)]
pub struct Rack {
    latest: Option<Latest>,
    min_rtt: Option<Time>,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    /// A D-SACK raised the multiplier; no other raises it until this packet is acknowledged
    /// (once per round trip).
    dsack_round: Option<u64>,
    /// Transmissions in the order they left: (time, packet).
    sent: VecDeque<(Time, u64)>,
    /// The latest transmission time of each retransmitted packet not yet acknowledged.
    resent_at: BTreeMap<u64, Time>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            latest: None,
            min_rtt: None,
            reo_wnd_mult: 1,
            reo_wnd_persist: REO_WND_PERSIST,
            dsack_round: None,
            sent: VecDeque::new(),
            resent_at: BTreeMap::new(),
        }
    }
}

/// RFC 8985's `RACK_sent_after`: whether a transmission at `t1` of packet `s1` left after one
/// at `t2` of `s2` (by sequence number at equal times).
fn sent_after(t1: Time, s1: u64, t2: Time, s2: u64) -> bool {
    t1 > t2 || (t1 == t2 && s1 > s2)
}

impl Rack {
    /// Packet `seq` left at `now`; `again`: it was sent before.
    pub fn on_send(&mut self, seq: u64, now: Time, again: bool) {
        self.sent.push_back((now, seq));
        if again {
            self.resent_at.insert(seq, now);
        }
    }

    /// The latest transmission time of packet `seq`, as the window knew it (`packet`).
    fn xmit_time(&self, seq: u64, packet: SentPacket) -> Time {
        if packet.retransmitted {
            if let Some(&t) = self.resent_at.get(&seq) {
                return t;
            }
        }
        packet.first_sent
    }

    /// A round trip measured by an ACK's echo of the transmission that caused it.
    pub fn sample_rtt(&mut self, rtt: Time) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// Packet `seq` was newly delivered (cumulatively acknowledged or SACKed) by an ACK that
    /// arrived at `now` echoing a transmission at `echoed` (§6.2 step 2).
    pub fn delivered(&mut self, seq: u64, packet: SentPacket, now: Time, echoed: Time) {
        let sent = self.xmit_time(seq, packet);
        let rtt = now.saturating_sub(sent);
        if packet.retransmitted && (echoed < sent || self.min_rtt.is_some_and(|m| rtt < m)) {
            return; // this may be the delivery of an earlier copy
        }
        if self.latest.is_none_or(|l| sent_after(sent, seq, l.sent, l.seq)) {
            self.latest = Some(Latest { sent, seq, rtt });
        }
    }

    /// The cumulative acknowledgement reached `una`: nothing below it is retransmitted.
    pub fn acknowledged(&mut self, una: u64) {
        if self.resent_at.first_key_value().is_some_and(|(&s, _)| s < una) {
            self.resent_at = self.resent_at.split_off(&una);
        }
    }

    /// §6.2 step 4, on each ACK: a D-SACK (`dsack`) raises the multiplier once per round trip
    /// (until what was next to send, `nxt`, is acknowledged), `una` being the cumulative ACK.
    pub fn dsack_seen(&mut self, una: u64, nxt: u64, dsack: bool) {
        if self.dsack_round.is_some_and(|r| una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack {
            self.dsack_round = Some(nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// A fast recovery (or the repair after a timeout) ended without a D-SACK since the last
    /// raise: after 16 of those the multiplier returns to 1.
    pub fn recovery_ended(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// The reordering window (§6.2 step 4's `RACK_update_reo_wnd`).
    pub fn reo_wnd(
        &self,
        reordering_seen: bool,
        in_recovery: bool,
        sacked: u64,
        dupthresh: u64,
        srtt: Option<Time>,
    ) -> Time {
        if !reordering_seen && (in_recovery || sacked >= dupthresh) {
            return Time::ZERO;
        }
        let Some(min_rtt) = self.min_rtt else { return Time::ZERO };
        let wnd = Time(min_rtt.0 / 4 * self.reo_wnd_mult as u64);
        srtt.map_or(wnd, |s| wnd.min(s))
    }

    /// §6.2 step 5: marks lost in `win` every packet sent before the latest delivered one whose
    /// deadline has passed at `now`; returns how many, and how long until the last deadline of
    /// those still waiting (the reordering timer), if any wait.
    pub fn detect_loss(&mut self, win: &mut SendWindow, now: Time, reo_wnd: Time) -> (u64, Option<Time>) {
        let Some(latest) = self.latest else { return (0, None) };
        let (mut lost, mut wait) = (0, None);
        let mut i = 0;
        while let Some(&(sent, seq)) = self.sent.get(i) {
            if !self.is_current(win, sent, seq) {
                if i == 0 {
                    self.sent.pop_front();
                } else {
                    i += 1;
                }
                continue;
            }
            if !sent_after(latest.sent, latest.seq, sent, seq) {
                break; // this one and every later one left after the latest delivered
            }
            let deadline = sent + latest.rtt + reo_wnd;
            if deadline <= now {
                win.mark_lost(seq);
                lost += 1;
                if i == 0 {
                    self.sent.pop_front();
                } else {
                    i += 1;
                }
            } else {
                wait = Some(deadline - now);
                i += 1;
            }
        }
        (lost, wait)
    }

    /// Whether transmission (`sent`, `seq`) is still the packet's latest, and it is still
    /// waiting for delivery: not acknowledged, SACKed, or deemed lost since.
    fn is_current(&self, win: &SendWindow, sent: Time, seq: u64) -> bool {
        if seq < win.una() || seq >= win.high() {
            return false;
        }
        let p = win.packet(seq);
        !p.sacked && (!p.lost || p.rxt_out) && self.xmit_time(seq, p) == sent
    }
}

#[cfg(test)]
mod tests;
