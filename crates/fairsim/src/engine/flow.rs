//! A flow's run-time state: its application, its sender and sink, its timers and counters.

use super::event::{TimerSlot, TIMERS_PER_FLOW};
use crate::net::PortId;
use crate::rng::SimRng;
use crate::stats::FlowCounters;
use crate::traffic::TimedSource;
use crate::transport::sink::Receiver;
use crate::transport::Sender;
use crate::units::Time;

pub struct FlowState {
    /// Timed application, if the application is not FTP.
    pub source: Option<TimedSource>,
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
    pub rng: SimRng,
    pub data_route: Vec<PortId>,
    pub ack_route: Vec<PortId>,
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
}

impl FlowState {
    pub fn tally_drop(&mut self, port: PortId, reason: crate::qdisc::DropReason) {
        match self.drop_tally.iter_mut().find(|(p, r, _)| *p == port && *r == reason) {
            Some((_, _, n)) => *n += 1,
            None => self.drop_tally.push((port, reason, 1)),
        }
    }
}
