//! Queueing delay statistics: mean, quantiles, maximum and jitter of a stream of delays, kept
//! per port (the sojourn of each packet the line takes) and per flow (the queueing delay of each
//! delivered data packet, summed over the ports it crossed). docs/decisions.md, "Queueing delay".
//!
//! Sources:
//! - the histogram is the log-linear layout of Gil Tene's HdrHistogram
//!   (<https://github.com/HdrHistogram/HdrHistogram>, "High Dynamic Range Histogram"): a value's
//!   bucket is the position of its leading one bit and the `K` bits after it, so every bucket is
//!   at most 2^-K of its lower bound wide;
//! - jitter follows RFC 3550 §6.4.1's interarrival jitter, the difference D(i−1, i) of the
//!   transit times of consecutive packets, taken as a plain mean of |D| instead of RFC 3550's
//!   running estimate J += (|D| − J)/16.
//!
//! Choices:
//! - values are integer nanoseconds and the histogram uses integer operations only, so results
//!   are deterministic and identical on every machine;
//! - `K` = 7: 128 buckets per power of two. A quantile is reported as the midpoint of its bucket,
//!   clamped to the exact maximum, hence within 2^-(K+1) = 1/256 (0.39 %) of the sample value of
//!   that rank (nearest-rank definition); values below 128 ns are exact. 0.4 % is well below
//!   what separates runs of different seeds, and a power of two costs 256 bytes;
//! - buckets are allocated one power of two (128 counters) at a time, when a value first falls
//!   in it, in one allocation whose blocks a table inside the histogram finds; samples of 0 are
//!   a plain count beside the blocks: a port that never queues holds no block, a port whose
//!   sojourns span 1 µs to 1 s about 21, and no port more than 58 (every power of two of a
//!   `u64`);
//! - counters are 16 bits, and a counter that wraps adds one to a carry kept beside the blocks:
//!   a bucket's count is its carries times 2^16 plus its counter. One run holds a histogram per
//!   port and per flow, and at 100,000 flows 64-bit counters took 1.3 GB; most buckets count a
//!   few thousand samples, so the carries are rare and their list short;
//! - a histogram's first samples above 0 take no block and no memory outside the histogram:
//!   up to `FEW_BUCKETS` buckets and `FEW_SAMPLES` samples are counted in a sorted list of
//!   4-byte entries kept in the 64 bytes that hold the index of blocks later, and move into
//!   blocks when either is passed. A short run of a large fabric leaves most ports a handful of
//!   samples, often in as many powers of two (at k = 16 over 20 µs, a sixth of the ports: 9
//!   samples in 4 blocks, 1 kB). At the end of a k = 64 run of 20 µs all of the 154,906 ports
//!   that had queued were still in their list, which as a `Vec` of 16-byte entries held 27.6 MB
//!   (docs/performance.md). A busy histogram pays the list's search for its first 64 samples
//!   only, and the quantiles are those of the blocks, bucket for bucket;
//! - mean and maximum are exact (a sum and a maximum); the jitter is the exact mean of
//!   |D_i − D_{i−1}| over consecutive samples (samples − 1 pairs).

use serde::Serialize;

/// Bits of a value kept after its leading one: the histogram's relative precision is 2^-K.
pub const K: u32 = 7;
const SUB: usize = 1 << K;
/// The most blocks of `SUB` buckets a histogram holds: block 0 holds the values below 2^K
/// exactly, block b ≥ 1 the values with their leading one at bit K + b − 1.
pub const MAX_BLOCKS: usize = 64 - K as usize + 1;

/// Bytes of a histogram's table: its index of blocks (a byte per block) once it has blocks, and
/// its list of the first samples' buckets (4 bytes per bucket) before.
const TABLE: usize = 64;
/// The most buckets above 0 a histogram counts in its list before it takes blocks: as many as
/// the table holds.
const FEW_BUCKETS: usize = TABLE / 4;
/// The most samples above 0 it counts there: past them the blocks' counting is faster.
const FEW_SAMPLES: u64 = 64;
const _: () = assert!(MAX_BLOCKS <= TABLE && FEW_SAMPLES < 1 << 16);

