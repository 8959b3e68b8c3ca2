//! A flow's two ends, as the hosts that run it: its application, its sender and sink, its
//! timers and counters, and the verbs of a host — the source sends data and takes ACKs, the sink
//! takes data and builds the ACK. Hosts are infinitely fast (thesis §6.5): each verb happens at
//! the instant its packet arrives.

use super::clock::HostClock;
use crate::net::{Control, Flags, FlowId, NodeId, Packet, PacketKind, PortId};
use crate::rng::LazyStream;
use crate::stats::FlowCounters;
use crate::timer::{TimerSlot, TIMERS_PER_FLOW};
use crate::traffic::Timing;
use crate::transport::reliability::sink::{AckNow, Echo, Receiver};
use crate::transport::Sender;
use crate::units::Time;

/// What the sink does with a data packet.
#[derive(Debug, PartialEq)]
pub enum SinkReply {
    /// Send this ACK from this port.
    Ack(PortId, Packet),
    /// Arm the delayed-ACK timer for this instant.
    Arm(Time),
    Nothing,
}

/// What the hosts need to know of their flow to build its packets.
#[derive(Copy, Clone, Debug)]
pub struct FlowEnds {
    pub id: FlowId,
    /// Whose state these ends are: the flow itself, or one connection of it (`Packet::conn`).
    pub conn: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Data packet size on the wire, bytes.
    pub packet_size: u32,
    pub ack_size: u32,
    /// Bytes of each data packet that are headers, not payload (`net::Headers`).
    pub header_bytes: u32,
    /// Whether the sink acknowledges (open-loop sources may go unacknowledged).
    pub acks: bool,
    /// Whether the flow has a sender (flow control): its sink then keeps reordering state and
    /// acknowledges cumulatively. Kept here for the sink, which in a parallel run's partition
    /// may not hold the sender (`engine::arrivals`).
    pub closed_loop: bool,
    /// Whether data packets are ECN-capable (the transport's `ecn`).
    pub ect: bool,
    /// Whether every packet of the flow is, retransmissions and the sink's ACKs too: DCTCP's
    /// rule (Linux's `dctcp` sets ECT on all its packets, RFC 8257 §3.1, so that a marking queue
    /// above K marks them rather than drops them); else RFC 3168 §6.1.5's, new data only.
    pub ect_all: bool,
    /// The header priority of its data packets, unless its transport gives each its own (BLT).
    pub priority: u8,
    /// Whether switches stamp INT records into its data packets, and where (`net::int`).
    pub telemetry: Option<crate::net::int::IntStamp>,
}

