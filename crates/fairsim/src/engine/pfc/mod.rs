//! Priority flow control: a switch counts the bytes each ingress has brought in and not yet
//! sent on, pauses the port feeding that ingress when they pass `xoff`, and lets it resume when
//! they fall below `xon`. Nothing is dropped for want of room: the upstream port holds its
//! packets instead, and the pause can spread back hop by hop to the senders' own lines.
//!
//! Reference: IEEE 802.1Qbb-2011, Priority-based Flow Control (per-priority PAUSE frames with a
//! quanta timer); the accounting and thresholds follow the RoCE deployments of Guo et al., "RDMA
//! over Commodity Ethernet at Scale", SIGCOMM 2016 (ingress counters, XOFF/XON, headroom), and
//! htsim's `LosslessInputQueue` (Broadcom/csg-htsim 841d9e7), against which fairsim is validated
//! (docs/validation.md, "RoCE and PFC").
//!
//! Choices, and where the standard leaves them open:
//! - An ingress counts a packet from its arrival at the switch until its last bit leaves the
//!   egress port it was queued at (htsim's `completedService`): the packets waiting, and the one
//!   on the line. The count is read only at an arrival over its ingress (the XOFF test, its
//!   largest value, the headroom) and, while the ingress is paused, at each release (the XON
//!   test). So the egress ports of a PFC switch do not chain (each start is at an event, where
//!   its end becomes known), but a transmission with nothing behind it needs no end event
//!   (`Port`'s lazy ends): the release it owes is kept (`lazy`, `owed`) and made, as of its
//!   end, by the next arrival over its ingress, by the port's next lazy start, or by its end
//!   event if it has one (or when its link goes down and cuts its packet). An ingress that sends XOFF has an end event scheduled for each
//!   release still owed to it, and while it is paused its packets' lazy starts get one at once,
//!   so its XON goes at the instant the end events would have sent it. A port that only feeds a
//!   PFC switch (a host's line) keeps its lazy and chained transmissions, whose chain a pause
//!   stops.
//! - A pause is an XOFF sent when the count passes `xoff` and an XON when it falls below `xon`:
//!   no quanta timer (a pause lasts until its XON, as htsim's 1000-quanta frame that is never let
//!   expire). A frame takes the reverse line's delay, plus the time of `frame` bytes at its rate
//!   when given; it never waits behind data (MAC control frames go next).
//! - Headroom is not reserved: it is a level, `xoff + headroom`, above which an arrival is counted
//!   (`headroom_overflows`) and kept.
//! - A lossless priority never loses a packet at a PFC switch: if the egress port's discipline
//!   drops one (its `buffer` full, an AQM's early drop of a packet that is not ECN-capable), the
//!   run stops with an error naming the port and the reason, rather than report a lossless
//!   network that lost packets. Give those ports room for every ingress's `xoff` and headroom (or
//!   an unlimited buffer, the default), and ECN-capable transports under a marking AQM.
//! - Only packets of the lossless `priorities` are counted; a paused port stops whole, lossy
//!   packets included: fairsim's port has one queue, so per-priority queues at the transmitter are
//!   left out (htsim's lossless queues have one class too).
//! - A host's line is paused like any port; its packets wait in its queue, and a sender that sets
//!   its own pace (RoCE) sees the pause (`AgentCtx::paused`) and waits.
//! - Deadlock: at the end of the run, the cycles among the ports that are paused with packets
//!   waiting, each waiting on a port its packets are queued for at the next switch, are reported
//!   (`deadlocks`).

use super::port_table::PortTable;
use crate::net::{Packet, PortId};
use crate::scenario::PfcSpec;
use crate::scenario::Scenario;
use crate::units::Time;
use held::HeldIngress;

mod held;

pub(super) struct Pfc {
    spec: PfcSpec,
    /// By scenario port: whether its far end is a PFC switch (it feeds an ingress that counts).
    counted: Vec<bool>,
    /// By scenario port: whether it leaves a PFC switch.
    leaves: Vec<bool>,
    /// By port: the ingress its far end keeps for it.
    ingress: Vec<Ingress>,
    /// The ingress (the port it came over) of every counted packet still queued in a PFC switch,
    /// by id (a packet sent lazily leaves it for `lazy`).
    pub(super) held: HeldIngress,
    /// By port leaving a PFC switch: the release its lazy transmission (one without an end
    /// event) owes, if it is not made yet.
    lazy: Vec<Option<Owed>>,
    /// By ingress: the ports whose lazy transmissions owe it a release.
    owed: Vec<Vec<PortId>>,
}

