//! Leaving transmissions' end events out (`node::port`: a transmission with nothing behind it
//! has no end event, and a chainable discipline's waiting packets start as the one before them
//! ends) changes no result: every built-in discipline runs a dumbbell as it does by default and
//! with every end event kept, and the two reports are the same but for the count of events; and
//! so do dumbbells drawn at random (discipline, transports, ACKs, rates, delays, buffer, packet
//! sizes).

use fairsim::{Scenario, Simulation};
use proptest::prelude::*;
use serde_json::Value;

/// Three TCP flows, one with delayed ACKs, and a Poisson source through a 10 Mb/s bottleneck
/// of 25 packets: busy periods, idle gaps and drops at every discipline.
const DUMBBELL: &str = r#"
nodes = ["a", "b", "c", "d", "left", "right", "sink"]
[run]
duration = "6s"
warmup = "1s"
interval = "1s"
[links]
a = { between = ["a", "left"], rate = "100Mbps", delay = "1ms" }
b = { between = ["b", "left"], rate = "100Mbps", delay = "7ms" }
c = { between = ["c", "left"], rate = "100Mbps", delay = "20ms" }
d = { between = ["d", "left"], rate = "100Mbps", delay = "3ms" }
bottleneck = { between = ["left", "right"], rate = "10Mbps", delay = "5ms", buffer = 25 }
exit = { between = ["right", "sink"], rate = "100Mbps", delay = "1ms" }
[flows]
fa = { src = "a", dst = "sink", app = "ftp", transport = { kind = "newreno", window = 200 } }
fb = { src = "b", dst = "sink", app = "ftp", transport = { kind = "cubic", window = 200, ack_every = 2 } }
fc = { src = "c", dst = "sink", app = "ftp", start = "0.3s", transport = { kind = "reno", stack = "classic", window = 200 } }
fd = { src = "d", dst = "sink", app = "poisson", mean_gap = "5ms", packet_size = "1000B" }
[pairs]
default = {}
"#;

/// The report of `DUMBBELL` with overrides `sets`, as JSON, without the count of events (which
/// is what leaving them out changes) and the wall time; why the scenario refuses `sets`, if it
/// does.
fn report(sets: &[String], every_end: bool) -> Result<Value, String> {
    let scenario = Scenario::parse(DUMBBELL, "dumbbell.toml", sets).map_err(|e| e.to_string())?;
    let mut sim = Simulation::new(&scenario, None, None).map_err(|e| e.to_string())?;
    if every_end {
        sim.end_every_transmission();
    }
    sim.run();
    let mut report = sim.report();
    (report.events, report.wall_s) = (0, 0.0);
    Ok(serde_json::to_value(report).unwrap())
}

/// `DUMBBELL` with overrides `sets` runs the same with every end event as without (a panic
/// names `what` and the first field that differs); why the scenario refuses `sets`, if it does.
fn same_both_ways(sets: &[String], what: &str) -> Result<(), String> {
    let default = report(sets, false)?;
    let every_end = report(sets, true).expect("the same scenario");
    if let Some(difference) = first_difference(&default, &every_end, "") {
        panic!("{what}: left out and kept, the runs differ at {difference}");
    }
    Ok(())
}

/// Where two reports first differ, as a path to the field and the two values.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            keys.map(|k| (k, x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null)))
                .find_map(|(k, x, y)| first_difference(x, y, &format!("{path}.{k}")))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (x, y))| first_difference(x, y, &format!("{path}[{i}]")))
        }
        _ => (a != b).then(|| format!("{path}: {a} against {b}")),
    }
}

#[test]
fn every_discipline_gives_the_same_run_with_every_end_event_as_without() {
    let (mut compared, mut refused) = (vec![], vec![]);
    for kind in fairsim::qdisc::QDISCS {
        let name = kind.about().name;
        match same_both_ways(&[format!("pairs.default.qdisc={name}")], name) {
            Ok(()) => compared.push(name),
            Err(why) => refused.push(format!("{name}: {why}")),
        }
    }
    // those whose defaults need no more than this dumbbell: a discipline the test no longer
    // runs shows here
    assert!(compared.len() >= 23, "compared only {compared:?}; refused {refused:#?}");
}

/// Overrides of `DUMBBELL` drawn from the space the chained ends must hold in: any discipline
/// but the two this dumbbell cannot have (trimming needs a receiver-driven transport, the loss
/// list a flow to name), any of several transports with or without delayed ACKs, the
/// bottleneck's rate, delay and buffer, and the Poisson source's packet size (mixed sizes change
/// the transmission times).
fn drawn() -> impl Strategy<Value = Vec<String>> {
    let names = fairsim::qdisc::QDISCS.iter().map(|k| k.about().name);
    let qdiscs: Vec<&str> = names.filter(|n| !["trim", "loss_list"].contains(n)).collect();
    let transports = ["newreno", "cubic", "vegas", "bbr", "dctcp", "reno"];
    (
        prop::sample::select(qdiscs),
        prop::collection::vec((prop::sample::select(transports.to_vec()), 1u32..=2), 3),
        prop::sample::select(vec!["1Mbps", "10Mbps", "45Mbps"]),
        prop::sample::select(vec!["0s", "1ms", "5ms", "40ms"]),
        2u32..60,
        prop::sample::select(vec!["40B", "576B", "1000B", "1500B"]),
    )
        .prop_map(|(qdisc, transports, rate, delay, buffer, size)| {
            let mut sets = vec![
                format!("pairs.default.qdisc={qdisc}"),
                format!("links.bottleneck.rate={rate}"),
                format!("links.bottleneck.delay={delay}"),
                format!("links.bottleneck.buffer={buffer}"),
                format!("flows.fd.packet_size={size}"),
                "run.duration=3s".into(),
            ];
            for (flow, (kind, ack_every)) in ["fa", "fb", "fc"].iter().zip(transports) {
                sets.push(format!(
                    "flows.{flow}.transport={{ kind = \"{kind}\", window = 200, ack_every = {ack_every} }}"
                ));
            }
            sets
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn drawn_dumbbells_give_the_same_run_with_every_end_event_as_without(sets in drawn()) {
        let what = format!("{sets:?}");
        same_both_ways(&sets, &what).unwrap_or_else(|why| panic!("{what}: {why}"));
    }
}