/// The bound on a quantile's relative error (midpoint of a bucket at most 2^-K wide).
pub const RELATIVE_ERROR: f64 = 1.0 / (2 * SUB) as f64;

/// A log-linear histogram of `u64` values (HdrHistogram's layout), allocated lazily.
#[derive(Clone, Debug)]
pub struct LogHistogram {
    /// With blocks: byte b is where block b is in `blocks`, plus one (0: it has none yet). Kept
    /// in the histogram itself, so that a record finds its counter with one load from elsewhere,
    /// not two: at k = 16 the ports' separate lists of blocks were a cache miss on most hops
    /// (docs/performance.md). Without blocks: the first samples' list (`few`).
    table: [u8; TABLE],
    /// The blocks in the order they were first needed, in one allocation grown a block at a time.
    blocks: Vec<[u16; SUB]>,
    /// The buckets whose counter wrapped, and how often it did, sorted by `(block, bucket)`.
    carries: Vec<((u8, u8), u64)>,
    /// The samples of 0, counted here and not in a block: most of a lightly loaded port's
    /// sojourns, which so touch no memory outside the histogram itself (at 10,000 flows the
    /// blocks of the access lines were cache misses on nearly every hop).
    zeros: u64,
    count: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram { table: [0; TABLE], blocks: vec![], carries: vec![], zeros: 0, count: 0 }
    }
}

/// Entry `k` of the first samples' list in `table`: the 4 bytes at 4k, `key << 16 | count`
/// with `key` = block << K | bucket. Entries are sorted by key and each counts at least one
/// sample, so the first entry of 0 ends the list (the bucket of 0 itself is never in it).
fn few_entry(table: &[u8; TABLE], k: usize) -> u32 {
    u32::from_le_bytes([table[4 * k], table[4 * k + 1], table[4 * k + 2], table[4 * k + 3]])
}

fn set_few_entry(table: &mut [u8; TABLE], k: usize, entry: u32) {
    table[4 * k..4 * k + 4].copy_from_slice(&entry.to_le_bytes());
}

/// The list's buckets `((block, bucket), count)`, in order.
fn few_buckets(table: &[u8; TABLE]) -> impl Iterator<Item = ((usize, usize), u64)> + '_ {
    (0..FEW_BUCKETS).map(|k| few_entry(table, k)).take_while(|&e| e != 0).map(|e| {
        let key = (e >> 16) as usize;
        ((key >> K, key & (SUB - 1)), (e & 0xffff) as u64)
    })
}

/// Block and bucket of `v`: the K bits after its leading one, or below 2^K (block 0) the value.
/// (A branchless form, `v | 2^K` for the leading bit, ran as many instructions and mispredicted
/// more under cachegrind's model.)
#[inline]
fn bucket(v: u64) -> (usize, usize) {
    if v < SUB as u64 {
        return (0, v as usize);
    }
    let shift = 63 - v.leading_zeros() - K;
    ((shift + 1) as usize, (v >> shift) as usize & (SUB - 1))
}

/// Lowest value and width of bucket `i` of block `b`.
fn bucket_range(b: usize, i: usize) -> (u64, u64) {
    if b == 0 {
        (i as u64, 1)
    } else {
        (((SUB + i) as u64) << (b - 1), 1u64 << (b - 1))
    }
}

