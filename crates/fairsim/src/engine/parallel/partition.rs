//! What a copy of the run keeps as one partition of a parallel run, and a run on one thread does
//! not have: which nodes are another partition's, the event being handled, the first drop of each
//! (flow, port, reason) for the merge's order, and the queueing delays to be recorded in the
//! run's order at each window's end. The `Simulation` holds it as one optional field, so that
//! the loop's code reads as one thread's and each parallel branch tests that field.

use crate::engine::event::Code;
use crate::engine::pfc::Frame;
use crate::net::FlowId;
use crate::units::Time;
use std::sync::Arc;

/// A partition's own state (`Simulation::partition`).
pub(crate) struct Partition {
    /// By node, whether another partition holds it.
    pub(crate) elsewhere: Arc<[bool]>,
    /// The instant, event and place in the event of each first drop of a (flow, port, reason),
    /// in the order of the flows' `drop_tally` entries, to merge them in the run's order.
    pub(crate) first_drops: Vec<FirstDrop>,
    /// The event being handled (what `first_drops` and `delays_later` note).
    pub(crate) current: Code,
    /// The queueing delays of connections' packets (a population's sinks are in every
    /// partition, and its delays' jitter is over all of them in the run's order), to be recorded
    /// in that order at the window's end; `None` in a run without a population.
    pub(crate) delays_later: Option<Vec<DelaySample>>,
    /// The pause frames sent in the window to ports another partition sends on (PFC), for it.
    pub(crate) frames_out: Vec<Frame>,
}

/// A queueing delay recorded later, in the run's order: at `at`, in the event coded `event`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct DelaySample {
    pub at: Time,
    pub event: u32,
    pub flow: u32,
    pub ns: u64,
}

/// Where in the run a flow's first drop of a (port, reason) was: at `at`, in the event coded
/// `event`, at `place` among the ports that event acts on. Only a change of the network acts on
/// several ports at once (its ports in its order, which partitions share out); any other event
/// has a place of 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct FirstDrop {
    pub flow: FlowId,
    pub at: Time,
    pub event: u32,
    pub place: u32,
}
