//! Scenarios: loading a TOML file (with command-line overrides), validating it with errors that
//! name file, line and field, and the resolved form the engine is built from.
//!
//! Loading goes: text → span-keeping document (for locating errors) → overrides applied →
//! serde into the raw schema (`schema`) → validation (`validate`) into `Scenario`, which has ids,
//! routes and defaults filled in, and every protocol pair's components checked.

mod apps;
mod locate;
mod overrides;
mod resolved;
pub mod schema;
mod syntax;
mod validate;

pub use overrides::Override;
pub use schema::Component;

/// 1-based line and column where the field at `path` (or its deepest existing parent) is
/// written in the TOML `text`; `None` if the text does not parse or has no such field. For
/// tools that read tables of their own from scenario files (`fairsim reproduce`).
pub fn locate_field(text: &str, path: &[String]) -> Option<(usize, usize)> {
    let doc = ImDocument::parse(text.to_string()).ok()?;
    locate::offset_of(&doc, path).map(|o| locate::line_col(text, o))
}

use crate::error::{dotted, suggest_in_serde_message, unknown, Diagnostic, Error, Result};
use crate::net::{FlowId, Headers, NodeId, PacketKind, PortId};
use crate::params::{ParamError, Params};
use crate::qdisc::{self, FlowMeta, PortInfo, Qdisc};
use crate::traffic::App;
use crate::transport::{self, FlowInfo, Sender};
use crate::units::{BufferLimit, Bytes, Rate, Time};
use indexmap::IndexMap;
use std::sync::Arc;
use toml_edit::{DocumentMut, ImDocument};

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
    pub nodes: Vec<String>,
    pub links: Vec<LinkSpec>,
    /// Two per link: forward (`between[0] -> between[1]`), then reverse.
    pub ports: Vec<PortSpec>,
    pub flows: Vec<FlowSpec>,
    /// Protocol pairs; a scenario without `[pairs]` has one, named `default`.
    pub pairs: Vec<PairSpec>,
    /// The overrides applied, as the user wrote them.
    pub overrides: Vec<String>,
    /// The flows as disciplines see them (shared by every port).
    pub flow_meta: Arc<[FlowMeta]>,
    /// Every pair's components with their parameters resolved, in the order of `pairs`.
    pub configured: Vec<Configured>,
    /// The conversations crossing each port: (flow, data or ACK), in flow order, data first.
    pub(crate) crossing: Vec<Vec<(FlowId, PacketKind)>>,
    /// Whether each flow is in `run.trace`.
    pub(crate) traced: Vec<bool>,
}

/// A pair's components, resolved once when the scenario is validated: each port's discipline
/// and each flow's transport, every parameter written out. A run builds fresh ones from these;
/// reports and the resolved scenario show them.
#[derive(Debug, Clone, Default)]
pub struct Configured {
    pub qdiscs: Vec<Component>,
    /// `None` for an open-loop flow.
    pub transports: Vec<Option<Component>>,
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
}

#[derive(Debug, Clone)]
pub struct LinkSpec {
    pub name: String,
    pub a: NodeId,
    pub b: NodeId,
}

#[derive(Debug, Clone)]
pub struct PortSpec {
    pub name: String,
    pub link: usize,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    pub buffer: BufferLimit,
    /// Whether the packet on the line takes one of the buffer's places.
    pub buffer_includes_line: bool,
    /// The discipline set for this port in the file; `None` = the pair's (or FCFS).
    pub qdisc: Option<Component>,
    /// Sends from a node with a single link: a host's access line. Such ports keep FCFS unless
    /// the file names their discipline, because the papers' hosts have no queueing discipline.
    pub host: bool,
    /// Random loss on the wire (`node::loss`); `None`: the line loses nothing.
    pub loss: Option<crate::node::LossModel>,
}

/// Where a flow's flow control comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportChoice {
    /// The protocol pair's transport (Generic if the pair names none).
    FromPair,
    /// Open loop: packets go straight to the network.
    OpenLoop,
    Explicit(Component),
}

