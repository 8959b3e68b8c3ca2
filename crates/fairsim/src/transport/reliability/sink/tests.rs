use super::*;

fn echo(seq: u64) -> Echo {
    Echo { sent_at: Time::from_millis(seq), arrived: Time::ZERO, seq, congestion: false, cumulative: 0 }
}

/// The ACK that echoes packet `seq` and acknowledges everything below `cumulative`.
fn ack(seq: u64, cumulative: u64) -> AckNow {
    AckNow::Send(Echo { cumulative, ..echo(seq) })
}

fn marked(seq: u64) -> Echo {
    Echo { congestion: true, ..echo(seq) }
}

fn delayed() -> Receiver {
    Receiver::new(AckPolicy { every: 2, delay: Time::from_millis(200), ..Default::default() })
}

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

#[test]
fn by_default_every_packet_is_acknowledged_at_once_echoing_itself() {
    let mut r = Receiver::default();
    for (seq, cumulative) in [(0, 1), (1, 2), (3, 2), (2, 4)] {
        assert_eq!(r.take(seq, echo(seq), false, Time::ZERO), (true, ack(seq, cumulative)));
    }
    assert_eq!(r.ack(), 4);
}

#[test]
fn delayed_acks_acknowledge_every_second_in_order_packet_echoing_the_first() {
    // RFC 5681 §4.2: an ACK at least for every second full-sized segment
    let mut r = delayed();
    let t = Time::from_secs(1);
    assert_eq!(r.take(0, echo(0), false, t), (true, AckNow::Hold(Some(t + Time::from_millis(200)))));
    assert!(r.holding());
    // RFC 7323 §4.3: the delayed ACK echoes the earliest unacknowledged segment
    assert_eq!(r.take(1, echo(1), false, t), (true, ack(0, 2)));
    assert_eq!(r.ack(), 2);
    assert!(!r.holding());
    assert_eq!(r.on_timer(), None, "a timer left armed finds nothing to acknowledge");
}

#[test]
fn the_timer_acknowledges_a_lone_packet() {
    // RFC 1122 §4.2.3.2: an ACK must not be delayed beyond the timer (at most 500 ms)
    let mut r = delayed();
    assert_eq!(r.take(0, echo(0), false, Time::ZERO), (true, AckNow::Hold(Some(Time::from_millis(200)))));
    assert_eq!(r.on_timer(), Some(Echo { cumulative: 1, ..echo(0) }));
    assert_eq!(r.on_timer(), None);
    // the next in-order packet starts a new wait
    assert_eq!(r.take(1, echo(1), false, Time::from_secs(1)), (true, AckNow::Hold(Some(Time::from_millis(1200)))));
}

#[test]
fn out_of_order_data_hole_fills_and_duplicates_are_acknowledged_at_once() {
    // RFC 5681 §4.2: immediate ACKs for out-of-order segments and for segments filling a gap
    let mut r = delayed();
    r.take(0, echo(0), false, Time::ZERO);
    // packet 1 is lost: 2 is out of order, and its ACK also covers the held packet 0
    assert_eq!(r.take(2, echo(2), false, Time::ZERO), (true, ack(0, 1)));
    assert_eq!(r.take(3, echo(3), false, Time::ZERO), (true, ack(3, 1)), "a duplicate ACK");
    // the retransmission fills the hole: acknowledged at once, cumulative past 3
    assert_eq!(r.take(1, echo(1), false, Time::ZERO), (true, ack(1, 4)));
    // a duplicate of old data
    assert_eq!(r.take(2, echo(2), false, Time::ZERO), (false, ack(2, 4)));
    // in order again: delayed
    assert!(matches!(r.take(4, echo(4), false, Time::ZERO), (true, AckNow::Hold(Some(_)))));
}

#[test]
fn a_delayed_ack_carries_the_congestion_bit_of_any_packet_it_acknowledges() {
    let mut r = delayed();
    r.take(0, echo(0), false, Time::ZERO);
    let expected = AckNow::Send(Echo { congestion: true, cumulative: 2, ..echo(0) });
    assert_eq!(r.take(1, marked(1), false, Time::ZERO), (true, expected));
}

#[test]
fn classic_ecn_echoes_ece_from_a_mark_until_a_cwr() {
    // RFC 3168 §6.1.3
    let mut r = Receiver::new(AckPolicy { ecn: EcnEcho::Classic, ..Default::default() });
    let ece = |reply: AckNow| match reply {
        AckNow::Send(e) => e.congestion,
        AckNow::Hold(_) | AckNow::Nack(_) => panic!("every packet is acknowledged"),
    };
    assert!(!ece(r.take(0, echo(0), false, Time::ZERO).1));
    assert!(ece(r.take(1, marked(1), false, Time::ZERO).1), "the CE mark");
    assert!(ece(r.take(2, echo(2), false, Time::ZERO).1), "ECE stays on");
    assert!(!ece(r.take(3, echo(3), true, Time::ZERO).1), "until the sender's CWR");
    assert!(ece(r.take(4, marked(4), true, Time::ZERO).1), "a CWR packet that is itself marked");
}

#[test]
fn dctcp_echoes_each_packets_mark_and_acks_at_once_when_it_changes() {
    // RFC 8257 §3.2, with delayed ACKs
    let mut r =
        Receiver::new(AckPolicy { every: 2, delay: Time::from_millis(200), ecn: EcnEcho::Dctcp, ..Default::default() });
    assert!(matches!(r.take(0, echo(0), false, Time::ZERO).1, AckNow::Hold(Some(_))));
    // the mark changes: packet 0 is acknowledged at once, unmarked, and 1 waits
    assert_eq!(r.take(1, marked(1), false, Time::ZERO).1, ack(0, 1));
    assert!(r.holding());
    let two = r.take(2, marked(2), false, Time::ZERO).1;
    assert_eq!(two, AckNow::Send(Echo { congestion: true, cumulative: 3, ..echo(1) }), "1 and 2, both marked");
    assert!(matches!(r.take(3, marked(3), false, Time::ZERO).1, AckNow::Hold(Some(_))));
    let back = r.take(4, echo(4), false, Time::ZERO).1;
    assert_eq!(back, AckNow::Send(Echo { congestion: true, cumulative: 4, ..echo(3) }), "3 alone, marked");
    assert_eq!(r.on_timer(), Some(Echo { cumulative: 5, ..echo(4) }), "4 alone, unmarked");
}

#[test]
fn a_go_back_n_sink_discards_a_packet_above_the_next_expected_and_nacks_it() {
    let mut r = Receiver::new(AckPolicy { go_back_n: true, ..Default::default() });
    assert!(!r.is_classic());
    assert_eq!(r.take(0, echo(0), false, Time::ZERO), (true, ack(0, 1)));
    // 1 is lost: 2 and 3 are discarded, each NACKed with the cumulative ACK at once
    for seq in [2, 3] {
        assert_eq!(
            r.take(seq, echo(seq), false, Time::ZERO),
            (false, AckNow::Nack(Echo { cumulative: 1, ..echo(seq) }))
        );
    }
    // the go-back: 1, 2, 3 in order; a duplicate is acknowledged
    for seq in 1..=3 {
        assert_eq!(r.take(seq, echo(seq), false, Time::ZERO), (true, ack(seq, seq + 1)));
    }
    assert_eq!(r.take(0, echo(0), false, Time::ZERO), (false, ack(0, 4)));
    assert_eq!(r.ack(), 4);
}
