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

/// What a packet of kind `Ack` says: an acknowledgement, or one of a receiver-driven transport's
/// control packets (NDP, Handley et al. 2017 §3.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    /// An acknowledgement (and every data packet's value).
    Ack,
    /// The receiver got the header of a trimmed packet (`echo_seq`): send it again.
    Nack,
    /// A pull: the sender may send one more packet. `seq` is the pull's number, counted per
    /// flow, so that a lost pull is made up by the next.
    Pull,
    /// A congestion notification (RoCEv2's CNP, DCQCN): the receiver saw a CE mark.
    Cnp,
}

/// A packet's kind and its one-bit header fields, packed in one byte: as an enum and four
/// `bool`s they took five and pushed `Packet` past 80 bytes. Read and set them through
/// `Packet`'s accessors (`kind()`, `congestion()`, `set_congestion()`, ...), which document
/// each; the default is a data packet with every bit clear.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Flags(u8);

impl Flags {
    /// Set on an ACK, clear on data: [`Packet::kind`].
    const ACK: u8 = 1 << 0;
    /// [`Packet::congestion`].
    const CONGESTION: u8 = 1 << 1;
    /// [`Packet::ect`].
    const ECT: u8 = 1 << 2;
    /// [`Packet::cwr`].
    const CWR: u8 = 1 << 3;
    /// [`Packet::retransmission`].
    const RETRANSMISSION: u8 = 1 << 4;
    /// [`Packet::trimmed`].
    const TRIMMED: u8 = 1 << 5;
    /// Bits 6 and 7: a control packet's subtype, [`Packet::control`] (an ACK's only).
    const CONTROL_SHIFT: u8 = 6;
    const CONTROL: u8 = 0b11 << Flags::CONTROL_SHIFT;

    /// A packet of `kind` with every header bit clear.
    #[inline]
    pub fn new(kind: PacketKind) -> Flags {
        match kind {
            PacketKind::Data => Flags(0),
            PacketKind::Ack => Flags(Flags::ACK),
        }
    }

    /// The control subtype in bits 6 and 7.
    #[inline]
    fn control(self) -> Control {
        match (self.0 & Flags::CONTROL) >> Flags::CONTROL_SHIFT {
            0 => Control::Ack,
            1 => Control::Nack,
            2 => Control::Pull,
            _ => Control::Cnp,
        }
    }

    #[cfg(test)]
    fn without_control(self) -> Flags {
        Flags(self.0 & !Flags::CONTROL)
    }

    #[inline]
    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    #[inline]
    fn set(&mut self, bit: u8, on: bool) {
        self.0 = if on { self.0 | bit } else { self.0 & !bit };
    }
}

/// The kind and the names of the bits set, e.g. `Data | ECT | CWR`.
impl std::fmt::Debug for Flags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.has(Flags::ACK) { "Ack" } else { "Data" })?;
        let named = [
            (Flags::CONGESTION, "CONGESTION"),
            (Flags::ECT, "ECT"),
            (Flags::CWR, "CWR"),
            (Flags::RETRANSMISSION, "RETRANSMISSION"),
            (Flags::TRIMMED, "TRIMMED"),
        ];
        for (bit, name) in named {
            if self.has(bit) {
                write!(f, " | {name}")?;
            }
        }
        match self.control() {
            Control::Ack => Ok(()),
            Control::Nack => f.write_str(" | NACK"),
            Control::Pull => f.write_str(" | PULL"),
            Control::Cnp => f.write_str(" | CNP"),
        }
    }
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
    /// Its kind and one-bit header fields, read and set through the accessors below.
    pub flags: Flags,
    /// Scheduling priority for disciplines that use one (0 = default).
    pub priority: u8,
    /// Rate label in bit/s written by edge routers (CSFQ); 0 when unlabelled.
    pub label: f32,
}

impl Packet {
    /// A data packet with every field zero, for building probes and tests.
    pub fn blank() -> Packet {
        Packet {
            id: 0,
            flow: FlowId(0),
            conn: FlowId(0),
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
            flags: Flags::default(),
            priority: 0,
            label: 0.0,
        }
    }

    /// Data or ACK.
    #[inline]
    pub fn kind(&self) -> PacketKind {
        if self.flags.has(Flags::ACK) {
            PacketKind::Ack
        } else {
            PacketKind::Data
        }
    }

    #[inline]
    pub fn is_data(&self) -> bool {
        !self.flags.has(Flags::ACK)
    }

    /// Whether a queue cut this data packet to its header (NDP's packet trimming, `qdisc::trim`):
    /// its payload is gone; its receiver learns what was sent, not what it held.
    #[inline]
    pub fn trimmed(&self) -> bool {
        self.flags.has(Flags::TRIMMED)
    }

    /// Cuts the packet to its `header` bytes (at most its size), keeping its other fields.
    pub fn trim(&mut self, header: u32) {
        self.flags.set(Flags::TRIMMED, true);
        self.size = self.size.min(header);
    }

