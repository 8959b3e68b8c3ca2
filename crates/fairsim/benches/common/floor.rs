//! The floor: about the least a packet-level discrete-event simulator must do to run the
//! workloads of fairsim's engine benchmarks, so that the engine's speed can be read as
//! "× floor" on the machine at hand. `cargo run --release --example floor` prints it,
//! `cargo bench -p fairsim --bench floor` times it with criterion. Standard library only, no
//! fairsim types: nothing the engine does can make the floor faster or slower.
//!
//! What it models, as fairsim does:
//! - the networks of `scenarios/examples/dumbbell.toml` (8 window-20 flows and a 5 Mb/s
//!   firehose through a 10 Mb/s, 10 ms bottleneck) and of `scripts/big_scenarios.py`'s
//!   `flows_through_one_port` (N window-8 flows through an N Mb/s bottleneck): every source on its own host and access link, one
//!   bottleneck, one exit link to the sink, and each link's two directions as two ports;
//! - a port as a FIFO of waiting packets (a `VecDeque` of 16-byte records held by value) in
//!   front of a line: transmission time from the packet's size and the line's rate (integer
//!   nanoseconds, rounded up as `units::Rate::tx_time` does), then the propagation delay;
//!   a buffer limit counts the waiting packets only (fairsim's `buffer_includes_line = false`);
//! - an event set ordered by (time, insertion sequence), so that runs are deterministic: a
//!   binary heap of 16-byte entries built as fairsim's is (`Events`), since std's
//!   `BinaryHeap` of events carrying their packets makes a "floor" slower than the engine;
//! - two events per hop: the end of the transmission at the port, then the arrival at the far
//!   node, the packet waiting in the port's pipe meanwhile (`--lazy` drops most of the first
//!   kind, see `Sim::lazy`);
//! - a 40-byte ACK (fairsim's `ack_size` default for the Generic transport) for every data
//!   packet reaching the sink, the firehose's included (fairsim acknowledges an ill-behaved
//!   source's packets too), sent back over the same three links; a window-limited source
//!   sends its next packet when an ACK comes back (self-clocking); the firehose sends one
//!   1000-byte packet every 1.6 ms (5 Mb/s) whatever happens.
//!
//! What it leaves out, and why (it is a floor, not a simulator):
//! - loss: the bottleneck's buffer is unlimited, so no packet is dropped and no flow needs to
//!   recover. fairsim's runs of these networks drop packets and recover by timeouts; the floor
//!   still does the same hops within 1% (dumbbell, 300 s: 2,250,210 hops and 4,687,900 events
//!   against fairsim's 2,250,936 and 4,695,886 under G/FCFS), because the packets fairsim drops
//!   and sends again are few against the ones it delivers. A floor that re-sent each dropped
//!   packet at once (tried) sent the excess of the windows round between hosts and the full
//!   buffer, eight times fairsim's hops. Drop-tail stays in the loop (`Line::buffer`) for the
//!   tests, which check that conservation holds with drops too;
//! - timers, measurement intervals, statistics, traces, queueing disciplines other than
//!   drop-tail FIFO, routing tables, node objects, headers, randomness beyond the flows'
//!   start times: routing is a fixed next port per port (for an ACK at `left`, the port
//!   towards the flow's host, found by the flow's index), all packets of a flow are alike;
//! - any generality fairsim needs: no configuration parsing, no trait objects, no checks.
//!
//! Counted: a hop is one packet (data or ACK) leaving one port, at the end of its transmission
//! (in `--lazy` mode, when its transmission starts, which fixes its end); an event is one event
//! popped from the event set. A run ends after the last event due at or before its duration.

use std::collections::VecDeque;

/// A data packet's size in bytes (fairsim's default payload, with `headers = "none"`).
pub const DATA_SIZE: u32 = 1000;
/// An ACK's size in bytes: the Generic transport's default `ack_size`
/// (`src/scenario/validate/flows.rs`).
pub const ACK_SIZE: u32 = 40;

const MS: u64 = 1_000_000; // in ns
const SECOND: u64 = 1_000_000_000;

