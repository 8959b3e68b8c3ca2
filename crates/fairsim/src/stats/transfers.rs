//! The metrics of an open population of file transfers (Kim & Farber 1994 §4.1.4):
//! - response time R: the mean over transfers of finish − arrival, a transfer finishing when
//!   "the acknowledgement for the last bit of the sent file arrives at the sender";
//! - system throughput Θ = Σ|c_k| / T: the transfers' bytes over the time T they took in all,
//!   here from the first measured arrival to the last measured finish;
//! - network power P = Θ^α / R with α = 1, in bytes/s² (the paper's main metric);
//! - Jain's index over the transfers' own throughputs |c_k| / R_k;
//! - by Little's law, the transfers outstanding on average, N = λR.
//!
//! Measured are the transfers arriving in [since, until): after the warm-up, before the flow's
//! arrivals stop. Those the run did not see finish are `unfinished`; R and Θ are then over the
//! finished ones alone, so R is a lower bound (the load is past what the network carries).

use super::counters::FlowCounters;
use super::fairness::jain;
use serde::Serialize;

/// One row per transfer, as columns (the run's report carries them as they are).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Transfers {
    /// The flow (by index among the scenario's flows) of each transfer.
    pub flow: Vec<u32>,
    /// When it arrived, seconds.
    pub arrival_s: Vec<f64>,
    /// When the ACK of its last packet reached the source, seconds; `None` if the run ended first.
    pub finish_s: Vec<Option<f64>>,
    /// Its file's size, bytes.
    pub bytes: Vec<u64>,
    /// Data packets it put on the network, retransmissions included.
    pub sent: Vec<u64>,
    pub retransmitted: Vec<u64>,
    /// Data packets its sink received for the first time: its goodput in packets, which for a
    /// file without end (a permutation's) or an unfinished one is what it delivered by the
    /// run's end (`sent − retransmitted` also counts packets lost or still on their way).
    pub delivered: Vec<u64>,
    /// The most transfers open at once during the run; set for the report, from the rows
    /// (`open_at_most`), so that the partitions of a parallel run agree.
    pub most_open: u64,
    /// Whether the rows below are kept: when some flow's connections run between hosts it
    /// draws (a workload), for completion-time slowdowns.
    #[serde(skip)]
    pub detailed: bool,
    /// Each transfer's source and destination (node indices), and its ideal completion time,
    /// seconds (`None` for a file without end): its time alone on the network
    /// (`Simulation::ideal_fct`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub src: Vec<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dst: Vec<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ideal_s: Vec<Option<f64>>,
    /// Its transport's largest window over its own path's bandwidth-delay product
    /// (`Sender::largest_window`; `None`: the transport has no such bound): below 1, the
    /// transfer cannot fill its path even alone.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub window_bdp: Vec<Option<f64>>,
    /// The scenario's node names, for `src` and `dst`; set for the report.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
}

impl Transfers {
    /// Adds to transfer `row` the packets its connection counted since it last did.
    pub fn count(&mut self, row: usize, counted: &FlowCounters) {
        self.sent[row] += counted.sent;
        self.retransmitted[row] += counted.retransmitted;
        self.delivered[row] += counted.delivered_unique;
    }

