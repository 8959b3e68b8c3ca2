//! The senders that are not window-based TCP: the classic papers' (BLT, Packet-Pair, RLM, the
//! fuzzy controller) and the data-centre transports (NDP, EQDS, RoCE with DCQCN, HPCC).

use crate::units::Time;

/// The least retransmission timeout the data-centre transports (NDP, EQDS, RoCE and DCQCN, HPCC)
/// arm by default: htsim's `DEFAULT_RTO_MIN` for its NDP and RoCE sources (5000 µs, `ndp.h`,
/// `roce.h`). Their papers run where nothing is lost for good (trimming, PFC), but a failed link
/// loses packets, and a flow without a timeout then stalls for ever.
pub const DEFAULT_RTO: Time = Time::from_millis(5);

/// The timeout of a data-centre transport given `rto` (absent: the default; 0: none, as htsim
/// builds them) on `flow`'s path: by default `DEFAULT_RTO`, or on a slower path three of its
/// base round trips, RFC 6298's first timeout after one sample (SRTT + 4 · SRTT / 2), so that a
/// timeout made for microsecond fabrics does not fire on every packet of a slow line.
pub fn timeout(rto: Option<Time>, flow: &crate::transport::sender::FlowInfo) -> Option<Time> {
    match rto {
        Some(Time::ZERO) => None,
        Some(t) => Some(t),
        None => Some(DEFAULT_RTO.max(Time(flow.base_rtt.0.saturating_mul(3)))),
    }
}

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
