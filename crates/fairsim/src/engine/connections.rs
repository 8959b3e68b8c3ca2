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
//!
//! A slot freed at t may be taken again from t + `reuse_after` on (the smallest delay of any
//! link), slots freed at one instant in their order: so which slot an arrival takes never
//! depends on what happened less than a link's delay before it, and every partition of a
//! parallel run, which learns of a slot freed elsewhere at the end of the window it was freed
//! in, takes the same one (`engine::parallel`). A slot with its own access line is free at once
//! (such runs stay on one thread). docs/decisions.md, "Connection slots".

use crate::net::{FlowId, PortId};
use crate::stats::transfers::Transfers;
use crate::transport::SenderBuilder;
use crate::units::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// The connections of a run: their slots past the scenario's flows, and their transfers.
#[derive(Default)]
pub struct Connections {
    /// The index in the run's flows of slot 0 (the number of the scenario's flows).
    pub first: usize,
    /// The number of the scenario's ports; connections' own access lines come after them.
    pub first_own_port: usize,
    /// Each own access line's, in order: the access line it copies and the number of the
    /// connection it was made for (its name, `Simulation::port_name`).
    pub(super) own_lines: Vec<(PortId, u32)>,
    pub(super) slots: Vec<Slot>,
    /// Free slots, by the access line their own line copies (`Slot::copies`).
    pub(super) free: HashMap<Option<PortId>, Vec<u32>>,
    /// Slots freed and not yet free for the next arrival, by (when they may be taken, slot).
    pub(super) reusable: BinaryHeap<Reverse<(Time, u32)>>,
    /// How long a freed slot waits: the smallest nonzero delay of a link.
    pub(super) reuse_after: Time,
    /// Slots taken and not yet free again (what `MAX_OPEN_CONNECTIONS` bounds).
    pub(super) open: usize,
    /// Arrivals so far, which name each connection's random streams.
    pub(super) arrived: u64,
    /// Each flow's next listed connection (`Population::Listed`), by flow index.
    listed: Vec<usize>,
    /// Each open-population flow's senders, its transport's parameters read once.
    pub(super) makers: Vec<Option<SenderBuilder>>,
    /// In a parallel run, what this partition tells the others about its slots (`notes`,
    /// `engine::parallel::slots`); `None` in one run.
    pub(in crate::engine) notes: Option<Box<SlotNotes>>,
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
    /// When that was.
    pub(super) done_at: Time,
    /// When the last of its packets left the network (was delivered or dropped).
    pub(super) left_at: Time,
    /// It is done and gone: its counts went to its transfer and its flow, and its slot waits in
    /// `reusable` or is free.
    pub(super) released: bool,
    /// Its file has no end (a permutation's): it never finishes.
    pub(super) endless: bool,
    /// Its sink holds back the ACK of a data packet (a delayed ACK): that packet counts as in
    /// the network until the ACK goes, so that nothing of a connection whose slot is freed is
    /// left to enter the network (`Simulation::hold_for_ack`).
    pub(super) owes_ack: bool,
    /// The scenario's access line its own line copies, if it has one.
    pub(super) copies: Option<PortId>,
    /// Its own copy of that line.
    pub(super) own_line: Option<PortId>,
}

impl Connections {
    /// No connections yet, in a run of `flows` flows and `ports` ports whose smallest nonzero
    /// link delay is `reuse_after`.
    pub fn new(flows: usize, ports: usize, reuse_after: Time) -> Connections {
        Connections { first: flows, first_own_port: ports, reuse_after, ..Default::default() }
    }

    /// Slot `k`'s connection is gone since `at`: an arrival may take it from `at` +
    /// `reuse_after` on; or at once if it has its own access line (such connections never run
    /// in parallel, `engine::parallel::plan`), in the order they were freed.
    pub(super) fn free_slot(&mut self, k: usize, at: Time) {
        let copies = self.slots[k].copies;
        if copies.is_some() {
            self.free.entry(copies).or_default().push(k as u32);
            self.open -= 1;
        } else {
            self.reusable.push(Reverse((at + self.reuse_after, k as u32)));
        }
    }

    /// The slots freed by `now` become free for arrivals, in the order they were freed.
    pub(super) fn free_reusable(&mut self, now: Time) {
        while let Some(&Reverse((at, k))) = self.reusable.peek() {
            if at > now {
                break;
            }
            self.reusable.pop();
            let copies = self.slots[k as usize].copies;
            self.free.entry(copies).or_default().push(k);
            self.open -= 1;
        }
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

mod notes;
pub(in crate::engine) use notes::{SlotNote, SlotNotes};

#[cfg(test)]
mod tests;
