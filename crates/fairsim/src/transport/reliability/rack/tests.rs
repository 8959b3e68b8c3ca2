use super::*;

fn ms(m: u64) -> Time {
    Time::from_millis(m)
}

/// A window with packets 0..n, packet k first sent at k ms; and RACK told of each send.
fn sent(n: u64) -> (SendWindow, Rack) {
    let (mut win, mut rack) = (SendWindow::default(), Rack::default());
    for k in 0..n {
        let seq = win.send_next(ms(k));
        rack.on_send(seq, ms(k), false);
    }
    (win, rack)
}

/// Packet `seq` SACKed at `now` by an ACK it caused.
fn sack(win: &mut SendWindow, rack: &mut Rack, seq: u64, now: Time) {
    let p = win.packet(seq);
    rack.sample_rtt(now - p.first_sent);
    win.mark_sacked_each(seq, seq + 1, |s, p| rack.delivered(s, p, now, p.first_sent));
}

#[test]
fn a_packet_is_lost_once_a_later_one_was_delivered_and_the_window_passed() {
    let (mut win, mut rack) = sent(5);
    // packet 3 (sent at 3 ms) SACKed at 23 ms: RACK.rtt = 20 ms
    sack(&mut win, &mut rack, 3, ms(23));
    let reo = ms(5);
    // packets 0..3 deadlines: k + 20 + 5 ms; at 23 ms none has passed; the timer waits for
    // the latest of them, packet 2's at 27 ms (RFC 8985's max of the remaining times)
    assert_eq!(rack.detect_loss(&mut win, ms(23), reo), (0, Some(ms(4))));
    assert_eq!(rack.detect_loss(&mut win, ms(26), reo), (2, Some(ms(1))), "0 and 1 by 26 ms");
    assert_eq!(rack.detect_loss(&mut win, ms(27), reo), (1, None));
    assert_eq!(win.lost(), 3);
    assert!(!win.packet(4).lost, "sent after the latest delivered: not judged");
    assert_eq!(rack.detect_loss(&mut win, ms(27), reo), (0, None), "each loss is marked once");
}

#[test]
fn a_retransmission_is_judged_by_its_own_send_time_and_can_be_lost_again() {
    let (mut win, mut rack) = sent(4);
    sack(&mut win, &mut rack, 3, ms(23));
    assert_eq!(rack.detect_loss(&mut win, ms(23), Time::ZERO).0, 3);
    // packet 1 sent again at 30 ms, then packet 2 (sent again at 31 ms) SACKed at 51 ms
    for (seq, t) in [(1, 30), (2, 31)] {
        win.resend(seq);
        win.retransmitted_out(seq);
        rack.on_send(seq, ms(t), true);
    }
    // 4 outstanding, 1 SACKed, 3 lost, 2 retransmissions in the network
    assert_eq!(win.pipe_counted(), 2, "two retransmissions in the network, packet 0 lost");
    win.mark_sacked_each(2, 3, |s, p| rack.delivered(s, p, ms(51), ms(31)));
    assert_eq!(rack.detect_loss(&mut win, ms(51), Time::ZERO), (1, None), "packet 1's retransmission");
    assert!(win.packet(1).lost && !win.packet(1).rxt_out);
    assert_eq!(win.pipe_counted(), 0, "0 and 1 lost, 2 and 3 SACKed");
}

#[test]
fn the_delivery_of_a_retransmitted_packet_that_may_be_its_first_copys_is_passed_over() {
    let (mut win, mut rack) = sent(3);
    rack.sample_rtt(ms(20));
    win.resend(0);
    rack.on_send(0, ms(15), true);
    // at 25 ms the ACK echoes the first copy (sent at 0): the original arrived, not the
    // retransmission of 15 ms, whose round trip would be 10 ms, under the minimum
    win.mark_sacked_each(0, 1, |s, p| rack.delivered(s, p, ms(25), Time::ZERO));
    assert_eq!(rack.detect_loss(&mut win, ms(25), Time::ZERO), (0, None), "no latest delivery to judge by");
}

#[test]
fn the_reordering_window_is_zero_until_reordering_is_seen_in_recovery_or_at_dupthresh() {
    let mut rack = Rack::default();
    rack.sample_rtt(ms(20));
    let srtt = Some(ms(30));
    assert_eq!(rack.reo_wnd(false, false, 1, 3, srtt), ms(5), "min_RTT / 4");
    assert_eq!(rack.reo_wnd(false, true, 1, 3, srtt), Time::ZERO, "in recovery");
    assert_eq!(rack.reo_wnd(false, false, 3, 3, srtt), Time::ZERO, "DupThresh packets SACKed");
    assert_eq!(rack.reo_wnd(true, true, 3, 3, srtt), ms(5), "reordering seen");
}

#[test]
fn a_dsack_widens_the_window_once_a_round_trip_up_to_srtt_and_16_recoveries_reset_it() {
    let mut rack = Rack::default();
    rack.sample_rtt(ms(20));
    let srtt = Some(ms(12));
    rack.dsack_seen(0, 10, true);
    assert_eq!(rack.reo_wnd(true, false, 0, 3, srtt), ms(10), "2 × 20 / 4");
    rack.dsack_seen(5, 12, true);
    assert_eq!(rack.reo_wnd(true, false, 0, 3, srtt), ms(10), "the same round trip");
    rack.dsack_seen(10, 14, true);
    assert_eq!(rack.reo_wnd(true, false, 0, 3, srtt), ms(12), "3 × 5 ms, capped at srtt");
    for _ in 0..15 {
        rack.recovery_ended();
    }
    assert_eq!(rack.reo_wnd(true, false, 0, 3, None), ms(15), "15 recoveries: kept");
    rack.recovery_ended();
    assert_eq!(rack.reo_wnd(true, false, 0, 3, None), ms(5), "the 16th: back to 1");
}
