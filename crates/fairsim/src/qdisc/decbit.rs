//! DECbit gateways: FCFS queues that set the congestion bit of packets when the average queue
//! exceeds one; the selective variant only on the packets of conversations using more than
//! their fair share.
//!
//! References: K. K. Ramakrishnan and R. Jain, SIGCOMM 1988 (DEC TR-506..510), as described by
//! Demers, Keshav & Shenker 1989 §2.10/§3 and Keshav 1991 §6.5:
//! - original DECbit: the bit is set "on all packets whenever the average queue length is
//!   greater than one"; the average is over the last regeneration cycle (busy period plus idle
//!   period) and the current one;
//! - selective DECbit: the gateway measures the conversations' flows and signals only those
//!   above their fair share of the line, keeping the average queue close to one; a capacity
//!   factor (0.9 in the thesis's Scenario 6) sets the capacity shared; in "panic mode" every
//!   packet is marked.
//!
//! This is a reconstruction — the DEC reports' details are not in the seeds. Choices (all
//! parameters): the queue counted is the number of packets at the gateway, the one on the line
//! included; a packet is marked when it arrives; the flows are measured over the same window as
//! the average queue (bytes arrived, per conversation); fair shares are max-min shares of
//! `capacity_factor` × line rate; a conversation is signalled when its rate exceeds its share;
//! panic mode when the average queue exceeds `panic` (2 packets).

