//! The scenario file as written: serde types, one per table. Unknown keys are errors (a flow's
//! application judges the keys the flow does not know).
//!
//! See `docs/scenario-format.md` for the format with examples; `validate` turns these into the
//! resolved `Scenario` (ids, routes, defaults).

use crate::net::{Forwarding, Headers};
use crate::node::LossModel;
use crate::params::Params;
use crate::units::{BufferLimit, Bytes, Rate, Time};
use indexmap::IndexMap;
use serde::{de, Deserialize, Deserializer};
use std::sync::Arc;

/// The tables whose members are named by the user, and what a member is called in messages.
pub const MEMBERS: [(&str, &str); 3] = [("flows", "flow"), ("links", "link"), ("pairs", "pair")];

/// A member of `flows`, `links` or `pairs` written as something other than a table (`in =
/// ["a", "gw"]`): serde would read a table's fields from an array in order and blame its first
/// element, so the shape is checked first and the member itself named.
pub fn member_not_a_table(doc: &toml_edit::Table) -> Option<super::problem::Problem> {
    MEMBERS.iter().find_map(|(table, what)| {
        let members = doc.get(table)?.as_table_like()?;
        let (name, item) = members.iter().find(|(_, item)| item.as_table_like().is_none())?;
        let shown = match item.as_value() {
            Some(v) => format!("the {} {}", v.type_name(), crate::error::abbreviated(v.to_string().trim(), 60)),
            None => "an array of tables".to_string(),
        };
        Some(super::problem::Problem {
            path: vec![table.to_string(), name.to_string()],
            message: format!("a {what} is a table (`{name} = {{ ... }}` or `[{table}.{name}]`), not {shown}"),
        })
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    #[serde(default)]
    pub scenario: RawMeta,
    pub run: RawRun,
    /// The nodes; may be left out when `topology` generates them.
    #[serde(default)]
    pub nodes: Option<Vec<String>>,
    /// A generated network (`scenario::topology`): its nodes and links come before the file's own.
    pub topology: Option<RawTopology>,
    /// Switches whose output queues share one buffer under dynamic thresholds.
    pub shared_buffer: Option<RawSharedBuffer>,
    /// Switches whose ingresses pause their upstream ports (IEEE 802.1Qbb priority flow control).
    pub pfc: Option<RawPfc>,
    #[serde(default)]
    pub links: IndexMap<String, RawLink>,
    #[serde(default)]
    pub flows: IndexMap<String, RawFlow>,
    /// Data-centre workloads: open populations between drawn or listed hosts
    /// (`scenario::validate::workloads`).
    #[serde(default)]
    pub workloads: IndexMap<String, RawWorkload>,
    #[serde(default)]
    pub pairs: IndexMap<String, RawPair>,
    /// Changes of the network during the run: links that go down, come back or change rate
    /// (`scenario::validate::events`).
    #[serde(default)]
    pub events: Vec<RawEvent>,
    /// A paper's published results for this experiment, read by `fairsim reproduce`; the
    /// engine only checks that it is a table.
    pub published: Option<toml::Table>,
    /// A parameter study over this scenario, read by `fairsim sweep`; the engine only checks
    /// that it is a table.
    pub sweep: Option<toml::Table>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMeta {
    pub name: Option<String>,
    pub description: Option<String>,
    /// Where the scenario comes from (a paper and its section).
    pub reference: Option<String>,
    /// Free text: reconstructions, assumptions.
    pub notes: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRun {
    pub duration: Time,
    pub warmup: Option<Time>,
    pub interval: Option<Time>,
    pub seed: Option<u64>,
    /// Flows over which Jain's index is computed (default: all).
    pub fairness: Option<Vec<String>>,
    /// Ports (`a->b`) whose service is compared with the ideal fluid one (GPS).
    pub fluid_reference: Option<Vec<String>>,
    /// Flows whose senders' variables (cwnd, rate, ...) are recorded over time; `"*"`: all.
    pub trace: Option<Vec<String>>,
    /// Ports whose queue length is recorded over time; `"*"`: all.
    pub trace_queues: Option<Vec<String>>,
    /// Ports whose transmitted packets are captured for a pcap file; `"*"`: all.
    pub pcap: Option<Vec<String>>,
    /// Ports whose packet events (enqueue, dequeue, drop, receive) are written as text; `"*"`: all.
    pub events: Option<Vec<String>>,
    /// Every flow's start is delayed by a uniform draw from [0, start_jitter), unless the flow
    /// says otherwise.
    pub start_jitter: Option<Time>,
    /// Every host timeout and every instant of a timed application fires late by a uniform
    /// draw from [0, clock_jitter), for each seed: a host's clock noise, which breaks phase locks.
    pub clock_jitter: Option<Time>,
    /// One row per transfer of the `files` flows in the results (default true); false keeps
    /// only their summary (long load sweeps).
    pub transfer_rows: Option<bool>,
    /// Every flow's headers unless the flow says otherwise (`net::Headers`; default none).
    pub headers: Option<Headers>,
    /// How every flow without a `route` of its own is forwarded, unless the flow says
    /// otherwise (`net::multipath`; default static).
    pub forwarding: Option<Forwarding>,
    /// With `forwarding = "flowlet"`: the gap after which a flow's next packet starts a new
    /// flowlet (default 500 µs).
    pub flowlet_timeout: Option<Time>,
    /// How long after a link goes down or comes back forwarding learns of it (default 1 ms),
    /// unless the event says otherwise.
    pub failure_detection: Option<Time>,
    /// Threads one run may use (`engine::parallel`; default: the cores left free by the runs
    /// going on at once). Results are the same at any count.
    pub threads: Option<usize>,
}

/// An `[[events]]` table as written: at `at`, a `link` (both directions), a `port` (one
/// direction) or a `node` (every link it has) goes down, comes back, or changes rate.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEvent {
    pub at: Time,
    /// A link by its name, or by the name of one of its ports (`a->b`): both directions.
    pub link: Option<String>,
    /// One direction of a link, by its port's name (`a->b`).
    pub port: Option<String>,
    /// Every link of the node, both directions.
    pub node: Option<String>,
    pub action: RawAction,
    /// The new line rate (`action = "rate"`).
    pub rate: Option<Rate>,
    /// How long until forwarding learns of it (default: the run's `failure_detection`).
    pub detection: Option<Time>,
}

/// What an event does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawAction {
    Down,
    Up,
    Rate,
}

/// `[topology]` as written (expanded by `scenario::topology`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTopology {
    /// `fat_tree` or `leaf_spine`.
    pub kind: String,
    /// Fat-tree: switch ports (even, 2 to `topology::MAX_K`).
    pub k: Option<i64>,
    /// Fat-tree: hosts under each ToR (default k/2; more oversubscribe the edge).
    pub hosts_per_tor: Option<i64>,
    /// Leaf-spine: leaf switches, spine switches, hosts under each leaf.
    pub leaves: Option<i64>,
    pub spines: Option<i64>,
    pub hosts_per_leaf: Option<i64>,
    /// The links of each tier.
    pub hosts: RawTier,
    pub tor_agg: Option<RawTier>,
    pub agg_core: Option<RawTier>,
    pub leaf_spine: Option<RawTier>,
}

/// A tier's links, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTier {
    pub rate: Rate,
    pub delay: Option<Time>,
    pub buffer: Option<BufferLimit>,
    pub buffer_includes_line: Option<bool>,
    pub qdisc: Option<Component>,
    /// Random loss on the wire of the tier's links, as a link's `loss` (each link its own
    /// stream).
    pub loss: Option<LossModel>,
    /// Settings of the direction away from the host (or the lower tier) only: on a host's
    /// link, its own network interface.
    pub forward: Option<RawDirection>,
    /// Settings of the direction towards the host (or the lower tier) only.
    pub reverse: Option<RawDirection>,
}

