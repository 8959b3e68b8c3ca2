//! The contract of a queueing discipline: the `Qdisc` trait, its context (`QdiscCtx`), why a
//! packet is dropped, and what a discipline is built for (`PortInfo`, `FlowMeta`).
//!
//! It follows Linux's `Qdisc_ops` and ns-3's `QueueDisc`: `enqueue` may refuse the arriving
//! packet or drop packets already queued (every drop goes to the context with a reason),
//! `dequeue` hands the transmitter its next packet. A discipline knows nothing of transports.

use super::fifo;
use crate::component::{Declaration, Kind};
use crate::net::{FlowId, NodeId, Packet, PacketKind, PacketPool};
use crate::rng::{LazyStream, SimRng};
use crate::units::{BufferLimit, Rate, Time};
use serde::Serialize;
use std::sync::Arc;

/// Why a packet was dropped. Reported per flow and per queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The buffer was full and the arriving packet was refused.
    TailDrop,
    /// The buffer overflowed and a queued or arriving packet chosen at random was dropped.
    RandomDrop,
    /// The buffer overflowed and a packet of the longest conversation was dropped (its last;
    /// FQ-CoDel: from the head of the queue with the most bytes).
    LongestQueue,
    /// The buffer overflowed and the packet with the largest tag (bid) was dropped.
    LargestTag,
    /// The packet's own queue (of a discipline with per-queue limits) was full.
    QueueFull,
    /// An active queue manager dropped the packet before the buffer was full.
    Early,
    /// Dropped on purpose (the `loss_list` discipline).
    Injected,
    /// The packet's flow held more than its share of the buffer (FRED's non-adaptive flows).
    FlowLimit,
    /// A queued packet pushed out by a more important arrival (BLT's switch).
    PushOut,
    /// Lost on the wire after its transmission, by the link's loss model (`node::loss`), not
    /// by the discipline.
    Loss,
    /// Lost because its link was down (`[[events]]`): on the line or queued when the link went
    /// down, or arriving at it while it was down (`node::port`, `link_state`); not by the
    /// discipline.
    LinkDown,
}

impl DropReason {
    /// Every reason, in the order of the enum.
    pub const ALL: [DropReason; 11] = [
        DropReason::TailDrop,
        DropReason::RandomDrop,
        DropReason::LongestQueue,
        DropReason::LargestTag,
        DropReason::QueueFull,
        DropReason::Early,
        DropReason::Injected,
        DropReason::FlowLimit,
        DropReason::PushOut,
        DropReason::Loss,
        DropReason::LinkDown,
    ];

    /// The reason called `name` (as `as_str` writes it).
    pub fn from_name(name: &str) -> Option<DropReason> {
        DropReason::ALL.into_iter().find(|r| r.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::TailDrop => "tail_drop",
            DropReason::RandomDrop => "random_drop",
            DropReason::LongestQueue => "longest_queue",
            DropReason::LargestTag => "largest_tag",
            DropReason::QueueFull => "queue_full",
            DropReason::Early => "early",
            DropReason::Injected => "injected",
            DropReason::FlowLimit => "flow_limit",
            DropReason::PushOut => "push_out",
            DropReason::Loss => "loss",
            DropReason::LinkDown => "link_down",
        }
    }

    /// Whether a discipline may drop for this reason: not for the line's (`Loss`, `LinkDown`).
    pub fn by_discipline(self) -> bool {
        !matches!(self, DropReason::Loss | DropReason::LinkDown)
    }
}

