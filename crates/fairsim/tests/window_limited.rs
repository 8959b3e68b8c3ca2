//! Window-limited time: how long each flow's own `window` (the receiver's
//! window), rather than its congestion control or the network, held its sender back.

mod common;

use common::{flow, run};

/// One transfer over an uncongested 100 Mb/s path (44 ms round trip), classic TCP: slow start
/// from one packet, an ACK a packet, no loss.
const PATH: &str = r#"
nodes = ["src", "gw", "dst"]
[run]
duration = "5s"
interval = "1s"
trace = ["bulk"]
[links]
in = { between = ["src", "gw"], rate = "100Mbps", delay = "1ms" }
out = { between = ["gw", "dst"], rate = "100Mbps", delay = "20ms", buffer = 1000 }
[flows]
bulk = { src = "src", dst = "dst", app = "ftp", transport = { kind = "reno", window = 8, stack = "classic" } }
"#;

#[test]
fn a_small_window_holds_the_sender_back_from_when_the_congestion_window_outgrows_it() {
    let r = run(PATH, None, &[]);
    let cwnd = r.traces.iter().find(|t| t.name == "bulk" && t.series == "cwnd").expect("traced");
    // slow start reaches 8 packets within the first round trips (and stops there: the
    // controllers grow no further than the flow's window); from then on the window of 8 is
    // full whenever the sender looks
    let outgrown = cwnd.t_s[cwnd.value.iter().position(|&w| w >= 8.0).expect("grows to 8")];
    assert!((0.1..0.3).contains(&outgrown), "four round trips of 44 ms, not {outgrown} s");
    let f = flow(&r, "bulk");
    let limited = f.window_limited_s.unwrap();
    assert!((limited - (5.0 - outgrown)).abs() < 1e-9, "{limited} s against {} s", 5.0 - outgrown);
    assert!((f.window_limited_share.unwrap() - limited / 5.0).abs() < 1e-12);
    // each interval after the first is held back throughout, and the intervals add up
    let per_interval: Vec<u64> =
        r.flow_intervals.iter().filter(|i| i.flow == "bulk").map(|i| i.counters.window_limited_ns).collect();
    assert_eq!(per_interval[1..], [1_000_000_000; 4]);
    assert_eq!(per_interval.iter().sum::<u64>(), f.totals.window_limited_ns);
}

#[test]
fn a_window_the_congestion_window_never_reaches_holds_nothing_back() {
    // a 2 Mb/s bottleneck with 40 packets of buffer: losses keep the congestion window far
    // below 1000
    let r = run(PATH, None, &["flows.bulk.transport.window=1000", "links.out.rate=2Mbps", "links.out.buffer=40"]);
    let f = flow(&r, "bulk");
    assert!(f.totals.dropped > 0, "the bottleneck drops");
    assert_eq!((f.window_limited_s, f.window_limited_share), (Some(0.0), Some(0.0)));
}

#[test]
fn a_sender_without_more_data_is_not_held_back() {
    // a 20-packet file sent under a window of 8: the window is full only while data waits
    let r = run(PATH, None, &["flows.bulk.size=20000B"]);
    let f = flow(&r, "bulk");
    assert!(f.completion_s.is_some());
    let limited = f.window_limited_s.unwrap();
    assert!(0.0 < limited && limited < f.completion_s.unwrap(), "{limited} s");
}

#[test]
fn only_flows_whose_window_can_hold_them_back_report_the_time() {
    // an open-loop source has no window; Generic's fixed window is its whole control
    for sets in [
        &["flows.bulk.app=cbr", "flows.bulk.rate=1Mbps", "flows.bulk.transport=none"][..],
        &["flows.bulk.transport=generic"],
    ] {
        let f = run(PATH, None, sets).flows.remove(0);
        assert_eq!((f.window_limited_s, f.window_limited_share), (None, None), "{sets:?}");
    }
}

#[test]
fn packet_pair_is_held_back_when_a_tick_finds_its_window_full() {
    // the rate the pairs probe is the line's, but two packets cover a fraction of a 44 ms
    // round trip of a 100 Mb/s line: most ticks find the window full
    let r = run(PATH, None, &["flows.bulk.transport={ kind = \"pp\", window = 2 }"]);
    let share = flow(&r, "bulk").window_limited_share.unwrap();
    assert!(share > 0.5, "{share}");
    // a window of 1000 is never full at that rate
    let r = run(PATH, None, &["flows.bulk.transport={ kind = \"pp\", window = 1000 }"]);
    let share = flow(&r, "bulk").window_limited_share.unwrap();
    assert!(share < 0.01, "{share}");
}
