//! The floor (`benches/common/floor.rs`): a minimal event loop doing the packet hops of the
//! engine's benchmark workloads, to read the engine's speed as "× floor" on the machine at hand.
//!
//! `cargo run --release --example floor -- [dumbbell|flows N] [RUNS] [--lazy]`
//!
//! `dumbbell` (the default): `scenarios/examples/dumbbell.toml` for 300 s, as `examples/bench.rs`
//! runs it; `flows N`: `flows-N.toml` of `scripts/big_scenarios.py` (1 s). Runs the loop `RUNS`
//! times (default 5) and prints the work done (events, packet-hops: one packet leaving one port,
//! data packets delivered to the sink, drops) and the median wall time over the runs, with ns per
//! hop and hops per wall-second. `--lazy` schedules transmission ends only for packets that
//! wait. Only the loop is timed: building the network and counting what is in flight are not.

#[path = "../benches/common/floor.rs"]
mod floor;

#[path = "../benches/common/median.rs"]
mod median;
use median::median;
use std::time::Instant;

const USAGE: &str = "usage: floor [dumbbell | flows N] [RUNS] [--lazy]";

/// The most flows `flows N` takes (the engine's own scale study goes to 100,000).
const MAX_FLOWS: usize = 1_000_000;
const _: () = assert!(MAX_FLOWS <= floor::MAX_SOURCES);

fn usage(problem: &str) -> ! {
    eprintln!("{USAGE}: {problem}");
    std::process::exit(2);
}

/// The workload, the number of runs and the mode, from the command line.
fn parse(args: &[String]) -> (floor::Workload, usize, bool) {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        std::process::exit(0);
    }
    let lazy = args.iter().any(|a| a == "--lazy");
    if let Some(flag) = args.iter().find(|a| a.starts_with('-') && *a != "--lazy") {
        usage(&format!("unknown option {flag:?}"));
    }
    let mut words = args.iter().filter(|a| *a != "--lazy").map(String::as_str).peekable();
    let workload = match words.peek().copied() {
        Some("dumbbell") => {
            words.next();
            floor::Workload::dumbbell(300_000_000_000)
        }
        Some("flows") => {
            words.next();
            let n = words.next().unwrap_or_else(|| usage("`flows` needs the number of flows"));
            match n.parse::<usize>() {
                Ok(n @ 1..=MAX_FLOWS) => floor::Workload::flows(n),
                _ => usage(&format!("the number of flows must be 1 to {MAX_FLOWS}, not {n:?}")),
            }
        }
        Some(w) if w.parse::<usize>().is_err() => usage(&format!("unknown workload {w:?} (dumbbell or flows N)")),
        _ => floor::Workload::dumbbell(300_000_000_000),
    };
    let runs = match words.next() {
        None => 5,
        Some(w) => match w.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => usage(&format!("RUNS must be a whole number, at least 1, not {w:?}")),
        },
    };
    if let Some(extra) = words.next() {
        usage(&format!("unexpected argument {extra:?}"));
    }
    (workload, runs, lazy)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (workload, runs, lazy) = parse(&args);
    let mut walls = Vec::with_capacity(runs);
    let mut first: Option<floor::Counts> = None;
    for _ in 0..runs {
        let mut sim = floor::Sim::new(&workload, lazy);
        let started = Instant::now();
        sim.run();
        walls.push(started.elapsed().as_secs_f64());
        let counts = sim.counts();
        if !counts.conserved(workload.windows()) {
            eprintln!("floor: packets not conserved (a bug in the loop): {counts:?}");
            std::process::exit(1);
        }
        // The loop is deterministic: every run does the same work.
        if first.is_some_and(|f| f != counts) {
            eprintln!("floor: two runs differ (a bug in the loop): {first:?} and {counts:?}");
            std::process::exit(1);
        }
        first = Some(counts);
    }
    let Some(c) = first else { unreachable!("RUNS is at least 1") };
    let wall = median(walls);
    let mode = if lazy { "lazy transmission ends" } else { "eager transmission ends" };
    println!(
        "floor: {}, {} sources, {} s simulated, {mode}",
        workload.name,
        workload.sources.len(),
        workload.duration_ns as f64 / 1e9
    );
    println!("runs: {runs} (wall is the median over the runs; only the loop is timed)");
    println!(
        "{:<12} {:>11} {:>11} {:>11} {:>9} {:>9} {:>8} {:>8} {:>8}",
        "workload", "events", "hops", "delivered", "dropped", "in_flight", "wall_s", "ns/hop", "Mhops/s"
    );
    println!(
        "{:<12} {:>11} {:>11} {:>11} {:>9} {:>9} {:>8.4} {:>8.1} {:>8.2}",
        workload.name,
        c.events,
        c.hops,
        c.delivered,
        c.dropped,
        c.in_flight,
        wall,
        wall * 1e9 / c.hops as f64,
        c.hops as f64 / wall / 1e6,
    );
}
