//! The discrete-event engine: the event queue, random streams, and the simulation loop.

pub mod event;
mod flow;
pub mod rng;
mod sim;

pub use sim::Simulation;
