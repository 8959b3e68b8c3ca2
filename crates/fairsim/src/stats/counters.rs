//! Counters kept per flow and per port, one set per measurement interval.

use crate::units::Time;
use serde::Serialize;

/// What happened to one flow during one interval. Data packets and ACKs are counted apart.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct FlowCounters {
    /// Data packets put on the network by the source, retransmissions included.
    pub sent: u64,
    pub retransmitted: u64,
    /// Data packets reaching the sink, duplicates included (the 1989 paper's "throughput").
    pub delivered: u64,
    /// Data packets reaching the sink for the first time (the thesis's "throughput").
    pub delivered_unique: u64,
    pub bytes_delivered: u64,
    pub bytes_unique: u64,
    /// Payload bytes of the first copies: `bytes_unique` less the headers (the same without
    /// headers), what ns-3's PacketSink counts.
    pub payload_unique: u64,
    /// Data packets dropped in the network.
    pub dropped: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub acks_dropped: u64,
    /// One-way delay of delivered data packets, from leaving the source to reaching the sink
    /// (one sample per delivered packet).
    pub delay_sum_ns: u64,
    pub delay_max_ns: u64,
    /// Round-trip samples at the source: from sending a data packet to receiving its ACK.
    pub rtt_samples: u64,
    pub rtt_sum_ns: u64,
    pub rtt_max_ns: u64,
    /// Round trips from each data packet's *first* transmission to the ACK that first covers
    /// it, retransmission waits included (one sample per packet; the papers' round-trip time).
    pub rtt_first_samples: u64,
    pub rtt_first_sum_ns: u64,
    /// Retransmission timeouts and fast retransmits of the flow's sender.
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Retransmissions the receiver reported it already had (D-SACK, RFC 2883): sent in vain.
    pub spurious_retransmits: u64,
    /// Tail loss probes sent (RFC 8985 §7).
    pub loss_probes: u64,
    /// The sender gave up (`max_backoffs` expiries of its timer in a row): 0 or 1.
    pub abandoned: u64,
    /// Headers of trimmed data packets (`trim`) that reached the sink: the payload was lost.
    pub trimmed: u64,
    /// Pulls the sink sent (a receiver-driven transport, NDP).
    pub pulls: u64,
    /// Congestion notifications the sink sent (DCQCN's CNPs).
    pub cnps: u64,
    /// Time the sender was held back by the flow's own `window` (the receiver's window): full,
    /// with data waiting, while its congestion control would have sent more.
    pub window_limited_ns: u64,
}

impl FlowCounters {
    pub fn add_rtt(&mut self, rtt: Time) {
        self.rtt_samples += 1;
        self.rtt_sum_ns += rtt.0;
        self.rtt_max_ns = self.rtt_max_ns.max(rtt.0);
    }

    pub fn add_rtt_first(&mut self, rtt: Time) {
        self.rtt_first_samples += 1;
        self.rtt_first_sum_ns += rtt.0;
    }

    pub fn add_delay(&mut self, delay: Time) {
        self.delay_sum_ns += delay.0;
        self.delay_max_ns = self.delay_max_ns.max(delay.0);
    }

    /// Field-wise sum, for totals over several intervals.
    pub fn merge(&mut self, o: &FlowCounters) {
        self.sent += o.sent;
        self.retransmitted += o.retransmitted;
        self.delivered += o.delivered;
        self.delivered_unique += o.delivered_unique;
        self.bytes_delivered += o.bytes_delivered;
        self.bytes_unique += o.bytes_unique;
        self.payload_unique += o.payload_unique;
        self.dropped += o.dropped;
        self.acks_sent += o.acks_sent;
        self.acks_received += o.acks_received;
        self.acks_dropped += o.acks_dropped;
        self.delay_sum_ns += o.delay_sum_ns;
        self.delay_max_ns = self.delay_max_ns.max(o.delay_max_ns);
        self.rtt_samples += o.rtt_samples;
        self.rtt_sum_ns += o.rtt_sum_ns;
        self.rtt_max_ns = self.rtt_max_ns.max(o.rtt_max_ns);
        self.rtt_first_samples += o.rtt_first_samples;
        self.rtt_first_sum_ns += o.rtt_first_sum_ns;
        self.timeouts += o.timeouts;
        self.fast_retransmits += o.fast_retransmits;
        self.spurious_retransmits += o.spurious_retransmits;
        self.loss_probes += o.loss_probes;
        self.abandoned += o.abandoned;
        self.trimmed += o.trimmed;
        self.pulls += o.pulls;
        self.cnps += o.cnps;
        self.window_limited_ns += o.window_limited_ns;
    }
}