pub struct FlowState {
    pub ends: FlowEnds,
    /// Timed application, if the application is not FTP.
    pub source: Option<Box<dyn Timing>>,
    /// Packets the application has handed over so far (`u64::MAX`: an infinite FTP).
    pub app_limit: u64,
    /// Packets an FTP will hand over in all (`None` = infinite); set once the flow starts.
    pub file_packets: Option<u64>,
    pub stopped: bool,
    /// `None` for an open-loop flow.
    pub sender: Option<Box<dyn Sender>>,
    /// The sink (receiving) side.
    pub receiver: Receiver,
    /// One past the highest sequence number sent so far (lower ones are retransmissions).
    pub next_new_seq: u64,
    pub highest_ack: u64,
    /// First transmission times of packets `highest_ack..next_new_seq` (flow-controlled flows),
    /// for the round trip from first transmission.
    pub first_sent: std::collections::VecDeque<Time>,
    pub timers: [TimerSlot; TIMERS_PER_FLOW],
    /// How late the hosts' timeouts and the timed application's instants are.
    pub clock: HostClock,
    /// When the timed application's next packet is due by its own schedule (its clock may make
    /// it late).
    pub app_due: Time,
    pub rng: LazyStream,
    /// The source's line, where its data packets start, and the sink's, where its ACKs do: the
    /// first ports of the flow's routes, all the hosts read of them (forwarding reads the rest in
    /// `engine::routes`, or chooses it at each switch). `None` in a parallel run's partition
    /// that holds neither end. Not the routes themselves: as two `Vec`s they took 112 bytes of
    /// each connection, 7 MB of a k = 64 fabric's 65,536.
    pub data_line: Option<PortId>,
    pub ack_line: Option<PortId>,
    pub counters: FlowCounters,
    pub intervals: Vec<FlowCounters>,
    /// Drops over the whole run, by (port, reason).
    pub drop_tally: Vec<(PortId, crate::qdisc::DropReason, u64)>,
    /// When a finite FTP had every packet acknowledged.
    pub completed_at: Option<Time>,
    /// When the flow starts: the scenario's start, or the drawn one of a `web` transfer.
    pub start: Time,
    /// A `web` transfer's drawn size, packets.
    pub drawn_packets: Option<u64>,
    /// The sender's recorded variables (time, series, value), if the flow is traced.
    pub trace: Option<Vec<(Time, crate::transport::Series, f64)>>,
    /// The sender reduced its window for an ECN echo: the next new data packet carries CWR.
    pub cwr_pending: bool,
    /// Since when the flow's own window has held the sender back, if it does now.
    pub window_limited_since: Option<Time>,
    /// A receiver-driven transport's pulls at the sink (`node::pull`); `None` for the rest.
    /// Boxed: 56 bytes inline, in every connection's state.
    pub pulls: Option<Box<super::pull::Pulls>>,
}

impl FlowState {
    /// The source puts data packet `seq` (packet id `id`, header priority `priority`) on the
    /// network at `now`; returns its first port and the packet.
    #[inline]
    pub fn send_data(&mut self, seq: u64, id: u64, now: Time, priority: u8) -> (PortId, Packet) {
        let retransmission = seq < self.next_new_seq;
        let cwr = self.cwr_pending && !retransmission;
        self.cwr_pending &= !cwr;
        if self.sender.is_some() {
            for _ in self.next_new_seq..=seq {
                self.first_sent.push_back(now);
            }
        }
        self.next_new_seq = self.next_new_seq.max(seq + 1);
        self.counters.sent += 1;
        self.counters.retransmitted += retransmission as u64;
        let e = self.ends;
        let pkt = Packet {
            id,
            flow: e.id,
            conn: e.conn,
            seq,
            size: e.packet_size,
            src: e.src,
            dst: e.dst,
            sent_at: now,
            echo_sent_at: Time::ZERO,
            echo_seq: 0,
            ack_delay_ns: 0,
            enqueued_at: now,
            hop: 0,
            flags: Flags::new(PacketKind::Data),
            priority,
            label: 0.0,
        }
        .with_ect(e.ect && (e.ect_all || !retransmission)) // RFC 3168 §6.1.5: retransmissions are not ECT
        .with_cwr(cwr)
        .with_retransmission(retransmission);
        (self.source_line(), pkt)
    }

