//! BBR v1 on whole runs: it fills the bottleneck while keeping its queue near empty, where a
//! loss-based sender fills the buffer; its min_rtt is the path's propagation round trip.

mod common;

use common::{flow, run};
use fairsim::report::{QueueReport, Trace};
use fairsim::RunReport;

/// One bulk transfer through a 10 Mb/s, 10 ms bottleneck with room for 1000 packets (1000-byte
/// packets: 1250 packets/s; a propagation round trip of 2·(1 + 10) ms plus the packet's
/// transmission, about 23 ms: a BDP of about 29 packets).
const ONE_FLOW: &str = r#"
nodes = ["src", "gw", "dst"]
[run]
duration = "60s"
warmup = "10s"
interval = "10s"
trace = ["bulk"]
[links]
in = { between = ["src", "gw"], rate = "100Mbps", delay = "1ms" }
out = { between = ["gw", "dst"], rate = "10Mbps", delay = "10ms", buffer = 1000 }
[flows]
bulk = { src = "src", dst = "dst", app = "ftp", transport = { kind = "bbr", window = 10000 } }
"#;

fn bottleneck(r: &RunReport) -> &QueueReport {
    r.queues.iter().find(|q| q.port == "gw->dst").expect("the bottleneck")
}

fn trace<'a>(r: &'a RunReport, series: &str) -> &'a Trace {
    r.traces.iter().find(|t| t.name == "bulk" && t.series == series).unwrap_or_else(|| panic!("no {series} trace"))
}

#[test]
fn bbr_keeps_the_line_busy_with_a_small_queue_where_newreno_fills_the_buffer() {
    let bbr = run(ONE_FLOW, None, &[]);
    let reno = run(ONE_FLOW, None, &["flows.bulk.transport.kind=newreno"]);
    let (b, r) = (bottleneck(&bbr), bottleneck(&reno));
    let util = |q: &QueueReport| q.utilisation.as_ref().unwrap().mean;
    let queue = |q: &QueueReport| q.occupancy_pkts.as_ref().unwrap().mean;
    eprintln!(
        "BBR: utilisation {:.4}, mean queue {:.2} packets, {:?}",
        util(b),
        queue(b),
        flow(&bbr, "bulk").run_totals
    );
    eprintln!(
        "NewReno: utilisation {:.4}, mean queue {:.2} packets, {:?}",
        util(r),
        queue(r),
        flow(&reno, "bulk").run_totals
    );
    // the bandwidth-delay product from the path BBR measured: BtlBw·min_rtt
    let min_rtt = *trace(&bbr, "min_rtt").value.last().unwrap();
    let btl_bw = *trace(&bbr, "rate_estimate").value.last().unwrap();
    let bdp = btl_bw * min_rtt;
    eprintln!("BBR: min_rtt {min_rtt:.5} s, BtlBw {btl_bw:.1} packets/s, BDP {bdp:.1} packets");
    assert!(util(b) > 0.9, "BBR keeps the line busy: {}", util(b));
    // PROBE_RTT holds the window at 4 packets for 200 ms of every 10 s: up to 2% of the line
    assert!(util(b) >= util(r) - 0.025, "as busy as NewReno's {} but for PROBE_RTT", util(r));
    // the paper's operating point: BtlBw's rate with about a BDP in flight, so little queued;
    // a loss-based sender queues until the buffer overflows
    assert!(queue(b) < 2.0 * bdp, "BBR's queue {} against a BDP of {bdp}", queue(b));
    assert!(queue(r) > 5.0 * queue(b), "NewReno's queue {} against BBR's {}", queue(r), queue(b));
}

#[test]
fn bbr_measures_the_bottleneck_rate_and_the_propagation_round_trip() {
    let r = run(ONE_FLOW, None, &[]);
    // propagation 2·(1 + 10) ms, a 1000-byte packet's transmission at 100 Mb/s (0.08 ms) and
    // 10 Mb/s (0.8 ms), its ACK's (40 bytes) on the way back: about 22.9 ms; with delayed ACKs
    // (the default) an ACK echoes the first of two packets and leaves when the second arrives,
    // one bottleneck packet time (0.8 ms) later, as in Linux
    let min_rtt = trace(&r, "min_rtt");
    let last = *min_rtt.value.last().unwrap();
    assert!((0.0225..0.0245).contains(&last), "min_rtt {last} s");
    let every = run(ONE_FLOW, None, &["flows.bulk.transport.ack_every=1"]);
    let last = *trace(&every, "min_rtt").value.last().unwrap();
    assert!((0.0225..0.0235).contains(&last), "an ACK a packet: min_rtt {last} s");
    let btl_bw = *trace(&r, "rate_estimate").value.last().unwrap();
    assert!((1200.0..1300.0).contains(&btl_bw), "BtlBw {btl_bw} packets/s, the line's 1250");
    // PROBE_RTT: every 10 s the window falls to 4 packets
    let cwnd = trace(&r, "cwnd");
    let dips = cwnd.value.windows(2).filter(|w| w[1] == 4.0 && w[0] > 4.0).count();
    assert!((4..=7).contains(&dips), "{dips} PROBE_RTT dips in 60 s");
}
