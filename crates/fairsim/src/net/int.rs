//! In-band network telemetry (INT), HPCC's signal (Li et al., SIGCOMM 2019, §3.1): each switch
//! egress a data packet crosses writes a record of its state into the packet, the sink copies the
//! records into its ACK, and the sender reads them.
//!
//! A packet has no room for the records (it is 80 bytes and full, and every hop copies it): they
//! wait beside it, by packet id, in the run's side table (`engine::telemetry`), as SACK blocks do
//! (`transport::reliability::sink::SackOptions`). Only flows whose transport asks for telemetry
//! (`Sender::telemetry`) are stamped, and only in runs that have such a flow: other runs carry no
//! stamper on any port, and pay one test of an empty pointer per transmission.
//!
//! The stamp is made where a port puts a packet on its line (`Port::transmit`), for every way a
//! packet gets there (an idle line, the end of the one before, a chained start), so a port needs
//! no end event for it. The port's stamper keeps its records in the order they were made, which
//! is the order its packets leave its pipe; the engine takes each packet's record out as the far
//! end delivers it (`PortInt::take`), before the packet can cross another port.
//!
//! Two stamp points (`IntStamp`):
//! - `End` (htsim's `LosslessOutputQueue::completeService`, the default): as of the end of the
//!   packet's serialization: `ts` the end, `qlen` the bytes queued then with the departing packet
//!   counted, `tx_bytes` the bytes the port sent before it. All are known as the transmission
//!   starts but the bytes that arrive while it lasts: each arrival at the port during it raises
//!   the record's `qlen` (`PortInt::queued`), so the value is the one at the end, without an end
//!   event (a transmission's end comes before an arrival of the same instant, as in the event
//!   set's canonical order).
//! - `Dequeue` (the paper's "at egress", and the HPCC authors' ns-3 code, which pushes the hop as
//!   the packet is dequeued): `ts` the start of the transmission, `qlen` the bytes left waiting
//!   (the packet not counted), `tx_bytes` the bytes sent before it.
//!
//! Hosts' access lines do not stamp (htsim's host queues do not), nor connections' own lines.

use super::Packet;
use crate::units::{Rate, Time};
use std::collections::VecDeque;
use std::sync::Arc;

/// One switch egress's record in a packet (HPCC's `L[i]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IntHop {
    /// Bytes queued at the port (`IntStamp` says which).
    pub qlen: u64,
    /// Bytes the port had put on its line before this packet, since the run began.
    pub tx_bytes: u64,
    /// When the record was made (`IntStamp`).
    pub ts: Time,
    /// The port's line rate.
    pub rate: Rate,
}

/// Where a port stamps a packet's record: a transport's choice (`Sender::telemetry`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntStamp {
    /// As of the end of serialization, the departing packet counted in `qlen` (htsim).
    End,
    /// As the packet is dequeued, `qlen` the bytes left behind it (the paper, its ns-3 code).
    Dequeue,
}

/// A flow's telemetry, by scenario flow: 0 none, else `IntStamp` + 1.
pub type FlowStamps = Arc<[u8]>;

/// What a flow's `IntStamp` is written as in `FlowStamps`.
pub fn stamp_code(stamp: Option<IntStamp>) -> u8 {
    match stamp {
        None => 0,
        Some(IntStamp::End) => 1,
        Some(IntStamp::Dequeue) => 2,
    }
}

/// A switch egress port's stamper: its cumulative bytes, and the records it made that have not
/// yet been taken at the far end.
#[derive(Debug)]
pub struct PortInt {
    flows: FlowStamps,
    /// Bytes put on the line so far, every packet counted.
    tx_bytes: u64,
    /// (packet id, record, packet size) in the order of their transmissions.
    stamps: VecDeque<(u64, IntHop, u32)>,
}

impl PortInt {
    pub fn new(flows: FlowStamps) -> PortInt {
        PortInt { flows, tx_bytes: 0, stamps: VecDeque::new() }
    }

