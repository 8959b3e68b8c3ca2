//! NDP (Handley et al., SIGCOMM 2017) and EQDS (Olteanu et al., NSDI 2022) over trimming
//! switches in whole runs: an incast finishes with every packet delivered once, its trimmed
//! packets sent again on NACKs, and its receiver's line busy at the pull rate; a transport
//! without NACKs loses what is trimmed.

mod common;

use common::{flow, run};
use fairsim::RunReport;

/// `n` senders, each 1 us and 100 Gb/s from a switch, send files of `packets` packets of 9,064
/// bytes to one receiver at once; every switch port trims at 8 packets; the hosts' own
/// interfaces never drop and send control packets first.
/// Every switch port: 8 packets of 9,064 bytes, the one on the line counted (htsim's `-q 8`).
const TRIM: &str = "buffer = \"72512B\", buffer_includes_line = true";

fn incast(n: usize, packets: u64, transport: &str) -> String {
    let senders: Vec<String> = (0..n).map(|i| format!("\"h{i}\"")).collect();
    let links: String = (0..n)
        .map(|i| format!("h{i} = {{ between = [\"h{i}\", \"sw\"], rate = \"100Gbps\", delay = \"1us\", {TRIM}, forward = {{ buffer = \"100MB\", qdisc = {{ kind = \"strict_priority\", bands = 2 }} }} }}\n"))
        .collect();
    let flows: String = (0..n)
        .map(|i| {
            format!(
                "f{i} = {{ src = \"h{i}\", dst = \"r\", app = \"ftp\", size = \"{}B\", packet_size = \"9064B\", ack_size = \"64B\", transport = {transport} }}\n",
                packets * 9064
            )
        })
        .collect();
    format!(
        r#"
nodes = [{senders}, "sw", "r"]
[run]
duration = "10ms"
[pairs.main]
qdisc = {{ kind = "trim" }}
[links]
{links}r = {{ between = ["sw", "r"], rate = "100Gbps", delay = "1us", {TRIM}, reverse = {{ buffer = "100MB", qdisc = {{ kind = "strict_priority", bands = 2 }} }} }}
[flows]
{flows}"#,
        senders = senders.join(", ")
    )
}

fn port<'a>(r: &'a RunReport, name: &str) -> &'a fairsim::stats::PortCounters {
    &r.queues.iter().find(|q| q.port == name).unwrap_or_else(|| panic!("no port {name}")).totals
}

#[test]
fn an_incast_trims_resends_on_nacks_and_finishes_near_the_line_rate() {
    let (n, packets) = (16, 100);
    let r = run(&incast(n, packets, "{ kind = \"ndp\", initial_window = 15 }"), None, &[]);
    let trims = port(&r, "sw->r").trims;
    assert!(trims > 0, "16 first windows of 15 into 8 places trim");
    assert_eq!(port(&r, "sw->r").drops, 0, "nothing is dropped");
    let mut last = 0.0f64;
    let (mut resent, mut nacked) = (0, 0);
    for i in 0..n {
        let f = flow(&r, &format!("f{i}"));
        let done = f.completion_s.unwrap_or_else(|| panic!("f{i} did not finish"));
        last = last.max(done);
        assert_eq!(f.run_totals.delivered_unique, packets, "every packet once");
        assert_eq!(f.run_totals.delivered, packets, "no packet twice: only headers come back");
        assert_eq!(f.run_totals.timeouts, 0);
        resent += f.run_totals.retransmitted;
        nacked += f.run_totals.trimmed;
    }
    assert_eq!(nacked, trims, "every header reached its receiver");
    assert_eq!(resent, trims, "and was sent again once");
    // the receiver's line carries n · packets · 9,064 bytes at 99%, after one base round trip
    let ideal = (n as f64 * packets as f64 * 9064.0 * 8.0) / (0.99 * 100e9);
    assert!(last > ideal && last < ideal * 1.05 + 20e-6, "last done at {last} s, ideal {ideal} s");
}

