//! Receiver-driven transports' pulls (`node::pull`): the sink of such a flow asks its host's
//! pacer for a pull for each packet or header it takes, and the pacer sends them in turn.

use super::event::Event;
use super::sim::Simulation;
use crate::net::{FlowId, NodeId};
use crate::node::Ask;

impl Simulation {
    /// The sink of `c` took a packet (or a `trimmed` header) whose sender asks for pulls up to
    /// number `target` (EQDS): more pulls, or, once its file is all in, none of those still
    /// waiting (they would take turns from the host's other flows).
    pub(super) fn pull_for(&mut self, c: FlowId, trimmed: bool, target: u64) {
        let flow = &mut self.flows[c.idx()];
        let all_in = flow.all_in();
        let pulls = flow.pulls.as_mut().expect("a receiver-driven flow");
        if all_in {
            pulls.discard();
            return;
        }
        if pulls.spec.per_arrival {
            pulls.target += 1;
        } else if trimmed {
            pulls.urgent += 1;
        } else {
            pulls.target = pulls.target.max(target);
        }
        let node = flow.ends.dst;
        if self.pacers.len() <= node.idx() {
            self.pacers.resize_with(node.idx() + 1, Default::default);
        }
        match self.pacers[node.idx()].ask(c, pulls, self.now) {
            Ask::Now => self.pace(node),
            Ask::Arm(at) => self.events.push(at, Event::Pace(node)),
            Ask::Wait => {}
        }
    }

    /// Host `node`'s pacer sends the pull whose turn it is, if any.
    pub(super) fn pace(&mut self, node: NodeId) {
        let pacer = &mut self.pacers[node.idx()];
        let c = loop {
            let Some((f, tag, urgent)) = pacer.turn() else { return };
            let Some(pulls) = self.flows[f.idx()].pulls.as_mut().filter(|p| p.tag == tag) else { continue };
            match pulls.take_turn(urgent) {
                Some(more) => {
                    if more {
                        pacer.again(f, tag, urgent);
                    }
                    break f;
                }
                None => continue,
            }
        };
        let flow = &mut self.flows[c.idx()];
        let pulls = flow.pulls.as_ref().expect("a receiver-driven flow");
        let (number, fraction) = (pulls.issued, pulls.spec.fraction);
        let size = pulls.spec.slot.unwrap_or(flow.ends.packet_size);
        let (first, mut pull) = flow.pull(self.now, number);
        let rate = self.ports[first.idx()].rate;
        if let Some(at) = self.pacers[node.idx()].sent(self.now, size, rate, fraction) {
            self.events.push(at, Event::Pace(node));
        }
        pull.id = self.next_id();
        self.connection_sent(c);
        self.enqueue(first, pull);
    }
}