/// A member of `[links]`. With `between`, a link of the file's own, which needs a `rate`; without
/// it, a change to the link of that name a `[topology]` generates (`scenario::link_changes`),
/// whose every key is optional.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLink {
    pub between: Option<Vec<String>>,
    pub rate: Option<Rate>,
    pub delay: Option<Time>,
    pub buffer: Option<BufferLimit>,
    /// Whether the packet being transmitted takes one of the buffer's places (default false).
    pub buffer_includes_line: Option<bool>,
    pub qdisc: Option<Component>,
    /// Random loss on the wire, in both directions unless a direction says otherwise.
    pub loss: Option<LossModel>,
    /// Settings of the direction `between[0] -> between[1]` only.
    pub forward: Option<RawDirection>,
    /// Settings of the direction `between[1] -> between[0]` only.
    pub reverse: Option<RawDirection>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDirection {
    pub rate: Option<Rate>,
    pub delay: Option<Time>,
    pub buffer: Option<BufferLimit>,
    pub buffer_includes_line: Option<bool>,
    pub qdisc: Option<Component>,
    pub loss: Option<LossModel>,
}

/// A flow as written: its own keys, and the rest, which belong to its application (`app`) and
/// are judged by it (`scenario::apps`): a key neither knows is reported there, with the keys
/// the flow and its application take.
#[derive(Debug, Clone, Deserialize)]
pub struct RawFlow {
    pub src: String,
    pub dst: String,
    pub app: String,
    pub transport: Option<Component>,
    pub window: Option<u32>,
    pub packet_size: Option<Bytes>,
    pub ack_size: Option<Bytes>,
    /// Whether `packet_size` is the whole packet (`none`) or the payload under headers.
    pub headers: Option<Headers>,
    pub start: Option<Time>,
    /// The start is delayed by a uniform draw from [0, start_jitter), for each seed.
    pub start_jitter: Option<Time>,
    pub stop: Option<Time>,
    pub route: Option<Vec<String>>,
    /// Static (one path, fixed at load), or chosen at each switch (`net::multipath`).
    pub forwarding: Option<Forwarding>,
    pub acks: Option<bool>,
    /// Share of weighted disciplines (WFQ, WF²Q+, DRR quanta, Virtual Clock reservations).
    pub weight: Option<f64>,
    /// Header priority of its packets (0 the highest), for disciplines that use one.
    pub priority: Option<u8>,
    /// `false` leaves the flow out of the run (for sweeps that vary the number of flows).
    pub enabled: Option<bool>,
    /// Every other key: the application's parameters (`rate`, `size`, `mean_gap`, ...).
    #[serde(flatten)]
    pub app_params: Params,
}

