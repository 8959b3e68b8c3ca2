//! A port: one direction of a link. A queueing discipline feeds a transmitter of a given rate;
//! transmitted packets then propagate for the link's delay.
//!
//! Packets in propagation sit in a FIFO pipe (the delay is constant, so they arrive in the
//! order they left) and only the head has an event in the queue: a port has at most one pending
//! "transmission done" and one pending "arrival" event, whatever the load (htsim's idiom).

use super::{NodeId, Packet};
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::stats::PortStats;
use crate::units::{BufferLimit, Rate, Time};
use std::collections::VecDeque;

pub struct Port {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    pub buffer: BufferLimit,
    /// Whether the packet on the line takes one of the buffer's places (REAL's convention).
    pub buffer_includes_line: bool,
    pub qdisc_name: String,
    pub qdisc: Box<dyn Qdisc>,
    pub rng: SimRng,
    /// The packet on the line and when its transmission started.
    pub transmitting: Option<(Packet, Time)>,
    /// Packets propagating, with their arrival times at the far end.
    pub pipe: VecDeque<(Time, Packet)>,
    pub stats: PortStats,
    /// Arrivals and departures, kept for the comparison with the fluid reference if asked for.
    pub fluid: Option<crate::stats::fluid::FluidRecord>,
    /// Queue length and the discipline's gauge at every change, if the port is traced.
    pub trace: Option<PortTrace>,
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

impl Port {
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
