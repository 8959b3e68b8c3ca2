use super::*;

fn echo(seq: u64) -> Echo {
    Echo { sent_at: Time::from_millis(seq), seq, congestion: false }
}

fn delayed() -> Receiver {
    Receiver::new(AckPolicy { every: 2, delay: Time::from_millis(200) })
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
    for seq in [0, 1, 3, 2] {
        assert_eq!(r.take(seq, echo(seq), Time::ZERO), (true, AckNow::Send(echo(seq))));
    }
    assert_eq!(r.ack(), 4);
}

#[test]
fn delayed_acks_acknowledge_every_second_in_order_packet_echoing_the_first() {
    // RFC 5681 §4.2: an ACK at least for every second full-sized segment
    let mut r = delayed();
    let t = Time::from_secs(1);
    assert_eq!(r.take(0, echo(0), t), (true, AckNow::Hold(Some(t + Time::from_millis(200)))));
    assert!(r.holding());
    // RFC 7323 §4.3: the delayed ACK echoes the earliest unacknowledged segment
    assert_eq!(r.take(1, echo(1), t), (true, AckNow::Send(echo(0))));
    assert_eq!(r.ack(), 2);
    assert!(!r.holding());
    assert_eq!(r.on_timer(), None, "a timer left armed finds nothing to acknowledge");
}

#[test]
fn the_timer_acknowledges_a_lone_packet() {
    // RFC 1122 §4.2.3.2: an ACK must not be delayed beyond the timer (at most 500 ms)
    let mut r = delayed();
    assert_eq!(r.take(0, echo(0), Time::ZERO), (true, AckNow::Hold(Some(Time::from_millis(200)))));
    assert_eq!(r.on_timer(), Some(echo(0)));
    assert_eq!(r.on_timer(), None);
    // the next in-order packet starts a new wait
    assert_eq!(r.take(1, echo(1), Time::from_secs(1)), (true, AckNow::Hold(Some(Time::from_millis(1200)))));
}

#[test]
fn out_of_order_data_hole_fills_and_duplicates_are_acknowledged_at_once() {
    // RFC 5681 §4.2: immediate ACKs for out-of-order segments and for segments filling a gap
    let mut r = delayed();
    r.take(0, echo(0), Time::ZERO);
    // packet 1 is lost: 2 is out of order, and its ACK also covers the held packet 0
    assert_eq!(r.take(2, echo(2), Time::ZERO), (true, AckNow::Send(echo(0))));
    assert_eq!(r.ack(), 1);
    assert_eq!(r.take(3, echo(3), Time::ZERO), (true, AckNow::Send(echo(3))), "a duplicate ACK");
    // the retransmission fills the hole: acknowledged at once, cumulative past 3
    assert_eq!(r.take(1, echo(1), Time::ZERO), (true, AckNow::Send(echo(1))));
    assert_eq!(r.ack(), 4);
    // a duplicate of old data
    assert_eq!(r.take(2, echo(2), Time::ZERO), (false, AckNow::Send(echo(2))));
    // in order again: delayed
    assert!(matches!(r.take(4, echo(4), Time::ZERO), (true, AckNow::Hold(Some(_)))));
}

#[test]
fn a_delayed_ack_carries_the_congestion_bit_of_any_packet_it_acknowledges() {
    let mut r = delayed();
    r.take(0, echo(0), Time::ZERO);
    let marked = Echo { congestion: true, ..echo(1) };
    assert_eq!(r.take(1, marked, Time::ZERO), (true, AckNow::Send(Echo { congestion: true, ..echo(0) })));
}
