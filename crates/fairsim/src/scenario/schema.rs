//! The scenario file as written: serde types, one per table. Unknown keys are errors.
//!
//! See `docs/scenario-format.md` for the format with examples; `validate` turns these into the
//! resolved `Scenario` (ids, routes, defaults).

use crate::net::Headers;
use crate::node::LossModel;
use crate::params::Params;
use crate::traffic::Periods;
use crate::units::{BufferLimit, Bytes, Rate, Time};
use indexmap::IndexMap;
use serde::{de, Deserialize, Deserializer};

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
    pub nodes: Vec<String>,
    pub links: IndexMap<String, RawLink>,
    pub flows: IndexMap<String, RawFlow>,
    #[serde(default)]
    pub pairs: IndexMap<String, RawPair>,
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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLink {
    pub between: Vec<String>,
    pub rate: Rate,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
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
    pub acks: Option<bool>,
    /// Share of weighted disciplines (WFQ, WF²Q+, DRR quanta, Virtual Clock reservations).
    pub weight: Option<f64>,
    // application parameters; which apply depends on `app`
    pub size: Option<Bytes>,
    pub rate: Option<Rate>,
    pub mean_gap: Option<Time>,
    pub jitter: Option<f64>,
    pub on_mean: Option<Time>,
    pub off_mean: Option<Time>,
    pub periods: Option<Periods>,
    pub shape: Option<f64>,
    /// `web`: the number of transfers.
    pub transfers: Option<u32>,
    /// `files`: connections arriving per second.
    pub arrivals: Option<f64>,
    /// `false` leaves the flow out of the run (for sweeps that vary the number of flows).
    pub enabled: Option<bool>,
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
    pub params: Params,
    /// Where it is written (set during validation), for error messages.
    pub path: Vec<String>,
}

impl Component {
    pub fn named(kind: &str) -> Component {
        Component { kind: kind.to_string(), params: Params::new(), path: vec![] }
    }
}

impl<'de> Deserialize<'de> for Component {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match toml::Value::deserialize(d)? {
            toml::Value::String(kind) => Ok(Component { kind, params: Params::new(), path: vec![] }),
            toml::Value::Table(mut params) => match params.remove("kind") {
                Some(toml::Value::String(kind)) => Ok(Component { kind, params, path: vec![] }),
                _ => Err(de::Error::custom("a table naming a component needs `kind = \"...\"`")),
            },
            other => Err(de::Error::custom(format!(
                "expected a name such as \"fcfs\" or a table with `kind`, found {}",
                other.type_str()
            ))),
        }
    }
}