/// The keys of a flow's own (`RawFlow`'s fields but its application's parameters), for messages.
pub const FLOW_KEYS: &[&str] = &[
    "src",
    "dst",
    "app",
    "transport",
    "window",
    "packet_size",
    "ack_size",
    "headers",
    "start",
    "start_jitter",
    "stop",
    "route",
    "forwarding",
    "acks",
    "weight",
    "priority",
    "enabled",
];

/// `[shared_buffer]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSharedBuffer {
    /// Each switch's buffer, bytes.
    pub size: Bytes,
    /// Choudhury and Hahne's α: a queue may grow to α times the free buffer.
    pub alpha: Option<f64>,
    /// The switches (default: every node with more than one link).
    pub nodes: Option<Vec<String>>,
}

/// `[pfc]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPfc {
    /// Bytes held from one ingress above which the switch pauses the port feeding it.
    pub xoff: Bytes,
    /// Bytes below which it lets that port resume.
    pub xon: Bytes,
    /// Bytes an ingress may take above `xoff` (what arrives while its pause travels): an arrival
    /// beyond it is counted, never dropped. Default: not checked.
    pub headroom: Option<Bytes>,
    /// A pause frame's bytes, which take the reverse line's time besides its delay (default 0:
    /// the delay alone, as htsim).
    pub frame: Option<Bytes>,
    /// The packet priorities that are lossless (default: all).
    pub priorities: Option<Vec<u8>>,
    /// The switches (default: every node with more than one link).
    pub nodes: Option<Vec<String>>,
}

