//! CoDel, controlled delay: drops at the head of a FIFO when packets have waited too long.
//!
//! Reference: RFC 8289 (K. Nichols, V. Jacobson, A. McGregor, J. Iyengar, "Controlled Delay
//! Active Queue Management", 2018), whose §5 pseudo-code this follows. Each dequeued packet's
//! sojourn time (now − its arrival) is compared with `target` (5 ms); once it has stayed above
//! target for a whole `interval` (100 ms) the queue enters the dropping state: it drops the
//! packet at the head, and drops again at intervals that shrink as interval/√count (the control
//! law), until a packet's sojourn falls below target. A queue holding at most one MTU never
//! drops. Re-entering the dropping state soon (within 16 intervals) after leaving it starts from
//! the count of the last episode less the drops it had then (`count = count − lastcount`), so
//! a persistent queue is met with the drop rate that last controlled it.
//!
//! Choices and deviations: the square root is computed exactly (Linux uses a Newton step on a
//! cached reciprocal); times are nanoseconds; when the port's buffer is full the arrival is
//! dropped (tail drop: RFC 8289 leaves the limit to the implementation; Linux's is 1000
//! packets, ours the port's `buffer`); the drops of the control law are `early` drops. ECN
//! marking instead of dropping is an option (`ecn`, off by default as in Linux's
//! `codel`): a marked packet is sent and counts in the control law as a drop would.
//!
//! `CodelState` is the control law alone, on any FIFO: FQ-CoDel keeps one per flow queue.

use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::{Packet, PacketPool};
use crate::params::ParamError;
use crate::units::{BufferLimit, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// The acceptable standing queueing delay (RFC 8289: 5 ms).
    pub target: Time,
    /// How long the delay may stay above target before dropping starts; on the order of the
    /// worst round trip through the queue (RFC 8289: 100 ms).
    pub interval: Time,
    /// A queue of at most this many bytes never drops (one maximum-size packet; 1500).
    pub mtu: u32,
    /// Mark ECN-capable packets (CE) instead of dropping them (RFC 8289 §5.2; Linux's `ecn`).
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig { target: Time::from_millis(5), interval: Time::from_millis(100), mtu: 1500, ecn: false }
    }
}

impl CodelConfig {
    pub fn check(&self) -> Result<(), ParamError> {
        if self.interval == Time::ZERO {
            return Err(ParamError::at("interval", "must be above 0s"));
        }
        if self.target >= self.interval {
            return Err(ParamError::at("target", "must be below `interval`"));
        }
        Ok(())
    }

    /// The control law: the next drop `interval/√count` after `t`.
    fn next_drop(&self, t: Time, count: u32) -> Time {
        t + Time::from_secs_f64(self.interval.as_secs_f64() / (count as f64).sqrt())
    }
}

/// CoDel's state for one FIFO (RFC 8289 §5).
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    /// When the sojourn time, above target since, will have been so for an interval.
    first_above: Option<Time>,
    /// When the next drop is due, in the dropping state.
    drop_next: Time,
    /// Drops in this dropping episode (carried over from the last when it was recent).
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// Drops by the control law, over the run.
    pub drops: u64,
}

impl CodelState {
    /// RFC 8289's `dodequeue`: the head packet, and whether its sojourn has been above target
    /// for an interval (it may be dropped).
    fn head(
        &mut self,
        cfg: &CodelConfig,
        queue: &mut Fifo,
        now: Time,
        pool: &mut PacketPool,
    ) -> (Option<Packet>, bool) {
        let Some(pkt) = queue.pop(pool) else {
            self.first_above = None;
            return (None, false);
        };
        let sojourn = now - pkt.enqueued_at;
        if sojourn < cfg.target || queue.bytes() <= cfg.mtu as u64 {
            self.first_above = None;
            return (Some(pkt), false);
        }
        match self.first_above {
            None => {
                self.first_above = Some(now + cfg.interval);
                (Some(pkt), false)
            }
            Some(t) => (Some(pkt), now >= t),
        }
    }

    /// RFC 8289's `dequeue`: the packet to send from `queue`, after the drops the control law
    /// asks for (reported to `ctx`). With ECN, a signal to an ECN-capable packet marks it and
    /// sends it, as Linux does: the control law goes on as if it had been dropped.
    pub fn dequeue(&mut self, cfg: &CodelConfig, queue: &mut Fifo, ctx: &mut QdiscCtx) -> Option<Packet> {
        let now = ctx.now;
        let (mut pkt, mut ok_to_drop) = self.head(cfg, queue, now, ctx.pool);
        let Some(mut head) = pkt else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                let marked = self.signal(head, cfg, ctx);
                if marked.is_some() {
                    self.drop_next = cfg.next_drop(self.drop_next, self.count);
                    return marked;
                }
                (pkt, ok_to_drop) = self.head(cfg, queue, now, ctx.pool);
                match pkt {
                    Some(p) if ok_to_drop => {
                        head = p;
                        self.drop_next = cfg.next_drop(self.drop_next, self.count);
                    }
                    _ => {
                        self.dropping = false;
                        return pkt;
                    }
                }
            }
            Some(head)
        } else if ok_to_drop {
            let next = match self.signal(head, cfg, ctx) {
                Some(marked) => Some(marked),
                None => self.head(cfg, queue, now, ctx.pool).0,
            };
            self.dropping = true;
            // a recent episode: start near the drop rate that controlled the queue then
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = now.saturating_sub(self.drop_next) < Time(cfg.interval.0 * 16);
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = cfg.next_drop(now, self.count);
            self.lastcount = self.count;
            next
        } else {
            Some(head)
        }
    }

    /// The control law's signal to `pkt`: the packet back if it was marked, else dropped.
    fn signal(&mut self, pkt: Packet, cfg: &CodelConfig, ctx: &mut QdiscCtx) -> Option<Packet> {
        let marked = ctx.signal(pkt, cfg.ecn);
        self.drops += marked.is_none() as u64;
        marked
    }

    pub fn dropping(&self) -> bool {
        self.dropping
    }

    pub fn count(&self) -> u32 {
        self.count
    }
}

pub struct Codel {
    cfg: CodelConfig,
    queue: Fifo,
    limit: BufferLimit,
    state: CodelState,
}

impl Codel {
    pub fn new(cfg: CodelConfig, port: &PortInfo) -> Result<Self, ParamError> {
        cfg.check()?;
        Ok(Codel { cfg, queue: Fifo::default(), limit: port.buffer, state: CodelState::default() })
    }
}

impl Qdisc for Codel {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        ctx.push_or_drop(&mut self.queue, self.limit, pkt);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.state.dequeue(&self.cfg, &mut self.queue, ctx)
    }

    inspect_store!(queue);

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![("codel_drops", self.state.drops as f64)]
    }

    fn gauge(&self) -> Option<(&'static str, f64)> {
        Some(("codel_count", if self.state.dropping { self.state.count as f64 } else { 0.0 }))
    }
}

pub static DECLARATION: QdiscDeclaration<CodelConfig> = Declaration {
    about: About {
        name: "codel",
        summary: "CoDel: drops at the head once packets have waited above a target delay for an interval",
        reference: "RFC 8289",
    },
    defaults: || (CodelConfig::default(),),
    build: |(c,), port| Ok(Box::new(Codel::new(c.clone(), port)?)),
};

#[cfg(test)]
mod tests;