#[test]
fn an_incast_of_128_finishes_within_a_few_percent_of_its_ideal() {
    // the paper's incast: 128 senders at once, first windows of 30 into 8 places, with the
    // paper's last-resort timeout armed (1 ms), which never fires
    let (n, packets) = (128, 30);
    let r = run(&incast(n, packets, "{ kind = \"ndp\", initial_window = 30, rto = \"1ms\" }"), None, &[]);
    let timeouts: u64 = (0..n).map(|i| flow(&r, &format!("f{i}")).run_totals.timeouts).sum();
    assert_eq!(timeouts, 0, "no header and no pull lost: nothing waits for the timer");
    let done: Vec<f64> = (0..n).map(|i| flow(&r, &format!("f{i}")).completion_s.expect("finished")).collect();
    let last = done.iter().cloned().fold(0.0, f64::max);
    let ideal = (n as f64 * packets as f64 * 9064.0 * 8.0) / (0.99 * 100e9);
    assert!(last < ideal * 1.02 + 20e-6, "last done at {last} s, ideal {ideal} s");
    assert_eq!(port(&r, "sw->r").drops, 0, "no header lost");
}

#[test]
fn an_eqds_incast_spends_its_credit_and_finishes_near_the_line_rate() {
    let (n, packets) = (16, 100);
    let r = run(&incast(n, packets, "{ kind = \"eqds\", speculative_window = 30 }"), None, &[]);
    assert!(port(&r, "sw->r").trims > 0, "the speculative round trip overflows the queue");
    assert_eq!(port(&r, "sw->r").drops, 0);
    let mut last = 0.0f64;
    for i in 0..n {
        let f = flow(&r, &format!("f{i}"));
        last = last.max(f.completion_s.unwrap_or_else(|| panic!("f{i} did not finish")));
        let t = &f.run_totals;
        assert_eq!((t.delivered, t.delivered_unique), (packets, packets), "every packet once");
        assert_eq!(t.retransmitted, t.trimmed, "each trimmed packet sent again once");
    }
    // credit of 4,096 bytes per 4,156 bytes of the line: 98.6% of it
    let ideal = (n as f64 * packets as f64 * 9064.0 * 8.0) / (4096.0 / 4156.0 * 100e9);
    assert!(last > ideal && last < ideal * 1.03 + 20e-6, "last done at {last} s, ideal {ideal} s");
}

#[test]
fn the_receiver_paces_one_pull_per_packet_or_header_at_its_line_rate() {
    let (n, packets) = (4, 200);
    let r = run(&incast(n, packets, "{ kind = \"ndp\", initial_window = 10 }"), None, &[]);
    let pulls: u64 = (0..n).map(|i| flow(&r, &format!("f{i}")).run_totals.pulls).sum();
    let arrivals: u64 = (0..n)
        .map(|i| flow(&r, &format!("f{i}")).run_totals.delivered + flow(&r, &format!("f{i}")).run_totals.trimmed)
        .sum();
    // a pull for every arrival but the ones after each file was all in (at most a window each)
    assert!(pulls <= arrivals && pulls + n as u64 * 10 >= arrivals, "{pulls} pulls for {arrivals} arrivals");
    let down = port(&r, "sw->r");
    let busy_s = down.busy_ns as f64 * 1e-9;
    let last = (0..n).map(|i| flow(&r, &format!("f{i}")).completion_s.unwrap()).fold(0.0, f64::max);
    assert!(busy_s / last > 0.95, "the receiver's line is busy {busy_s} s of {last} s");
}

#[test]
fn a_transport_without_nacks_is_refused_where_packets_are_trimmed() {
    // it could only take each header for a loss it cannot tell from a drop (tests/fabric_fit.rs)
    let text = incast(8, 50, "{ kind = \"newreno\", initial_cwnd = 15 }");
    let why = fairsim::Scenario::parse(&text, "incast.toml", &[]).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(why.contains("cannot use a trimmed packet's header"), "{why}");
}
