use crate::engine::sim::Simulation;
use crate::scenario::Scenario;

/// The report of `text`'s run (seed 1) on `threads` threads, without its wall time, and why it
/// went on one thread, if it did.
fn report(text: &str, threads: usize) -> (String, Option<String>) {
    let sc = Scenario::parse(text, "p.toml", &[]).unwrap();
    let mut sim = Simulation::new(&sc, None, Some(1)).unwrap();
    let serial = sim.run_on(threads);
    let mut report = sim.report();
    report.wall_s = 0.0;
    (serde_json::to_string_pretty(&report).unwrap(), serial)
}

/// `text`'s run (seed 1), split for `threads` threads with each partition holding only its own
/// ports (which a run decides by their size: `Plan::own_ports_only`), not yet started.
fn split_own_ports_only(text: &str, threads: usize) -> (Simulation, super::Threads) {
    let sc = Scenario::parse(text, "p.toml", &[]).unwrap();
    let mut sim = Simulation::new(&sc, None, Some(1)).unwrap();
    let plan = super::Plan::of(&sim, threads).unwrap();
    let mut on = super::Threads::new(threads);
    on.parallel = Some(super::split_holding(&mut sim, plan, true));
    (sim, on)
}

/// The report of `text`'s run (seed 1) on `threads` threads, each partition holding only its
/// own ports, without its wall time.
fn report_own_ports_only(text: &str, threads: usize) -> String {
    let (mut sim, mut on) = split_own_ports_only(text, threads);
    while !on.step(&mut sim, u64::MAX) {}
    let mut report = sim.report();
    report.wall_s = 0.0;
    serde_json::to_string_pretty(&report).unwrap()
}

/// Reports `one` and `many` (of the run on `threads`) are the same, byte for byte.
fn assert_same(one: &str, many: &str, threads: &str) {
    if one != many {
        let line = one.lines().zip(many.lines()).position(|(a, b)| a != b).unwrap_or(0);
        let around = |r: &str| r.lines().skip(line.saturating_sub(12)).take(16).collect::<Vec<_>>().join("\n");
        panic!("{threads} threads differ at line {line}:\n{}\n---\n{}", around(one), around(many));
    }
}

/// The run of `text` gives the same report, byte for byte, on 1 thread and on each of `threads`,
/// on which it splits; and on the first of them with partitions holding only their own ports.
fn same_on(text: &str, threads: &[usize]) {
    let (one, why) = report(text, 1);
    assert_eq!(why.as_deref(), Some("one thread was given"));
    for &threads in threads {
        let (many, why) = report(text, threads);
        assert_eq!(why, None, "{threads} threads");
        assert_same(&one, &many, &threads.to_string());
    }
    assert_same(&one, &report_own_ports_only(text, threads[0]), &format!("{}, own ports only,", threads[0]));
}

fn same_on_any_threads(text: &str) {
    same_on(text, &[2, 4]);
}

fn fat_tree(transport: &str, hosts: &str) -> String {
    format!(
        r#"
[run]
duration = "20ms"
warmup = "2ms"
interval = "3ms"
forwarding = "ecmp"
[topology]
kind = "fat_tree"
k = 4
hosts = {{ rate = "10Gbps", delay = "1us", {hosts} }}
[workloads.perm]
pattern = "permutation"
packet_size = "1500B"
transport = {transport}
"#
    )
}

