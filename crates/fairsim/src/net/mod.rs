//! The network's vocabulary: packets, the ids of nodes, ports and flows, and routing. Below
//! the disciplines and transports that handle packets; ports and hosts, which hold those,
//! live above them in `node`.

pub mod headers;
pub mod int;
pub mod multipath;
mod packet;
pub mod packet_pool;
pub(crate) mod prefetch; // a hint for the engine's loop, not part of the crate's interface
pub mod routing;

pub use headers::Headers;
pub use multipath::Forwarding;
pub use packet::{Control, Flags, FlowId, NodeId, Packet, PacketKind, PortId};
pub use packet_pool::PacketPool;