    /// The sink takes data packet `pkt` at `now`: its ACK goes out (the caller gives it its
    /// packet id), waits for the delayed-ACK timer, or there is none (an unacknowledged flow).
    #[inline]
    pub fn sink_receive(&mut self, pkt: Packet, now: Time) -> SinkReply {
        if pkt.trimmed() {
            return self.header_receive(pkt, now);
        }
        let c = &mut self.counters;
        c.delivered += 1;
        c.bytes_delivered += pkt.size as u64;
        c.add_delay(now - pkt.sent_at);
        let echo =
            Echo { sent_at: pkt.sent_at, arrived: now, seq: pkt.seq, congestion: pkt.congestion(), cumulative: 0 };
        // open-loop sources never retransmit, so they need no reordering state
        let closed_loop = self.ends.closed_loop;
        let (new, reply) = if !closed_loop {
            (true, AckNow::Send(echo))
        } else if self.receiver.is_classic() {
            let new = self.receiver.receive(pkt.seq);
            (new, AckNow::Send(Echo { cumulative: self.receiver.ack(), ..echo }))
        } else {
            self.receiver.take(pkt.seq, echo, pkt.cwr(), now)
        };
        if new {
            c.delivered_unique += 1;
            c.bytes_unique += pkt.size as u64;
            c.payload_unique += pkt.size.saturating_sub(self.ends.header_bytes) as u64;
        }
        if !self.ends.acks {
            return SinkReply::Nothing;
        }
        match reply {
            AckNow::Send(echo) => {
                let cumulative = if closed_loop { echo.cumulative } else { pkt.seq + 1 };
                // a receiver-driven transport's control packets, and an RDMA NIC's ACKs, go ahead
                // of its data (priority 0)
                let priority = if self.pulls.is_some() || self.receiver.answers_first() { 0 } else { pkt.priority };
                SinkReply::Ack(self.sink_line(), self.ack(now, cumulative, echo, priority, pkt.label))
            }
            AckNow::Nack(echo) => {
                // go-back-N: the packet was discarded; the NACK asks for the cumulative ACK on
                let nack = self.ack(now, echo.cumulative, echo, 0, pkt.label).with_control(Control::Nack);
                SinkReply::Ack(self.sink_line(), nack)
            }
            AckNow::Hold(Some(at)) => SinkReply::Arm(at),
            AckNow::Hold(None) => SinkReply::Nothing,
        }
    }

    /// The sink takes the header of a trimmed data packet (`qdisc::trim`) at `now`: its payload
    /// is lost. A receiver-driven transport answers with a NACK for it; any other has no way to
    /// hear of it, and the packet counts as lost, as a drop would (never as delivered).
    #[cold]
    fn header_receive(&mut self, pkt: Packet, now: Time) -> SinkReply {
        self.counters.trimmed += 1;
        if self.pulls.is_none() || !self.ends.acks {
            return SinkReply::Nothing;
        }
        let echo = Echo {
            sent_at: pkt.sent_at,
            arrived: now,
            seq: pkt.seq,
            congestion: pkt.congestion(),
            cumulative: self.receiver.ack(),
        };
        let nack = self.ack(now, echo.cumulative, echo, 0, 0.0).with_control(Control::Nack);
        SinkReply::Ack(self.sink_line(), nack)
    }

    /// A CE-marked data packet arrived at `now`: the CNP the sink sends, if one is due (DCQCN's
    /// notification point, `AckPolicy::cnp_interval`), with packet id 0 until the caller gives it
    /// one.
    pub fn cnp(&mut self, now: Time) -> Option<(PortId, Packet)> {
        if !self.receiver.cnp_due(now) {
            return None;
        }
        self.counters.cnps += 1;
        let cumulative = self.receiver.ack();
        let echo = Echo { sent_at: now, arrived: now, seq: 0, congestion: true, cumulative };
        Some((self.sink_line(), self.reply(now, cumulative, echo, 0, 0.0).with_control(Control::Cnp)))
    }

    /// The sink's pull number `number` at `now` (packet id 0 until the caller gives it one).
    pub fn pull(&mut self, now: Time, number: u64) -> (PortId, Packet) {
        let echo = Echo { sent_at: now, arrived: now, seq: 0, congestion: false, cumulative: 0 };
        self.counters.pulls += 1;
        (self.sink_line(), self.reply(now, number, echo, 0, 0.0).with_control(Control::Pull))
    }

    /// The line the source sends on.
    #[inline]
    fn source_line(&self) -> PortId {
        self.data_line.expect("a partition sends only from the hosts it holds")
    }

    /// The line the sink sends on.
    #[inline]
    fn sink_line(&self) -> PortId {
        self.ack_line.expect("a partition sends only from the hosts it holds")
    }

    /// Whether every packet of the flow's file has reached the sink.
    pub fn all_in(&self) -> bool {
        self.file_packets.is_some_and(|n| self.receiver.ack() >= n)
    }

