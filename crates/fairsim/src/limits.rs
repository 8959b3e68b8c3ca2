//! The largest sizes a scenario may ask for.
//!
//! Most sizes cost nothing until packets exist (a buffer, a file's length, a window grown by a
//! TCP), so they are not bounded here. These are the ones the engine allocates for, or does
//! work for, in proportion to the number itself; each is refused at validation beyond its limit,
//! with the field and the limit named, instead of exhausting memory. The limits are far beyond
//! any experiment of the papers fairsim reproduces (docs/scenario-format.md, "Limits"; the
//! reasoning is in docs/decisions.md).

/// Packets in a window (a flow's `window`, a transport's `window`). A fixed window is sent at
/// once (Generic), so it is a burst of that many packets: 2^20 is TCP's largest window (1 GiB
/// with window scaling) in packets of 1 KiB.
pub const MAX_WINDOW: u32 = 1 << 20;

/// A run's duration, in nanoseconds: 2^62, about 146 years. A send window keeps each packet's
/// first-send time in 62 bits and two flags in the others (`transport::reliability::window`).
pub const MAX_DURATION_NS: u64 = 1 << 62;

/// Queues of a discipline with a fixed number of them (`drr`'s and `sfq`'s `queues`): each
/// costs about 80 bytes at every port the discipline runs at. Linux's SFQ allows 65,536.
pub const MAX_QUEUES: usize = 1 << 16;

/// Flows in a scenario, the transfers of `web` applications included: every flow costs state at
/// every port that runs a per-flow discipline, a row of results in every interval and a row in
/// every table printed. 100,000 flows through one port is the size docs/performance.md,
/// "Scale", measures; loading them takes seconds and running them a few hundred MB.
pub const MAX_FLOWS: usize = 100_000;

/// Connections of open-population flows (`app = "files"`) open at once. Each holds its ends'
/// state (about a kilobyte) and perhaps its own access line; far more than this means the load
/// offered is far beyond what the network carries, and the run would only grow.
pub const MAX_OPEN_CONNECTIONS: usize = 1 << 18;

/// Measurement intervals times the flows and ports they are recorded for: each record is kept
/// in memory and written to the results (about 1.6 KB once read into Python).
pub const MAX_INTERVAL_RECORDS: u64 = 1_000_000;

/// Network events (`[[events]]`): each is one or two events of the run, and a line of its
/// results. A failure a millisecond for a minute is 60,000.
pub const MAX_EVENTS: usize = 1 << 16;

/// Threads of one run (`[run] threads`): each is a partition, a whole copy of the run.
pub const MAX_THREADS: usize = 1024;

/// Refuses `value` above `limit`: the message names the limit and what it bounds.
pub fn check<T: PartialOrd + std::fmt::Display>(value: T, limit: T, what: &str) -> Result<(), String> {
    if value > limit {
        Err(format!(
            "{value} {what} is more than fairsim's limit of {limit} (see \"Limits\" in docs/scenario-format.md)"
        ))
    } else {
        Ok(())
    }
}
