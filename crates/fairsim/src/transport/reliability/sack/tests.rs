use super::*;
use crate::transport::reliability::sink::{AckPolicy, Echo, Receiver};
use crate::units::Time;

fn receiver() -> Receiver {
    Receiver::new(AckPolicy { sack: true, ..Default::default() })
}

/// The receiver takes packet `seq`; returns the cumulative ACK and the blocks of its ACK.
fn take(r: &mut Receiver, seq: u64) -> (u64, Vec<(u64, u64)>) {
    let echo = Echo { sent_at: Time::ZERO, arrived: Time::ZERO, seq, congestion: false, cumulative: 0 };
    r.take(seq, echo, false, Time::ZERO);
    (r.ack(), r.take_sack_blocks().as_slice().to_vec())
}

#[test]
fn rfc_2018_case_3_every_other_segment_lost_then_the_holes_filled() {
    // RFC 2018 §4 case 3 in packets (segment k starts at byte 5000 + 500k): segments 1, 3, 5, 7
    // are lost; each ACK's first block holds the segment that caused it, the others repeat the
    // most recent blocks
    let mut r = receiver();
    assert_eq!(take(&mut r, 0), (1, vec![]));
    assert_eq!(take(&mut r, 2), (1, vec![(2, 3)]));
    assert_eq!(take(&mut r, 4), (1, vec![(4, 5), (2, 3)]));
    assert_eq!(take(&mut r, 6), (1, vec![(6, 7), (4, 5), (2, 3)]));
    // "the 4th segment is received out of order": its block swallows two reported ones
    assert_eq!(take(&mut r, 3), (1, vec![(2, 5), (6, 7)]));
    // "the 2nd segment is received": the cumulative ACK moves to 5 (byte 7500)
    assert_eq!(take(&mut r, 1), (5, vec![(6, 7)]));
}

#[test]
fn rfc_2018_case_2_first_segment_lost_one_growing_block() {
    let mut r = receiver();
    for k in 1..8 {
        assert_eq!(take(&mut r, k), (0, vec![(1, k + 1)]));
    }
    assert_eq!(take(&mut r, 0), (8, vec![]));
}

#[test]
fn at_most_three_blocks_the_most_recent_kept() {
    let mut r = receiver();
    for k in [1, 3, 5, 7] {
        take(&mut r, k);
    }
    assert_eq!(r.take_sack_blocks().as_slice(), &[(7, 8), (5, 6), (3, 4)]);
    assert_eq!(r.take_sack_blocks().option_bytes(), 4 + 24, "two NOPs, kind, length, 3 × 8 bytes");
}

/// A window with packets `0..high` sent and `sacked` reported.
fn window(high: u64, sacked: &[u64]) -> SendWindow {
    let mut w = SendWindow::default();
    for _ in 0..high {
        w.send_next(Time::ZERO);
    }
    for &s in sacked {
        w.mark_sacked(s, s + 1);
    }
    w
}

#[test]
fn is_lost_needs_dupthresh_sacked_packets_above() {
    // RFC 6675 §4 IsLost: "DupThresh discontiguous SACKed sequences" above the packet
    let w = window(10, &[3, 5, 6, 8]);
    assert_eq!(lost_below(&w, 3), 5, "0, 1, 2 and 4 have 8, 6, 5 above them; 7 only 8");
    assert_eq!(lost_below(&window(10, &[8, 9]), 3), 0, "fewer than three SACKed: nothing lost");
}

#[test]
fn set_pipe_counts_unsacked_packets_once_if_not_lost_and_once_more_if_retransmitted() {
    let w = window(10, &[3, 5, 6, 8]);
    let mut rec = SackRecovery::begin(0);
    rec.retransmitted(0);
    // unSACKed: 0 (lost, retransmitted: 1), 1, 2, 4 (lost: 0), 7, 9 (not lost: 1 each)
    assert_eq!(rec.pipe(&w, 3), 3);
}

proptest::proptest! {
    /// The counted pipe is RFC 6675's `SetPipe` as written: a scan of every unSACKed packet.
    #[test]
    fn the_counted_pipe_is_the_scanned_one(
        high in 0u64..60,
        sacked in proptest::collection::vec(0u64..60, 0..30),
        rxt_next in 0u64..70,
        dupthresh in 1u64..5,
    ) {
        let sacked: Vec<u64> = sacked.into_iter().filter(|&s| s < high).collect();
        let w = window(high, &sacked);
        let rec = SackRecovery { rxt_next, ..SackRecovery::begin(0) };
        let lost_below = lost_below(&w, dupthresh);
        let scanned: u64 = (w.una()..w.high())
            .filter(|&s| !w.is_sacked(s))
            .map(|s| (s >= lost_below) as u64 + (s < rxt_next) as u64)
            .sum();
        proptest::prop_assert_eq!(rec.pipe(&w, dupthresh), scanned);
    }
}

#[test]
fn next_seg_follows_the_rules_in_order() {
    let mut w = window(10, &[3, 5, 6, 8]);
    let mut rec = SackRecovery::begin(0);
    rec.retransmitted(0);
    // rule 1: lost holes above HighRxt, lowest first
    for hole in [1, 2, 4] {
        assert_eq!(rec.next_seg(&w, 3, true, false), Some(Next::Retransmit(hole)));
        rec.retransmitted(hole);
    }
    // 7 is a hole below the highest SACKed packet but not lost: new data first (rule 2) ...
    assert_eq!(rec.next_seg(&w, 3, true, false), Some(Next::New));
    // ... and when none may be sent, the hole (rule 3)
    assert_eq!(rec.next_seg(&w, 3, false, true), Some(Next::Retransmit(7)));
    rec.retransmitted(7);
    // rule 4 waits for the cumulative ACK to pass the first retransmission
    assert_eq!(rec.next_seg(&w, 3, false, true), None);
    w.on_ack(3);
    assert_eq!(rec.next_seg(&w, 3, false, false), None, "no rescue while the application has data");
    assert_eq!(rec.next_seg(&w, 3, false, true), Some(Next::Rescue(9)), "the highest unSACKed packet");
    assert_eq!(rec.next_seg(&w, 3, false, true), None, "one rescue per recovery");
}