/// A release owed by a lazy transmission: its packet's ingress and size, and its end.
#[derive(Copy, Clone)]
struct Owed {
    ingress: PortId,
    size: u32,
    ends: Time,
}

/// What a lazy transmission's start asks of the loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum LazyStart {
    /// Nothing: its release is owed, and made when the count is next read.
    Owed,
    /// Its packet's ingress is paused: its end needs an event, which makes the release (and
    /// perhaps the XON) at once.
    EndEvent,
}

#[derive(Copy, Clone, Default)]
struct Ingress {
    bytes: u64,
    /// An XOFF was sent and no XON since.
    paused: bool,
    max_bytes: u64,
    headroom_overflows: u64,
}

/// What a change of an ingress's count asks for: a pause frame for the port feeding it, to
/// arrive at the given instant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Frame {
    pub port: PortId,
    pub pause: bool,
    pub at: Time,
}

/// What a run's PFC counted, for its report.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PfcReport {
    /// By port, in scenario order: the most bytes its far end's ingress held for it (0 where the
    /// far end has no PFC).
    pub max_ingress_bytes: Vec<u64>,
    /// Arrivals beyond `xoff + headroom`, over all ingresses (0 when no headroom is given).
    pub headroom_overflows: u64,
    /// Cycles of ports paused with packets waiting, each on the next (a deadlock), by port name.
    pub deadlocks: Vec<Vec<String>>,
}

impl Pfc {
    /// The scenario's PFC, if it has any.
    pub fn new(scenario: &Scenario) -> Option<Box<Pfc>> {
        let spec = scenario.pfc.clone()?;
        let mut at_switch = vec![false; scenario.nodes.len()];
        spec.nodes.iter().for_each(|n| at_switch[n.idx()] = true);
        let counted: Vec<bool> = scenario.ports.iter().map(|p| at_switch[p.to.idx()]).collect();
        let leaves = scenario.ports.iter().map(|p| at_switch[p.from.idx()]).collect();
        let n = counted.len();
        let ingress = vec![Ingress::default(); n];
        let (held, lazy, owed) = (HeldIngress::default(), vec![None; n], vec![vec![]; n]);
        Some(Box::new(Pfc { spec, counted, leaves, ingress, held, lazy, owed }))
    }

    /// Whether port `p` feeds a PFC switch (it may be paused).
    pub fn feeds_switch(&self, p: PortId) -> bool {
        self.counted.get(p.idx()).copied().unwrap_or(false)
    }

    /// Whether port `p` leaves a PFC switch (its transmissions' ends release ingresses' bytes).
    pub fn leaves_switch(&self, p: PortId) -> bool {
        self.leaves.get(p.idx()).copied().unwrap_or(false)
    }

    fn lossless(&self, pkt: &Packet) -> bool {
        self.spec.priorities & 1 << pkt.priority.min(7) != 0
    }

    /// `pkt` came over port `p` into a switch at `now` and is queued on: its ingress counts it.
    /// Returns the XOFF to send if the count passed `xoff`; `reverse` is the line the frame takes
    /// back (its rate and delay).
    #[inline]
    pub fn arrived(
        &mut self,
        p: PortId,
        pkt: &Packet,
        now: Time,
        reverse: (crate::units::Rate, Time),
    ) -> Option<Frame> {
        if !self.feeds_switch(p) || !self.lossless(pkt) {
            return None;
        }
        if !self.owed[p.idx()].is_empty() {
            self.make_owed_releases(p, now);
        }
        self.held.insert(pkt.id, p);
        let xoff = self.spec.xoff;
        let headroom = self.spec.headroom;
        let ingress = &mut self.ingress[p.idx()];
        ingress.bytes += u64::from(pkt.size);
        ingress.max_bytes = ingress.max_bytes.max(ingress.bytes);
        if headroom.is_some_and(|h| ingress.bytes > xoff + h) {
            ingress.headroom_overflows += 1;
        }
        if ingress.bytes > xoff && !ingress.paused {
            ingress.paused = true;
            return Some(self.frame(p, true, now, reverse));
        }
        None
    }

