//! Delivery-rate samples, as draft-cheng-iccrg-delivery-rate-estimation-00 (Y. Cheng, N.
//! Cardwell, S. Hassas Yeganeh, V. Jacobson, 2017) and Linux's `tcp_rate.c` take them.
//!
//! At each transmission the packet remembers the connection's `delivered` count, the time of
//! the last delivery (`delivered_time`), the send time of the packet that last gave a sample
//! (`first_sent_time`) and whether the sender was application-limited. When an ACK delivers it,
//! the rate is the packets delivered since, over the longer of the send phase (its send time
//! less its `first_sent_time`) and the ACK phase (now less its `delivered_time`): the longer one
//! keeps an ACK compressed on its way back, or a burst of sends, from inflating the rate (§3.1).
//!
//! Without SACK, as Linux does for a Reno connection, each duplicate ACK counts as one packet
//! delivered (it says a packet beyond the hole arrived), and the cumulative ACK that follows
//! counts only what those duplicates did not: it always delivers at least the hole it filled.
//! Duplicate ACKs name no packet, so they give no rate sample.

use super::window::SendWindow;
use crate::net::Packet;
use crate::units::Time;
use std::collections::VecDeque;

/// What one transmission remembers (§3.2, "upon sending a packet").
#[derive(Copy, Clone, Debug, PartialEq)]
struct Record {
    sent: Time,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    app_limited: bool,
}

/// One sample (§3.3): `delivered` packets over `interval`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateSample {
    pub delivered: u64,
    pub interval: Time,
    /// The connection's `delivered` when the sample's packet was sent: a round trip has passed
    /// once this reaches the count when the round began.
    pub prior_delivered: u64,
    /// The sender was application-limited when the packet left: the rate may be too low.
    pub app_limited: bool,
}

impl RateSample {
    /// Packets per second.
    pub fn rate(&self) -> f64 {
        self.delivered as f64 / self.interval.as_secs_f64()
    }
}

/// What an ACK delivered.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Delivery {
    /// Packets newly counted as delivered (Linux's `acked_sacked`).
    pub acked: u64,
    /// The rate sample, if the ACK gave a valid one.
    pub sample: Option<RateSample>,
}

#[derive(Debug, Default)]
pub struct DeliveryRate {
    /// Packets delivered so far (cumulatively acknowledged, or reported by a duplicate ACK).
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// Non-zero: samples are application-limited until `delivered` passes it (§3.4).
    app_limited_until: u64,
    /// Records of packets `una..una + records.len()`.
    una: u64,
    records: VecDeque<Record>,
    /// Duplicate ACKs counted as delivered and not yet covered by a cumulative ACK (Linux's
    /// `sacked_out` for a connection without SACK): what the sender leaves out of its pipe.
    pub dup_delivered: u64,
    /// Packets beyond the hole counted as delivered and not yet covered by a cumulative ACK:
    /// `dup_delivered`, and those a retransmission timeout made the sender forget.
    counted_ahead: u64,
    /// The shortest round trip seen: a sample over a shorter interval is not believed (§3.3).
    pub min_rtt: Option<Time>,
}

impl DeliveryRate {
    /// Packets sent and not yet acknowledged (Linux's `packets_out`).
    pub fn outstanding(&self) -> u64 {
        self.records.len() as u64
    }

    /// Packet `seq` leaves at `now`, the first time or again.
    pub fn on_send(&mut self, seq: u64, now: Time) {
        if self.records.is_empty() {
            // nothing in flight: the send and ACK phases start now (§3.2)
            self.first_sent_time = now;
            self.delivered_time = now;
            self.una = seq;
        }
        let r = Record {
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until != 0,
        };
        match seq.checked_sub(self.una).map(|i| i as usize) {
            Some(i) if i < self.records.len() => self.records[i] = r,
            Some(i) if i == self.records.len() => self.records.push_back(r),
            _ => {} // already acknowledged, or past a gap the layer never leaves
        }
    }

    /// Whether samples are application-limited for now.
    pub fn app_limited(&self) -> bool {
        self.app_limited_until != 0
    }

    /// The application has nothing to send and less than the window is in flight (`pipe`
    /// packets): samples are application-limited until those have been delivered (§3.4).
    pub fn mark_app_limited(&mut self, pipe: u64) {
        self.app_limited_until = (self.delivered + pipe).max(1);
    }