    /// Whether the flow's ACKs carry SACK blocks.
    #[inline]
    pub fn uses_sack(&self) -> bool {
        self.receiver.sacks()
    }

    /// The sink's delayed-ACK timer expired at `now`: the ACK it sends, if data is waiting.
    pub fn delayed_ack(&mut self, now: Time) -> Option<(PortId, Packet)> {
        let echo = self.receiver.on_timer()?;
        Some((self.sink_line(), self.ack(now, echo.cumulative, echo, 0, 0.0)))
    }

    /// The ACK the sink sends at `now` (packet id 0 until the caller gives it one). It keeps the
    /// header priority and rate label of the data packet that caused it.
    fn ack(&mut self, now: Time, cumulative: u64, echo: Echo, priority: u8, label: f32) -> Packet {
        self.counters.acks_sent += 1;
        self.reply(now, cumulative, echo, priority, label)
    }

    /// A packet from the sink to the source, of kind `Ack`, with `seq` and the echo of `echo`.
    fn reply(&self, now: Time, seq: u64, echo: Echo, priority: u8, label: f32) -> Packet {
        let e = self.ends;
        Packet {
            id: 0,
            flow: e.id,
            conn: e.conn,
            seq,
            size: e.ack_size,
            src: e.dst,
            dst: e.src,
            sent_at: now,
            echo_sent_at: echo.sent_at,
            echo_seq: echo.seq,
            ack_delay_ns: u32::try_from((now - echo.arrived).0).unwrap_or(u32::MAX),
            enqueued_at: now,
            hop: 0,
            flags: Flags::new(PacketKind::Ack),
            priority,
            label,
        }
        .with_congestion(echo.congestion)
        .with_ect(e.ect_all)
    }

    /// The source takes `ack` at `now`: round trips and completion are counted; the sender
    /// hears of it next, from the loop.
    #[inline]
    pub fn source_receive(&mut self, ack: &Packet, now: Time) {
        self.counters.acks_received += 1;
        self.counters.add_rtt(now - ack.echo_sent_at);
        if self.sender.is_some() {
            // a cumulative ACK: every packet it newly covers completes its round trip now
            for _ in self.highest_ack..ack.seq.min(self.next_new_seq) {
                let first = self.first_sent.pop_front().expect("one entry per unacknowledged packet");
                self.counters.add_rtt_first(now - first);
            }
        } else {
            self.counters.add_rtt_first(now - ack.echo_sent_at);
        }
        self.highest_ack = self.highest_ack.max(ack.seq);
        if let Some(n) = self.file_packets {
            if self.completed_at.is_none() && self.highest_ack >= n {
                self.completed_at = Some(now);
            }
        }
    }

    /// The application starts at `now`: a bulk one (`bulk`: its file's packets, `None` if
    /// endless) has its data at once; returns when a timed application produces its first packet
    /// (late by the hosts' clock).
    pub fn start_app(&mut self, bulk: Option<Option<u64>>, now: Time) -> Option<Time> {
        if let Some(packets) = bulk {
            let packets = self.drawn_packets.or(packets);
            self.file_packets = packets;
            self.app_limit = packets.unwrap_or(u64::MAX);
        }
        let source = self.source.as_mut()?;
        self.app_due = source.first(now, self.rng.get());
        Some(self.clock.late(self.app_due))
    }

    /// The application stops producing data; what it already produced is still sent. An FTP's
    /// file ends with the packets sent so far.
    pub fn stop_app(&mut self) {
        self.stopped = true;
        if self.source.is_none() {
            self.app_limit = self.app_limit.min(self.next_new_seq);
        }
    }

