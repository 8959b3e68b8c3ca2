//! A port: one direction of a link. A queueing discipline feeds a transmitter of a given rate;
//! transmitted packets then propagate for the link's delay.
//!
//! The port owns its three verbs: a packet is queued (`enqueue`), the line takes the next one
//! (`start_tx`), which waits at the pipe's tail until its last bit is sent (`finish_tx`) and it
//! propagates; the far end takes it out (`deliver`). The port never touches the event queue:
//! each verb returns the instant of the event it needs, and the loop schedules it.
//!
//! Packets in propagation sit in a FIFO pipe (the delay is constant, so they arrive in the
//! order they left) and only the head has an event in the queue: a port has at most one pending
//! "transmission done" and one pending "arrival" event, whatever the load (htsim's idiom).
//!
//! Most transmissions end with nothing waiting (69% on the TCP dumbbell). Where the port records
//! nothing per departure (no loss model, no fluid record), a transmission that leaves the
//! discipline holding no packet has no end event: its packet enters the pipe as it starts, with the
//! arrival time it will have, and the line is busy until its end (`Lazy`). Its departure is counted
//! when something next looks at the port at or after that end (an arrival, an interval's end, the
//! end of a stretch of the run), with the dequeue of the empty queue the end would have made, as of
//! the end, for a discipline that notes when its line goes idle (not `Qdisc::drained`); a packet
//! arriving before it waits, with the end event scheduled then. Because events of one instant run
//! in the event set's canonical order (a transmission's end before any arrival), the run is the one
//! the end events would have given.
//!
//! A port whose discipline allows it (`Qdisc::chainable`: all but CoDel's, which drop at a
//! dequeue) goes further (`chained`): each waiting packet leaves as the one before it ends,
//! chosen and marked from the queue as it was then, so no transmission's end needs an event.
//! When a lazy transmission has ended by the time the port is next looked at (an arrival, a
//! delivery at the far end, an interval's end), `settle` puts the next waiting packet on the line
//! as of that end, with the dequeue, queue length and sojourn the end event would have recorded,
//! and its packet into the pipe; and so on up to the look, the end that leaves the queue empty
//! making the empty dequeue of a discipline that notes the idle line (RED). A busy bottleneck
//! then costs no event per packet but its arrival at the far end. The far end's delivery looks
//! at the port first, so a packet that started meanwhile is in the pipe before it is needed. It
//! needs that nothing reads the queue between events: a switch's shared buffer and adaptive
//! forwarding read it at every arrival elsewhere, so their ports keep end events
//! (`keep_end_events`).
//!
//! A port with a loss model (`node::loss`) may lose a packet on the wire as its transmission
//! ends: it is reported as a drop (`DropReason::Loss`) instead of entering the pipe.
//!
//! Its link may go down, come back and change rate (`link_state`), and a PFC switch at its far
//! end may pause it (`pause`, `engine::pfc`): the packet on the line finishes, and no other
//! starts until it resumes.

use super::loss::LinkLoss;
use crate::net::int::PortInt;
use crate::net::packet_pool::{InFlight, List};
use crate::net::prefetch::prefetch;
use crate::net::{Packet, PacketPool};
use crate::qdisc::{DropReason, PortEvent, PortQdisc, Qdisc, QdiscCtx};
use crate::rng::LazyStream;
use crate::stats::fluid::FluidRecord;
use crate::stats::{PortCounters, PortStats, RareCounters};
use crate::units::{Rate, Time};

mod extras;
mod int;
pub mod link_state;
mod pause;

/// What the line does after an arrival (`Port::enqueue`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// Idle: the caller starts the next transmission (`start_tx`).
    Idle,
    /// Busy, or the packet went straight to the idle line (`Qdisc::bypass`): the caller schedules
    /// what this says, if anything.
    Then(Next),
}

/// The event a port's verb needs scheduled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    Nothing,
    /// The end of the transmission under way (`TxDone`).
    TxDone(Time),
    /// The arrival of the packet now leading the pipe (`Arrive`).
    Arrive(Time),
}

/// The transmission under way: 32 bytes, its packet held in the pipe either way (inline, the
/// packet on the line took 96 of every port's bytes, 25 MB of a k = 64 fat-tree's ports).
#[derive(Copy, Clone, Debug)]
enum OnLine {
    /// Its packet is on the line, at the pipe's tail with the arrival `ON_LINE`, which no
    /// reader of the pipe takes for a packet propagating; its end has an event (`finish_tx`
    /// sets the arrival, or loses the packet).
    Sending { size: u32, started: Time },
    /// Its packet is already in the pipe; the line is busy until `ends`, which has an event only
    /// if a packet came to wait behind it (`end_scheduled`). If not, and the discipline notes
    /// when its line goes idle (`ask_at_end`: not `Qdisc::drained`), the dequeue the end event
    /// would have made of the empty queue is made when the port is next looked at, as of `ends`.
    Lazy { size: u32, started: Time, ends: Time, end_scheduled: bool, ask_at_end: bool },
}

/// What `deliver` says of the next packet's arrival when no packet in the pipe propagates.
pub const NO_ARRIVAL: Time = Time::MAX;

/// The arrival of the packet on the line while it waits at the pipe's tail for its end
/// (`OnLine::Sending`): never a time the run reaches. `NO_ARRIVAL`, so that a delivery that
/// finds it next needs no test of its own (a test more took 0.4% of the TCP dumbbell's
/// instructions).
const ON_LINE: Time = NO_ARRIVAL;

impl OnLine {
    fn started(&self) -> Time {
        match *self {
            OnLine::Sending { started, .. } | OnLine::Lazy { started, .. } => started,
        }
    }
}

/// A port's name is its scenario's (`Simulation::port_name`): kept here, it took 24 bytes of every
/// port and a string of its own (22 MB of a k = 64 fat-tree's 393,216 ports).
pub struct Port {
    pub rate: Rate,
    pub delay: Time,
    /// Whether the packet on the line takes one of the buffer's places (REAL's convention).
    buffer_includes_line: bool,
    qdisc: PortQdisc,
    /// The discipline's random stream. Boxed: few disciplines draw, and the generator's state
    /// took 144 of the port's 768 bytes (624 now), 29 MB of a 200,000-port run.
    rng: LazyStream,
    /// Whether a transmission with nothing behind it may go without its end event (`Lazy`), if
    /// the discipline agrees (`Qdisc::drained`): not where the port records each departure.
    lazy_ends: bool,
    /// Whether a packet that waits needs no end event either: `settle` starts it as of the end
    /// of the one before (the module's comment). With lazy ends, where the discipline is
    /// `chainable`.
    chained: bool,
    /// The transmission under way, if any.
    transmitting: Option<OnLine>,
    /// The size of the packet sent last and its transmission time: a port carries one
    /// direction of its flows, nearly always packets of one size, and the time is a 64-bit
    /// division otherwise, on every hop's critical path.
    last_tx: (u32, Time),
    /// Packets propagating, with their arrival times at the far end.
    pipe: List,
    pub stats: PortStats,
    /// What few ports keep (`Extras`): random loss on the wire (with its own random stream),
    /// the arrivals and departures for the comparison with the fluid reference, the queue's
    /// length and the discipline's gauge at every change, the INT stamper, the counters of
    /// losses, pauses and a link down, and since when the port is paused.
    extras: Option<Box<Extras>>,
    /// Whether the port records its packets' passage (`Extras`: a loss model, the fluid record,
    /// the trace or the INT stamper), which the hot paths test, rather than whether it has rare
    /// parts at all: a port that was paused or lost a packet to a link down keeps its counters
    /// there, and no recorder is called for it.
    records: bool,
    /// The most bytes its queue may hold now, its share of its switch's shared buffer, set by
    /// the loop before each arrival (`engine::shared_buffer`); `u64::MAX` without one (8 bytes,
    /// not an option's 16).
    pub share: u64,
    /// When the discipline's own timer asks `dequeue` again (`Qdisc::wake_at`), `Time::MAX` if
    /// it is not set (8 bytes, not an option's 16, on a struct every hop reads): its event is a
    /// `TxDone` of the port that finds no transmission ending (`woken`).
    wake: Time,
    /// The port is paused or stamps INT: no packet bypasses its queue and every start takes the
    /// out-of-line way (`start_tx_watched`). One flag on the hot path for both.
    watched: bool,
    /// A parallel run empties the pipe at each window's end into the far end's partition
    /// (`engine::parallel`): a chained start may then find it empty.
    handed_over: bool,
}

