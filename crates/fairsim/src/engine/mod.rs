//! The discrete-event engine: the event set and a thin loop that pops events and hands each to
//! the port, host, sender or interval clock it names (`node` holds their verbs).
//!
//! - `event`: the events and their set, in canonical order (time, kind, target, insertion);
//! - `sim`: the loop, the dispatch, and the accessors reports read;
//! - `build`: a run's ports and flows made from a validated scenario;
//! - `agent`: a sender called with its context, and its actions carried out;
//! - `connections`: the arriving and leaving connections of open-population flows;
//! - `intervals`: the measurement intervals' clock;
//! - `port_table`: the ports by id, all of them or a partition's;
//! - `routes`: every flow's routes in one table, for forwarding;
//! - `forwarding`: the next hops of flows whose paths are chosen at each switch;
//! - `ideal`: a transfer's ideal completion time, on the path its packets take;
//! - `changes`, `failures`: the network's changes (`[[events]]`: links down, up, at another
//!   rate) in their order, and carried out;
//! - `shared_buffer`: switches whose queues share a buffer under dynamic thresholds;
//! - `pfc`, `pausing`: priority flow control, switches pausing the ports that feed them (the
//!   counts, and the loop's part);
//! - `parallel`: one run on several threads, split into partitions that advance in windows;
//! - `telemetry`: the INT records of the packets in the network (`net::int`), in runs with a
//!   flow that asks for them.

mod agent;
mod arrivals;
mod build;
mod capture;
mod changes;
mod connections;
pub mod event;
mod failures;
mod forwarding;
mod ideal;
mod intervals;
mod parallel;
mod pausing;
mod pfc;
mod port_table;
mod pulls;
mod routes;
mod shared_buffer;
mod sim;
pub mod telemetry;

pub use parallel::Threads;
pub use pfc::PfcReport;
pub use sim::Simulation;
