//! The network's changes during a run (`[[events]]`): links that go down, come back or change
//! rate, and forwarding learning of it.
//!
//! Sources for the model's choices (docs/decisions.md, "Link failures"):
//! - Detection: BFD (Katz & Ward, RFC 5880, 2010), §6.8.4: a session is declared down when no
//!   control packet has come for the detection time, the remote multiplier times the agreed
//!   transmit interval; RFC 7419's fastest common interval, 3.3 ms, times the usual multiplier
//!   of 3 is 10 ms. A link whose signal is lost is seen down by its own ends sooner; the default,
//!   1 ms, is of that order. A change undone before it is detected goes unnoticed, as a BFD
//!   session would not notice it.
//! - What forwarding does then: a data centre's BGP fabric (Lapukhov, Premji & Mitchell, RFC
//!   7938, 2016, §7) withdraws the failed link's routes, and ECMP spreads over the next hops
//!   left, by hash-threshold (Hopps, RFC 2992, 2000: flows on other next hops may move too,
//!   its §4's disruption). Detection and the routes' withdrawal are one delay here, the same at
//!   every switch.
//! - A fat-tree's failures: Liu et al., "F10: A Fault-Tolerant Engineered Network", NSDI 2013:
//!   packets sent to a failed link are lost until it is detected and routed round.
//!
//! Each event of the scenario is a physical change at its `at`, and, for a link going down or
//! coming back, forwarding's learning of it `detection` later (`changes.rs`): forwarding then
//! takes the state the event's ports have at that moment. The changes are the loop's
//! `Event::Network` events, all scheduled as the run starts, after everything else at their
//! instant: a run without events has none, and pays nothing.

use super::changes::What;
use super::event::Event;
use super::sim::Simulation;
use crate::net::PortId;

impl Simulation {
    /// Queues every change of the network, as the run starts.
    pub(super) fn schedule_changes(&mut self) {
        for (n, c) in self.changes.iter().enumerate() {
            self.events.push(c.at, Event::Network(n as u32));
        }
    }

    /// The `n`-th change of the network happens. In a partition of a parallel run every
    /// partition handles it at the same instant: a link's going down or coming back acts on the
    /// ports this partition sends on (what happens to a port happens at its near end: packets
    /// already on the wire arrive), a new rate on the port wherever it is held or read (the fixed
    /// delays of paths read it), and forwarding learns in every partition what the changes say.
    #[cold]
    pub(super) fn network_change(&mut self, n: u32) {
        let (what, ports) = (self.changes[n as usize].what, self.changes[n as usize].ports.clone());
        match what {
            // on one thread every port; in a partition, those it sends on
            What::Down | What::Up => {
                let change = if what == What::Down { Simulation::port_down } else { Simulation::port_up };
                for p in ports {
                    if self.holds(self.scenario.ports[p.idx()].from) {
                        change(self, p);
                    }
                }
            }
            What::Rate(rate) => {
                for p in ports {
                    self.ports.set_rate(p.idx(), self.now, rate, &mut self.pool);
                }
                self.forget_path_delays();
            }
            What::Learn => {
                let states = super::changes::down_when_learnt(&self.changes, n as usize);
                if let Some(forwarder) = self.forwarder.as_mut() {
                    forwarder.learn(&states);
                }
            }
        }
    }

    /// Port `p`'s link goes down (nothing changes if it is down already): what was on its line
    /// and in its queue is lost, and the events its line had asked for are taken back.
    fn port_down(&mut self, p: PortId) {
        if self.ports[p.idx()].is_down() {
            return;
        }
        let shared = self.shared_before(p);
        let cut = self.ports[p.idx()].go_down(self.now, &mut self.drops, &mut self.pool);
        self.events.cancel(Event::TxDone(p));
        if self.pfc.is_some() {
            self.pfc_release_owed(p);
        }
        if cut.arrival {
            self.events.cancel(Event::Arrive(p));
        }
        if let Some(before) = shared {
            self.shared_after(p, before);
        }
        self.account_drops(p);
    }

    /// Port `p`'s link comes back (nothing changes if it is up).
    fn port_up(&mut self, p: PortId) {
        if !self.ports[p.idx()].is_down() {
            return;
        }
        let next = self.ports[p.idx()].come_up(self.now, &mut self.drops, &mut self.pool);
        self.schedule(p, next);
        self.account_drops(p);
    }
}
