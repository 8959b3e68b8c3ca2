//! A validated scenario: ids, routes and defaults filled in, every protocol pair's components
//! resolved (`Scenario` and the specs of its run, links, ports, flows and pairs).

use super::schema::Component;
use crate::error::{Error, Result};
use crate::net::{FlowId, Headers, NodeId, PortId};
use crate::qdisc::FlowMeta;
use crate::traffic::Application;
use crate::units::{BufferLimit, Bytes, Rate, Time};
use indexmap::IndexMap;
use std::sync::Arc;

/// A validated scenario. Build a run of it with `Simulation::new(&scenario, pair, seed)`.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file it came from (`<string>` for text), as used in messages.
    pub file: String,
    pub name: String,
    pub description: String,
    pub reference: Option<String>,
    pub notes: Option<String>,
    pub run: RunSpec,
    /// Node names, by id (shared with the disciplines: `PortInfo::nodes`).
    pub nodes: Arc<[String]>,
    pub links: Vec<LinkSpec>,
    /// Two per link: forward (`between[0] -> between[1]`), then reverse.
    pub ports: Vec<PortSpec>,
    /// The switches whose output queues share a buffer, if any (`engine::shared_buffer`).
    pub shared_buffer: Option<SharedBufferSpec>,
    /// The switches with priority flow control, if any (`engine::pfc`).
    pub pfc: Option<PfcSpec>,
    pub flows: Vec<FlowSpec>,
    /// Protocol pairs; a scenario without `[pairs]` has one, named `default`.
    pub pairs: Vec<PairSpec>,
    /// Changes of the network during the run (`[[events]]`), in the file's order.
    pub events: Vec<NetworkEvent>,
    /// The overrides applied, as the user wrote them.
    pub overrides: Vec<String>,
    /// The flows as disciplines see them (shared by every port).
    pub flow_meta: Arc<[FlowMeta]>,
    /// Every pair's components with their parameters resolved, in the order of `pairs`.
    pub configured: Vec<Configured>,
    /// The conversations crossing each port (`Crossing::at`).
    pub(crate) crossing: super::crossing::Crossing,
    /// Whether each flow is in `run.trace`.
    pub(crate) traced: Vec<bool>,
}

/// A pair's components, resolved once when the scenario is validated: each port's discipline
/// and each flow's transport, every parameter written out. A run builds fresh ones from these;
/// reports and the resolved scenario show them.
#[derive(Debug, Clone, Default)]
pub struct Configured {
    /// Shared (`Arc`) between consecutive ports or flows whose resolved component is the same:
    /// at 100,000 flows a copy each was a large part of a loaded scenario.
    pub qdiscs: Vec<std::sync::Arc<Component>>,
    /// `None` for an open-loop flow.
    pub transports: Vec<Option<std::sync::Arc<Component>>>,
}

#[derive(Debug, Clone)]
pub struct RunSpec {
    pub duration: Time,
    /// Time before measurement starts; reported as its own interval, left out of summaries.
    pub warmup: Time,
    /// Length of one measurement interval.
    pub interval: Time,
    /// Number of measurement intervals: (duration − warmup) / interval.
    pub intervals: usize,
    pub seed: u64,
    /// Flows over which Jain's index is computed.
    pub fairness: Vec<FlowId>,
    /// Ports whose service is compared with GPS.
    pub fluid_reference: Vec<PortId>,
    /// Flows whose senders' variables are recorded over time.
    pub trace: Vec<FlowId>,
    /// Ports whose queue length is recorded over time.
    pub trace_queues: Vec<PortId>,
    /// Ports whose transmitted packets are captured (`pcap`).
    pub pcap: Vec<PortId>,
    /// Ports whose packet events are written as text (`events`).
    pub events: Vec<PortId>,
    /// Timeouts and timed applications' instants are late by a uniform draw from
    /// [0, clock_jitter) (`node::HostClock`); zero keeps every host's clock exact.
    pub clock_jitter: Time,
    /// Whether the results list every transfer of the `files` flows, or only their summary.
    pub transfer_rows: bool,
    /// A flow forwarded by flowlets starts a new one after a gap this long
    /// (`net::multipath`, LetFlow).
    pub flowlet_timeout: Time,
    /// How long after a link goes down or comes back forwarding learns of it, unless the event
    /// says otherwise.
    pub failure_detection: Time,
    /// Threads one run may use, if the scenario says (`None`: the caller decides); never part of
    /// the results, which are the same at any count.
    pub threads: Option<usize>,
}

