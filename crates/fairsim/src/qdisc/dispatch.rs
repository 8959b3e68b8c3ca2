//! A port's discipline, FCFS held in place and every other one behind a pointer (static
//! dispatch of the common discipline).
//!
//! FCFS is the discipline of every host's access line and of most bottlenecks, and its verbs
//! are a few instructions each (`bypass` is two compares): called through a `dyn Qdisc` each
//! paid an indirect call and could not be inlined into the port's hot path. Held in place, a
//! call is one predictable compare of the variant and the body inlines. Every other discipline
//! (and a logged FCFS) stays boxed, as before. Only a cost: which variant holds a discipline
//! changes no result.
//!
//! Measured (instructions, cachegrind): FCFS in place took 2.9% off the TCP dumbbell under FIFO
//! and 4.0% off the Generic one under FCFS. Variants for the round-robin family, RED and FQ
//! (boxed, called directly) were tried as well and made every workload 3–8% worse, FIFO's
//! included: their large bodies, inlined into the port's paths, cost more than the indirect
//! calls they saved. So only FCFS, whose verbs are a few instructions each.

use super::discipline::{PortEvent, Qdisc, QdiscCtx};
use super::fcfs::Fcfs;
use crate::net::{Packet, PacketPool};
use crate::units::Time;
use std::any::Any;

pub enum PortQdisc {
    Fcfs(Fcfs),
    Boxed(Box<dyn Qdisc>),
}

impl PortQdisc {
    /// `qdisc` in place if it is an FCFS, else as it is.
    pub fn new(qdisc: Box<dyn Qdisc>) -> PortQdisc {
        if !(qdisc.as_ref() as &dyn Any).is::<Fcfs>() {
            return PortQdisc::Boxed(qdisc);
        }
        let any: Box<dyn Any> = qdisc;
        PortQdisc::Fcfs(*any.downcast::<Fcfs>().unwrap_or_else(|_| unreachable!("checked to be an FCFS just above")))
    }
}

/// `$body` with `$q` bound to the discipline, whichever variant holds it.
macro_rules! on {
    ($self:expr, $q:ident => $body:expr) => {
        match $self {
            PortQdisc::Fcfs($q) => $body,
            PortQdisc::Boxed($q) => $body,
        }
    };
}

impl Qdisc for PortQdisc {
    #[inline]
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        on!(self, q => q.enqueue(pkt, ctx))
    }
    #[inline]
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        on!(self, q => q.dequeue(ctx))
    }
    #[inline]
    fn len_packets(&self) -> usize {
        on!(self, q => q.len_packets())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        on!(self, q => q.len_bytes())
    }
    fn for_each_packet(&self, pool: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        on!(self, q => q.for_each_packet(pool, f))
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        on!(self, q => q.stats())
    }
    #[inline]
    fn gauge(&self) -> Option<(&'static str, f64)> {
        on!(self, q => q.gauge())
    }
    fn wake_at(&mut self) -> Option<Time> {
        on!(self, q => q.wake_at())
    }
    fn may_wake_when_empty(&self) -> bool {
        on!(self, q => q.may_wake_when_empty())
    }
    fn stranded(&self, now: Time) -> Option<String> {
        on!(self, q => q.stranded(now))
    }
    fn log(&self) -> Option<&[(Time, PortEvent, Packet)]> {
        on!(self, q => q.log())
    }
    fn record(&mut self, now: Time, event: PortEvent, pkt: &Packet) {
        on!(self, q => q.record(now, event, pkt))
    }
    fn flush(&mut self, ctx: &mut QdiscCtx) -> Vec<Packet> {
        on!(self, q => q.flush(ctx))
    }
    #[inline]
    fn bypass(&self, pkt: &Packet) -> bool {
        on!(self, q => q.bypass(pkt))
    }
    #[inline]
    fn drained(&self) -> bool {
        on!(self, q => q.drained())
    }
    #[inline]
    fn chainable(&self) -> bool {
        on!(self, q => q.chainable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::port;
    use crate::qdisc::{FcfsConfig, Red, RedConfig};
    use crate::units::BufferLimit;

    #[test]
    fn fcfs_is_held_in_place_and_the_others_boxed() {
        let info = port(BufferLimit::Packets(10), &[]);
        let fcfs: Box<dyn Qdisc> = Box::new(Fcfs::new(FcfsConfig {}, &info));
        assert!(matches!(PortQdisc::new(fcfs), PortQdisc::Fcfs(_)));
        let red: Box<dyn Qdisc> = Box::new(Red::new(RedConfig::default(), &info).expect("the default RED builds"));
        assert!(matches!(PortQdisc::new(red), PortQdisc::Boxed(_)));
        let logged: Box<dyn Qdisc> =
            Box::new(crate::qdisc::logged::Logged::new(Box::new(Fcfs::new(FcfsConfig {}, &info))));
        assert!(matches!(PortQdisc::new(logged), PortQdisc::Boxed(_)), "a logged FCFS keeps its log");
    }
}