/// What a `TxDone` event of a port whose discipline has a timer set is (`Port::woken`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Woken {
    /// The end of the transmission under way, as for any port.
    TxEnd,
    /// The discipline's timer, the line idle: ask it for a packet (`start_tx`).
    Ask,
    /// A timer the line's state has overtaken (busy: its end asks; or a later timer replaced
    /// it): nothing to do.
    Stale,
}

/// How a port is set up: its line, its discipline, and what it records.
pub struct PortSetup {
    pub rate: Rate,
    pub delay: Time,
    pub buffer_includes_line: bool,
    pub qdisc: Box<dyn Qdisc>,
    pub rng: LazyStream,
    /// Random loss on the wire (`None`: the line loses nothing, and nothing is drawn).
    pub loss: Option<LinkLoss>,
    /// Record arrivals and departures for the fluid reference.
    pub fluid: bool,
    /// Record the queue's length over time.
    pub traced: bool,
}

/// What a traced port records: each series only when its value changes.
#[derive(Default)]
pub struct PortTrace {
    /// (time, packets waiting).
    pub queue: Vec<(Time, u32)>,
    /// The discipline's gauge (`Qdisc::gauge`), if it has one: its name, and (time, value).
    pub gauge: Option<(&'static str, Vec<(Time, f64)>)>,
    /// (time, 1 paused or 0 resumed) at each PFC pause frame that changed the port's state.
    pub paused: Vec<(Time, f64)>,
}

impl PortTrace {
    /// Out of line: traced ports are few, and the untraced path stays small enough to inline.
    #[cold]
    #[inline(never)]
    fn record(&mut self, now: Time, len: u32, gauge: Option<(&'static str, f64)>) {
        if self.queue.last().map(|l| l.1) != Some(len) {
            self.queue.push((now, len));
        }
        if let Some((name, value)) = gauge {
            let (_, points) = self.gauge.get_or_insert_with(|| (name, vec![]));
            if points.last().map(|l| l.1) != Some(value) {
                points.push((now, value));
            }
        }
    }
}

const PACKET_ON_LINE: &str = "the packet on the line at the pipe's tail";

/// What few ports keep, behind one pointer of the port (`Port::extras`; read in `extras.rs`):
/// the link's random loss, the record for the fluid reference, the queue's trace and the INT
/// stamper, which the port sets up with, and the counters and time that only a lossy, failing
/// or paused line needs, which it makes the first time it counts one. Each of the first four
/// behind a pointer of its own, they took 32 of every port's bytes (12.6 MB of a k = 64
/// fat-tree's 393,216 ports, none of which keeps any), and the last two inline 40 more; a port
/// that keeps none reads one word to know it. The first four boxed still: the loss model's
/// generator is several hundred bytes, which a traced port need not carry.
struct Extras {
    loss: Option<Box<LinkLoss>>,
    fluid: Option<Box<FluidRecord>>,
    trace: Option<Box<PortTrace>>,
    int: Option<Box<PortInt>>,
    /// The interval's losses, packets lost to a link down, pauses and time paused.
    counters: RareCounters,
    /// Since when a PFC switch at the far end has paused the port (`pause`); `Time::MAX` if not.
    paused_since: Time,
}

impl Default for Extras {
    fn default() -> Self {
        Extras {
            loss: None,
            fluid: None,
            trace: None,
            int: None,
            counters: RareCounters::default(),
            paused_since: Time::MAX,
        }
    }
}

impl Extras {
    /// The extras of a port set up with these, if it keeps any.
    fn of(loss: Option<LinkLoss>, fluid: bool, traced: bool) -> Option<Box<Extras>> {
        let extras = Extras {
            loss: loss.map(Box::new),
            fluid: fluid.then(Box::default),
            trace: traced.then(Box::default),
            ..Default::default()
        };
        extras.records().then(|| Box::new(extras))
    }

    /// Whether these make the port record its packets' passage (`Port::records`).
    fn records(&self) -> bool {
        self.loss.is_some() || self.fluid.is_some() || self.trace.is_some() || self.int.is_some()
    }
}

/// A queue longer than this stops the run with an error instead of exhausting memory (about
/// 100 bytes a packet): only an unlimited buffer fed faster than it drains gets there.
pub const MAX_QUEUE_PACKETS: usize = 4_000_000;

impl Port {
    pub fn new(s: PortSetup) -> Port {
        let qdisc = PortQdisc::new(s.qdisc);
        let lazy_ends = s.loss.is_none() && !s.fluid && !qdisc.may_wake_when_empty();
        let chained = lazy_ends && qdisc.chainable();
        let extras = Extras::of(s.loss, s.fluid, s.traced);
        Port {
            rate: s.rate,
            delay: s.delay,
            buffer_includes_line: s.buffer_includes_line,
            qdisc,
            rng: s.rng,
            lazy_ends,
            chained,
            transmitting: None,
            last_tx: (0, s.rate.tx_time(0)),
            pipe: List::default(),
            stats: PortStats::default(),
            records: extras.as_ref().is_some_and(|x| x.records()),
            extras,
            share: u64::MAX,
            wake: Time::MAX,
            watched: false,
            handed_over: false,
        }
    }

    /// Something outside the port reads its queue between events (a shared buffer, adaptive
    /// forwarding): every transmission with a packet behind it ends with an event, which
    /// dequeues the next at its end.
    pub fn keep_end_events(&mut self) {
        self.chained = false;
    }

    /// When a chained port next starts a waiting packet without an event (as its line's current
    /// transmission ends), if it will: a parallel run's window must not start past it, or the
    /// packet could reach the far end before the window that hands it over ends.
    pub fn next_chained_start(&self) -> Option<Time> {
        match self.transmitting {
            Some(OnLine::Lazy { ends, end_scheduled: false, .. }) if self.chained && self.qdisc.len_packets() > 0 => {
                Some(ends)
            }
            _ => None,
        }
    }

    /// The pipe is emptied at each window's end into the far end's partition of a parallel run.
    pub fn hand_over(&mut self) {
        self.handed_over = true;
    }

    /// Figures particular to the port's discipline, for the report.
    pub fn qdisc_stats(&self) -> Vec<(&'static str, f64)> {
        self.qdisc.stats()
    }

    /// What the port's discipline holds at the end of the run (`now`) that it seems never to
    /// send (`Qdisc::stranded`).
    pub fn stranded(&self, now: Time) -> Option<String> {
        self.qdisc.stranded(now)
    }