/// A change of the network during the run (`[[events]]`).
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkEvent {
    pub at: Time,
    /// What the file names, `link`, `port` or `node`, and its name as written.
    pub target: (&'static str, String),
    /// The ports it changes: a link's two, a port, or every port of a node's links.
    pub ports: Vec<PortId>,
    pub action: NetworkAction,
    /// How long after `at` forwarding learns of it (of a link going down or coming back).
    pub detection: Time,
}

/// What a network event does to its ports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NetworkAction {
    Down,
    Up,
    /// Transmissions starting from then on take this rate.
    Rate(Rate),
}

impl NetworkAction {
    /// The scenario's spelling.
    pub fn name(self) -> &'static str {
        match self {
            NetworkAction::Down => "down",
            NetworkAction::Up => "up",
            NetworkAction::Rate(_) => "rate",
        }
    }
}

#[derive(Debug, Clone)]
pub struct LinkSpec {
    pub name: String,
    pub a: NodeId,
    pub b: NodeId,
}

/// A port's name is derived from its nodes' (`PortSpec::name`): kept, the names took 22 MB of a
/// k = 64 fat-tree's 393,216 ports.
#[derive(Debug, Clone)]
pub struct PortSpec {
    /// Its link's index in `Scenario::links` (`link()`): 32 bits, so that a port is 64 bytes,
    /// not 72.
    pub link: u32,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    pub buffer: BufferLimit,
    /// Whether the packet on the line takes one of the buffer's places.
    pub buffer_includes_line: bool,
    /// The discipline set for this port in the file; `None` = the pair's (or FCFS). Behind a
    /// pointer, as the loss model is: most ports of a large fabric have neither, and inline the
    /// two took 96 of a port's 176 bytes (38 MB of a k = 64 fat-tree's 393,216 ports); shared by
    /// the ports that set the same one (`scenario::share`).
    pub qdisc: Option<Arc<Component>>,
    /// Sends from a node with a single link: a host's access line. Such ports keep FCFS unless
    /// the file names their discipline, because the papers' hosts have no queueing discipline.
    pub host: bool,
    /// Another port goes from the same node to the same node (over another link): the port's
    /// name says its link's (`PortSpec::name`).
    pub parallel: bool,
    /// Random loss on the wire (`node::loss`); `None`: the line loses nothing.
    pub loss: Option<Box<crate::node::LossModel>>,
}

/// Where a flow's flow control comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportChoice {
    /// The protocol pair's transport (Generic if the pair names none).
    FromPair,
    /// The protocol pair's transport, or this one if the pair names none (a workload's default:
    /// a data-centre user expects today's TCP, not the 1989 papers' Generic).
    FromPairOr(Component),
    /// Open loop: packets go straight to the network.
    OpenLoop,
    Explicit(Component),
}

