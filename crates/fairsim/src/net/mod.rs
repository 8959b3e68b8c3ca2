//! The network: packets, ports (output queue + transmitter + propagation pipe), routing.

mod packet;
pub mod port;
pub mod routing;

pub use packet::{FlowId, NodeId, Packet, PacketKind, PortId};
pub use port::{Port, PortTrace};
