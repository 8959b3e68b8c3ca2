//! Every figure derived from one interval's counters, one function each. The report's
//! summaries (mean ± spread over the measurement intervals) and its interval rows both take
//! their values from here, and Python reads them rather than deriving its own.
//!
//! A rate is per second of the interval's own length (`secs`, which a run's partial last
//! interval makes shorter); a mean over samples is `None` for an interval without samples.

use super::counters::{FlowCounters, PortCounters};
use serde::Serialize;

/// What one flow did in one interval, as rates and means.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowMetrics {
    /// Data packets delivered per second, duplicates included (the 1989 paper's throughput).
    pub throughput_pps: f64,
    /// Data packets delivered per second, first copies only (the thesis's throughput).
    pub goodput_pps: f64,
    /// Bits on the wire of first copies per second, headers included.
    pub goodput_bps: f64,
    /// Payload bits of first copies per second (ns-3's PacketSink).
    pub payload_bps: f64,
    /// Mean round trip, from sending a data packet to receiving its ACK, seconds.
    pub rtt_s: Option<f64>,
    /// Mean round trip from each packet's first transmission to the ACK that covers it.
    pub rtt_first_s: Option<f64>,
    /// Mean one-way delay of delivered data packets, seconds.
    pub delay_s: Option<f64>,
    /// Retransmissions per second.
    pub retransmit_pps: f64,
    /// Data packets dropped per second.
    pub drop_pps: f64,
}

/// What one port did in one interval.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueueMetrics {
    /// Fraction of the interval the line was busy.
    pub utilisation: f64,
    /// Time-averaged packets waiting (not counting the one on the line).
    pub occupancy_pkts: f64,
    /// Of the packets offered, the fraction the discipline dropped: an AQM's drop probability
    /// as its packets saw it (`None` without arrivals).
    pub drop_fraction: Option<f64>,
}

/// `count` per second of an interval `secs` long.
fn per_second(count: u64, secs: f64) -> f64 {
    count as f64 / secs
}

/// The mean of `samples` values that add up to `sum_ns` nanoseconds, in seconds.
fn mean_seconds(sum_ns: u64, samples: u64) -> Option<f64> {
    (samples > 0).then(|| sum_ns as f64 / samples as f64 / 1e9)
}

/// The mean of every RTT sample a flow's counters hold, seconds (its RTT over a whole run).
pub fn rtt_mean_s(c: &FlowCounters) -> Option<f64> {
    mean_seconds(c.rtt_sum_ns, c.rtt_samples)
}

/// A flow's goodput over its access line's rate (Hasegawa et al. 2001's relative throughput);
/// NaN when the access line is unknown, `None` without goodput.
pub fn relative_throughput(goodput_bps: Option<super::summary::Summary>, access_bps: Option<u64>) -> Option<f64> {
    goodput_bps.map(|g| g.mean / access_bps.map_or(f64::NAN, |a| a as f64))
}

impl FlowMetrics {
    pub fn of(c: &FlowCounters, secs: f64) -> FlowMetrics {
        FlowMetrics {
            throughput_pps: per_second(c.delivered, secs),
            goodput_pps: per_second(c.delivered_unique, secs),
            goodput_bps: c.bytes_unique as f64 * 8.0 / secs,
            payload_bps: c.payload_unique as f64 * 8.0 / secs,
            rtt_s: mean_seconds(c.rtt_sum_ns, c.rtt_samples),
            rtt_first_s: mean_seconds(c.rtt_first_sum_ns, c.rtt_first_samples),
            delay_s: mean_seconds(c.delay_sum_ns, c.delivered),
            retransmit_pps: per_second(c.retransmitted, secs),
            drop_pps: per_second(c.dropped, secs),
        }
    }
}

impl QueueMetrics {
    pub fn of(c: &PortCounters, secs: f64) -> QueueMetrics {
        QueueMetrics {
            utilisation: c.busy_ns as f64 / 1e9 / secs,
            occupancy_pkts: c.occupancy_area.get() as f64 / 1e9 / secs,
            drop_fraction: (c.arrivals > 0).then(|| c.drops as f64 / c.arrivals as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_per_second_of_the_interval_and_means_need_samples() {
        let c = FlowCounters {
            delivered: 30,
            delivered_unique: 25,
            bytes_unique: 25_000,
            payload_unique: 24_000,
            retransmitted: 5,
            dropped: 4,
            rtt_samples: 4,
            rtt_sum_ns: 400_000_000,
            delay_sum_ns: 300_000_000,
            ..Default::default()
        };
        let m = FlowMetrics::of(&c, 2.0);
        assert_eq!((m.throughput_pps, m.goodput_pps, m.retransmit_pps, m.drop_pps), (15.0, 12.5, 2.5, 2.0));
        assert_eq!((m.goodput_bps, m.payload_bps), (100_000.0, 96_000.0));
        assert_eq!(m.rtt_s, Some(0.1));
        assert_eq!(m.delay_s, Some(0.01), "one sample per delivery");
        assert_eq!(m.rtt_first_s, None, "no samples");
        let q = PortCounters { busy_ns: 1_500_000_000, occupancy_area: 6_000_000_000.into(), ..Default::default() };
        let none = QueueMetrics { utilisation: 0.75, occupancy_pkts: 3.0, drop_fraction: None };
        assert_eq!(QueueMetrics::of(&q, 2.0), none, "no arrivals: no drop fraction");
        let q = PortCounters { arrivals: 40, drops: 10, ..q };
        assert_eq!(QueueMetrics::of(&q, 2.0).drop_fraction, Some(0.25));
    }
}