impl LogHistogram {
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.count += 1;
        if v == 0 {
            self.zeros += 1;
            return;
        }
        let (b, i) = bucket(v);
        // without blocks the table is the first samples' list, whose bytes find no block either
        match self.blocks.get_mut((self.table[b] as usize).wrapping_sub(1)) {
            Some(block) => {
                let counter = &mut block[i];
                *counter = counter.wrapping_add(1);
                if *counter == 0 {
                    self.carry(b, i);
                }
            }
            None => self.record_new_block(b, i),
        }
    }

    /// A sample in a block not yet made: counted in the first samples' list while the histogram
    /// has no blocks and stays within it, else in a new block.
    #[cold]
    #[inline(never)]
    fn record_new_block(&mut self, b: usize, i: usize) {
        if !self.blocks.is_empty() {
            return self.add_to_block(b, i, 1);
        }
        let key = (b << K | i) as u32;
        let len = few_buckets(&self.table).count();
        let at = (0..len).find(|&k| few_entry(&self.table, k) >> 16 >= key).unwrap_or(len);
        let found = at < len && few_entry(&self.table, at) >> 16 == key;
        if self.count - self.zeros <= FEW_SAMPLES {
            if found {
                let entry = few_entry(&self.table, at);
                return set_few_entry(&mut self.table, at, entry + 1);
            }
            if len < FEW_BUCKETS {
                self.table.copy_within(4 * at..4 * len, 4 * at + 4);
                return set_few_entry(&mut self.table, at, key << 16 | 1);
            }
        }
        // the list moves into blocks, and the table becomes their index; every count is at
        // most FEW_SAMPLES + 1, well within a counter: no carries yet
        let few = std::mem::replace(&mut self.table, [0; TABLE]);
        for ((b, i), n) in few_buckets(&few) {
            self.add_to_block(b, i, n as u16);
        }
        self.add_to_block(b, i, 1);
    }

    /// Adds `n` to bucket `i` of block `b`, making the block if it has none.
    fn add_to_block(&mut self, b: usize, i: usize, n: u16) {
        if self.table[b] == 0 {
            // exactly one block more: a histogram spans a few powers of two, and thousands are kept
            self.blocks.reserve_exact(1);
            self.blocks.push([0; SUB]);
            self.table[b] = self.blocks.len() as u8;
        }
        self.blocks[self.table[b] as usize - 1][i] += n;
    }

    /// Bucket `i` of block `b` counted its 2^16-th sample since it last wrapped.
    #[cold]
    #[inline(never)]
    fn carry(&mut self, b: usize, i: usize) {
        match self.carry_index(b, i) {
            Ok(at) => self.carries[at].1 += 1,
            Err(at) => self.carries.insert(at, ((b as u8, i as u8), 1)),
        }
    }

    /// Where bucket `i` of block `b` is in `carries`, or where it would go.
    fn carry_index(&self, b: usize, i: usize) -> Result<usize, usize> {
        self.carries.binary_search_by_key(&(b as u8, i as u8), |&(k, _)| k)
    }

    /// The samples in bucket `i` of block `b`.
    fn bucket_count(&self, b: usize, i: usize, counter: u16) -> u64 {
        let wraps = self.carry_index(b, i).map_or(0, |at| self.carries[at].1);
        (wraps << 16) + counter as u64
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Bytes of blocks allocated (the first samples' list is inside the histogram).
    pub fn allocated_bytes(&self) -> usize {
        self.blocks.len() * std::mem::size_of::<[u16; SUB]>()
    }

    /// The first samples' buckets and counts, while the histogram has no blocks.
    fn few(&self) -> impl Iterator<Item = ((usize, usize), u64)> + '_ {
        let list = if self.blocks.is_empty() { FEW_BUCKETS } else { 0 };
        few_buckets(&self.table).take(list)
    }

    /// The value of rank ⌈q·n⌉ (at least 1; nearest rank), as the midpoint of its bucket: within
    /// `RELATIVE_ERROR` of the exact one. `None` without values or for `q` outside [0, 1].
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.count == 0 || !(0.0..=1.0).contains(&q) {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = self.zeros;
        if seen >= rank {
            return Some(0);
        }
        let midpoint = |b: usize, i: usize| {
            let (low, width) = bucket_range(b, i);
            low + (width - 1) / 2
        };
        for ((b, i), n) in self.few() {
            seen += n;
            if seen >= rank {
                return Some(midpoint(b, i));
            }
        }
        let index = if self.blocks.is_empty() { &[][..] } else { &self.table[..MAX_BLOCKS] };
        for (b, &at) in index.iter().enumerate().filter(|&(_, &at)| at > 0) {
            for (i, &n) in self.blocks[at as usize - 1].iter().enumerate() {
                seen += self.bucket_count(b, i, n);
                if seen >= rank {
                    return Some(midpoint(b, i));
                }
            }
        }
        None // unreachable: the counts add up to `count`
    }
}

