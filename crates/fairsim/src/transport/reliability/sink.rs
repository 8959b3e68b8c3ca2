//! The receiving side of a flow-controlled conversation: cumulative ACKs, and when to send them.
//!
//! As in the thesis (§6.5), the sink acknowledges with a cumulative ACK: the ACK carries the next
//! sequence number expected, so every lower one has arrived. Out-of-order packets are remembered
//! so that a retransmission that fills a hole advances the ACK past them.
//!
//! By default every data packet is acknowledged at once (the classic papers' sinks). With
//! delayed ACKs (`AckPolicy { every: 2, .. }`, what every real stack does) the sink follows
//! RFC 1122 §4.2.3.2 and RFC 5681 §4.2:
//! - in-order data is acknowledged once `every` packets are unacknowledged, or when the delayed
//!   ACK timer (`delay` after the first of them; RFC 1122 allows at most 500 ms) expires;
//! - out-of-order data (above a hole), data that fills all or part of a hole, and duplicates are
//!   acknowledged at once, so that the sender's duplicate-ACK count and recovery are not delayed.
//!
//! The ACK echoes the send time of the earliest packet it newly acknowledges (RFC 7323 §4.3: with
//! delayed ACKs the echoed timestamp is the earliest unacknowledged segment's, so that round-trip
//! samples include the delay and the retransmission timer allows for it); an immediate ACK of
//! out-of-order data echoes the packet that caused it (RFC 7323 would echo the last in-order
//! one; such duplicate ACKs give no round-trip sample in `reliable`, so the choice shows only in
//! the flow's round-trip statistics).
//!
//! The ACK's congestion bit (`EcnEcho`): by default it is set if any packet it acknowledges
//! carried one (DECbit's echo, Ramakrishnan & Jain 1988). With classic ECN (RFC 3168 §6.1.3) it
//! is TCP's ECE flag: set on every ACK from the first CE-marked packet until a packet carrying
//! CWR arrives. With DCTCP's echo (RFC 8257 §3.2) each ACK reflects the CE marks of the packets
//! it acknowledges exactly: when an in-order packet's mark differs from the packets held for a
//! delayed ACK, those are acknowledged at once with their own mark and the new packet starts a
//! new wait. (An out-of-order packet whose mark differs is acknowledged with the held packets in
//! one ACK carrying its mark; Linux sends two ACKs there.)
//!
//! With SACK (`AckPolicy { sack: true, .. }`, RFC 2018) the sink also keeps the blocks of data
//! received above a hole (`sack::SackList`); every ACK carries them. With D-SACK as well
//! (`dsack`, RFC 2883) the ACK of a duplicate packet reports it first, in a block of its own,
//! which tells the sender that the packet was sent once more than needed.

use super::sack::{SackBlocks, SackList};
use crate::timer::TimerId;
pub use crate::transport::sender::{AckPolicy, EcnEcho};
use crate::units::Time;
use std::collections::VecDeque;

/// The sink's delayed-ACK timer: the last of a flow's timer slots (senders use the others).
pub const DELAYED_ACK: TimerId = TimerId(crate::timer::TIMERS_PER_FLOW as u8 - 1);

/// What an ACK says: the send time and sequence number it echoes, its congestion bit, and the
/// cumulative acknowledgement (set by the receiver when it decides to send).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Echo {
    pub sent_at: Time,
    /// When the echoed packet reached the sink: the ACK that echoes it tells how long it was
    /// held (`Packet::ack_delay_ns`).
    pub arrived: Time,
    pub seq: u64,
    pub congestion: bool,
    pub cumulative: u64,
}

/// What the sink does after a data packet arrives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AckNow {
    /// Send the cumulative ACK now, echoing this.
    Send(Echo),
    /// Hold it; arm the delayed-ACK timer for this instant if given (it is not yet armed).
    Hold(Option<Time>),
    /// A go-back-N sink discarded the packet, which came above the next expected: send a NACK
    /// with the cumulative acknowledgement now, echoing this (`AckPolicy::go_back_n`).
    Nack(Echo),
}

#[derive(Debug, Default)]
pub struct Receiver {
    /// Next sequence number expected.
    next: u64,
    /// `received[i]`: whether packet `next + i` has arrived (index 0 is always false).
    received: VecDeque<bool>,
    policy: AckPolicy,
    /// In-order packets received and not yet acknowledged.
    unacked: u32,
    /// The echo of the earliest of them.
    held: Option<Echo>,
    /// Classic ECN: CE seen and no CWR since (ECE on every ACK). DCTCP: the held packets' mark.
    ce_state: bool,
    /// The SACK blocks, if the policy asks for them.
    /// Boxed: 72 bytes inline, in every connection's state whether it uses SACK or not.
    sack: Option<Box<SackList>>,
    /// A duplicate packet the next ACK reports in a D-SACK block.
    duplicate: Option<u64>,
    /// When the last CNP went (`AckPolicy::cnp_interval`).
    last_cnp: Option<Time>,
}

impl Receiver {
    pub fn new(policy: AckPolicy) -> Receiver {
        Receiver { policy, sack: policy.sack.then(Box::default), ..Default::default() }
    }

