//! A run's ports by id (`PortId`): every one of them, or, in a partition of a parallel run
//! (`engine::parallel`), only those it handles events of, the ports its nodes send on and
//! those that bring packets to them. The others are the other partitions' business, and a copy
//! of each in every partition made a k = 64 fat-tree's run take about 490 MiB more with each
//! thread (its 393,216 ports are 258 MiB), so a run on every core of a big machine would need
//! memory in proportion to its cores.
//!
//! A whole table is a `Vec` in id order and an index is the id; a partition's also keeps each
//! id's place among the ports it holds. The loop reads ports by index on every event, so the
//! whole table's way is the first branch, and one thread's run reads no more than a `Vec` does
//! but that branch.

use crate::node::Port;
use std::ops::{Index, IndexMut};

/// A place for a port that another partition holds.
const ELSEWHERE: u32 = u32::MAX;

#[derive(Default)]
pub(crate) struct PortTable {
    held: Vec<Port>,
    /// In a partition, each port's place in `held`, by id (`ELSEWHERE` for another's); `None`
    /// when the table holds every port, in id order.
    places: Option<Box<[u32]>>,
}

impl PortTable {
    /// Every port, in id order.
    pub fn whole(ports: Vec<Port>) -> PortTable {
        PortTable { held: ports, places: None }
    }

    /// A partition's ports: of `len` ids, those `held` marks, given in id order.
    pub fn partial(ports: Vec<Port>, held: &[bool]) -> PortTable {
        let mut places = vec![ELSEWHERE; held.len()].into_boxed_slice();
        let ids = (0..held.len()).filter(|&id| held[id]);
        ids.enumerate().for_each(|(place, id)| places[id] = place as u32);
        assert_eq!(ports.len(), held.iter().filter(|&&h| h).count(), "a port for each id held");
        PortTable { held: ports, places: Some(places) }
    }

    /// Keeps of a whole table only the ports `held` marks, by id (the first partition, which
    /// the run was before it split).
    pub fn keep_only(&mut self, held: &[bool]) {
        assert!(self.is_whole() && held.len() == self.len(), "a whole table, and a mark for each port");
        let ports = std::mem::take(&mut self.held);
        let kept = ports.into_iter().zip(held).filter_map(|(port, &h)| h.then_some(port)).collect();
        *self = PortTable::partial(kept, held);
    }

    /// The number of port ids (in a partition, the ports it does not hold too).
    pub fn len(&self) -> usize {
        self.places.as_ref().map_or(self.held.len(), |places| places.len())
    }

    /// Whether the table holds every port.
    pub fn is_whole(&self) -> bool {
        self.places.is_none()
    }

    /// A connection's own access line, with the next id: only a whole table grows (a run with
    /// such lines does not split: `parallel::plan`).
    pub fn push(&mut self, port: Port) {
        assert!(self.is_whole(), "a partition's ports are the scenario's");
        self.held.push(port);
    }

    /// The ports held, in id order.
    pub fn iter(&self) -> std::slice::Iter<'_, Port> {
        self.held.iter()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Port> {
        self.held.iter_mut()
    }

    /// The ports held whose ids are below `end` (the scenario's, before connections' own lines).
    pub fn iter_mut_below(&mut self, end: usize) -> std::slice::IterMut<'_, Port> {
        match self.places {
            None => self.held[..end].iter_mut(),
            Some(_) => {
                assert_eq!(end, self.len(), "a partition's ports are the scenario's");
                self.held.iter_mut()
            }
        }
    }

    /// Every port, in id order, as a slice: a whole table's only (a parallel run's is whole
    /// again once its partitions are put together).
    pub fn all(&self) -> &[Port] {
        assert!(self.is_whole(), "a partition's ports are read as a whole only once put together");
        &self.held
    }

    pub fn all_mut(&mut self) -> &mut [Port] {
        assert!(self.is_whole(), "a partition's ports are read as a whole only once put together");
        &mut self.held
    }

    /// Port `id`, if this table holds it.
    pub fn get(&self, id: usize) -> Option<&Port> {
        match &self.places {
            None => self.held.get(id),
            Some(places) => self.held.get(*places.get(id)? as usize),
        }
    }

    /// The whole table again from the partitions' tables: each port from the partition
    /// `from(id)` names, which must hold it; the other partitions' copies go. The ports move
    /// from the last, and the partitions' tables shrink as they go, so that the ports are not
    /// held twice over (a k = 64 fat-tree's 258 MiB at the end of the run).
    pub fn merged(mut parts: Vec<PortTable>, from: impl Fn(usize) -> usize) -> PortTable {
        let len = parts.first().map_or(0, PortTable::len);
        let mut ports = Vec::with_capacity(len);
        for id in (0..len).rev() {
            let mut mine = None;
            for (part, table) in parts.iter_mut().enumerate() {
                if table.get(id).is_none() {
                    continue;
                }
                let port = table.held.pop().expect("the table holds the port");
                if part == from(id) {
                    mine = Some(port);
                }
                if table.held.capacity() - table.held.len() >= SHRINK_EVERY {
                    table.held.shrink_to_fit();
                }
            }
            ports.push(mine.unwrap_or_else(|| panic!("port {id} is not in the partition that sends on it")));
        }
        ports.reverse();
        PortTable::whole(ports)
    }
}

