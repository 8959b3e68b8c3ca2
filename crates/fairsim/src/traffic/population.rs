//! Open populations: which connections arrive, when, between which hosts and with how much to
//! send. A `files` flow is the simplest (Poisson arrivals, one size, the flow's own ends); a
//! data-centre workload (`[workloads]`, docs/workloads.md) draws each connection's hosts and its
//! size from a distribution, or starts a batch of them at once (permutation, incast,
//! all-to-all), or lists them (an htsim connection matrix).
//!
//! Flow sizes follow a CDF read by linear interpolation between its points, as HPCC's and
//! Homa's generators read theirs (a point repeated at two probabilities is a mass there). The
//! built-in distributions are pFabric's (Alizadeh et al., SIGCOMM 2013, §5), in packets of 1460
//! payload bytes as the PIAS simulations ship them (HKUST-SING/PIAS-NS2, `scripts/CDF_dctcp.tcl`
//! and `scripts/CDF_vl2.tcl`):
//! - `websearch`: the web-search cluster measured for DCTCP (Alizadeh et al., SIGCOMM 2010);
//! - `datamining`: the data-mining cluster measured for VL2 (Greenberg et al., SIGCOMM 2009).

use crate::net::NodeId;
use crate::rng::SimRng;
use crate::units::Time;
use rand::Rng;
use std::sync::Arc;

/// An open population's connections.
#[derive(Debug, Clone)]
pub enum Population {
    /// Connections arriving as a Poisson process of `per_second`, each between `ends`.
    Poisson { per_second: f64, ends: Ends, sizes: Sizes },
    /// A batch of connections all arriving at the flow's start, between the pairs `pairs`
    /// gives for the run.
    Batch { pairs: Pairs, sizes: Sizes },
    /// Connections at listed instants (from the flow's start), each with its ends and size.
    Listed(Arc<[Listed]>),
}

impl Population {
    /// Whether its connections run between hosts it draws or lists, not the flow's own ends.
    pub fn draws_ends(&self) -> bool {
        !matches!(self, Population::Poisson { ends: Ends::Flow, .. })
    }
}

/// Between which hosts a Poisson arrival's connection runs.
#[derive(Debug, Clone)]
pub enum Ends {
    /// The flow's own source and destination (`files`).
    Flow,
    /// A source drawn uniformly from the hosts, then a destination uniformly from the others:
    /// the superposition of one Poisson process per host with destinations uniform over the
    /// others (HPCC's traffic generator's, at the total rate).
    Uniform(Arc<[NodeId]>),
}

/// The pairs of a batch.
#[derive(Debug, Clone)]
pub enum Pairs {
    /// Each host sends to another, every host receiving once: a random derangement drawn for
    /// each run (htsim's permutation, which it draws for each run too).
    Permutation(Arc<[NodeId]>),
    /// Every host to every other, in host order.
    AllToAll(Arc<[NodeId]>),
    /// Each sender to the one receiver, in the senders' order.
    Incast { senders: Arc<[NodeId]>, receiver: NodeId },
}

/// One listed connection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Listed {
    /// After the flow's start.
    pub at: Time,
    pub src: NodeId,
    pub dst: NodeId,
    /// Its file, packets; `None`: without end.
    pub packets: Option<u64>,
}

/// How much a connection sends.
#[derive(Debug, Clone)]
pub enum Sizes {
    /// Every file this many packets (`None`: without end, an htsim permutation's `size 0`).
    Packets(Option<u64>),
    /// A size in bytes drawn from the CDF, sent in packets of `payload` bytes (the last one
    /// full too, as a `files` transfer's), at least one.
    Cdf { cdf: Arc<SizeCdf>, payload: u32 },
}

impl Sizes {
    /// A connection's file, packets, drawn from `rng` if the sizes are a distribution.
    pub fn draw(&self, rng: &mut SimRng) -> Option<u64> {
        match self {
            Sizes::Packets(n) => *n,
            Sizes::Cdf { cdf, payload } => Some(cdf.draw(rng).div_ceil(*payload as u64).max(1)),
        }
    }
}

/// A flow-size distribution: points (bytes, cumulative probability), sizes and probabilities
/// both non-decreasing, the last probability 1.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeCdf {
    points: Vec<(f64, f64)>,
}

