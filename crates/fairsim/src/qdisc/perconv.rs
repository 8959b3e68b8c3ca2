//! Per-conversation queues: the packet store of the fair-queueing family.
//!
//! Each conversation (or bucket) has a FIFO of entries: the packet, its scheduling tag and
//! whatever else the discipline keeps per packet, and an arrival sequence number. The store
//! keeps totals for the buffer limit and, when asked to, the conversation using the most buffer
//! (packets or bytes, as the limit counts; see `longest`) — the victim of the 1989 paper's
//! buffer policy ("drop the last packet of the conversation using the most buffer").

use super::longest::Longest;
use crate::net::Packet;
use crate::units::BufferLimit;
use std::collections::VecDeque;

/// A queued packet with its discipline's bookkeeping.
#[derive(Copy, Clone, Debug)]
pub struct Entry {
    pub pkt: Packet,
    /// The tag the discipline serves by (a bid, finish number or virtual clock).
    pub tag: f64,
    /// A second number the discipline needs to undo or continue its state (e.g. FQ keeps the
    /// finish number the conversation had before this packet, to roll it back on a drop).
    pub aux: f64,
    /// Arrival order at this queue, for ties and for telling entries apart.
    pub seq: u64,
}

#[derive(Debug)]
pub struct Conversations {
    queues: Vec<VecDeque<Entry>>,
    bytes: Vec<u64>,
    total_pkts: usize,
    total_bytes: u64,
    next_seq: u64,
    /// Buffer use per conversation, maintained only if a discipline needs the longest.
    longest: Option<Longest>,
    by_bytes: bool,
}

impl Conversations {
    /// Queues for `count` conversations; `track_longest` keeps the longest findable, measured
    /// in bytes when `limit` counts bytes and in packets otherwise.
    pub fn new(count: usize, limit: BufferLimit, track_longest: bool) -> Conversations {
        Conversations {
            queues: (0..count).map(|_| VecDeque::new()).collect(),
            bytes: vec![0; count],
            total_pkts: 0,
            total_bytes: 0,
            next_seq: 0,
            longest: track_longest.then(|| Longest::new(count, matches!(limit, BufferLimit::Bytes(_)))),
            by_bytes: matches!(limit, BufferLimit::Bytes(_)),
        }
    }

    fn measure(&self, c: usize) -> u64 {
        if self.by_bytes {
            self.bytes[c]
        } else {
            self.queues[c].len() as u64
        }
    }

    fn track(&mut self, c: usize, old: u64) {
        let new = self.measure(c);
        if let Some(l) = &mut self.longest {
            l.update(c, old, new);
        }
    }

    /// Appends a packet to conversation `c`; returns its sequence number.
    pub fn push(&mut self, c: usize, pkt: Packet, tag: f64, aux: f64) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        let old = self.measure(c);
        self.bytes[c] += pkt.size as u64;
        self.total_bytes += pkt.size as u64;
        self.total_pkts += 1;
        let q = &mut self.queues[c];
        // room doubling from one rather than `VecDeque`'s first four: a 100,000-flow run's FQ
        // ports have a conversation per flow, and four 112-byte entries for each that held a
        // packet cost 69 MiB more than this (docs/performance.md, "Memory at 100,000 flows")
        if q.len() == q.capacity() {
            q.reserve_exact(q.len().max(1));
        }
        q.push_back(Entry { pkt, tag, aux, seq });
        self.track(c, old);
        seq
    }

    /// Accounts for `e` having left conversation `c`, whose use was `old`.
    fn taken(&mut self, c: usize, e: Option<Entry>, old: u64) -> Option<Entry> {
        let e = e?;
        self.bytes[c] -= e.pkt.size as u64;
        self.total_bytes -= e.pkt.size as u64;
        self.total_pkts -= 1;
        self.track(c, old);
        Some(e)
    }

    pub fn pop_front(&mut self, c: usize) -> Option<Entry> {
        let old = self.measure(c);
        let e = self.queues[c].pop_front();
        self.taken(c, e, old)
    }

    pub fn pop_back(&mut self, c: usize) -> Option<Entry> {
        let old = self.measure(c);
        let e = self.queues[c].pop_back();
        self.taken(c, e, old)
    }

    pub fn front(&self, c: usize) -> Option<&Entry> {
        self.queues[c].front()
    }

    pub fn back(&self, c: usize) -> Option<&Entry> {
        self.queues[c].back()
    }

    pub fn is_empty(&self, c: usize) -> bool {
        self.queues[c].is_empty()
    }

    pub fn bytes_of(&self, c: usize) -> u64 {
        self.bytes[c]
    }

    pub fn len(&self, c: usize) -> usize {
        self.queues[c].len()
    }

    pub fn total_packets(&self) -> usize {
        self.total_pkts
    }

    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    pub fn over(&self, room: super::discipline::Room) -> bool {
        room.exceeded(self.total_pkts, self.total_bytes)
    }

    /// The conversation using the most buffer; `prefer` wins a tie (the arriving packet's, so
    /// that among equals the packet that came last is the one dropped).
    pub fn longest(&self, prefer: usize) -> Option<usize> {
        let (m, c) = self.longest.as_ref().expect("created with track_longest").max()?;
        Some(if self.measure(prefer) == m { prefer } else { c })
    }

    pub fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.queues.iter().flatten().for_each(|e| f(&e.pkt));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::pkt;

    #[test]
    fn totals_and_the_longest_conversation() {
        let mut q = Conversations::new(3, BufferLimit::Packets(10), true);
        q.push(0, pkt(0, 0, 100), 1.0, 0.0);
        q.push(1, pkt(1, 0, 100), 1.0, 0.0);
        q.push(1, pkt(1, 1, 100), 2.0, 0.0);
        assert_eq!(q.longest(0), Some(1));
        q.push(0, pkt(0, 1, 100), 2.0, 0.0);
        assert_eq!(q.longest(0), Some(0), "ties go to the preferred conversation");
        assert_eq!(q.longest(2), Some(0), "else to the one that reached the length last");
        assert_eq!(q.pop_back(1).unwrap().pkt.seq, 1);
        assert_eq!(q.pop_front(0).unwrap().pkt.seq, 0);
        assert_eq!((q.total_packets(), q.total_bytes()), (2, 200));
        let by_bytes = {
            let mut q = Conversations::new(2, BufferLimit::Bytes(5000), true);
            q.push(0, pkt(0, 0, 40), 0.0, 0.0);
            q.push(0, pkt(0, 1, 40), 0.0, 0.0);
            q.push(1, pkt(1, 0, 1000), 0.0, 0.0);
            q.longest(0)
        };
        assert_eq!(by_bytes, Some(1), "one 1000-byte packet outweighs two of 40 bytes");
    }

    #[test]
    fn a_conversation_has_room_for_what_it_has_held_doubled_from_one() {
        let mut q = Conversations::new(2, BufferLimit::Packets(10), false);
        q.push(0, pkt(0, 0, 100), 0.0, 0.0);
        assert_eq!(q.queues[0].capacity(), 1);
        q.pop_front(0);
        q.push(0, pkt(0, 1, 100), 0.0, 0.0);
        assert_eq!(q.queues[0].capacity(), 1, "a packet at a time keeps room for one");
        let held: Vec<usize> = (2..5)
            .map(|seq| {
                q.push(0, pkt(0, seq, 100), 0.0, 0.0);
                q.queues[0].capacity()
            })
            .collect();
        assert_eq!(held, [2, 4, 4]);
        assert_eq!(q.queues[1].capacity(), 0, "a conversation that never held a packet has none");
    }
}
