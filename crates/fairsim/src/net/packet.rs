//! Packets and the dense ids of the things they travel through.

use crate::units::Time;

macro_rules! dense_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
            pub fn from_idx(i: usize) -> Self {
                $name(i as u32)
            }
        }
    };
}

dense_id!(
    /// A node (host or switch), in scenario declaration order.
    NodeId
);
dense_id!(
    /// One direction of a link: an output queue with its transmitter.
    PortId
);
dense_id!(
    /// A flow (conversation) between two nodes, in scenario declaration order.
    FlowId
);

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PacketKind {
    Data,
    Ack,
}

/// A packet. Small and `Copy`: disciplines and pipes hold packets by value.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Packet {
    /// Unique within a run, in creation order (for traces and tie-breaking).
    pub id: u64,
    pub flow: FlowId,
    /// The ends that sent it and take it: the flow's own (`conn == flow`), or one connection
    /// of an open-population flow (`app = "files"`), whose state lives past the scenario's flows.
    /// The network sees only `flow`.
    pub conn: FlowId,
    pub kind: PacketKind,
    /// Data: the sequence number (0, 1, 2, ... in packets). ACK: the cumulative acknowledgement,
    /// i.e. the next sequence number the sink expects (every lower one has arrived).
    pub seq: u64,
    /// Bytes on the wire.
    pub size: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// When the sender put this transmission on the network.
    pub sent_at: Time,
    /// ACK only: `sent_at` and `seq` of the data packet that caused it.
    pub echo_sent_at: Time,
    pub echo_seq: u64,
    /// ACK only: how long the sink held it after the echoed packet arrived (a delayed ACK's
    /// wait), ns, at most `u32::MAX` (4.29 s; RFC 1122 allows 0.5 s). The sender's round trip
    /// less it is the network's (Swift's remote delay).
    pub ack_delay_ns: u32,
    /// When the packet joined the queue it is in (or last was in).
    pub enqueued_at: Time,
    /// Index of the next port on the packet's route.
    pub hop: u16,
    /// Congestion-experienced bit: DECbit's, or ECN's CE (RFC 3168). On an ACK, the echo: the
    /// bit of the data it acknowledges (DECbit, DCTCP) or TCP's ECE flag (classic ECN).
    pub congestion: bool,
    /// ECN-capable transport (RFC 3168's ECT): a discipline that marks sets `congestion`
    /// instead of dropping it.
    pub ect: bool,
    /// TCP's CWR flag: the sender reduced its window in answer to an ECN echo.
    pub cwr: bool,
    /// A retransmission of an earlier sequence number.
    pub retransmission: bool,
    /// Scheduling priority for disciplines that use one (0 = default).
    pub priority: u8,
    /// Rate label in bit/s written by edge routers (CSFQ); 0 when unlabelled.
    pub label: f32,
}

impl Packet {
    /// A packet with every field zero, for building probes and tests.
    pub fn blank() -> Packet {
        Packet {
            id: 0,
            flow: FlowId(0),
            conn: FlowId(0),
            kind: PacketKind::Data,
            seq: 0,
            size: 0,
            src: NodeId(0),
            dst: NodeId(0),
            sent_at: Time::ZERO,
            echo_sent_at: Time::ZERO,
            echo_seq: 0,
            ack_delay_ns: 0,
            enqueued_at: Time::ZERO,
            hop: 0,
            congestion: false,
            ect: false,
            cwr: false,
            retransmission: false,
            priority: 0,
            label: 0.0,
        }
    }

    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }

    /// The conversation this packet belongs to: its flow and direction. ACKs of a flow are
    /// their own conversation (thesis §6.5: "ACKs are treated as a separate conversation").
    pub fn conversation(&self) -> (FlowId, PacketKind) {
        (self.flow, self.kind)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn packets_stay_small() {
        // packets are moved by value through queues and pipes; keep them within 80 bytes
        assert!(std::mem::size_of::<super::Packet>() <= 88, "{}", std::mem::size_of::<super::Packet>());
    }
}
