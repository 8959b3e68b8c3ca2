//! The connections of open-population flows (`app = "files"`, Kim & Farber 1994 §4.1.3):
//! they arrive as a Poisson process, each with its own sender and sink, and leave when the
//! ACK of their file's last packet is back.
//!
//! A connection's ends are a `FlowState` past the scenario's flows (`Packet::conn` names it);
//! its packets carry the flow's id, so queues, drops and the flow's counters see the flow. A
//! connection keeps its slot until nothing of it is left in the network, then the slot (and
//! its own access line, if it has one) serves the next arrival: the state grows with the
//! connections open at once, never with those already finished, and so does the work per
//! event. Each transfer leaves one row (arrival, finish, packets), the run's only record of it.

use crate::net::{FlowId, PortId};
use crate::stats::transfers::Transfers;
use crate::transport::SenderBuilder;
use std::collections::HashMap;

/// The connections of a run: their slots past the scenario's flows, and their transfers.
#[derive(Default)]
pub struct Connections {
    /// The index in the run's flows of slot 0 (the number of the scenario's flows).
    pub first: usize,
    /// The number of the scenario's ports; connections' own access lines come after them.
    pub first_own_port: usize,
    pub(super) slots: Vec<Slot>,
    /// Free slots, by the access line their own line copies (`Slot::copies`).
    pub(super) free: HashMap<Option<PortId>, Vec<u32>>,
    pub(super) open: usize,
    /// Arrivals so far, which name each connection's random streams.
    pub(super) arrived: u64,
    /// Each flow's next listed connection (`Population::Listed`), by flow index.
    listed: Vec<usize>,
    /// Each open-population flow's senders, its transport's parameters read once.
    pub(super) makers: Vec<Option<SenderBuilder>>,
    pub transfers: Transfers,
    /// When a port's events are written down (`[run] events`): by slot, when it was taken and
    /// by which `transfers` row, so that a packet's line names its transfer (a slot serves one
    /// transfer after another, and a packet is in the network only while its transfer holds
    /// its slot). `None` when nobody reads it.
    pub(super) taken: Option<Vec<Vec<(crate::units::Time, u32)>>>,
}

pub(super) struct Slot {
    /// The row of `transfers` of the connection in this slot.
    pub(super) row: usize,
    /// Its data packets and ACKs still in the network.
    pub(super) in_network: u32,
    /// Its file is acknowledged: its sender hears nothing more.
    pub(super) done: bool,
    /// The scenario's access line its own line copies, if it has one.
    pub(super) copies: Option<PortId>,
    /// Its own copy of that line.
    pub(super) own_line: Option<PortId>,
}

impl Connections {
    /// No connections yet, in a run of `flows` flows and `ports` ports.
    pub fn new(flows: usize, ports: usize) -> Connections {
        Connections { first: flows, first_own_port: ports, ..Default::default() }
    }

    #[inline]
    pub fn is_connection(&self, f: FlowId) -> bool {
        f.idx() >= self.first
    }

    #[inline]
    pub(super) fn slot(&mut self, f: FlowId) -> &mut Slot {
        &mut self.slots[f.idx() - self.first]
    }

    /// The index of flow `f`'s next listed connection, counted as taken.
    pub(super) fn listed_next(&mut self, f: FlowId) -> usize {
        if self.listed.len() <= f.idx() {
            self.listed.resize(f.idx() + 1, 0);
        }
        self.listed[f.idx()] += 1;
        self.listed[f.idx()] - 1
    }

    /// Slot `slot` was taken at `at` by the connection of `transfers` row `row`.
    pub(super) fn note_taken(&mut self, slot: usize, at: crate::units::Time, row: usize) {
        if let Some(taken) = &mut self.taken {
            if taken.len() <= slot {
                taken.resize(slot + 1, vec![]);
            }
            taken[slot].push((at, row as u32));
        }
    }

    /// The `transfers` row of the connection whose packet, of ends `f`, was seen at `at`
    /// (`None` for a scenario's flow, or when rows are not kept).
    pub(super) fn row_at(&self, f: FlowId, at: crate::units::Time) -> Option<u32> {
        let taken = self.taken.as_ref()?.get(f.idx().checked_sub(self.first)?)?;
        let after = taken.partition_point(|&(t, _)| t <= at);
        after.checked_sub(1).map(|i| taken[i].1)
    }

    /// Whether the sender of ends `f` still takes calls (a finished connection's does not).
    #[inline]
    pub fn listening(&self, f: FlowId) -> bool {
        !self.is_connection(f) || !self.slots[f.idx() - self.first].done
    }
}

#[cfg(test)]
mod tests;