use super::classify::{Classifier, ConversationKey};
use super::discipline::QdiscDeclaration;
use super::discipline::{inspect_store, PortInfo, Qdisc, QdiscCtx};
use super::fifo::Fifo;
use crate::component::{About, Declaration};
use crate::net::Packet;
use crate::params::ParamError;
use crate::reference::max_min::max_min;
use crate::units::{BufferLimit, Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DecbitGatewayConfig {
    /// Mark when the average number of packets at the gateway exceeds this.
    pub threshold: f64,
    /// Selective only: the fraction of the line that is shared fairly.
    pub capacity_factor: f64,
    /// Selective only: above this average queue every packet is marked (above `threshold`).
    pub panic: f64,
    pub key: ConversationKey,
}

impl Default for DecbitGatewayConfig {
    fn default() -> Self {
        DecbitGatewayConfig { threshold: 1.0, capacity_factor: 0.9, panic: 2.0, key: ConversationKey::Flow }
    }
}

/// The average number of packets at the gateway over the last regeneration cycle and the
/// current one. A cycle starts when a packet finds the gateway empty.
#[derive(Debug, Default)]
struct CycleAverage {
    /// Start of the previous cycle, start of the current one.
    prev_start: Time,
    cur_start: Time,
    /// Integrals of the number of packets (packet·ns) over the previous and current cycles.
    prev_area: f64,
    cur_area: f64,
    last: Time,
    /// Packets at the gateway since `last`, and when the one on the line leaves.
    queued: usize,
    busy_until: Time,
}

impl CycleAverage {
    fn in_system(&self, t: Time) -> usize {
        self.queued + usize::from(t < self.busy_until)
    }

    /// Integrates up to `now`, the line's departure included.
    fn advance(&mut self, now: Time) {
        let mut t = self.last;
        if self.busy_until > t && self.busy_until < now {
            self.cur_area += self.in_system(t) as f64 * (self.busy_until - t).0 as f64;
            t = self.busy_until;
        }
        self.cur_area += self.in_system(t) as f64 * (now - t).0 as f64;
        self.last = now;
    }

    fn arrival(&mut self, now: Time) {
        self.advance(now);
        if self.in_system(now) == 0 {
            // regeneration: the cycle that just ended becomes the previous one
            self.prev_start = self.cur_start;
            self.prev_area = self.cur_area;
            self.cur_start = now;
            self.cur_area = 0.0;
        }
    }

    fn average(&self, now: Time) -> f64 {
        let span = (now - self.prev_start).0 as f64;
        if span > 0.0 {
            (self.prev_area + self.cur_area) / span
        } else {
            self.in_system(now) as f64
        }
    }
}

pub struct DecbitGateway {
    cfg: DecbitGatewayConfig,
    queue: Fifo,
    limit: BufferLimit,
    avg: CycleAverage,
    /// Selective: bytes arrived per conversation in the previous and current cycles.
    selective: Option<(Classifier, Vec<[u64; 2]>)>,
}

impl DecbitGateway {
    pub fn new(cfg: DecbitGatewayConfig, port: &PortInfo, selective: bool) -> Result<DecbitGateway, ParamError> {
        if !(cfg.capacity_factor > 0.0 && cfg.capacity_factor <= 1.0) {
            return Err(ParamError::at("capacity_factor", "a fraction of the line in (0, 1]"));
        }
        // the selective test runs between the two: at or below `threshold` no packet is marked,
        // above `panic` every packet is
        if selective && cfg.panic.partial_cmp(&cfg.threshold) != Some(std::cmp::Ordering::Greater) {
            return Err(ParamError::at(
                "panic",
                format!(
                    "panic ({}) must be above threshold ({}): between them conversations over their share are marked",
                    cfg.panic, cfg.threshold
                ),
            ));
        }
        let selective = selective.then(|| {
            let c = Classifier::new(cfg.key, port);
            let n = c.count();
            (c, vec![[0; 2]; n])
        });
        Ok(DecbitGateway { cfg, queue: Fifo::default(), limit: port.buffer, avg: CycleAverage::default(), selective })
    }

    /// Whether the arriving packet of conversation `c` gets the bit, given the average queue.
    fn signalled(&self, c: Option<usize>, avg: f64, now: Time, line: Rate) -> bool {
        let Some((_, bytes)) = &self.selective else { return avg > self.cfg.threshold };
        let c = c.expect("selective gateways classify");
        if avg > self.cfg.panic {
            return true;
        }
        if avg <= self.cfg.threshold {
            return false;
        }
        let secs = (now - self.avg.prev_start).as_secs_f64().max(1e-9);
        let demands: Vec<(Vec<usize>, Option<f64>)> =
            bytes.iter().map(|b| (vec![0], Some((b[0] + b[1]) as f64 * 8.0 / secs))).collect();
        let shares = max_min(&[self.cfg.capacity_factor * line.0 as f64], &demands);
        // conversations asking less than their share get what they ask: only those held below
        // their demand are above their share
        demands[c].1.unwrap_or(0.0) > shares[c] * (1.0 + 1e-6)
    }
}

impl Qdisc for DecbitGateway {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QdiscCtx) {
        let now = ctx.now;
        let regenerated = self.avg.in_system(now) == 0;
        self.avg.arrival(now);
        let c = self.selective.as_mut().map(|(classifier, bytes)| {
            let c = classifier.conv(&pkt);
            if regenerated {
                bytes.iter_mut().for_each(|b| *b = [b[1], 0]);
            }
            bytes[c][1] += pkt.size as u64;
            c
        });
        if self.signalled(c, self.avg.average(now), now, ctx.rate) {
            ctx.mark(&mut pkt);
        }
        if ctx.push_or_drop(&mut self.queue, self.limit, pkt) {
            self.avg.queued += 1;
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.avg.advance(ctx.now);
        let pkt = self.queue.pop(ctx.pool)?;
        self.avg.queued -= 1;
        self.avg.busy_until = ctx.now + ctx.rate.tx_time(pkt.size);
        Some(pkt)
    }

    inspect_store!(queue);

    fn stats(&self) -> Vec<(&'static str, f64)> {
        vec![("average_queue", self.avg.average(self.avg.last))]
    }
    fn chainable(&self) -> bool {
        true // marks only arrivals; its dequeue advances its own average to the end
    }
}

/// The `decbit` discipline, as scenarios name it.
pub static DECLARATION: QdiscDeclaration<DecbitGatewayConfig> = Declaration {
    about: About {
        name: "decbit",
        summary: "DECbit gateway: FCFS, sets the congestion bit when the cycle-average queue exceeds 1",
        reference: "Ramakrishnan & Jain, SIGCOMM 1988; DKS 1989 §2.10",
    },
    defaults: || (DecbitGatewayConfig::default(),),
    build: |(c,), port| Ok(Box::new(DecbitGateway::new(c.clone(), port, false)?)),
};

/// The `selective_decbit` discipline, as scenarios name it.
pub static SELECTIVE: QdiscDeclaration<DecbitGatewayConfig> = Declaration {
    about: About {
        name: "selective_decbit",
        summary: "selective DECbit: bits only to conversations above their fair share (capacity factor 0.9)",
        reference: "Jain & Ramakrishnan (DEC TR-510); DKS 1989 §2.10, Keshav 1991 §6.5",
    },
    defaults: || (DecbitGatewayConfig::default(),),
    build: |(c,), port| Ok(Box::new(DecbitGateway::new(c.clone(), port, true)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::replay::replay;
    use crate::qdisc::testing::{pkt, port};

    #[test]
    fn marks_once_the_cycle_average_exceeds_one() {
        // packets of 1 ms on the line arriving every 0.5 ms: the queue grows, the average too
        let mut q = DecbitGateway::new(DecbitGatewayConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1)]), false)
            .unwrap();
        let arrivals: Vec<_> = (0..20).map(|s| (Time(s * 500_000), pkt(0, s, 1000))).collect();
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let marked: Vec<bool> = r.sent.iter().map(|(_, _, p)| p.congestion()).collect();
        assert!(!marked[0] && !marked[1], "a short queue is not congestion: {marked:?}");
        assert!(marked[10..].iter().all(|&m| m), "{marked:?}");
        // spaced arrivals that never queue are never marked
        let mut q = DecbitGateway::new(DecbitGatewayConfig::default(), &port(BufferLimit::Unlimited, &[(0, 1)]), false)
            .unwrap();
        let arrivals: Vec<_> = (0..20).map(|s| (Time(s * 2_000_000), pkt(0, s, 1000))).collect();
        assert_eq!(replay(&mut q, Rate(8_000_000), &arrivals).marks, 0);
    }

    #[test]
    fn a_panic_level_at_or_below_the_threshold_is_refused_for_selective_decbit() {
        // it left no room for the selective test: accepted, and every conversation was marked
        let p = port(BufferLimit::Unlimited, &[(0, 1)]);
        for panic in [0.5, 1.0, f64::NAN] {
            let cfg = DecbitGatewayConfig { panic, ..Default::default() };
            let e = DecbitGateway::new(cfg.clone(), &p, true).err().unwrap();
            assert_eq!(e.path, vec!["panic".to_string()]);
            assert!(e.message.contains("must be above threshold (1)"), "{}", e.message);
            assert!(DecbitGateway::new(cfg, &p, false).is_ok(), "plain DECbit has no panic mode");
        }
    }

    #[test]
    fn selective_marks_only_the_conversation_above_its_share() {
        // conversation 0 sends 3 packets per 2 ms (12 Mb/s), conversation 1 one per 4 ms
        // (2 Mb/s): 90% of the 8 Mb/s line shared max-min gives 2 and 5.2 Mb/s, so only
        // conversation 0 exceeds its share (panic mode out of the way: this open-loop overload
        // grows the queue without end)
        let cfg = DecbitGatewayConfig { panic: f64::INFINITY, ..Default::default() };
        let mut q = DecbitGateway::new(cfg, &port(BufferLimit::Unlimited, &[(0, 1), (0, 1)]), true).unwrap();
        let mut arrivals = vec![];
        for k in 0..200u64 {
            arrivals.push((Time(k * 2_000_000), pkt(0, 3 * k, 1000)));
            arrivals.push((Time(k * 2_000_000 + 600_000), pkt(0, 3 * k + 1, 1000)));
            arrivals.push((Time(k * 2_000_000 + 1_200_000), pkt(0, 3 * k + 2, 1000)));
            if k % 2 == 0 {
                arrivals.push((Time(k * 2_000_000 + 1_000_000), pkt(1, k, 1000)));
            }
        }
        arrivals.sort_by_key(|a| a.0);
        let r = replay(&mut q, Rate(8_000_000), &arrivals);
        let marks = |f: u32| r.sent.iter().filter(|(_, _, p)| p.flow.0 == f && p.congestion()).count();
        assert!(marks(0) > 100, "the heavy conversation is signalled: {}", marks(0));
        // the light one is not, but for its very first packet, measured over one millisecond
        assert!(marks(1) <= 1, "the light one is not: {}", marks(1));
    }
}
