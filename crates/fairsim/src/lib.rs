//! fairsim: a packet-level discrete-event simulator for fair-queueing and congestion-control
//! research, and a reference implementation of the classic papers of that field.
//!
//! ```no_run
//! use fairsim::{Scenario, Simulation};
//! let scenario = Scenario::load("scenarios/examples/dumbbell.toml", &[]).unwrap();
//! let mut sim = Simulation::new(&scenario, None, None).unwrap();
//! sim.run();
//! let report = sim.report();
//! println!("{}", serde_json::to_string_pretty(&report).unwrap());
//! ```
//!
//! The engine knows nothing of Python, files of results or plots: a scenario goes in, a
//! `RunReport` comes out. Its modules form layers, each using only those below it (from the
//! ground up: `error`; `units`, `heap`, `rng`, `limits`, `params`; `net`, `timer`;
//! `reference`; `stats`, `qdisc`, `traffic`, `pcap`; `transport`; `node`; `scenario`; `engine`;
//! `report`): see docs/architecture.md, and `tests/layers.rs`, which checks it.

pub mod component;
pub mod engine;
pub mod error;
pub mod foreign;
pub mod heap;
pub mod limits;
pub mod memory;
pub mod net;
pub mod node;
pub mod params;
pub mod pcap;
pub mod qdisc;
pub mod reference;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod stats;
pub mod timer;
pub mod traffic;
pub mod transport;
pub mod units;

pub use engine::{Simulation, Threads};
pub use error::{Diagnostic, Error, Result};
pub use report::RunReport;
pub use scenario::Scenario;
