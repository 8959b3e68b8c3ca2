//! Whole runs: hand-checkable cases, conservation, determinism, resolved scenarios.

mod common;

use common::{flow, parse, parse_with, simulate};
use fairsim::units::{Rate, Time};
use fairsim::{RunReport, Scenario, Simulation};
use std::path::PathBuf;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/examples").join(name)
}

/// The report as JSON with the wall-clock time removed: everything else must repeat exactly.
fn fingerprint(mut r: RunReport) -> String {
    r.wall_s = 0.0;
    serde_json::to_string(&r).unwrap()
}

const TWO_HOPS: &str = r#"
nodes = ["a", "gw", "b"]
[run]
duration = "100s"
warmup = "20s"
interval = "20s"
[links]
in = { between = ["a", "gw"], rate = "1Mbps", delay = "3ms" }
out = { between = ["gw", "b"], rate = "80kbps", delay = "7ms", buffer = 10 }
"#;

#[test]
fn cbr_below_line_rate_has_no_loss_and_delay_is_transmission_plus_propagation() {
    let sc =
        parse(&format!("{TWO_HOPS}[flows]\nu = {{ src = \"a\", dst = \"b\", app = \"cbr\", rate = \"40kbps\" }}\n"));
    let r = simulate(&sc, None, None);
    let f = &r.flows[0];
    assert_eq!(f.run_totals.dropped, 0);
    assert_eq!(f.transport, "none");
    assert_eq!(f.run_totals.acks_sent, 0, "open-loop CBR is unacknowledged");
    // 1000 bytes: 8 ms on the 1 Mb/s line, 100 ms on the 80 kb/s line, plus 3 + 7 ms
    let want = Rate(1_000_000).tx_time(1000) + Time::from_millis(3) + Rate(80_000).tx_time(1000) + Time::from_millis(7);
    assert_eq!(want, Time::from_millis(118));
    let delay = f.delay_s.unwrap();
    assert!((delay.mean - 0.118).abs() < 1e-12, "{delay:?}");
    assert_eq!(f.totals.delay_max_ns, want.0);
    assert!((f.goodput_bps.unwrap().mean - 40_000.0).abs() < 50.0 * 8.0);
    // half the line's rate, and no packet ever waits behind another
    let gw = r.queues.iter().find(|q| q.port == "gw->b").unwrap();
    assert!((gw.utilisation.unwrap().mean - 0.5).abs() < 1e-3, "{:?}", gw.utilisation);
    assert_eq!((gw.occupancy_pkts.unwrap().mean, gw.totals.max_occupancy), (0.0, 0));
}

#[test]
fn two_seeds_resolve_to_the_same_scenario_but_for_their_seed_and_draws() {
    // what sweeps' run ids rest on: the seed's draws key says everything seeds change
    let sc = parse(&format!(
        "{TWO_HOPS}[flows]\nu = {{ src = \"a\", dst = \"b\", app = \"cbr\", rate = \"40kbps\", start_jitter = \"1s\" }}\n\
         v = {{ src = \"a\", dst = \"b\", app = \"cbr\", rate = \"40kbps\" }}\n"
    ));
    let pair = &sc.pairs[0].name;
    let (one, two) = (sc.resolved_toml(pair, 1).unwrap(), sc.resolved_toml(pair, 2).unwrap());
    let differ: Vec<(&str, &str)> = one.lines().zip(two.lines()).filter(|(a, b)| a != b).collect();
    assert!(!differ.is_empty());
    for (a, _) in &differ {
        assert!(a.starts_with("seed =") || a.starts_with("start =") || a.contains("with seed 1"), "{a}");
    }
    assert_ne!(sc.draws_key(1), sc.draws_key(2));
    assert!(sc.draws_key(1).starts_with("seed 1; 0 "), "only the jittered flow: {}", sc.draws_key(1));
    assert!(!sc.draws_key(1).contains("; 1 "), "flow v draws nothing: {}", sc.draws_key(1));
}

