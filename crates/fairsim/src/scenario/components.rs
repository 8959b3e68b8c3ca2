//! Component resolution: each pair's discipline at every port and transport of every flow, built
//! once on loading (so a bad parameter is found with its place) and again, fresh, for each run.

use super::problem::Problem;
use super::schema::Component;
use super::share::Recent;
use super::spec::{Configured, FlowSpec, PairSpec, Scenario, TransportChoice, DEFAULT_TRANSPORT};
use crate::error::{unknown, Result};
use crate::net::{FlowId, PortId};
use crate::params::Params;
use crate::qdisc::{self, PortInfo, Qdisc};
use crate::traffic::Source;
use crate::transport::{self, FlowInfo, Sender};
use std::sync::Arc;

/// The message for a component `name` that is not among `known`: with no likely intended name
/// to suggest, it says where the name of one written in Python comes from.
pub(crate) fn unknown_component(what: &str, name: &str, known: &[&str]) -> String {
    let message = unknown(what, name, known);
    if crate::error::suggest(name, known.iter().copied()).is_some() {
        return message;
    }
    message
        + "; one written in Python is known once its module is imported (`fairsim --import MODULE`, \
           or `import` before `fairsim.run`)"
}

impl Scenario {
    /// The flow control of `flow` under `pair` (`None` = open loop): the pair's choice for this
    /// flow (or its `web` group), else the flow's own, else the pair's transport, else Generic.
    pub fn flow_transport(&self, flow: &FlowSpec, pair: &PairSpec) -> Option<Component> {
        let group = flow.draw.as_ref().and_then(|d| pair.transports.get(&d.group));
        let for_flow = pair.transports.get(&flow.name).or(group);
        match &flow.transport {
            TransportChoice::OpenLoop => None,
            _ if for_flow.is_some() => for_flow.cloned(),
            TransportChoice::Explicit(c) => Some(c.clone()),
            TransportChoice::FromPairOr(fallback) => Some(pair.transport.clone().unwrap_or_else(|| fallback.clone())),
            TransportChoice::FromPair => {
                Some(pair.transport.clone().unwrap_or_else(|| Component::named(DEFAULT_TRANSPORT)))
            }
        }
    }

    /// The components of `pair`, as validation resolved them.
    pub fn components(&self, pair: &PairSpec) -> &Configured {
        &self.configured[self.pair_index(pair)]
    }

    /// Where `pair` is in `pairs` (and its resolved components in `configured`).
    pub fn pair_index(&self, pair: &PairSpec) -> usize {
        self.pairs.iter().position(|p| p.name == pair.name).expect("a pair of this scenario")
    }

    /// What the discipline of port `p` is built for: the port and the conversations crossing it.
    fn port_info(&self, p: PortId) -> PortInfo {
        let port = &self.ports[p.idx()];
        let crossing = self.crossing.at(p);
        PortInfo {
            name: self.port_name(p.idx()),
            nodes: self.nodes.clone(),
            buffer: port.buffer,
            rate: port.rate,
            flows: self.flow_meta.clone(),
            crossing,
            exact_crossing: true,
        }
    }

    /// What the transport of flow `f` is built for, in a run seeded with `seed`.
    fn flow_info(&self, f: FlowId, seed: u64) -> FlowInfo {
        let flow = &self.flows[f.idx()];
        FlowInfo {
            window: flow.window,
            packet_size: flow.packet_size,
            seed,
            name: flow.name.clone(),
            unending: matches!(flow.app.source(), Source::Bulk { packets: None }),
            access_rate: flow.data_route.first().map_or(crate::units::Rate(0), |p| self.ports[p.idx()].rate),
            links: u32::try_from(flow.data_route.len()).unwrap_or(u32::MAX),
            base_rtt: crate::transport::base_rtt(
                flow.data_route.iter().map(|p| (self.ports[p.idx()].rate, self.ports[p.idx()].delay)),
                flow.packet_size,
            ),
        }
    }

