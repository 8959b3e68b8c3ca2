//! The columns of the engine's interval rows, each with its unit and meaning: what Python's
//! DataFrames, the sweep axes' reserved names and docs/results.md take from the engine
//! (`fairsim._core.columns()`). `tests/catalogue.rs` serialises a row of each table and checks
//! that its fields are these, in this order.

/// One column of an interval table.
#[derive(Copy, Clone, Debug)]
pub struct Column {
    /// `intervals` (a flow's) or `queue_intervals` (a port's).
    pub table: &'static str,
    pub name: &'static str,
    /// `packets`, `bytes`, `ns`, `s`, `packets/s`, `bit/s`, `fraction`, `packet·ns`, `count`.
    pub unit: &'static str,
    pub description: &'static str,
}

const fn flow(name: &'static str, unit: &'static str, description: &'static str) -> Column {
    Column { table: "intervals", name, unit, description }
}

const fn port(name: &'static str, unit: &'static str, description: &'static str) -> Column {
    Column { table: "queue_intervals", name, unit, description }
}

/// Every column of the interval rows after their keys (`flow` or `port`, `interval`, `start_s`,
/// `end_s`, `warmup`): the counters (`stats::counters`), then the figures derived from them
/// (`stats::metrics`).
pub static COLUMNS: &[Column] = &[
    flow("sent", "packets", "data packets put on the network, retransmissions included"),
    flow("retransmitted", "packets", "data packets sent again"),
    flow("delivered", "packets", "data packets reaching the sink, duplicates included"),
    flow("delivered_unique", "packets", "data packets reaching the sink for the first time"),
    flow("bytes_delivered", "bytes", "bytes on the wire of the data packets delivered"),
    flow("bytes_unique", "bytes", "bytes on the wire of first copies delivered"),
    flow("payload_unique", "bytes", "payload bytes of first copies delivered"),
    flow("dropped", "packets", "data packets dropped or lost in the network"),
    flow("acks_sent", "packets", "ACKs the sink sent"),
    flow("acks_received", "packets", "ACKs the source received"),
    flow("acks_dropped", "packets", "ACKs dropped or lost"),
    flow("delay_sum_ns", "ns", "sum of the one-way delays of delivered data packets"),
    flow("delay_max_ns", "ns", "largest one-way delay"),
    flow("rtt_samples", "count", "round-trip samples at the source"),
    flow("rtt_sum_ns", "ns", "sum of the round-trip samples"),
    flow("rtt_max_ns", "ns", "largest round-trip sample"),
    flow("rtt_first_samples", "count", "packets whose round trip from first transmission completed"),
    flow("rtt_first_sum_ns", "ns", "sum of those round trips"),
    flow("timeouts", "count", "retransmission timeouts"),
    flow("fast_retransmits", "count", "losses repaired by fast retransmit"),
    flow("window_limited_ns", "ns", "time the flow's own window held the sender back"),
    flow("throughput_pps", "packets/s", "data packets delivered per second, duplicates included"),
    flow("goodput_pps", "packets/s", "first copies delivered per second"),
    flow("goodput_bps", "bit/s", "bits on the wire of first copies per second"),
    flow("payload_bps", "bit/s", "payload bits of first copies per second"),
    flow("rtt_s", "s", "mean round trip (null without samples)"),
    flow("rtt_first_s", "s", "mean round trip from first transmission (null without samples)"),
    flow("delay_s", "s", "mean one-way delay (null without deliveries)"),
    flow("retransmit_pps", "packets/s", "retransmissions per second"),
    flow("drop_pps", "packets/s", "data packets dropped per second"),
    port("arrivals", "packets", "packets offered to the queue"),
    port("departures", "packets", "packets the line sent"),
    port("drops", "packets", "packets the discipline dropped"),
    port("bytes_sent", "bytes", "bytes the line sent"),
    port("busy_ns", "ns", "time the line was busy"),
    port("occupancy_area", "packet·ns", "integral of the packets waiting over time"),
    port("max_occupancy", "packets", "most packets waiting"),
    port("marks", "packets", "packets whose congestion bit the queue set"),
    port("losses", "packets", "packets the line lost after sending them"),
    port("utilisation", "fraction", "fraction of the interval the line was busy"),
    port("occupancy_pkts", "packets", "time-averaged packets waiting"),
];
