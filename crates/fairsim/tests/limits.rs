//! Sizes the engine would allocate for are refused beyond their limits (never an abort), every
//! random draw's range is valid whatever its parameters, and no parameter makes the engine loop
//! at one simulated instant (a timer that fires again when it is set).

mod common;

use common::{flow, parse_with, simulate};
use fairsim::{Error, Scenario};

const NET: &str = r#"
nodes = ["a", "b", "c"]
[run]
duration = "3s"
[links]
ab = { between = ["a", "b"], rate = "10Mbps", delay = "1ms" }
bc = { between = ["b", "c"], rate = "1Mbps", delay = "10ms", buffer = 20 }
[flows]
f = { src = "a", dst = "c", app = "ftp", window = 8 }
u = { src = "a", dst = "c", app = "cbr", rate = "500kbps" }
[pairs]
P = { qdisc = "fcfs" }
"#;

/// Flow `f` without a window of its own.
const NO_WINDOW: &str = r#"flows.f={src="a",dst="c",app="ftp"}"#;

/// The field and message of the first problem of `NET` with `sets`, which must be refused.
fn refused(sets: &[&str]) -> (String, String) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match Scenario::parse(NET, "x.toml", &sets) {
        Err(Error::Scenario(diags)) => (diags[0].field.clone(), diags[0].message.clone()),
        Err(other) => panic!("wrong kind of error: {other}"),
        Ok(_) => panic!("{sets:?} accepted"),
    }
}

fn assert_refused(sets: &[&str], field: &str, limit: &str) {
    let (f, message) = refused(sets);
    assert_eq!(f, field, "{message}");
    assert!(message.contains(limit), "{field}: {message}");
}

#[test]
fn windows_beyond_the_limit_are_refused() {
    assert_refused(&["flows.f.window=4294967295"], "flows.f.window", "limit of 1048576");
    assert_refused(&["flows.f.window=100000000"], "flows.f.window", "limit of 1048576");
    // a transport's own window, when the flow sets none
    let sets = [NO_WINDOW, r#"pairs.P.transport={kind="generic",window=4294967295}"#];
    assert_refused(&sets, "pairs.P.transport.window", "limit of 1048576");
    parse_with(NET, &["flows.f.window=1048576"]);
}

#[test]
fn queue_counts_beyond_the_limit_are_refused() {
    for kind in ["drr", "sfq"] {
        let set = format!(r#"pairs.P.qdisc={{kind="{kind}",queues=4294967295}}"#);
        assert_refused(&[&set], "pairs.P.qdisc.queues", "limit of 65536");
    }
    parse_with(NET, &[r#"pairs.P.qdisc={kind="sfq",queues=65536}"#]);
}

#[test]
fn web_transfers_beyond_the_limit_are_refused_before_they_are_built() {
    let web = r#"flows.w={src="a",dst="c",app="web",transfers=100000000,mean_gap="10ms",size="10KB"}"#;
    assert_refused(&[web], "flows.w.transfers", "limit of 100000 (");
    // the limit counts every flow: a second group may not take the total past it
    let w1 = r#"flows.w1={src="a",dst="c",app="web",transfers=60000,mean_gap="10ms",size="10KB"}"#;
    let w2 = r#"flows.w2={src="a",dst="c",app="web",transfers=60000,mean_gap="10ms",size="10KB"}"#;
    let (field, message) = refused(&[w1, w2]);
    assert_eq!(field, "flows.w2.transfers");
    assert!(message.contains("counting the 60002 flows before"), "{message}");
}

#[test]
fn interval_records_beyond_the_limit_are_refused() {
    // 1,000,000 intervals of 1 ms (the old limit on intervals alone), for 2 flows and 4 ports
    let sets = ["run.duration=1000s", "run.interval=1ms"];
    assert_refused(&sets, "run.interval", "6000000 interval records is more than fairsim's limit of 1000000");
    parse_with(NET, &["run.duration=1000s", "run.interval=10ms"]);
}

#[test]
fn a_run_beyond_146_years_is_refused() {
    // a send window keeps each packet's first-send time in 62 bits of nanoseconds
    assert_refused(&["run.duration=1300000h"], "run.duration", "limit of 2^62 ns");
    parse_with(NET, &["run.duration=1280000h", "run.interval=1280000h"]);
}

#[test]
fn a_tiny_jitter_is_no_jitter() {
    // 1e-20 is positive, but no f64 lies strictly between 1 − 1e-20 and 1 + 1e-20
    let sc = parse_with(NET, &["flows.u.jitter=1e-20"]);
    let exact = simulate(&parse_with(NET, &[]), None, None);
    let tiny = simulate(&sc, None, None);
    assert_eq!(flow(&tiny, "u").throughput_pps, flow(&exact, "u").throughput_pps);
    let sc = parse_with(NET, &[NO_WINDOW, r#"pairs.P.transports.f={kind="rlm",jitter=1e-20}"#]);
    assert!(simulate(&sc, None, None).complete);
}

#[test]
fn rlm_timers_that_could_not_advance_are_refused() {
    for (params, field) in [
        (r#"{kind="rlm",init_join="0s"}"#, "init_join"),
        (r#"{kind="rlm",init_join="5s",max_join="1s"}"#, "max_join"),
        (r#"{kind="rlm",alpha=nan}"#, "alpha"),
        (r#"{kind="rlm",gain=0.0}"#, "gain"),
    ] {
        let set = format!("pairs.P.transports.f={params}");
        let (got, message) = refused(&[NO_WINDOW, &set]);
        assert_eq!(got, format!("pairs.P.transports.f.{field}"), "{message}");
    }
}

#[test]
fn a_pareto_shape_must_be_a_number() {
    let onoff =
        r#"flows.u={src="a",dst="c",app="onoff",rate="1Mbps",on_mean="1s",off_mean="1s",periods="pareto",shape=nan}"#;
    let (field, _) = refused(&[onoff]);
    assert_eq!(field, "flows.u.shape");
}

#[test]
fn timeouts_that_could_be_zero_are_refused() {
    // each made the sender time out and resend at one instant until the queue guard stopped it
    for (params, field) in [
        (r#"{kind="jk",initial_rto="0s",min_rto="0s"}"#, "initial_rto"),
        (r#"{kind="reno",max_rto="0s"}"#, "max_rto"),
        (r#"{kind="newreno",rttvar_factor=nan,min_rto="0s"}"#, "rttvar_factor"),
        (r#"{kind="generic",initial_rtt="0s"}"#, "initial_rtt"),
        (r#"{kind="decbit",initial_rtt="0s"}"#, "initial_rtt"),
        (r#"{kind="decbit",beta=0.0}"#, "beta"),
        (r#"{kind="pp",initial_timeout="0s"}"#, "initial_timeout"),
        (r#"{kind="pp",timeout_factor=nan}"#, "timeout_factor"),
    ] {
        let set = format!("pairs.P.transport={params}");
        let (got, message) = refused(&[NO_WINDOW, &set]);
        assert_eq!(got, format!("pairs.P.transport.{field}"), "{params}: {message}");
    }
}