    /// Queues `pkt`, which arrives at `now`; the discipline reports what it drops into `drops`.
    /// Returns what the line does: it is idle (the caller starts a transmission), or the event
    /// to schedule, if any: the end of a transmission the packet now waits behind, or, if the
    /// packet went straight to the line, its transmission's end or its arrival at the far end.
    #[inline]
    pub fn enqueue(
        &mut self,
        mut pkt: Packet,
        now: Time,
        drops: &mut Vec<(Packet, DropReason)>,
        pool: &mut PacketPool,
    ) -> Line {
        pkt.enqueued_at = now;
        self.stats.current.arrivals += 1;
        if self.records {
            self.record_arrival(now, &pkt);
        }
        self.settle(now, pool);
        if self.transmitting.is_none() && !self.watched && self.qdisc.bypass(&pkt) {
            // what an enqueue and the dequeue at once would have done: the queue's length
            // recorded, a sojourn of zero, the packet on the line
            self.queue_changed(now);
            self.stats.sojourn.record(0);
            return Line::Then(self.transmit(pkt, now, pool));
        }
        let on_line = match self.transmitting {
            Some(OnLine::Sending { size, .. } | OnLine::Lazy { size, .. }) => Some(size),
            None => None,
        };
        let on_line = on_line.filter(|_| self.buffer_includes_line);
        let mut ctx = QdiscCtx::new(now, self.rate, &mut self.rng, drops, &mut self.stats.current.marks, pool)
            .with_trims(&mut self.stats.current.trims)
            .with_line(on_line)
            .with_share(self.share);
        self.qdisc.enqueue(pkt, &mut ctx);
        if self.watched {
            self.stamp_arrival(now);
        }
        match &mut self.transmitting {
            None => Line::Idle, // the caller starts a transmission at once, which records the length
            Some(line) => {
                let next = match line {
                    // a packet may wait now: the transmission's end is an event after all,
                    // unless `settle` starts the packet as of that end
                    OnLine::Lazy { ends, end_scheduled: scheduled @ false, .. } if !self.chained => {
                        *scheduled = true;
                        Next::TxDone(*ends)
                    }
                    _ => Next::Nothing,
                };
                self.queue_changed(now);
                Line::Then(next)
            }
        }
    }

    /// A lazy transmission without an end event that has ended by `now` is counted, and the
    /// line is idle. Nothing has touched the discipline since `ends` (every verb settles first),
    /// so asking it for a packet now, as of `ends`, is what the end event would have done then.
    /// (One with an end event, scheduled when a packet came to wait, is left to that event: a
    /// stretch of the run may stop between the two at the same instant.)
    /// On a chained port, the packets waiting behind it go on the line in turn, each as of the
    /// end of the one before, up to `now` (`start_chain`).
    #[inline]
    pub fn settle(&mut self, now: Time, pool: &mut PacketPool) {
        if let Some(OnLine::Lazy { size, started, ends, ask_at_end, end_scheduled: false }) = self.transmitting {
            if ends <= now {
                self.transmitting = None;
                self.count_departure(started, ends, size);
                if self.chained && self.qdisc.len_packets() > 0 {
                    // a pause lets the packet on the line finish and starts none after it
                    if !self.watched || ends < self.paused_since() {
                        self.start_chain(ends, now, pool);
                    }
                } else if ask_at_end {
                    self.ask_empty_queue(ends, pool);
                }
            }
        }
    }

    /// What the end events from `at` up to `now` would have done on a chained port: at each,
    /// the next waiting packet on the line, its sojourn and the queue's length recorded as of
    /// that end, and into the pipe behind the packet that just ended. That one is still in the
    /// pipe (its delivery settles the port first), so no arrival needs an event here. Out of
    /// line: most looks at a port find no packet waiting.
    #[inline(never)]
    fn start_chain(&mut self, mut at: Time, now: Time, pool: &mut PacketPool) {
        let mut no_drops = Vec::new(); // a chainable discipline drops only arrivals
        loop {
            let mut ctx =
                QdiscCtx::new(at, self.rate, &mut self.rng, &mut no_drops, &mut self.stats.current.marks, pool)
                    .with_trims(&mut self.stats.current.trims);
            let Some(pkt) = self.qdisc.dequeue(&mut ctx) else { return };
            self.queue_changed(at);
            self.stats.sojourn.record((at - pkt.enqueued_at).0);
            let next = self.transmit(pkt, at, pool);
            let behind = next == Next::Nothing || self.handed_over; // its arrival: the far end's partition's
            debug_assert!(behind && no_drops.is_empty(), "a chained start behind the pipe's head");
            let Some(OnLine::Lazy { size, started, ends, ask_at_end, .. }) = self.transmitting else { return };
            if ends > now {
                return;
            }
            self.transmitting = None;
            self.count_departure(started, ends, size);
            at = ends;
            // it left the queue empty: its end's dequeue is the idle line's (RED's average)
            if self.qdisc.len_packets() == 0 {
                if ask_at_end {
                    self.ask_empty_queue(at, pool);
                }
                return;
            }
        }
    }

    /// The dequeue of an empty discipline at `at`, for what it notes of the idle line (RED's
    /// average, CoDel's state, DECbit's cycle, a round robin's passed queues). It holds no
    /// packet, so it can neither send nor drop one. Cold: the drained disciplines (FCFS, FQ, …)
    /// never come here, and their path stays small.
    #[cold]
    fn ask_empty_queue(&mut self, at: Time, pool: &mut PacketPool) {
        let mut drops = Vec::new();
        let mut ctx = QdiscCtx::new(at, self.rate, &mut self.rng, &mut drops, &mut self.stats.current.marks, pool)
            .with_trims(&mut self.stats.current.trims);
        let none = self.qdisc.dequeue(&mut ctx);
        debug_assert!(none.is_none() && drops.is_empty(), "a discipline holding no packet gave one");
        self.queue_changed(at);
    }

    fn count_departure(&mut self, started: Time, ended: Time, size: u32) {
        self.stats.add_busy(started, ended);
        self.stats.current.departures += 1;
        self.stats.current.bytes_sent += size as u64;
    }

    /// Puts `pkt` on the idle line at `now`. With nothing waiting behind it and lazy ends, or on
    /// a chained port, it enters the pipe at once and only its arrival may need an event;
    /// otherwise its end does.
    #[inline(always)] // as it was before it grew `ask_at_end`: out of line it cost 1% on NR/FIFO
    fn transmit(&mut self, pkt: Packet, now: Time, pool: &mut PacketPool) -> Next {
        if pkt.size != self.last_tx.0 {
            self.last_tx = (pkt.size, self.rate.tx_time(pkt.size));
        }
        let ends = now + self.last_tx.1;
        // lazy, and whether its end must still ask the empty queue: `drained` first, the cheaper
        // question, which implies an empty queue
        let drained = self.lazy_ends && self.qdisc.drained();
        // a chained port's next packet goes on the line as of this end (`settle`)
        if self.chained || drained || (self.lazy_ends && self.qdisc.len_packets() == 0) {
            // a chained port's end with packets waiting dequeues as it starts the next (`settle`)
            let ask_at_end = !drained && self.qdisc.len_packets() == 0;
            self.transmitting =
                Some(OnLine::Lazy { size: pkt.size, started: now, ends, end_scheduled: false, ask_at_end });
            let arrival = ends + self.delay;
            self.pipe.push_back(InFlight { pkt, arrival }, pool);
            return if self.pipe.len() == 1 { Next::Arrive(arrival) } else { Next::Nothing };
        }
        self.transmitting = Some(OnLine::Sending { size: pkt.size, started: now });
        self.pipe.push_back(InFlight { pkt, arrival: ON_LINE }, pool);
        Next::TxDone(ends)
    }

