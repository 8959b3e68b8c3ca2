//! What the integration tests share: parse a scenario, run it, find a flow in the report.
#![allow(dead_code)] // each test binary uses its own subset

use fairsim::report::FlowReport;
use fairsim::{RunReport, Scenario, Simulation};

/// A scenario from TOML text with `--set` overrides; a mistake in it fails the test.
pub fn parse_with(text: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::parse(text, "test.toml", &sets).unwrap_or_else(|e| panic!("{e}"))
}

pub fn parse(text: &str) -> Scenario {
    parse_with(text, &[])
}

/// Runs one pair (the first if `None`) with one seed (the scenario's if `None`).
pub fn simulate(sc: &Scenario, pair: Option<&str>, seed: Option<u64>) -> RunReport {
    let mut sim = Simulation::new(sc, pair, seed).unwrap();
    sim.run();
    sim.report()
}

/// Parses and runs with the scenario's seed.
pub fn run(text: &str, pair: Option<&str>, sets: &[&str]) -> RunReport {
    simulate(&parse_with(text, sets), pair, None)
}

pub fn flow<'a>(r: &'a RunReport, name: &str) -> &'a FlowReport {
    r.flows.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no flow {name}"))
}