    /// `ack`, arriving at `now` before the layer slides `win` over it: a cumulative ACK delivers
    /// what it covers and its echo gives a round trip (returned); a duplicate, as the layer
    /// counts them, one packet beyond the hole; any other, nothing.
    pub fn on_ack(&mut self, ack: &Packet, win: &SendWindow, now: Time) -> (Delivery, Option<Time>) {
        if ack.seq > win.una() {
            let rtt = now - ack.echo_sent_at;
            self.on_rtt(rtt);
            (self.on_cumulative(ack.seq.min(win.high()), now), Some(rtt))
        } else if ack.seq == win.una() && win.in_flight() > 0 {
            (self.on_duplicate(now), None)
        } else {
            (Delivery { acked: 0, sample: None }, None)
        }
    }

    /// After `ack` (`win` not yet slid over it): the oldest unacknowledged packet, the next to
    /// send, and the pipe: what is outstanding less what duplicate ACKs reported delivered.
    pub fn after(&self, ack: &Packet, win: &SendWindow) -> (u64, u64, u64) {
        let una = ack.seq.clamp(win.una(), win.high());
        let nxt = win.nxt().max(una);
        (una, nxt, (nxt - una).saturating_sub(self.dup_delivered))
    }

    /// After an ACK: a sender that has sent everything it has (`nxt` reached both the highest
    /// packet sent and the application's `app_limit`) with fewer than `cwnd` packets in the
    /// `pipe` is application-limited (§3.4).
    pub fn note_app_limited(&mut self, nxt: u64, win: &SendWindow, app_limit: u64, pipe: u64, cwnd: u64) {
        if nxt >= win.high() && nxt >= app_limit && pipe < cwnd {
            self.mark_app_limited(pipe);
        }
    }

    /// A duplicate ACK: one more packet beyond the hole arrived, if any is outstanding beyond it.
    pub fn on_duplicate(&mut self, now: Time) -> Delivery {
        if self.counted_ahead + 1 >= self.outstanding() {
            return Delivery { acked: 0, sample: None };
        }
        self.dup_delivered += 1;
        self.counted_ahead += 1;
        self.delivered += 1;
        self.delivered_time = now;
        self.clear_app_limited();
        Delivery { acked: 1, sample: None }
    }

    /// A cumulative ACK: every packet below `ack` has arrived.
    pub fn on_cumulative(&mut self, ack: u64, now: Time) -> Delivery {
        let count = ack.saturating_sub(self.una).min(self.outstanding());
        if count == 0 {
            return Delivery { acked: 0, sample: None };
        }
        // the newest transmission among those acknowledged gives the sample (§3.3)
        let newest = self.records.drain(..count as usize).max_by_key(|r| (r.delivered, r.sent)).expect("count > 0");
        self.una += count;
        self.dup_delivered -= self.dup_delivered.min(count - 1);
        let covered = self.counted_ahead.min(count - 1);
        self.counted_ahead -= covered;
        let acked = count - covered;
        self.delivered += acked;
        self.delivered_time = now;
        self.first_sent_time = newest.sent;
        self.clear_app_limited();
        let send_phase = newest.sent - newest.first_sent_time;
        let ack_phase = now - newest.delivered_time;
        let interval = send_phase.max(ack_phase);
        let sample = RateSample {
            delivered: self.delivered - newest.delivered,
            interval,
            prior_delivered: newest.delivered,
            app_limited: newest.app_limited,
        };
        let believed = interval > Time::ZERO && self.min_rtt.is_none_or(|m| interval >= m);
        Delivery { acked, sample: believed.then_some(sample) }
    }

    /// A retransmission timeout: duplicate ACKs no longer say what is in flight (Linux marks
    /// everything lost and forgets its SACK emulation). The packets they reported stay counted
    /// as delivered, so the cumulative ACK that jumps over them does not count them again
    /// (Linux does, and its next rate sample is inflated by as many packets).
    pub fn on_timeout(&mut self) {
        self.dup_delivered = 0;
    }

    pub fn on_rtt(&mut self, rtt: Time) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    fn clear_app_limited(&mut self) {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
    }
}
