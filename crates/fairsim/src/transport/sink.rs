//! The receiving side of a flow-controlled conversation.
//!
//! As in the thesis (§6.5), the sink acknowledges every data packet with a cumulative ACK: the
//! ACK carries the next sequence number expected, so every lower one has arrived. Out-of-order
//! packets are remembered so that a retransmission that fills a hole advances the ACK past them.

use std::collections::VecDeque;

#[derive(Debug, Default)]
pub struct Receiver {
    /// Next sequence number expected.
    next: u64,
    /// `received[i]`: whether packet `next + i` has arrived (index 0 is always false).
    received: VecDeque<bool>,
}

impl Receiver {
    /// Records packet `seq`; returns whether it is new (not a duplicate).
    pub fn receive(&mut self, seq: u64) -> bool {
        if seq < self.next {
            return false;
        }
        let off = (seq - self.next) as usize;
        if off >= self.received.len() {
            self.received.resize(off + 1, false);
        }
        if self.received[off] {
            return false;
        }
        self.received[off] = true;
        while self.received.front() == Some(&true) {
            self.received.pop_front();
            self.next += 1;
        }
        true
    }

    /// The cumulative acknowledgement: the next sequence number expected.
    pub fn ack(&self) -> u64 {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_ack_waits_for_holes_and_spots_duplicates() {
        let mut r = Receiver::default();
        assert!(r.receive(0));
        assert_eq!(r.ack(), 1);
        assert!(r.receive(2));
        assert!(r.receive(3));
        assert_eq!(r.ack(), 1, "packet 1 is missing");
        assert!(!r.receive(3), "duplicate above the hole");
        assert!(r.receive(1));
        assert_eq!(r.ack(), 4, "the retransmission fills the hole");
        assert!(!r.receive(0), "duplicate below the ACK");
    }
}