/// pFabric's web-search distribution: (packets of 1460 bytes, cumulative probability).
const WEBSEARCH: &[(f64, f64)] = &[
    (6.0, 0.0),
    (6.0, 0.15),
    (13.0, 0.2),
    (19.0, 0.3),
    (33.0, 0.4),
    (53.0, 0.53),
    (133.0, 0.6),
    (667.0, 0.7),
    (1333.0, 0.8),
    (3333.0, 0.9),
    (6667.0, 0.97),
    (20000.0, 1.0),
];

/// pFabric's data-mining distribution, likewise.
const DATAMINING: &[(f64, f64)] = &[
    (1.0, 0.0),
    (1.0, 0.5),
    (2.0, 0.6),
    (3.0, 0.7),
    (7.0, 0.8),
    (267.0, 0.9),
    (2107.0, 0.95),
    (66667.0, 0.99),
    (666667.0, 1.0),
];

/// The payload bytes of the built-in tables' packets.
const TABLE_PACKET: f64 = 1460.0;

/// The names of the built-in distributions.
pub const BUILT_IN: [&str; 2] = ["websearch", "datamining"];

impl SizeCdf {
    /// The built-in distribution called `name`.
    pub fn built_in(name: &str) -> Option<SizeCdf> {
        let table = match name {
            "websearch" => WEBSEARCH,
            "datamining" => DATAMINING,
            _ => return None,
        };
        Some(SizeCdf { points: table.iter().map(|&(p, c)| (p * TABLE_PACKET, c)).collect() })
    }

    /// A distribution from its points; the message says what is wrong with them.
    pub fn new(points: Vec<(f64, f64)>) -> Result<SizeCdf, String> {
        SizeCdf::checked(points).map_err(|(_, message)| message)
    }

    /// A distribution from its points, or what is wrong and the index of the point at fault.
    fn checked(points: Vec<(f64, f64)>) -> Result<SizeCdf, (Option<usize>, String)> {
        let Some(&(_, last)) = points.last() else {
            return Err((None, "a distribution needs at least one point".into()));
        };
        if let Some(i) = points.iter().position(|(s, c)| !(s.is_finite() && *s >= 0.0 && (0.0..=1.0).contains(c))) {
            let (s, c) = points[i];
            return Err((Some(i), format!("({s}, {c}): sizes are bytes (0 or more), probabilities 0 to 1")));
        }
        if let Some(i) = points.windows(2).position(|w| w[1].0 < w[0].0 || w[1].1 < w[0].1) {
            let (a, b) = (points[i], points[i + 1]);
            let message =
                format!("({}, {}) after ({}, {}): sizes and probabilities must not decrease", b.0, b.1, a.0, a.1);
            return Err((Some(i + 1), message));
        }
        if last != 1.0 {
            return Err((Some(points.len() - 1), format!("the last probability is {last}, not 1")));
        }
        Ok(SizeCdf { points })
    }

    /// Reads a distribution file: a line per point, `bytes probability`, `#` starting a comment;
    /// a message naming the line if it is wrong.
    pub fn parse(text: &str) -> Result<SizeCdf, String> {
        let (mut points, mut lines) = (vec![], vec![]);
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let point = match fields[..] {
                [s, c] => s.parse::<f64>().ok().zip(c.parse::<f64>().ok()),
                _ => None,
            };
            let Some(point) = point else {
                return Err(format!("line {}: expected `bytes probability`, found `{line}`", n + 1));
            };
            points.push(point);
            lines.push(n + 1);
        }
        SizeCdf::checked(points).map_err(|(at, message)| match at {
            Some(i) => format!("line {}: {message}", lines[i]),
            None => message,
        })
    }

    /// The mean size, bytes, of the distribution as drawn (linear between points).
    pub fn mean(&self) -> f64 {
        let first = self.points[0];
        let masses = first.0 * first.1;
        masses + self.points.windows(2).map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0).sum::<f64>()
    }

    /// A size, bytes: the inverse of the CDF at a uniform draw, linear between points (the
    /// first point's probability is a mass at its size).
    pub fn draw(&self, rng: &mut SimRng) -> u64 {
        let u: f64 = rng.random();
        let i = self.points.partition_point(|&(_, c)| c <= u);
        let size = match i {
            0 => self.points[0].0,
            i if i == self.points.len() => self.points[i - 1].0,
            i => {
                let ((s0, c0), (s1, c1)) = (self.points[i - 1], self.points[i]);
                s0 + (u - c0) / (c1 - c0) * (s1 - s0)
            }
        };
        size.round() as u64
    }
}

