//! Property tests: whatever a user writes, fairsim answers with a result or an error, never a
//! panic; and whatever it runs, every data packet is accounted for.

use fairsim::units::{parse_rate, parse_time, Rate, Time};
use fairsim::{Scenario, Simulation};
use proptest::prelude::*;

const BASE: &str = r#"
nodes = ["a", "b", "gw", "sink"]
[run]
duration = "20s"
warmup = "4s"
interval = "4s"
[links]
a = { between = ["a", "gw"], rate = "1Mbps", delay = "1ms" }
b = { between = ["b", "gw"], rate = "1Mbps", delay = "1ms" }
out = { between = ["gw", "sink"], rate = "200kbps", delay = "5ms", buffer = 6 }
[flows]
ftp = { src = "a", dst = "sink", app = "ftp" }
telnet = { src = "b", dst = "sink", app = "telnet", mean_gap = "100ms" }
udp = { src = "b", dst = "sink", app = "cbr", rate = "50kbps", jitter = 0.5 }
hose = { src = "a", dst = "sink", app = "firehose", rate = "100kbps" }
burst = { src = "b", dst = "sink", app = "onoff", rate = "300kbps", on_mean = "200ms", off_mean = "400ms", periods = "pareto" }
[pairs]
"G/FCFS" = { qdisc = "fcfs" }
"G/RD" = { qdisc = "random_drop" }
"#;

/// An override a user might type: mostly plausible values for the field, sometimes nonsense.
fn override_() -> impl Strategy<Value = String> {
    let times = || prop::sample::select(vec!["0", "1ms", "50ms", "250ms", "2s", "7s", "30s"]);
    let rates = || prop::sample::select(vec!["1kbps", "9600", "56kbps", "200kbps", "1Mbps", "3Mbps", "0bps"]);
    let sizes = || prop::sample::select(vec!["1B", "40B", "576B", "1000B", "1500B", "9000B", "64KB"]);
    let counts = || (0u32..40).prop_map(|n| n.to_string());
    let nonsense = prop::sample::select(vec![
        "-1",
        "-5ms",
        "1.5",
        "1e3",
        "\"x\"",
        "true",
        "[1, 2]",
        "fast",
        "{ kind = \"fcfs\" }",
    ]);
    let field = |keys: Vec<&'static str>, v: BoxedStrategy<String>| {
        (prop::sample::select(keys), v).prop_map(|(k, v)| format!("{k}={v}")).boxed()
    };
    let plausible = prop_oneof![
        field(
            vec![
                "run.warmup",
                "flows.ftp.start",
                "flows.ftp.stop",
                "links.out.delay",
                "links.a.delay",
                "flows.telnet.mean_gap",
                "flows.burst.on_mean",
                "flows.burst.off_mean"
            ],
            times().prop_map(str::to_string).boxed()
        ),
        field(
            vec![
                "links.out.rate",
                "links.a.rate",
                "links.out.reverse.rate",
                "flows.udp.rate",
                "flows.hose.rate",
                "flows.burst.rate"
            ],
            rates().prop_map(str::to_string).boxed()
        ),
        field(
            vec!["flows.ftp.packet_size", "flows.ftp.ack_size", "flows.ftp.size", "links.out.buffer"],
            sizes().prop_map(str::to_string).boxed()
        ),
        field(vec!["flows.ftp.window", "links.out.buffer", "links.out.forward.buffer", "run.seed"], counts().boxed()),
        field(
            vec!["flows.udp.jitter", "flows.burst.shape", "flows.telnet.transport.beta", "flows.ftp.transport.gain"],
            prop::sample::select(vec!["0", "0.1", "0.5", "0.99", "1.2", "2.0"]).prop_map(str::to_string).boxed()
        ),
        field(
            vec!["flows.udp.acks", "flows.hose.acks"],
            prop::sample::select(vec!["true", "false"]).prop_map(str::to_string).boxed()
        ),
    ];
    let garbage = field(
        vec![
            "run.duration",
            "run.interval",
            "links.out.rate",
            "links.out.buffer",
            "flows.ftp.window",
            "flows.udp.jitter",
            "flows.ftp.app",
        ],
        nonsense.prop_map(str::to_string).boxed(),
    );
    prop_oneof![4 => plausible, 1 => garbage]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_is_parsed_or_refused_never_panics(text in ".{0,300}") {
        let _ = Scenario::parse(&text, "fuzz.toml", &[]);
    }

    #[test]
    fn any_overrides_give_a_run_or_an_error_and_runs_conserve_packets(
        sets in prop::collection::vec(override_(), 1..4),
        pair in prop::sample::select(vec!["G/FCFS", "G/RD"]),
        seed in 0u64..1000,
    ) {
        let Ok(sc) = Scenario::parse(BASE, "base.toml", &sets) else { return Ok(()) };
        if sc.run.duration > Time::from_secs(200) || sc.ports.iter().any(|p| p.rate < Rate(1000)) {
            return Ok(()); // valid, but too slow for a property test
        }
        let mut sim = Simulation::new(&sc, Some(pair), Some(seed)).unwrap();
        sim.run();
        let r = sim.report();
        for f in &r.flows {
            let t = &f.run_totals;
            prop_assert_eq!(t.sent, t.delivered + t.dropped + f.in_network, "{} with {:?}", f.name, sets);
        }
    }

    #[test]
    fn times_and_rates_print_as_they_parse(ns in 0u64..u64::MAX / 2, bps in 1u64..u64::MAX / 2) {
        prop_assert_eq!(parse_time(&Time(ns).to_string()), Ok(Time(ns)));
        prop_assert_eq!(parse_rate(&Rate(bps).to_string()), Ok(Rate(bps)));
    }
}

#[test]
fn the_base_scenario_is_valid_and_busy() {
    // otherwise the property above would hold vacuously
    let sc = Scenario::parse(BASE, "base.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, Some("G/RD"), None).unwrap();
    sim.run();
    let r = sim.report();
    assert!(r.flows.iter().all(|f| f.run_totals.delivered > 0));
    assert!(r.flows.iter().map(|f| f.run_totals.dropped).sum::<u64>() > 0, "the gateway overflows");
}