/// A `[workloads.NAME]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWorkload {
    /// `poisson`, `permutation`, `all_to_all`, `incast` or `matrix`.
    pub pattern: String,
    /// The hosts it runs between (default: every node with one link).
    pub hosts: Option<Vec<String>>,
    /// A flow-size distribution: `websearch`, `datamining`, or a file of `bytes probability`.
    pub sizes: Option<String>,
    /// Every connection's file, instead of `sizes`.
    pub size: Option<Bytes>,
    /// Poisson: the load offered to each host's line, 0 to 1.
    pub load: Option<f64>,
    /// Incast: the receiver, and the senders (default: every other host).
    pub receiver: Option<String>,
    pub senders: Option<Vec<String>>,
    /// Matrix: an htsim connection matrix (`.cm`).
    pub file: Option<String>,
    pub transport: Option<Component>,
    pub packet_size: Option<Bytes>,
    pub headers: Option<Headers>,
    pub start: Option<Time>,
    /// Poisson: no arrival after this.
    pub stop: Option<Time>,
    pub priority: Option<u8>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPair {
    pub description: Option<String>,
    pub transport: Option<Component>,
    pub qdisc: Option<Component>,
    /// Flow control of chosen flows under this pair (mixed-protocol pairs such as the thesis's
    /// "PP+JK with FQ"); it replaces the flow's own `transport` and the pair's `transport`.
    #[serde(default)]
    pub transports: IndexMap<String, Component>,
}

/// A discipline or transport: a name (`"fcfs"`) or a table (`{ kind = "fcfs", ... }`).
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    pub kind: String,
    /// Shared: runs of many flows or ports alike hold one table (`scenario::components`).
    pub params: Arc<Params>,
    /// Where it is written (set during validation), for error messages.
    pub path: Vec<String>,
}

impl Component {
    pub fn named(kind: &str) -> Component {
        Component { kind: kind.to_string(), params: Arc::default(), path: vec![] }
    }
}

impl<'de> Deserialize<'de> for Component {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match toml::Value::deserialize(d)? {
            toml::Value::String(kind) => Ok(Component { kind, params: Arc::default(), path: vec![] }),
            toml::Value::Table(mut params) => match params.remove("kind") {
                Some(toml::Value::String(kind)) => Ok(Component { kind, params: Arc::new(params), path: vec![] }),
                _ => Err(de::Error::custom("a table naming a component needs `kind = \"...\"`")),
            },
            other => Err(de::Error::custom(format!(
                "expected a name such as \"fcfs\" or a table with `kind`, found {}",
                other.type_str()
            ))),
        }
    }
}

#[cfg(test)]
mod flow_keys {
    use super::*;

    #[test]
    fn every_key_listed_as_the_flows_own_is_read_by_the_flow_not_its_application() {
        for key in FLOW_KEYS {
            let value = match *key {
                "route" => "[\"a\", \"b\"]",
                "window" => "3",
                "weight" => "1.0",
                "priority" => "2",
                "acks" | "enabled" => "true",
                "headers" => "\"none\"",
                "forwarding" => "\"ecmp\"",
                "packet_size" | "ack_size" => "\"100B\"",
                _ => "\"1s\"",
            };
            let text = format!("src = \"a\"\ndst = \"b\"\napp = \"ftp\"\n{key} = {value}");
            let text = if ["src", "dst", "app"].contains(key) {
                "src = \"a\"\ndst = \"b\"\napp = \"ftp\"".into()
            } else {
                text
            };
            let flow: Result<RawFlow, _> = toml::from_str(&text);
            let flow = flow.unwrap_or_else(|e| panic!("{key}: {e}"));
            assert!(!flow.app_params.contains_key(*key), "`{key}` is not a field of RawFlow");
        }
        let flow: RawFlow = toml::from_str("src = \"a\"\ndst = \"b\"\napp = \"cbr\"\nrate = \"1Mbps\"").unwrap();
        assert!(flow.app_params.contains_key("rate"), "the application's keys are left to it");
    }
}
