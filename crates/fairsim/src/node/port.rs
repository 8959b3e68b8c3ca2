//! A port: one direction of a link. A queueing discipline feeds a transmitter of a given rate;
//! transmitted packets then propagate for the link's delay.
//!
//! The port owns its three verbs: a packet is queued (`enqueue`), the line takes the next one
//! (`start_tx`) and puts it into the pipe when its last bit is sent (`finish_tx`); the far end
//! takes it out (`deliver`). The port never touches the event queue: each verb returns the
//! instant of the event it needs, and the loop schedules it.
//!
//! Packets in propagation sit in a FIFO pipe (the delay is constant, so they arrive in the
//! order they left) and only the head has an event in the queue: a port has at most one pending
//! "transmission done" and one pending "arrival" event, whatever the load (htsim's idiom).
//!
//! A port with a loss model (`node::loss`) may lose a packet on the wire as its transmission
//! ends: it is reported as a drop (`DropReason::Loss`) instead of entering the pipe.

use super::loss::LinkLoss;
use crate::net::Packet;
use crate::qdisc::{DropReason, Qdisc, QdiscCtx};
use crate::rng::SimRng;
use crate::stats::PortStats;
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// What the line does after an arrival (`Port::enqueue`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// Transmitting another packet: the arrival waits (or was dropped).
    Busy,
    /// Idle: the caller starts the next transmission (`start_tx`).
    Idle,
    /// The packet went straight to the idle line (`Qdisc::bypass`); its transmission ends then.
    Started(Time),
}

pub struct Port {
    pub name: String,
    pub rate: Rate,
    pub delay: Time,
    /// Whether the packet on the line takes one of the buffer's places (REAL's convention).
    buffer_includes_line: bool,
    qdisc: Box<dyn Qdisc>,
    /// The discipline's random stream.
    rng: SimRng,
    /// Random loss on the wire, if the link has it (with its own random stream). Boxed: its
    /// generator's state is several hundred bytes, which a port without loss should not carry
    /// through the cache on every hop.
    loss: Option<Box<LinkLoss>>,
    /// The packet on the line and when its transmission started.
    transmitting: Option<(Packet, Time)>,
    /// Packets propagating, with their arrival times at the far end.
    pipe: VecDeque<(Time, Packet)>,
    pub stats: PortStats,
    /// Arrivals and departures, kept for the comparison with the fluid reference if asked for.
    pub fluid: Option<crate::stats::fluid::FluidRecord>,
    /// Queue length and the discipline's gauge at every change, if the port is traced.
    pub trace: Option<PortTrace>,
}

/// How a port is set up: its line, its discipline, and what it records.
pub struct PortSetup {
    pub name: String,
    pub rate: Rate,
    pub delay: Time,
    pub buffer_includes_line: bool,
    pub qdisc: Box<dyn Qdisc>,
    pub rng: SimRng,
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

/// A queue longer than this stops the run with an error instead of exhausting memory (about
/// 100 bytes a packet): only an unlimited buffer fed faster than it drains gets there.
pub const MAX_QUEUE_PACKETS: usize = 4_000_000;

impl Port {
    pub fn new(s: PortSetup) -> Port {
        Port {
            name: s.name,
            rate: s.rate,
            delay: s.delay,
            buffer_includes_line: s.buffer_includes_line,
            qdisc: s.qdisc,
            rng: s.rng,
            loss: s.loss.map(Box::new),
            transmitting: None,
            pipe: VecDeque::new(),
            stats: PortStats::default(),
            fluid: s.fluid.then(Default::default),
            trace: s.traced.then(PortTrace::default),
        }
    }

    /// Figures particular to the port's discipline, for the report.
    pub fn qdisc_stats(&self) -> Vec<(&'static str, f64)> {
        self.qdisc.stats()
    }