/// A sum that may pass 64 bits (an area of packets times ns), in two halves: a `u128` field
/// aligns its struct to 16 bytes, and with it every port, which took 16 bytes of padding
/// (6 MB of a k = 64 fat-tree's 393,216 ports). Written and read as the `u128` it is.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WideSum {
    low: u64,
    high: u64,
}

impl WideSum {
    #[inline]
    pub fn get(self) -> u128 {
        (self.high as u128) << 64 | self.low as u128
    }

    #[inline]
    pub fn add(&mut self, x: u128) {
        *self = WideSum::from(self.get() + x);
    }
}

impl From<u128> for WideSum {
    #[inline]
    fn from(x: u128) -> WideSum {
        WideSum { low: x as u64, high: (x >> 64) as u64 }
    }
}

impl Serialize for WideSum {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u128(self.get())
    }
}

impl<'de> serde::Deserialize<'de> for WideSum {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<WideSum, D::Error> {
        u128::deserialize(deserializer).map(WideSum::from)
    }
}

/// What happened at one port (one direction of a link) during one interval: the counters every
/// port keeps, and `rare`, those that only a lossy, failing or paused line counts, written
/// among the others (`RareCounters`). A port counts the interval under way without them
/// (`LiveCounters`) and keeps them among its rare parts: inline, they took 32 of each port's
/// bytes, 13 MB of a k = 64 fat-tree's 393,216 ports (docs/performance.md).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct PortCounters<Rare = RareCounters> {
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub bytes_sent: u64,
    /// Time the transmitter was busy.
    pub busy_ns: u64,
    /// Integral of the number of queued packets (not counting the one on the line) over time.
    pub occupancy_area: WideSum,
    pub max_occupancy: u64,
    /// Packets whose congestion bit this queue set.
    pub marks: u64,
    /// Data packets this queue cut to their headers (`trim`): counted in `departures` when
    /// sent, never in `drops`.
    pub trims: u64,
    #[serde(flatten)]
    pub rare: Rare,
}

/// The counters that few ports count.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RareCounters {
    /// Packets the line lost after sending them (the link's `loss` model): counted in
    /// `departures` too, never in `drops`.
    pub losses: u64,
    /// Packets lost because the link was down (`[[events]]`): on the line or queued when it
    /// went down, or arriving while it was down; never in `drops`.
    pub link_down: u64,
    /// Pause frames (XOFF) that stopped the port (`engine::pfc`).
    pub pauses: u64,
    /// Time the port was paused.
    pub paused_ns: u64,
}

/// No rare counters: those of the interval under way are the port's rare parts' (`Port::extras`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NoRare {}

/// The counters of the interval under way that every port keeps.
pub type LiveCounters = PortCounters<NoRare>;

/// `v` with `x` at its end, its capacity doubling from one rather than from `Vec`'s four: a
/// short run closes one or two intervals, and a k = 64 fat-tree's 393,216 ports each held room
/// for four (126 MB; docs/performance.md, "A k = 64 fat-tree").
pub fn push_from_one<T>(v: &mut Vec<T>, x: T) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len().max(1));
    }
    v.push(x);
}

impl RareCounters {
    fn merge(&mut self, o: &RareCounters) {
        self.losses += o.losses;
        self.link_down += o.link_down;
        self.pauses += o.pauses;
        self.paused_ns += o.paused_ns;
    }
}

impl PortCounters {
    /// Field-wise sum (maximum for the maximum), for totals over several intervals.
    pub fn merge(&mut self, o: &PortCounters) {
        self.arrivals += o.arrivals;
        self.departures += o.departures;
        self.drops += o.drops;
        self.bytes_sent += o.bytes_sent;
        self.busy_ns += o.busy_ns;
        self.occupancy_area.add(o.occupancy_area.get());
        self.max_occupancy = self.max_occupancy.max(o.max_occupancy);
        self.marks += o.marks;
        self.trims += o.trims;
        self.rare.merge(&o.rare);
    }
}

