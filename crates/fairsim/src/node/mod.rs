//! The network's active parts and their verbs: output ports (queue → line → propagation pipe)
//! and the hosts at the ends of each flow (sending data, the sink building ACKs, the source
//! taking them). They never touch the event queue: each verb returns what the loop must
//! schedule, so `engine` stays a thin dispatcher.

pub mod clock;
pub mod host;
pub mod loss;
pub mod port;
pub mod pull;

pub use clock::HostClock;
pub use host::{FlowEnds, FlowState, SinkReply};
pub use loss::{LinkLoss, LossModel};
pub use port::link_state::Cut;
pub use port::{Line, Next, Port, PortSetup, PortTrace, Woken, MAX_QUEUE_PACKETS, NO_ARRIVAL};
pub use pull::{Ask, PullPacer, PullSpec, Pulls};