#[derive(Debug, Clone)]
pub struct FlowSpec {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub app: App,
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

#[derive(Debug, Clone)]
pub struct PairSpec {
    pub name: String,
    pub description: Option<String>,
    pub transport: Option<Component>,
    pub qdisc: Option<Component>,
    /// Per-flow flow control under this pair, by flow name; it wins over the flow's own.
    pub transports: IndexMap<String, Component>,
}

/// A problem found while validating, before it is given a place in the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Problem {
    pub path: Vec<String>,
    pub message: String,
}

impl Problem {
    pub fn new(path: &[&str], message: impl Into<String>) -> Problem {
        Problem { path: path.iter().map(|s| s.to_string()).collect(), message: message.into() }
    }

    pub(crate) fn from_param(base: &[String], e: ParamError) -> Problem {
        // the toml crate appends "\nin `key`", which the path already says
        let message = e.message.split("\nin `").next().unwrap_or_default();
        let message = suggest_in_serde_message(&plain_types(message));
        Problem { path: base.iter().cloned().chain(e.path).collect(), message }
    }
}

pub const DEFAULT_PAIR: &str = "default";
pub const DEFAULT_TRANSPORT: &str = "generic";
pub const DEFAULT_QDISC: &str = "fcfs";

/// How overrides are named in messages unless the caller says otherwise: the CLI's option.
pub const CLI_ORIGIN: &str = "--set";

impl Scenario {
    /// Loads and validates a scenario file, applying `overrides` (`KEY=VALUE`) first.
    pub fn load(path: &str, overrides: &[String]) -> Result<Scenario> {
        let bytes = std::fs::read(path).map_err(|e| Error::Io { path: path.to_string(), message: e.to_string() })?;
        Scenario::parse_bytes(&bytes, path, overrides, CLI_ORIGIN)
    }

    /// Parses and validates scenario text; `file` names it in messages.
    pub fn parse(text: &str, file: &str, overrides: &[String]) -> Result<Scenario> {
        Scenario::parse_bytes(text.as_bytes(), file, overrides, CLI_ORIGIN)
    }

