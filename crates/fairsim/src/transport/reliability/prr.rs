//! Proportional Rate Reduction: how much a sender in loss recovery may send on each ACK.
//!
//! Reference: RFC 6937 (M. Mathis, N. Dukkipati, Y. Cheng, 2013), §3's algorithm, over packets
//! (MSS = one packet). At the start of recovery RecoverFS is what was in flight; on each ACK the
//! packets it delivered (cumulatively or by SACK) add to `prr_delivered`. While the pipe is above
//! ssthresh the sender sends in proportion, ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out,
//! so the window falls smoothly to ssthresh over one round trip; below it, the slow-start
//! reduction bound (PRR-SSRB, the RFC's recommended bound) lets it catch up by at most one
//! packet more than was delivered.
//!
//! Choice: the ACK that starts recovery may always send the fast retransmission (Linux does
//! this; the RFC's step 4.3 of RFC 6675 mandates that retransmission), so `sndcnt` is at least
//! one while nothing has been sent in the recovery.

/// PRR's state during one recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Prr {
    /// Packets in flight when recovery began.
    recover_fs: u64,
    /// Packets delivered to the receiver during recovery.
    delivered: u64,
    /// Packets sent during recovery.
    out: u64,
}

impl Prr {
    /// Recovery starts with `flight` packets outstanding.
    pub fn begin(flight: u64) -> Prr {
        Prr { recover_fs: flight.max(1), delivered: 0, out: 0 }
    }

    /// An ACK delivered `delivered` packets; `pipe` are in the network and the controller's
    /// ssthresh is `ssthresh`. Returns how many packets may be sent now (`sndcnt`).
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            (self.delivered * ssthresh).div_ceil(self.recover_fs).saturating_sub(self.out)
        } else {
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + 1;
            (ssthresh - pipe).min(limit)
        };
        sndcnt.max((self.out == 0) as u64)
    }

    /// A packet (new or retransmitted) was sent during recovery.
    pub fn sent(&mut self) {
        self.out += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs PRR over a recovery in which one packet of `flight` was lost and every later ACK
    /// delivers one packet: the sends of each ACK, the pipe falling as packets leave and rising
    /// as they are sent.
    fn one_loss(flight: u64, ssthresh: u64) -> Vec<u64> {
        let mut prr = Prr::begin(flight);
        let mut pipe = flight - 1; // the lost packet is not in the network
        let mut sends = vec![];
        for _ in 0..flight - 1 {
            pipe -= 1; // this ACK's packet left the network
            let n = prr.on_ack(1, pipe, ssthresh);
            for _ in 0..n {
                prr.sent();
                pipe += 1;
            }
            sends.push(n);
        }
        sends
    }

    #[test]
    fn reno_halving_sends_one_packet_for_every_two_delivered() {
        // RFC 6937 §5 (Figure 2's PRR row): 20 packets in flight, one lost, ssthresh 10: the
        // fast retransmission on the first ACK, then one new packet on every second ACK
        let sends = one_loss(20, 10);
        assert_eq!(&sends[..6], &[1, 0, 1, 0, 1, 0]);
        assert_eq!(sends.iter().sum::<u64>(), 10, "by the end of recovery ssthresh packets were sent");
    }

    #[test]
    fn cubic_reduction_sends_seven_packets_for_every_ten_delivered() {
        // the same with β = 0.7 (ssthresh 14 of 20): ⌈k·14/20⌉ sent after k deliveries while the
        // pipe is above ssthresh (the first 14 ACKs), and the window ends at ssthresh
        let sends = one_loss(20, 14);
        let mut total = 0;
        for (k, n) in sends.iter().enumerate().take(14) {
            total += n;
            assert_eq!(total, ((k as u64 + 1) * 14).div_ceil(20), "after {} ACKs", k + 1);
        }
        assert_eq!(sends.iter().sum::<u64>(), 14);
    }

    #[test]
    fn below_ssthresh_the_slow_start_bound_allows_one_more_than_was_delivered() {
        // RFC 6937 §3, PRR-SSRB: with the pipe far below ssthresh after many losses, each ACK
        // may send what it delivered plus one, never more than ssthresh − pipe
        let mut prr = Prr::begin(20);
        assert_eq!(prr.on_ack(1, 2, 10), 2, "delivered 1, +1");
        prr.sent();
        prr.sent();
        assert_eq!(prr.on_ack(3, 4, 10), 4, "delivered 3 (prr_delivered − prr_out = 2), +1");
        assert_eq!(prr.on_ack(1, 9, 10), 1, "capped by ssthresh − pipe");
    }

    #[test]
    fn the_first_ack_of_recovery_may_always_send_the_fast_retransmission() {
        let mut prr = Prr::begin(20);
        assert_eq!(prr.on_ack(0, 19, 10), 1);
        prr.sent();
        assert_eq!(prr.on_ack(0, 19, 10), 0, "after it, nothing more until packets are delivered");
    }
}
