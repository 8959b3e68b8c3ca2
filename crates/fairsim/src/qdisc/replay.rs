//! Driving a discipline outside the network: a trace of arrivals into one queue feeding one
//! line, served non-preemptively. Used by tests, the fluid-reference comparisons and the
//! per-packet cost benchmarks, which need a discipline alone rather than a whole scenario.

use super::discipline::{DropReason, Qdisc, QdiscCtx};
use crate::net::{Packet, PacketPool};
use crate::rng::LazyStream;
use crate::units::{Rate, Time};

/// What happened to the packets of a replay.
#[derive(Debug, Default)]
pub struct Replay {
    /// (start of transmission, end of transmission, packet), in the order sent.
    pub sent: Vec<(Time, Time, Packet)>,
    pub dropped: Vec<(Time, Packet, DropReason)>,
    pub marks: u64,
}

/// Feeds `arrivals` (sorted by time) to `q` in front of a line of `rate`, until all are sent or
/// dropped. Arrivals at the instant a transmission ends are enqueued before the next packet is
/// chosen.
pub fn replay(q: &mut dyn Qdisc, rate: Rate, arrivals: &[(Time, Packet)]) -> Replay {
    let mut out = Replay::default();
    let mut rng = LazyStream::new(0, "replay");
    let mut drops = vec![];
    let mut pool = PacketPool::standalone();
    let mut busy_until: Option<Time> = None;
    let mut i = 0;
    loop {
        let next_arrival = arrivals.get(i).map(|a| a.0);
        let now = match (next_arrival, busy_until) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => return out,
        };
        while i < arrivals.len() && arrivals[i].0 == now {
            let mut ctx = QdiscCtx::new(now, rate, &mut rng, &mut drops, &mut out.marks, &mut pool);
            q.enqueue(arrivals[i].1, &mut ctx);
            out.dropped.extend(drops.drain(..).map(|(p, r)| (now, p, r)));
            i += 1;
        }
        if busy_until.is_some_and(|b| b <= now) {
            busy_until = None;
        }
        if busy_until.is_none() {
            let mut ctx = QdiscCtx::new(now, rate, &mut rng, &mut drops, &mut out.marks, &mut pool);
            if let Some(p) = q.dequeue(&mut ctx) {
                let end = now + rate.tx_time(p.size);
                out.sent.push((now, end, p));
                busy_until = Some(end);
            }
            out.dropped.extend(drops.drain(..).map(|(p, r)| (now, p, r)));
        }
    }
}