    /// Parses and validates the bytes of a scenario file, which must be UTF-8 text; `file` names
    /// it in messages and `origin` names the overrides (`--set`, or `set=` from Python).
    pub fn parse_bytes(bytes: &[u8], file: &str, overrides: &[String], origin: &str) -> Result<Scenario> {
        let unreadable = |place: Option<(usize, usize)>, message: String| {
            Error::Scenario(vec![Diagnostic {
                file: file.to_string(),
                line: place.map(|p| p.0),
                column: place.map(|p| p.1),
                field: String::new(),
                message,
                from_override: None,
                origin: origin.to_string(),
            }])
        };
        let text = locate::utf8(bytes).map_err(|why| unreadable(None, why))?;
        let mut sets = overrides.iter().map(|o| Override::parse(o, origin)).collect::<Result<Vec<_>>>()?;
        let doc = ImDocument::parse(text.to_string()).map_err(|e| {
            let (place, message) = syntax::toml_error(text, &e);
            unreadable(place, message)
        })?;
        let lines = locate::Lines::new(text);
        let (raw, doc) = if sets.is_empty() {
            // the file as written: read from the document parsed above, which is then gone; the
            // rare scenario with problems parses it again to find their places
            if let Some(p) = schema::member_not_a_table(doc.as_table()) {
                let located = Locator { file, text, lines: &lines, doc: &doc, overrides: &[], origin };
                return Err(Error::Scenario(vec![located.diagnostic(&p)]));
            }
            let raw = serde_path_to_error::deserialize(toml_edit::de::Deserializer::from(doc));
            let doc = || ImDocument::parse(text.to_string()).expect("parsed above");
            match raw {
                Ok(raw) => (raw, None),
                Err(e) => {
                    let located = Locator { file, text, lines: &lines, doc: &doc(), overrides: &[], origin };
                    return Err(Error::Scenario(vec![located.serde_error(e.path(), e.inner().message())]));
                }
            }
        } else {
            let mut editable: DocumentMut = text.parse().expect("parsed above");
            let mut located = Locator { file, text, lines: &lines, doc: &doc, overrides: &[], origin };
            for s in sets.iter_mut() {
                if let Err(p) = s.apply(&mut editable) {
                    return Err(Error::Scenario(vec![located.diagnostic_in(&p, Some(s))]));
                }
            }
            located.overrides = &sets;
            if let Some(p) = schema::member_not_a_table(editable.as_table()) {
                return Err(Error::Scenario(vec![located.diagnostic(&p)]));
            }
            let merged = editable.to_string();
            drop(editable);
            let raw: schema::RawScenario = serde_path_to_error::deserialize(toml::Deserializer::new(&merged))
                .map_err(|e| Error::Scenario(vec![located.serde_error(e.path(), e.inner().message())]))?;
            (raw, Some(doc))
        };
        validate::validate(raw, file, overrides).map_err(|problems| {
            let doc = doc.unwrap_or_else(|| ImDocument::parse(text.to_string()).expect("parsed above"));
            let located = Locator { file, text, lines: &lines, doc: &doc, overrides: &sets, origin };
            let mut diags: Vec<Diagnostic> = problems.iter().map(|p| located.diagnostic(p)).collect();
            diags.dedup();
            Error::Scenario(at_most(MAX_DIAGNOSTICS, diags))
        })
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
            (Some(q), _) => q.clone(),
            (None, Some(q)) if !port.host => q.clone(),
            _ => Component::named(DEFAULT_QDISC),
        }
    }

    /// The start and size (packets) of every drawn flow (the transfers of `web` applications)
    /// in a run with `seed`; `None` for the other flows.
    pub fn draws(&self, seed: u64) -> Vec<Option<(Time, u64)>> {
        let mut out = vec![None; self.flows.len()];
        let mut group: Option<(&str, crate::rng::SimRng, Time)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            let Some(d) = &f.draw else { continue };
            if group.as_ref().is_none_or(|(g, _, _)| *g != d.group) {
                group = Some((&d.group, crate::rng::stream(seed, &format!("web:{}", d.group)), f.start));
            }
            let (_, rng, at) = group.as_mut().expect("set above");
            *at += Time::from_secs_f64(crate::traffic::exponential(d.mean_gap.as_secs_f64(), rng));
            let bytes = crate::traffic::pareto(d.mean_size.0 as f64, d.shape, rng);
            let packets = (bytes / f.payload_size as f64).ceil().max(1.0) as u64;
            out[i] = Some((*at, packets));
        }
        out
    }

    /// Each flow's start in a run with `seed`, and a `web` transfer's drawn size in packets: a
    /// transfer starts when its draw says, any other flow at its `start` delayed by a uniform
    /// draw from [0, start_jitter), in whole nanoseconds, from the flow's own stream (so a flow's
    /// jitter changes no other flow's).
    pub fn drawn(&self, seed: u64) -> Vec<(Time, Option<u64>)> {
        self.flows
            .iter()
            .zip(self.draws(seed))
            .map(|(f, drawn)| match drawn {
                Some((at, packets)) => (at, Some(packets)),
                None if f.start_jitter > Time::ZERO => {
                    let mut rng = crate::rng::stream(seed, &format!("start:{}", f.name));
                    (f.start + Time(rand::Rng::random_range(&mut rng, 0..f.start_jitter.0)), None)
                }
                None => (f.start, None),
            })
            .collect()
    }

    /// When each flow starts in a run with `seed` (see `drawn`).
    pub fn starts(&self, seed: u64) -> Vec<Time> {
        self.drawn(seed).into_iter().map(|(start, _)| start).collect()
    }

    /// The flow control of `flow` under `pair` (`None` = open loop): the pair's choice for this
    /// flow (or its `web` group), else the flow's own, else the pair's transport, else Generic.
    pub fn flow_transport(&self, flow: &FlowSpec, pair: &PairSpec) -> Option<Component> {
        let group = flow.draw.as_ref().and_then(|d| pair.transports.get(&d.group));
        let for_flow = pair.transports.get(&flow.name).or(group);
        match &flow.transport {
            TransportChoice::OpenLoop => None,
            _ if for_flow.is_some() => for_flow.cloned(),
            TransportChoice::Explicit(c) => Some(c.clone()),
            TransportChoice::FromPair => {
                Some(pair.transport.clone().unwrap_or_else(|| Component::named(DEFAULT_TRANSPORT)))
            }
        }
    }

    /// The components of `pair`, as validation resolved them.
    pub fn components(&self, pair: &PairSpec) -> &Configured {
        let i = self.pairs.iter().position(|p| p.name == pair.name).expect("a pair of this scenario");
        &self.configured[i]
    }

    /// What the discipline of port `p` is built for: the port and the conversations crossing it.
    fn port_info(&self, p: PortId) -> PortInfo {
        let port = &self.ports[p.idx()];
        let crossing = self.crossing[p.idx()].clone();
        PortInfo { buffer: port.buffer, rate: port.rate, flows: self.flow_meta.clone(), crossing, exact_crossing: true }
    }

    /// What the transport of flow `f` is built for, in a run seeded with `seed`.
    fn flow_info(&self, f: FlowId, seed: u64) -> FlowInfo {
        let flow = &self.flows[f.idx()];
        FlowInfo {
            window: flow.window,
            packet_size: flow.packet_size,
            seed,
            name: flow.name.clone(),
            unending: matches!(flow.app, App::Ftp { packets: None }),
            access_rate: flow.data_route.first().map_or(crate::units::Rate(0), |p| self.ports[p.idx()].rate),
        }
    }

    fn qdisc_kind(spec: &Component) -> Result<&'static qdisc::QdiscKind, Problem> {
        qdisc::find(&spec.kind).ok_or_else(|| {
            let known = crate::component::names(qdisc::QDISCS);
            Problem { path: spec.path.clone(), message: unknown("discipline", &spec.kind, &known) }
        })
    }

    fn transport_kind(spec: &Component) -> Result<&'static transport::TransportKind, Problem> {
        transport::find(&spec.kind).ok_or_else(|| {
            let mut known = crate::component::names(transport::TRANSPORTS);
            known.push(transport::NONE);
            Problem { path: spec.path.clone(), message: unknown("transport", &spec.kind, &known) }
        })
    }

    /// The discipline `spec` built for port `p`, with its parameters resolved.
    fn qdisc_from(&self, spec: &Component, p: PortId) -> Result<(Box<dyn Qdisc>, Params), Problem> {
        let kind = Self::qdisc_kind(spec)?;
        kind.build(&spec.params, &self.port_info(p)).map_err(|e| Problem::from_param(&spec.path, e))
    }

    /// The transport `spec` built for flow `f` in a run seeded with `seed`, with its parameters
    /// resolved.
    fn sender_from(&self, spec: &Component, f: FlowId, seed: u64) -> Result<(Box<dyn Sender>, Params), Problem> {
        let kind = Self::transport_kind(spec)?;
        transport::build(kind, &spec.params, &self.flow_info(f, seed)).map_err(|e| Problem::from_param(&spec.path, e))
    }

    /// The discipline of port `p` under `pair` with every parameter resolved, checked by
    /// building it once (validation does this for every pair).
    fn configure_qdisc(&self, p: PortId, pair: &PairSpec) -> Result<Component, Problem> {
        let spec = self.port_qdisc(&self.ports[p.idx()], pair);
        let (_, params) = self.qdisc_from(&spec, p)?;
        Ok(Component { params, ..spec })
    }

    /// The transport of flow `f` under `pair` (`None` = open loop) with every parameter resolved,
    /// checked by building it once.
    fn configure_transport(&self, f: FlowId, pair: &PairSpec) -> Result<Option<Component>, Problem> {
        let Some(spec) = self.flow_transport(&self.flows[f.idx()], pair) else { return Ok(None) };
        let (_, params) = self.sender_from(&spec, f, self.run.seed)?;
        Ok(Some(Component { params, ..spec }))
    }

    /// A fresh discipline for port `p` under `pair`, from its resolved configuration.
    pub fn build_qdisc(&self, p: PortId, pair: &PairSpec) -> Result<(Box<dyn Qdisc>, Component), Problem> {
        let spec = &self.components(pair).qdiscs[p.idx()];
        Ok((self.qdisc_from(spec, p)?.0, spec.clone()))
    }

    /// A fresh sender for flow `f` under `pair` (`None` = open loop), from its resolved
    /// configuration, for a run seeded with `seed` (senders that draw random numbers seed their
    /// stream from it).
    #[allow(clippy::type_complexity)]
    pub fn build_sender(
        &self,
        f: FlowId,
        pair: &PairSpec,
        seed: u64,
    ) -> Result<Option<(Box<dyn Sender>, Component)>, Problem> {
        let Some(spec) = &self.components(pair).transports[f.idx()] else { return Ok(None) };
        Ok(Some((self.sender_from(spec, f, seed)?.0, spec.clone())))
    }

    /// Senders for the connections of flow `f` under `pair` (an open population), the resolved
    /// parameters read once, with what each is built for; `None` for an open-loop flow.
    pub fn sender_builder(
        &self,
        f: FlowId,
        pair: &PairSpec,
        seed: u64,
    ) -> Result<Option<transport::SenderBuilder>, Problem> {
        let Some(spec) = &self.components(pair).transports[f.idx()] else { return Ok(None) };
        let kind = Self::transport_kind(spec)?;
        let info = self.flow_info(f, seed);
        let builder = transport::builder(kind, &spec.params, &info).map_err(|e| Problem::from_param(&spec.path, e))?;
        Ok(Some((builder, info)))
    }

    /// Resolves every pair's components once (validation's last step): each is built, so a bad
    /// parameter is found on loading with its place in the file.
    pub(crate) fn configure(&self) -> Result<Vec<Configured>, Vec<Problem>> {
        let mut problems: Vec<Problem> = vec![];
        let mut seen = std::collections::HashSet::new();
        let mut note = |p: Problem| {
            if seen.insert(p.clone()) {
                problems.push(p);
            }
        };
        let mut all = vec![];
        for pair in &self.pairs {
            let mut c = Configured::default();
            for p in 0..self.ports.len() {
                match self.configure_qdisc(PortId::from_idx(p), pair) {
                    Ok(q) => c.qdiscs.push(q),
                    Err(e) => note(e),
                }
            }
            for f in 0..self.flows.len() {
                match self.configure_transport(FlowId::from_idx(f), pair) {
                    Ok(t) => c.transports.push(t),
                    Err(e) => note(e),
                }
            }
            all.push(c);
        }
        if problems.is_empty() {
            Ok(all)
        } else {
            Err(problems)
        }
    }

    /// The scenario as a complete TOML file for one pair and seed, every default written out:
    /// running it gives the same results as running this scenario with that pair and seed.
    pub fn resolved_toml(&self, pair: &str, seed: u64) -> Result<String> {
        resolved::resolved_toml(self, self.pair(Some(pair))?, seed)
    }

    /// `resolved_toml` as a TOML reader reads it (the same tables, keys in the order the text
    /// gives them), written as JSON for readers that parse JSON much faster than TOML (`fairsim
    /// validate`); a float JSON cannot write is `{"$float": "inf"}` (or `-inf`, `nan`). With
    /// `ends = Some(n)`, only the first and the last `n` links and flows.
    pub fn resolved_json(&self, pair: &str, seed: u64, ends: Option<usize>) -> Result<String> {
        Ok(resolved::resolved_json(self, self.pair(Some(pair))?, seed, ends))
    }

    pub fn flow_id(&self, name: &str) -> Option<FlowId> {
        self.flows.iter().position(|f| f.name == name).map(FlowId::from_idx)
    }

    pub fn node_name(&self, n: NodeId) -> &str {
        &self.nodes[n.idx()]
    }
}

