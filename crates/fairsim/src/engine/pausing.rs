//! Priority flow control in the loop (`pfc.rs` keeps the counts): a packet that enters or
//! leaves a PFC switch changes its ingress's count, which may send a pause frame; a frame that
//! arrives pauses or resumes its port; a RoCE NIC asks whether its line is paused; the report
//! reads what PFC counted and the deadlocks left at the end.

use super::event::Event;
use super::pfc::{Frame, LazyStart, PfcReport};
use super::port_table::PortTable;
use super::sim::Simulation;
use crate::net::{FlowId, Packet, PortId};
use crate::units::Time;

impl Simulation {
    /// The line a pause frame for port `p` takes back: its link's other direction.
    fn reverse(ports: &PortTable, p: PortId) -> (crate::units::Rate, Time) {
        let back = &ports[p.idx() ^ 1];
        (back.rate, back.delay)
    }

    /// `forward` in a run with PFC: `pkt`, arrived over port `p`, is counted by its ingress and
    /// queued at port `next`, which may put it on the line at once.
    #[cold]
    #[inline(never)]
    pub(super) fn forward_pfc(&mut self, p: PortId, next: PortId, pkt: Packet) {
        self.pfc_arrived(p, &pkt);
        self.enqueue(next, pkt);
        self.pfc_started(next);
    }

    /// `tx_end` in a run with PFC: the packet whose last bit leaves a PFC switch releases its
    /// ingress's bytes, or the lazy transmission that ends makes the release it owes; the next
    /// transmission may owe one.
    #[cold]
    #[inline(never)]
    pub(super) fn tx_end_pfc(&mut self, p: PortId) {
        let leaving = self.ports[p.idx()].on_line(&self.pool).copied();
        self.finish_tx(p);
        match leaving {
            Some(pkt) => self.pfc_left(&pkt),
            None => self.pfc_release_owed(p),
        }
        self.start_tx(p);
        self.pfc_started(p);
    }

    /// `pkt` came over port `p` into a node and is queued on there. If its ingress sends XOFF,
    /// the releases still owed to it get their end events.
    #[cold]
    pub(super) fn pfc_arrived(&mut self, p: PortId, pkt: &Packet) {
        let Some(pfc) = self.pfc.as_deref_mut() else { return };
        let Some(frame) = pfc.arrived(p, pkt, self.now, Simulation::reverse(&self.ports, p)) else { return };
        self.send_frame(frame);
        let pfc = self.pfc.as_deref().expect("a run with PFC");
        for &q in pfc.owed_to(p) {
            if let Some(ends) = self.ports[q.idx()].schedule_lazy_end() {
                self.events.push(ends, Event::TxDone(q));
            }
        }
    }

    /// Port `p` may have started a transmission: if it leaves a PFC switch and its packet went
    /// without an end event, the release it owes is kept (or, its ingress paused, its end gets
    /// an event). Called wherever a PFC switch's egress may start one: after a forwarded
    /// packet's enqueue (straight to the line, or the idle line's start), a transmission's end,
    /// a resume, a discipline's timer. Packets a host sends are no ingress's.
    #[cold]
    pub(super) fn pfc_started(&mut self, p: PortId) {
        let Some(pfc) = self.pfc.as_deref_mut() else { return };
        if !pfc.leaves_switch(p) {
            return;
        }
        let Some((pkt, ends)) = self.ports[p.idx()].lazy_start(self.now, &self.pool) else { return };
        if pfc.started_lazily(p, pkt, ends, self.now) == Some(LazyStart::EndEvent) {
            let at = self.ports[p.idx()].schedule_lazy_end().expect("a lazy transmission without its end event");
            self.events.push(at, Event::TxDone(p));
        }
    }

    /// The release port `p`'s lazy transmission owes, if any, made now: at its end event, or
    /// when its link goes down and the packet is lost (`failures`).
    #[cold]
    pub(super) fn pfc_release_owed(&mut self, p: PortId) {
        let Some(pfc) = self.pfc.as_deref_mut() else { return };
        let ports = &self.ports;
        if let Some(frame) = pfc.release_owed(p, self.now, |p| Simulation::reverse(ports, p)) {
            self.send_frame(frame);
        }
    }

    /// `pkt` left the node it was queued at (sent on, or dropped).
    #[cold]
    pub(super) fn pfc_left(&mut self, pkt: &Packet) {
        let Some(pfc) = self.pfc.as_deref_mut() else { return };
        let ports = &self.ports;
        if let Some(frame) = pfc.left(pkt, self.now, |p| Simulation::reverse(ports, p)) {
            self.send_frame(frame);
        }
    }

    /// Port `p` dropped `pkt`: its ingress forgets it, and a lossless packet dropped by a PFC
    /// switch's discipline stops the run.
    #[cold]
    pub(super) fn pfc_dropped(&mut self, p: PortId, pkt: &Packet, reason: crate::qdisc::DropReason) {
        self.pfc_left(pkt);
        let Some(pfc) = self.pfc.as_deref() else { return };
        if let Some(why) = pfc.lost(p, pkt, reason, || self.port_name(p)) {
            if self.failure.is_none() {
                self.failure = Some(why);
            }
            self.done = true;
        }
    }

    /// A pause frame goes to the port it pauses or resumes: its event, or, where another
    /// partition of a parallel run sends on that port, mail to it at the window's end (the frame
    /// takes at least the link's delay, so it arrives after that end).
    fn send_frame(&mut self, frame: Frame) {
        if self.holds(self.scenario.ports[frame.port.idx()].from) {
            self.events.push(frame.at, Event::Pause(frame.port, frame.pause));
        } else {
            self.partition.as_mut().expect("another partition sends on it").frames_out.push(frame);
        }
    }

    /// A pause frame reaches port `p`.
    pub(super) fn pause_frame(&mut self, p: PortId, xoff: bool) {
        if self.ports[p.idx()].pause(xoff, self.now, &mut self.pool) {
            self.start_tx(p);
            self.pfc_started(p);
        }
    }

    /// Whether the line of flow `f`'s source is paused (a sender that paces itself waits).
    pub(super) fn line_paused(&self, f: FlowId) -> bool {
        self.pfc.is_some() && self.flows[f.idx()].data_line.is_some_and(|p| self.ports[p.idx()].paused())
    }

    /// What PFC counted, for the report; `None` without it.
    pub(crate) fn pfc_report(&self) -> Option<PfcReport> {
        let pfc = self.pfc.as_deref()?;
        let ports = self.ports();
        // each port paused with packets waiting, and the ports its packets wait at next: those
        // where the packets its far end holds for it are queued
        let mut waits: std::collections::BTreeMap<PortId, Vec<PortId>> = Default::default();
        for (q, port) in ports.iter().enumerate() {
            port.for_each_queued(&self.pool, &mut |pkt| {
                if let Some(from) = pfc.held.get(pkt.id) {
                    let to = waits.entry(from).or_default();
                    if !to.contains(&PortId::from_idx(q)) {
                        to.push(PortId::from_idx(q));
                    }
                }
            });
        }
        let stuck: Vec<(PortId, Vec<PortId>)> = waits
            .into_iter()
            .filter(|(p, _)| ports[p.idx()].paused() && ports[p.idx()].queued_bytes() > 0)
            .map(|(p, mut to)| {
                to.retain(|q| ports[q.idx()].paused());
                (p, to)
            })
            .collect();
        Some(pfc.report(|p| self.port_name(p), &stuck))
    }
}
