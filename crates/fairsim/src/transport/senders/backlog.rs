//! What a receiver-driven sender (NDP, EQDS) has to send, and the pull numbers it has heard: the
//! part of their state the two share.

use crate::net::Packet;
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
