//! The columns of the engine's tables, each with its unit, meaning and place in the run's report:
//! the interval rows (`intervals`, `queue_intervals`) and the summary tables of flows and queues
//! (`flows`, `queues`). Python's DataFrames lay the report out by this catalogue, and the sweep
//! axes' reserved names and docs/results.md's column tables come from it
//! (`fairsim._core.columns()`). `tests/catalogue.rs` serialises rows and reports and checks
//! that their fields are these, in this order.

/// One column of a table.
#[derive(Copy, Clone, Debug)]
pub struct Column {
    /// `intervals` (a flow's), `queue_intervals` (a port's), `flows` or `queues`.
    pub table: &'static str,
    pub name: &'static str,
    /// `packets`, `bytes`, `ns`, `s`, `packets/s`, `bit/s`, `fraction`, `packet·ns`, `count`,
    /// `text` (a name), or `number` (a pure number).
    pub unit: &'static str,
    pub description: &'static str,
    /// Where the value is in a flow's or queue's report: `field` (`record[name]`), `summary`
    /// (`record[name]`'s mean, with `{name}_std` and `{name}_ci95` beside it), `total`
    /// (`record["totals"][name]`), `delay` (`record[key][figure]` for a name `{key}_{figure}`);
    /// an interval row's are a `counter` (`stats::counters`) or a `figure` derived from them
    /// (`stats::metrics`).
    pub source: &'static str,
}

const fn flow(name: &'static str, unit: &'static str, description: &'static str) -> Column {
    Column { table: "intervals", name, unit, description, source: "counter" }
}

const fn flow_figure(name: &'static str, unit: &'static str, description: &'static str) -> Column {
    Column { table: "intervals", name, unit, description, source: "figure" }
}

const fn port(name: &'static str, unit: &'static str, description: &'static str) -> Column {
    Column { table: "queue_intervals", name, unit, description, source: "counter" }
}

const fn port_figure(name: &'static str, unit: &'static str, description: &'static str) -> Column {
    Column { table: "queue_intervals", name, unit, description, source: "figure" }
}

const fn of(
    table: &'static str,
    source: &'static str,
    name: &'static str,
    unit: &'static str,
    description: &'static str,
) -> Column {
    Column { table, name, unit, description, source }
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
    flow("spurious_retransmits", "count", "retransmissions the receiver already had (D-SACK)"),
    flow("loss_probes", "count", "tail loss probes sent (RACK-TLP)"),
    flow("abandoned", "count", "1 if the sender gave up after max_backoffs timeouts in a row"),
    flow("trimmed", "packets", "headers of trimmed data packets that reached the sink (payload lost)"),
    flow("pulls", "packets", "pulls the sink sent (receiver-driven transports)"),
    flow("cnps", "packets", "congestion notifications the sink sent (DCQCN's CNPs)"),
    flow("window_limited_ns", "ns", "time the flow's own window held the sender back"),
    flow_figure("throughput_pps", "packets/s", "data packets delivered per second, duplicates included"),
    flow_figure("goodput_pps", "packets/s", "first copies delivered per second"),
    flow_figure("goodput_bps", "bit/s", "bits on the wire of first copies per second"),
    flow_figure("payload_bps", "bit/s", "payload bits of first copies per second"),
    flow_figure("rtt_s", "s", "mean round trip (null without samples)"),
    flow_figure("rtt_first_s", "s", "mean round trip from first transmission (null without samples)"),
    flow_figure("delay_s", "s", "mean one-way delay (null without deliveries)"),
    flow_figure("retransmit_pps", "packets/s", "retransmissions per second"),
    flow_figure("drop_pps", "packets/s", "data packets dropped per second"),
    port("arrivals", "packets", "packets offered to the queue"),
    port("departures", "packets", "packets the line sent"),
    port("drops", "packets", "packets the discipline dropped"),
    port("bytes_sent", "bytes", "bytes the line sent"),
    port("busy_ns", "ns", "time the line was busy"),
    port("occupancy_area", "packet·ns", "integral of the packets waiting over time"),
    port("max_occupancy", "packets", "most packets waiting"),
    port("marks", "packets", "packets whose congestion bit the queue set"),
    port("trims", "packets", "data packets the queue cut to their headers (trim)"),
    port("losses", "packets", "packets the line lost after sending them"),
    port("link_down", "packets", "packets lost because the link was down (on the line, queued or arriving)"),
    port("pauses", "count", "PFC pause frames that stopped the port"),
    port("paused_ns", "ns", "time a PFC switch at the far end held the port paused"),
    port_figure("utilisation", "fraction", "fraction of the interval the line was busy"),
    port_figure("occupancy_pkts", "packets", "time-averaged packets waiting"),
    port_figure("drop_fraction", "fraction", "of the packets offered, the fraction dropped (null without arrivals)"),
];

