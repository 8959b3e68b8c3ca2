//! Reordering as a SACK sender sees it: a packet delivered below the highest one delivered
//! before, which was not sent again, arrived out of order.
//!
//! Two uses:
//! - RACK's `reordering_seen` (RFC 8985 §6.2 step 3, `RACK_detect_reordering`), which widens
//!   the reordering window once reordering has been seen;
//! - with `adaptive`, the duplicate threshold that Linux raises to the degree of reordering it
//!   observes (`tp->reordering`, raised in `tcp_check_sack_reordering` to the distance in
//!   packets between the highest packet SACKed and the late one, at most
//!   `net.ipv4.tcp_max_reordering` = 300). The SACK recovery's `IsLost` and RACK's "DupThresh
//!   packets SACKed" rule read it.
//!
//! A D-SACK of a packet also shows reordering (Linux's `tcp_sacktag_one` takes a D-SACKed
//! retransmission as the original arriving late): its distance below the highest packet
//! delivered counts as above, although it was sent again.
//!
//! Choices: the threshold never falls back (Linux lowers it again only after a timeout that
//! finds no reordering, which a run here does not model); without SACK nothing is seen (Linux
//! infers a little from duplicate ACKs there, `tcp_check_reno_reordering`).

/// Linux's `net.ipv4.tcp_max_reordering`.
pub const MAX_REORDERING: u64 = 300;

#[derive(Copy, Clone, Debug)]
pub struct Reordering {
    /// One past the highest packet delivered [RACK.fack].
    fack: u64,
    seen: bool,
    threshold: u64,
    adaptive: bool,
}

impl Reordering {
    /// Starting from duplicate threshold `threshold`, raised if `adaptive`.
    pub fn new(threshold: u64, adaptive: bool) -> Reordering {
        Reordering { fack: 0, seen: false, threshold, adaptive }
    }

    /// Packet `seq` was newly delivered; `retransmitted`: it had been sent again (its lateness
    /// may be a loss's repair, not reordering).
    #[inline]
    pub fn delivered(&mut self, seq: u64, retransmitted: bool) {
        if seq + 1 > self.fack {
            self.fack = seq + 1;
        } else if seq + 1 < self.fack && !retransmitted {
            self.late(seq);
        }
    }

    /// A D-SACK reported packet `seq` a duplicate: its first copy was late, not lost.
    pub fn dsacked(&mut self, seq: u64) {
        if seq + 1 < self.fack {
            self.late(seq);
        }
    }

    /// Packet `seq` arrived after `fack - 1`.
    fn late(&mut self, seq: u64) {
        self.seen = true;
        if self.adaptive {
            self.threshold = self.threshold.max(self.fack - seq).min(MAX_REORDERING.max(self.threshold));
        }
    }

    pub fn seen(&self) -> bool {
        self.seen
    }

    /// The duplicate threshold now.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_packet_that_was_not_sent_again_is_reordering() {
        let mut r = Reordering::new(3, false);
        for seq in [0, 1, 3, 4] {
            r.delivered(seq, false);
        }
        assert!(!r.seen(), "in order so far, with a hole at 2");
        r.delivered(2, true);
        assert!(!r.seen(), "a retransmission filling the hole is a repair");
        let mut r = Reordering::new(3, false);
        [0, 3, 2].into_iter().for_each(|s| r.delivered(s, false));
        assert!(r.seen());
        assert_eq!(r.threshold(), 3, "not adaptive");
    }

    #[test]
    fn the_adaptive_threshold_rises_to_the_distance_seen_and_stays_below_linuxs_limit() {
        let mut r = Reordering::new(3, true);
        [0, 9, 2].into_iter().for_each(|s| r.delivered(s, false));
        assert_eq!(r.threshold(), 8, "packet 2 arrived after 9: fack 10 - 2");
        r.delivered(5, false);
        assert_eq!(r.threshold(), 8, "a smaller distance leaves it");
        r.delivered(1_000, false);
        r.delivered(1, false);
        assert_eq!(r.threshold(), MAX_REORDERING);
    }
}
