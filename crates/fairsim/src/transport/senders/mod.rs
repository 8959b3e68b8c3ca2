//! The senders that are not window-based TCP: the classic papers' (BLT, Packet-Pair, RLM, the
//! fuzzy controller) and the data-centre transports (NDP, EQDS, RoCE with DCQCN, HPCC).

use crate::units::Time;

/// The retransmission timeout the data-centre transports (NDP, RoCE and DCQCN, HPCC) arm by
/// default: htsim's `DEFAULT_RTO_MIN` for its NDP and RoCE sources (5000 µs, `ndp.h`, `roce.h`).
/// Their papers run where nothing is lost for good (trimming, PFC), but a failed link loses
/// packets, and a flow without a timeout then stalls for ever; 0 turns it off, as htsim builds.
pub const DEFAULT_RTO: Time = Time::from_millis(5);

mod backlog;
pub mod blt;
pub mod dcqcn;
pub mod eqds;
pub mod fuzzy;
pub mod hpcc;
pub mod ndp;
pub mod packet_pair;
pub mod pp_law;
pub mod pp_timers;
#[cfg(test)]
mod pull_testing;
pub mod rlm;
pub mod roce;
