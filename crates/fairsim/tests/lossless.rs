//! Priority flow control (`[pfc]`, `engine::pfc`) with RoCE and DCQCN, in whole runs: nothing is
//! dropped, each ingress stays within its XOFF threshold and the pause's flight, the pauses and
//! the paused time show in the queues, a cyclic dependency deadlocks and is reported, and DCQCN
//! answers the switches' marks with CNPs that keep pauses rarer.

mod common;
use common::{flow, run};
use fairsim::RunReport;

/// Eight hosts of a k = 4 fat-tree each send 906,400 bytes to h0 at once, at 100 Gb/s with
/// 1 µs links, through switches with PFC at 15 and 12 packets of 9,000 bytes (htsim's).
const INCAST: &str = r#"
[run]
duration = "3ms"
warmup = "0s"
interval = "3ms"
forwarding = "ecmp"
[pairs.roce]
qdisc = "fcfs"
transport = "roce"
[topology]
kind = "fat_tree"
k = 4
hosts = { rate = "100Gbps", delay = "1us" }
[pfc]
xoff = "135000B"
xon = "108000B"
headroom = "40000B"
[workloads.incast]
pattern = "incast"
receiver = "h0"
senders = ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"]
size = "906400B"
start = "10us"
packet_size = "9064B"
"#;

fn totals(r: &RunReport) -> (u64, u64, u64) {
    let drops = r.queues.iter().map(|q| q.totals.drops).sum();
    let pauses = r.queues.iter().map(|q| q.totals.rare.pauses).sum();
    let paused = r.queues.iter().map(|q| q.totals.rare.paused_ns).sum();
    (drops, pauses, paused)
}

fn finished(r: &RunReport) -> (u64, u64) {
    let s = &r.transfer_summary.as_ref().expect("a workload")[0];
    (s.finished, s.unfinished)
}

#[test]
fn pfc_drops_nothing_and_holds_each_ingress_near_its_threshold() {
    let r = run(INCAST, None, &[]);
    let (drops, pauses, paused) = totals(&r);
    assert_eq!(drops, 0, "a lossless network drops nothing");
    assert!(pauses >= 8, "the incast pauses the ports feeding the last hop: {pauses}");
    assert!(paused > 100_000, "for a good part of the run: {paused} ns");
    let pfc = r.pfc.as_ref().expect("a PFC report");
    let most = *pfc.max_ingress_bytes.iter().max().unwrap();
    // past XOFF an ingress takes what the pause's flight lets in: 1 µs back, the packet on the
    // upstream line, 1 µs of line on the way, i.e. within 40,000 bytes at 100 Gb/s
    assert!((135_000..=135_000 + 40_000).contains(&most), "the most an ingress held: {most}");
    assert_eq!(pfc.headroom_overflows, 0);
    assert!(pfc.deadlocks.is_empty());
    assert_eq!(finished(&r), (8, 0));
    // the ports feeding the receiver's ToR are what pause; the receiver's own line never does
    let to_h0 = r.queues.iter().find(|q| q.port == "tor0->h0").unwrap();
    assert_eq!(to_h0.totals.rare.pauses, 0, "hosts pause nobody");
    // and the last hop stays busy: the last transfer ends within 3% of the 580.1 µs its line
    // needs for the 7,251,200 bytes (and the first packets' 8 µs on the way)
    let elapsed = r.transfer_summary.as_ref().unwrap()[0].elapsed_s.unwrap();
    assert!((580.1e-6..597.5e-6).contains(&elapsed), "{elapsed}");
}

/// A switch's egress sends a packet with nothing behind it without an end event, and the
/// release it owes its ingress is made when the count is next read (`engine::pfc`). Ports
/// recorded for the fluid reference end every transmission with an event, as every egress did
/// before: recording them all must change nothing PFC counts, pauses or delivers.
fn assert_lazy_releases_count_as_end_events_would(sets: &[&str]) {
    let lazy = run(INCAST, None, sets);
    let egresses: Vec<String> =
        lazy.queues.iter().filter(|q| !q.from.starts_with('h')).map(|q| format!("\"{}\"", q.port)).collect();
    let every_end = format!("run.fluid_reference=[{}]", egresses.join(", "));
    let eager = run(INCAST, None, &[sets, &[every_end.as_str()]].concat());
    assert!(eager.events > lazy.events, "the recorded ports' ends are events: {} vs {}", eager.events, lazy.events);
    assert_eq!(eager.pfc, lazy.pfc, "the ingresses' largest counts");
    let queues = |r: &RunReport| {
        r.queues
            .iter()
            .map(|q| (q.totals.rare.pauses, q.totals.rare.paused_ns, q.totals.departures, q.totals.drops))
            .collect::<Vec<_>>()
    };
    assert_eq!(queues(&eager), queues(&lazy), "each port's pauses, paused time, departures and drops");
    assert_eq!(eager.transfer_summary, lazy.transfer_summary, "the transfers' completion times");
}

