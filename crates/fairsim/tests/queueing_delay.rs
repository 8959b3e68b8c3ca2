//! Queueing delay: the report's sojourn per port and queueing delay per flow,
//! against exact figures computed from every port's logged packet events (`[run] events`).

mod common;

use common::parse;
use fairsim::qdisc::logged::PortEvent;
use fairsim::stats::delay::RELATIVE_ERROR;
use fairsim::stats::DelaySummary;
use fairsim::Simulation;
use std::collections::HashMap;

/// Two window flows and a CBR share a 2 Mb/s bottleneck with a 20-packet buffer: the queue
/// fills, drops and drains.
const SCENARIO: &str = r#"
nodes = ["a", "b", "c", "gw", "d"]
[run]
duration = "20s"
interval = "5s"
events = ["*"]
[links]
a = { between = ["a", "gw"], rate = "10Mbps", delay = "2ms" }
b = { between = ["b", "gw"], rate = "10Mbps", delay = "5ms" }
c = { between = ["c", "gw"], rate = "10Mbps", delay = "1ms" }
out = { between = ["gw", "d"], rate = "2Mbps", delay = "10ms", buffer = 20 }
[flows]
f1 = { src = "a", dst = "d", app = "ftp", transport = { kind = "newreno", window = 10000 } }
f2 = { src = "b", dst = "d", app = "ftp", transport = { kind = "generic", window = 25 } }
u = { src = "c", dst = "d", app = "cbr", rate = "600kbps" }
"#;

/// The exact figures of `xs` (in delivery order), in seconds.
fn exact(xs: &[u64]) -> DelaySummary {
    let n = xs.len();
    if n < 2 {
        return DelaySummary { samples: n as u64, ..Default::default() };
    }
    let mut sorted = xs.to_vec();
    sorted.sort_unstable();
    let q = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1] as f64 / 1e9;
    let jitter: u64 = xs.windows(2).map(|w| w[0].abs_diff(w[1])).sum();
    DelaySummary {
        samples: n as u64,
        mean_s: Some(xs.iter().sum::<u64>() as f64 / n as f64 / 1e9),
        p50_s: Some(q(0.5)),
        p95_s: Some(q(0.95)),
        p99_s: Some(q(0.99)),
        max_s: Some(sorted[n - 1] as f64 / 1e9),
        jitter_s: Some(jitter as f64 / (n - 1) as f64 / 1e9),
    }
}

fn assert_close(got: &DelaySummary, want: &DelaySummary, what: &str) {
    assert_eq!(got.samples, want.samples, "{what}");
    if want.samples < 2 {
        assert_eq!(got.samples, 0, "{what}: the scenario sends one packet or none on it");
        return assert_eq!(got, want, "{what}");
    }
    let exact = |a: Option<f64>, b: Option<f64>, name: &str| {
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!((a - b).abs() <= 1e-12 * b.max(1e-9), "{what} {name}: {a} against {b}");
    };
    exact(got.mean_s, want.mean_s, "mean");
    exact(got.max_s, want.max_s, "max");
    exact(got.jitter_s, want.jitter_s, "jitter");
    for (g, w, name) in [(got.p50_s, want.p50_s, "p50"), (got.p95_s, want.p95_s, "p95"), (got.p99_s, want.p99_s, "p99")]
    {
        let (g, w) = (g.unwrap(), w.unwrap());
        // the bound, and a nanosecond of rounding to seconds
        assert!((g - w).abs() <= w * RELATIVE_ERROR + 1e-9, "{what} {name}: {g} against {w}");
    }
}

#[test]
fn sojourns_and_queueing_delays_match_the_packet_log() {
    let sc = parse(SCENARIO);
    let mut sim = Simulation::new(&sc, None, None).unwrap();
    sim.run();
    let r = sim.report();
    // each packet's time in each queue, from the dequeue events
    let mut waited: HashMap<u64, u64> = HashMap::new();
    let mut queued = 0;
    for (port, q) in sim.ports().iter().zip(&r.queues) {
        let sojourns: Vec<u64> = port
            .log()
            .unwrap()
            .iter()
            .filter(|(_, e, _)| *e == PortEvent::Dequeue)
            .map(|(t, _, p)| (*t - p.enqueued_at).0)
            .collect();
        for (t, e, p) in port.log().unwrap() {
            if *e == PortEvent::Dequeue && p.is_data() {
                *waited.entry(p.id).or_default() += (*t - p.enqueued_at).0;
            }
        }
        assert_close(&q.sojourn, &exact(&sojourns), &q.port);
        queued += sojourns.iter().filter(|&&s| s > 0).count();
    }
    assert!(queued > 1000, "the bottleneck queues: {queued} packets waited");
    // each flow's delivered packets, in delivery order: their order on the route's last line
    for (fi, f) in r.flows.iter().enumerate() {
        let last = *sc.flows[fi].data_route.last().unwrap();
        let delays: Vec<u64> = sim.ports()[last.idx()]
            .log()
            .unwrap()
            .iter()
            .filter(|(_, e, p)| *e == PortEvent::Dequeue && p.flow.idx() == fi && p.is_data())
            .map(|(_, _, p)| waited[&p.id])
            .take(f.totals.delivered as usize)
            .collect();
        assert_close(&f.queueing, &exact(&delays), &f.name);
        assert!(f.queueing.p99_s.unwrap() > 0.01, "{}: the flow's packets queue", f.name);
    }
}

#[test]
fn the_warm_up_is_left_out() {
    let text = SCENARIO.replace("duration = \"20s\"", "duration = \"20s\"\nwarmup = \"5s\"");
    let r = common::simulate(&parse(&text), None, None);
    let out = r.queues.iter().find(|q| q.from == "gw" && q.to == "d").unwrap();
    // taken by the line (sojourn) and sent (departures) differ by the packets on the line at the
    // warm-up's end and at the run's
    assert!(out.sojourn.samples.abs_diff(out.totals.departures) <= 1, "{:?}", out.sojourn);
    assert!(out.sojourn.samples > 1000);
    for f in &r.flows {
        assert_eq!(f.queueing.samples, f.totals.delivered, "{}", f.name);
    }
}
