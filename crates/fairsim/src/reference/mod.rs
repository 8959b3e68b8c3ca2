//! Reference systems to measure packet disciplines against: the ideal fluid one (bit-by-bit
//! round robin, i.e. GPS / processor sharing, weighted) and preemptive Fair Queueing, both
//! computed exactly from a trace of arrivals at one queue.

mod arrival;
pub mod gps;
pub mod max_min;
pub mod preemptive;
pub mod round;
pub mod service;

pub use arrival::Arrival;
pub use gps::Gps;
pub use service::Service;
