//! A run's ports by id (`PortId`): every one of them, or, in a partition of a parallel run
//! (`engine::parallel`) where copies of every port would be large (`Plan::own_ports_only`),
//! only those it handles events of, the ports its nodes send on and those that bring packets to
//! them. The others are the other partitions' business, and a copy
//! of each in every partition made a k = 64 fat-tree's run take about 490 MiB more with each
//! thread (its 393,216 ports are 258 MiB), so a run on every core of a big machine would need
//! memory in proportion to its cores.
//!
//! A whole table is a `Vec` in id order, read by id; a partition's `Vec` is empty, and its ports
//! are in another, read by each id's place among them. The loop reads ports on every event: one
//! thread's run reads the whole `Vec` as it did before the table, whose bounds check is also
//! the choice of the way (a branch on whether the table was whole cost its dumbbells 2–3% more
//! instructions), and a partition's takes the other way at once.

use crate::net::PacketPool;
use crate::node::Port;
use std::ops::{Index, IndexMut};

/// A place for a port that another partition holds.
const ELSEWHERE: u32 = u32::MAX;

#[derive(Default)]
pub(crate) struct PortTable {
    /// A whole table's ports, in id order; empty in a partition's.
    all: Vec<Port>,
    /// A partition's ports, in id order, and each port's place among them, by id (`ELSEWHERE`
    /// for another's); both empty in a whole table.
    held: Vec<Port>,
    places: Box<[u32]>,
    /// The rates the network's changes gave ports another partition holds, by id.
    rates_elsewhere: Vec<(usize, crate::units::Rate)>,
}

impl PortTable {
    /// Every port, in id order.
    pub fn whole(ports: Vec<Port>) -> PortTable {
        PortTable { all: ports, held: vec![], places: Box::default(), rates_elsewhere: vec![] }
    }

    /// A partition's ports: of `held.len()` ids, those `held` marks, given in id order.
    pub fn partial(ports: Vec<Port>, held: &[bool]) -> PortTable {
        let mut places = vec![ELSEWHERE; held.len()].into_boxed_slice();
        let ids = (0..held.len()).filter(|&id| held[id]);
        ids.enumerate().for_each(|(place, id)| places[id] = place as u32);
        assert_eq!(ports.len(), held.iter().filter(|&&h| h).count(), "a port for each id held");
        PortTable { all: vec![], held: ports, places, rates_elsewhere: vec![] }
    }

    /// Keeps of a whole table only the ports `held` marks, by id (the first partition, which
    /// the run was before it split).
    pub fn keep_only(&mut self, held: &[bool]) {
        assert!(self.is_whole() && held.len() == self.len(), "a whole table, and a mark for each port");
        let ports = std::mem::take(&mut self.all);
        let mut kept: Vec<Port> = ports.into_iter().zip(held).filter_map(|(port, &h)| h.then_some(port)).collect();
        // collected in place, into the whole table's room, whose pages the dropped ports had
        // touched: a k = 48 fat-tree's first partition kept 50 MiB resident that it never read
        kept.shrink_to_fit();
        *self = PortTable::partial(kept, held);
    }

    /// The number of port ids (in a partition, the ports it does not hold too).
    pub fn len(&self) -> usize {
        if self.is_whole() {
            self.all.len()
        } else {
            self.places.len()
        }
    }

    /// Whether the table holds every port.
    pub fn is_whole(&self) -> bool {
        self.places.is_empty()
    }

    /// The ports held, in id order.
    fn ports(&self) -> &Vec<Port> {
        if self.is_whole() {
            &self.all
        } else {
            &self.held
        }
    }

    fn ports_mut(&mut self) -> &mut Vec<Port> {
        if self.is_whole() {
            &mut self.all
        } else {
            &mut self.held
        }
    }

    /// A connection's own access line, with the next id: only a whole table grows (a run with
    /// such lines does not split: `parallel::plan`).
    pub fn push(&mut self, port: Port) {
        assert!(self.is_whole(), "a partition's ports are the scenario's");
        self.all.push(port);
    }