#[derive(Debug, Clone)]
pub struct FlowSpec {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// Its application, shared by every run (each builds its own `source()`).
    pub app: Arc<dyn Application>,
    pub transport: TransportChoice,
    pub window: Option<u32>,
    /// Data packet size on the wire, bytes: the payload and the headers.
    pub packet_size: u32,
    /// ACK size on the wire, bytes (the headers alone, when there are headers).
    pub ack_size: u32,
    /// The headers on top of the payload (`Headers::None`: `packet_size` is all payload).
    pub headers: Headers,
    /// Application bytes of a data packet: what applications' rates and sizes count, and
    /// goodput (`payload_unique`).
    pub payload_size: u32,
    pub start: Time,
    /// Each run delays the start by a uniform draw from [0, start_jitter) (`Scenario::starts`).
    pub start_jitter: Time,
    pub stop: Option<Time>,
    /// Whether the sink acknowledges data packets.
    pub acks: bool,
    /// Weight in weighted disciplines.
    pub weight: f64,
    /// Its data packets' header priority (0, the default, is the highest; `strict_priority`).
    pub priority: u8,
    /// A fixed path (`data_route`, `ack_route`), or paths chosen at each switch; a chosen one's
    /// packets leave on the first port of `data_route` (`ack_route`), which is a path of fewest
    /// hops.
    pub forwarding: crate::net::Forwarding,
    pub data_route: Vec<PortId>,
    pub ack_route: Vec<PortId>,
    /// One transfer of a `web` application: its start and size are drawn for each run.
    pub draw: Option<Draw>,
}

/// A transfer of a `web` application: the group's transfers start at exponential gaps after the
/// group's start and carry Pareto-distributed sizes, drawn from the group's own random stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Draw {
    pub group: String,
    pub mean_gap: Time,
    pub mean_size: Bytes,
    pub shape: f64,
}

/// Switches with a shared buffer under dynamic thresholds (Choudhury & Hahne 1998).
#[derive(Debug, Clone, PartialEq)]
pub struct SharedBufferSpec {
    /// Each switch's buffer, bytes.
    pub size: u64,
    pub alpha: f64,
    pub nodes: Vec<NodeId>,
}

/// `[pfc]`: priority flow control at some switches' ingresses (`engine::pfc`).
#[derive(Debug, Clone)]
pub struct PfcSpec {
    pub xoff: u64,
    pub xon: u64,
    /// Bytes above `xoff` an ingress may hold before an arrival counts as beyond its headroom.
    pub headroom: Option<u64>,
    /// A pause frame's bytes on the reverse line (0: it takes the line's delay alone).
    pub frame: u32,
    /// Bit `i` set: priority `i` is lossless (priorities above 7 count as 7).
    pub priorities: u8,
    pub nodes: Vec<NodeId>,
}

#[derive(Debug, Clone)]
pub struct PairSpec {
    pub name: String,
    pub description: Option<String>,
    pub transport: Option<Component>,
    pub qdisc: Option<Component>,
    /// Per-flow flow control under this pair, by flow name; it wins over the flow's own.
    pub transports: IndexMap<String, Component>,
}

pub const DEFAULT_PAIR: &str = "default";
pub const DEFAULT_TRANSPORT: &str = "generic";
pub const DEFAULT_QDISC: &str = "fcfs";
/// How long after a link goes down or comes back forwarding learns of it when neither the run
/// nor the event says: a link seen down by its own ends (BFD's fastest common setting takes
/// 10 ms; docs/decisions.md, "Link failures").
pub const DEFAULT_FAILURE_DETECTION: Time = Time(1_000_000);

/// How overrides are named in messages unless the caller says otherwise: the CLI's option.
pub const CLI_ORIGIN: &str = "--set";

impl FlowSpec {
    /// Whether its connections run between hosts its workload draws or lists (`[workloads]`),
    /// not between its own ends.
    pub fn draws_ends(&self) -> bool {
        matches!(self.app.source(), crate::traffic::Source::Population(p) if p.draws_ends())
    }
}

impl Scenario {
    /// The host access line flow `f`'s connections each get a copy of (`engine::arrivals`): an
    /// open population between the flow's own ends that starts on a host's line and follows its
    /// fixed route; `None` for any other flow.
    pub fn copied_access_line(&self, f: usize) -> Option<PortId> {
        let spec = &self.flows[f];
        let first = *spec.data_route.first()?;
        let own_ends = matches!(spec.app.source(), crate::traffic::Source::Population(_)) && !spec.draws_ends();
        (own_ends && self.ports[first.idx()].host && spec.forwarding == crate::net::Forwarding::Static).then_some(first)
    }