    /// Whether the queue outgrew any memory: the run cannot go on (`overflow_message`).
    #[inline]
    pub fn overflowed(&self) -> bool {
        // every change of the queue is recorded, and an enqueue adds at most one packet to the
        // length last recorded: below the limit, no need to ask the discipline
        self.stats.last_len() >= MAX_QUEUE_PACKETS && self.qdisc.len_packets() > MAX_QUEUE_PACKETS
    }

    /// Puts the discipline's next packet, if any, on the idle line at `now`; returns the event
    /// its transmission needs (`transmit`).
    #[inline(always)]
    pub fn start_tx(&mut self, now: Time, drops: &mut Vec<(Packet, DropReason)>, pool: &mut PacketPool) -> Next {
        if self.watched {
            return self.start_tx_watched(now, drops, pool);
        }
        self.start_tx_now(now, drops, pool)
    }

    /// `start_tx` on a port neither paused nor stamping.
    #[inline(always)]
    fn start_tx_now(&mut self, now: Time, drops: &mut Vec<(Packet, DropReason)>, pool: &mut PacketPool) -> Next {
        let mut ctx = QdiscCtx::new(now, self.rate, &mut self.rng, drops, &mut self.stats.current.marks, pool)
            .with_trims(&mut self.stats.current.trims);
        let next = self.qdisc.dequeue(&mut ctx);
        self.queue_changed(now);
        let Some(pkt) = next else {
            // an empty queue's discipline may still want its timer (state it keeps while idle)
            return self.wake_later(now);
        };
        self.stats.sojourn.record((now - pkt.enqueued_at).0);
        self.transmit(pkt, now, pool)
    }

    /// The discipline sends nothing now: when its timer asks again, if it set one
    /// (`Qdisc::wake_at`), whether it holds packets (a shaper waiting for tokens) or none (an
    /// AQM that updates its state while idle). A timer set already for no later stays, and asks
    /// first.
    #[cold]
    fn wake_later(&mut self, now: Time) -> Next {
        let Some(at) = self.qdisc.wake_at() else { return Next::Nothing };
        let at = at.max(now + Time(1));
        if self.wake > now && self.wake <= at {
            return Next::Nothing; // set for no later, and not yet gone off
        }
        self.wake = at;
        Next::TxDone(at)
    }

    /// Whether a discipline's timer is set: only then may a `TxDone` be something else than a
    /// transmission's end (`woken` says what).
    #[inline(always)]
    pub fn timer_set(&self) -> bool {
        self.wake != Time::MAX
    }

    /// What the `TxDone` event at `now` of a port whose discipline's timer is set is: the end of
    /// the transmission under way, the timer (cleared), or a timer overtaken.
    #[cold]
    pub fn woken(&mut self, now: Time, pool: &mut PacketPool) -> Woken {
        self.settle(now, pool);
        let ends = match self.transmitting {
            Some(OnLine::Sending { size, started }) => Some(started + self.rate.tx_time(size)),
            Some(OnLine::Lazy { ends, end_scheduled, .. }) => Some(if end_scheduled { ends } else { Time::MAX }),
            None => None,
        };
        if ends == Some(now) {
            return Woken::TxEnd;
        }
        if self.wake != now {
            return Woken::Stale;
        }
        self.wake = Time::MAX;
        // a busy line asks the discipline at its end
        if ends.is_some() {
            Woken::Stale
        } else {
            Woken::Ask
        }
    }

    /// The packet on the line is sent at `now` and starts to propagate; returns when it reaches
    /// the far end if it leads the pipe (otherwise the packet ahead of it has that event). A
    /// packet the link's loss model loses goes into `drops` instead, having used the line. The
    /// line is idle afterwards: the caller starts the next transmission.
    #[inline]
    pub fn finish_tx(
        &mut self,
        now: Time,
        drops: &mut Vec<(Packet, DropReason)>,
        pool: &mut PacketPool,
    ) -> Option<Time> {
        let (size, started) = match self.transmitting.take().expect("TxDone only while transmitting") {
            OnLine::Sending { size, started } => (size, started),
            OnLine::Lazy { size, started, ends, .. } => {
                debug_assert_eq!(ends, now, "a lazy transmission's end event comes at its end");
                self.count_departure(started, now, size);
                return None; // its packet is in the pipe already
            }
        };
        self.count_departure(started, now, size);
        if self.records {
            self.record_departure(now, pool);
        }
        if self.records && self.loss_mut().is_some_and(LinkLoss::lose) {
            let InFlight { pkt, .. } = self.take_off_line(pool);
            self.qdisc.record(now, PortEvent::Drop(DropReason::Loss), &pkt);
            drops.push((pkt, DropReason::Loss));
            return None;
        }
        let arrival = now + self.delay;
        self.pipe.back_mut(pool).expect(PACKET_ON_LINE).arrival = arrival;
        (self.pipe.len() == 1).then_some(arrival)
    }

    /// The packet on the line out of the pipe's tail, where it waited for its end: lost.
    fn take_off_line(&mut self, pool: &mut PacketPool) -> InFlight {
        self.pipe.pop_back(pool).expect(PACKET_ON_LINE)
    }

    /// Asks the cache for what an arrival at the port reads first: its pipe.
    #[inline(always)]
    pub fn prefetch_state(&self) {
        prefetch(&self.pipe);
    }

    /// Asks the cache for the packet leading the pipe, which the port's arrival delivers.
    #[inline(always)]
    pub fn prefetch_pipe_head(&self, pool: &PacketPool) {
        if let Some(entry) = self.pipe.front(pool) {
            prefetch(entry);
        }
    }

    /// Takes the packet at the head of the pipe out at the far end at `now`, one hop further on
    /// its route; returns it with the arrival time of the next packet in the pipe, `NO_ARRIVAL`
    /// if none propagates (on a chained port, after starting the packets whose turn came since
    /// the port was last looked at).
    #[inline]
    pub fn deliver(&mut self, now: Time, pool: &mut PacketPool) -> (Packet, Time) {
        if self.chained {
            self.settle(now, pool);
        }
        let InFlight { mut pkt, .. } = self.pipe.pop_front(pool).expect("Arrive only with a packet in the pipe");
        pkt.hop += 1;
        // the packet on the line, if it is next, gets its arrival's event as its end comes
        (pkt, self.pipe.front(pool).map_or(NO_ARRIVAL, |next| next.arrival))
    }

    /// Takes the packet leading the pipe out as it is, to propagate in another partition's copy
    /// of the port (`engine::parallel`): only the far end's partition delivers it. The packet
    /// on the line stays until its end; so does one whose transmission has started without an
    /// event if `keep_line` (a link that may go down cuts it: `line_ends`).
    pub fn take_in_flight(&mut self, pool: &mut PacketPool, keep_line: bool) -> Option<InFlight> {
        if self.pipe.front(pool)?.arrival == ON_LINE {
            return None;
        }
        if keep_line && self.pipe.len() == 1 && self.line_ends().is_some() {
            return None;
        }
        self.pipe.pop_front(pool)
    }

    /// When the transmission under way that propagates already (a lazy one's) ends.
    pub fn line_ends(&self) -> Option<Time> {
        match self.transmitting {
            Some(OnLine::Lazy { ends, .. }) => Some(ends),
            _ => None,
        }
    }

    /// Puts packets propagating on the link (ones handed to the far end's partition) back
    /// ahead of those in the pipe, the packet on the line last.
    pub fn put_ahead_in_pipe(&mut self, ahead: Vec<InFlight>, pool: &mut PacketPool) {
        let mut own = std::mem::take(&mut self.pipe);
        let own = std::iter::from_fn(|| own.pop_front(pool)).collect::<Vec<_>>();
        ahead.into_iter().chain(own).for_each(|entry| self.pipe.push_back(entry, pool));
    }

