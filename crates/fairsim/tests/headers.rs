//! Packet headers on the wire (`headers`): data packets are payload plus headers, ACKs the
//! headers alone, lines and queues see wire bytes, and goodput counts the payload.

mod common;

use common::{flow, parse, parse_with, simulate};
use fairsim::report::QueueReport;
use fairsim::units::Rate;
use fairsim::{RunReport, Scenario};

/// ns-3's reference bottleneck: 10 Mb/s, 10 ms, between 100 Mb/s access lines.
const DUMBBELL: &str = r#"
nodes = ["s", "r1", "r2", "d"]
[run]
duration = "20s"
warmup = "5s"
[links]
access = { between = ["s", "r1"], rate = "100Mbps", delay = "1ms" }
neck = { between = ["r1", "r2"], rate = "10Mbps", delay = "10ms", buffer = 100 }
exit = { between = ["r2", "d"], rate = "100Mbps", delay = "1ms" }
"#;

fn queue<'a>(r: &'a RunReport, port: &str) -> &'a QueueReport {
    r.queues.iter().find(|q| q.port == port).unwrap_or_else(|| panic!("no port {port}"))
}

fn tcp(headers: &str) -> RunReport {
    tcp_with(headers, "")
}

/// The same with more parameters of its Reno (`key = value, ...`).
fn tcp_with(headers: &str, transport: &str) -> RunReport {
    let transport = if transport.is_empty() { String::new() } else { format!(", {transport}") };
    let flows = format!(
        "[flows]\ntcp = {{ src = \"s\", dst = \"d\", app = \"ftp\", transport = {{ kind = \"reno\"{transport} }}, \
         window = 200, packet_size = 1000, headers = \"{headers}\" }}\n"
    );
    simulate(&parse(&format!("{DUMBBELL}{flows}")), None, None)
}

#[test]
fn a_1000_byte_segment_over_ppp_is_1054_bytes_and_its_ack_54() {
    let r = tcp("ppp");
    let f = flow(&r, "tcp");
    assert_eq!((f.packet_size, f.payload_size, f.headers), (1054, 1000, "ppp"));
    let (data, acks) = (queue(&r, "r1->r2"), queue(&r, "r2->r1"));
    assert!(data.totals.departures > 1000 && acks.totals.departures > 500);
    assert_eq!(data.totals.bytes_sent, data.totals.departures * 1054, "every data frame is 1054 bytes");
    // an ACK is 54 bytes, and 4 + 8·n more when it carries n SACK blocks (SACK is on by default)
    let options = acks.totals.bytes_sent - acks.totals.departures * 54;
    assert!(options > 0 && options % 4 == 0, "{options} bytes of SACK options");
    let plain = queue(&tcp_with("ppp", "stack = \"classic\""), "r2->r1").totals;
    assert_eq!(plain.bytes_sent, plain.departures * 54, "without SACK every ACK is 54 bytes");
    let eth = tcp("ethernet");
    let data = queue(&eth, "r1->r2");
    assert_eq!(data.totals.bytes_sent, data.totals.departures * 1066, "Ethernet II: 14 + 20 + 32");
}

#[test]
fn goodput_is_the_payload_share_of_a_saturated_lines_throughput() {
    let r = tcp("ppp");
    let f = flow(&r, "tcp");
    let (wire, payload) = (f.goodput_bps.unwrap().mean, f.payload_bps.unwrap().mean);
    // (a packet whose transmission began before the warm-up ended may count after it)
    assert!(wire > 0.95 * 10e6 && wire <= 1.001 * 10e6, "the flow fills the line: {wire}");
    assert_eq!(f.totals.payload_unique * 1054, f.totals.bytes_unique * 1000);
    assert!((payload / wire - 1000.0 / 1054.0).abs() < 1e-12, "{payload} of {wire}");
    // without headers the payload is the whole packet, as ever
    let plain = tcp("none");
    let f = flow(&plain, "tcp");
    assert_eq!((f.packet_size, f.payload_size, f.headers), (1000, 1000, "none"));
    assert_eq!(f.totals.payload_unique, f.totals.bytes_unique);
    assert_eq!(f.payload_bps, f.goodput_bps);
    let classic = tcp_with("none", "stack = \"classic\"");
    let acks = queue(&classic, "r2->r1").totals;
    assert_eq!(acks.bytes_sent, acks.departures * 40, "the papers' 40-byte ACKs, without SACK blocks");
}

