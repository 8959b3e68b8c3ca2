//! The discrete-event engine: the event queue and the simulation loop.

pub mod event;
mod flow;
mod sim;

pub use sim::Simulation;
