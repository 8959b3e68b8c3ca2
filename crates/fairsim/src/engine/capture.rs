//! The captured ports' packets as pcap files (`[run] pcap`, `fairsim run --pcap`).

use super::sim::Simulation;
use crate::pcap::{self, Stream};

impl Simulation {
    /// The pcap file of each captured port, with the port's name, in the order the scenario
    /// lists them: every packet the port has sent whole so far, stamped
    /// with the start of its transmission (docs/results.md, "Packet
    /// captures").
    pub fn pcaps(&self) -> Vec<(String, Vec<u8>)> {
        let stream = |pkt: &crate::net::Packet| Stream {
            tcp: self.flow_transports()[pkt.flow.idx()].is_some(),
            packet_size: self.scenario.flows[pkt.flow.idx()].packet_size,
        };
        self.scenario
            .run
            .pcap
            .iter()
            .map(|p| {
                let port = &self.ports[p.idx()];
                (port.name.clone(), pcap::encode(port.capture.as_deref().unwrap_or(&[]), stream))
            })
            .collect()
    }
}
