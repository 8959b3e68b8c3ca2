//! Engine throughput where scenarios are big (docs/performance.md, "Scale"): 1,000 FTP flows through one
//! port under FQ, DRR and FCFS (`flows-1000.toml`), and a 10,000-node random tree with 300 flows
//! routed over the whole graph (`tree-10000.toml`): loading it (parsing, checks, routes) and
//! running it. `cargo bench -p fairsim --bench scale`.
//!
//! The scenarios are written by `scripts/big_scenarios.py` (one generator for this benchmark,
//! the scale study in docs/performance.md and `examples/scale.rs`) into the target folder.
//! Throughput is in packet-hops, counted from one untimed run (the engine is deterministic).

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
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
    for (name, file) in [("tree-10000", tree), ("flows-1000", path("flows-1000.toml"))] {
        let scenario = fairsim::Scenario::load(&file, &[]).expect("the benchmark scenario loads");
        common::time_pairs(&mut group, name, &scenario);
    }
    group.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
