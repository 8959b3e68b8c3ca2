//! Random loss on links in whole runs: the rate at the port, every loss charged to
//! a flow, traces that show it, seeds that repeat it, and no other draw disturbed.

mod common;

use common::{parse, parse_with, simulate};
use fairsim::{RunReport, Scenario, Simulation};

/// A CBR at 8 Mb/s into a 10 Mb/s line (no queue drops), a NewReno FTP beside it for ACKs.
const NET: &str = r#"
nodes = ["a", "gw", "b"]
[run]
duration = "30s"
warmup = "0s"
interval = "10s"
[links]
in = { between = ["a", "gw"], rate = "100Mbps", delay = "1ms" }
out = { between = ["gw", "b"], rate = "10Mbps", delay = "5ms", buffer = 100 }
[flows]
cbr = { src = "a", dst = "b", app = "cbr", rate = "8Mbps", acks = false }
bulk = { src = "a", dst = "b", app = "ftp", transport = "newreno", window = 20 }
"#;

const BERNOULLI: &str = "links.out.loss={ model = \"bernoulli\", rate = 0.05 }";

fn fingerprint(mut r: RunReport) -> String {
    r.wall_s = 0.0;
    r.scenario.clear();
    serde_json::to_string(&r).unwrap()
}

fn port<'a>(r: &'a RunReport, name: &str) -> &'a fairsim::stats::PortCounters {
    &r.queues.iter().find(|q| q.port == name).unwrap_or_else(|| panic!("no port {name}")).totals
}

#[test]
fn a_lossy_line_loses_its_rate_of_what_it_sends_and_every_loss_is_a_flows_drop() {
    let r = simulate(&parse_with(NET, &[BERNOULLI]), None, None);
    let out = port(&r, "gw->b");
    let fraction = out.rare.losses as f64 / out.departures as f64;
    let sd = (0.05 * 0.95 / out.departures as f64).sqrt();
    eprintln!(
        "gw->b: {} losses of {} departures = {fraction:.5} (4 sd = {:.5})",
        out.rare.losses,
        out.departures,
        4.0 * sd
    );
    assert!((fraction - 0.05).abs() < 4.0 * sd, "{fraction}");
    assert_eq!(out.drops, 0, "the queue itself never overflows");
    // the link's model applies in both directions: the FTP's ACKs are lost too
    let back = port(&r, "b->gw");
    assert!(back.rare.losses > 0, "{back:?}");
    let (cbr, bulk) = (&r.flows[0], &r.flows[1]);
    assert_eq!(bulk.run_totals.acks_dropped, back.rare.losses, "only the FTP's ACKs cross b->gw");
    assert_eq!(cbr.run_totals.dropped + bulk.run_totals.dropped, out.rare.losses);
    assert!(bulk.run_totals.retransmitted > 0, "NewReno repairs its losses");
    for f in &r.flows {
        let t = &f.run_totals;
        assert_eq!(t.sent, t.delivered + t.dropped + f.in_network, "{}", f.name);
        let lost: u64 = f.drops.iter().filter(|d| d.reason == "loss").map(|d| d.count).sum();
        assert_eq!((lost, f.drops.iter().map(|d| d.count).sum::<u64>()), (t.dropped, t.dropped), "{}", f.name);
    }
    let (drops, losses): (u64, u64) =
        r.queue_intervals.iter().fold((0, 0), |(d, l), q| (d + q.counters.drops, l + q.counters.rare.losses));
    let flows: u64 = r.flows.iter().map(|f| f.run_totals.dropped + f.run_totals.acks_dropped).sum();
    assert_eq!(drops + losses, flows, "every drop and every loss is a queue's and a flow's");
}