/// One direction of a link: a port's line rate, propagation delay and buffer.
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub rate_bps: u64,
    pub delay_ns: u64,
    /// Waiting packets at most (the one on the line not counted); `None`: unlimited.
    pub buffer: Option<usize>,
}

/// What a source sends.
#[derive(Clone, Copy, Debug)]
pub enum Sending {
    /// A window of this many packets, each new one clocked out by an ACK.
    Window(u32),
    /// One packet every this many ns, open loop (the firehose).
    Every(u64),
}

/// A source on its own host, which reaches `left` over its access line (unlimited buffer).
#[derive(Clone, Copy, Debug)]
pub struct Source {
    pub sending: Sending,
    pub start_ns: u64,
    pub access_rate_bps: u64,
    pub access_delay_ns: u64,
}

/// hosts → `left` → bottleneck → `right` → exit → sink, and the ACKs back.
#[derive(Clone, Debug)]
pub struct Workload {
    pub name: String,
    pub sources: Vec<Source>,
    /// Both directions of the bottleneck link (the buffer applies to both, as a link's
    /// `buffer` does in fairsim).
    pub bottleneck: Line,
    pub exit: Line,
    pub duration_ns: u64,
}

impl Workload {
    /// `scenarios/examples/dumbbell.toml` run for `duration_ns` (fairsim's bench: 300 s).
    pub fn dumbbell(duration_ns: u64) -> Workload {
        let access = |sending| Source { sending, start_ns: 0, access_rate_bps: 100_000_000, access_delay_ns: MS };
        let mut sources = vec![access(Sending::Window(20)); 8];
        // the firehose: 1000 bytes at 5 Mb/s, one packet every 1.6 ms
        sources.push(access(Sending::Every(DATA_SIZE as u64 * 8 * SECOND / 5_000_000)));
        Workload {
            name: "dumbbell".to_string(),
            sources,
            bottleneck: Line { rate_bps: 10_000_000, delay_ns: 10 * MS, buffer: None },
            exit: Line { rate_bps: 100_000_000, delay_ns: MS, buffer: None },
            duration_ns,
        }
    }

    /// `flows-N.toml` of `scripts/big_scenarios.py` (`flows_through_one_port`): `n` window-8
    /// flows over 1 Gb/s, 1 ms access lines, an `n` Mb/s 10 ms bottleneck (unlimited buffer: see
    /// the top), a `10n` Mb/s 1 ms exit; 1 s simulated. The flows start at uniform instants in
    /// [0, 100 ms) (`start_jitter`), drawn from a fixed-seed xorshift generator. `n` ≥ 1.
    pub fn flows(n: usize) -> Workload {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let sources = (0..n)
            .map(|_| Source {
                sending: Sending::Window(8),
                start_ns: rng.next() % (100 * MS),
                access_rate_bps: 1_000_000_000,
                access_delay_ns: MS,
            })
            .collect();
        let mbps = n as u64 * 1_000_000;
        Workload {
            name: format!("flows-{n}"),
            sources,
            bottleneck: Line { rate_bps: mbps, delay_ns: 10 * MS, buffer: None },
            exit: Line { rate_bps: 10 * mbps, delay_ns: MS, buffer: None },
            duration_ns: SECOND,
        }
    }

    /// The packets window-limited flows have in flight at the end: their windows, if started.
    pub fn windows(&self) -> u64 {
        let started = self.sources.iter().filter(|s| s.start_ns <= self.duration_ns);
        started.map(|s| if let Sending::Window(n) = s.sending { n as u64 } else { 0 }).sum()
    }
}

/// Marsaglia's xorshift64: deterministic and tiny, for the flows' start times only.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The work a run did, and where its packets are at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Packets (data and ACKs) that left a port.
    pub hops: u64,
    /// Events popped from the event set.
    pub events: u64,
    /// Packets created: data packets by the sources (re-sends included), ACKs by the sink.
    pub sent: u64,
    /// Data packets that reached the sink.
    pub delivered: u64,
    /// ACKs that reached their source.
    pub acked: u64,
    /// Packets (data and ACKs) dropped at a full buffer.
    pub dropped: u64,
    /// Packets still waiting, on a line or propagating at the end.
    pub in_flight: u64,
    /// Of those, the window-limited flows': the sum of their windows once all have started.
    pub in_flight_windowed: u64,
}

