//! What the engine benchmarks share: timing `Simulation::run` of every pair of a scenario.

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Throughput};

/// Times one full run of each pair of `scenario` per iteration, named `PREFIX/PAIR` (or `PAIR`
/// with no prefix). Throughput is in packet-hops (one packet leaving one port), counted from one
/// untimed run: the engine is deterministic, so every timed run does the same work. Building the
/// simulation and its report is not timed.
pub fn time_pairs(group: &mut BenchmarkGroup<WallTime>, prefix: &str, scenario: &fairsim::Scenario) {
    for pair in scenario.pairs.iter().map(|p| p.name.as_str()) {
        let build = || fairsim::Simulation::new(scenario, Some(pair), None).expect("the pair builds");
        let mut sim = build();
        sim.run();
        let hops: u64 = sim.report().queue_intervals.iter().map(|q| q.counters.departures).sum();
        group.throughput(Throughput::Elements(hops));
        let name = if prefix.is_empty() { pair.to_string() } else { format!("{prefix}/{pair}") };
        group.bench_function(name, |b| {
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
