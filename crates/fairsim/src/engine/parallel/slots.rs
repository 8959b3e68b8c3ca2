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

use crate::engine::sim::Simulation;
use crate::net::FlowId;
use crate::units::Time;

/// What a partition saw of a slot in a window.
#[derive(Copy, Clone, Debug)]
pub(in crate::engine) struct SlotNote {
    slot: u32,
    /// Its packets that entered the network here, less those that left (wrapping).
    entered_less_left: u32,
    /// When one of its packets last left the network here.
    left_at: Time,
    /// When its file was acknowledged, if it was here.
    done_at: Option<Time>,
}

/// By slot, what a partition has noted and what it has heard of the whole run.
#[derive(Default)]
pub(in crate::engine) struct SlotNotes {
    /// Slots changed in the window under way, each once (`marked`).
    changed: Vec<u32>,
    marked: Vec<bool>,
    /// Each slot's packets in the network here when it was last noted.
    noted: Vec<u32>,
    /// Each slot as the whole run's notes so far tell it.
    whole: Vec<Whole>,
    /// Slots heard of in the notes of the window before, to look at once all are heard.
    heard: Vec<u32>,
}

#[derive(Copy, Clone, Default)]
struct Whole {
    in_network: u32,
    left_at: Time,
    done_at: Option<Time>,
}

impl SlotNotes {
    fn grow(&mut self, k: usize) {
        if self.marked.len() <= k {
            self.marked.resize(k + 1, false);
            self.noted.resize(k + 1, 0);
            self.whole.resize(k + 1, Whole::default());
        }
    }

    /// Slot `k` changed here (a packet entered or left, or its file was acknowledged).
    #[inline]
    pub fn changed(&mut self, k: usize) {
        self.grow(k);
        if !self.marked[k] {
            self.marked[k] = true;
            self.changed.push(k as u32);
        }
    }

    /// Slot `k` was taken by a new connection, in every partition at once.
    pub fn taken(&mut self, k: usize) {
        self.grow(k);
        self.noted[k] = 0;
        self.whole[k] = Whole::default();
    }
}

impl Simulation {
    /// At a window's end: what this partition saw of each slot changed in the window.
    pub(super) fn note_slots(&mut self, out: &mut Vec<SlotNote>) {
        let Some(notes) = self.connections.notes.as_deref_mut() else { return };
        for k in notes.changed.drain(..) {
            let slot = &self.connections.slots[k as usize];
            let i = k as usize;
            notes.marked[i] = false;
            out.push(SlotNote {
                slot: k,
                entered_less_left: slot.in_network.wrapping_sub(notes.noted[i]),
                left_at: slot.left_at,
                done_at: slot.done.then_some(slot.done_at),
            });
            notes.noted[i] = slot.in_network;
        }
    }

    /// Hears one partition's notes of the window before (every partition's, in their order,
    /// then `free_heard`).
    pub(super) fn hear_slots(&mut self, heard: &[SlotNote]) {
        let Some(notes) = self.connections.notes.as_deref_mut() else { return };
        for note in heard {
            let i = note.slot as usize;
            notes.grow(i);
            let whole = &mut notes.whole[i];
            whole.in_network = whole.in_network.wrapping_add(note.entered_less_left);
            whole.left_at = whole.left_at.max(note.left_at);
            whole.done_at = whole.done_at.or(note.done_at);
            notes.heard.push(note.slot);
        }
    }

    /// Frees the slots the notes heard say are done and empty, at the time one run frees them.
    pub(super) fn free_heard(&mut self) {
        let Some(notes) = self.connections.notes.as_deref_mut() else { return };
        let mut gone: Vec<(Time, u32)> = vec![];
        for k in notes.heard.drain(..) {
            let whole = notes.whole[k as usize];
            let released = self.connections.slots[k as usize].released;
            if let (Some(done_at), 0, false) = (whole.done_at, whole.in_network, released) {
                gone.push((done_at.max(whole.left_at), k));
            }
        }
        gone.sort_unstable();
        gone.dedup();
        let first = self.connections.first;
        for (at, k) in gone {
            self.release(FlowId::from_idx(first + k as usize), at);
        }
    }
}