    /// Queues `pkt`, which arrives at `now`; the discipline reports what it drops into `drops`.
    /// Returns what the line does: nothing new, or it is idle (the caller starts a transmission),
    /// or the packet went straight to it (the caller schedules the end of its transmission).
    #[inline]
    pub fn enqueue(&mut self, mut pkt: Packet, now: Time, drops: &mut Vec<(Packet, DropReason)>) -> Line {
        pkt.enqueued_at = now;
        self.stats.current.arrivals += 1;
        if let Some(rec) = &mut self.fluid {
            rec.arrived(now.0, &pkt);
        }
        if self.transmitting.is_none() && self.qdisc.bypass(&pkt) {
            // what an enqueue and the dequeue at once would have done: the queue's length
            // recorded, a sojourn of zero, the packet on the line
            self.queue_changed(now);
            self.stats.sojourn.record(0);
            self.transmitting = Some((pkt, now));
            return Line::Started(now + self.rate.tx_time(pkt.size));
        }
        let on_line = self.transmitting.filter(|_| self.buffer_includes_line).map(|(p, _)| p.size);
        let mut ctx =
            QdiscCtx::new(now, self.rate, &mut self.rng, drops, &mut self.stats.current.marks).with_line(on_line);
        self.qdisc.enqueue(pkt, &mut ctx);
        if self.transmitting.is_some() {
            self.queue_changed(now);
            Line::Busy
        } else {
            // the caller starts a transmission at once, which records the queue's length
            Line::Idle
        }
    }

    /// Why the run cannot go on, if the queue outgrew any memory.
    #[inline]
    pub fn overflow(&self, now: Time) -> Option<String> {
        // every change of the queue is recorded, and an enqueue adds at most one packet to the
        // length last recorded: below the limit, no need to ask the discipline
        if self.stats.last_len() < MAX_QUEUE_PACKETS {
            return None;
        }
        (self.qdisc.len_packets() > MAX_QUEUE_PACKETS).then(|| self.overflow_message(now))
    }

    #[cold]
    fn overflow_message(&self, now: Time) -> String {
        format!(
            "the queue at port {} passed {MAX_QUEUE_PACKETS} packets at {now}: an unlimited buffer is fed faster \
             than its line drains it; give the link a `buffer` or slow the sources",
            self.name
        )
    }

    /// Puts the discipline's next packet, if any, on the idle line at `now`; returns when its
    /// transmission ends.
    #[inline]
    pub fn start_tx(&mut self, now: Time, drops: &mut Vec<(Packet, DropReason)>) -> Option<Time> {
        let mut ctx = QdiscCtx::new(now, self.rate, &mut self.rng, drops, &mut self.stats.current.marks);
        let next = self.qdisc.dequeue(&mut ctx);
        self.queue_changed(now);
        let pkt = next?;
        self.stats.sojourn.record((now - pkt.enqueued_at).0);
        self.transmitting = Some((pkt, now));
        Some(now + self.rate.tx_time(pkt.size))
    }

    /// The packet on the line is sent at `now` and starts to propagate; returns when it reaches
    /// the far end if it leads the pipe (otherwise the packet ahead of it has that event). A
    /// packet the link's loss model loses goes into `drops` instead, having used the line. The
    /// line is idle afterwards: the caller starts the next transmission.
    #[inline]
    pub fn finish_tx(&mut self, now: Time, drops: &mut Vec<(Packet, DropReason)>) -> Option<Time> {
        let (pkt, started) = self.transmitting.take().expect("TxDone only while transmitting");
        self.stats.add_busy(started, now);
        self.stats.current.departures += 1;
        self.stats.current.bytes_sent += pkt.size as u64;
        if let Some(rec) = &mut self.fluid {
            rec.departed(now.0, &pkt);
        }
        if self.loss.as_deref_mut().is_some_and(LinkLoss::lose) {
            self.qdisc.record_loss(now, &pkt);
            drops.push((pkt, DropReason::Loss));
            return None;
        }
        let arrival = now + self.delay;
        self.pipe.push_back((arrival, pkt));
        (self.pipe.len() == 1).then_some(arrival)
    }

    /// Takes the packet at the head of the pipe out at the far end, one hop further on its
    /// route; returns it with the arrival time of the next packet in the pipe, if any.
    #[inline]
    pub fn deliver(&mut self) -> (Packet, Option<Time>) {
        let (_, mut pkt) = self.pipe.pop_front().expect("Arrive only with a packet in the pipe");
        pkt.hop += 1;
        (pkt, self.pipe.front().map(|&(next, _)| next))
    }

    /// What the port's discipline wrote down, if it is logged (`[run] pcap`, `[run] events`).
    pub fn log(&self) -> Option<&[(Time, crate::qdisc::logged::PortEvent, Packet)]> {
        self.qdisc.log()
    }