/// What a discipline may see and do while handling a packet.
pub struct QdiscCtx<'a> {
    pub now: Time,
    /// The rate of the line this queue feeds.
    pub rate: Rate,
    /// The discipline's own random stream (`rng`), made on its first draw.
    rng: &'a mut LazyStream,
    drops: &'a mut Vec<(Packet, DropReason)>,
    pub(in crate::qdisc) marks: &'a mut u64,
    /// Where the port's queues keep their packets (`net::packet_pool`).
    pub pool: &'a mut PacketPool,
    /// Where the port counts the packets its discipline trims (`trim`); `None` outside a port.
    trims: Option<&'a mut u64>,
    /// Size of the packet on the line when it takes one of the buffer's places (ports with
    /// `buffer_includes_line`); `None` otherwise.
    line: Option<u32>,
    /// The most bytes the queue may hold now, its share of its switch's shared buffer
    /// (`engine::shared_buffer`); `u64::MAX` outside a shared buffer.
    share: u64,
}

/// The room a queue has: its buffer, less the packet on the line if that takes a place, and
/// within its share of a switch's shared buffer, if it has one.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Room {
    limit: BufferLimit,
    /// `u64::MAX` outside a shared buffer: one compare whether or not there is one.
    share: u64,
}

impl Room {
    /// Room under `limit` alone.
    pub fn of(limit: BufferLimit) -> Room {
        Room { limit, share: u64::MAX }
    }

    /// Whether a queue holding `pkts` packets and `bytes` bytes may also take a packet of `size`.
    #[inline]
    pub fn admits(self, pkts: usize, bytes: u64, size: u32) -> bool {
        self.limit.admits(pkts, bytes, size) && bytes + size as u64 <= self.share
    }

    /// Whether a queue of this content is over its room.
    #[inline]
    pub fn exceeded(self, pkts: usize, bytes: u64) -> bool {
        self.limit.exceeded(pkts, bytes) || bytes > self.share
    }

    /// Whether a queue that holds `pkts` packets and `bytes` bytes after an arrival broke its
    /// room: it is over its own limit, or it grew (`grew`) past its share of a shared buffer. A
    /// share shrinks as the switch's other queues fill, so a queue that took nothing may stand
    /// above it, as a drop-tail FIFO does.
    pub fn broken_by_arrival(self, pkts: usize, bytes: u64, grew: bool) -> bool {
        self.limit.exceeded(pkts, bytes) || (grew && bytes > self.share)
    }

    /// The room, as a message names it.
    pub fn describe(self) -> String {
        if self.share == u64::MAX {
            format!("its buffer ({})", self.limit)
        } else {
            format!("its buffer ({}) or its share of the switch's shared buffer ({} bytes now)", self.limit, self.share)
        }
    }
}

impl<'a> QdiscCtx<'a> {
    pub fn new(
        now: Time,
        rate: Rate,
        rng: &'a mut LazyStream,
        drops: &'a mut Vec<(Packet, DropReason)>,
        marks: &'a mut u64,
        pool: &'a mut PacketPool,
    ) -> Self {
        QdiscCtx { now, rate, rng, drops, marks, pool, trims: None, line: None, share: u64::MAX }
    }

    /// Counts the packets the discipline trims in `trims`.
    pub fn with_trims(mut self, trims: &'a mut u64) -> Self {
        self.trims = Some(trims);
        self
    }

    /// Cuts data packet `pkt` to its `header` bytes (NDP's packet trimming); counted per queue.
    pub fn trim(&mut self, pkt: &mut Packet, header: u32) {
        pkt.trim(header);
        if let Some(n) = &mut self.trims {
            **n += 1;
        }
    }

    /// The discipline's own random stream.
    #[inline]
    pub fn rng(&mut self) -> &mut SimRng {
        self.rng.get()
    }

    /// The queue may hold at most `share` bytes now (its share of a shared buffer; `u64::MAX`
    /// without one).
    pub fn with_share(mut self, share: u64) -> Self {
        self.share = share;
        self
    }

    /// The packet on the line (of `size` bytes) takes one of the buffer's places.
    pub fn with_line(mut self, size: Option<u32>) -> Self {
        self.line = size;
        self
    }

    /// The size of the packet on the line, if it takes one of the buffer's places.
    #[inline]
    pub fn line(&self) -> Option<u32> {
        self.line
    }