/// The delays of a stream of packets: exact count, sum, maximum and jitter, and a histogram for
/// quantiles.
#[derive(Clone, Debug, Default)]
pub struct DelayStats {
    sum_ns: u128,
    max_ns: u64,
    jitter_sum_ns: u128,
    last_ns: u64,
    hist: LogHistogram,
}

impl DelayStats {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        if self.hist.count > 0 {
            self.jitter_sum_ns += ns.abs_diff(self.last_ns) as u128;
        }
        self.last_ns = ns;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
        self.hist.record(ns);
    }

    /// Forgets every sample (at the end of the warm-up).
    pub fn clear(&mut self) {
        *self = DelayStats::default();
    }

    pub fn count(&self) -> u64 {
        self.hist.count
    }

    pub fn histogram(&self) -> &LogHistogram {
        &self.hist
    }

    /// The figures of the report, in seconds.
    pub fn summary(&self) -> DelaySummary {
        let n = self.hist.count;
        let secs = |ns: u64| ns as f64 / 1e9;
        // the exact maximum bounds the top bucket's midpoint
        let quantile = |q: f64| self.hist.quantile(q).map(|v| secs(v.min(self.max_ns)));
        DelaySummary {
            samples: n,
            mean_s: (n > 0).then(|| self.sum_ns as f64 / n as f64 / 1e9),
            p50_s: quantile(0.5),
            p95_s: quantile(0.95),
            p99_s: quantile(0.99),
            max_s: (n > 0).then(|| secs(self.max_ns)),
            jitter_s: (n > 1).then(|| self.jitter_sum_ns as f64 / (n - 1) as f64 / 1e9),
        }
    }
}

impl DelayStats {
    /// As after `n` samples of 0.
    fn zeros(n: u64) -> DelayStats {
        let hist = LogHistogram { zeros: n, count: n, ..LogHistogram::default() };
        DelayStats { hist, ..DelayStats::default() }
    }
}

/// `DelayStats` made at the first sample above 0, a count of the samples of 0 until then: a
/// port's sojourns (`PortStats`). Inline, they took 176 of each of a k = 64 fat-tree's 393,216
/// ports' 688 bytes, and at the peak of its 20 µs run only 110,000 ports had queued; behind a
/// pointer from the start, every port would pay its allocation. A busy port pays one load more
/// per packet.
#[derive(Clone, Debug, Default)]
pub struct LazyDelayStats {
    zeros: u64,
    made: Option<Box<DelayStats>>,
}

impl LazyDelayStats {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        match &mut self.made {
            Some(stats) => stats.record(ns),
            None if ns == 0 => self.zeros += 1,
            None => self.first_above_zero(ns),
        }
    }

    #[cold]
    #[inline(never)]
    fn first_above_zero(&mut self, ns: u64) {
        let mut stats = DelayStats::zeros(self.zeros);
        stats.record(ns);
        self.made = Some(Box::new(stats));
    }

    /// Forgets every sample (at the end of the warm-up).
    pub fn clear(&mut self) {
        *self = LazyDelayStats::default();
    }

    pub fn count(&self) -> u64 {
        self.made.as_ref().map_or(self.zeros, |s| s.count())
    }

    pub fn summary(&self) -> DelaySummary {
        match &self.made {
            Some(stats) => stats.summary(),
            None => DelayStats::zeros(self.zeros).summary(),
        }
    }
}