    /// The pair called `name`, or the first pair when `name` is `None`.
    pub fn pair(&self, name: Option<&str>) -> Result<&PairSpec> {
        match name {
            None => Ok(&self.pairs[0]),
            Some(n) => self.pairs.iter().find(|p| p.name == n).ok_or_else(|| {
                let known: Vec<_> = self.pairs.iter().map(|p| p.name.as_str()).collect();
                let hint = crate::error::did_you_mean(n, known.iter().copied());
                Error::Usage(format!("{}: no pair `{n}`{hint} (the scenario defines {})", self.file, known.join(", ")))
            }),
        }
    }

    /// The discipline of `port` under `pair`: the file's choice for the port, else the pair's
    /// (hosts' access ports excepted), else FCFS.
    pub fn port_qdisc(&self, port: &PortSpec, pair: &PairSpec) -> Component {
        match (&port.qdisc, &pair.qdisc) {
            (Some(q), _) => (**q).clone(),
            (None, Some(q)) if !port.host => q.clone(),
            _ => Component::named(DEFAULT_QDISC),
        }
    }

    pub fn flow_id(&self, name: &str) -> Option<FlowId> {
        self.flows.iter().position(|f| f.name == name).map(FlowId::from_idx)
    }

    pub fn node_name(&self, n: NodeId) -> &str {
        &self.nodes[n.idx()]
    }

    /// Port `p`'s name (`PortSpec::name`).
    pub fn port_name(&self, p: usize) -> String {
        self.ports[p].name(&self.nodes, &self.links)
    }

    /// The first port named `name`, if any.
    pub fn port_named(&self, name: &str) -> Option<usize> {
        port_named(&self.ports, &self.nodes, &self.links, name)
    }
}

impl PortSpec {
    /// Its link's index in `Scenario::links`.
    pub fn link(&self) -> usize {
        self.link as usize
    }

    /// Its name: `from->to` by its nodes' names (`nodes`, the scenario's), as its link's
    /// `between` lists them; with its link's name after it, `a->b (l)`, where another link joins
    /// the same nodes (`parallel`).
    pub fn name(&self, nodes: &[String], links: &[LinkSpec]) -> String {
        let (from, to) = (&nodes[self.from.idx()], &nodes[self.to.idx()]);
        match self.parallel {
            false => format!("{from}->{to}"),
            true => format!("{from}->{to} ({})", links[self.link()].name),
        }
    }

    /// Whether its name is `name`, without making it.
    pub fn is_named(&self, nodes: &[String], links: &[LinkSpec], name: &str) -> bool {
        let rest = (name.strip_prefix(nodes[self.from.idx()].as_str()))
            .and_then(|r| r.strip_prefix("->"))
            .and_then(|r| r.strip_prefix(nodes[self.to.idx()].as_str()));
        match rest {
            Some("") => !self.parallel,
            Some(r) => {
                self.parallel
                    && r.strip_prefix(" (").and_then(|r| r.strip_suffix(')')) == Some(&links[self.link()].name)
            }
            None => false,
        }
    }
}

/// The first of `ports` named `name` (`PortSpec::name`), if any.
pub fn port_named(ports: &[PortSpec], nodes: &[String], links: &[LinkSpec], name: &str) -> Option<usize> {
    ports.iter().position(|p| p.is_named(nodes, links, name))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_port_keeps_what_few_ports_set_out_of_line() {
        // a k = 64 fat-tree's scenario has 393,216 ports: its discipline and loss model inline
        // took 96 of each port's 176 bytes, its name 24 (and a string of its own), and its link's
        // index as a `usize` 8 (with the padding it made)
        assert!(std::mem::size_of::<super::PortSpec>() <= 64, "{}", std::mem::size_of::<super::PortSpec>());
    }
}
