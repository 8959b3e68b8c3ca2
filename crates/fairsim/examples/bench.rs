//! Engine throughput on the reference dumbbell (`scenarios/examples/dumbbell.toml`) or any other
//! scenario (the TCP dumbbell: `scenarios/bench/tcp-dumbbell.toml`), the figures quoted in
//! `docs/performance.md`.
//!
//! `cargo run --release --example bench -- [SCENARIO.toml] [RUNS] [PAIR ...] [KEY=VALUE ...] [--default-threads]`
//!
//! A run goes on one thread unless `run.threads` says otherwise; with `--default-threads` it
//! goes as `fairsim run` takes it by default, on as many of the usable cores as pay (and says
//! how it went on standard error).
//!
//! Runs every pair of the scenario (or only the pairs named) `RUNS` times (default 5) with
//! `run.duration=300s` (override it with `run.duration=...`; another scenario keeps its own) and
//! prints, per pair, the work done
//! (events, packet-hops: one packet leaving one port; data packets delivered to sinks, all flows,
//! firehose included) and the median over the runs of the wall time and of each of those per
//! wall-second, then the process's peak resident memory. Only `Simulation::run` is timed:
//! loading the scenario and building the simulation and its report are not.

#[path = "../benches/common/median.rs"]
mod median;
use median::median;
use std::sync::Arc;
use std::time::Instant;

const SCENARIO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/examples/dumbbell.toml");

struct Sample {
    events: u64,
    hops: u64,
    delivered: u64,
    wall_s: f64,
}

/// Peak resident set size of this process in kB (`VmHWM`), if the platform reports it.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn run_once(scenario: &Arc<fairsim::Scenario>, pair: &str, default_threads: bool) -> fairsim::Result<Sample> {
    // shared, not copied, as the Python package and the CLI run it
    let mut sim = fairsim::Simulation::shared(Arc::clone(scenario), Some(pair), None)?;
    let started = Instant::now();
    let mut on = match scenario.run.threads {
        Some(threads) => fairsim::Threads::new(threads),
        None if default_threads => fairsim::Threads::up_to(std::thread::available_parallelism().map_or(1, |n| n.get())),
        None => fairsim::Threads::new(1),
    };
    while !on.step(&mut sim, u64::MAX) {}
    if default_threads || scenario.run.threads.is_some_and(|t| t > 1) {
        let (windows, waited) = on.windows();
        eprintln!(
            "{}; windows: {windows}, waiting at their ends: {:.3} s",
            on.note().unwrap_or_default(),
            waited.as_secs_f64()
        );
    }
    let wall_s = started.elapsed().as_secs_f64();
    let report = sim.report();
    Ok(Sample {
        events: sim.events_processed(),
        hops: report.queue_intervals.iter().map(|q| q.counters.departures).sum(),
        delivered: report.flows.iter().map(|f| f.run_totals.delivered).sum(),
        wall_s,
    })
}

fn usage(problem: &str) -> ! {
    eprintln!("usage: bench [RUNS] [PAIR ...] [KEY=VALUE ...]: {problem}");
    std::process::exit(2);
}

fn main() {
    if let Err(e) = bench() {
        eprintln!("{e}");
        std::process::exit(2);
    }
}

fn bench() -> fairsim::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args.iter().find(|a| a.ends_with(".toml") && !a.contains('='));
    let default_threads = args.iter().any(|a| a == "--default-threads");
    let mut words =
        args.iter().filter(|a| !a.contains('=') && Some(*a) != file && *a != "--default-threads").peekable();
    let runs: usize = match words.peek().and_then(|w| w.parse().ok()) {
        Some(0) => usage("RUNS must be at least 1"),
        Some(n) => {
            words.next();
            n
        }
        None => 5,
    };
    let chosen: Vec<&String> = words.collect();
    let mut overrides = if file.is_none() { vec!["run.duration=300s".to_string()] } else { vec![] };
    overrides.extend(args.iter().filter(|a| a.contains('=')).cloned());
    let path = file.map_or(SCENARIO, String::as_str);
    let scenario = Arc::new(fairsim::Scenario::load(path, &overrides)?);
    let pairs: Vec<String> = scenario
        .pairs
        .iter()
        .map(|p| p.name.clone())
        .filter(|name| chosen.is_empty() || chosen.contains(&name))
        .collect();
    if let Some(unknown) = chosen.iter().find(|c| !pairs.contains(c)) {
        usage(&format!("no pair {unknown:?} in the scenario"));
    }

    println!("scenario: {} ({path}), overrides: {}", scenario.name, overrides.join(" "));
    println!("runs per pair: {runs} (figures are medians over the runs)");
    let width = pairs.iter().map(String::len).max().unwrap_or(0).max(8);
    println!(
        "{:<width$} {:>11} {:>11} {:>11} {:>8} {:>10} {:>10} {:>10}",
        "pair", "events", "hops", "delivered", "wall_s", "Mev/s", "Mhops/s", "Mdeliv/s"
    );
    for pair in &pairs {
        let samples =
            (0..runs).map(|_| run_once(&scenario, pair, default_threads)).collect::<fairsim::Result<Vec<_>>>()?;
        let first = &samples[0];
        // The engine is deterministic: every run of a pair does the same work.
        assert!(samples.iter().all(|s| s.events == first.events && s.hops == first.hops));
        let per_s = |f: fn(&Sample) -> u64| median(samples.iter().map(|s| f(s) as f64 / s.wall_s).collect());
        println!(
            "{:<width$} {:>11} {:>11} {:>11} {:>8.3} {:>10.2} {:>10.2} {:>10.2}",
            pair,
            first.events,
            first.hops,
            first.delivered,
            median(samples.iter().map(|s| s.wall_s).collect()),
            per_s(|s| s.events) / 1e6,
            per_s(|s| s.hops) / 1e6,
            per_s(|s| s.delivered) / 1e6,
        );
    }
    match peak_rss_kb() {
        Some(kb) => println!("peak RSS (VmHWM): {:.1} MiB", kb as f64 / 1024.0),
        None => println!("peak RSS: not available on this platform"),
    }
    Ok(())
}