    /// When the timed application, which just produced a packet, produces the next: its
    /// schedule runs from when that packet was due, not from when the clock let it out.
    pub fn next_app_packet(&mut self) -> Time {
        self.app_due = self.source.as_mut().expect("timed application").next(self.app_due, self.rng.get());
        if self.app_due == Time::MAX && self.sender.is_some() && self.file_packets.is_none() {
            // it produces no more (a source written in Python answered None): over a transport,
            // what it produced is a file, whose completion is counted as an FTP's
            self.file_packets = Some(self.app_limit);
        }
        self.clock.late(self.app_due)
    }

    /// From `now` on, the flow's own window holds the sender back (`limited`) or no longer.
    pub fn window_limited(&mut self, now: Time, limited: bool) {
        self.count_window_limited(now);
        self.window_limited_since = limited.then_some(now);
    }

    /// Counts the window-limited time up to `now` in the counters under way.
    pub fn count_window_limited(&mut self, now: Time) {
        if let Some(since) = &mut self.window_limited_since {
            self.counters.window_limited_ns += (now - *since).0;
            *since = now;
        }
    }

    /// Ends the measurement interval under way, at `now`.
    pub fn close_interval(&mut self, now: Time) {
        self.count_window_limited(now);
        crate::stats::counters::push_from_one(&mut self.intervals, std::mem::take(&mut self.counters));
    }

