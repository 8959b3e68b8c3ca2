//! The discipline of a port whose link is down (`[[events]]`, `node::port`'s `link_state`): every
//! arriving packet is lost (`DropReason::LinkDown`) and nothing is sent. The port's own
//! discipline waits inside it, emptied, and takes its place again when the link comes back;
//! meanwhile it still answers for what it recorded (its figures, its log) and for any packet its
//! timer held back.
//!
//! Swapping the discipline, rather than asking at every arrival whether the link is up, is what
//! keeps runs without events exactly as fast as before: a port that never goes down runs the
//! same code.

use super::discipline::{DropReason, PortEvent, Qdisc, QdiscCtx};
use super::dispatch::PortQdisc;
use crate::net::{Packet, PacketPool};
use crate::units::Time;
use std::any::Any;

/// A port's discipline while its link is down: `inner` is the port's own.
pub struct Down {
    inner: Option<PortQdisc>,
}

impl Qdisc for Down {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        if let Some(q) = &mut self.inner {
            q.record(ctx.now, PortEvent::Enqueue, &pkt);
            q.record(ctx.now, PortEvent::Drop(DropReason::LinkDown), &pkt);
        }
        ctx.drop(pkt, DropReason::LinkDown);
    }
    fn dequeue(&mut self, _ctx: &mut QdiscCtx) -> Option<Packet> {
        None
    }
    fn len_packets(&self) -> usize {
        self.inner.as_ref().map_or(0, |q| q.len_packets())
    }
    fn len_bytes(&self) -> u64 {
        self.inner.as_ref().map_or(0, |q| q.len_bytes())
    }
    fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        if let Some(q) = &self.inner {
            q.for_each_packet(pool, f)
        }
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        self.inner.as_ref().map_or_else(Vec::new, |q| q.stats())
    }
    fn gauge(&self) -> Option<(&'static str, f64)> {
        self.inner.as_ref().and_then(|q| q.gauge())
    }
    fn log(&self) -> Option<&[(Time, PortEvent, Packet)]> {
        self.inner.as_ref().and_then(|q| q.log())
    }
    fn record(&mut self, now: Time, event: PortEvent, pkt: &Packet) {
        if let Some(q) = &mut self.inner {
            q.record(now, event, pkt)
        }
    }
    fn drained(&self) -> bool {
        true
    }
}

impl PortQdisc {
    /// Whether the port's link is down (its discipline is `Down`).
    pub fn is_down(&self) -> bool {
        matches!(self, PortQdisc::Boxed(q) if (q.as_ref() as &dyn Any).is::<Down>())
    }

    /// The link goes down: the port's discipline waits inside a `Down`.
    pub fn take_down(&mut self) {
        let own = std::mem::replace(self, PortQdisc::Boxed(Box::new(Down { inner: None })));
        *self = PortQdisc::Boxed(Box::new(Down { inner: Some(own) }));
    }

    /// The link comes back: the port's own discipline takes its place again.
    pub fn bring_up(&mut self) {
        let PortQdisc::Boxed(q) = std::mem::replace(self, PortQdisc::Boxed(Box::new(Down { inner: None }))) else {
            unreachable!("a port brought up is down")
        };
        let any: Box<dyn Any> = q;
        let down = any.downcast::<Down>().unwrap_or_else(|_| unreachable!("a port brought up is down"));
        *self = down.inner.unwrap_or_else(|| unreachable!("a port down holds its own discipline"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::port;
    use crate::qdisc::{Fcfs, FcfsConfig};
    use crate::rng::LazyStream;
    use crate::units::{BufferLimit, Rate};

    #[test]
    fn a_port_down_loses_every_arrival_and_gets_its_own_discipline_back() {
        let info = port(BufferLimit::Packets(10), &[]);
        let mut q = PortQdisc::new(Box::new(Fcfs::new(FcfsConfig {}, &info)));
        assert!(!q.is_down());
        q.take_down();
        assert!(q.is_down());
        let (mut rng, mut drops, mut marks) = (LazyStream::new(1, "t"), vec![], 0);
        let mut pool = crate::net::PacketPool::standalone();
        let mut ctx = QdiscCtx::new(Time::ZERO, Rate(1_000_000), &mut rng, &mut drops, &mut marks, &mut pool);
        q.enqueue(Packet::blank(), &mut ctx);
        assert_eq!(q.dequeue(&mut ctx), None);
        assert_eq!(drops.len(), 1);
        assert_eq!(drops[0].1, DropReason::LinkDown);
        q.bring_up();
        assert!(!q.is_down());
        assert!(matches!(q, PortQdisc::Fcfs(_)), "FCFS held in place again");
    }
}
