//! Tail loss probes: RFC 8985 §7 (TLP, the second half of RACK-TLP).
//!
//! When the last packets of a flight are lost no later packet is delivered, so neither
//! duplicate ACKs nor RACK can tell; only the retransmission timer would, after an RTO. TLP
//! instead sends one probe a probe timeout (PTO, about two round trips) after the last
//! transmission or ACK: new data if the receiver's window and the application allow, else the
//! highest packet sent again. The probe's ACK (with SACK) lets RACK find the losses.
//!
//! - PTO (§7.2 `TLP_calc_PTO`): 2·SRTT, plus the receiver's worst-case delayed-ACK time when
//!   one packet is outstanding; 1 s before any round-trip sample; never past the RTO's expiry.
//!   It is armed after new data is sent or an ACK acknowledges new data, only while the sender
//!   is not recovering and nothing is SACKed (then RACK's own timer watches).
//! - One probe per episode: another is sent only once the last one's episode ended.
//! - The episode's end (§7.4, as Linux's `tcp_process_tlp_ack`): once the cumulative ACK reaches
//!   what was sent at the probe, a probe of new data ends it (RACK repairs any loss); a probe
//!   that was a retransmission ends it without loss if a D-SACK reports the probe, or a pure
//!   duplicate ACK follows (the original and the probe both arrived), and with a loss if the
//!   ACK goes beyond (the probe repaired it): the window is then reduced once, as for a fast
//!   recovery that ends at once.
//!
//! Choices: the worst-case delayed-ACK time is the flow's own `ack_delay` when its sink delays
//! ACKs and 0 when it acknowledges every packet (the RFC's WCDelAckT, 200 ms in Linux, is a
//! guess at a receiver it cannot see; here the sink is known).

use crate::units::Time;

/// The PTO before any round-trip sample (§7.2).
pub const PTO_WITHOUT_SAMPLE: Time = Time::from_secs(1);

/// §7.2's PTO for round-trip estimate `srtt` with `flight` packets outstanding and a receiver
/// that may hold an ACK for `max_ack_delay`.
pub fn pto(srtt: Option<Time>, flight: u64, max_ack_delay: Time) -> Time {
    match srtt {
        Some(srtt) if flight == 1 => Time(2 * srtt.0) + max_ack_delay,
        Some(srtt) => Time(2 * srtt.0),
        None => PTO_WITHOUT_SAMPLE,
    }
}

/// A probe whose episode has not ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Episode {
    /// What was next to send after the probe [TLP.end_seq].
    pub end: u64,
    /// The probe was this packet sent again (`None`: new data).
    pub resent: Option<u64>,
}

/// How an ACK ended a probe's episode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not yet.
    Open,
    /// Nothing was lost, or RACK repairs it.
    NoLoss,
    /// The probe repaired a loss: reduce the window once.
    Loss,
}

/// What the ACK showed, as §7.4 reads it.
#[derive(Copy, Clone, Debug)]
pub struct AckView {
    /// The cumulative acknowledgement.
    pub ack: u64,
    /// It advanced the cumulative acknowledgement, or SACKed new data.
    pub news: bool,
    /// Its D-SACK block, if it carries one.
    pub dsack: Option<(u64, u64)>,
}

impl Episode {
    /// §7.4's verdict on an ACK.
    pub fn on_ack(&self, a: AckView) -> Outcome {
        if a.ack < self.end {
            return Outcome::Open;
        }
        let Some(probe) = self.resent else { return Outcome::NoLoss };
        if a.dsack.is_some_and(|(s, e)| (s..e).contains(&probe)) {
            Outcome::NoLoss
        } else if a.ack > self.end {
            Outcome::Loss
        } else if !a.news {
            Outcome::NoLoss
        } else {
            Outcome::Open
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_timeout_is_two_round_trips_and_waits_for_a_delayed_ack_of_one_packet() {
        let ms = Time::from_millis;
        assert_eq!(pto(Some(ms(10)), 5, ms(200)), ms(20));
        assert_eq!(pto(Some(ms(10)), 1, ms(200)), ms(220));
        assert_eq!(pto(None, 5, ms(200)), Time::from_secs(1));
    }

    fn view(ack: u64, news: bool, dsack: Option<(u64, u64)>) -> AckView {
        AckView { ack, news, dsack }
    }

    #[test]
    fn a_resent_probe_tells_a_loss_from_a_late_original() {
        // packets 0..10 sent, the probe resent 9; what was next to send: 10
        let e = Episode { end: 10, resent: Some(9) };
        assert_eq!(e.on_ack(view(8, true, None)), Outcome::Open);
        assert_eq!(e.on_ack(view(10, true, None)), Outcome::Open, "the original or the probe: wait");
        assert_eq!(e.on_ack(view(10, false, Some((9, 10)))), Outcome::NoLoss, "both arrived: D-SACK");
        assert_eq!(e.on_ack(view(10, false, None)), Outcome::NoLoss, "both arrived: a pure duplicate");
        assert_eq!(e.on_ack(view(12, true, None)), Outcome::Loss, "the probe repaired the tail");
        let new = Episode { end: 11, resent: None };
        assert_eq!(new.on_ack(view(11, true, None)), Outcome::NoLoss, "a probe of new data");
    }
}
