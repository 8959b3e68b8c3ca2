//! The discrete-event engine: the event queue, random streams, and the simulation loop.

pub mod event;
pub mod rng;
mod flow;
mod sim;

pub use sim::Simulation;