    /// Records packet `seq`; returns whether it is new (not a duplicate).
    #[inline]
    pub fn receive(&mut self, seq: u64) -> bool {
        self.arrive(seq).0
    }

    /// Whether this is the classic sink (every packet acknowledged at once, no ECN, no SACK):
    /// its owner then calls `receive` and acknowledges at once, the cheapest path.
    #[inline]
    pub fn is_classic(&self) -> bool {
        self.policy.every == 1 && self.policy.ecn == EcnEcho::Off && !self.policy.sack && !self.policy.go_back_n
    }

    /// Whether an in-order packet may wait for its ACK (on the delayed-ACK timer).
    pub fn delays_acks(&self) -> bool {
        self.policy.every > 1
    }

    /// Records packet `seq`; returns whether it is new and whether it arrived in order, with no
    /// hole behind or ahead of it (the only data whose ACK may be delayed).
    #[inline]
    fn arrive(&mut self, seq: u64) -> (bool, bool) {
        if seq < self.next {
            self.duplicate_arrived(seq);
            return (false, false);
        }
        let off = (seq - self.next) as usize;
        if off == 0 && self.received.is_empty() {
            // the next expected, with nothing received beyond it: nearly every packet, which so
            // leaves the deque alone (growing it by a place only to empty it again took 2 M of
            // the receiver's 7 M instructions on the TCP dumbbell)
            self.next += 1;
            if self.sack.is_some() {
                self.update_sack(seq, 0);
            }
            return (true, true);
        }
        let in_order = off == 0 && self.received.len() <= 1;
        if off >= self.received.len() {
            self.received.resize(off + 1, false);
        }
        if self.received[off] {
            self.duplicate_arrived(seq);
            return (false, false);
        }
        self.received[off] = true;
        while self.received.front() == Some(&true) {
            self.received.pop_front();
            self.next += 1;
        }
        if self.sack.is_some() {
            self.update_sack(seq, off);
        }
        (true, in_order)
    }

    /// Packet `seq` arrived `off` places past what was then the next expected: its SACK block
    /// (the run of received packets around it), or the cumulative ACK's move. Kept out of
    /// `arrive`, which every data packet of every flow passes through.
    #[inline(never)]
    fn update_sack(&mut self, seq: u64, off: usize) {
        let Some(sack) = &mut self.sack else { return };
        if off == 0 {
            sack.acknowledged(self.next);
        } else {
            let run = |d: &mut dyn Iterator<Item = usize>| d.take_while(|&i| self.received[i]).count() as u64;
            let below = run(&mut (1..off).rev());
            let above = run(&mut (off + 1..self.received.len()));
            sack.arrived(seq - below, seq + 1 + above);
        }
    }

    /// Packet `seq` arrived again: the next ACK reports it, with D-SACK.
    #[inline]
    fn duplicate_arrived(&mut self, seq: u64) {
        if self.policy.dsack && self.sack.is_some() {
            self.duplicate = Some(seq);
        }
    }

    /// Whether ACKs carry SACK blocks.
    #[inline]
    pub fn sacks(&self) -> bool {
        self.sack.is_some()
    }

    /// The SACK blocks the ACK being sent carries (none unless the policy asks for SACK): a
    /// D-SACK block first if a duplicate arrived since the last ACK (RFC 2883 §4: an ACK
    /// reports a duplicate once).
    pub fn take_sack_blocks(&mut self) -> SackBlocks {
        let Some(sack) = &self.sack else { return SackBlocks::default() };
        match self.duplicate.take() {
            Some(seq) => sack.with_duplicate(seq),
            None => sack.blocks(),
        }
    }

    /// Takes data packet `seq` (echo `echo`, with TCP's CWR flag `cwr`) at `now`: records it and
    /// decides about its ACK. Returns whether the packet is new, and what to do.
    pub fn take(&mut self, seq: u64, echo: Echo, cwr: bool, now: Time) -> (bool, AckNow) {
        if self.policy.go_back_n {
            return self.go_back_n(seq, echo);
        }
        if self.policy.every == 1 && self.policy.ecn == EcnEcho::Off && !self.policy.sack {
            // the classic sink: every packet acknowledged at once, echoing itself
            let (new, _) = self.arrive(seq);
            return (new, AckNow::Send(Echo { cumulative: self.next, ..echo }));
        }
        let before = self.next;
        let (new, in_order) = self.arrive(seq);
        match self.policy.ecn {
            EcnEcho::Off => {}
            EcnEcho::Classic => self.ce_state = echo.congestion || (self.ce_state && !cwr),
            EcnEcho::Dctcp if echo.congestion != self.ce_state => {
                self.ce_state = echo.congestion;
                if in_order && self.unacked > 0 {
                    // the held packets go now, with their own mark; this one waits alone
                    let held = self.flush().expect("packets are held");
                    self.held = Some(echo);
                    self.unacked = 1;
                    return (new, AckNow::Send(Echo { cumulative: before, ..held }));
                }
            }
            EcnEcho::Dctcp => {}
        }
        let first = *self.held.get_or_insert(echo);
        self.held = Some(Echo { congestion: first.congestion || echo.congestion, ..first });
        if !in_order {
            // out of order, a hole (partly) filled, or a duplicate: at once, echoing the packet
            // that caused it if nothing in order was waiting
            let echo = self.flush().unwrap_or(echo);
            return (new, AckNow::Send(self.stamped(echo)));
        }
        self.unacked += 1;
        if self.unacked >= self.policy.every {
            let echo = self.flush().expect("a packet is held");
            return (new, AckNow::Send(self.stamped(echo)));
        }
        (new, AckNow::Hold((self.unacked == 1).then_some(now + self.policy.delay)))
    }