    fn qdisc_kind(spec: &Component) -> Result<&'static qdisc::QdiscKind, Problem> {
        qdisc::find(&spec.kind).ok_or_else(|| {
            let foreign = qdisc::FOREIGN.names();
            let mut known = crate::component::names(qdisc::QDISCS);
            known.extend(foreign.iter().map(String::as_str));
            Problem { path: spec.path.clone(), message: unknown_component("discipline", &spec.kind, &known) }
        })
    }

    fn transport_kind(spec: &Component) -> Result<&'static transport::TransportKind, Problem> {
        transport::find(&spec.kind).ok_or_else(|| {
            let foreign = transport::FOREIGN.names();
            let mut known = crate::component::names(transport::TRANSPORTS);
            known.push(transport::NONE);
            known.extend(foreign.iter().map(String::as_str));
            Problem { path: spec.path.clone(), message: unknown_component("transport", &spec.kind, &known) }
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
        Ok(Component { params: Arc::new(params), ..spec })
    }

    /// The transport of flow `f` under `pair` (`None` = open loop) with every parameter resolved,
    /// checked by building it once, and whether its receiver pulls (NDP, EQDS: it answers a
    /// trimmed packet's header).
    fn configure_transport(&self, f: FlowId, pair: &PairSpec) -> Result<Option<(Component, bool)>, Problem> {
        let Some(spec) = self.flow_transport(&self.flows[f.idx()], pair) else { return Ok(None) };
        let (sender, params) = self.sender_from(&spec, f, self.run.seed)?;
        let kind = Self::transport_kind(&spec)?;
        let defaults = || transport::defaults(kind, &spec.params, &self.flow_info(f, self.run.seed));
        transport::dominated::check(&spec.params, &params, defaults).map_err(|e| Problem::from_param(&spec.path, e))?;
        Ok(Some((Component { params: Arc::new(params), ..spec }, sender.pulls().is_some())))
    }

    /// A fresh discipline for port `p` under `pair`, from its resolved configuration.
    pub fn build_qdisc(&self, p: PortId, pair: &PairSpec) -> Result<Box<dyn Qdisc>, Problem> {
        Ok(self.qdisc_from(&self.components(pair).qdiscs[p.idx()], p)?.0)
    }

    /// A fresh sender for flow `f` under `pair` (`None` = open loop), from its resolved
    /// configuration, for a run seeded with `seed` (senders that draw random numbers seed their
    /// stream from it).
    pub fn build_sender(&self, f: FlowId, pair: &PairSpec, seed: u64) -> Result<Option<Box<dyn Sender>>, Problem> {
        let Some(spec) = &self.components(pair).transports[f.idx()] else { return Ok(None) };
        Ok(Some(self.sender_from(spec, f, seed)?.0))
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
            // exact: a k = 64 fat-tree's 393,216 ports' list grown by doubling held 1 MB unused
            c.qdiscs.reserve_exact(self.ports.len());
            c.transports.reserve_exact(self.flows.len());
            let (mut qdiscs, mut transports) = (Recent::default(), Recent::default());
            for p in 0..self.ports.len() {
                match self.configure_qdisc(PortId::from_idx(p), pair) {
                    Ok(q) => c.qdiscs.push(shared(&mut qdiscs, q)),
                    Err(e) => note(e),
                }
            }
            let trims = c.qdiscs.iter().any(|q| q.kind == qdisc::TRIM);
            for f in 0..self.flows.len() {
                match self.configure_transport(FlowId::from_idx(f), pair) {
                    Ok(t) => {
                        if let Some((t, pulls)) = &t {
                            if let Some(why) = fabric_mismatch(&t.kind, *pulls, trims, &pair.name) {
                                note(Problem { path: t.path.clone(), message: why });
                            }
                        }
                        c.transports.push(t.map(|(t, _)| shared(&mut transports, t)))
                    }
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
}

/// Why transport `kind` (whose receiver pulls, or not) cannot work on pair `pair`'s network,
/// where some port trims or none does: a receiver-driven transport learns of a loss only from
/// a trimmed packet's header (over drop-tail its lost packets wait for its timeout, and a lost
/// last packet stalls it), and any other takes a header as a loss it cannot tell from a drop.
fn fabric_mismatch(kind: &str, pulls: bool, trims: bool, pair: &str) -> Option<String> {
    match (pulls, trims) {
        (true, false) => Some(format!(
            "`{kind}` needs switches that trim (its receiver pulls, and learns of a loss from a trimmed \
             packet's header), and no port of pair `{pair}` trims: give the switches `qdisc = \"trim\"`"
        )),
        (false, true) => Some(format!(
            "`{kind}` cannot use a trimmed packet's header, and ports of pair `{pair}` trim: give them a \
             discipline that drops, or the flow a receiver-driven transport (`ndp`, `eqds`)"
        )),
        _ => None,
    }
}

/// Parameters shown in listings and resolved files, in key order.
pub fn params_table(c: &Component) -> Params {
    let mut t = Params::new();
    t.insert("kind".into(), toml::Value::String(c.kind.clone()));
    t.extend(c.params.iter().map(|(k, v)| (k.clone(), v.clone())));
    t
}

/// `component`, as an equal one resolved just before (`Recent`), else with the parameter table
/// of one of those that differs only in where it is written (flows that each name the same
/// transport).
fn shared(recent: &mut Recent<Component, Arc<Component>>, component: Component) -> Arc<Component> {
    recent.get(component, |c, kept| match kept.iter().rev().find(|(k, _)| k.params == c.params) {
        Some((_, alike)) => Arc::new(Component { params: Arc::clone(&alike.params), ..c.clone() }),
        None => Arc::new(c.clone()),
    })
}
