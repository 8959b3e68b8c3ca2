//! Runs a scenario from the command line without Python: `cargo run --release --example run --
//! SCENARIO [PAIR] [KEY=VALUE ...]`. Prints the run's JSON report (without per-interval rows).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run SCENARIO [PAIR] [KEY=VALUE ...]");
        std::process::exit(2);
    };
    let pair = args.get(1).filter(|a| !a.contains('='));
    let sets: Vec<String> = args.iter().skip(1).filter(|a| a.contains('=')).cloned().collect();
    let outcome = fairsim::Scenario::load(path, &sets).and_then(|sc| {
        let mut sim = fairsim::Simulation::new(&sc, pair.map(String::as_str), None)?;
        sim.run();
        Ok(sim.report())
    });
    match outcome {
        Ok(mut report) => {
            report.flow_intervals.clear();
            report.queue_intervals.clear();
            println!("{}", serde_json::to_string_pretty(&report).expect("serialisable"));
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
