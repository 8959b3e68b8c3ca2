//! Engine throughput on the reference dumbbell (`scenarios/examples/dumbbell.toml`, Generic flow
//! control) and on the TCP dumbbell (`scenarios/bench/tcp-dumbbell.toml`, today's TCP): one full
//! 60-second run per iteration, for each protocol pair. `cargo bench -p fairsim --bench dumbbell`.
//!
//! Throughput is reported in packet-hops (one packet leaving one port), counted from one untimed
//! run; the engine is deterministic, so every timed run does the same work. Only
//! `Simulation::run` is timed: building the simulation and its report is left out.
//! `docs/performance.md` quotes the longer runs of `examples/bench.rs`.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Duration;

const SCENARIOS: [(&str, &str); 2] = [
    ("dumbbell", concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/examples/dumbbell.toml")),
    ("tcp-dumbbell", concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/bench/tcp-dumbbell.toml")),
];

fn dumbbell(c: &mut Criterion) {
    for (name, path) in SCENARIOS {
        let scenario = fairsim::Scenario::load(path, &[]).expect("the benchmark scenario loads");
        let mut group = c.benchmark_group(name);
        group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
        common::time_pairs(&mut group, "", &scenario);
        group.finish();
    }
}

criterion_group!(benches, dumbbell);
criterion_main!(benches);