    /// `pkt` has left its PFC switch (its last bit sent at `now`, or dropped there): its ingress
    /// forgets it. Returns the XON to send if the count fell below `xon`.
    #[inline]
    pub fn left(
        &mut self,
        pkt: &Packet,
        now: Time,
        reverse: impl Fn(PortId) -> (crate::units::Rate, Time),
    ) -> Option<Frame> {
        let p = self.held.remove(pkt.id)?;
        self.release(p, pkt.size).then(|| self.frame(p, false, now, reverse(p)))
    }

    /// `size` bytes of ingress `p` left: whether its count fell below `xon` while it was paused
    /// (it is not any more, and its XON goes now).
    fn release(&mut self, p: PortId, size: u32) -> bool {
        let xon = self.spec.xon;
        let ingress = &mut self.ingress[p.idx()];
        ingress.bytes -= u64::from(size);
        if ingress.bytes < xon && ingress.paused {
            ingress.paused = false;
            return true;
        }
        false
    }

    /// Port `q`, leaving a PFC switch, put `pkt` on its line at `now` with no end event (a lazy
    /// transmission, to end at `ends`); `None` if its ingress does not count it, or if this
    /// start was seen already. The release its previous lazy transmission owed, ended by now,
    /// is made first.
    pub fn started_lazily(&mut self, q: PortId, pkt: &Packet, ends: Time, now: Time) -> Option<LazyStart> {
        if self.lazy[q.idx()].is_some_and(|o| o.ends == ends) {
            return None; // this start, seen already
        }
        if let Some(before) = self.lazy[q.idx()] {
            debug_assert!(before.ends <= now, "a start before the line's last end");
            self.make_owed(q, before);
        }
        let ingress = self.held.remove(pkt.id)?;
        self.lazy[q.idx()] = Some(Owed { ingress, size: pkt.size, ends });
        self.owed[ingress.idx()].push(q);
        Some(if self.ingress[ingress.idx()].paused { LazyStart::EndEvent } else { LazyStart::Owed })
    }

    /// The release port `q`'s lazy transmission owes, if any, made at `now`: at its end event,
    /// or when its link goes down and cuts its packet (lost then, its end event taken back).
    /// Returns the XON to send if that brought its ingress's count below `xon`.
    pub fn release_owed(
        &mut self,
        q: PortId,
        now: Time,
        reverse: impl Fn(PortId) -> (crate::units::Rate, Time),
    ) -> Option<Frame> {
        let owed = self.lazy.get(q.idx()).copied().flatten()?;
        self.forget_owed(q, owed);
        let p = owed.ingress;
        self.release(p, owed.size).then(|| self.frame(p, false, now, reverse(p)))
    }

    /// The ports whose lazy transmissions owe ingress `p` a release: the ends that need an event
    /// once it has sent XOFF.
    pub fn owed_to(&self, p: PortId) -> &[PortId] {
        &self.owed[p.idx()]
    }

    /// The releases owed to ingress `p` whose transmissions ended by `now` (an arrival over it
    /// reads its count). It is not paused (a paused ingress's releases have end events, which
    /// come before any arrival of their instant), so none sends an XON.
    #[cold]
    fn make_owed_releases(&mut self, p: PortId, now: Time) {
        let mut i = 0;
        while let Some(&q) = self.owed[p.idx()].get(i) {
            match self.lazy[q.idx()] {
                Some(owed) if owed.ends <= now => self.make_owed(q, owed),
                _ => i += 1,
            }
        }
    }

    /// Makes the release `owed` by port `q` when the count is next read: its ingress is not
    /// paused (see the callers), so it sends no XON.
    fn make_owed(&mut self, q: PortId, owed: Owed) {
        self.forget_owed(q, owed);
        let xon = self.release(owed.ingress, owed.size);
        debug_assert!(!xon, "a paused ingress's release has an end event");
    }

    fn forget_owed(&mut self, q: PortId, owed: Owed) {
        self.lazy[q.idx()] = None;
        let list = &mut self.owed[owed.ingress.idx()];
        let at = list.iter().position(|&o| o == q).expect("an owed release is listed");
        list.swap_remove(at);
    }

