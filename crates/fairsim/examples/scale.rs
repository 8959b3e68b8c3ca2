//! Where the time of one big run goes, phase by phase, without Python: the figures of "Scale"
//! in `docs/performance.md`.
//!
//! `cargo run --release --example scale -- SCENARIO.toml [PAIR] [--load-only] [KEY=VALUE ...]`
//!
//! Loads and validates the scenario (every pair's components are built once, as
//! `fairsim validate` does), then, unless `--load-only`, builds a run of `PAIR` (the first pair
//! if none), runs it and builds its report. Prints the wall time of each phase, the events
//! processed, the sizes (nodes, ports, flows, result rows) and the process's peak resident
//! memory (`VmHWM`), one `key: value` per line. With `--rss-every N`, it also prints the current
//! resident memory (`VmRSS`) after every N events, to show whether memory grows over a run.

use std::time::Instant;

/// A field of `/proc/self/status` in kB (`VmHWM`, `VmRSS`), if the platform reports it.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn mib(kb: Option<u64>) -> String {
    kb.map_or("unknown".into(), |kb| format!("{:.1} MiB", kb as f64 / 1024.0))
}

fn main() {
    if let Err(e) = scale() {
        eprintln!("{e}");
        std::process::exit(2);
    }
}

fn usage(problem: &str) -> ! {
    eprintln!("usage: scale SCENARIO.toml [PAIR] [--load-only] [--rss-every N] [KEY=VALUE ...]: {problem}");
    std::process::exit(2);
}

fn scale() -> fairsim::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut file, mut pair, mut load_only, mut rss_every, mut sets) = (None, None, false, None, vec![]);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--load-only" => load_only = true,
            "--rss-every" => {
                let n = args.next().and_then(|n| n.parse::<u64>().ok()).filter(|n| *n > 0);
                rss_every = Some(n.unwrap_or_else(|| usage("--rss-every needs a positive number of events")));
            }
            _ if a.contains('=') => sets.push(a),
            _ if file.is_none() => file = Some(a),
            _ if pair.is_none() => pair = Some(a),
            _ => usage(&format!("unexpected argument `{a}`")),
        }
    }
    let file = file.unwrap_or_else(|| usage("no scenario"));

    let started = Instant::now();
    let scenario = std::sync::Arc::new(fairsim::Scenario::load(&file, &sets)?);
    println!("load_s: {:.3}", started.elapsed().as_secs_f64());
    println!("nodes: {}", scenario.nodes.len());
    println!("ports: {}", scenario.ports.len());
    println!("flows: {}", scenario.flows.len());
    println!("pairs: {}", scenario.pairs.len());
    println!("route_hops: {}", scenario.flows.iter().map(|f| f.data_route.len()).sum::<usize>());
    println!("peak_rss_after_load: {}", mib(status_kb("VmHWM:")));
    if load_only {
        return Ok(());
    }

    let started = Instant::now();
    let mut sim = fairsim::Simulation::shared(scenario, pair.as_deref(), None)?;
    println!("pair: {}", sim.pair().name);
    println!("build_s: {:.3}", started.elapsed().as_secs_f64());
    println!("rss_after_build: {}", mib(status_kb("VmRSS:")));
    let started = Instant::now();
    match rss_every {
        None => sim.run(),
        Some(n) => {
            while !sim.run_events(n) {
                println!(
                    "rss_at: {} events, {:.0} s simulated, {}",
                    sim.events_processed(),
                    sim.now().as_secs_f64(),
                    mib(status_kb("VmRSS:"))
                );
            }
        }
    }
    let run_s = started.elapsed().as_secs_f64();
    println!("run_s: {run_s:.3}");
    println!("events: {}", sim.events_processed());
    println!("events_per_s: {:.2} M", sim.events_processed() as f64 / run_s / 1e6);
    let started = Instant::now();
    let report = sim.report();
    println!("report_s: {:.3}", started.elapsed().as_secs_f64());
    println!("flow_interval_rows: {}", report.flow_intervals.len());
    println!("queue_interval_rows: {}", report.queue_intervals.len());
    if let Some(e) = sim.error() {
        println!("error: {e}");
    }
    println!("peak_rss: {}", mib(status_kb("VmHWM:")));
    Ok(())
}