    /// The room a queue has under `limit`: all of it, or what the packet on the line leaves,
    /// within its share of a shared buffer. Disciplines check their buffer against this when a
    /// packet arrives.
    pub fn room(&self, limit: BufferLimit) -> Room {
        Room { limit: self.line.map_or(limit, |size| limit.less(size)), share: self.share }
    }

    /// Drop-tail: queues `pkt` at the tail of `queue` if `limit` leaves room for it, else drops
    /// it. Returns whether it was queued.
    // always: on every hop of a fabric, and LLVM stopped inlining it as its callers grew (+3%
    // instructions on the k = 16 fat-tree bench)
    #[inline(always)]
    pub fn push_or_drop(&mut self, queue: &mut fifo::Fifo, limit: BufferLimit, pkt: Packet) -> bool {
        let admitted = self.room(limit).admits(queue.len(), queue.bytes(), pkt.size);
        if admitted {
            queue.push(pkt, self.pool);
        } else {
            self.drop(pkt, DropReason::TailDrop);
        }
        admitted
    }

    /// Sets the packet's congestion bit (DECbit, FQbit); counted per queue.
    pub fn mark(&mut self, pkt: &mut Packet) {
        if !pkt.congestion() {
            pkt.set_congestion(true);
            *self.marks += 1;
        }
    }

    /// An active queue manager's congestion signal (RFC 3168 §5): with `ecn`, an ECN-capable
    /// packet is marked (CE) and returned to be queued or sent; any other is dropped as an
    /// `early` drop.
    pub fn signal(&mut self, mut pkt: Packet, ecn: bool) -> Option<Packet> {
        if ecn && self.mark_ect(&mut pkt) {
            Some(pkt)
        } else {
            self.drop(pkt, DropReason::Early);
            None
        }
    }

    /// Marks `pkt` CE if it is ECN-capable; returns whether it is. An ECN-capable ACK (DCTCP's)
    /// is counted as marked but keeps its congestion bit, which on an ACK is the sink's echo
    /// (ECE): its sender ignores CE on ACKs, and an AQM's mark must not set the echo.
    pub fn mark_ect(&mut self, pkt: &mut Packet) -> bool {
        if !pkt.ect() {
            return false;
        }
        if pkt.is_data() {
            self.mark(pkt);
        } else {
            *self.marks += 1;
        }
        true
    }

    /// How many drops have been reported so far (for `logged`, which writes them down).
    pub fn drop_count(&self) -> usize {
        self.drops.len()
    }

    /// The drops reported from index `from` on.
    pub fn drops_from(&self, from: usize) -> &[(Packet, DropReason)] {
        &self.drops[from..]
    }

    /// Drops `pkt`; the engine attributes it to its flow and to this queue.
    pub fn drop(&mut self, pkt: Packet, reason: DropReason) {
        self.drops.push((pkt, reason));
    }
}