/// Ports taken from a partition's table between two shrinkings of it: a few megabytes.
const SHRINK_EVERY: usize = 4096;

impl Index<usize> for PortTable {
    type Output = Port;

    #[inline(always)]
    fn index(&self, id: usize) -> &Port {
        match &self.places {
            None => &self.held[id],
            Some(places) => self.held.get(places[id] as usize).unwrap_or_else(|| elsewhere(id)),
        }
    }
}

impl IndexMut<usize> for PortTable {
    #[inline(always)]
    fn index_mut(&mut self, id: usize) -> &mut Port {
        match &self.places {
            None => &mut self.held[id],
            Some(places) => self.held.get_mut(places[id] as usize).unwrap_or_else(|| elsewhere(id)),
        }
    }
}

/// A partition read a port it does not hold: a fault of the engine, never of the scenario.
#[cold]
#[inline(never)]
fn elsewhere(id: usize) -> ! {
    panic!("port {id} is another partition's: a partition reads only its own ports")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::PortSetup;
    use crate::qdisc::{testing, Fcfs, FcfsConfig};
    use crate::units::{BufferLimit, Rate, Time};

    /// A port told apart by its delay, `id` nanoseconds.
    fn port(id: u64) -> Port {
        Port::new(PortSetup {
            rate: Rate(1_000_000),
            delay: Time(id),
            buffer_includes_line: false,
            qdisc: Box::new(Fcfs::new(FcfsConfig {}, &testing::port(BufferLimit::Packets(10), &[]))),
            rng: crate::rng::LazyStream::new(1, "port"),
            loss: None,
            fluid: false,
            traced: false,
        })
    }

    fn ids(table: &PortTable) -> Vec<u64> {
        table.iter().map(|p| p.delay.0).collect()
    }

    #[test]
    fn a_partition_holds_its_ports_under_their_ids_and_refuses_the_others() {
        let held = [true, false, true, true, false];
        let table = PortTable::partial(vec![port(0), port(2), port(3)], &held);
        assert_eq!((table.len(), ids(&table)), (5, vec![0, 2, 3]));
        assert_eq!([0, 2, 3].map(|id| table[id].delay.0), [0, 2, 3]);
        assert_eq!((table.get(1).is_none(), table.get(3).map(|p| p.delay.0)), (true, Some(3)));
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| table[4].delay));
        assert!(read.is_err(), "another partition's port is never read here");
    }

    #[test]
    fn partitions_put_together_keep_each_port_from_the_one_named() {
        // ids 0..4: partition 0 sends on 0 and 1, partition 1 on 2 and 3; each also holds a
        // copy of a port whose packets come to it (1 in partition 1, 2 in partition 0)
        let first = PortTable::partial(vec![port(0), port(1), port(2)], &[true, true, true, false]);
        let mut second = PortTable::partial(vec![port(1), port(2), port(3)], &[false, true, true, true]);
        second[2].delay = Time(20); // partition 1's copy of port 2, the one kept
        let whole = PortTable::merged(vec![first, second], |id| usize::from(id >= 2));
        assert!(whole.is_whole());
        assert_eq!(ids(&whole), vec![0, 1, 20, 3]);
    }
}
