//! What the tests of the receiver-driven senders (NDP, EQDS) share: their control packets, and a
//! call with the data packets it sent.

use crate::net::{Control, Packet, PacketKind};
use crate::transport::{Action, AgentCtx};
use crate::units::Time;

/// The data packets `actions` send, by sequence number.
pub fn sent(actions: &[Action]) -> Vec<u64> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::SendWithPriority { seq, .. } => Some(*seq),
            _ => None,
        })
        .collect()
}

/// A control packet from the sink: an ACK or NACK (`seq` the cumulative acknowledgement,
/// `echo_seq` the packet it answers) or a pull (`seq` its number).
pub fn control(control: Control, seq: u64, echo_seq: u64) -> Packet {
    Packet { seq, echo_seq, ..Packet::blank() }.with_kind(PacketKind::Ack).with_control(control)
}

/// Calls `f` on `sender` at time zero with a file of `file` packets; returns the packets sent.
pub fn call<S>(sender: &mut S, file: u64, f: impl FnOnce(&mut S, &mut AgentCtx)) -> Vec<u64> {
    let mut actions = vec![];
    f(sender, &mut AgentCtx::new(Time::ZERO, file, &mut actions));
    sent(&actions)
}
