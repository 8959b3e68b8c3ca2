//! Each connection of a workload is measured, paced and sized on its own path: its NIC's rate,
//! its path's links, its queueing delay's baseline and its ideal completion time are its own,
//! not those of the route between the workload's first two hosts.

mod common;

use common::{parse_with, simulate};
use fairsim::RunReport;

/// A k = 4 fat-tree at 10 Gb/s with one transfer from h5 to h9 (another pod), listed in the
/// workload's `hosts` in the order given, under `transport`.
fn incast(hosts: &str, transport: &str, sets: &[&str]) -> RunReport {
    let text = format!(
        r#"
[run]
duration = "20ms"
forwarding = "ecmp"
transfer_rows = true
[topology]
kind = "fat_tree"
k = 4
hosts = {{ rate = "10Gbps", delay = "1us" }}
[workloads.one]
pattern = "incast"
hosts = [{hosts}]
receiver = "h9"
senders = ["h5"]
size = "200KB"
packet_size = "1000B"
transport = {transport}
"#
    );
    simulate(&parse_with(&text, sets), None, None)
}

/// The one transfer's arrival, finish and ideal, and its flow's queueing delays.
fn transfer(r: &RunReport) -> (f64, Option<f64>, Option<f64>, String) {
    let t = r.transfers.as_ref().expect("a workload keeps its transfers");
    assert_eq!(t.flow.len(), 1);
    (t.arrival_s[0], t.finish_s[0], t.ideal_s[0], format!("{:?}", r.flows[0].queueing))
}

#[test]
fn a_connection_takes_its_rate_links_and_baseline_from_its_own_path() {
    for transport in ["\"hpcc\"", "\"roce\"", "\"swift\"", "\"dcqcn\"", "{ kind = \"newreno\", ack_every = 1 }"] {
        let alone = transfer(&incast(r#""h5", "h9""#, transport, &[]));
        assert!(alone.1.is_some(), "{transport}: the transfer finishes");
        // the workload's first two hosts share a ToR: their route is 2 links, h5 -> h9's is 6
        let reordered = transfer(&incast(r#""h0", "h1", "h5", "h9""#, transport, &[]));
        assert_eq!(alone, reordered, "{transport}: the order of the workload's hosts changed the transfer");
        // a line that is not on h5 -> h9's path
        let slowed = transfer(&incast(r#""h0", "h1", "h5", "h9""#, transport, &["links.h0.rate=1Gbps"]));
        assert_eq!(alone, slowed, "{transport}: a line off the transfer's path changed it");
    }
}

#[test]
fn a_connection_alone_on_the_fabric_waits_in_no_queue_and_takes_its_ideal_time() {
    // one packet from h0 to h15: no queue anywhere, whatever route joins the first two hosts
    let text = r#"
[run]
duration = "1ms"
forwarding = "ecmp"
transfer_rows = true
[topology]
kind = "fat_tree"
k = 4
hosts = { rate = "10Gbps", delay = "1us" }
[workloads.one]
pattern = "incast"
receiver = "h15"
senders = ["h0"]
size = "1000B"
packet_size = "1000B"
transport = { kind = "newreno", ack_every = 1 }
"#;
    for sets in [&[][..], &["links.agg0-core0.rate=1Gbps"], &["links.tor0-agg0.delay=50us"]] {
        let r = simulate(&parse_with(text, sets), None, None);
        let q = &r.flows[0].queueing;
        assert_eq!((q.samples, q.max_s), (1, Some(0.0)), "{sets:?}: {q:?}");
        let (arrival, finish, ideal, _) = transfer(&r);
        let fct_ns = (finish.unwrap() * 1e9).round() - (arrival * 1e9).round();
        assert_eq!(fct_ns, (ideal.unwrap() * 1e9).round(), "{sets:?}: alone, a transfer takes its ideal time");
    }
}

#[test]
fn a_transfers_largest_window_is_weighed_against_its_own_paths_bandwidth_delay_product() {
    // h5 -> h9 crosses 6 links of 1 us at 10 Gb/s: a base round trip of 12 us of delay and 6
    // packets' time (0.8 us each), 16.8 us, so 21 packets of 1,000 bytes in flight fill it
    let ratio = |hosts: &str, transport: &str| {
        let r = incast(hosts, transport, &[]);
        r.transfers.expect("a workload keeps its transfers").window_bdp[0]
    };
    let first_two_share_a_tor = r#""h0", "h1", "h5", "h9""#;
    assert_eq!(ratio(first_two_share_a_tor, "\"hpcc\""), Some(1.0), "HPCC's T is its path's by default");
    let short = ratio(first_two_share_a_tor, "{ kind = \"hpcc\", base_rtt = \"8.4us\" }").unwrap();
    assert!((short - 0.5).abs() < 1e-12, "{short}");
    let tcp = ratio(first_two_share_a_tor, "{ kind = \"newreno\", ack_every = 1 }").unwrap();
    assert!((tcp - 2173.0 / 21.0).abs() < 1e-9, "the linux stack's window of 2,173 packets: {tcp}");
    assert_eq!(ratio(first_two_share_a_tor, "\"roce\""), None, "a rate, not a window, bounds RoCE");
}
