//! A discipline that writes down what it does: every packet queued, sent and dropped, with
//! when. Ports whose packets the user wants to see (`[run] pcap`, `[run] events`) get their
//! discipline wrapped in this; every other port runs its discipline bare, so watching costs
//! nothing where nobody watches.

pub use super::discipline::PortEvent;
use super::discipline::{DropReason, Qdisc, QdiscCtx};
use crate::net::{Packet, PacketPool};
use crate::units::Time;

pub struct Logged {
    inner: Box<dyn Qdisc>,
    log: Vec<(Time, PortEvent, Packet)>,
}

impl Logged {
    pub fn new(inner: Box<dyn Qdisc>) -> Logged {
        Logged { inner, log: vec![] }
    }

    /// Writes down the drops the inner discipline just reported (from index `from` of the
    /// context's list).
    fn drops_since(&mut self, from: usize, ctx: &QdiscCtx) {
        for (pkt, reason) in ctx.drops_from(from) {
            self.log.push((ctx.now, PortEvent::Drop(*reason), *pkt));
        }
    }
}

impl Qdisc for Logged {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        self.log.push((ctx.now, PortEvent::Enqueue, pkt));
        let from = ctx.drop_count();
        self.inner.enqueue(pkt, ctx);
        self.drops_since(from, ctx);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let from = ctx.drop_count();
        let pkt = self.inner.dequeue(ctx);
        self.drops_since(from, ctx);
        if let Some(p) = &pkt {
            self.log.push((ctx.now, PortEvent::Dequeue, *p));
        }
        pkt
    }

    fn len_packets(&self) -> usize {
        self.inner.len_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.inner.len_bytes()
    }

    fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.inner.for_each_packet(pool, f)
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        self.inner.stats()
    }

    fn gauge(&self) -> Option<(&'static str, f64)> {
        self.inner.gauge()
    }

    fn wake_at(&mut self) -> Option<Time> {
        self.inner.wake_at()
    }

    fn may_wake_when_empty(&self) -> bool {
        self.inner.may_wake_when_empty()
    }

    fn stranded(&self, now: Time) -> Option<String> {
        self.inner.stranded(now)
    }

    fn log(&self) -> Option<&[(Time, PortEvent, Packet)]> {
        Some(&self.log)
    }

    fn record(&mut self, now: Time, event: PortEvent, pkt: &Packet) {
        self.log.push((now, event, *pkt));
    }

    /// The inner discipline's packets, written down as lost to the link's going down, not as
    /// sent.
    fn flush(&mut self, ctx: &mut QdiscCtx) -> Vec<Packet> {
        let from = ctx.drop_count();
        let lost = self.inner.flush(ctx);
        self.drops_since(from, ctx);
        for p in &lost {
            self.log.push((ctx.now, PortEvent::Drop(DropReason::LinkDown), *p));
        }
        lost
    }
}