    /// The most transfers open at once: arrived and not finished, a transfer that finishes at
    /// an instant counted out before one that arrives at it (an ACK's arrival comes before a
    /// connection's in the order of an instant's events: `engine::event`). Counted from the rows
    /// at the run's end, so that every partition of a parallel run agrees.
    pub fn open_at_most(&self) -> u64 {
        let mut changes: Vec<(f64, i64)> = self.arrival_s.iter().map(|&a| (a, 1)).collect();
        changes.extend(self.finish_s.iter().flatten().map(|&f| (f, -1)));
        changes.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (mut open, mut most) = (0i64, 0i64);
        for (_, change) in changes {
            open += change;
            most = most.max(open);
        }
        most as u64
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransferSummary {
    pub flow: String,
    pub arrivals: u64,
    pub finished: u64,
    pub unfinished: u64,
    /// Arrivals per second over [since, until).
    pub arrival_rate: f64,
    /// R, seconds.
    pub response_s: Option<f64>,
    /// T, seconds.
    pub elapsed_s: Option<f64>,
    /// Θ, bytes per second.
    pub throughput_bps: Option<f64>,
    /// P = Θ/R, bytes/s².
    pub power: Option<f64>,
    /// Jain's index of the transfers' throughputs.
    pub jain: Option<f64>,
    /// N = λR.
    pub outstanding: Option<f64>,
}

/// The metrics of flow `flow`'s transfers (index `index` in `t`) arriving in [since, until).
pub fn summarize(t: &Transfers, index: u32, flow: &str, since: f64, until: f64) -> TransferSummary {
    let measured: Vec<usize> = (0..t.flow.len())
        .filter(|&i| t.flow[i] == index && t.arrival_s[i] >= since && t.arrival_s[i] < until)
        .collect();
    let done: Vec<(usize, f64)> = measured.iter().filter_map(|&i| t.finish_s[i].map(|f| (i, f))).collect();
    let arrivals = measured.len() as u64;
    let arrival_rate = if until > since { arrivals as f64 / (until - since) } else { 0.0 };
    let mut s = TransferSummary {
        flow: flow.to_string(),
        arrivals,
        finished: done.len() as u64,
        unfinished: arrivals - done.len() as u64,
        arrival_rate,
        response_s: None,
        elapsed_s: None,
        throughput_bps: None,
        power: None,
        jain: None,
        outstanding: None,
    };
    if done.is_empty() {
        return s;
    }
    let responses: Vec<f64> = done.iter().map(|&(i, f)| f - t.arrival_s[i]).collect();
    let r = responses.iter().sum::<f64>() / responses.len() as f64;
    let first = measured.iter().map(|&i| t.arrival_s[i]).fold(f64::INFINITY, f64::min);
    let last = done.iter().map(|&(_, f)| f).fold(f64::NEG_INFINITY, f64::max);
    let bytes: f64 = done.iter().map(|&(i, _)| t.bytes[i] as f64).sum();
    let theta = bytes / (last - first);
    let rates: Vec<f64> = done.iter().zip(&responses).map(|(&(i, _), r)| t.bytes[i] as f64 / r).collect();
    s.response_s = Some(r);
    s.elapsed_s = Some(last - first);
    s.throughput_bps = Some(theta);
    s.power = Some(theta / r);
    s.jain = jain(&rates);
    s.outstanding = Some(arrival_rate * r);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_transfers_by_hand() {
        // 100 KB arriving at 1.0 s and finishing at 1.5 s; 100 KB arriving at 1.2 s and
        // finishing at 2.0 s; a third before the warm-up's end and a fourth unfinished
        let t = Transfers {
            flow: vec![0, 0, 0, 0, 1],
            arrival_s: vec![0.5, 1.0, 1.2, 1.9, 1.1],
            finish_s: vec![Some(0.6), Some(1.5), Some(2.0), None, Some(1.3)],
            bytes: vec![100_000; 5],
            sent: vec![200; 5],
            retransmitted: vec![0; 5],
            most_open: 3,
            ..Default::default()
        };
        let s = summarize(&t, 0, "files", 1.0, 2.0);
        assert_eq!((s.arrivals, s.finished, s.unfinished), (3, 2, 1));
        // R = (0.5 + 0.8) / 2 = 0.65 s; T = 2.0 − 1.0 = 1 s; Θ = 200,000 B / 1 s;
        // P = 200,000 / 0.65 = 307,692.3 B/s²; λ = 3 / 1 s, N = 3 · 0.65 = 1.95
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-9 * b.max(1.0);
        assert!(close(s.response_s, 0.65), "{s:?}");
        assert!(close(s.elapsed_s, 1.0));
        assert!(close(s.throughput_bps, 200_000.0));
        assert!(close(s.power, 200_000.0 / 0.65));
        assert!(close(s.outstanding, 1.95));
        // throughputs 200,000 and 125,000 B/s: (325,000)² / (2 · (200,000² + 125,000²))
        assert!(close(s.jain, 325_000f64.powi(2) / (2.0 * (200_000f64.powi(2) + 125_000f64.powi(2)))));
        let none = summarize(&t, 0, "files", 5.0, 6.0);
        assert_eq!((none.arrivals, none.response_s, none.power), (0, None, None));
        // open: 1 at 0.5 s, 0 at 0.6, then 1, 2, 3 at 1.0, 1.1 and 1.2, down to 2 at 1.3
        assert_eq!(t.open_at_most(), t.most_open);
    }

    #[test]
    fn a_transfer_that_finishes_at_an_instant_is_out_before_one_that_arrives_at_it() {
        let t = Transfers {
            arrival_s: vec![0.0, 1.0, 1.0],
            finish_s: vec![Some(1.0), Some(2.0), None],
            ..Default::default()
        };
        assert_eq!(t.open_at_most(), 2);
    }
}