    /// Why the run cannot go on, if port `p`'s discipline dropped `pkt` of a lossless priority
    /// at a PFC switch (the line's losses and a link down are not the discipline's).
    /// `name` makes the port's name, for the message only: a name is made, not kept
    /// (`PortSpec::name`), and a run with PFC may drop lossy packets often.
    pub fn lost(
        &self,
        p: PortId,
        pkt: &Packet,
        reason: crate::qdisc::DropReason,
        name: impl FnOnce() -> String,
    ) -> Option<String> {
        (self.leaves_switch(p) && self.lossless(pkt) && reason.by_discipline()).then(|| {
            let name = name();
            format!(
                "port {name} of a PFC switch dropped a packet of lossless priority {} ({}): a lossless network must not; \
                 give its queue an unlimited buffer (or room for every ingress's xoff and headroom), and a marking AQM \
                 ECN-capable transports (dcqcn, dctcp), or make the priority lossy ([pfc] priorities)",
                pkt.priority,
                reason.as_str()
            )
        })
    }

    fn frame(&self, port: PortId, pause: bool, now: Time, (rate, delay): (crate::units::Rate, Time)) -> Frame {
        let on_line = if self.spec.frame == 0 { Time::ZERO } else { rate.tx_time(self.spec.frame) };
        Frame { port, pause, at: now + on_line + delay }
    }

    /// A parallel run's PFC put together into partition 0's (`first`) from the others' (`rest`):
    /// each ingress's count and the releases owed to it as its switch's partition left them
    /// (`far`, by port: the partition of its far end), each egress's owed release as its own
    /// partition did (`near`), and every packet held anywhere.
    pub fn merge(first: &mut Pfc, rest: &mut [&mut Pfc], far: impl Fn(usize) -> usize, near: impl Fn(usize) -> usize) {
        for p in 0..first.ingress.len() {
            if let Some(other) = far(p).checked_sub(1) {
                first.ingress[p] = rest[other].ingress[p];
                first.owed[p] = std::mem::take(&mut rest[other].owed[p]);
            }
            if let Some(other) = near(p).checked_sub(1) {
                first.lazy[p] = rest[other].lazy[p];
            }
        }
        rest.iter_mut().for_each(|other| first.held.absorb(&mut other.held));
    }

    /// What the run's PFC counted; `paused_waiting` gives, for each port paused with packets
    /// waiting, the ports those packets' ingress bytes wait at (built by the caller from the
    /// queues), for the deadlock report, whose ports `name` names.
    pub fn report(&self, name: impl Fn(PortId) -> String, paused_waiting: &[(PortId, Vec<PortId>)]) -> PfcReport {
        PfcReport {
            max_ingress_bytes: self.ingress.iter().map(|i| i.max_bytes).collect(),
            headroom_overflows: self.ingress.iter().map(|i| i.headroom_overflows).sum(),
            deadlocks: cycles(paused_waiting).into_iter().map(|c| c.into_iter().map(&name).collect()).collect(),
        }
    }

    /// The egress ports of a PFC switch do not chain: each start is at an event, where the
    /// release its end owes becomes known (`started_lazily`). A port that may only be paused
    /// keeps its chain, which a pause stops (`Port::settle`). A run with more ports than a
    /// pause's event can name, or with connections on their own copies of a host's line, is
    /// refused.
    pub fn prepare(&self, scenario: &Scenario, ports: &mut PortTable) -> crate::error::Result<()> {
        // a connection's own copy of its host's line (`engine::arrivals`) is a port the run adds:
        // its ingress would go uncounted and its switch's end of the link unreleased
        if let Some(f) = (0..scenario.flows.len()).find(|&f| scenario.copied_access_line(f).is_some()) {
            return Err(crate::error::Error::Usage(format!(
                "flow {}: its connections each get a copy of their host's access line, which [pfc] \
                 cannot pause; run it with `forwarding = \"ecmp\"` (the connections then share the \
                 host's line), or without [pfc]",
                scenario.flows[f].name
            )));
        }
        if ports.len() > super::event::MAX_PAUSED_PORTS {
            return Err(crate::error::Error::Usage(format!(
                "{} ports are more than a run with [pfc] can name ({})",
                ports.len(),
                super::event::MAX_PAUSED_PORTS
            )));
        }
        // a partition of a parallel run holds only some of them
        for p in (0..self.leaves.len()).filter(|&p| self.leaves[p]) {
            if let Some(port) = ports.get_mut(p) {
                port.keep_end_events();
            }
        }
        Ok(())
    }
}