    /// A go-back-N sink takes packet `seq` (`AckPolicy::go_back_n`): the next expected is
    /// acknowledged, a duplicate too, and a packet above it discarded and NACKed, each at once.
    #[cold]
    fn go_back_n(&mut self, seq: u64, echo: Echo) -> (bool, AckNow) {
        let new = seq == self.next;
        self.next += new as u64;
        let echo = Echo { cumulative: self.next, ..echo };
        (new, if seq > self.next { AckNow::Nack(echo) } else { AckNow::Send(echo) })
    }

    /// The delayed-ACK timer expired: the ACK to send, if anything is still unacknowledged.
    pub fn on_timer(&mut self) -> Option<Echo> {
        self.flush().map(|e| self.stamped(e))
    }

    /// `echo` with the cumulative acknowledgement, and the congestion bit the ECN mode says.
    fn stamped(&self, echo: Echo) -> Echo {
        let congestion = match self.policy.ecn {
            EcnEcho::Off => echo.congestion,
            EcnEcho::Classic | EcnEcho::Dctcp => self.ce_state,
        };
        Echo { cumulative: self.next, congestion, ..echo }
    }

    /// Forgets what was held; returns its echo if in-order data was waiting for an ACK.
    fn flush(&mut self) -> Option<Echo> {
        let held = self.held.take();
        let waiting = std::mem::take(&mut self.unacked) > 0;
        held.filter(|_| waiting)
    }

    /// Whether a delayed-ACK timer may be armed (in-order data is waiting for its ACK).
    pub fn holding(&self) -> bool {
        self.unacked > 0
    }

    /// The cumulative acknowledgement: the next sequence number expected.
    pub fn ack(&self) -> u64 {
        self.next
    }

    /// Whether the sink's answers go ahead of data at a host's priority interface: an RDMA NIC's
    /// (go-back-N) ACKs and NACKs, htsim's `PRIO_HI`.
    #[inline]
    pub fn answers_first(&self) -> bool {
        self.policy.go_back_n
    }

    /// A CE-marked packet arrived at `now`: whether a CNP goes now, at most one per the policy's
    /// interval (DCQCN's notification point; never without `cnp_interval`).
    pub fn cnp_due(&mut self, now: Time) -> bool {
        let Some(interval) = self.policy.cnp_interval else { return false };
        if self.last_cnp.is_some_and(|last| now < last + interval) {
            return false;
        }
        self.last_cnp = Some(now);
        true
    }
}

/// The SACK blocks of the ACKs in the network, by packet id. A packet has no room for them (most
/// ACKs carry none, and every hop copies the packet), so the receiver's blocks wait here from
/// the moment their ACK leaves the sink until it reaches the sender, or is dropped. With
/// `keep`, arrived ACKs' blocks stay, for captures that write them after the run.
#[derive(Default)]
pub struct SackOptions {
    by_packet: fnv::FnvHashMap<u64, SackBlocks>,
    keep: bool,
}

impl SackOptions {
    pub fn new(keep: bool) -> SackOptions {
        SackOptions { by_packet: Default::default(), keep }
    }

    /// `ack` carries `blocks` (if any): kept by its id, and the option's bytes on the wire.
    pub fn attach(&mut self, ack: &mut crate::net::Packet, blocks: SackBlocks) {
        if !blocks.is_empty() {
            ack.size += blocks.option_bytes();
            self.by_packet.insert(ack.id, blocks);
        }
    }

    /// The blocks of ACK `id`, which reached its sender.
    pub fn arrived(&mut self, id: u64) -> SackBlocks {
        let blocks = if self.keep { self.by_packet.get(&id).copied() } else { self.by_packet.remove(&id) };
        blocks.unwrap_or_default()
    }

    /// ACK `id` was dropped: its blocks reach nobody.
    pub fn dropped(&mut self, id: u64) {
        if !self.keep {
            self.by_packet.remove(&id);
        }
    }

    /// The blocks of ACK `id`, taken out to travel with it to another partition of a parallel
    /// run (`engine::parallel`), which `put`s them back.
    pub fn take(&mut self, id: u64) -> Option<SackBlocks> {
        self.by_packet.remove(&id)
    }

    pub fn put(&mut self, id: u64, blocks: SackBlocks) {
        self.by_packet.insert(id, blocks);
    }

    /// The blocks ACK `id` carried (for captures, with `keep`).
    pub fn of(&self, id: u64) -> SackBlocks {
        self.by_packet.get(&id).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
