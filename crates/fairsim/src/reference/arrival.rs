//! The input of the reference systems: a trace of arrivals at one queue.

/// One packet arriving at the queue: when, of which conversation, how many bits.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Arrival {
    pub t_ns: f64,
    pub conv: usize,
    pub bits: f64,
}