/// The flows table: one row per flow and run, after its keys (`pair`, `seed`, `flow`).
pub static FLOW_COLUMNS: &[Column] = &[
    of("flows", "field", "src", "text", "the source node"),
    of("flows", "field", "dst", "text", "the destination node"),
    of("flows", "field", "app", "text", "the application"),
    of("flows", "field", "transport", "text", "the flow control (`none`: open loop)"),
    of("flows", "field", "packet_size", "bytes", "a data packet on the wire: payload and headers"),
    of("flows", "field", "payload_size", "bytes", "the application's bytes of a data packet"),
    of("flows", "field", "headers", "text", "the headers on top of the payload (`none`, `udp`, `tcp`, ...)"),
    of("flows", "summary", "throughput_pps", "packets/s", "data packets delivered per second, duplicates included"),
    of("flows", "summary", "goodput_pps", "packets/s", "first copies delivered per second"),
    of("flows", "summary", "goodput_bps", "bit/s", "bits on the wire of first copies per second"),
    of("flows", "summary", "payload_bps", "bit/s", "payload bits of first copies per second"),
    of("flows", "summary", "rtt_s", "s", "mean round trip per interval"),
    of("flows", "summary", "rtt_first_s", "s", "mean round trip from first transmission per interval"),
    of("flows", "summary", "delay_s", "s", "mean one-way delay per interval"),
    of("flows", "summary", "retransmit_pps", "packets/s", "retransmissions per second"),
    of("flows", "summary", "drop_pps", "packets/s", "data packets dropped per second"),
    of("flows", "total", "sent", "packets", "data packets sent in the measurement intervals"),
    of("flows", "total", "retransmitted", "packets", "of which sent again"),
    of("flows", "total", "delivered", "packets", "data packets delivered, duplicates included"),
    of("flows", "total", "delivered_unique", "packets", "first copies delivered"),
    of("flows", "total", "dropped", "packets", "data packets dropped or lost"),
    of("flows", "total", "acks_dropped", "packets", "ACKs dropped or lost"),
    of("flows", "field", "in_network", "packets", "data packets still in the network when the run ended"),
    of("flows", "field", "rtt_mean_s", "s", "mean of every RTT sample of the measurement intervals"),
    of("flows", "field", "fair_share_bps", "bit/s", "the flow's max-min fair share of the network"),
    of("flows", "field", "share_of_fair", "fraction", "goodput over fair share"),
    of("flows", "delay", "queueing_mean_s", "s", "mean queueing delay of its data packets"),
    of("flows", "delay", "queueing_p50_s", "s", "median queueing delay (within 1/256)"),
    of("flows", "delay", "queueing_p95_s", "s", "95th percentile of the queueing delay (within 1/256)"),
    of("flows", "delay", "queueing_p99_s", "s", "99th percentile of the queueing delay (within 1/256)"),
    of("flows", "delay", "queueing_max_s", "s", "largest queueing delay"),
    of("flows", "delay", "queueing_jitter_s", "s", "mean change of queueing delay between packets (RFC 3550)"),
    of("flows", "field", "completion_s", "s", "when a finite transfer was acknowledged, from the flow's start"),
    of("flows", "field", "window_limited_s", "s", "time the flow's own window held the sender back"),
    of("flows", "field", "window_limited_share", "fraction", "that time over the measured time"),
    of("flows", "field", "access_bps", "bit/s", "the rate of the source's access line (its only line)"),
    of(
        "flows",
        "field",
        "relative_throughput",
        "fraction",
        "goodput over the access line's rate (Hasegawa et al. 2001)",
    ),
];

/// The queues table: one row per port and run, after its keys (`pair`, `seed`, `port`), and
/// before the discipline's own figures (`qdisc_stats`, named by each discipline).
pub static QUEUE_COLUMNS: &[Column] = &[
    of("queues", "field", "from", "text", "the node the port sends from"),
    of("queues", "field", "to", "text", "the node at the far end of the line"),
    of("queues", "field", "rate_bps", "bit/s", "the line's rate"),
    of("queues", "field", "delay_s", "s", "the line's propagation delay"),
    of("queues", "field", "buffer_packets", "packets", "the buffer's limit in packets (NaN: not in packets)"),
    of("queues", "field", "buffer_bytes", "bytes", "the buffer's limit in bytes (NaN: not in bytes)"),
    of("queues", "field", "qdisc", "text", "the queueing discipline"),
    of("queues", "summary", "utilisation", "fraction", "fraction of each interval the line was busy"),
    of("queues", "summary", "occupancy_pkts", "packets", "time-averaged packets waiting per interval"),
    of("queues", "summary", "drop_fraction", "fraction", "of the packets offered, the fraction dropped, per interval"),
    of("queues", "total", "arrivals", "packets", "packets offered to the queue"),
    of("queues", "total", "departures", "packets", "packets the line sent"),
    of("queues", "total", "drops", "packets", "packets the discipline dropped"),
    of("queues", "total", "losses", "packets", "packets the line lost after sending them"),
    of("queues", "total", "link_down", "packets", "packets lost because the link was down"),
    of("queues", "total", "marks", "packets", "packets whose congestion bit the queue set"),
    of("queues", "total", "trims", "packets", "data packets the queue cut to their headers (trim)"),
    of("queues", "total", "pauses", "count", "PFC pause frames that stopped the port"),
    of("queues", "total", "paused_ns", "ns", "time a PFC switch at the far end held the port paused"),
    of("queues", "total", "max_occupancy", "packets", "most packets waiting"),
    of("queues", "delay", "sojourn_mean_s", "s", "mean sojourn (enqueue to start of transmission)"),
    of("queues", "delay", "sojourn_p50_s", "s", "median sojourn (within 1/256)"),
    of("queues", "delay", "sojourn_p95_s", "s", "95th percentile of the sojourn (within 1/256)"),
    of("queues", "delay", "sojourn_p99_s", "s", "99th percentile of the sojourn (within 1/256)"),
    of("queues", "delay", "sojourn_max_s", "s", "largest sojourn"),
    of("queues", "delay", "sojourn_jitter_s", "s", "mean change of sojourn between packets (RFC 3550)"),
];

/// Every table's columns: the interval rows', then the flows' and the queues'.
pub fn all() -> impl Iterator<Item = &'static Column> {
    COLUMNS.iter().chain(FLOW_COLUMNS).chain(QUEUE_COLUMNS)
}
