//! The floor (`benches/common/floor.rs`): a minimal event loop doing the packet hops of the
//! engine's benchmark workloads, so that the engine's own benchmarks (`dumbbell`, `scale`) can be
//! read as "× floor" on the machine at hand. `cargo bench -p fairsim --bench floor`.
//!
//! Two workloads, as the engine runs them: the reference dumbbell (`scenarios/examples/dumbbell.toml`,
//! 60 s simulated here, as the `dumbbell` bench runs it) and 1,000 flows through one port
//! (`flows-1000.toml`, as the `scale` bench), each with eager and lazy transmission ends.
//! Throughput is in packet-hops (one packet leaving one port), counted from one untimed run; the
//! loop is deterministic, so every timed run does the same work. Building the network is not timed.

// `#[path]` rather than `mod common;`: the engine's benchmarks share `common/mod.rs`, which the
// floor does not need (and the floor is no part of theirs).
#[allow(dead_code)] // the example reads every count; the bench only times the loop
#[path = "common/floor.rs"]
mod floor;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::time::Duration;

fn floor(c: &mut Criterion) {
    for workload in [floor::Workload::dumbbell(60_000_000_000), floor::Workload::flows(1000)] {
        let mut group = c.benchmark_group(format!("floor/{}", workload.name));
        group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
        for (mode, lazy) in [("eager", false), ("lazy", true)] {
            let mut sim = floor::Sim::new(&workload, lazy);
            sim.run();
            group.throughput(Throughput::Elements(sim.counts().hops));
            group.bench_function(mode, |b| {
                b.iter_batched(
                    || floor::Sim::new(&workload, lazy),
                    |mut sim| {
                        sim.run();
                        sim
                    },
                    BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

criterion_group!(benches, floor);
criterion_main!(benches);