/// Web search at 90% beside the incast, XON near XOFF: an ingress that sends XOFF still has
/// releases owed to it by egresses with nothing behind their packet (without their end events,
/// its XON would go late).
const WEB_BESIDE: [&str; 4] = [
    r#"workloads.web={ pattern = "poisson", sizes = "websearch", load = 0.9, packet_size = "9064B" }"#,
    r#"pfc.xon="120000B""#,
    r#"run.duration="1ms""#,
    r#"run.interval="1ms""#,
];

#[test]
fn releases_owed_by_lazy_transmissions_count_as_end_events_would() {
    assert_lazy_releases_count_as_end_events_would(&WEB_BESIDE);
}

/// An aggregation switch goes down and comes back: the packets it loses leave their ingresses'
/// counts as they did with end events (a cut lazy transmission's own release, made at the cut,
/// is `engine::pfc`'s unit test).
#[test]
fn lazy_releases_count_as_end_events_would_across_a_switch_failure() {
    let down =
        r#"events=[{ at = "300us", node = "agg0", action = "down" }, { at = "600us", node = "agg0", action = "up" }]"#;
    assert_lazy_releases_count_as_end_events_would(&[&WEB_BESIDE[..], &[down]].concat());
}

#[test]
fn without_pfc_roce_loses_packets_and_goes_back_n() {
    // the same incast into 200 KB buffers and no PFC: drops, NACKs, go-back-N; the NIC's
    // timeout recovers a lost tail
    let lossy = INCAST.replace("[pfc]\nxoff = \"135000B\"\nxon = \"108000B\"\nheadroom = \"40000B\"\n", "");
    let r = run(
        &lossy,
        None,
        &[
            "topology.hosts.buffer=\"200000B\"",
            "workloads.incast.transport={ kind = \"roce\", rto = \"100us\" }",
            "run.duration=\"20ms\"",
            "run.interval=\"20ms\"",
        ],
    );
    let (drops, pauses, _) = totals(&r);
    assert!(drops > 100, "{drops}");
    assert_eq!(pauses, 0);
    assert!(r.pfc.is_none());
    let f = flow(&r, "incast");
    assert!(f.run_totals.retransmitted > drops, "go-back-N resends what followed each loss too");
    assert_eq!(finished(&r), (8, 0));
}

#[test]
fn dcqcn_answers_marks_with_cnps_and_pauses_less_than_line_rate_roce() {
    let roce = run(INCAST, None, &[]);
    // DCQCN's marking at the switches: RED on the instantaneous queue, 5 KB to 200 KB, 1%
    let marking = "pairs.roce.qdisc={ kind = \"red\", ecn = true, w_q = 1.0, min_th = \"5KB\", max_th = \"200KB\", max_p = 0.01, hard_drop = false }";
    let r = run(INCAST, None, &[marking, "workloads.incast.transport=\"dcqcn\""]);
    let (drops, pauses, paused) = totals(&r);
    let f = flow(&r, "incast");
    assert_eq!(drops, 0);
    assert!(f.run_totals.cnps > 8, "every sender hears CNPs: {}", f.run_totals.cnps);
    let marks: u64 = r.queues.iter().map(|q| q.totals.marks).sum();
    assert!(marks >= f.run_totals.cnps, "at most one CNP per mark: {marks} marks");
    assert_eq!(finished(&r), (8, 0));
    let (_, roce_pauses, roce_paused) = totals(&roce);
    assert!(paused < roce_paused, "DCQCN pauses less: {paused} vs {roce_paused} ns ({pauses} vs {roce_pauses} pauses)");
}