    /// `pkt` goes on the line at `now` and its last bit leaves at `ends`; `queued` bytes wait
    /// behind it. Its record is made if its flow asks for telemetry.
    #[inline]
    pub fn transmit(&mut self, pkt: &Packet, now: Time, ends: Time, queued: u64, rate: Rate) {
        let before = self.tx_bytes;
        self.tx_bytes += pkt.size as u64;
        if !pkt.is_data() {
            return;
        }
        let hop = match self.flows.get(pkt.flow.idx()).copied().unwrap_or(0) {
            1 => IntHop { qlen: queued + pkt.size as u64, tx_bytes: before, ts: ends, rate },
            2 => IntHop { qlen: queued, tx_bytes: before, ts: now, rate },
            _ => return,
        };
        self.stamps.push_back((pkt.id, hop, pkt.size));
    }

    /// A packet joined the queue at `now`, which holds `queued` bytes: a record stamped as of
    /// the end of a transmission still under way counts it (a dequeue record's `ts` is its
    /// start, never after an arrival that follows it).
    #[inline]
    pub fn queued(&mut self, now: Time, queued: u64) {
        if let Some((_, hop, size)) = self.stamps.back_mut() {
            if hop.ts > now {
                hop.qlen = queued + *size as u64;
            }
        }
    }

    /// The record of packet `id`, which the far end has just taken out of the pipe; records of
    /// packets made before it are of packets lost on the way (the line's loss, a link going
    /// down) and are forgotten.
    pub fn take(&mut self, id: u64) -> Option<IntHop> {
        while let Some((front, hop, _)) = self.stamps.pop_front() {
            if front == id {
                return Some(hop);
            }
        }
        debug_assert!(false, "packet {id} of a telemetry flow left a stamping port unstamped");
        None
    }

    /// The record of packet `id`, of `size` bytes, made by this port's copy in another partition
    /// of a parallel run: taken here as the packet arrives (`take`), in the order they come.
    pub fn put(&mut self, id: u64, hop: IntHop, size: u32) {
        self.stamps.push_back((id, hop, size));
    }

    /// The records this copy of the port holds, taken out: at the far end of a link between
    /// partitions, those of packets still propagating, as the run is put together.
    pub fn take_records(&mut self) -> VecDeque<(u64, IntHop, u32)> {
        std::mem::take(&mut self.stamps)
    }

    /// Records `ahead` (`take_records` of the far end's copy) go ahead of this copy's own.
    pub fn put_ahead(&mut self, mut ahead: VecDeque<(u64, IntHop, u32)>) {
        ahead.extend(self.stamps.drain(..));
        self.stamps = ahead;
    }

    /// Records made and not yet taken (packets on the line or propagating).
    pub fn pending(&self) -> usize {
        self.stamps.len()
    }

    /// Bytes put on the line so far.
    pub fn tx_bytes(&self) -> u64 {
        self.tx_bytes
    }
}

/// The INT records of the packets in the network, by packet id: a data packet's, one per
/// switch egress it has left, then its ACK's, which echoes them back to the sender. Kept beside
/// the packets (`SackOptions`'s idiom), in runs with a telemetry flow only (`engine::telemetry`).
pub struct IntRecords {
    by_packet: fnv::FnvHashMap<u64, Vec<IntHop>>,
    /// What each scenario flow asks its packets' stamps to be (`stamp_code`).
    flows: FlowStamps,
}

impl IntRecords {
    /// The side table of a run whose scenario flows ask for `stamps`, with the stamps for its
    /// ports; `None` if no flow asks for telemetry.
    pub fn new(stamps: impl Iterator<Item = Option<IntStamp>>) -> Option<(IntRecords, FlowStamps)> {
        let flows: FlowStamps = stamps.map(stamp_code).collect::<Vec<u8>>().into();
        let any = flows.iter().any(|&s| s != 0);
        any.then(|| (IntRecords { by_packet: Default::default(), flows: flows.clone() }, flows))
    }