    /// The ports held, in id order.
    pub fn iter(&self) -> std::slice::Iter<'_, Port> {
        self.ports().iter()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Port> {
        self.ports_mut().iter_mut()
    }

    /// The ports held whose ids are below `end` (the scenario's, before connections' own lines).
    pub fn iter_mut_below(&mut self, end: usize) -> std::slice::IterMut<'_, Port> {
        if self.is_whole() {
            self.all[..end].iter_mut()
        } else {
            assert_eq!(end, self.len(), "a partition's ports are the scenario's");
            self.held.iter_mut()
        }
    }

    /// Every port, in id order, as a slice: a whole table's only (a parallel run's is whole
    /// again once its partitions are put together).
    pub fn all(&self) -> &[Port] {
        assert!(self.is_whole(), "a partition's ports are read as a whole only once put together");
        &self.all
    }

    /// Port `id`, if this table holds it.
    pub fn get(&self, id: usize) -> Option<&Port> {
        self.all.get(id).or_else(|| self.held.get(*self.places.get(id)? as usize))
    }

    pub fn get_mut(&mut self, id: usize) -> Option<&mut Port> {
        match self.all.get_mut(id) {
            Some(port) => Some(port),
            None => self.held.get_mut(*self.places.get(id)? as usize),
        }
    }

    /// Port `id`'s transmissions from `now` on take `rate` (`[[events]]`); if another partition
    /// holds it, its line here reads the new rate (the fixed delays of paths read it).
    pub fn set_rate(&mut self, id: usize, now: crate::units::Time, rate: crate::units::Rate, pool: &mut PacketPool) {
        match self.get_mut(id) {
            Some(port) => port.set_rate(now, rate, pool),
            None => match self.rates_elsewhere.iter_mut().find(|(held, _)| *held == id) {
                Some((_, r)) => *r = rate,
                None => self.rates_elsewhere.push((id, rate)),
            },
        }
    }

    /// Port `id`'s line as it is now: its rate and delay, or, if another partition holds it, the
    /// scenario's `specs` at the rate the network's changes gave it last.
    pub fn line(&self, id: usize, specs: &[crate::scenario::PortSpec]) -> (crate::units::Rate, crate::units::Time) {
        let elsewhere = || {
            let changed = self.rates_elsewhere.iter().find(|(held, _)| *held == id);
            (changed.map_or(specs[id].rate, |(_, rate)| *rate), specs[id].delay)
        };
        self.get(id).map_or_else(elsewhere, |l| (l.rate, l.delay))
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
                let held = table.ports_mut();
                let port = held.pop().expect("the table holds the port");
                if part == from(id) {
                    mine = Some(port);
                }
                if held.capacity() - held.len() >= SHRINK_EVERY {
                    held.shrink_to_fit();
                }
            }
            ports.push(mine.unwrap_or_else(|| panic!("port {id} is not in the partition that sends on it")));
        }
        ports.reverse();
        PortTable::whole(ports)
    }

    /// A partition's port `id` (the whole table's way has found none).
    #[inline(always)]
    fn held_at(&self, id: usize) -> usize {
        match self.places.get(id) {
            Some(&place) if (place as usize) < self.held.len() => place as usize,
            _ => elsewhere(id),
        }
    }
}

/// Ports taken from a partition's table between two shrinkings of it: a few megabytes.
const SHRINK_EVERY: usize = 4096;

impl Index<usize> for PortTable {
    type Output = Port;

    #[inline(always)]
    fn index(&self, id: usize) -> &Port {
        match self.all.get(id) {
            Some(port) => port,
            None => &self.held[self.held_at(id)],
        }
    }
}

impl IndexMut<usize> for PortTable {
    #[inline(always)]
    fn index_mut(&mut self, id: usize) -> &mut Port {
        if id < self.all.len() {
            return &mut self.all[id];
        }
        let place = self.held_at(id);
        &mut self.held[place]
    }
}

/// A partition read a port it does not hold, or an id past the last: a fault of the engine,
/// never of the scenario.
#[cold]
#[inline(never)]
fn elsewhere(id: usize) -> ! {
    panic!("port {id} is not in this table: a partition reads only its own ports")
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