    /// Puts a packet propagating on the link into the pipe, behind those there; returns
    /// whether it leads the pipe (and so its arrival needs an event).
    pub fn push_in_flight(&mut self, entry: InFlight, pool: &mut PacketPool) -> bool {
        self.pipe.push_back(entry, pool);
        self.pipe.len() == 1
    }

    /// What the port's discipline wrote down, if it is logged (`[run] pcap`, `[run] events`).
    pub fn log(&self) -> Option<&[(Time, crate::qdisc::logged::PortEvent, Packet)]> {
        self.qdisc.log()
    }

    /// Whether a packet is on the line that does not propagate yet (not a lazy transmission's).
    pub fn sending(&self) -> bool {
        matches!(self.transmitting, Some(OnLine::Sending { .. }))
    }

    /// The packet on the line, if any, unless it already propagates (a lazy transmission's).
    pub fn on_line<'a>(&self, pool: &'a PacketPool) -> Option<&'a Packet> {
        if !self.sending() {
            return None;
        }
        self.pipe.back(pool).map(|entry| &entry.pkt)
    }

    /// Closes the statistics' interval at `now`. A transmission that ended by then counts in it,
    /// one still under way only for its busy time so far.
    pub fn close_interval(&mut self, now: Time, pool: &mut PacketPool) {
        self.settle(now, pool);
        let tx = self.transmitting.as_ref().map(OnLine::started);
        self.count_paused(now);
        self.stats.close_interval(now, tx, self.extras.as_mut().map(|x| &mut x.counters));
    }

    /// Records the queue's length after a change, in the statistics and the trace; returns it.
    pub fn queue_changed(&mut self, now: Time) -> usize {
        let len = self.qdisc.len_packets();
        self.stats.queue_changed(now, len);
        if self.records {
            self.record_queue(now, len);
        }
        len
    }

    /// Bytes waiting in the queue (the packet on the line not counted).
    #[inline]
    pub fn queued_bytes(&self) -> u64 {
        self.qdisc.len_bytes()
    }

    /// Visits every packet waiting in the port's queue.
    pub fn for_each_queued(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.qdisc.for_each_packet(pool, f);
    }

    /// Lets go of the packets propagating, once the run has ended and they are counted
    /// (`Simulation::shed_packets`).
    pub fn shed_pipe(&mut self, pool: &mut PacketPool) {
        let on_line = self.sending().then(|| self.take_off_line(pool));
        self.pipe.clear(pool);
        // what the capture reads of the line (`on_line`) stays
        on_line.into_iter().for_each(|entry| self.pipe.push_back(entry, pool));
    }

    /// Lets go of the packets waiting in an FCFS queue held in place, likewise: other
    /// disciplines keep theirs, which their own figures may read.
    pub fn shed_fcfs_queue(&mut self, pool: &mut PacketPool) {
        if let PortQdisc::Fcfs(fcfs) = &mut self.qdisc {
            fcfs.shed(pool);
        }
    }

    /// Visits every packet held by the port: queued, on the line, or propagating (the pipe
    /// holds the packet on the line).
    pub fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.qdisc.for_each_packet(pool, f);
        self.pipe.iter(pool).for_each(|e| f(&e.pkt));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{pkt, port};
    use crate::qdisc::{Fcfs, FcfsConfig};
    use crate::units::BufferLimit;

    #[test]
    fn a_port_keeps_what_few_ports_use_out_of_line() {
        // a k = 64 fat-tree has 393,216 ports: the trace and the fluid record inline took 160
        // bytes of each, the name 24 (and a string of its own), the queue's and the pipe's
        // chains of blocks 24 each and then their rings 40 (now lists in the run's packet pool,
        // 12: `net::packet_pool`), the sojourns 160 (`LazyDelayStats`), the packet on the line
        // 64 (`OnLine`), the rare parts' four pointers 24 and the rare counters and pause 40
        // (`Extras`); a 128-bit counter aligned the port to 16 (`WideSum`)
        assert!(std::mem::size_of::<Port>() <= 312, "{}", std::mem::size_of::<Port>());
    }

    /// A 1 Mb/s port with 10 ms of propagation and room for `buffer` packets (FCFS); `fluid`
    /// records each departure, which keeps every transmission's end an event.
    pub(in crate::node::port) fn a_port_recording(buffer: u64, fluid: bool) -> Port {
        let info = port(BufferLimit::Packets(buffer), &[(0, 1)]);
        a_port_with(Box::new(Fcfs::new(FcfsConfig {}, &info)), fluid)
    }

    fn a_port_with(qdisc: Box<dyn Qdisc>, fluid: bool) -> Port {
        Port::new(PortSetup {
            rate: Rate(1_000_000),
            delay: Time::from_millis(10),
            buffer_includes_line: false,
            qdisc,
            rng: crate::rng::LazyStream::new(1, "test"),
            loss: None,
            fluid,
            traced: true,
        })
    }

    fn a_port(buffer: u64) -> Port {
        a_port_recording(buffer, false)
    }

    /// A FIFO that notes when it is asked for a packet with none (as RED notes the line going
    /// idle), so it is not `drained`.
    struct NotingIdle {
        queue: crate::qdisc::fifo::Fifo,
        asked_empty: std::sync::Arc<std::sync::Mutex<Vec<Time>>>,
        chainable: bool,
    }