    /// What an ACK-kind packet says (`Control::Ack` for data).
    #[inline]
    pub fn control(&self) -> Control {
        self.flags.control()
    }

    pub fn with_control(mut self, control: Control) -> Packet {
        let bits = match control {
            Control::Ack => 0,
            Control::Nack => 1,
            Control::Pull => 2,
            Control::Cnp => 3,
        };
        self.flags.0 = self.flags.0 & !Flags::CONTROL | bits << Flags::CONTROL_SHIFT;
        self
    }

    /// This packet as a packet of `kind`.
    pub fn with_kind(mut self, kind: PacketKind) -> Packet {
        self.flags.set(Flags::ACK, kind == PacketKind::Ack);
        self
    }

    /// The conversation this packet belongs to: its flow and direction. ACKs of a flow are
    /// their own conversation (thesis §6.5: "ACKs are treated as a separate conversation").
    #[inline]
    pub fn conversation(&self) -> (FlowId, PacketKind) {
        (self.flow, self.kind())
    }

    /// Congestion-experienced bit: DECbit's, or ECN's CE (RFC 3168). On an ACK, the echo: the
    /// bit of the data it acknowledges (DECbit, DCTCP) or TCP's ECE flag (classic ECN).
    #[inline]
    pub fn congestion(&self) -> bool {
        self.flags.has(Flags::CONGESTION)
    }

    #[inline]
    pub fn set_congestion(&mut self, on: bool) {
        self.flags.set(Flags::CONGESTION, on);
    }

    pub fn with_congestion(mut self, on: bool) -> Packet {
        self.set_congestion(on);
        self
    }

    /// ECN-capable transport (RFC 3168's ECT): a discipline that marks sets the congestion
    /// bit instead of dropping it.
    #[inline]
    pub fn ect(&self) -> bool {
        self.flags.has(Flags::ECT)
    }

    #[inline]
    pub fn set_ect(&mut self, on: bool) {
        self.flags.set(Flags::ECT, on);
    }

    pub fn with_ect(mut self, on: bool) -> Packet {
        self.set_ect(on);
        self
    }

    /// TCP's CWR flag: the sender reduced its window in answer to an ECN echo.
    #[inline]
    pub fn cwr(&self) -> bool {
        self.flags.has(Flags::CWR)
    }

    pub fn with_cwr(mut self, on: bool) -> Packet {
        self.flags.set(Flags::CWR, on);
        self
    }

    /// A retransmission of an earlier sequence number.
    #[inline]
    pub fn retransmission(&self) -> bool {
        self.flags.has(Flags::RETRANSMISSION)
    }

    pub fn with_retransmission(mut self, on: bool) -> Packet {
        self.flags.set(Flags::RETRANSMISSION, on);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::{Packet, PacketKind};

    #[test]
    fn packets_stay_small() {
        // packets are moved by value through queues and pipes; keep them within 80 bytes
        assert!(std::mem::size_of::<Packet>() <= 80, "{}", std::mem::size_of::<Packet>());
    }

    #[test]
    fn each_flag_is_its_own_bit() {
        let all = Packet::blank()
            .with_kind(PacketKind::Ack)
            .with_congestion(true)
            .with_ect(true)
            .with_cwr(true)
            .with_retransmission(true);
        assert_eq!(format!("{:?}", all.flags), "Ack | CONGESTION | ECT | CWR | RETRANSMISSION");
        let mut cut = all.with_control(super::Control::Nack);
        cut.size = 9064;
        cut.trim(64);
        assert_eq!(format!("{:?}", cut.flags), "Ack | CONGESTION | ECT | CWR | RETRANSMISSION | TRIMMED | NACK");
        assert_eq!((cut.size, cut.trimmed(), cut.control()), (64, true, super::Control::Nack));
        let pull = cut.with_control(super::Control::Pull);
        assert_eq!(
            (pull.control(), pull.with_control(super::Control::Ack).flags),
            (super::Control::Pull, cut.flags.without_control())
        );
        assert!(!all.trimmed() && all.control() == super::Control::Ack);
        let cnp = all.with_control(super::Control::Cnp);
        assert_eq!(
            (cnp.control(), format!("{:?}", cnp.flags)),
            (super::Control::Cnp, "Ack | CONGESTION | ECT | CWR | RETRANSMISSION | CNP".into())
        );
        let cleared = [
            all.with_kind(PacketKind::Data),
            all.with_congestion(false),
            all.with_ect(false),
            all.with_cwr(false),
            all.with_retransmission(false),
        ];
        let read = |p: &Packet| [!p.is_data(), p.congestion(), p.ect(), p.cwr(), p.retransmission()];
        for (i, p) in cleared.iter().enumerate() {
            let expected: [bool; 5] = std::array::from_fn(|j| j != i);
            assert_eq!(read(p), expected, "{:?}", p.flags);
        }
        assert_eq!(Packet::blank().kind(), PacketKind::Data);
        assert_eq!(all.conversation(), (super::FlowId(0), PacketKind::Ack));
    }
}
