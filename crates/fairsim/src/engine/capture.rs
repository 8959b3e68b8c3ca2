//! What chosen ports saw: their packets as pcap files (`[run] pcap`, `fairsim run --pcap`) and
//! their packet events as text (`[run] events`, `fairsim run --events`), from what their logged
//! disciplines wrote down (`qdisc::logged`).

use super::sim::Simulation;
use crate::net::Packet;
use crate::node::Port;
use crate::pcap::{self, Stream};
use crate::qdisc::logged::PortEvent;
use crate::qdisc::DropReason;
use crate::units::Time;
use std::fmt::Write;

/// A packet's event at a port, with when.
type Entry = (Time, PortEvent, Packet);

impl Simulation {
    /// The pcap file of each captured port, with the port's name, in the order the scenario
    /// lists them: every packet the port has sent whole so far, stamped with the start of its
    /// transmission.
    pub fn pcaps(&self) -> Vec<(String, Vec<u8>)> {
        let stream = |pkt: &Packet| Stream {
            tcp: self.flow_transports()[pkt.flow.idx()].is_some(),
            packet_size: self.scenario.flows[pkt.flow.idx()].packet_size,
            headers: self.scenario.flows[pkt.flow.idx()].headers,
        };
        self.scenario
            .run
            .pcap
            .iter()
            .map(|p| {
                let port = &self.ports[p.idx()];
                let sack = |pkt: &Packet| self.sack_options.of(pkt.id);
                (self.port_name(*p), pcap::encode(&sent_whole(port), stream, sack))
            })
            .collect()
    }

    /// The text trace of each port whose events are recorded (`[run] events`), with the port's
    /// name: one line per event, ns-2's letters first (docs/results.md, "Event traces").
    pub fn event_traces(&self) -> Vec<(String, String)> {
        self.scenario
            .run
            .events
            .iter()
            .map(|&p| {
                let name = self.port_name(p);
                let text = self.event_text(&name, &self.ports[p.idx()]);
                (name, text)
            })
            .collect()
    }

    fn event_text(&self, name: &str, port: &Port) -> String {
        let mut out = format!(
            "# fairsim events at {name}: + arrived, - sent, d dropped (reason), r received at the far end\n\
             # event time_s flow transfer kind seq size_bytes [reason]\n"
        );
        for (at, event, pkt) in with_receptions(port, self.now()) {
            let (letter, reason) = match event {
                PortEvent::Enqueue => ('+', ""),
                PortEvent::Dequeue => ('-', ""),
                PortEvent::Drop(r) => ('d', r.as_str()),
                PortEvent::Receive => ('r', ""),
            };
            let flow = &self.scenario.flows[pkt.flow.idx()].name;
            // a transfer of an open population by its row of `transfers`; a scenario's flow: -
            let conn = self.connections.row_at(pkt.conn, at).map_or("-".to_string(), |r| r.to_string());
            let kind = if pkt.is_data() { "data" } else { "ack" };
            let _ = write!(out, "{letter} {:.9} {flow} {conn} {kind} {} {}", at.as_secs_f64(), pkt.seq, pkt.size);
            let _ = writeln!(out, "{}{reason}", if reason.is_empty() { "" } else { " " });
        }
        out
    }
}

/// The packets `port` has sent whole: each transmission started, but the one still on the line.
fn sent_whole(port: &Port) -> Vec<(Time, Packet)> {
    let log = port.log().unwrap_or(&[]);
    // a transmission its link's going down cut was not sent whole
    let cut = lost_with(log, &[DropReason::LinkDown]);
    let mut sent: Vec<(Time, Packet)> = log
        .iter()
        .filter(|(_, e, p)| *e == PortEvent::Dequeue && !cut.contains(&p.id))
        .map(|&(t, _, p)| (t, p))
        .collect();
    if port.sending() {
        sent.pop(); // the last transmission started has not ended
    }
    sent
}

/// The ids of the packets logged as dropped for one of `reasons`.
fn lost_with(log: &[Entry], reasons: &[DropReason]) -> fnv::FnvHashSet<u64> {
    log.iter()
        .filter(|(_, e, _)| matches!(e, PortEvent::Drop(r) if reasons.contains(r)))
        .map(|(_, _, p)| p.id)
        .collect()
}

/// The port's logged events with a reception for every transmission that has reached the far
/// end by `now` (when its last bit has crossed the line and the link), in time order. A packet
/// the line lost (`DropReason::Loss`, written down as its transmission ended) or whose
/// transmission its link's going down cut (`LinkDown`) has no reception.
fn with_receptions(port: &Port, now: Time) -> Vec<Entry> {
    let log = port.log().unwrap_or(&[]);
    let lost = lost_with(log, &[DropReason::Loss, DropReason::LinkDown]);
    let received = log.iter().filter(|(_, e, _)| *e == PortEvent::Dequeue).filter_map(|&(t, _, p)| {
        let at = t + port.rate.tx_time(p.size) + port.delay;
        (at <= now && !lost.contains(&p.id)).then_some((at, PortEvent::Receive, p))
    });
    let mut all: Vec<Entry> = log.iter().copied().chain(received).collect();
    all.sort_by_key(|&(t, _, _)| t); // stable: events of one instant keep their order
    all
}