/// How many problems one load reports: enough for every mistake a person makes at once, few
/// enough that a generated file with thousands of errors gives a message one can read.
pub const MAX_DIAGNOSTICS: usize = 50;

/// The first `max` diagnostics, and one more saying how many were left out.
fn at_most(max: usize, mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    if diags.len() > max {
        let left_out = diags.len() - max;
        diags.truncate(max);
        let file = diags[0].file.clone();
        let origin = diags[0].origin.clone();
        let message = format!("... and {left_out} more problems (the first {max} are listed)");
        diags.push(Diagnostic {
            file,
            line: None,
            column: None,
            field: String::new(),
            message,
            from_override: None,
            origin,
        });
    }
    diags
}

/// Turns problems into diagnostics with file positions.
struct Locator<'a> {
    file: &'a str,
    text: &'a str,
    lines: &'a locate::Lines,
    doc: &'a ImDocument<String>,
    overrides: &'a [Override],
    origin: &'a str,
}

impl Locator<'_> {
    /// The diagnostic of `p`: in the override that wrote what it is about, else in the file.
    fn diagnostic(&self, p: &Problem) -> Diagnostic {
        self.diagnostic_in(p, self.overrides.iter().rev().find(|o| o.covers(&p.path)))
    }

    fn diagnostic_in(&self, p: &Problem, from_override: Option<&Override>) -> Diagnostic {
        let offset = match from_override {
            None => locate::offset_of(self.doc, &p.path),
            Some(_) => None,
        };
        let (line, column) = offset.map(|o| self.lines.line_col(self.text, o)).unzip();
        let from_override = from_override.map(|o| o.text.clone());
        Diagnostic {
            file: self.file.to_string(),
            line,
            column,
            field: dotted(&p.path),
            message: p.message.clone(),
            from_override,
            origin: self.origin.to_string(),
        }
    }

    /// The diagnostic of serde's error `message` at `path`.
    fn serde_error(&self, path: &serde_path_to_error::Path, message: &str) -> Diagnostic {
        let mut path = crate::params::path_segments(path);
        let mut message = message.trim().to_string();
        // serde names an unknown or missing field in its message, not in the path
        let named = |prefix: &str| message.strip_prefix(prefix).and_then(|r| r.split('`').next()).map(str::to_string);
        let (unknown, missing) = (named("unknown field `"), named("missing field `"));
        message = suggest_in_serde_message(&plain_types(&message));
        if let Some(unknown) = unknown {
            if unknown == "nodes" && !path.is_empty() {
                message += "; top-level keys such as `nodes` must come before the first [table] header";
            }
            if path.last() != Some(&unknown) {
                path.push(unknown);
            }
        }
        let mut d = self.diagnostic(&Problem { path: path.clone(), message: message.clone() });
        if let Some(missing) = missing {
            path.push(missing); // located at the table that lacks it
            d.field = dotted(&path);
        }
        d
    }
}