/// `Any` so that a port can hold the common discipline in place (`dispatch.rs`).
pub trait Qdisc: std::any::Any + Send + Sync {
    /// Accept or refuse `pkt`; may also drop packets already queued.
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx);
    /// The next packet to put on the line, if any.
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// Visits every queued packet (end-of-run accounting and tests; not on the hot path); those
    /// in FIFOs wait in `pool`.
    fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet));
    /// Figures particular to the discipline (operation counts, internal state), for the report.
    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![]
    }
    /// The state variable that explains the discipline's decisions (CSFQ's α, RED's average
    /// queue), recorded beside the queue length when the port is traced.
    fn gauge(&self) -> Option<(&'static str, f64)> {
        None
    }
    /// The discipline's own timer: asked when `dequeue` answered None while the discipline holds
    /// packets (a shaper waiting for tokens, a delay line), the instant at which the port asks
    /// `dequeue` again if its line is idle then (an arrival, or the end of a transmission, asks
    /// sooner). `None`, every built-in's answer: the packets wait for the next arrival. An
    /// instant not after the asking one is taken as 1 ns after it, so a run always advances.
    fn wake_at(&mut self) -> Option<Time> {
        None
    }
    /// Whether `dequeue` may set the timer (`wake_at`) with no packet queued (an AQM that updates
    /// its state while idle): the port then ends every transmission with an event, so that the
    /// dequeue of the line going idle is made when it happens and its timer taken, rather than
    /// later, as of that end, with no timer asked for (`drained`, lazy ends). Built-ins set no
    /// timer: false.
    fn may_wake_when_empty(&self) -> bool {
        false
    }
    /// Asked once, at the end of a run at `now`: what the discipline holds that it seems never
    /// to send, said for the run's warnings (docs/extending.md). Built-ins, which keep every
    /// packet in their own queues and are tested to send them: None.
    fn stranded(&self, _now: Time) -> Option<String> {
        None
    }
    /// What the discipline wrote down of its packets, if it is `logged`.
    fn log(&self) -> Option<&[(Time, PortEvent, Packet)]> {
        None
    }
    /// `event` happened to `pkt` at `now` without the discipline: it was lost on the wire
    /// (`node::loss`) or to its link going down, or arrived at a port whose link is down. Only a
    /// `logged` discipline writes it down.
    fn record(&mut self, _now: Time, _event: PortEvent, _pkt: &Packet) {}
    /// Gives up every packet it holds, for a link that goes down (its queue is lost): by
    /// default `dequeue`d one after another at `ctx.now` until it gives none, as if the line
    /// drained at once. A packet it will not give now (one its timer holds back) stays.
    fn flush(&mut self, ctx: &mut QdiscCtx) -> Vec<Packet> {
        std::iter::from_fn(|| self.dequeue(ctx)).collect()
    }
    /// Whether `pkt`, arriving while the line is idle, may go straight to it instead of being
    /// queued and taken out again at once (Linux's `TCQ_F_CAN_BYPASS`): a discipline says so
    /// only where that round trip would leave no trace (an empty FIFO that admits the packet).
    /// The port then counts and records the packet as the round trip would have.
    fn bypass(&self, _pkt: &Packet) -> bool {
        false
    }
    /// Whether `dequeue` would change nothing now (its `gauge` included), the queue being empty.
    /// Asked as a transmission starts with no packet left behind it (`len_packets` 0), whose end
    /// event the port leaves out (`node::port`): if true, the dequeue that end would
    /// have made is left out too; if false (RED's average, CoDel's state, DECbit's cycle note
    /// when the line goes idle), the port makes it later, as of the end. Only a cost, never a
    /// result: false is always correct.
    fn drained(&self) -> bool {
        false
    }
    /// Whether the port may leave out the end event of a transmission with packets waiting
    /// behind it, and make the dequeue that end would have made when it is next looked at, as
    /// of the end (`node::port`, chained ends): true only where that later dequeue is the same
    /// one. The discipline then holds what it held at the end (the port is brought up to date
    /// before each arrival, and its operations keep their order), so one qualifies when its
    /// dequeue reads only its own state and the end's time, never another port's, and drops
    /// nothing (a drop made late would be counted late): every discipline here but CoDel and
    /// FQ-CoDel. The end that leaves it empty still makes the empty dequeue of one not
    /// `drained`. Only a cost, never a result: false is always correct; `tests/end_events.rs`
    /// runs every discipline both ways.
    fn chainable(&self) -> bool {
        false
    }
}

/// Implements the queue-inspection half of `Qdisc` (`len_packets`, `len_bytes`,
/// `for_each_packet`) by asking the packet store in field `$field` (any type with `len`,
/// `bytes` and `for_each_packet`, which is given the pool the FIFOs keep their packets in).
macro_rules! inspect_store {
    ($field:ident) => {
        fn len_packets(&self) -> usize {
            self.$field.len()
        }
        fn len_bytes(&self) -> u64 {
            self.$field.bytes()
        }
        fn for_each_packet(&self, pool: &$crate::net::PacketPool, f: &mut dyn FnMut(&$crate::net::Packet)) {
            self.$field.for_each_packet(pool, f)
        }
    };
}
pub(crate) use inspect_store;