/// The cycles of the graph whose edges go from each port to the ports it waits on, each once,
/// starting at its lowest port; ports that are in no cycle are left out.
fn cycles(edges: &[(PortId, Vec<PortId>)]) -> Vec<Vec<PortId>> {
    let out: std::collections::BTreeMap<PortId, &Vec<PortId>> = edges.iter().map(|(p, to)| (*p, to)).collect();
    let mut found: Vec<Vec<PortId>> = vec![];
    // a depth-first walk from each port, keeping only cycles through the start and above it, so
    // each is found once; the graphs are the few paused ports of one run's end
    for &start in out.keys() {
        let mut path = vec![start];
        let mut next = vec![0usize];
        while let Some(&at) = path.last() {
            let i = *next.last().unwrap();
            let succ = out.get(&at).and_then(|v| v.get(i)).copied();
            *next.last_mut().unwrap() += 1;
            match succ {
                None => {
                    path.pop();
                    next.pop();
                }
                Some(s) if s == start => found.push(path.clone()),
                Some(s) if s > start && !path.contains(&s) && out.contains_key(&s) => {
                    path.push(s);
                    next.push(0);
                }
                Some(_) => {}
            }
            if found.len() >= 64 {
                return found; // enough to see the deadlock; a report need not list thousands
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    /// a -> gw -> b, gw a PFC switch pausing at 1,500 bytes and resuming below 1,500.
    fn a_switch() -> (Pfc, PortId, PortId) {
        let text = r#"
nodes = ["a", "gw", "b"]
[run]
duration = "1s"
[links]
in = { between = ["a", "gw"], rate = "1Mbps", delay = "3ms" }
out = { between = ["gw", "b"], rate = "1Mbps", delay = "7ms" }
[flows]
f = { src = "a", dst = "b", app = "ftp" }
[pfc]
xoff = "1500B"
xon = "1500B"
nodes = ["gw"]
"#;
        let sc = Scenario::parse(text, "pfc.toml", &[]).unwrap();
        let port = |name: &str| PortId::from_idx(sc.port_named(name).unwrap());
        let (ingress, egress) = (port("a->gw"), port("gw->b"));
        (*Pfc::new(&sc).unwrap(), ingress, egress)
    }

    #[test]
    fn a_release_owed_to_a_paused_ingress_sends_its_xon_when_made() {
        let (mut pfc, ingress, egress) = a_switch();
        let back = (Rate(1_000_000), Time::from_millis(3));
        let ms = Time::from_millis;
        let pkt = |id: u64| Packet { id, size: 1000, ..Packet::blank() };
        assert_eq!(pfc.arrived(ingress, &pkt(1), ms(0), back), None);
        // the first packet goes on the idle egress at once, lazily, to end at 8 ms
        assert_eq!(pfc.started_lazily(egress, &pkt(1), ms(8), ms(0)), Some(LazyStart::Owed));
        assert_eq!(pfc.started_lazily(egress, &pkt(1), ms(8), ms(0)), None, "a start is seen once");
        // 2,000 bytes counted: XOFF, and the egress owes the ingress its release
        let xoff = pfc.arrived(ingress, &pkt(2), ms(1), back).expect("an XOFF");
        assert_eq!((xoff.pause, xoff.at), (true, ms(4)));
        assert_eq!(pfc.owed_to(ingress), &[egress]);
        // the link is cut at 5 ms: the release is made then, and the XON goes
        let xon = pfc.release_owed(egress, ms(5), |_| back).expect("an XON");
        assert_eq!((xon.pause, xon.at), (false, ms(8)));
        assert!(pfc.owed_to(ingress).is_empty());
        assert_eq!(pfc.release_owed(egress, ms(8), |_| back), None, "the release is made once");
    }

    #[test]
    fn cycles_are_found_once_each_from_their_lowest_port() {
        let p = PortId;
        let edges = vec![
            (p(1), vec![p(2)]),
            (p(2), vec![p(3), p(5)]),
            (p(3), vec![p(1)]),
            (p(5), vec![p(6)]),
            (p(6), vec![]),
            (p(7), vec![p(8)]),
            (p(8), vec![p(7)]),
        ];
        assert_eq!(cycles(&edges), vec![vec![p(1), p(2), p(3)], vec![p(7), p(8)]]);
        assert!(cycles(&[(p(1), vec![p(2)]), (p(2), vec![])]).is_empty(), "a chain of pauses is no deadlock");
    }
}