    /// Whether the data packets of scenario flow `flow` are stamped.
    #[inline]
    pub fn stamps(&self, flow: super::FlowId) -> bool {
        self.flows.get(flow.idx()).is_some_and(|&s| s != 0)
    }

    /// Packet `id` left a switch egress with `hop` written into it.
    pub fn stamped(&mut self, id: u64, hop: IntHop) {
        self.by_packet.entry(id).or_default().push(hop);
    }

    /// The sink answers data packet `data` with ACK `ack`, which carries its records back.
    pub fn echo(&mut self, data: u64, ack: u64) {
        if let Some(records) = self.by_packet.remove(&data) {
            self.by_packet.insert(ack, records);
        }
    }

    /// Packet `id` was dropped, or left the network with no ACK of its own to echo its records.
    pub fn dropped(&mut self, id: u64) {
        self.by_packet.remove(&id);
    }

    /// Packet `id`'s records taken out (none if it carries none): an ACK's as it reaches its
    /// sender, or any packet's as it goes into another partition of a parallel run.
    pub fn take(&mut self, id: u64) -> Vec<IntHop> {
        self.by_packet.remove(&id).unwrap_or_default()
    }

    /// Packet `id`'s `records`, as it comes from another partition of a parallel run.
    pub fn put(&mut self, id: u64, records: Vec<IntHop>) {
        self.by_packet.insert(id, records);
    }

    /// Takes in every record `other` holds (a parallel run's partitions number their packets
    /// apart).
    pub fn absorb(&mut self, other: &mut IntRecords) {
        self.by_packet.extend(other.by_packet.drain());
    }

    /// Packets with records in the network.
    pub fn len(&self) -> usize {
        self.by_packet.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_packet.is_empty()
    }