#[test]
fn bursts_fill_the_queue_to_the_burst_and_drain_between_them() {
    // 5 packets back to back at the access line's 1 Mb/s every 2 s: the 80 kb/s line takes
    // 100 ms a packet, so each burst queues up to 4 behind the one on the line (the first
    // arrives alone: 8 ms ahead of the next) and is gone 500 ms after it started; 100 s of
    // run, 50 bursts, 250 packets, none dropped by a 10-packet buffer
    let sc = parse(&format!(
        "{TWO_HOPS}[flows]\nb = {{ src = \"a\", dst = \"b\", app = \"bursts\", burst = 5, period = \"2s\" }}\n"
    ));
    let r = simulate(&sc, None, None);
    let f = &r.flows[0];
    assert_eq!((f.run_totals.sent, f.run_totals.dropped), (250, 0));
    let gw = r.queues.iter().find(|q| q.port == "gw->b").unwrap();
    assert_eq!(gw.totals.max_occupancy, 4);
    // the line is busy 500 ms of every 2 s
    assert!((gw.utilisation.unwrap().mean - 0.25).abs() < 1e-3, "{:?}", gw.utilisation);
}

#[test]
fn a_queue_fed_at_twice_its_rate_stays_full() {
    let sc = parse(&format!(
        "{TWO_HOPS}[flows]
hose = {{ src = \"a\", dst = \"b\", app = \"firehose\", rate = \"160kbps\" }}\n"
    ));
    let r = simulate(&sc, None, None);
    let gw = r.queues.iter().find(|q| q.port == "gw->b").unwrap();
    // ten buffers, refilled at the very instant each departure frees one: arrivals come every
    // 50 ms in phase with the 100 ms transmissions, so the queue is never seen below ten
    let occ = gw.occupancy_pkts.unwrap().mean;
    assert!((occ - 10.0).abs() < 1e-9, "{occ}");
    assert_eq!(gw.totals.max_occupancy, 10);
    assert!(gw.utilisation.unwrap().mean > 0.9999);
    let hose = &r.flows[0];
    assert!((hose.totals.dropped as f64 / hose.totals.sent as f64 - 0.5).abs() < 0.01);
}

#[test]
fn a_buffer_that_includes_the_line_holds_one_packet_fewer_in_waiting() {
    let flows = "[flows]\nhose = { src = \"a\", dst = \"b\", app = \"firehose\", rate = \"160kbps\" }\n";
    for qdisc in ["fcfs", "fq", "drr", "random_drop", "selective_decbit"] {
        let sets = ["links.out.buffer_includes_line=true".to_string(), format!("links.out.qdisc={qdisc}")];
        let sc = Scenario::parse(&format!("{TWO_HOPS}{flows}"), "test.toml", &sets).unwrap();
        let r = simulate(&sc, None, None);
        let gw = r.queues.iter().find(|q| q.port == "gw->b").unwrap();
        // ten places: nine waiting and the one on the line
        assert_eq!(gw.totals.max_occupancy, 9, "{qdisc}");
        assert!(gw.utilisation.unwrap().mean > 0.9999, "{qdisc}");
    }
}

#[test]
fn two_generic_ftps_share_a_fcfs_link_equally() {
    let sc = parse(&format!(
        "{TWO_HOPS}[flows]\nf1 = {{ src = \"a\", dst = \"b\", app = \"ftp\" }}\nf2 = {{ src = \"a\", dst = \"b\", app = \"ftp\" }}\n"
    ));
    let r = simulate(&sc, None, None);
    let (g1, g2) = (r.flows[0].goodput_pps.unwrap().mean, r.flows[1].goodput_pps.unwrap().mean);
    // the 80 kb/s line carries 10 packets/s; two windows of 5 fit in a buffer of 10: no loss
    assert!((g1 + g2 - 10.0).abs() < 0.05, "{g1} + {g2}");
    assert!((g1 - g2).abs() < 0.1, "{g1} vs {g2}");
    assert_eq!(r.flows[0].run_totals.dropped + r.flows[1].run_totals.dropped, 0);
    let bottleneck = r.queues.iter().find(|q| q.port == "gw->b").unwrap();
    assert!(bottleneck.utilisation.unwrap().mean > 0.99);
    assert!(r.fairness.jain.unwrap() > 0.999);
}

#[test]
fn a_firehose_at_twice_the_line_rate_takes_most_of_a_fcfs_bottleneck() {
    // the bundled example of the 1989 paper's Scenario 3 shape: an FTP and a Telnet against an
    // ill-behaved source at twice the 56 kb/s line rate, FCFS with 20 buffers
    let sc = Scenario::load(example("firewall.toml").to_str().unwrap(), &[]).unwrap();
    let r = simulate(&sc, Some("G/FCFS"), None);
    let (ftp, bad) = (flow(&r, "ftp"), flow(&r, "bad"));
    // 56 kb/s is 7 packets/s; the paper's G/FCFS row: FTP 3 packets, ill-behaved 3497 of 3500
    assert!(bad.goodput_pps.unwrap().mean > 0.8 * 7.0, "{:?}", bad.goodput_pps);
    assert!(ftp.goodput_pps.unwrap().mean < 0.2 * 7.0, "{:?}", ftp.goodput_pps);
    // the firehose sends 14 packets/s, so about half of what it sends is dropped
    let sent = bad.totals.sent as f64;
    assert!((bad.totals.dropped as f64 / sent - 0.5).abs() < 0.05);
    // the sink ACKs the firehose (it has an RTT column in the paper) but it never retransmits
    assert!(bad.totals.acks_received > 0 && bad.totals.retransmitted == 0 && bad.rtt_s.is_some());
}

#[test]
fn every_data_packet_is_delivered_dropped_or_still_in_the_network() {
    for file in ["dumbbell.toml", "parking_lot.toml"] {
        let sc = Scenario::load(example(file).to_str().unwrap(), &[]).unwrap();
        for pair in &sc.pairs {
            let r = simulate(&sc, Some(&pair.name), None);
            for f in &r.flows {
                let t = &f.run_totals;
                assert_eq!(
                    t.sent,
                    t.delivered + t.dropped + t.trimmed + f.in_network,
                    "{file} {} {}",
                    pair.name,
                    f.name
                );
                assert_eq!(t.dropped, f.drops.iter().map(|d| d.count).sum::<u64>());
                assert!(t.delivered_unique <= t.delivered);
            }
            let queue_drops: u64 = r.queue_intervals.iter().map(|q| q.counters.drops).sum();
            let flow_drops: u64 = r.flows.iter().map(|f| f.run_totals.dropped + f.run_totals.acks_dropped).sum();
            assert_eq!(queue_drops, flow_drops, "every drop is attributed to a queue and a flow");
        }
    }
}

const RANDOM_TRAFFIC: &str = r#"
nodes = ["a", "gw", "b"]
[run]
duration = "300s"
warmup = "50s"
interval = "50s"
[links]
in = { between = ["a", "gw"], rate = "1Mbps" }
out = { between = ["gw", "b"], rate = "56kbps", buffer = 8 }
[flows]
ftp = { src = "a", dst = "b", app = "ftp" }
telnet = { src = "a", dst = "b", app = "telnet" }
noise = { src = "a", dst = "b", app = "poisson", rate = "20kbps" }
[pairs]
"G/FCFS" = { qdisc = "fcfs" }
"G/RD" = { qdisc = "random_drop" }
"#;

#[test]
fn same_scenario_and_seed_repeat_bit_for_bit_and_another_seed_differs() {
    let sc = parse(RANDOM_TRAFFIC);
    for pair in ["G/FCFS", "G/RD"] {
        let a = fingerprint(simulate(&sc, Some(pair), Some(7)));
        let b = fingerprint(simulate(&sc, Some(pair), Some(7)));
        assert_eq!(a, b, "{pair}");
        let c = fingerprint(simulate(&sc, Some(pair), Some(8)));
        assert_ne!(a, c, "{pair}: the seed must change Poisson and Telnet traffic");
    }
}

#[test]
fn a_flow_added_elsewhere_does_not_change_another_flows_random_numbers() {
    // the Telnet's packet count over the run depends only on its own random stream
    let sc = parse(RANDOM_TRAFFIC);
    let more = parse(
        &RANDOM_TRAFFIC
            .replace("[pairs]", "extra = { src = \"a\", dst = \"b\", app = \"poisson\", rate = \"1kbps\" }\n[pairs]"),
    );
    let sent = |r: &RunReport| flow(r, "telnet").run_totals.sent;
    assert!(sent(&simulate(&sc, None, None)) > 0);
    // the telnet's first-transmission count equals its application's packet count
    let count = |r: &RunReport| {
        let t = &flow(r, "telnet").run_totals;
        t.sent - t.retransmitted
    };
    assert_eq!(count(&simulate(&sc, None, None)), count(&simulate(&more, None, None)));
}

#[test]
fn the_resolved_scenario_reproduces_the_run() {
    let sc = Scenario::load(example("parking_lot.toml").to_str().unwrap(), &["flows.long.window=9".into()]).unwrap();
    let text = sc.resolved_toml("G/RD", 5).unwrap();
    let resolved = Scenario::parse(&text, "resolved.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(resolved.pairs.len(), 1);
    let strip = |mut r: RunReport| {
        r.scenario.clear();
        fingerprint(r)
    };
    assert_eq!(strip(simulate(&sc, Some("G/RD"), Some(5))), strip(simulate(&resolved, None, None)));
    assert!(text.contains("window = 9"), "{text}");
}

#[test]
fn an_interrupted_run_reports_what_it_has() {
    let sc = parse(RANDOM_TRAFFIC);
    let mut sim = Simulation::new(&sc, None, None).unwrap();
    while sim.now() < Time::from_secs(120) {
        assert!(!sim.run_events(1000));
    }
    let r = sim.report();
    assert!(!r.complete);
    assert_eq!(r.measurement.intervals, 1, "one complete measurement interval (50–100 s)");
    let last = r.flow_intervals.last().unwrap();
    assert_eq!((last.start_s, last.end_s), (100.0, r.simulated_s), "the partial interval is kept");
    assert!(r.simulated_s >= 120.0);
    let ftp = &r.flows[0];
    assert_eq!(ftp.run_totals.sent, ftp.run_totals.delivered + ftp.run_totals.dropped + ftp.in_network);
}

#[test]
fn without_warm_up_every_interval_is_measured() {
    let text = TWO_HOPS.replace("warmup = \"20s\"\n", "")
        + "[flows]\nu = { src = \"a\", dst = \"b\", app = \"cbr\", rate = \"40kbps\" }\n";
    let r = simulate(&parse(&text), None, None);
    let starts: Vec<f64> = r.flow_intervals.iter().map(|i| i.start_s).collect();
    assert_eq!(starts, [0.0, 20.0, 40.0, 60.0, 80.0]);
    assert!(r.flow_intervals.iter().all(|i| !i.warmup));
    assert_eq!(r.measurement.intervals, 5);
    assert_eq!(r.flows[0].goodput_pps.unwrap().n, 5);
}

#[test]
fn a_stopped_ftp_finishes_what_it_sent_and_a_finite_one_completes() {
    let text = format!(
        "{TWO_HOPS}[flows]\nlong = {{ src = \"a\", dst = \"b\", app = \"ftp\", stop = \"30s\" }}\nfile = {{ src = \"a\", dst = \"b\", app = \"ftp\", size = \"50KB\", start = \"40s\" }}\n"
    );
    let r = simulate(&parse(&text), None, None);
    let (long, file) = (&r.flows[0], &r.flows[1]);
    // after 30 s the long transfer only finishes its window: nothing is sent in the last intervals
    let late: u64 =
        r.flow_intervals.iter().filter(|i| i.flow == "long" && i.start_s >= 40.0).map(|i| i.counters.sent).sum();
    assert_eq!(late, 0);
    assert_eq!(long.in_network, 0);
    assert_eq!(file.run_totals.delivered_unique, 50, "50 KB in 1000-byte packets");
    // 50 packets at 10 packets/s, window 5: about 5 s
    let done = file.completion_s.unwrap();
    assert!((4.9..6.0).contains(&done), "{done}");
}

#[test]
fn a_pair_can_give_chosen_flows_their_own_flow_control() {
    let sc = parse(&format!(
        r#"{TWO_HOPS}
[flows]
a = {{ src = "a", dst = "b", app = "ftp" }}
b = {{ src = "a", dst = "b", app = "ftp", transport = "generic" }}
[pairs]
"G/FCFS" = {{ transport = "generic" }}
"JK+G/FCFS" = {{ transport = "generic", transports = {{ a = "jk" }} }}
"PP+JK/FQ" = {{ qdisc = "fq", transports = {{ a = "pp", b = "jk" }} }}
"#
    ));
    let transports = |pair: &str| -> Vec<String> {
        simulate(&sc, Some(pair), None).flows.iter().map(|f| f.transport.clone()).collect()
    };
    assert_eq!(transports("G/FCFS"), ["generic", "generic"]);
    assert_eq!(transports("JK+G/FCFS"), ["jk", "generic"]);
    // the pair's choice wins over the flow's own
    assert_eq!(transports("PP+JK/FQ"), ["pp", "jk"]);
    let text = sc.resolved_toml("PP+JK/FQ", 1).unwrap();
    let resolved = parse(&text);
    assert_eq!(
        simulate(&resolved, None, None).flows.iter().map(|f| f.transport.clone()).collect::<Vec<_>>(),
        ["pp", "jk"]
    );
}

#[test]
fn an_unlimited_queue_that_grows_without_end_stops_the_run_with_an_error() {
    let sc = parse(
        r#"
nodes = ["a", "b"]
[run]
duration = "10s"
[links]
l = { between = ["a", "b"], rate = "1Mbps" }
[flows]
hose = { src = "a", dst = "b", app = "firehose", rate = "1Tbps", acks = false }
"#,
    );
    let mut sim = Simulation::new(&sc, None, None).unwrap();
    sim.run();
    let error = sim.error().expect("the run stops with an error");
    assert!(error.contains("a->b") && error.contains("unlimited buffer"), "{error}");
    let r = sim.report();
    assert!(!r.complete && r.error.is_some() && r.simulated_s < 1.0);
}

#[test]
fn a_web_application_runs_transfers_with_drawn_starts_and_sizes_repeatably() {
    let sc = parse(
        r#"
nodes = ["a", "gw", "b"]
[run]
duration = "60s"
[links]
in = { between = ["a", "gw"], rate = "100Mbps" }
out = { between = ["gw", "b"], rate = "10Mbps", delay = "1ms", buffer = 64 }
[flows]
web = { src = "a", dst = "b", app = "web", transfers = 40, mean_gap = "50ms", size = "20KB", shape = 1.06, transport = "reno" }
"#,
    );
    assert_eq!(sc.flows.len(), 40);
    let r = simulate(&sc, None, Some(3));
    let starts: Vec<f64> = sc.draws(3).iter().map(|d| d.unwrap().0.as_secs_f64()).collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "transfers start one after another");
    let mean_gap = starts.last().unwrap() / 40.0;
    assert!((0.02..0.1).contains(&mean_gap), "mean gap {mean_gap}");
    let done: Vec<f64> = r.flows.iter().filter_map(|f| f.completion_s).collect();
    assert!(done.len() >= 38, "almost every transfer completes in 60 s: {}", done.len());
    // the same seed draws the same transfers, another seed others; the resolved file has them
    assert_eq!(fingerprint(simulate(&sc, None, Some(3))), fingerprint(r.clone()));
    assert_ne!(sc.draws(3), sc.draws(4));
    let resolved = parse(&sc.resolved_toml("default", 3).unwrap());
    let strip = |mut r: RunReport| {
        r.scenario.clear();
        fingerprint(r)
    };
    assert_eq!(strip(simulate(&resolved, None, None)), strip(r));
}

#[test]
fn a_disabled_flow_is_left_out() {
    let text = format!(
        "{TWO_HOPS}[flows]\na = {{ src = \"a\", dst = \"b\", app = \"ftp\" }}\nb = {{ src = \"a\", dst = \"b\", app = \"ftp\", enabled = false }}\n"
    );
    let sc = parse(&text);
    assert_eq!(sc.flows.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["a"]);
    let both = Scenario::parse(&text, "t.toml", &["flows.b.enabled=true".into()]).unwrap();
    assert_eq!(both.flows.len(), 2);
}

#[test]
fn start_jitter_gives_each_seed_its_own_start_phases_and_the_resolved_file_repeats_them() {
    let flows = "[flows]\nf1 = { src = \"a\", dst = \"b\", app = \"ftp\" }\nf2 = { src = \"a\", dst = \"b\", app = \"ftp\", start = \"1s\", start_jitter = \"0s\" }\nf3 = { src = \"a\", dst = \"b\", app = \"ftp\", start = \"2s\" }\n";
    let text = format!(
        "{}{flows}",
        TWO_HOPS.replace("interval = \"20s\"\n", "interval = \"20s\"\nstart_jitter = \"200ms\"\n")
    );
    let sc = parse(&text);
    let starts = |seed| sc.starts(seed);
    assert_eq!(starts(1), starts(1), "a seed repeats its draws");
    assert_ne!(starts(1)[0], starts(2)[0], "seeds differ");
    assert_eq!(starts(1)[1], Time::from_secs(1), "a flow's own start_jitter = 0s wins over the run's");
    for seed in 1..20 {
        let s = starts(seed);
        assert!(s[0] < Time::from_millis(200) && (Time::from_secs(2)..Time::from_millis(2200)).contains(&s[2]));
    }
    // a flow's draw comes from its own stream: taking f2's jitter away moves no other flow
    let without = parse(&text.replace(", start_jitter = \"0s\"", ""));
    assert_eq!((without.starts(3)[0], without.starts(3)[2]), (sc.starts(3)[0], sc.starts(3)[2]));
    // the run starts its flows there, and the resolved scenario writes the drawn starts out
    let mut sim = Simulation::new(&sc, None, Some(4)).unwrap();
    sim.run();
    assert_eq!(sim.flows().iter().map(|f| f.start).collect::<Vec<_>>(), sc.starts(4));
    let resolved = Scenario::parse(&sc.resolved_toml("default", 4).unwrap(), "resolved.toml", &[]).unwrap();
    let strip = |mut r: RunReport| {
        r.scenario.clear();
        fingerprint(r)
    };
    assert_eq!(strip(sim.report()), strip(simulate(&resolved, None, None)));
    assert!(resolved.flows.iter().all(|f| f.start_jitter == Time::ZERO));
}

#[test]
fn clock_jitter_moves_phases_without_changing_any_rate_and_the_resolved_file_repeats_it() {
    // A CBR at exactly half the bottleneck's rate beside a Generic FTP, as in the thesis's
    // Scenario 3 (docs/reproductions.md, *Phase locks*; scripts/phase_locks.py measures the locks themselves): a host
    // clock late by up to one packet time (100 ms) moves each instant and timeout at random,
    // and the CBR's nominal schedule, so its rate, is unchanged.
    let flows = "[flows]\nftp = { src = \"a\", dst = \"b\", app = \"ftp\", window = 15 }\n\
                 cbr = { src = \"a\", dst = \"b\", app = \"cbr\", rate = \"40kbps\", acks = false }\n";
    let exact = parse(&format!("{TWO_HOPS}{flows}"));
    let noisy_text = format!(
        "{}{flows}",
        TWO_HOPS.replace("interval = \"20s\"\n", "interval = \"20s\"\nclock_jitter = \"100ms\"\n")
    );
    let noisy = parse(&noisy_text);
    let sent = |r: &RunReport| r.flows[1].run_totals.sent;
    let (a, b, c) = (simulate(&exact, None, Some(1)), simulate(&noisy, None, Some(1)), simulate(&noisy, None, Some(2)));
    assert_eq!(sent(&a), 500, "5 packets/s for 100 s");
    assert!(
        (499..=500).contains(&sent(&b)) && (499..=500).contains(&sent(&c)),
        "the last instant may fall past the end"
    );
    assert_ne!(fingerprint(b.clone()), fingerprint(c.clone()), "each seed has its own noise");
    assert_eq!(fingerprint(b.clone()), fingerprint(simulate(&noisy, None, Some(1))), "and repeats it");
    assert_ne!(a.flows[1].run_totals.delivered, b.flows[1].run_totals.delivered, "the noise moves the phases");
    // the resolved scenario keeps the jitter, so it repeats the run
    let resolved = Scenario::parse(&noisy.resolved_toml("default", 1).unwrap(), "resolved.toml", &[]).unwrap();
    assert_eq!(resolved.run.clock_jitter, Time::from_millis(100));
    let strip = |mut r: RunReport| {
        r.scenario.clear();
        fingerprint(r)
    };
    assert_eq!(strip(b), strip(simulate(&resolved, None, Some(1))));
}

#[test]
fn a_ports_event_trace_has_a_line_per_arrival_transmission_drop_and_delivery() {
    let text =
        format!("{TWO_HOPS}\n[flows]\nbulk = {{ src = \"a\", dst = \"b\", app = \"ftp\", transport = \"newreno\" }}\n");
    let sets = ["run.events=[\"gw->b\"]", "run.duration=30s", "run.warmup=0s", "run.interval=30s"];
    let scenario = parse_with(&text, &sets);
    let mut sim = Simulation::new(&scenario, None, None).unwrap();
    sim.run();
    let report = sim.report();
    let traces = sim.event_traces();
    assert_eq!(traces.len(), 1);
    let (port, trace) = &traces[0];
    assert_eq!(port, "gw->b");
    let count = |letter: char| trace.lines().filter(|l| l.starts_with(letter)).count() as u64;
    let q = report.queues.iter().find(|q| q.port == "gw->b").unwrap();
    assert_eq!(count('+'), q.totals.arrivals);
    assert_eq!(count('d'), q.totals.drops);
    assert!(q.totals.drops > 0, "a 10-packet buffer drops NewReno's overshoot");
    // every packet sent was received at the far end but those still on the line or in flight
    let (sent, received) = (count('-'), count('r'));
    assert!(sent >= q.totals.departures && sent - received <= 2, "sent {sent}, received {received}");
    let drop = trace.lines().find(|l| l.starts_with('d')).unwrap();
    let fields: Vec<&str> = drop.split(' ').collect();
    assert_eq!((fields[2], fields[3], fields[4], fields[7]), ("bulk", "-", "data", "tail_drop"), "{drop}");
    // times never go back
    let times: Vec<f64> =
        trace.lines().filter(|l| !l.starts_with('#')).map(|l| l.split(' ').nth(1).unwrap().parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn ports_and_flows_with_the_same_resolved_component_share_it() {
    let sc = parse(&format!(
        r#"{TWO_HOPS}
[flows]
a = {{ src = "a", dst = "b", app = "ftp" }}
b = {{ src = "a", dst = "b", app = "ftp" }}
c = {{ src = "a", dst = "b", app = "ftp", transport = "jk" }}
[pairs]
"G/FQ" = {{ transport = "generic", qdisc = "fq" }}
"#
    ));
    let configured = &sc.configured[0];
    let t: Vec<_> = configured.transports.iter().map(|t| t.as_ref().expect("flow-controlled")).collect();
    assert!(std::sync::Arc::ptr_eq(t[0], t[1]), "a and b take the pair's transport: one copy");
    assert!(!std::sync::Arc::ptr_eq(t[1], t[2]) && t[2].kind == "jk", "c has its own");
    // the gateway's two lines take the pair's FQ; the hosts' access lines keep FCFS
    let q = &configured.qdiscs;
    assert_eq!(q.iter().map(|c| c.kind.as_str()).collect::<Vec<_>>(), ["fcfs", "fq", "fq", "fcfs"]);
    assert!(std::sync::Arc::ptr_eq(&q[1], &q[2]), "one FQ component for the gateway's two lines");
    // and a run reports the same components as before sharing
    let r = simulate(&sc, None, None);
    assert_eq!(r.flows.iter().map(|f| f.transport.as_str()).collect::<Vec<_>>(), ["generic", "generic", "jk"]);
}