    /// The packet on the line, if any.
    pub fn on_line(&self) -> Option<&Packet> {
        self.transmitting.as_ref().map(|(p, _)| p)
    }

    /// Closes the statistics' interval at `now`.
    pub fn close_interval(&mut self, now: Time) {
        let tx = self.transmitting.map(|(_, started)| started);
        self.stats.close_interval(now, tx);
    }

    /// Records the queue's length after a change, in the statistics and the trace.
    pub fn queue_changed(&mut self, now: Time) {
        let len = self.qdisc.len_packets();
        self.stats.queue_changed(now, len);
        if let Some(t) = &mut self.trace {
            t.record(now, len as u32, self.qdisc.gauge());
        }
    }

    /// Visits every packet held by the port: queued, on the line, or propagating.
    pub fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.qdisc.for_each_packet(f);
        if let Some((p, _)) = &self.transmitting {
            f(p);
        }
        self.pipe.iter().for_each(|(_, p)| f(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{pkt, port};
    use crate::qdisc::{Fcfs, FcfsConfig};
    use crate::units::BufferLimit;

    /// A 1 Mb/s port with 10 ms of propagation and room for `buffer` packets (FCFS).
    fn a_port(buffer: u64) -> Port {
        let info = port(BufferLimit::Packets(buffer), &[(0, 1)]);
        Port::new(PortSetup {
            name: "a->b".into(),
            rate: Rate(1_000_000),
            delay: Time::from_millis(10),
            buffer_includes_line: false,
            qdisc: Box::new(Fcfs::new(FcfsConfig {}, &info)),
            rng: crate::rng::stream(1, "test"),
            loss: None,
            fluid: false,
            traced: true,
        })
    }

    #[test]
    fn a_packet_crosses_the_port_line_then_pipe() {
        let mut p = a_port(5);
        let mut drops = vec![];
        // FCFS with nothing queued: the packet goes straight to the idle line; 1000 bytes at
        // 1 Mb/s take 8 ms
        let first = p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops);
        assert_eq!(first, Line::Started(Time::from_millis(8)), "the line was idle");
        assert_eq!(p.enqueue(pkt(0, 1, 1000), Time::from_millis(1), &mut drops), Line::Busy, "busy: it waits");
        assert_eq!(p.qdisc.len_packets(), 1);
        // the first leaves the line and leads the pipe: its arrival is the event to schedule
        assert_eq!(p.finish_tx(Time::from_millis(8), &mut drops), Some(Time::from_millis(18)));
        assert_eq!(p.start_tx(Time::from_millis(8), &mut drops), Some(Time::from_millis(16)));
        // the second follows in the pipe: the packet ahead of it holds the pipe's one event
        assert_eq!(p.finish_tx(Time::from_millis(16), &mut drops), None);
        let (first, next) = p.deliver();
        assert_eq!((first.seq, first.hop, next), (0, 1, Some(Time::from_millis(26))));
        let (second, next) = p.deliver();
        assert_eq!((second.seq, next), (1, None));
        assert!(drops.is_empty());
        assert_eq!(p.stats.current.departures, 2);
        assert_eq!(
            p.trace.as_ref().unwrap().queue,
            vec![(Time::ZERO, 0), (Time::from_millis(1), 1), (Time::from_millis(8), 0)]
        );
    }

    #[test]
    fn a_full_buffer_reports_its_drop_and_an_idle_line_starts_nothing() {
        let mut p = a_port(1);
        let mut drops = vec![];
        p.enqueue(pkt(0, 0, 1000), Time::ZERO, &mut drops);
        p.start_tx(Time::ZERO, &mut drops);
        p.enqueue(pkt(0, 1, 1000), Time::ZERO, &mut drops);
        p.enqueue(pkt(0, 2, 1000), Time::ZERO, &mut drops);
        assert_eq!(drops.iter().map(|(p, r)| (p.seq, *r)).collect::<Vec<_>>(), vec![(2, DropReason::TailDrop)]);
        let mut empty = a_port(1);
        assert_eq!(empty.start_tx(Time::ZERO, &mut drops), None);
        assert_eq!(p.overflow(Time::ZERO), None);
    }
}
