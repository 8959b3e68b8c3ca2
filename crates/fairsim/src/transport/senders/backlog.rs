//! What a receiver-driven sender (NDP, EQDS) has to send, the pull numbers it has heard, and its
//! last resort when nothing comes back: the part of their state the two share.

use crate::net::{Control, Packet};
use crate::transport::sender::{AgentCtx, Event, TimerId};
use crate::units::Time;
use std::collections::BTreeSet;

/// Packets the receiver got as headers (NACKed), sent again lowest first, then new data.
#[derive(Debug, Default)]
pub struct Backlog {
    /// The next new sequence number.
    next_new: u64,
    resend: BTreeSet<u64>,
}

impl Backlog {
    /// The next packet to send, taken from the backlog: a retransmission, else new data among
    /// the application's first `app_limit` packets.
    pub fn take(&mut self, app_limit: u64) -> Option<u64> {
        if let Some(seq) = self.resend.pop_first() {
            return Some(seq);
        }
        (self.next_new < app_limit).then(|| {
            self.next_new += 1;
            self.next_new - 1
        })
    }

    /// A NACK: its packet is sent again, unless the ACK it carries already covers it (a stale
    /// NACK of a duplicate).
    pub fn nacked(&mut self, nack: &Packet) {
        if nack.echo_seq >= nack.seq {
            self.resend.insert(nack.echo_seq);
        }
    }

    /// Whether a packet waits to be sent again (it goes next).
    pub fn resending(&self) -> bool {
        !self.resend.is_empty()
    }

    /// Packet `seq` no longer waits to be sent again (it was, another way).
    pub fn forget(&mut self, seq: u64) {
        self.resend.remove(&seq);
    }

    /// Packets waiting, with the application's first `app_limit`.
    pub fn len(&self, app_limit: u64) -> u64 {
        app_limit.saturating_sub(self.next_new) + self.resend.len() as u64
    }
}

/// The highest pull number heard: pulls are numbered per flow, so a lost one is made up by the
/// next.
#[derive(Debug, Default)]
pub struct PullsHeard(u64);

impl PullsHeard {
    /// Pull `number` arrived: how many pulls it brings that were not heard before.
    pub fn heard(&mut self, number: u64) -> u64 {
        let new = number.saturating_sub(self.0);
        self.0 = self.0.max(number);
        new
    }

    /// The highest number heard.
    pub fn last(&self) -> u64 {
        self.0
    }
}

/// The last resort of a receiver-driven sender (NDP's paper; htsim's EQDS RTO): when nothing has
/// come back for `rto` while packets are unacknowledged, the lowest of them goes again, unpulled,
/// and the flow counts a timeout; the receiver's answer to it brings pulls again. Without `rto`,
/// nothing.
#[derive(Debug)]
pub struct Unanswered {
    rto: Option<Time>,
    timer: TimerId,
    /// With `rto`: the packets sent and not yet acknowledged.
    unacked: BTreeSet<u64>,
}

impl Unanswered {
    pub fn new(rto: Option<Time>, timer: TimerId) -> Unanswered {
        Unanswered { rto, timer, unacked: BTreeSet::new() }
    }

    /// Packet `seq` was sent: the timeout starts if no packet was waiting for its answer (one
    /// that was keeps it: new data must not put it off, nothing came back).
    pub fn sent(&mut self, seq: u64, ctx: &mut AgentCtx) {
        if self.rto.is_some() {
            let idle = self.unacked.is_empty();
            self.unacked.insert(seq);
            if idle {
                self.restart(ctx);
            }
        }
    }

    /// Something came back, or was sent unpulled: the timeout starts again, if packets are
    /// unacknowledged.
    pub fn restart(&mut self, ctx: &mut AgentCtx) {
        if let Some(rto) = self.rto {
            if self.unacked.is_empty() {
                ctx.cancel_timer(self.timer);
            } else {
                ctx.set_timeout(self.timer, ctx.now + rto);
            }
        }
    }

    /// `ack` came back: what it acknowledges is answered, and the timeout starts again.
    pub fn answered(&mut self, ack: &Packet, ctx: &mut AgentCtx) {
        if self.rto.is_some() {
            // an ACK's and a NACK's `seq` is the cumulative acknowledgement; a pull's, its number
            if ack.control() != Control::Pull {
                if ack.control() == Control::Ack {
                    self.unacked.remove(&ack.echo_seq);
                }
                self.unacked = self.unacked.split_off(&ack.seq);
            }
            self.restart(ctx);
        }
    }

    /// The timeout expired: the lowest unacknowledged packet goes again at `priority`, and
    /// leaves `backlog` if it waited there.
    pub fn expired(&mut self, backlog: &mut Backlog, priority: u8, ctx: &mut AgentCtx) {
        let Some(&lowest) = self.unacked.first() else { return };
        ctx.count(Event::Timeout);
        backlog.forget(lowest);
        ctx.send_with_priority(lowest, priority);
        self.restart(ctx);
    }
}