/// A flow as disciplines see it: for classifying its packets into conversations.
#[derive(Debug, Clone)]
pub struct FlowMeta {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub weight: f64,
    /// Size of its data packets, bytes.
    pub packet_size: u32,
}

/// What a discipline is built from, besides its parameters: the port it serves.
pub struct PortInfo {
    /// The port's name (`a->b`), for components that show it.
    pub name: String,
    /// Every node's name, by id (what `FlowMeta::src` and `dst` name).
    pub nodes: Arc<[String]>,
    pub buffer: BufferLimit,
    pub rate: Rate,
    /// Every flow of the scenario, by id.
    pub flows: Arc<[FlowMeta]>,
    /// The conversations whose route crosses this port: (flow, data or ACK).
    pub crossing: Vec<(FlowId, PacketKind)>,
    /// Whether `crossing` lists every conversation whose packets reach the port (a scenario's
    /// ports): per-conversation disciplines then keep state for those only
    /// (`classify::Classifier`). Hand-made ports for tests and benchmarks may leave ACKs out.
    pub exact_crossing: bool,
}

impl PortInfo {
    /// The time the line takes to send a full buffer (its largest queueing delay); a buffer in
    /// packets counts the largest data packet crossing the port. `None` if the buffer is unlimited.
    pub fn drain_time(&self) -> Option<Time> {
        let bytes = match self.buffer {
            BufferLimit::Unlimited => return None,
            BufferLimit::Bytes(n) => n,
            BufferLimit::Packets(n) => {
                let largest = self
                    .crossing
                    .iter()
                    .filter(|(_, kind)| *kind == PacketKind::Data)
                    .map(|(f, _)| self.flows[f.idx()].packet_size)
                    .max()
                    .unwrap_or(0);
                n * largest as u64
            }
        };
        Some(Time::from_secs_f64(bytes as f64 * 8.0 / self.rate.0 as f64))
    }
}

/// A packet's event at a port, after ns-2's trace letters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PortEvent {
    /// `+`: it arrived at the queue (and was queued, or dropped: a `d` follows).
    Enqueue,
    /// `-`: its transmission started.
    Dequeue,
    /// `d`: the discipline dropped it, or (`DropReason::Loss`) the line lost it as its
    /// transmission ended.
    Drop(DropReason),
    /// `r`: it reached the far end of the link (derived from its `-`, the line's rate and delay).
    Receive,
}

/// A discipline's declaration: one configuration, built for a port.
pub type QdiscDeclaration<C> = Declaration<(C,), PortInfo, dyn Qdisc>;

/// A registered discipline.
pub type QdiscKind = dyn Kind<PortInfo, dyn Qdisc>;

#[cfg(test)]
mod tests {
    use super::DropReason::{self, *};

    #[test]
    fn every_drop_reason_is_listed_and_found_by_its_name() {
        for r in DropReason::ALL {
            assert_eq!(DropReason::from_name(r.as_str()), Some(r));
        }
        assert_eq!(DropReason::from_name("tail drop"), None);
        // a new reason does not compile in this match until it is named here, and the test
        // fails until it is in `ALL` too
        let every = |r: DropReason| match r {
            TailDrop | RandomDrop | LongestQueue | LargestTag | QueueFull | Early | Injected | FlowLimit | PushOut
            | Loss | LinkDown => [
                TailDrop,
                RandomDrop,
                LongestQueue,
                LargestTag,
                QueueFull,
                Early,
                Injected,
                FlowLimit,
                PushOut,
                Loss,
                LinkDown,
            ],
        };
        assert_eq!(every(Loss), DropReason::ALL);
    }
}
