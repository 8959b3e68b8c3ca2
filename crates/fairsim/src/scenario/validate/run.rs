//! The `[run]` table: duration, warm-up, intervals, seed, and the flows and ports it names.

use super::problems::Problems;
use crate::error::unknown;
use crate::limits;
use crate::scenario::schema::{RawFlow, RawRun};
use crate::scenario::spec::{FlowSpec, LinkSpec, PortSpec, RunSpec, DEFAULT_FAILURE_DETECTION};
use crate::units::Time;

pub(super) fn build_run(raw: &RawRun, flows: &[FlowSpec], ports: usize, pb: &mut Problems) -> RunSpec {
    let duration = raw.duration;
    if duration == Time::ZERO {
        pb.add(&["run", "duration"], "a run must last longer than 0s");
    } else if duration.0 > limits::MAX_DURATION_NS {
        pb.add(
            &["run", "duration"],
            format!("{duration} is more than fairsim's limit of 2^62 ns, about 146 years (see \"Limits\" in docs/scenario-format.md)"),
        );
    }
    let warmup = raw.warmup.unwrap_or(Time::ZERO);
    if warmup >= duration && duration > Time::ZERO {
        pb.add(&["run", "warmup"], format!("the warm-up ({warmup}) must end before the run does ({duration})"));
    }
    let measured = duration.saturating_sub(warmup);
    let interval = raw.interval.unwrap_or(measured);
    let mut intervals = 1;
    if raw.interval.is_some() {
        if interval == Time::ZERO {
            pb.add(&["run", "interval"], "an interval must be longer than 0s");
        } else if measured.0 % interval.0 != 0 {
            pb.add(
                &["run", "interval"],
                format!("duration − warmup ({measured}) is not a whole number of intervals of {interval}"),
            );
        } else if let Err(e) = check_records(measured.0 / interval.0, warmup > Time::ZERO, flows.len() + ports) {
            pb.add(&["run", "interval"], e);
        } else {
            intervals = (measured.0 / interval.0) as usize;
        }
    }
    match raw.threads {
        Some(0) => pb.add(&["run", "threads"], "a run needs at least 1 thread"),
        Some(n) => {
            if let Err(e) = crate::limits::check(n, crate::limits::MAX_THREADS, "threads") {
                pb.add(&["run", "threads"], e);
            }
        }
        None => {}
    }
    let flowlet_timeout = raw.flowlet_timeout.unwrap_or(DEFAULT_FLOWLET_TIMEOUT);
    if flowlet_timeout == Time::ZERO {
        pb.add(&["run", "flowlet_timeout"], "a flowlet timeout must be longer than 0s (0 would spray every packet)");
    }
    RunSpec {
        duration,
        warmup,
        interval,
        intervals,
        seed: raw.seed.unwrap_or(1),
        fairness: vec![], // looked up with the other lists of names, in `validate`
        fluid_reference: vec![],
        trace: vec![],
        trace_queues: vec![],
        pcap: vec![],
        events: vec![],
        clock_jitter: raw.clock_jitter.unwrap_or(Time::ZERO),
        transfer_rows: raw.transfer_rows.unwrap_or(true),
        flowlet_timeout,
        failure_detection: raw.failure_detection.unwrap_or(DEFAULT_FAILURE_DETECTION),
        threads: raw.threads,
    }
}

/// The flowlet timeout unless the run gives one: LetFlow's inactivity gap must exceed the
/// largest difference in delay between two paths, or a new flowlet's first packet overtakes the
/// last one of the one before; 500 µs is several times the queueing delay a 10 Gb/s switch port
/// holding a few hundred packets adds (docs/decisions.md).
pub const DEFAULT_FLOWLET_TIMEOUT: Time = Time::from_micros(500);

/// `[run]` settings of something the scenario does not have cannot take effect: refused, as
/// `transport::dominated` refuses a dominated option, unless written at their default (a
/// resolved scenario writes neither where it does not apply).
pub(super) fn unused_settings(raw: &RawRun, flows: &[FlowSpec], has_events: bool, pb: &mut Problems) {
    use crate::net::Forwarding;
    if raw.flowlet_timeout.is_some_and(|t| t != DEFAULT_FLOWLET_TIMEOUT)
        && !flows.iter().any(|f| f.forwarding == Forwarding::Flowlet)
    {
        let why = "flowlet_timeout cannot take effect: no flow is forwarded by flowlets (forwarding = \"flowlet\")";
        pb.add(&["run", "flowlet_timeout"], why);
    }
    if raw.failure_detection.is_some_and(|t| t != DEFAULT_FAILURE_DETECTION) && !has_events {
        let why = "failure_detection cannot take effect: the scenario has no [[events]] for forwarding to learn of";
        pb.add(&["run", "failure_detection"], why);
    }
}

/// Every interval (the warm-up's too) is recorded for every flow and port, kept in memory and
/// written to the results.
pub(super) fn check_records(intervals: u64, warmup: bool, rows: usize) -> Result<(), String> {
    let records = (intervals + u64::from(warmup)).saturating_mul(rows as u64);
    limits::check(records, limits::MAX_INTERVAL_RECORDS, "interval records").map_err(|e| {
        format!("{intervals} intervals × {rows} flows and ports = {e}; use a longer interval, or `trace` for fine time series")
    })
}