impl LiveCounters {
    /// The interval's record: these counters with the rare ones (all 0 where the port has none).
    pub fn with(&self, rare: Option<&RareCounters>) -> PortCounters {
        let rare = rare.copied().unwrap_or_default();
        PortCounters {
            arrivals: self.arrivals,
            departures: self.departures,
            drops: self.drops,
            bytes_sent: self.bytes_sent,
            busy_ns: self.busy_ns,
            occupancy_area: self.occupancy_area,
            max_occupancy: self.max_occupancy,
            marks: self.marks,
            trims: self.trims,
            rare,
        }
    }
}

/// A port's counters with the bookkeeping that time-weighted figures need.
#[derive(Clone, Debug, Default)]
pub struct PortStats {
    pub current: LiveCounters,
    pub intervals: Vec<PortCounters>,
    /// The sojourn of each packet the line took since the warm-up ended (stats::delay).
    pub sojourn: super::delay::LazyDelayStats,
    /// Queue length since `last_change`.
    len: usize,
    last_change: Time,
    interval_start: Time,
}

impl PortStats {
    /// The queue's length at its last recorded change.
    #[inline]
    pub fn last_len(&self) -> usize {
        self.len
    }

    /// Records that the queue holds `len` packets from `now` on.
    pub fn queue_changed(&mut self, now: Time, len: usize) {
        self.current.occupancy_area.add(self.len as u128 * (now - self.last_change).0 as u128);
        self.last_change = now;
        self.len = len;
        self.current.max_occupancy = self.current.max_occupancy.max(len as u64);
    }

    /// A transmission that started at `started` ended (or is cut at an interval's end) at `now`.
    pub fn add_busy(&mut self, started: Time, now: Time) {
        self.current.busy_ns += (now - started.max(self.interval_start)).0;
    }

    /// Closes the interval ending at `now`, given any transmission under way and the port's
    /// rare counters, if it keeps them (they start again from 0 too).
    pub fn close_interval(&mut self, now: Time, tx_started: Option<Time>, rare: Option<&mut RareCounters>) {
        self.queue_changed(now, self.len);
        if let Some(s) = tx_started {
            self.add_busy(s, now);
        }
        let rare = rare.map(std::mem::take);
        push_from_one(&mut self.intervals, self.current.with(rare.as_ref()));
        self.current = LiveCounters { max_occupancy: self.len as u64, ..Default::default() };
        self.interval_start = now;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_record_is_written_flat_with_its_rare_counters_last_and_read_back() {
        let live = super::LiveCounters { arrivals: 1, trims: 9, ..Default::default() };
        let rare = super::RareCounters { losses: 10, paused_ns: 13, ..Default::default() };
        let record = live.with(Some(&rare));
        let text = serde_json::to_string(&record).unwrap();
        let keys: Vec<&str> = text.split('"').skip(1).step_by(2).collect();
        let want = [
            "arrivals",
            "departures",
            "drops",
            "bytes_sent",
            "busy_ns",
            "occupancy_area",
            "max_occupancy",
            "marks",
            "trims",
            "losses",
            "link_down",
            "pauses",
            "paused_ns",
        ];
        assert_eq!(keys, want, "the tables' columns, in their order");
        assert_eq!(serde_json::from_str::<super::PortCounters>(&text).unwrap(), record);
        assert_eq!((record.trims, record.rare.losses, record.rare.paused_ns), (9, 10, 13));
        assert_eq!(live.with(None).rare, super::RareCounters::default());
    }

    #[test]
    fn a_wide_sum_carries_into_its_high_half_and_is_written_as_one_number() {
        let mut sum = super::WideSum::from(u64::MAX as u128);
        sum.add(2);
        assert_eq!(sum.get(), u64::MAX as u128 + 2);
        assert_eq!(serde_json::to_string(&sum).unwrap(), "18446744073709551617");
        assert_eq!(serde_json::from_str::<super::WideSum>("18446744073709551617").unwrap(), sum);
        assert_eq!(std::mem::align_of::<super::PortCounters>(), 8);
    }

    #[test]
    fn interval_records_are_kept_in_room_doubling_from_one() {
        let mut v = Vec::new();
        let caps: Vec<usize> = (0..5)
            .map(|i| {
                super::push_from_one(&mut v, i);
                v.capacity()
            })
            .collect();
        assert_eq!(caps, [1, 2, 4, 4, 8]);
    }
}