impl Counts {
    /// Every packet created is delivered (data), acked (ACKs), dropped or still in flight, and
    /// the window-limited flows have `windows` packets in flight (`Workload::windows`).
    pub fn conserved(&self, windows: u64) -> bool {
        self.sent == self.delivered + self.acked + self.dropped + self.in_flight && self.in_flight_windowed == windows
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Data,
    Ack,
}

/// A packet, held by value in the ports' queues. The loop needs only `flow`, `size` and `kind`;
/// `seq` (which the ACK echoes) is there because a simulator's packet carries one.
#[derive(Clone, Copy, Debug)]
struct Packet {
    seq: u32,
    flow: u32,
    size: u32,
    kind: Kind,
}

/// Where a packet goes at the far end of a port.
#[derive(Clone, Copy, Debug)]
enum Next {
    /// On to this port (`left` → bottleneck, `right` → exit, and back for ACKs).
    Port(usize),
    /// At `left`, an ACK goes on to its flow's host: port `down + flow`.
    Down(usize),
    /// The sink: deliver, and send the ACK on this port.
    Sink(usize),
    /// The source's host: an ACK has come back.
    Host,
}

struct Port {
    /// Waiting packets, not the one on the line.
    queue: VecDeque<Packet>,
    buffer: usize,
    /// Eager mode: the packet on the line, whose `DONE` event is pending.
    line: Option<Packet>,
    /// Lazy mode: when the line is free (the last transmission's end).
    free_at: u64,
    /// Packets propagating, in the order they left, which is the order they arrive (one
    /// delay per port): each has its `ARRIVE` event, which takes the first.
    pipe: VecDeque<Packet>,
    rate_bps: u64,
    delay_ns: u64,
    next: Next,
}

impl Port {
    fn new(line: Line, next: Next) -> Port {
        Port {
            queue: VecDeque::new(),
            buffer: line.buffer.unwrap_or(usize::MAX),
            line: None,
            free_at: 0,
            pipe: VecDeque::new(),
            rate_bps: line.rate_bps,
            delay_ns: line.delay_ns,
            next,
        }
    }

    /// Transmission time in ns, rounded up (as `units::Rate::tx_time`).
    fn tx_ns(&self, size: u32) -> u64 {
        (size as u64 * 8 * SECOND).div_ceil(self.rate_bps)
    }
}

// An event's code: its kind in the top 2 of 24 bits, its port or flow in the other 22.
const TARGET_BITS: u32 = 22;
const CODE_BITS: u32 = 24;
/// Eager mode: the packet on the port's line has been transmitted.
const DONE: u32 = 0;
/// Lazy mode: the port's line is free and packets wait.
const FREE: u32 = 1;
/// The first packet in the port's pipe reaches the far end.
const ARRIVE: u32 = 2;
/// A source starts (a window flow sends its window); the firehose's every packet.
const START: u32 = 3;

/// The most sources a workload may have: two ports each, and four more, must fit the code.
pub const MAX_SOURCES: usize = ((1 << TARGET_BITS) - 4) / 2;

/// The event set: a binary min-heap of 16-byte entries, each the event's time (high 64 bits),
/// its insertion sequence (next 40, which wrap after 10¹² events) and its code (low 24). As
/// integers, entries order by time, then insertion: runs are deterministic. The packets stay in
/// their ports, so a sift moves 16 bytes a level. As fairsim's event set does
/// (`src/engine/event.rs`, docs/performance.md), a pop leaves its entry at the root, `taken`,
/// for the next push to overwrite with one sift down (a handler nearly always schedules
/// something), and the smaller child is chosen without a branch: which one it is is a coin
/// toss no predictor learns. Without these a floor would be slower than the engine.
#[derive(Default)]
struct Events {
    heap: Vec<u128>,
    taken: bool,
    inserted: u64,
}

impl Events {
    fn push(&mut self, time: u64, code: u32) {
        self.inserted += 1;
        let seq = self.inserted & ((1 << (64 - CODE_BITS)) - 1);
        let entry = (time as u128) << 64 | (seq << CODE_BITS | code as u64) as u128;
        if self.taken {
            self.taken = false;
            self.sift_down(entry);
            return;
        }
        let mut hole = self.heap.len();
        self.heap.push(entry);
        while hole > 0 && self.heap[(hole - 1) / 2] > entry {
            self.heap[hole] = self.heap[(hole - 1) / 2];
            hole = (hole - 1) / 2;
        }
        self.heap[hole] = entry;
    }