/// A random derangement of `hosts` (no host sends to itself): each host's destination, drawn
/// by Sattolo's algorithm (a uniformly random cyclic permutation, which has no fixed point).
pub fn derangement(hosts: &[NodeId], rng: &mut SimRng) -> Vec<(NodeId, NodeId)> {
    let mut to: Vec<NodeId> = hosts.to_vec();
    for i in (1..to.len()).rev() {
        let j = rng.random_range(0..i);
        to.swap(i, j);
    }
    hosts.iter().copied().zip(to).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_means_are_the_published_ones() {
        // PIAS's scripts use meanFlowSize = 1138 · 1460 (web search) and 5117 · 1460 (data
        // mining); linear interpolation of the tables gives 1,140.98 and 5,116.6 packets
        let web = SizeCdf::built_in("websearch").unwrap().mean() / TABLE_PACKET;
        let mining = SizeCdf::built_in("datamining").unwrap().mean() / TABLE_PACKET;
        assert!((web - 1140.98).abs() < 0.01, "{web}");
        assert!((mining - 5116.6).abs() < 0.1, "{mining}");
    }

    #[test]
    fn draws_follow_the_distribution_and_its_mean() {
        // 200,000 draws of each built-in: the CDF at each of its points within 0.5% (the standard
        // error is at most 0.11%), and the mean within four of its standard errors
        for name in BUILT_IN {
            let cdf = SizeCdf::built_in(name).unwrap();
            let mut rng = crate::rng::stream(1, "sizes");
            let draws: Vec<f64> = (0..200_000).map(|_| cdf.draw(&mut rng) as f64).collect();
            // a size given twice is a mass: the CDF there is the later probability
            let last_of_each_size =
                cdf.points.iter().enumerate().filter(|&(i, &(s, _))| cdf.points.get(i + 1).is_none_or(|n| n.0 != s));
            for (_, &(size, p)) in last_of_each_size {
                let below = draws.iter().filter(|&&d| d <= size).count() as f64 / draws.len() as f64;
                assert!((below - p).abs() < 0.005, "{name}: P(size <= {size}) = {below}, want {p}");
            }
            let n = draws.len() as f64;
            let mean = draws.iter().sum::<f64>() / n;
            let sd = (draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            assert!((mean - cdf.mean()).abs() < 4.0 * sd / n.sqrt(), "{name}: {mean} vs {}", cdf.mean());
        }
    }

    #[test]
    fn a_file_names_the_line_that_is_wrong() {
        assert_eq!(SizeCdf::parse("# bytes p\n100 0.5\n200 1\n").unwrap().mean(), 100.0 * 0.5 + 0.5 * 150.0);
        assert!(SizeCdf::parse("100 0.5\n200\n").unwrap_err().starts_with("line 2:"));
        // what is wrong with the points is named at its line, comments and blank lines counted
        let decreasing = SizeCdf::parse("# bytes p\n100 0.5\n\n50 1\n").unwrap_err();
        assert_eq!(decreasing, "line 4: (50, 1) after (100, 0.5): sizes and probabilities must not decrease");
        assert_eq!(SizeCdf::parse("100 0.5\n").unwrap_err(), "line 1: the last probability is 0.5, not 1");
        assert!(SizeCdf::parse("100 0.5\n-3 1\n").unwrap_err().starts_with("line 2: (-3, 1)"));
        assert_eq!(SizeCdf::parse("# nothing\n").unwrap_err(), "a distribution needs at least one point");
    }

    #[test]
    fn a_derangement_sends_each_host_to_another_and_each_receives_once() {
        let hosts: Vec<NodeId> = (0..16).map(NodeId).collect();
        let mut rng = crate::rng::stream(3, "perm");
        let pairs = derangement(&hosts, &mut rng);
        assert!(pairs.iter().all(|(s, d)| s != d));
        let mut dsts: Vec<u32> = pairs.iter().map(|(_, d)| d.0).collect();
        dsts.sort_unstable();
        assert_eq!(dsts, (0..16).collect::<Vec<_>>());
    }
}
