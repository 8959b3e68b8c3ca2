//! Connection slots in a parallel run: when a finished connection's slot is free again.
//!
//! In one run a connection's slot is freed when its file is acknowledged and its last packet has
//! left the network, and an arrival may take it a link's delay later (`engine::connections`).
//! In a parallel run those facts are spread out: the file's acknowledgement is seen where the
//! sender is, and each partition counts the packets that entered and left the network there.
//! So each partition notes its changed slots at a window's end (`SlotNote`), every partition
//! hears every partition's notes at the next window's start, in the partitions' order, and
//! adds them up into the same view of the whole run. A slot is freed when that view says it is
//! done and empty, at the time one run frees it: the later of its acknowledgement and its last
//! packet's leaving (after the acknowledgement nothing of a connection enters the network
//! without something leaving: its sink answers arrivals, and its timers are stopped). A window
//! lasts at most `reuse_after`, so every partition hears of a slot freed at t before an arrival
//! at t + `reuse_after` could take it, and all take the same slots.

use crate::engine::connections::SlotNote;
use crate::engine::sim::Simulation;
use crate::net::FlowId;

impl Simulation {
    /// At a window's end: what this partition saw of each slot changed in the window.
    pub(super) fn note_slots(&mut self, out: &mut Vec<SlotNote>) {
        let Some(notes) = self.connections.notes.as_deref_mut() else { return };
        let slots = &self.connections.slots;
        notes.note(|k| (slots[k].in_network, slots[k].left_at, slots[k].done.then_some(slots[k].done_at)), out);
    }

    /// Hears one partition's notes of the window before (every partition's, in their order,
    /// then `free_heard`).
    pub(super) fn hear_slots(&mut self, heard: &[SlotNote]) {
        if let Some(notes) = self.connections.notes.as_deref_mut() {
            notes.hear(heard);
        }
    }

    /// Frees the slots the notes heard say are done and empty, at the time one run frees them.
    pub(super) fn free_heard(&mut self) {
        let Some(notes) = self.connections.notes.as_deref_mut() else { return };
        let first = self.connections.first;
        let slots = &self.connections.slots;
        for (at, k) in notes.gone(|k| slots[k].released) {
            self.release(FlowId::from_idx(first + k as usize), at);
        }
    }
}
