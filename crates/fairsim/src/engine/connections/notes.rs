//! What a partition of a parallel run tells the others about its connection slots, and what it
//! has heard of the whole run (`engine::parallel::slots` says how they agree on when a slot is
//! freed). Kept here, beside the slots, so that the connections need nothing of `parallel`.

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

    /// At a window's end: what this partition saw of each slot changed in the window, as
    /// `seen` tells it of slot k (its packets in the network here, when one last left, when
    /// its file was acknowledged if it was here).
    pub fn note(&mut self, seen: impl Fn(usize) -> (u32, Time, Option<Time>), out: &mut Vec<SlotNote>) {
        for k in self.changed.drain(..) {
            let i = k as usize;
            let (in_network, left_at, done_at) = seen(i);
            self.marked[i] = false;
            let entered_less_left = in_network.wrapping_sub(self.noted[i]);
            out.push(SlotNote { slot: k, entered_less_left, left_at, done_at });
            self.noted[i] = in_network;
        }
    }

    /// Hears one partition's notes of the window before (every partition's, in their order,
    /// then `gone`).
    pub fn hear(&mut self, heard: &[SlotNote]) {
        for note in heard {
            let i = note.slot as usize;
            self.grow(i);
            let whole = &mut self.whole[i];
            whole.in_network = whole.in_network.wrapping_add(note.entered_less_left);
            whole.left_at = whole.left_at.max(note.left_at);
            whole.done_at = whole.done_at.or(note.done_at);
            self.heard.push(note.slot);
        }
    }

    /// The slots the notes heard say are done and empty and not yet `released`, each with the
    /// time one run frees it (the later of its acknowledgement and its last packet's leaving),
    /// in that order.
    pub fn gone(&mut self, released: impl Fn(usize) -> bool) -> Vec<(Time, u32)> {
        let mut gone: Vec<(Time, u32)> = vec![];
        for k in self.heard.drain(..) {
            let whole = self.whole[k as usize];
            if let (Some(done_at), 0, false) = (whole.done_at, whole.in_network, released(k as usize)) {
                gone.push((done_at.max(whole.left_at), k));
            }
        }
        gone.sort_unstable();
        gone.dedup();
        gone
    }
}