/// serde's message with Rust's type names (`expected struct RawLink`, `expected u32`) said as
/// a scenario's author would: `expected a table (a link)`, `expected a whole number from 0 to
/// 4294967295`.
fn plain_types(message: &str) -> String {
    const TYPES: [(&str, &str); 16] = [
        ("struct RawScenario", "a table (a scenario)"),
        ("struct RawMeta", "a table ([scenario])"),
        ("struct RawRun", "a table ([run])"),
        ("struct RawLink", "a table (a link)"),
        ("struct RawDirection", "a table (a direction of a link)"),
        ("struct RawFlow", "a table (a flow)"),
        ("struct RawPair", "a table (a pair)"),
        ("a map", "a table"),
        ("a sequence", "an array"),
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number from 0 to 18446744073709551615"),
        ("usize", "a whole number from 0 to 18446744073709551615"),
        ("i64", "a whole number"),
        ("f64", "a number"),
    ];
    let mut plain = message.to_string();
    for (rust, said) in TYPES {
        // only where serde names what it expected, so that a value quoted in the message stays
        plain = plain.replace(&format!("expected {rust}"), &format!("expected {said}"));
    }
    plain
}

/// Parameters shown in listings and resolved files, in key order.
pub fn params_table(c: &Component) -> Params {
    let mut t = Params::new();
    t.insert("kind".into(), toml::Value::String(c.kind.clone()));
    t.extend(c.params.clone());
    t
}
