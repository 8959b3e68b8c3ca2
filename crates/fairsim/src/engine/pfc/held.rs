//! The ingress of every packet a PFC switch holds, by packet id: looked up at each arrival at a
//! switch and at each last bit leaving one, so it must cost little.
//!
//! Packet ids grow in creation order and a switch holds a packet briefly, so the ids held at
//! once mostly differ in their low bits: a table indexed by them, whose slot keeps the whole id,
//! answers nearly every lookup in one probe. An id whose slot an older packet still holds (one
//! paused long) goes to a hash map; when that map grows past a quarter of the table, the table
//! doubles. What a lookup answers never depends on where an id sits, so the run does not
//! either. A general hash map here was 8% of a RoCE permutation's instructions.

use crate::net::PortId;
use fnv::FnvHashMap;

#[derive(Copy, Clone)]
struct Slot {
    /// `EMPTY` when free.
    id: u64,
    ingress: PortId,
}

const EMPTY: u64 = u64::MAX;
const FREE: Slot = Slot { id: EMPTY, ingress: PortId(0) };

pub(in crate::engine) struct HeldIngress {
    /// Indexed by the id's low bits; its length a power of two.
    slots: Vec<Slot>,
    /// The ids whose slot was taken when they came.
    overflow: FnvHashMap<u64, PortId>,
}

impl Default for HeldIngress {
    fn default() -> Self {
        HeldIngress { slots: vec![FREE; 1024], overflow: FnvHashMap::default() }
    }
}

impl HeldIngress {
    #[inline]
    fn slot(&self, id: u64) -> usize {
        (id as usize) & (self.slots.len() - 1)
    }

    /// Packet `id` came in over `ingress`.
    #[inline]
    pub fn insert(&mut self, id: u64, ingress: PortId) {
        debug_assert!(id != EMPTY && self.get(id).is_none(), "packet {id} is held twice");
        let i = self.slot(id);
        if self.slots[i].id == EMPTY {
            self.slots[i] = Slot { id, ingress };
        } else {
            self.overflow.insert(id, ingress);
            if self.overflow.len() > self.slots.len() / 4 {
                self.grow();
            }
        }
    }

    /// Packet `id` left: its ingress, if it was held.
    #[inline]
    pub fn remove(&mut self, id: u64) -> Option<PortId> {
        let i = self.slot(id);
        if self.slots[i].id == id {
            self.slots[i].id = EMPTY;
            return Some(self.slots[i].ingress);
        }
        if self.overflow.is_empty() {
            return None;
        }
        self.overflow.remove(&id)
    }

    /// The ingress of packet `id`, if it is held.
    pub fn get(&self, id: u64) -> Option<PortId> {
        let slot = self.slots[self.slot(id)];
        if slot.id == id {
            return Some(slot.ingress);
        }
        self.overflow.get(&id).copied()
    }

    /// Twice the slots, every id placed again.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let held = self.take_all();
        self.slots = vec![FREE; self.slots.len() * 2];
        held.into_iter().for_each(|(id, ingress)| self.insert(id, ingress));
    }

    /// Every id held, with its ingress, taken out.
    fn take_all(&mut self) -> Vec<(u64, PortId)> {
        let slots = self.slots.iter_mut().filter(|s| s.id != EMPTY);
        let taken = slots.map(|s| (std::mem::replace(&mut s.id, EMPTY), s.ingress));
        taken.chain(self.overflow.drain()).collect()
    }

    /// Takes in every id `other` holds (a parallel run's partitions number their packets apart).
    pub fn absorb(&mut self, other: &mut HeldIngress) {
        other.take_all().into_iter().for_each(|(id, ingress)| self.insert(id, ingress));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.id != EMPTY).count() + self.overflow.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn an_id_whose_slot_is_taken_is_still_found_and_the_table_grows() {
        let mut held = HeldIngress::default();
        // ids 1024 apart share a slot: all but the first overflow, until the table doubles
        for k in 0..400u64 {
            held.insert(7 + 1024 * k, PortId(k as u32));
        }
        assert!(held.slots.len() > 1024, "the table grew");
        assert_eq!(held.len(), 400);
        for k in (0..400u64).rev() {
            assert_eq!(held.get(7 + 1024 * k), Some(PortId(k as u32)));
            assert_eq!(held.remove(7 + 1024 * k), Some(PortId(k as u32)));
        }
        assert_eq!((held.len(), held.remove(7)), (0, None), "nothing is left");
    }

    proptest! {
        /// Any sequence of arrivals and departures answers as a map would.
        #[test]
        fn it_answers_as_a_map(ops in prop::collection::vec((0u64..5000, any::<bool>(), 0u32..64), 1..2000)) {
            let mut held = HeldIngress::default();
            let mut model = BTreeMap::new();
            for (id, arrive, port) in ops {
                if arrive && !model.contains_key(&id) {
                    held.insert(id, PortId(port));
                    model.insert(id, PortId(port));
                } else {
                    prop_assert_eq!(held.remove(id), model.remove(&id));
                }
                prop_assert_eq!(held.get(id), model.get(&id).copied());
            }
            prop_assert_eq!(held.len(), model.len());
        }
    }
}