    /// Puts `entry` at the root and sifts it down.
    fn sift_down(&mut self, entry: u128) {
        let heap = &mut self.heap[..];
        let mut hole = 0;
        loop {
            let left = 2 * hole + 1;
            let child = match heap.get(left..left + 2) {
                Some(&[l, r]) => left + (r < l) as usize,
                _ if left < heap.len() => left,
                _ => break,
            };
            if heap[child] >= entry {
                break;
            }
            heap[hole] = heap[child];
            hole = child;
        }
        heap[hole] = entry;
    }

    /// The earliest event's time and code, if it is due at or before `end`.
    fn pop_until(&mut self, end: u64) -> Option<(u64, u32)> {
        if self.taken {
            // no push since the last pop: remove its entry for real
            self.taken = false;
            let last = self.heap.pop()?;
            if !self.heap.is_empty() {
                self.sift_down(last);
            }
        }
        let top = *self.heap.first()?;
        let time = (top >> 64) as u64;
        if time > end {
            return None;
        }
        self.taken = true;
        Some((time, top as u32 & ((1 << CODE_BITS) - 1)))
    }
}

/// One run of a workload: build it (untimed), then `run` (the loop), then `counts`.
pub struct Sim {
    sources: Vec<Source>,
    /// The next sequence number of each source's data packets.
    next_seq: Vec<u32>,
    /// Ports `0..n`: host `i` → `left`; `n..2n`: `left` → host `i`; then the bottleneck and
    /// exit, forward and back.
    ports: Vec<Port>,
    events: Events,
    now: u64,
    end: u64,
    /// Lazy transmission ends: a packet reaching an idle port with nothing waiting is sent at
    /// once, its arrival at the far end scheduled directly (at the end of its transmission
    /// plus the delay) and the port's `free_at` set to the end of its transmission. Only when
    /// a packet must wait (the line busy until `free_at`, or others waiting) is a `FREE` event
    /// scheduled, at `free_at`, one at a time while the queue is not empty; it sends the
    /// head-of-line packet the same way. Hops are then counted when the transmission starts.
    /// Eager (the default): every transmission ends with a `DONE` event, which sends the
    /// packet on its way and starts the next one.
    lazy: bool,
    counts: Counts,
}

impl Sim {
    /// The network of `w`, its sources' starts scheduled. `w` has at most `MAX_SOURCES`.
    pub fn new(w: &Workload, lazy: bool) -> Sim {
        let n = w.sources.len();
        assert!(n <= MAX_SOURCES, "a workload has at most {MAX_SOURCES} sources");
        let (bottleneck, exit) = (2 * n, 2 * n + 2); // each followed by its reverse direction
        let mut ports = Vec::with_capacity(2 * n + 4);
        for next in [Next::Port(bottleneck), Next::Host] {
            for s in &w.sources {
                let access = Line { rate_bps: s.access_rate_bps, delay_ns: s.access_delay_ns, buffer: None };
                ports.push(Port::new(access, next));
            }
        }
        ports.push(Port::new(w.bottleneck, Next::Port(exit)));
        ports.push(Port::new(w.bottleneck, Next::Down(n)));
        ports.push(Port::new(w.exit, Next::Sink(exit + 1)));
        ports.push(Port::new(w.exit, Next::Port(bottleneck + 1)));
        let mut sim = Sim {
            sources: w.sources.clone(),
            next_seq: vec![0; n],
            ports,
            events: Events::default(),
            now: 0,
            end: w.duration_ns,
            lazy,
            counts: Counts::default(),
        };
        for (i, s) in w.sources.iter().enumerate() {
            sim.schedule(s.start_ns, START, i);
        }
        sim
    }