/// Three switches in a ring, each with a host; each host sends to the host two switches on,
/// clockwise, at the line's rate: every ring link carries two flows, and each switch's ring
/// ingress waits on the next switch's, round the ring (a cyclic buffer dependency).
const RING: &str = r#"
nodes = ["h0", "h1", "h2", "s0", "s1", "s2"]
[run]
duration = "2ms"
warmup = "0s"
interval = "2ms"
[pairs.roce]
qdisc = "fcfs"
transport = "roce"
[links]
a0 = { between = ["h0", "s0"], rate = "100Gbps", delay = "1us" }
a1 = { between = ["h1", "s1"], rate = "100Gbps", delay = "1us" }
a2 = { between = ["h2", "s2"], rate = "100Gbps", delay = "1us" }
r01 = { between = ["s0", "s1"], rate = "100Gbps", delay = "1us" }
r12 = { between = ["s1", "s2"], rate = "100Gbps", delay = "1us" }
r20 = { between = ["s2", "s0"], rate = "100Gbps", delay = "1us" }
[pfc]
xoff = "135000B"
xon = "108000B"
[flows]
f0 = { src = "h0", dst = "h2", route = ["h0", "s0", "s1", "s2", "h2"], app = "ftp", packet_size = "9064B" }
f1 = { src = "h1", dst = "h0", route = ["h1", "s1", "s2", "s0", "h0"], app = "ftp", packet_size = "9064B" }
f2 = { src = "h2", dst = "h1", route = ["h2", "s2", "s0", "s1", "h1"], app = "ftp", packet_size = "9064B" }
"#;

#[test]
fn a_cyclic_buffer_dependency_deadlocks_and_the_report_names_the_cycle() {
    let r = run(RING, None, &[]);
    let pfc = r.pfc.as_ref().unwrap();
    assert_eq!(totals(&r).0, 0, "no drop even in a deadlock");
    assert_eq!(pfc.deadlocks.len(), 1, "{:?}", pfc.deadlocks);
    let mut cycle = pfc.deadlocks[0].clone();
    cycle.sort();
    assert_eq!(cycle, ["s0->s1", "s1->s2", "s2->s0"]);
    // deadlocked: nothing moves in the run's last part
    let goodput: f64 = r.flows.iter().map(|f| f.goodput_bps.as_ref().map_or(0.0, |s| s.mean)).sum();
    assert!(goodput < 100e9, "the ring carries less than one line's worth: {goodput}");
}

#[test]
fn a_lossless_packet_dropped_at_a_pfc_switch_stops_the_run_with_the_reason() {
    // RED drops what is not ECN-capable: line-rate RoCE's packets, on a lossless priority
    let marking = "pairs.roce.qdisc={ kind = \"red\", ecn = true, w_q = 1.0, min_th = \"5KB\", max_th = \"200KB\", max_p = 0.01, hard_drop = false }";
    let r = run(INCAST, None, &[marking]);
    let error = r.error.as_deref().expect("the run stops");
    assert!(!r.complete);
    assert!(error.contains("PFC switch dropped a packet of lossless priority 1 (early)"), "{error}");
    // the same drops on a lossy priority are the discipline's business
    let r = run(INCAST, None, &[marking, "pfc.priorities=[0]"]);
    assert!(r.error.is_none() && totals(&r).0 > 0);
}

#[test]
fn connections_with_their_own_copy_of_a_line_are_refused_under_pfc() {
    // an open population between its own ends on a fixed route gives each connection its own
    // copy of the host's line, a port PFC cannot count: refused, not silently lossy
    let text = RING.replace(
        "f0 = { src = \"h0\", dst = \"h2\", route = [\"h0\", \"s0\", \"s1\", \"s2\", \"h2\"], app = \"ftp\", packet_size = \"9064B\" }",
        "f0 = { src = \"h0\", dst = \"h2\", app = \"files\", arrivals = 1000, size = \"90640B\", transport = \"roce\", packet_size = \"9064B\" }",
    );
    let sc = common::parse(&text);
    let error = fairsim::Simulation::new(&sc, None, None).err().expect("refused").to_string();
    assert!(error.contains("flow f0: its connections each get a copy of their host's access line"), "{error}");
    // forwarded at each switch, the connections share the host's line: accepted
    let ecmp = common::parse_with(&text, &["flows.f0.forwarding=\"ecmp\""]);
    assert!(fairsim::Simulation::new(&ecmp, None, None).is_ok());
}

#[test]
fn bad_pfc_settings_are_refused_naming_the_field() {
    for (set, field, says) in [
        ("pfc.xoff=\"0B\"", "pfc.xoff", "above 0"),
        ("pfc.xon=\"200000B\"", "pfc.xon", "must not be above xoff"),
        ("pfc.priorities=[8]", "pfc.priorities", "eight, 0 to 7"),
        ("pfc.priorities=[]", "pfc.priorities", "no priority is lossless"),
        ("pfc.nodes=[\"nowhere\"]", "pfc.nodes", "nowhere"),
    ] {
        let sets = [set.to_string()];
        let Err(error) = fairsim::Scenario::parse(RING, "ring.toml", &sets) else {
            panic!("{set} was accepted");
        };
        let error = error.to_string();
        assert!(error.contains(field) && error.contains(says), "{set}: {error}");
    }
}