#[test]
fn gilbert_elliott_loses_p_over_p_plus_r_of_what_the_line_sends() {
    let ge = "links.out.forward.loss={ model = \"gilbert_elliott\", p = 0.01, r = 0.3 }";
    let r = simulate(&parse_with(NET, &[ge, "run.duration=90s"]), None, None);
    let out = port(&r, "gw->b");
    let fraction = out.rare.losses as f64 / out.departures as f64;
    eprintln!(
        "gw->b: {} losses of {} departures = {fraction:.5} (p/(p+r) = {:.5})",
        out.rare.losses,
        out.departures,
        0.01 / 0.31
    );
    assert!((fraction / (0.01 / 0.31) - 1.0).abs() < 0.2, "{fraction}");
    assert_eq!(port(&r, "b->gw").rare.losses, 0, "a direction's model is its own");
}

#[test]
fn the_same_seed_repeats_the_losses_and_another_seed_moves_them() {
    let sc = parse_with(NET, &[BERNOULLI]);
    let (a, b) = (simulate(&sc, None, Some(1)), simulate(&sc, None, Some(2)));
    assert_eq!(fingerprint(a.clone()), fingerprint(simulate(&sc, None, Some(1))));
    assert_ne!(port(&a, "gw->b").rare.losses, port(&b, "gw->b").rare.losses);
    // the resolved scenario writes the model out, so it repeats the run
    let resolved = sc.resolved_toml("default", 1).unwrap();
    assert!(resolved.contains("model = \"bernoulli\""), "{resolved}");
    let again = Scenario::parse(&resolved, "resolved.toml", &[]).unwrap();
    assert_eq!(
        again.ports.iter().map(|p| p.loss.clone()).collect::<Vec<_>>(),
        sc.ports.iter().map(|p| p.loss.clone()).collect::<Vec<_>>()
    );
    assert_eq!(fingerprint(a), fingerprint(simulate(&again, None, Some(1))));
}

#[test]
fn a_line_that_loses_nothing_changes_no_other_draw() {
    // Random Drop draws its victims from the port's stream; the loss model has its own, so a
    // model that never loses leaves every result as it was without one
    let random = NET.replace("buffer = 100 }", "buffer = 10, qdisc = \"random_drop\" }");
    let plain = simulate(&parse(&random), None, Some(3));
    let zero = simulate(&parse_with(&random, &["links.out.loss={ model = \"bernoulli\", rate = 0.0 }"]), None, Some(3));
    assert!(port(&plain, "gw->b").drops > 0, "the discipline draws");
    // a port with a loss model keeps an event at every transmission's end, where one without
    // leaves out those nothing waits behind (node::port): more events, the same run
    assert!(zero.events > plain.events, "{} events against {}", zero.events, plain.events);
    let events = |mut r: RunReport| {
        r.events = 0;
        r
    };
    assert_eq!(fingerprint(events(plain)), fingerprint(events(zero)));
}

#[test]
fn an_event_trace_shows_each_loss_as_a_drop_and_no_reception() {
    let sc = parse_with(NET, &[BERNOULLI, "run.events=[\"gw->b\"]", "run.duration=5s", "run.interval=5s"]);
    let mut sim = Simulation::new(&sc, None, None).unwrap();
    sim.run();
    let report = sim.report();
    let out = port(&report, "gw->b");
    let (_, trace) = &sim.event_traces()[0];
    let count = |letter: char, reason: Option<&str>| {
        trace.lines().filter(|l| l.starts_with(letter) && reason.is_none_or(|r| l.ends_with(r))).count() as u64
    };
    assert_eq!(count('d', Some(" loss")), out.rare.losses);
    assert_eq!(count('d', None), out.drops + out.rare.losses);
    let (sent, received) = (count('-', None), count('r', None));
    // still on the line or propagating at the end: at most 1 + 5 ms / 0.8 ms
    let in_flight = sent - out.rare.losses - received;
    assert!(sent >= out.departures && in_flight <= 8, "sent {sent}, lost {}, received {received}", out.rare.losses);
    assert!(out.rare.losses > 100, "{out:?}");
}