/// Indices of the things `names` in `run.<field>` stand for, each found with `find`; a name
/// that finds nothing is reported with `why_not` (`None`: it was reported already). `"*"` names
/// all `star` of them, where allowed; the names beside it must exist too (a typo beside `"*"`
/// is still a typo).
pub(super) fn named(
    names: &Option<Vec<String>>,
    field: &str,
    star: Option<usize>,
    find: &dyn Fn(&str) -> Vec<usize>,
    why_not: &dyn Fn(&str) -> Option<String>,
    pb: &mut Problems,
) -> impl Iterator<Item = usize> {
    let names = names.as_deref().unwrap_or_default();
    let all = star.filter(|_| names.iter().any(|n| n == "*"));
    let mut ids = vec![];
    for (i, n) in names.iter().enumerate() {
        if all.is_some() && n == "*" {
            continue;
        }
        let found = find(n);
        if found.is_empty() {
            if let Some(why) = why_not(n) {
                pb.add(&["run", field, &i.to_string()], why);
            }
        }
        ids.extend(found);
    }
    match all {
        Some(all) => (0..all).collect::<Vec<_>>().into_iter(),
        None => ids.into_iter(),
    }
}

/// Why no flow of the run is called `name`, or `None` when the file's flow of that name failed
/// its checks (which were reported).
pub(super) fn missing_flow(name: &str, raw: &indexmap::IndexMap<String, RawFlow>) -> Option<String> {
    match raw.get(name) {
        Some(f) if f.enabled == Some(false) => Some(format!("flow `{name}` is left out of the run (enabled = false)")),
        Some(_) => None,
        None => Some(unknown("flow", name, &raw.keys().collect::<Vec<_>>())),
    }
}

/// Why no port is called `name`: a link's name (`bottleneck`) is answered with that link's two
/// ports, which are what a run captures, traces or compares; any other name as unknown.
pub(super) fn missing_port(name: &str, nodes: &[String], links: &[LinkSpec], ports: &[PortSpec]) -> String {
    let names: Vec<String> = ports.iter().map(|p| p.name(nodes, links)).collect();
    match links.iter().position(|l| l.name == name) {
        Some(link) => {
            let its: Vec<String> =
                ports.iter().filter(|p| p.link() == link).map(|p| format!("`{}`", p.name(nodes, links))).collect();
            format!(
                "`{name}` is a link, not a port: name one of its two ports (one per direction), {}",
                its.join(" or ")
            )
        }
        None => unknown("port", name, &names),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{net, one, problems};

    const FLOW: &str = "[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\" }\n";

    #[test]
    fn a_setting_for_flowlets_or_failures_the_scenario_lacks_is_refused() {
        let why = "flowlet_timeout cannot take effect: no flow is forwarded by flowlets (forwarding = \"flowlet\")";
        assert_eq!(problems(&net("flowlet_timeout = \"50us\"", FLOW)), one("run.flowlet_timeout", why));
        assert_eq!(problems(&net("flowlet_timeout = \"500us\"", FLOW)), vec![], "the default, written out");
        let flowlets = "[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\", forwarding = \"flowlet\" }\n";
        assert_eq!(problems(&net("flowlet_timeout = \"50us\"", flowlets)), vec![]);
        let why = "failure_detection cannot take effect: the scenario has no [[events]] for forwarding to learn of";
        assert_eq!(problems(&net("failure_detection = \"5ms\"", FLOW)), one("run.failure_detection", why));
    }

    #[test]
    fn the_run_is_cut_into_whole_intervals_after_the_warm_up() {
        assert_eq!(problems(&net("warmup = \"2s\"\ninterval = \"4s\"", FLOW)), vec![]);
        assert_eq!(
            problems(&net("warmup = \"2s\"\ninterval = \"3s\"", FLOW)),
            one("run.interval", "duration − warmup (8s) is not a whole number of intervals of 3s")
        );
        assert_eq!(
            problems(&net("warmup = \"10s\"", FLOW)),
            one("run.warmup", "the warm-up (10s) must end before the run does (10s)")
        );
        assert_eq!(
            problems(&net("interval = \"0s\"", FLOW)),
            one("run.interval", "an interval must be longer than 0s")
        );
    }

    #[test]
    fn the_flows_and_ports_a_run_names_exist() {
        assert_eq!(problems(&net("trace = [\"*\"]\ntrace_queues = [\"gw->b\"]", FLOW)), vec![]);
        let bad = problems(&net("fairness = [\"g\"]\ntrace_queues = [\"gw->c\"]", FLOW));
        let fields: Vec<&str> = bad.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, vec!["run.fairness.0", "run.trace_queues.0"], "{bad:?}");
        assert!(bad[0].1.starts_with("unknown flow `g`") && bad[1].1.starts_with("unknown port `gw->c`"), "{bad:?}");
    }

    #[test]
    fn a_name_beside_the_star_must_exist_too() {
        // `"*"` takes every port or flow, but a misspelt name beside it was silently ignored
        for field in ["events", "pcap", "trace_queues"] {
            assert_eq!(problems(&net(&format!("{field} = [\"*\", \"gw->b\"]"), FLOW)), vec![], "{field}");
            let bad = problems(&net(&format!("{field} = [\"*\", \"gw->c\"]"), FLOW));
            assert_eq!(bad.len(), 1, "{bad:?}");
            assert_eq!(bad[0].0, format!("run.{field}.1"));
            assert!(bad[0].1.starts_with("unknown port `gw->c`"), "{bad:?}");
        }
        let bad = problems(&net("trace = [\"g\", \"*\"]", FLOW));
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert_eq!(bad[0].0, "run.trace.0");
        assert!(bad[0].1.starts_with("unknown flow `g`"), "{bad:?}");
    }

    #[test]
    fn a_link_named_where_a_port_is_expected_is_answered_with_its_two_ports() {
        for field in ["events", "pcap", "trace_queues", "fluid_reference"] {
            assert_eq!(
                problems(&net(&format!("{field} = [\"out\"]"), FLOW)),
                one(
                    &format!("run.{field}.0"),
                    "`out` is a link, not a port: name one of its two ports (one per direction), `gw->b` or `b->gw`"
                ),
            );
        }
    }
}