#[test]
fn a_fat_tree_of_newreno_flows_with_drops_is_the_same_on_any_threads() {
    let text = fat_tree(r#"{ kind = "newreno", initial_cwnd = 10 }"#, "buffer = 8");
    same_on_any_threads(&text);
    assert!(report(&text, 1).0.contains("\"drops\": [\n"), "the run drops packets");
}

#[test]
fn dctcp_with_ecn_marks_and_delayed_acks_is_the_same_on_any_threads() {
    let text = fat_tree(
        r#"{ kind = "dctcp", ack_every = 2, min_rto = "1ms", clock_granularity = "1ms" }"#,
        r#"qdisc = { kind = "ecn_threshold", k = 20 }, buffer = 100"#,
    );
    same_on_any_threads(&text);
}

#[test]
fn cubic_with_sack_under_fq_is_the_same_on_any_threads() {
    let text =
        fat_tree(r#"{ kind = "cubic", min_rto = "1ms", clock_granularity = "1ms" }"#, r#"qdisc = "fq", buffer = 12"#);
    same_on_any_threads(&text);
}

/// A fat-tree permutation of NewReno flows with small buffers (drops, retransmissions), its
/// packets placed per packet by `forwarding`.
fn placed_per_packet(forwarding: &str) -> String {
    fat_tree(r#"{ kind = "newreno", initial_cwnd = 10 }"#, "buffer = 8")
        .replace(r#"forwarding = "ecmp""#, &format!("forwarding = {forwarding}"))
}

#[test]
fn sprayed_packets_take_the_same_paths_on_any_threads() {
    let text = placed_per_packet(r#""spray""#);
    same_on_any_threads(&text);
    assert!(report(&text, 1).0.contains("\"drops\": [\n"), "the run drops packets: retransmissions are sprayed too");
}

#[test]
fn permuted_packets_take_the_same_paths_on_any_threads() {
    same_on_any_threads(&placed_per_packet(r#""permute""#));
}

#[test]
fn flowlets_take_the_same_paths_on_any_threads() {
    // a flowlet ends after 50 µs without a packet (the [run] table's `flowlet_timeout`)
    same_on_any_threads(&placed_per_packet("\"flowlet\"\nflowlet_timeout = \"50us\""));
}

/// A fat-tree permutation whose core links fail and come back at instants that cut packets on
/// their lines (some of them links between partitions), and whose lines change rate, among them
/// lines a sink's partition does not hold but reads for its paths' fixed delays.
fn failing(transport: &str) -> String {
    let mut text = fat_tree(transport, "buffer = 8");
    // the last but one is undone before forwarding learns of it
    for (at, what, action) in [
        ("3.0004ms", "node = \"core1\"", "\"rate\"\nrate = \"1Gbps\""),
        ("4.00033ms", "node = \"core0\"", "\"down\""),
        ("5.00071ms", "port = \"core2->agg3\"", "\"down\""),
        ("6.0001ms", "link = \"h3\"", "\"rate\"\nrate = \"2Gbps\""),
        ("8.00052ms", "port = \"core2->agg3\"", "\"up\""),
        ("9.00017ms", "node = \"core0\"", "\"up\""),
        ("9.5ms", "port = \"agg4->core1\"", "\"down\""),
        ("9.60001ms", "port = \"agg4->core1\"", "\"up\""),
        ("12ms", "node = \"core1\"", "\"rate\"\nrate = \"10Gbps\""),
    ] {
        text += &format!("[[events]]\nat = \"{at}\"\n{what}\naction = {action}\n");
    }
    text
}

#[test]
fn a_failing_fat_tree_is_the_same_on_any_threads() {
    let text = failing(r#"{ kind = "newreno", initial_cwnd = 10, min_rto = "1ms", clock_granularity = "1ms" }"#);
    same_on_any_threads(&text);
    let report: serde_json::Value = serde_json::from_str(&report(&text, 1).0).unwrap();
    let queues = report["queues"].as_array().unwrap();
    let cut: u64 = queues.iter().map(|q| q["totals"]["link_down"].as_u64().unwrap_or(0)).sum();
    assert!(cut > 20, "{cut} packets lost to links down");
}

#[test]
fn a_failing_fat_tree_of_dctcp_flows_is_the_same_on_any_threads() {
    let text = failing(r#"{ kind = "dctcp", ack_every = 1, min_rto = "1ms", clock_granularity = "1ms" }"#)
        .replace("buffer = 8", r#"qdisc = { kind = "ecn_threshold", k = 20 }, buffer = 60"#);
    same_on(&text, &[2]);
}

/// A fat-tree of PFC switches under `pattern` with `transport`, pausing soon (so pauses cross
/// between partitions), with the total of pause frames its ports received on one thread (from
/// the start: the first round trips pause most).
fn lossless(transport: &str, hosts: &str, pattern: &str) -> (String, u64) {
    let text = from_the_start(&fat_tree(transport, hosts))
        .replace("pattern = \"permutation\"", pattern)
        .replace("[workloads.perm]", "[pfc]\nxoff = \"20000B\"\nxon = \"12000B\"\n[workloads.perm]");
    let report: serde_json::Value = serde_json::from_str(&report(&text, 1).0).unwrap();
    let queues = report["queues"].as_array().unwrap();
    let pauses = queues.iter().map(|q| q["totals"]["pauses"].as_u64().unwrap_or(0)).sum();
    (text, pauses)
}

#[test]
fn a_roce_incast_over_pfc_is_the_same_on_any_threads() {
    let senders: Vec<String> = (1..16).map(|h| format!("\"h{h}\"")).collect();
    let incast =
        format!("pattern = \"incast\"\nreceiver = \"h0\"\nsenders = [{}]\nsize = \"400000B\"", senders.join(", "));
    let (text, pauses) = lossless(r#""roce""#, r#"qdisc = "fcfs""#, &incast);
    same_on_any_threads(&text);
    assert!(pauses > 20, "{pauses} pause frames");
}

#[test]
fn a_dcqcn_permutation_over_pfc_is_the_same_on_any_threads() {
    let marking = r#"qdisc = { kind = "ecn_threshold", k = 20 }"#;
    let (text, pauses) = lossless(r#""dcqcn""#, marking, "pattern = \"permutation\"");
    same_on(&text, &[2]);
    assert!(pauses > 20, "{pauses} pause frames");
}

/// A fat-tree of trimming switches (queues of eight 1,500-byte packets) under `pattern` with a
/// receiver-driven `transport`, its packets sprayed.
fn pulled(transport: &str, pattern: &str) -> String {
    fat_tree(transport, r#"qdisc = "trim", buffer = "12000B""#)
        .replace(r#"forwarding = "ecmp""#, r#"forwarding = "spray""#)
        .replace("pattern = \"permutation\"", pattern)
}

/// `fat_tree`'s `text` without its warm-up.
fn from_the_start(text: &str) -> String {
    text.replace(r#"warmup = "2ms""#, r#"warmup = "0s""#).replace(r#"interval = "3ms""#, r#"interval = "5ms""#)
}

fn incast_of(senders: usize, size: &str) -> String {
    let senders: Vec<String> = (1..=senders).map(|h| format!("\"h{h}\"")).collect();
    format!("pattern = \"incast\"\nreceiver = \"h0\"\nsenders = [{}]\nsize = \"{size}\"", senders.join(", "))
}

#[test]
fn ndp_permutations_and_incasts_are_the_same_on_any_threads() {
    let permutation = pulled(r#""ndp""#, "pattern = \"permutation\"");
    same_on_any_threads(&permutation);
    // trimmed as the senders start together: counted from the run's start
    let incast = from_the_start(&pulled(r#""ndp""#, &incast_of(15, "300000B")));
    same_on_any_threads(&incast);
    let report: serde_json::Value = serde_json::from_str(&report(&incast, 1).0).unwrap();
    let trims: u64 = report["queues"].as_array().unwrap().iter().map(|q| q["totals"]["trims"].as_u64().unwrap()).sum();
    assert!(trims > 100, "{trims} packets trimmed");
}

#[test]
fn eqds_permutations_and_incasts_are_the_same_on_any_threads() {
    same_on(&pulled(r#""eqds""#, "pattern = \"permutation\""), &[2]);
    same_on(&pulled(r#""eqds""#, &incast_of(15, "300000B")), &[2]);
}

#[test]
fn a_dumbbell_with_timed_sources_and_noisy_clocks_is_the_same_on_any_threads() {
    let text = r#"
nodes = ["a1", "a2", "r1", "r2", "b1", "b2"]
[run]
duration = "2s"
warmup = "200ms"
interval = "300ms"
clock_jitter = "1ms"
[links]
a1 = { between = ["a1", "r1"], rate = "10Mbps", delay = "1ms" }
a2 = { between = ["a2", "r1"], rate = "10Mbps", delay = "2ms" }
mid = { between = ["r1", "r2"], rate = "2Mbps", delay = "10ms", buffer = 15, qdisc = "red" }
b1 = { between = ["r2", "b1"], rate = "10Mbps", delay = "1ms" }
b2 = { between = ["r2", "b2"], rate = "10Mbps", delay = "1ms" }
[flows]
ftp = { src = "a1", dst = "b1", app = "ftp", transport = "reno" }
back = { src = "b2", dst = "a2", app = "ftp", transport = "vegas" }
poi = { src = "a2", dst = "b2", app = "poisson", mean_gap = "4ms", packet_size = "500B" }
file = { src = "b1", dst = "a1", app = "ftp", size = 300, transport = "newreno", start = "300ms" }
"#;
    same_on(text, &[2]);
}

#[test]
fn a_single_link_does_not_split_and_says_why() {
    let text = r#"
nodes = ["a", "b"]
[run]
duration = "1s"
[links]
l = { between = ["a", "b"], rate = "1Mbps", delay = "1ms" }
[flows]
f = { src = "a", dst = "b", app = "ftp" }
"#;
    let (_, why) = report(text, 2);
    assert!(why.unwrap().contains("even parts"));
}

#[test]
fn a_parallel_run_in_short_stretches_is_the_run_in_one_go() {
    let text = fat_tree(r#"{ kind = "newreno", initial_cwnd = 10 }"#, "buffer = 8");
    let sc = Scenario::parse(&text, "p.toml", &[]).unwrap();
    let mut sim = Simulation::new(&sc, None, Some(1)).unwrap();
    let (mut on, mut stretches) = (super::Threads::new(2), 0);
    while !on.step(&mut sim, 5_000) {
        stretches += 1;
    }
    assert_eq!(on.serial_reason(), None);
    assert!(stretches > 20, "{stretches} stretches");
    let mut report = sim.report();
    report.wall_s = 0.0;
    assert_eq!(serde_json::to_string_pretty(&report).unwrap(), self::report(&text, 1).0);
}

/// A k = 4 fat-tree under web-search transfers arriving as a Poisson process: connections finish
/// in one partition and their slots are taken again by arrivals everywhere.
fn web_search(transport: &str, load: f64) -> String {
    format!(
        r#"
[run]
duration = "30ms"
warmup = "3ms"
interval = "9ms"
forwarding = "ecmp"
transfer_rows = true
[topology]
kind = "fat_tree"
k = 4
hosts = {{ rate = "10Gbps", delay = "1us", qdisc = {{ kind = "ecn_threshold", k = 20 }}, buffer = 60 }}
[workloads.web]
pattern = "poisson"
sizes = "websearch"
load = {load}
packet_size = "1460B"
transport = {transport}
"#
    )
}

/// Which transfer each connection slot of `text`'s run on `threads` threads served last.
fn slots(text: &str, threads: usize) -> Vec<usize> {
    let sc = Scenario::parse(text, "p.toml", &[]).unwrap();
    let mut sim = Simulation::new(&sc, None, Some(1)).unwrap();
    sim.run_on(threads);
    sim.connections.slots.iter().map(|s| s.row).collect()
}

#[test]
fn web_search_transfers_reusing_slots_are_the_same_on_any_threads() {
    let text = web_search(r#"{ kind = "dctcp", ack_every = 1, min_rto = "1ms", clock_granularity = "1ms" }"#, 0.6);
    same_on_any_threads(&text);
    // the slots' identities tie the order of simultaneous timers: each transfer takes the same
    let one = slots(&text, 1);
    assert_eq!(slots(&text, 2), one);
    assert_eq!(slots(&text, 4), one);
    let report: serde_json::Value = serde_json::from_str(&report(&text, 1).0).unwrap();
    let t = &report["transfers"];
    let (rows, most_open) = (t["flow"].as_array().unwrap().len(), t["most_open"].as_u64().unwrap());
    let finished = t["finish_s"].as_array().unwrap().iter().filter(|f| !f.is_null()).count();
    assert!(
        finished > 100 && (rows as u64) > 2 * most_open,
        "{rows} transfers, {finished} finished, {most_open} open at most"
    );
}

#[test]
fn newreno_web_search_with_drops_is_the_same_on_any_threads() {
    let text = web_search(r#"{ kind = "newreno", ack_every = 1, initial_cwnd = 10 }"#, 0.8)
        .replace("buffer = 60", "buffer = 10");
    same_on(&text, &[2]);
    assert_eq!(slots(&text, 2), slots(&text, 1));
    assert!(report(&text, 1).0.contains("\"drops\": [\n"), "the run drops packets");
}

#[test]
fn ndp_web_search_transfers_reusing_slots_are_the_same_on_any_threads() {
    let text = web_search(r#""ndp""#, 0.6)
        .replace(r#"qdisc = { kind = "ecn_threshold", k = 20 }, buffer = 60"#, r#"qdisc = "trim", buffer = "12000B""#)
        .replace(r#"forwarding = "ecmp""#, r#"forwarding = "spray""#);
    same_on_any_threads(&text);
    assert_eq!(slots(&text, 2), slots(&text, 1));
}

#[test]
fn hpcc_with_telemetry_over_pfc_is_the_same_on_any_threads() {
    let (permutation, _) = lossless(r#""hpcc""#, r#"qdisc = "fcfs""#, "pattern = \"permutation\"");
    same_on_any_threads(&permutation);
    let (incast, pauses) = lossless(r#""hpcc""#, r#"qdisc = "fcfs""#, &incast_of(15, "400000B"));
    same_on(&incast, &[2]);
    assert!(pauses > 20, "{pauses} pause frames");
    let text = web_search(r#""hpcc""#, 0.6)
        .replace(r#"qdisc = { kind = "ecn_threshold", k = 20 }, buffer = 60"#, r#"qdisc = "fcfs""#);
    same_on(&text, &[2]);
}

#[test]
fn finite_transfers_with_delayed_acks_are_the_same_on_any_threads() {
    let text = web_search(r#"{ kind = "dctcp", ack_every = 2, min_rto = "1ms", clock_granularity = "1ms" }"#, 0.7);
    same_on_any_threads(&text);
    assert_eq!(slots(&text, 2), slots(&text, 1));
    // and with drops, so that retransmissions reach sinks that hold ACKs back
    let lossy = web_search(r#"{ kind = "newreno", ack_every = 2, initial_cwnd = 10 }"#, 0.8)
        .replace("buffer = 60", "buffer = 10");
    same_on(&lossy, &[2]);
    assert_eq!(slots(&lossy, 2), slots(&lossy, 1));
}

#[test]
fn each_partition_holds_only_its_own_ports_where_the_copies_would_be_large() {
    let text = fat_tree(r#""newreno""#, "buffer = 8");
    let (mut sim, mut threads) = split_own_ports_only(&text, 4);
    assert!(
        !threads.parallel.as_ref().unwrap().plan.own_ports_only(),
        "a k = 4 fat-tree's copies are small: made so here"
    );
    assert!(!threads.step(&mut sim, 1000), "the run is under way on 4 threads");
    let ports = sim.scenario().ports.len();
    let parallel = threads.parallel.as_deref().expect("the run split");
    let parts: Vec<&Simulation> = std::iter::once(&sim).chain(&parallel.others).collect();
    let held: Vec<usize> = parts.iter().map(|p| p.ports.iter().count()).collect();
    // a cut link's port is held at both its ends, every other port once
    let cut: usize = parallel.plan.cut.iter().map(Vec::len).sum();
    assert_eq!(held.iter().sum::<usize>(), ports + cut, "{held:?} of {ports} ports, {cut} cut");
    assert!(held.iter().all(|&h| h < ports / 2), "{held:?} of {ports}");
    assert!(parts.iter().all(|p| p.ports.len() == ports), "ids are the run's in every partition");
    let big = Scenario::parse(&text, "p.toml", &["topology.k=56".into(), "run.interval=18ms".into()]).unwrap();
    let plan = super::Plan::of(&Simulation::new(&big, None, Some(1)).unwrap(), 2).unwrap();
    assert!(plan.own_ports_only(), "a k = 56 fat-tree's copies on 2 threads are {} ports", big.ports.len() / 2);
}

#[test]
fn a_partition_keeps_a_connections_sender_only_where_its_source_is_and_routes_where_an_end_is() {
    let text = fat_tree(r#""newreno""#, "buffer = 8");
    let (mut sim, mut threads) = split_own_ports_only(&text, 4);
    assert!(!threads.step(&mut sim, 1000), "the run is under way on 4 threads");
    let parallel = threads.parallel.as_deref().expect("the run split");
    let first = sim.connections.first;
    let parts: Vec<&Simulation> = std::iter::once(&sim).chain(&parallel.others).collect();
    let (mut sink_only, mut neither) = (0, 0);
    for (me, part) in parts.iter().enumerate() {
        for flow in &part.flows[first..] {
            let (src, dst) = (parallel.plan.node[flow.ends.src.idx()], parallel.plan.node[flow.ends.dst.idx()]);
            let (source, sink) = (src as usize == me, dst as usize == me);
            assert_eq!(flow.sender.is_some(), source, "partition {me}, ends in {src} and {dst}");
            assert_eq!(flow.ack_line.is_some(), source || sink, "partition {me}, ends in {src} and {dst}");
            assert!(flow.ends.closed_loop, "the sink of a NewReno connection acknowledges cumulatively");
            sink_only += usize::from(sink && !source);
            neither += usize::from(!source && !sink);
        }
    }
    assert!(sink_only > 0 && neither > 0, "partitions that hold only a sink ({sink_only}) and neither end ({neither})");
}

/// `text`'s run on up to 2 threads as the default takes it: probed on one thread for `probed`
/// events, then split from its start again, its stretches going on all threads or on one as
/// `one`, the pace of one thread in events a second, makes them (0: all keep up; more than any
/// machine's: all fall behind, so the run goes on one thread and tries all again ever later).
/// Returns its report without its wall time, and whether it went on one thread for a while.
fn probed_then_split(text: &str, probed: u64, one: f64) -> (String, bool) {
    let sc = Scenario::parse(text, "p.toml", &[]).unwrap();
    let mut sim = Simulation::new(&sc, None, Some(1)).unwrap();
    let mut on = super::Threads::up_to(2);
    let mut probe = super::Probe::new(super::Plan::of(&sim, 2).unwrap());
    assert!(probe.run(&mut sim, probed) > 0);
    assert!(sim.now() > crate::units::Time::ZERO && !sim.is_done());
    let plan = super::balance::balanced(&sim, probe.plan);
    on.split_again(&mut sim, Ok(plan), one);
    assert_eq!(sim.events_processed(), 0, "made again");
    while !on.step(&mut sim, 4_000) {}
    assert_eq!(on.serial_reason(), None);
    let mut report = sim.report();
    report.wall_s = 0.0;
    (serde_json::to_string_pretty(&report).unwrap(), on.fell_back.is_some())
}

#[test]
fn a_run_probed_on_one_thread_then_split_from_its_start_is_the_run_on_one() {
    let text = fat_tree(r#"{ kind = "newreno", initial_cwnd = 10 }"#, "buffer = 8");
    let (one, _) = report(&text, 1);
    let (split, fell_back) = probed_then_split(&text, 3_000, 0.0);
    assert!(!fell_back, "all threads kept the pace of none");
    assert_same(&one, &split, "2 (probed first)");
    let (mixed, fell_back) = probed_then_split(&text, 3_000, 1e15);
    assert!(fell_back, "all threads fell behind an impossible pace: stretches went on one thread");
    assert_same(&one, &mixed, "2 and 1 by turns");
}

#[test]
fn a_default_run_of_a_millisecond_stays_on_one_thread_and_says_why() {
    let text = fat_tree(r#"{ kind = "newreno", initial_cwnd = 10 }"#, "buffer = 8").replace("20ms", "1ms");
    let text =
        text.replace(r#"warmup = "2ms""#, r#"warmup = "0ms""#).replace(r#"interval = "3ms""#, r#"interval = "1ms""#);
    let sc = Scenario::parse(&text, "p.toml", &[]).unwrap();
    let mut sim = Simulation::new(&sc, None, Some(1)).unwrap();
    let mut on = super::Threads::up_to(2);
    while !on.step(&mut sim, u64::MAX) {}
    // it ends within the probe, or (a slow build, a busy machine) the model finds too little
    // left, too few free cores or too little work in a window of 1 µs
    let note = on.note().unwrap();
    assert!(note.starts_with("on one thread: "), "{note}");
    assert!(on.handled().is_empty());
    let mut report = sim.report();
    report.wall_s = 0.0;
    assert_same(&self::report(&text, 1).0, &serde_json::to_string_pretty(&report).unwrap(), "the default's");
}