#[test]
fn a_cbr_sends_at_its_payload_rate_and_occupies_the_line_at_the_wire_rate() {
    // 1000 payload bytes every 1.6 ms (5 Mb/s of payload) in 1030-byte UDP datagrams
    let flows = "[flows]\nu = { src = \"s\", dst = \"d\", app = \"cbr\", rate = \"5Mbps\", headers = \"ppp\" }\n";
    let r = simulate(&parse(&format!("{DUMBBELL}{flows}")), None, None);
    let neck = queue(&r, "r1->r2");
    assert_eq!(neck.totals.bytes_sent, neck.totals.departures * 1030);
    assert_eq!(neck.totals.busy_ns, neck.totals.departures * Rate(10_000_000).tx_time(1030).0);
    assert_eq!(Rate(10_000_000).tx_time(1030).0, 1030 * 8 * 100, "1030·8 bits at 10 Mb/s");
    let u = neck.utilisation.unwrap().mean;
    assert!((u - 0.515).abs() < 1e-3, "5 Mb/s of payload is 5.15 Mb/s on the line: {u}");
    let f = flow(&r, "u");
    assert!((f.payload_bps.unwrap().mean - 5e6).abs() < 1e3);
    assert_eq!(f.run_totals.acks_sent, 0, "open loop, unacknowledged");
}

#[test]
fn a_firehose_under_headers_fills_its_line_and_its_acks_are_udp_headers() {
    let flows = "[flows]\nhose = { src = \"s\", dst = \"d\", app = \"firehose\", headers = \"ppp\" }\n";
    let r = simulate(&parse(&format!("{DUMBBELL}{flows}")), None, None);
    let access = queue(&r, "s->r1");
    assert!(access.utilisation.unwrap().mean <= 1.0 && access.utilisation.unwrap().mean > 0.999);
    assert_eq!(access.totals.max_occupancy, 0, "its default rate never outruns its line");
    let acks = queue(&r, "r2->r1");
    assert_eq!(acks.totals.bytes_sent, acks.totals.departures * 30, "PPP, IPv4, UDP");
}

#[test]
fn run_wide_headers_apply_to_every_flow_unless_it_says_otherwise() {
    let text = format!(
        "{DUMBBELL}[flows]\na = {{ src = \"s\", dst = \"d\", app = \"ftp\" }}\n\
         b = {{ src = \"s\", dst = \"d\", app = \"ftp\", headers = \"none\", packet_size = 1054 }}\n"
    );
    let sc = parse_with(&text, &["run.headers=\"ppp\""]);
    let sizes: Vec<(u32, u32, u32)> = sc.flows.iter().map(|f| (f.packet_size, f.payload_size, f.ack_size)).collect();
    assert_eq!(sizes, vec![(1054, 1000, 54), (1054, 1054, 40)]);
}

#[test]
fn the_resolved_scenario_keeps_headers_and_repeats_the_run() {
    let text = format!(
        "{DUMBBELL}[flows]\nt = {{ src = \"s\", dst = \"d\", app = \"ftp\", size = \"200KB\", headers = \"ppp\" }}\n\
         u = {{ src = \"s\", dst = \"d\", app = \"cbr\", rate = \"2Mbps\", headers = \"ethernet\" }}\n"
    );
    let sc = parse(&text);
    let resolved = sc.resolved_toml("default", 1).unwrap();
    assert!(resolved.contains("headers = \"ppp\"") && !resolved.contains("ack_size"), "{resolved}");
    assert!(resolved.contains("size = \"200000B\""), "the file's size in payload bytes: {resolved}");
    let again = Scenario::parse(&resolved, "resolved.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{resolved}"));
    let strip = |mut r: RunReport| {
        (r.wall_s, r.scenario) = (0.0, String::new());
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(simulate(&sc, None, None)), strip(simulate(&again, None, None)));
    // a 200 KB file is 200 segments of 1000 payload bytes
    let r = simulate(&sc, None, None);
    assert_eq!(flow(&r, "t").run_totals.payload_unique, 200_000);
}