    impl Qdisc for NotingIdle {
        fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
            ctx.push_or_drop(&mut self.queue, BufferLimit::Packets(5), pkt);
        }
        fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
            let pkt = self.queue.pop(ctx.pool);
            if pkt.is_none() {
                self.asked_empty.lock().unwrap().push(ctx.now);
            }
            pkt
        }
        fn chainable(&self) -> bool {
            self.chainable
        }
        crate::qdisc::inspect_store!(queue);
    }

    #[test]
    fn a_discipline_noting_the_idle_line_is_asked_as_of_each_lazy_end() {
        let mut pool = PacketPool::standalone();
        let asked = std::sync::Arc::new(std::sync::Mutex::new(vec![]));
        let mut p = a_port(5);
        let noting = NotingIdle { queue: Default::default(), asked_empty: asked.clone(), chainable: false };
        p.qdisc = PortQdisc::new(Box::new(noting));
        p.keep_end_events(); // as `Port::new` has it for any discipline that is not chainable
        let mut drops = vec![];
        // lazy (no end event) although not drained: the empty dequeue its end would have made
        // comes when the port is next looked at, dated at the end (8 ms), not at the look
        assert_eq!(p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops, &mut pool), Line::Idle);
        assert_eq!(p.start_tx(Time::ZERO, &mut drops, &mut pool), Next::Arrive(ms(18)));
        assert!(asked.lock().unwrap().is_empty());
        assert_eq!(p.enqueue(pkt(0, 1, 1000), ms(20), &mut drops, &mut pool), Line::Idle);
        assert_eq!(*asked.lock().unwrap(), vec![ms(8)]);
        assert_eq!(p.start_tx(ms(20), &mut drops, &mut pool), Next::Nothing, "behind the first in the pipe");
        // an interval's end looks at the port: the second ended at 28 ms
        p.close_interval(ms(40), &mut pool);
        assert_eq!(*asked.lock().unwrap(), vec![ms(8), ms(28)]);
        assert_eq!(p.stats.intervals[0].departures, 2);
        // a packet waiting behind a transmission gives it its end event, whose own dequeue
        // finds the packet: no empty dequeue at a settle
        assert_eq!(p.enqueue(pkt(0, 2, 1000), ms(50), &mut drops, &mut pool), Line::Idle);
        assert_eq!(p.start_tx(ms(50), &mut drops, &mut pool), Next::Nothing);
        assert_eq!(p.enqueue(pkt(0, 3, 1000), ms(51), &mut drops, &mut pool), Line::Then(Next::TxDone(ms(58))));
        p.settle(ms(58), &mut pool);
        assert_eq!(*asked.lock().unwrap(), vec![ms(8), ms(28)], "its end event will ask");
        assert_eq!(p.finish_tx(ms(58), &mut drops, &mut pool), None);
        assert_eq!(p.start_tx(ms(58), &mut drops, &mut pool), Next::Nothing);
        assert_eq!(*asked.lock().unwrap(), vec![ms(8), ms(28)]);
        assert!(drops.is_empty());
    }

    /// Bursts of packets (1000 bytes, 8 ms each on the line) into a discipline that notes the
    /// idle line (as RED does), chained and with end events: chained, the empty dequeue that
    /// ends each busy period is made when the port is next looked at, dated at that end, and
    /// every dequeue, record and departure is the one the end events make.
    #[test]
    fn a_chained_discipline_noting_the_idle_line_is_asked_as_its_end_events_would() {
        let mut pool = PacketPool::standalone();
        let run = |chainable: bool, pool: &mut PacketPool| {
            let asked = std::sync::Arc::new(std::sync::Mutex::new(vec![]));
            let noting = NotingIdle { queue: Default::default(), asked_empty: asked.clone(), chainable };
            let mut p = a_port_with(Box::new(noting), false);
            assert_eq!(p.chained, chainable);
            // the one event a port keeps pending here: its transmission's end
            let mut end: Option<Time> = None;
            let take = |next: Next, end: &mut Option<Time>| {
                if let Next::TxDone(at) = next {
                    *end = Some(at);
                }
            };
            for at in [0, 1, 2, 30, 31, 60, 61, 62, 63, 100].map(ms) {
                while let Some(due) = end.filter(|&due| due <= at) {
                    end = None;
                    assert_eq!(p.finish_tx(due, &mut vec![], pool), None);
                    take(p.start_tx(due, &mut vec![], pool), &mut end);
                }
                match p.enqueue(pkt(0, at.0, 1000), at, &mut vec![], pool) {
                    Line::Idle => take(p.start_tx(at, &mut vec![], pool), &mut end),
                    Line::Then(next) => take(next, &mut end),
                }
            }
            p.close_interval(ms(200), pool);
            let s = &p.stats;
            let asked = asked.lock().unwrap().clone();
            (asked, s.intervals.clone(), s.sojourn.summary(), p.trace().map(|t| t.queue.clone()))
        };
        let (chained, with_events) = (run(true, &mut pool), run(false, &mut pool));
        assert_eq!(chained, with_events);
        // each busy period's last end: 24 ms (0, 1, 2), 46 (30, 31), 92 (60-63) and 108 (100)
        assert_eq!(chained.0, vec![ms(24), ms(46), ms(92), ms(108)]);
        assert_eq!(chained.1[0].departures, 10);
    }

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    #[test]
    fn the_packet_on_the_line_waits_at_the_pipes_tail_where_no_reader_takes_it_for_one_propagating() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port_recording(10, true); // every end an event: the packet on the line is `Sending`
        let mut drops = vec![];
        let mut offer =
            |p: &mut Port, seq, at, pool: &mut PacketPool| match p.enqueue(pkt(0, seq, 1000), at, &mut drops, pool) {
                Line::Idle => p.start_tx(at, &mut drops, pool),
                Line::Then(next) => next,
            };
        // 1000 bytes at 1 Mb/s: 8 ms on the line, then 10 ms on the wire
        assert_eq!(offer(&mut p, 0, Time::ZERO, &mut pool), Next::TxDone(ms(8)));
        assert_eq!(p.finish_tx(ms(8), &mut vec![], &mut pool), Some(ms(18)));
        assert_eq!(offer(&mut p, 1, ms(15), &mut pool), Next::TxDone(ms(23)));
        // packet 0 propagates, packet 1 is on the line: each held once
        assert_eq!(p.on_line(&pool).map(|q| q.seq), Some(1));
        let mut held = vec![];
        p.for_each_packet(&pool, &mut |q| held.push(q.seq));
        assert_eq!(held, [0, 1]);
        let (arrived, next) = p.deliver(ms(18), &mut pool);
        assert_eq!((arrived.seq, next), (0, NO_ARRIVAL), "the packet on the line has no arrival yet");
        assert!(p.take_in_flight(&mut pool, false).is_none(), "nor does it go to the far end's partition");
        // one handed back from the far end's partition goes ahead of it
        p.put_ahead_in_pipe(vec![InFlight { pkt: pkt(0, 7, 1000), arrival: ms(20) }], &mut pool);
        assert_eq!(p.on_line(&pool).map(|q| q.seq), Some(1));
        assert_eq!(p.take_in_flight(&mut pool, false).map(|e| e.pkt.seq), Some(7));
        assert_eq!(p.finish_tx(ms(23), &mut vec![], &mut pool), Some(ms(33)), "its end gives it its arrival");
        assert!(p.on_line(&pool).is_none());
        let (arrived, next) = p.deliver(ms(33), &mut pool);
        assert_eq!((arrived.seq, arrived.hop, next), (1, 1, NO_ARRIVAL));
    }

    #[test]
    fn a_packet_the_line_loses_leaves_the_pipe_and_the_one_ahead_of_it_arrives() {
        let mut pool = PacketPool::standalone();
        let info = port(BufferLimit::Packets(10), &[(0, 1)]);
        let mut p = Port::new(PortSetup {
            rate: Rate(1_000_000),
            delay: Time::from_millis(10),
            buffer_includes_line: false,
            qdisc: Box::new(Fcfs::new(FcfsConfig {}, &info)),
            rng: crate::rng::LazyStream::new(1, "test"),
            loss: Some(LinkLoss::new(crate::node::LossModel::Bernoulli { rate: 1.0 }, crate::rng::stream(1, "l"))),
            fluid: false,
            traced: false,
        });
        // packet 7 propagates (from the far end's partition, say) when packet 0 starts
        p.push_in_flight(InFlight { pkt: pkt(0, 7, 1000), arrival: ms(10) }, &mut pool);
        let mut drops = vec![];
        // straight to the idle line; a lossy line ends each transmission with an event
        assert_eq!(p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops, &mut pool), Line::Then(Next::TxDone(ms(8))));
        assert_eq!(p.on_line(&pool).map(|q| q.seq), Some(0));
        assert_eq!(p.finish_tx(ms(8), &mut drops, &mut pool), None, "lost on the wire");
        assert_eq!(drops.iter().map(|(q, r)| (q.seq, *r)).collect::<Vec<_>>(), [(0, DropReason::Loss)]);
        assert!(p.on_line(&pool).is_none());
        let (arrived, next) = p.deliver(ms(10), &mut pool);
        assert_eq!((arrived.seq, next), (7, NO_ARRIVAL), "the pipe held the lost packet no more");
        assert_eq!(p.stats.current.departures, 1, "its line was used");
    }

    /// A delay line: packet `seq` may leave `seq == 0 ? 4 : 0` ms after it arrived, the earliest
    /// released first; until one is released it asks to be woken when the first will be.
    #[derive(Default)]
    struct DelayLine {
        held: Vec<(Time, Packet)>,
        wake: Option<Time>,
    }

    impl Qdisc for DelayLine {
        fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
            let hold = if pkt.seq == 0 { ms(4) } else { Time::ZERO };
            self.held.push((ctx.now + hold, pkt));
        }
        fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
            let (i, &(release, _)) = self.held.iter().enumerate().min_by_key(|(_, (t, _))| *t)?;
            if release > ctx.now {
                self.wake = Some(release);
                return None;
            }
            Some(self.held.remove(i).1)
        }
        fn wake_at(&mut self) -> Option<Time> {
            self.wake.take()
        }
        fn len_packets(&self) -> usize {
            self.held.len()
        }
        fn len_bytes(&self) -> u64 {
            self.held.iter().map(|(_, p)| p.size as u64).sum()
        }
        fn for_each_packet(&self, _: &PacketPool, f: &mut dyn FnMut(&Packet)) {
            self.held.iter().for_each(|(_, p)| f(p))
        }
    }

    #[test]
    fn a_discipline_holding_packets_is_asked_again_when_its_timer_says() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port_with(Box::new(DelayLine::default()), false);
        let mut drops = vec![];
        // packet 0 at 0 ms, held 4 ms: the idle line gets nothing, and the timer is the event
        assert_eq!(p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops, &mut pool), Line::Idle);
        assert_eq!(p.start_tx(Time::ZERO, &mut drops, &mut pool), Next::TxDone(ms(4)));
        assert!(p.timer_set());
        // packet 1 at 1 ms, not held, goes at once (8 ms on the line) with packet 0 behind it
        assert_eq!(p.enqueue(pkt(0, 1, 1000), ms(1), &mut drops, &mut pool), Line::Idle);
        assert_eq!(p.start_tx(ms(1), &mut drops, &mut pool), Next::TxDone(ms(9)));
        // the timer finds the line busy: its end asks instead
        assert_eq!(p.woken(ms(4), &mut pool), Woken::Stale);
        assert!(!p.timer_set());
        assert_eq!(p.finish_tx(ms(9), &mut drops, &mut pool), Some(ms(19)));
        assert_eq!(p.start_tx(ms(9), &mut drops, &mut pool), Next::Nothing, "packet 0 follows packet 1 in the pipe");
        let got = [19, 27].map(|at| p.deliver(ms(at), &mut pool).0.seq);
        assert_eq!(got, [1, 0]);
        // alone, held 4 ms: asked again at its release by the timer, the line idle
        assert_eq!(p.enqueue(pkt(0, 0, 1000), ms(30), &mut drops, &mut pool), Line::Idle);
        assert_eq!(p.start_tx(ms(30), &mut drops, &mut pool), Next::TxDone(ms(34)));
        assert_eq!(p.woken(ms(34), &mut pool), Woken::Ask);
        assert_eq!(p.start_tx(ms(34), &mut drops, &mut pool), Next::Arrive(ms(52)));
        assert!(drops.is_empty());
    }

    #[test]
    fn each_packet_takes_the_transmission_time_of_its_own_size() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port_recording(5, true);
        let mut drops = vec![];
        // 1000, 125, 125, 1000 bytes at 1 Mb/s: 8, 1, 1 and 8 ms, each remembered from the last
        let mut now = Time::ZERO;
        for (seq, (size, ms_on_line)) in [(1000, 8), (125, 1), (125, 1), (1000, 8)].into_iter().enumerate() {
            let ends = now + ms(ms_on_line);
            assert_eq!(p.enqueue(pkt(0, seq as u64, size), now, &mut drops, &mut pool), Line::Then(Next::TxDone(ends)));
            p.finish_tx(ends, &mut drops, &mut pool);
            now = ends;
        }
    }

    #[test]
    fn a_packet_crosses_the_port_line_then_pipe() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port_recording(5, true);
        let mut drops = vec![];
        // FCFS with nothing queued: the packet goes straight to the idle line; 1000 bytes at
        // 1 Mb/s take 8 ms
        let first = p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops, &mut pool);
        assert_eq!(first, Line::Then(Next::TxDone(ms(8))), "the line was idle");
        assert_eq!(
            p.enqueue(pkt(0, 1, 1000), ms(1), &mut drops, &mut pool),
            Line::Then(Next::Nothing),
            "busy: it waits"
        );
        assert_eq!(p.qdisc.len_packets(), 1);
        // the first leaves the line and leads the pipe: its arrival is the event to schedule
        assert_eq!(p.finish_tx(ms(8), &mut drops, &mut pool), Some(ms(18)));
        assert_eq!(p.start_tx(ms(8), &mut drops, &mut pool), Next::TxDone(ms(16)));
        // the second follows in the pipe: the packet ahead of it holds the pipe's one event
        assert_eq!(p.finish_tx(ms(16), &mut drops, &mut pool), None);
        let (first, next) = p.deliver(ms(18), &mut pool);
        assert_eq!((first.seq, first.hop, next), (0, 1, ms(26)));
        let (second, next) = p.deliver(ms(26), &mut pool);
        assert_eq!((second.seq, next), (1, NO_ARRIVAL));
        assert!(drops.is_empty());
        assert_eq!(p.stats.current.departures, 2);
        assert_eq!(p.trace().unwrap().queue, vec![(Time::ZERO, 0), (ms(1), 1), (ms(8), 0)]);
    }

    #[test]
    fn a_transmission_with_nothing_behind_it_has_no_end_event_until_a_packet_waits() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port(5);
        p.keep_end_events();
        let mut drops = vec![];
        // nothing waits behind the first packet: it enters the pipe at once, and its arrival
        // (8 ms on the line, 10 ms of propagation) is the only event it needs
        assert_eq!(p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops, &mut pool), Line::Then(Next::Arrive(ms(18))));
        // a second packet waits behind it: now its end is an event after all, and only once
        assert_eq!(p.enqueue(pkt(0, 1, 1000), ms(1), &mut drops, &mut pool), Line::Then(Next::TxDone(ms(8))));
        assert_eq!(p.enqueue(pkt(0, 2, 1000), ms(2), &mut drops, &mut pool), Line::Then(Next::Nothing));
        assert_eq!(p.finish_tx(ms(8), &mut drops, &mut pool), None, "its packet is in the pipe already");
        assert_eq!(p.stats.current.departures, 1);
        // the second has the third behind it; the third goes with nothing behind it
        assert_eq!(p.start_tx(ms(8), &mut drops, &mut pool), Next::TxDone(ms(16)));
        assert_eq!(p.finish_tx(ms(16), &mut drops, &mut pool), None, "the pipe's head has its event");
        assert_eq!(p.start_tx(ms(16), &mut drops, &mut pool), Next::Nothing, "behind the others in the pipe");
        let got: Vec<_> = [18, 26, 34].map(|at| p.deliver(ms(at), &mut pool)).map(|(pkt, next)| (pkt.seq, next)).into();
        assert_eq!(got, vec![(0, ms(26)), (1, ms(34)), (2, NO_ARRIVAL)]);
        // the third's departure counts once its end has passed: not in an interval closed
        // before it, which gets its busy time so far, and in the next
        assert_eq!(p.stats.current.departures, 2);
        p.close_interval(ms(20), &mut pool);
        assert_eq!((p.stats.intervals[0].departures, p.stats.intervals[0].busy_ns), (2, ms(20).0));
        p.settle(ms(24), &mut pool);
        assert_eq!(p.stats.current.departures, 1, "counted once its end (24 ms) has come");
        p.close_interval(ms(30), &mut pool);
        assert_eq!((p.stats.intervals[1].departures, p.stats.intervals[1].busy_ns), (1, ms(4).0));
        assert_eq!(p.stats.intervals[1].bytes_sent, 1000);
        // a packet arriving at the very end of a transmission finds the line free, and follows
        // the one before it in the pipe
        assert_eq!(p.enqueue(pkt(0, 3, 1000), ms(40), &mut drops, &mut pool), Line::Then(Next::Arrive(ms(58))));
        assert_eq!(p.enqueue(pkt(0, 4, 1000), ms(48), &mut drops, &mut pool), Line::Then(Next::Nothing));
        p.settle(ms(48), &mut pool);
        assert_eq!(p.stats.current.departures, 1, "the second goes on until 56 ms");
        p.settle(ms(56), &mut pool);
        assert_eq!(p.stats.current.departures, 2);
        assert!(drops.is_empty());
    }

    /// Three packets at 0, 1 and 2 ms into an idle FCFS port (1000 bytes, 8 ms each on the line,
    /// 10 ms of propagation), the first two delivered at the far end: the same packets, times
    /// and records with end events (`keep_end_events`) and chained (none).
    #[test]
    fn a_chained_port_starts_each_waiting_packet_as_its_end_event_would_have() {
        let mut pool = PacketPool::standalone();
        let arrive = |p: &mut Port, seq: u64, at: u64, pool: &mut PacketPool| {
            p.enqueue(pkt(0, seq, 1000), ms(at), &mut vec![], pool)
        };
        let mut with_events = a_port(5);
        with_events.keep_end_events();
        assert_eq!(arrive(&mut with_events, 0, 0, &mut pool), Line::Then(Next::Arrive(ms(18))));
        assert_eq!(arrive(&mut with_events, 1, 1, &mut pool), Line::Then(Next::TxDone(ms(8))));
        assert_eq!(arrive(&mut with_events, 2, 2, &mut pool), Line::Then(Next::Nothing));
        for (end, then) in [(8, Next::TxDone(ms(16))), (16, Next::Nothing)] {
            assert_eq!(with_events.finish_tx(ms(end), &mut vec![], &mut pool), None);
            assert_eq!(with_events.start_tx(ms(end), &mut vec![], &mut pool), then);
        }
        let mut chained = a_port(5);
        assert_eq!(arrive(&mut chained, 0, 0, &mut pool), Line::Then(Next::Arrive(ms(18))));
        assert_eq!(arrive(&mut chained, 1, 1, &mut pool), Line::Then(Next::Nothing), "no end event");
        assert_eq!(arrive(&mut chained, 2, 2, &mut pool), Line::Then(Next::Nothing));
        assert_eq!(chained.stats.current.departures, 0, "nothing has looked at the port since");
        for p in [&mut with_events, &mut chained] {
            // the first's delivery starts the second (at 8 ms) and the third (16 ms) in turn
            let got = [18, 26].map(|at| p.deliver(ms(at), &mut pool)).map(|(pkt, next)| (pkt.seq, next));
            assert_eq!(got, [(0, ms(26)), (1, ms(34))]);
            p.close_interval(ms(30), &mut pool);
        }
        let records = |p: &Port| {
            let s = &p.stats;
            (s.intervals.clone(), s.sojourn.summary(), p.trace().map(|t| t.queue.clone()))
        };
        assert_eq!(records(&chained), records(&with_events));
        let (intervals, sojourn, queue) = records(&chained);
        assert_eq!((intervals[0].departures, sojourn.samples, sojourn.max_s), (3, 3, Some(0.014)));
        assert_eq!(queue.unwrap(), vec![(ms(0), 0), (ms(1), 1), (ms(2), 2), (ms(8), 1), (ms(16), 0)]);
    }

    /// htsim's ECN queue (`ecn_threshold`, K = 1000 bytes, marking a packet that leaves with
    /// more than K waiting, itself counted), 1000-byte ECN-capable packets at 0, 1, 2 and 12 ms,
    /// 8 ms each on the line: the second leaves at 8 ms with the third behind it (2000 bytes,
    /// marked), the third at 16 ms with the fourth, which came while the second was on the line
    /// (marked), the fourth alone at 24 ms (not). Chained, each mark is made when the port is
    /// next looked at, from the queue as it was at that end: the same marks as with end events.
    #[test]
    fn a_chained_ecn_threshold_marks_as_its_end_events_would_have() {
        let mut pool = PacketPool::standalone();
        let ecn_port = |chained: bool| {
            let params = r#"k = "1000B"
at = "dequeue""#;
            let kind = crate::qdisc::find("ecn_threshold").unwrap();
            let (qdisc, _) = kind.build(&params.parse().unwrap(), &port(BufferLimit::Packets(5), &[(0, 1)])).unwrap();
            let mut p = a_port_with(qdisc, false);
            if !chained {
                p.keep_end_events();
            }
            p
        };
        let arrive = |p: &mut Port, seq: u64, at: u64, pool: &mut PacketPool| {
            p.enqueue(pkt(0, seq, 1000).with_ect(true), ms(at), &mut vec![], pool)
        };
        let end = |p: &mut Port, at: u64, pool: &mut PacketPool| {
            assert_eq!(p.finish_tx(ms(at), &mut vec![], pool), None);
            p.start_tx(ms(at), &mut vec![], pool);
        };
        let deliver = |p: &mut Port, at: u64, pool: &mut PacketPool| {
            let (pkt, _) = p.deliver(ms(at), pool);
            (pkt.seq, pkt.congestion())
        };
        // with end events, in time order
        let mut with_events = ecn_port(false);
        (0..3).for_each(|seq| _ = arrive(&mut with_events, seq, seq, &mut pool));
        end(&mut with_events, 8, &mut pool);
        _ = arrive(&mut with_events, 3, 12, &mut pool);
        end(&mut with_events, 16, &mut pool);
        let mut seen = vec![deliver(&mut with_events, 18, &mut pool)];
        end(&mut with_events, 24, &mut pool);
        seen.extend([26, 34, 42].map(|at| deliver(&mut with_events, at, &mut pool)));
        // chained: no end is an event; the arrival at 12 ms and each delivery look at the port
        let mut chained = ecn_port(true);
        let lines = [(0, 0), (1, 1), (2, 2), (3, 12)].map(|(seq, at)| arrive(&mut chained, seq, at, &mut pool));
        assert_eq!(lines[1], Line::Then(Next::Nothing), "no end event");
        let chained_seen = [18, 26, 34, 42].map(|at| deliver(&mut chained, at, &mut pool));
        assert_eq!(seen, vec![(0, false), (1, true), (2, true), (3, false)]);
        assert_eq!(chained_seen.to_vec(), seen);
        for p in [&mut with_events, &mut chained] {
            p.close_interval(ms(50), &mut pool);
        }
        let records = |p: &Port| (p.stats.intervals.clone(), p.trace().map(|t| t.queue.clone()));
        assert_eq!(records(&chained), records(&with_events));
        assert_eq!(chained.stats.intervals[0].marks, 2);
    }

    #[test]
    fn a_full_buffer_reports_its_drop_and_an_idle_line_starts_nothing() {
        let mut pool = PacketPool::standalone();
        let mut p = a_port(1);
        let mut drops = vec![];
        p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops, &mut pool);
        p.enqueue(pkt(0, 1, 1000), Time::ZERO, &mut drops, &mut pool);
        p.enqueue(pkt(0, 2, 1000), Time::ZERO, &mut drops, &mut pool);
        assert_eq!(drops.iter().map(|(p, r)| (p.seq, *r)).collect::<Vec<_>>(), vec![(2, DropReason::TailDrop)]);
        let mut empty = a_port(1);
        assert_eq!(empty.start_tx(Time::ZERO, &mut drops, &mut pool), Next::Nothing);
        assert!(!p.overflowed());
    }
}
