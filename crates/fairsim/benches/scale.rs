//! Engine throughput where scenarios are big (issue 17, "Scale"): 1,000 FTP flows through one
//! port under FQ, DRR and FCFS (`flows-1000.toml`), and a 10,000-node random tree with 300 flows
//! routed over the whole graph (`tree-10000.toml`): loading it (parsing, checks, routes) and
//! running it. `cargo bench -p fairsim --bench scale`.
//!
//! The scenarios are written by `scripts/big_scenarios.py` (one generator for this benchmark,
//! the scale study in docs/performance.md and `examples/scale.rs`) into the target folder.
//! Throughput is in packet-hops, counted from one untimed run (the engine is deterministic).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::path::PathBuf;
use std::time::Duration;

const SCENARIOS: [&str; 2] = ["flows-1000.toml", "tree-10000.toml"];

/// Writes the benchmark's scenarios with the project's generator; returns their folder.
fn scenarios() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = root.join("target/bench-scenarios");
    let status = std::process::Command::new("python3")
        .arg(root.join("scripts/big_scenarios.py"))
        .arg(&out)
        .args(SCENARIOS)
        .status()
        .expect("python3 runs scripts/big_scenarios.py");
    assert!(status.success(), "scripts/big_scenarios.py failed");
    out
}

fn scale(c: &mut Criterion) {
    let dir = scenarios();
    let path = |name: &str| dir.join(name).to_str().expect("a UTF-8 path").to_string();
    let mut group = c.benchmark_group("scale");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));

    let tree = path("tree-10000.toml");
    group.bench_function("tree-10000/load", |b| b.iter(|| fairsim::Scenario::load(&tree, &[]).expect("loads")));
    run_pairs(&mut group, "tree-10000", &tree);
    run_pairs(&mut group, "flows-1000", &path("flows-1000.toml"));
    group.finish();
}

/// Times `Simulation::run` of each pair of the scenario at `path` (building it is left out).
fn run_pairs(group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>, name: &str, path: &str) {
    let scenario = fairsim::Scenario::load(path, &[]).expect("the benchmark scenario loads");
    for pair in scenario.pairs.iter().map(|p| p.name.as_str()) {
        let build = || fairsim::Simulation::new(&scenario, Some(pair), None).expect("the pair builds");
        let mut sim = build();
        sim.run();
        let hops: u64 = sim.report().queue_intervals.iter().map(|q| q.counters.departures).sum();
        group.throughput(Throughput::Elements(hops));
        group.bench_function(format!("{name}/{pair}"), |b| {
            b.iter_batched(
                build,
                |mut sim| {
                    sim.run();
                    sim
                },
                BatchSize::LargeInput,
            )
        });
    }
}

criterion_group!(benches, scale);
criterion_main!(benches);
