//! A port's rare parts (`Extras`, behind one pointer of the port): the link's random loss,
//! the record for the fluid reference, the queue's trace, the INT stamper, the counters only a
//! lossy, failing or paused line counts and the time since when it is paused, read here.

use super::{Port, PortCounters, PortTrace, RareCounters};
use crate::net::int::PortInt;
use crate::net::{Packet, PacketPool};
use crate::node::loss::LinkLoss;
use crate::qdisc::Qdisc;
use crate::stats::fluid::FluidRecord;
use crate::units::Time;

impl Port {
    /// The record of arrivals and departures for the fluid reference, if the port keeps one.
    pub fn fluid(&self) -> Option<&FluidRecord> {
        self.extras.as_ref()?.fluid.as_deref()
    }

    /// The queue's trace, if the port is traced.
    pub fn trace(&self) -> Option<&PortTrace> {
        self.extras.as_ref()?.trace.as_deref()
    }

    fn fluid_mut(&mut self) -> Option<&mut FluidRecord> {
        self.extras.as_mut()?.fluid.as_deref_mut()
    }

    pub(super) fn trace_mut(&mut self) -> Option<&mut PortTrace> {
        self.extras.as_mut()?.trace.as_deref_mut()
    }

    #[inline]
    pub(super) fn loss_mut(&mut self) -> Option<&mut LinkLoss> {
        self.extras.as_mut()?.loss.as_deref_mut()
    }

    /// An arrival at `now`, for the fluid reference if the port keeps its record. Out of line,
    /// as the port's rare parts are.
    #[cold]
    #[inline(never)]
    pub(super) fn record_arrival(&mut self, now: Time, pkt: &Packet) {
        if let Some(rec) = self.fluid_mut() {
            rec.arrived(now.0, pkt);
        }
    }

    /// The departure at `now` of the packet on the line (at the pipe's tail), for the fluid
    /// reference if the port keeps its record.
    #[cold]
    #[inline(never)]
    pub(super) fn record_departure(&mut self, now: Time, pool: &PacketPool) {
        let pkt = self.pipe.back(pool).expect(super::PACKET_ON_LINE).pkt;
        if let Some(rec) = self.fluid_mut() {
            rec.departed(now.0, &pkt);
        }
    }

    /// The queue's length `len` from `now` on, with the discipline's gauge, if the port is
    /// traced.
    #[cold]
    #[inline(never)]
    pub(super) fn record_queue(&mut self, now: Time, len: usize) {
        let gauge = self.qdisc.gauge();
        if let Some(trace) = self.trace_mut() {
            trace.record(now, len as u32, gauge);
        }
    }

    /// The port's INT stamper, if it stamps.
    #[inline]
    pub fn int_mut(&mut self) -> Option<&mut PortInt> {
        self.extras.as_mut()?.int.as_deref_mut()
    }

    pub(super) fn stamps(&self) -> bool {
        // `records` first: a port that was only paused has rare parts, and no stamper in them
        self.records && self.extras.as_ref().is_some_and(|x| x.int.is_some())
    }

    pub(super) fn set_stamper(&mut self, int: PortInt) {
        self.extras.get_or_insert_default().int = Some(Box::new(int));
        self.records = true;
    }

    /// The interval's counters so far, the rare ones with them.
    pub fn counters_now(&self) -> PortCounters {
        self.stats.current.with(self.extras.as_ref().map(|x| &x.counters))
    }

    /// The interval's rare counters, to count in: the port keeps its rare parts from then on.
    #[cold]
    #[inline(never)]
    pub(crate) fn rare_counters(&mut self) -> &mut RareCounters {
        &mut self.extras.get_or_insert_default().counters
    }

    /// Since when a PFC switch at the far end has paused the port; `Time::MAX` if it has not.
    #[inline]
    pub(super) fn paused_since(&self) -> Time {
        self.extras.as_ref().map_or(Time::MAX, |x| x.paused_since)
    }

    /// The port is paused from `since` on (`Time::MAX`: resumed).
    pub(super) fn set_paused_since(&mut self, since: Time) {
        self.extras.get_or_insert_default().paused_since = since;
    }
}
