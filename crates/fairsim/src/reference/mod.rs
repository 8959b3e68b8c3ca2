//! Reference systems to measure packet disciplines against: the ideal fluid one (bit-by-bit
//! round robin, i.e. GPS / processor sharing, weighted) and preemptive Fair Queueing, both
//! computed exactly from a trace of arrivals at one queue.

pub mod gps;
pub mod max_min;
pub mod preemptive;
pub mod round;
pub mod service;

pub use gps::Gps;
pub use service::Service;

/// One packet arriving at the queue: when, of which conversation, how many bits.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Arrival {
    pub t_ns: f64,
    pub conv: usize,
    pub bits: f64,
}