    /// The records packet `id` carries now.
    pub fn of(&self, id: u64) -> &[IntHop] {
        self.by_packet.get(&id).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{Line, Port, PortSetup};
    use crate::qdisc::testing::{pkt, port};
    use crate::qdisc::{Fcfs, FcfsConfig};
    use crate::units::BufferLimit;

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    /// A 1 Mb/s FCFS port (1000 bytes take 8 ms), 10 ms of propagation, stamping flow 0's data
    /// packets at `stamp`, and flow 1's not.
    fn stamping_port(stamp: IntStamp) -> Port {
        let info = port(BufferLimit::Packets(10), &[(0, 1), (0, 1)]);
        let mut p = Port::new(PortSetup {
            rate: Rate(1_000_000),
            delay: ms(10),
            buffer_includes_line: false,
            qdisc: Box::new(Fcfs::new(FcfsConfig {}, &info)),
            rng: crate::rng::LazyStream::new(1, "test"),
            loss: None,
            fluid: false,
            traced: false,
        });
        p.start_stamping(vec![stamp_code(Some(stamp)), 0].into());
        p
    }

    /// Packets A (flow 0, 1000 B) at 0 ms, B (flow 1, 500 B) at 1 ms, C (flow 0) at 2 ms and
    /// D (flow 0) at 15 ms: A is on the line 0–8 ms, B 8–12, C 12–20 (D arrives meanwhile),
    /// D 20–28, each end an event (a stamping port's every transmission ends with one), as the
    /// engine drives it. Returns A's, C's and D's records as the far end takes each packet out.
    fn records(stamp: IntStamp) -> Vec<IntHop> {
        enum Step {
            Arrive(Packet),
            End,
            Deliver(u64),
        }
        let mut p = stamping_port(stamp);
        let (mut drops, mut pool) = (vec![], crate::net::PacketPool::standalone());
        let a = Packet { id: 1, ..pkt(0, 0, 1000) };
        let b = Packet { id: 2, ..pkt(1, 0, 500) };
        let c = Packet { id: 3, ..pkt(0, 1, 1000) };
        let d = Packet { id: 4, ..pkt(0, 2, 1000) };
        let steps = [
            (0, Step::Arrive(a)),
            (1, Step::Arrive(b)),
            (2, Step::Arrive(c)),
            (8, Step::End),
            (12, Step::End),
            (15, Step::Arrive(d)),
            (18, Step::Deliver(1)),
            (20, Step::End),
            (22, Step::Deliver(2)),
            (28, Step::End),
            (30, Step::Deliver(3)),
            (38, Step::Deliver(4)),
        ];
        let mut got = vec![];
        for (at, step) in steps {
            let now = ms(at);
            match step {
                Step::Arrive(pkt) => {
                    if p.enqueue(pkt, now, &mut drops, &mut pool) == Line::Idle {
                        p.start_tx(now, &mut drops, &mut pool);
                    }
                }
                Step::End => {
                    p.finish_tx(now, &mut drops, &mut pool);
                    p.start_tx(now, &mut drops, &mut pool);
                }
                Step::Deliver(id) => {
                    let (pkt, _) = p.deliver(now, &mut pool);
                    assert_eq!(pkt.id, id);
                    // the engine asks only for the packets of flows it stamps: not B's
                    if id != 2 {
                        got.extend(p.int_mut().unwrap().take(id));
                    }
                }
            }
        }
        assert!(drops.is_empty());
        assert_eq!((p.int_mut().unwrap().pending(), p.int_mut().unwrap().tx_bytes()), (0, 3500));
        got
    }

    #[test]
    fn a_port_stamps_as_of_the_end_of_serialization_counting_what_arrives_meanwhile() {
        let r = Rate(1_000_000);
        assert_eq!(
            records(IntStamp::End),
            vec![
                // A: B and C came while it was on the line; itself counted
                IntHop { qlen: 500 + 1000 + 1000, tx_bytes: 0, ts: ms(8), rate: r },
                // C: D came while it was on the line; A's and B's bytes were sent before it
                IntHop { qlen: 1000 + 1000, tx_bytes: 1500, ts: ms(20), rate: r },
                // D: alone
                IntHop { qlen: 1000, tx_bytes: 2500, ts: ms(28), rate: r },
            ]
        );
    }

    #[test]
    fn a_port_stamps_at_dequeue_with_what_waits_behind() {
        let r = Rate(1_000_000);
        assert_eq!(
            records(IntStamp::Dequeue),
            vec![
                IntHop { qlen: 0, tx_bytes: 0, ts: ms(0), rate: r },
                // C starts at 12 ms with nothing behind it (D comes at 15 ms)
                IntHop { qlen: 0, tx_bytes: 1500, ts: ms(12), rate: r },
                IntHop { qlen: 0, tx_bytes: 2500, ts: ms(20), rate: r },
            ]
        );
    }

    #[test]
    fn records_follow_their_packet_to_its_ack_and_go_with_a_drop() {
        let (mut t, stamps) = IntRecords::new([None, Some(IntStamp::End)].into_iter()).unwrap();
        assert_eq!(&stamps[..], &[0, 1]);
        assert!(!t.stamps(crate::net::FlowId(0)) && t.stamps(crate::net::FlowId(1)));
        assert!(IntRecords::new([None, None].into_iter()).is_none(), "no table without a telemetry flow");
        let hop = |q| IntHop { qlen: q, tx_bytes: 0, ts: Time::ZERO, rate: Rate(1) };
        t.stamped(7, hop(1));
        t.stamped(7, hop(2));
        t.stamped(8, hop(3));
        t.echo(7, 20);
        assert_eq!((t.of(7), t.of(20)), (&[][..], &[hop(1), hop(2)][..]));
        t.dropped(8);
        assert_eq!(t.take(20), vec![hop(1), hop(2)]);
        assert!(t.is_empty() && t.take(20).is_empty());
    }
}