/// Queueing delay over the measurement intervals (docs/results.md): `null` figures without
/// samples (jitter: with fewer than two).
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct DelaySummary {
    pub samples: u64,
    pub mean_s: Option<f64>,
    pub p50_s: Option<f64>,
    pub p95_s: Option<f64>,
    pub p99_s: Option<f64>,
    pub max_s: Option<f64>,
    /// Mean |D_i − D_{i−1}| over consecutive samples (RFC 3550 §6.4.1 without smoothing).
    pub jitter_s: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn lazy_stats_are_the_stats_of_the_same_samples() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for zeros_first in [0, 1, 5, 300] {
            let mut samples = vec![0; zeros_first];
            samples.extend((0..200).map(|_| if rng.random_bool(0.5) { 0 } else { rng.random_range(1..10_000_000) }));
            for upto in [0, zeros_first, zeros_first + 1, samples.len()] {
                let (mut lazy, mut eager) = (LazyDelayStats::default(), DelayStats::default());
                for &ns in &samples[..upto] {
                    lazy.record(ns);
                    eager.record(ns);
                }
                assert_eq!(lazy.summary(), eager.summary(), "{zeros_first} zeros first, {upto} samples");
                assert_eq!(lazy.count(), eager.count());
                assert_eq!(lazy.made.is_some(), samples[..upto].iter().any(|&ns| ns > 0), "made at the first above 0");
            }
        }
        let mut cleared = LazyDelayStats::default();
        [0, 5, 0].iter().for_each(|&ns| cleared.record(ns));
        cleared.clear();
        assert_eq!((cleared.count(), cleared.summary()), (0, DelayStats::default().summary()));
    }

    /// The exact nearest-rank quantile of `xs` (sorted).
    fn exact(xs: &[u64], q: f64) -> u64 {
        let rank = ((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
        xs[rank - 1]
    }

    fn check(xs: &[u64]) {
        let mut h = LogHistogram::default();
        xs.iter().for_each(|&x| h.record(x));
        let mut sorted = xs.to_vec();
        sorted.sort_unstable();
        for q in [0.0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0] {
            let (est, ex) = (h.quantile(q).unwrap(), exact(&sorted, q));
            let err = est.abs_diff(ex) as f64;
            assert!(err <= ex as f64 * RELATIVE_ERROR, "q {q}: {est} against {ex}");
        }
    }

    #[test]
    fn quantiles_within_the_bound_on_random_data() {
        let mut rng = ChaCha8Rng::seed_from_u64(29);
        // exponential-ish spread over many powers of two, with many zeros (an idle line)
        let xs: Vec<u64> = (0..100_000)
            .map(|_| if rng.random_bool(0.3) { 0 } else { (rng.random::<f64>().powi(4) * 2e9) as u64 })
            .collect();
        check(&xs);
        let uniform: Vec<u64> = (0..50_000).map(|_| rng.random_range(0..5_000_000)).collect();
        check(&uniform);
        check(&[u64::MAX, 0, 1, 127, 128, 129, 255, 256, 1 << 40]);
    }

    #[test]
    fn small_values_are_exact_and_memory_is_lazy() {
        let mut h = LogHistogram::default();
        assert_eq!(h.quantile(0.5), None);
        assert_eq!(h.allocated_bytes(), 0);
        (0..1000).for_each(|_| h.record(0));
        assert_eq!(h.allocated_bytes(), 0, "zeros take no block");
        assert_eq!((h.quantile(0.0), h.quantile(1.0)), (Some(0), Some(0)));
        h = LogHistogram::default();
        (0..128).for_each(|v| h.record(v));
        assert_eq!(h.quantile(0.5), Some(63));
        assert_eq!(h.quantile(1.0), Some(127));
        assert_eq!(h.allocated_bytes(), 256);
        h.record(u64::MAX);
        assert_eq!(h.allocated_bytes(), 512);
        assert_eq!(h.quantile(2.0), None);
    }

    #[test]
    fn counts_past_a_counters_width_carry() {
        // 200,000 samples in one bucket (three wraps of a 16-bit counter) and 70,000 in another:
        // the median and the 99th percentile fall on either side of the border between them
        let mut h = LogHistogram::default();
        (0..200_000).for_each(|_| h.record(5));
        (0..70_000).for_each(|_| h.record(1_000_000));
        h.record(7);
        assert_eq!(h.count(), 270_001);
        assert_eq!(h.carries.len(), 2);
        assert_eq!(h.quantile(200_000.0 / 270_001.0), Some(5));
        assert_eq!(h.quantile(200_001.0 / 270_001.0), Some(7));
        assert_eq!(h.quantile(0.99), h.quantile(1.0));
        let (low, width) = bucket_range(bucket(1_000_000).0, bucket(1_000_000).1);
        assert_eq!(h.quantile(0.99), Some(low + (width - 1) / 2));
    }

    /// The quantile the 64-bit counting of `wide` gives: the midpoint of the bucket of rank
    /// ⌈q·n⌉.
    fn wide_quantile(wide: &std::collections::BTreeMap<(usize, usize), u64>, q: f64) -> Option<u64> {
        let total: u64 = wide.values().sum();
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        wide.iter().find_map(|(&(b, i), &n)| {
            seen += n;
            (seen >= rank).then(|| bucket_range(b, i)).map(|(low, width)| low + (width - 1) / 2)
        })
    }

    proptest::proptest! {
        /// Any sequence of values, including long runs in one bucket, gives the quantiles of the
        /// 64-bit counting it replaces.
        #[test]
        fn narrow_counters_count_as_wide_ones(runs in proptest::collection::vec((0u64..1 << 40, 1u32..140_000), 1..6)) {
            let mut h = LogHistogram::default();
            let mut wide = std::collections::BTreeMap::<(usize, usize), u64>::new();
            for &(v, n) in &runs {
                for _ in 0..n {
                    h.record(v);
                }
                *wide.entry(bucket(v)).or_default() += n as u64;
            }
            for q in [0.0, 0.1, 0.5, 0.9, 0.99, 1.0] {
                proptest::prop_assert_eq!(h.quantile(q), wide_quantile(&wide, q));
            }
        }

        /// A histogram's first samples, in its short list and as they move into blocks, give the
        /// same quantiles: every short sequence, over few buckets or many.
        #[test]
        fn few_samples_count_as_wide_ones(values in proptest::collection::vec(
            proptest::prop_oneof![proptest::strategy::Just(0u64), 1u64..6, 1_000u64..1_010, 0u64..1 << 40], 1..150)) {
            let mut h = LogHistogram::default();
            let mut wide = std::collections::BTreeMap::<(usize, usize), u64>::new();
            for &v in &values {
                h.record(v);
                if v > 0 {
                    *wide.entry(bucket(v)).or_default() += 1;
                }
            }
            let zeros = values.iter().filter(|&&v| v == 0).count() as u64;
            if zeros > 0 {
                *wide.entry((0, 0)).or_default() += zeros;
            }
            for q in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0] {
                proptest::prop_assert_eq!(h.quantile(q), wide_quantile(&wide, q));
            }
        }
    }

    #[test]
    fn a_few_samples_take_no_block() {
        let mut h = LogHistogram::default();
        // 1,200 and 1,203 share a bucket (1,200 to 1,207): three buckets above 0
        for v in [0, 1_200, 2_400, 1_203, 0, 3_600] {
            h.record(v);
        }
        assert_eq!((h.blocks.len(), h.few().count(), h.allocated_bytes()), (0, 3, 0), "three buckets in the list");
        assert_eq!(h.few().map(|(_, n)| n).collect::<Vec<_>>(), [2, 1, 1], "in order of value");
        assert_eq!(h.quantile(0.5), Some(1_203), "rank 3 of 6: the bucket's midpoint");
        assert_eq!((h.quantile(0.0), h.quantile(1.0)), (Some(0), Some(3_600 + 7)), "3,600 to 3,615");
        // buckets up to FEW_BUCKETS fit (values 1, 2, ... are buckets of their own); one more
        // moves all into blocks
        (1..=(FEW_BUCKETS - 3) as u64).for_each(|v| h.record(v));
        assert_eq!((h.blocks.len(), h.few().count()), (0, FEW_BUCKETS));
        h.record(u64::MAX);
        assert_eq!((h.blocks.len(), h.few().count(), h.carries.len(), h.count()), (4, 0, 0, 20));
        // 0, 0, 1 to 13, 1,200, 1,203, 2,400, 3,600, 2^64 − 1: ranks 10 and 16
        assert_eq!((h.quantile(0.5), h.quantile(0.8)), (Some(8), Some(1_203)));
        // one bucket takes its block at its 65th sample above 0
        let mut h = LogHistogram::default();
        (0..64).for_each(|_| h.record(7));
        assert_eq!((h.blocks.len(), h.few().collect::<Vec<_>>()), (0, vec![((0, 7), 64)]));
        h.record(7);
        assert_eq!((h.blocks.len(), h.blocks[0][7], h.few().count()), (1, 65, 0));
    }

    #[test]
    fn the_list_is_inside_the_histogram() {
        // the table holds the index of every block a u64 can need, or 16 buckets of the list
        assert_eq!((std::mem::size_of::<LogHistogram>(), std::mem::size_of::<DelayStats>()), (128, 176));
        // inserting in front, in the middle and at the end keeps the list sorted
        let mut h = LogHistogram::default();
        for v in [5_000, 3, 1 << 30, 200, 3, 1 << 30] {
            h.record(v);
        }
        let values: Vec<_> = h.few().map(|((b, i), n)| (bucket_range(b, i).0, n)).collect();
        assert_eq!(values, [(3, 2), (200, 1), (4_992, 1), (1 << 30, 2)]);
    }

    #[test]
    fn every_bucket_is_narrow() {
        let mut seen = std::collections::HashSet::new();
        for v in (0..5000u64).chain([123_456_789, u64::MAX / 3, u64::MAX - 1, u64::MAX]) {
            let (b, i) = bucket(v);
            let (low, width) = bucket_range(b, i);
            assert!(low <= v && v - low < width, "{v}");
            assert!(b < MAX_BLOCKS);
            assert!(b == 0 || width as f64 <= low as f64 / SUB as f64, "{v}");
            seen.insert((b, i));
        }
        // 0..5000: 128 exact values, then 128 buckets per power of two up to 4096, and 4096..5000
        assert_eq!(seen.len(), 128 + 5 * 128 + (5000 - 4096) / 32 + 1 + 3);
    }

    #[test]
    fn summary_is_exact_where_it_can_be() {
        let mut d = DelayStats::default();
        assert_eq!(d.summary(), DelaySummary::default());
        for ns in [1_000_000, 3_000_000, 2_000_000] {
            d.record(ns);
        }
        let s = d.summary();
        assert_eq!(s.samples, 3);
        assert!((s.mean_s.unwrap() - 0.002).abs() < 1e-15);
        assert_eq!(s.max_s, Some(0.003));
        // |3 − 1| + |2 − 3| over two pairs
        assert!((s.jitter_s.unwrap() - 0.0015).abs() < 1e-15);
        assert!((s.p50_s.unwrap() - 0.002).abs() <= 0.002 * RELATIVE_ERROR);
        assert_eq!(s.p99_s, Some(0.003), "the top bucket is clamped to the exact maximum");
        d.clear();
        assert_eq!(d.count(), 0);
    }
}