    pub fn tally_drop(&mut self, port: PortId, reason: crate::qdisc::DropReason) {
        match self.drop_tally.iter_mut().find(|(p, r, _)| *p == port && *r == reason) {
            Some((_, _, n)) => *n += 1,
            None => self.drop_tally.push((port, reason, 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{generic, GenericConfig};

    #[test]
    fn a_flow_keeps_what_few_flows_use_out_of_line() {
        // every connection has a flow's state: an exact clock's empty random stream took 344
        // bytes of each, the pulls of a receiver-driven transport 56 and the SACK blocks 72;
        // timers with options 64 more
        assert!(std::mem::size_of::<FlowState>() <= 776, "{}", std::mem::size_of::<FlowState>());
        assert_eq!(std::mem::size_of::<HostClock>(), 8);
    }

    fn flow(closed_loop: bool) -> FlowState {
        FlowState {
            ends: FlowEnds {
                id: FlowId(3),
                conn: FlowId(3),
                src: NodeId(0),
                dst: NodeId(1),
                packet_size: 1000,
                ack_size: 40,
                header_bytes: 0,
                acks: true,
                closed_loop,
                ect: false,
                ect_all: false,
                priority: 0,
                telemetry: None,
            },
            source: None,
            app_limit: u64::MAX,
            file_packets: Some(2),
            stopped: false,
            sender: closed_loop.then(|| Box::new(generic(&GenericConfig::default()).unwrap()) as Box<dyn Sender>),
            receiver: Default::default(),
            next_new_seq: 0,
            highest_ack: 0,
            first_sent: Default::default(),
            timers: Default::default(),
            clock: HostClock::exact(),
            app_due: Time::ZERO,
            rng: crate::rng::LazyStream::new(1, "test"),
            data_line: Some(PortId(7)),
            ack_line: Some(PortId(8)),
            counters: Default::default(),
            intervals: vec![],
            drop_tally: vec![],
            completed_at: None,
            start: Time::ZERO,
            drawn_packets: None,
            trace: None,
            cwr_pending: false,
            window_limited_since: None,
            pulls: None,
        }
    }

    fn acked(reply: SinkReply) -> (PortId, Packet) {
        match reply {
            SinkReply::Ack(port, ack) => (port, ack),
            other => panic!("no ACK: {other:?}"),
        }
    }

    #[test]
    fn delayed_acks_wait_for_a_second_packet_or_the_timer() {
        let mut f = flow(true);
        f.receiver = Receiver::new(crate::transport::reliability::sink::AckPolicy {
            every: 2,
            delay: Time::from_millis(200),
            ..Default::default()
        });
        let (_, p0) = f.send_data(0, 1, Time::from_secs(1), 0);
        let (_, p1) = f.send_data(1, 2, Time::from_secs(1), 0);
        let (_, p2) = f.send_data(2, 3, Time::from_secs(1), 0);
        assert_eq!(f.sink_receive(p0, Time::from_secs(2)), SinkReply::Arm(Time::from_millis(2200)));
        let (_, ack) = acked(f.sink_receive(p1, Time::from_secs(2)));
        assert_eq!((ack.seq, ack.echo_seq), (2, 0), "one ACK for two packets, echoing the first");
        assert_eq!(f.sink_receive(p2, Time::from_secs(3)), SinkReply::Arm(Time::from_millis(3200)));
        let (port, ack) = f.delayed_ack(Time::from_millis(3200)).unwrap();
        assert_eq!((port, ack.seq, ack.echo_seq, ack.sent_at), (PortId(8), 3, 2, Time::from_millis(3200)));
        assert_eq!(f.delayed_ack(Time::from_millis(3400)), None);
        assert_eq!((f.counters.delivered, f.counters.acks_sent), (3, 2));
    }

    #[test]
    fn data_goes_out_on_the_data_route_and_a_resend_counts_as_a_retransmission() {
        let mut f = flow(true);
        let (port, p) = f.send_data(0, 11, Time::from_secs(1), 0);
        assert_eq!((port, p.id, p.flow, p.seq, p.size, p.retransmission()), (PortId(7), 11, FlowId(3), 0, 1000, false));
        f.send_data(1, 12, Time::from_secs(1), 0);
        let (_, again) = f.send_data(0, 13, Time::from_secs(2), 0);
        assert!(again.retransmission());
        assert_eq!((f.counters.sent, f.counters.retransmitted, f.next_new_seq), (3, 1, 2));
    }

    #[test]
    fn the_sink_acks_cumulatively_and_the_source_times_round_trips_from_first_transmission() {
        let mut f = flow(true);
        let (_, p0) = f.send_data(0, 1, Time::from_secs(1), 0);
        let (_, p1) = f.send_data(1, 2, Time::from_secs(1), 0);
        // packet 0 is lost; 1 arrives first: the ACK still asks for 0
        let (port, ack) = acked(f.sink_receive(p1, Time::from_secs(2)));
        assert_eq!(
            (port, ack.seq, ack.size, ack.echo_seq, ack.src, ack.dst),
            (PortId(8), 0, 40, 1, NodeId(1), NodeId(0))
        );
        f.source_receive(&ack, Time::from_secs(3));
        assert_eq!(f.highest_ack, 0);
        let (_, resent) = f.send_data(0, 3, Time::from_secs(4), 0);
        let (_, ack) = acked(f.sink_receive(resent, Time::from_secs(5)));
        assert_eq!(ack.seq, 2, "both are in");
        f.source_receive(&ack, Time::from_secs(6));
        // two packets completed their round trips, each timed from its first transmission at 1 s
        assert_eq!(crate::stats::FlowMetrics::of(&f.counters, 1.0).rtt_first_s, Some(5.0));
        assert_eq!(f.completed_at, Some(Time::from_secs(6)), "the two-packet file is done");
        assert_eq!((f.counters.delivered, f.counters.delivered_unique), (2, 2));
        let _ = p0;
    }

    #[test]
    fn an_open_loop_flow_acks_each_packet_and_an_ftp_stop_ends_its_file() {
        let mut f = flow(false);
        let (_, p) = f.send_data(5, 1, Time::ZERO, 0);
        let (_, ack) = acked(f.sink_receive(p, Time::from_secs(1)));
        assert_eq!(ack.seq, 6, "no reordering state: the packet after this one");
        let mut ftp = flow(true);
        assert_eq!(ftp.start_app(Some(None), Time::ZERO), None, "FTP is not timed");
        assert_eq!(ftp.app_limit, u64::MAX);
        ftp.send_data(0, 1, Time::ZERO, 0);
        ftp.stop_app();
        assert_eq!(ftp.app_limit, 1, "the file ends with what was sent");
    }
}
