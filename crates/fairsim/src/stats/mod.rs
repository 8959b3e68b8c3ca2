//! Statistics: counters per flow and port per interval, summaries, fairness.

pub mod catalogue;
pub mod counters;
pub mod delay;
pub mod fairness;
pub mod fluid;
pub mod metrics;
pub mod summary;
pub mod transfers;

pub use counters::{FlowCounters, LiveCounters, PortCounters, PortStats, RareCounters};
pub use delay::{DelayStats, DelaySummary};
pub use metrics::{FlowMetrics, QueueMetrics};
pub use summary::Summary;
