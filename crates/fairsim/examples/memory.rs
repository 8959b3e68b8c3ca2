//! The engine's resident memory, phase by phase, for one run of a scenario (docs/performance.md,
//! "A k = 64 fat-tree"): `cargo run --release --example memory -- SCENARIO [PAIR] [KEY=VALUE ...]
//! [--until PHASE] [--every EVENTS]`.
//!
//! Prints a line per phase (loading and validating the scenario, building the run, running it,
//! its report, the report as JSON text, as the Python package takes it): the resident memory
//! after it (`VmRSS`), split into the run's state (`RssAnon`) and the program's code and
//! libraries (`RssFile`), and the phase's own peak (`VmHWM`, reset before each phase through
//! /proc/self/clear_refs), and below it what malloc holds. `--until load` (or `build`, `run`)
//! stops after that phase, so that a heap profiler's last snapshot shows it. `--every N` runs
//! on one thread, N events at a time, and prints after each stretch the simulated time, what
//! malloc holds and the resident memory: when the run holds the most, and what (docs/performance.md,
//! *A k = 64 fat-tree*). Linux only;
//! `scripts/measure_memory.py` does the same through Python.

use std::sync::Arc;
use std::time::Instant;

/// A field of /proc/self/status in MiB.
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1));
    kb.and_then(|kb| kb.parse::<f64>().ok()).map_or(f64::NAN, |kb| kb / 1024.0)
}

/// The peak set back to the present resident memory.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// What malloc holds (glibc), in MiB: the bytes in use, of them those in pages of their own
/// (large allocations, resident only where touched), and the bytes freed but kept among the
/// live ones, which count in the resident memory until trimmed (`fairsim::memory::return_freed`).
/// `None` where malloc cannot say.
fn malloc_holds() -> Option<(f64, f64, f64)> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's own bookkeeping, under its locks.
        let m = unsafe { libc::mallinfo2() };
        let mib = |bytes: usize| bytes as f64 / (1024.0 * 1024.0);
        Some((mib(m.uordblks + m.hblkhd), mib(m.hblkhd), mib(m.fordblks)))
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    None
}

/// Prints what malloc holds, below a phase's line.
fn heap() {
    if let Some((used, own_pages, free)) = malloc_holds() {
        println!(
            "{:12} heap: in use {used:.1} MiB ({own_pages:.1} in pages of their own), freed and kept {free:.1}",
            ""
        );
    }
}

/// Runs `sim` to its end on one thread, `every` events at a time, with a line after each stretch.
fn run_in_stretches(sim: &mut fairsim::Simulation, every: u64) {
    loop {
        let done = sim.run_events(every);
        let (used, _, free) = malloc_holds().unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        let (at, rss) = (sim.now().as_secs_f64() * 1e6, status_mib("VmRSS:"));
        println!("{at:>10.2} µs  heap in use {used:>7.1} MiB, freed and kept {free:>6.1}  rss {rss:>7.1} MiB");
        if done {
            return;
        }
    }
}

/// When the phase now measured started, and the phase to stop after (`--until`), if any.
struct Phases(Instant, Option<String>);

impl Phases {
    /// Prints the phase's figures; whether the program stops after it.
    fn done(&mut self, phase: &str) -> bool {
        let (rss, peak) = (status_mib("VmRSS:"), status_mib("VmHWM:"));
        let (state, code) = (status_mib("RssAnon:"), status_mib("RssFile:"));
        let took = self.0.elapsed().as_secs_f64();
        println!(
            "{phase:<12} {took:>7.2} s  rss {rss:>8.1} MiB (state {state:>7.1}, code {code:>5.1})  peak {peak:>8.1} MiB"
        );
        heap();
        reset_peak();
        self.0 = Instant::now();
        self.1.as_deref() == Some(phase)
    }
}

/// The phases `--until` may name.
const STOPS: [&str; 3] = ["load", "build", "run"];

fn usage() -> ! {
    eprintln!("usage: memory SCENARIO [PAIR] [KEY=VALUE ...] [--until load|build|run] [--every EVENTS]");
    std::process::exit(2);
}

fn main() -> fairsim::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let until = match args.iter().position(|a| a == "--until") {
        Some(i) if i + 1 < args.len() && STOPS.contains(&args[i + 1].as_str()) => args.drain(i..i + 2).nth(1),
        Some(_) => usage(),
        None => None,
    };
    let every = args.iter().position(|a| a == "--every").map(|i| {
        let n = args.get(i + 1).and_then(|n| n.parse::<u64>().ok()).filter(|&n| n > 0);
        args.drain(i..(i + 2).min(args.len()));
        n.unwrap_or_else(|| usage())
    });
    let Some(path) = args.first() else { usage() };
    let pair = args.get(1).filter(|a| !a.contains('='));
    let sets: Vec<String> = args.iter().skip(1).filter(|a| a.contains('=')).cloned().collect();
    reset_peak();
    let mut phases = Phases(Instant::now(), until);
    let scenario = Arc::new(fairsim::Scenario::load(path, &sets)?);
    if phases.done("load") {
        return Ok(());
    }
    let mut sim = fairsim::Simulation::shared(scenario, pair.map(String::as_str), None)?;
    if phases.done("build") {
        return Ok(());
    }
    // on the threads `[run] threads` gives, as `fairsim run` would (one if it does not say)
    let threads = sim.scenario().run.threads.unwrap_or(1);
    match every {
        Some(every) => run_in_stretches(&mut sim, every),
        None => {
            if let Some(why) = sim.run_on(threads).filter(|_| threads > 1) {
                println!("on one thread: {why}");
            }
        }
    }
    if phases.done("run") {
        return Ok(());
    }
    // the run stays alive while its report is made and written, as in the Python package
    let report = sim.report();
    phases.done("report");
    let json = serde_json::to_string(&report).expect("reports serialise");
    phases.done("json");
    let (flows, queues) = (report.flows.len(), report.queues.len());
    println!("{} events; {flows} flows, {queues} queues; {} bytes of JSON", sim.events_processed(), json.len());
    Ok(())
}