    /// The event loop, to the end of the run.
    pub fn run(&mut self) {
        while let Some((time, code)) = self.events.pop_until(self.end) {
            self.now = time;
            self.counts.events += 1;
            let target = (code & ((1 << TARGET_BITS) - 1)) as usize;
            match code >> TARGET_BITS {
                DONE => {
                    let p = &mut self.ports[target];
                    let Some(packet) = p.line.take() else { continue };
                    if let Some(next) = p.queue.pop_front() {
                        p.line = Some(next);
                        let end = time + p.tx_ns(next.size);
                        self.schedule(end, DONE, target);
                    }
                    self.depart(target, packet, time);
                }
                FREE => {
                    if let Some(packet) = self.ports[target].queue.pop_front() {
                        self.transmit_lazily(target, packet);
                        if !self.ports[target].queue.is_empty() {
                            self.schedule(self.ports[target].free_at, FREE, target);
                        }
                    }
                }
                ARRIVE => {
                    if let Some(packet) = self.ports[target].pipe.pop_front() {
                        self.arrive(target, packet);
                    }
                }
                _ => match self.sources[target].sending {
                    Sending::Window(window) => (0..window).for_each(|_| self.send(target)),
                    Sending::Every(gap) => {
                        self.send(target);
                        self.schedule(time + gap, START, target);
                    }
                },
            }
        }
    }

    /// What the run did; where its packets are at the end (counted here, not in the loop).
    pub fn counts(&self) -> Counts {
        let mut counts = self.counts;
        for port in &self.ports {
            for p in port.queue.iter().chain(&port.line).chain(&port.pipe) {
                counts.in_flight += 1;
                if let Sending::Window(_) = self.sources[p.flow as usize].sending {
                    counts.in_flight_windowed += 1;
                }
            }
        }
        counts
    }

    fn schedule(&mut self, time: u64, kind: u32, target: usize) {
        self.events.push(time, kind << TARGET_BITS | target as u32);
    }

    /// A source's next data packet, onto its host's port.
    fn send(&mut self, flow: usize) {
        let seq = &mut self.next_seq[flow];
        let packet = Packet { seq: *seq, flow: flow as u32, size: DATA_SIZE, kind: Kind::Data };
        *seq += 1;
        self.counts.sent += 1;
        self.enqueue(flow, packet);
    }

    /// `packet` reaches `port`: onto the line if it is free, else into the buffer, else dropped.
    fn enqueue(&mut self, port: usize, packet: Packet) {
        let now = self.now;
        let p = &mut self.ports[port];
        if self.lazy {
            if p.free_at <= now && p.queue.is_empty() {
                self.transmit_lazily(port, packet);
            } else if p.queue.len() < p.buffer {
                p.queue.push_back(packet);
                if p.queue.len() == 1 {
                    let at = p.free_at;
                    self.schedule(at, FREE, port);
                }
            } else {
                self.drop_packet(packet);
            }
        } else if p.line.is_none() {
            p.line = Some(packet);
            let end = now + p.tx_ns(packet.size);
            self.schedule(end, DONE, port);
        } else if p.queue.len() < p.buffer {
            p.queue.push_back(packet);
        } else {
            self.drop_packet(packet);
        }
    }

    /// Lazy mode: `packet` takes `port`'s free line now.
    fn transmit_lazily(&mut self, port: usize, packet: Packet) {
        let p = &mut self.ports[port];
        p.free_at = self.now + p.tx_ns(packet.size);
        let end = p.free_at;
        self.depart(port, packet, end);
    }

    /// `packet` leaves `port` at `end` (a hop) and reaches the far end after the delay.
    fn depart(&mut self, port: usize, packet: Packet, end: u64) {
        self.counts.hops += 1;
        let p = &mut self.ports[port];
        p.pipe.push_back(packet);
        let arrival = end + p.delay_ns;
        self.schedule(arrival, ARRIVE, port);
    }

    /// A full buffer: a window-limited flow's host sends a new packet at once (see the top).
    fn drop_packet(&mut self, packet: Packet) {
        self.counts.dropped += 1;
        if let Sending::Window(_) = self.sources[packet.flow as usize].sending {
            self.send(packet.flow as usize);
        }
    }

    /// `packet` reaches the far end of `port`.
    fn arrive(&mut self, port: usize, packet: Packet) {
        match self.ports[port].next {
            Next::Port(next) => self.enqueue(next, packet),
            Next::Down(down) => self.enqueue(down + packet.flow as usize, packet),
            Next::Sink(back) => {
                self.counts.delivered += 1;
                self.counts.sent += 1;
                self.enqueue(back, Packet { size: ACK_SIZE, kind: Kind::Ack, ..packet });
            }
            Next::Host => {
                let flow = packet.flow as usize;
                debug_assert!(packet.kind == Kind::Ack && packet.seq < self.next_seq[flow]);
                self.counts.acked += 1;
                if let Sending::Window(_) = self.sources[flow].sending {
                    self.send(flow);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(w: &Workload, lazy: bool) -> Counts {
        let mut sim = Sim::new(w, lazy);
        sim.run();
        sim.counts()
    }

    #[test]
    fn packets_are_conserved_windows_stay_full_and_runs_repeat() {
        // short runs, so that the test is quick unoptimised; with the scenarios' buffers (50
        // packets, 4n), losses happen in both
        let limited = |mut w: Workload, buffer| {
            w.bottleneck.buffer = Some(buffer);
            w
        };
        for w in [limited(Workload::dumbbell(5 * SECOND), 50), limited(Workload::flows(50), 200)] {
            for lazy in [false, true] {
                let counts = run(&w, lazy);
                assert!(counts.conserved(w.windows()), "{} lazy={lazy}: {counts:?}", w.name);
                assert_eq!(counts.in_flight_windowed, w.windows(), "{} lazy={lazy}: {counts:?}", w.name);
                assert!(counts.dropped > 0 && counts.delivered > 0, "{} lazy={lazy}: {counts:?}", w.name);
                assert_eq!(run(&w, lazy), counts, "{} lazy={lazy}: a second run differs", w.name);
            }
        }
    }

    #[test]
    fn events_pop_by_time_then_insertion() {
        // pushes (with many ties) and pops interleaved, as the loop does, against std's heap
        let (mut events, mut reference) = (Events::default(), std::collections::BinaryHeap::new());
        let mut rng = XorShift(7);
        for i in 0..20_000u32 {
            let time = 1_000 + rng.next() % 50;
            events.push(time, i);
            reference.push(std::cmp::Reverse((time, i)));
            if rng.next() % 3 == 0 {
                let std::cmp::Reverse((time, code)) = reference.pop().unwrap();
                assert_eq!(events.pop_until(u64::MAX), Some((time, code)));
            }
        }
        while let Some(std::cmp::Reverse(expected)) = reference.pop() {
            assert_eq!(events.pop_until(u64::MAX), Some(expected));
        }
        assert_eq!(events.pop_until(u64::MAX), None);
    }

    #[test]
    fn a_lone_packet_takes_its_transmission_and_propagation_times() {
        // one window-1 flow, no competition: 3 hops out, 3 back, 6 × (tx + delay) per round trip
        let w = Workload {
            name: "lone".to_string(),
            sources: vec![Source {
                sending: Sending::Window(1),
                start_ns: 0,
                access_rate_bps: 8_000_000_000, // 1 ns per byte
                access_delay_ns: 1_000,
            }],
            bottleneck: Line { rate_bps: 8_000_000_000, delay_ns: 1_000, buffer: Some(1) },
            exit: Line { rate_bps: 8_000_000_000, delay_ns: 1_000, buffer: None },
            duration_ns: 0,
        };
        let round_trip = 3 * (1_000 + 1_000) + 3 * (40 + 1_000);
        for lazy in [false, true] {
            let mut sim = Sim::new(&w, lazy);
            sim.end = 10 * round_trip - 1; // the 10th ACK arrives just after
            sim.run();
            let c = sim.counts();
            assert_eq!((c.delivered, c.acked, c.hops, c.dropped), (10, 9, 60, 0), "lazy={lazy}: {c:?}");
        }
    }
}
