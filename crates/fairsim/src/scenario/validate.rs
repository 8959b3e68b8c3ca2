//! From the raw schema to a resolved `Scenario`: names become ids, defaults are filled in,
//! routes are computed, and everything that can be wrong is reported together.

use super::apps;
use super::schema::{Component, RawFlow, RawLink, RawRun, RawScenario};
use super::{Draw, FlowSpec, LinkSpec, PairSpec, PortSpec, Problem, RunSpec, Scenario, TransportChoice, DEFAULT_PAIR};
use crate::error::unknown;
use crate::limits;
use crate::net::routing::Graph;
use crate::net::{FlowId, NodeId, PortId};
use crate::traffic::App;
use crate::transport;
use crate::units::{BufferLimit, Bytes, Time};
use std::collections::HashMap;

#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn add(&mut self, path: &[&str], message: impl Into<String>) {
        self.0.push(Problem::new(path, message));
    }
}

fn with_path(mut c: Component, path: &[&str]) -> Component {
    c.path = path.iter().map(|s| s.to_string()).collect();
    c
}

pub fn validate(raw: RawScenario, file: &str, overrides: &[String]) -> Result<Scenario, Vec<Problem>> {
    let mut pb = Problems::default();
    let nodes = check_nodes(&raw.nodes, &mut pb);
    let index: HashMap<&str, NodeId> =
        nodes.iter().enumerate().map(|(i, n)| (n.as_str(), NodeId::from_idx(i))).collect();
    let node = |name: &str, path: &[&str], pb: &mut Problems| -> Option<NodeId> {
        let id = index.get(name).copied();
        if id.is_none() {
            pb.add(path, unknown("node", name, &nodes));
        }
        id
    };

    let before_links = pb.0.len();
    let (links, ports) = build_links(&raw.links, &node, &mut pb);
    // a broken link would make every flow across it look unroutable: say it once
    let topology_ok = pb.0.len() == before_links;
    let endpoints: Vec<(NodeId, NodeId)> = ports.iter().map(|p| (p.from, p.to)).collect();
    let graph = Graph { nodes: nodes.len(), ports: &endpoints };

    let pairs = build_pairs(&raw, &mut pb);
    let net = Network { run: &raw.run, node: &node, graph: &graph, ports: &ports, topology_ok };
    let mut flows = vec![];
    for (name, f) in raw.flows.iter().filter(|(_, f)| f.enabled != Some(false)) {
        if f.app == "web" {
            let room = limits::MAX_FLOWS.saturating_sub(flows.len());
            flows.extend(build_web(name, f, &net, room, &mut pb));
        } else if let Some(flow) = build_flow(name, f, &net, &mut pb) {
            flows.push(flow);
        }
    }
    if let Err(e) = limits::check(flows.len(), limits::MAX_FLOWS, "flows") {
        pb.add(&["flows"], e);
    }
    check_pair_transports(&pairs, &flows, &raw.flows, &mut pb);
    let mut run = build_run(&raw.run, &flows, ports.len(), &mut pb);
    let port_names: Vec<String> = ports.iter().map(|p| p.name.clone()).collect();
    let port = |n: &str| port_names.iter().position(|p| p == n).into_iter().collect();
    let flow = |n: &str| flows_named(&flows, n).iter().map(|f| f.idx()).collect();
    // a port of a broken link, or a flow that failed, was reported already
    let no_port = |n: &str| topology_ok.then(|| unknown("port", n, &port_names));
    let no_flow = |n: &str| missing_flow(n, &raw.flows);
    let (all_ports, all_flows) = (Some(ports.len()), Some(flows.len()));
    run.fairness = match &raw.run.fairness {
        None => (0..flows.len()).map(FlowId::from_idx).collect(),
        Some(_) => named(&raw.run.fairness, "fairness", None, &flow, &no_flow, &mut pb).map(FlowId::from_idx).collect(),
    };
    run.fluid_reference = named(&raw.run.fluid_reference, "fluid_reference", None, &port, &no_port, &mut pb)
        .map(PortId::from_idx)
        .collect();
    run.trace = named(&raw.run.trace, "trace", all_flows, &flow, &no_flow, &mut pb).map(FlowId::from_idx).collect();
    run.trace_queues = named(&raw.run.trace_queues, "trace_queues", all_ports, &port, &no_port, &mut pb)
        .map(PortId::from_idx)
        .collect();

    if !pb.0.is_empty() {
        return Err(pb.0);
    }
    let scenario = Scenario {
        file: file.to_string(),
        name: raw.scenario.name.unwrap_or_else(|| stem(file)),
        description: raw.scenario.description.unwrap_or_default(),
        reference: raw.scenario.reference,
        notes: raw.scenario.notes,
        run,
        nodes,
        links,
        ports,
        pairs,
        overrides: overrides.to_vec(),
        flow_meta: flows_meta(&flows),
        flows,
    };
    check_components(&scenario)?;
    Ok(scenario)
}

fn flows_meta(flows: &[FlowSpec]) -> std::sync::Arc<[crate::qdisc::FlowMeta]> {
    flows
        .iter()
        .map(|f| crate::qdisc::FlowMeta {
            name: f.name.clone(),
            src: f.src,
            dst: f.dst,
            weight: f.weight,
            packet_size: f.packet_size,
        })
        .collect()
}

fn stem(file: &str) -> String {
    std::path::Path::new(file).file_stem().map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned())
}

fn check_nodes(names: &[String], pb: &mut Problems) -> Vec<String> {
    if names.is_empty() {
        pb.add(&["nodes"], "a scenario needs at least two nodes");
    }
    // each name once, however often it repeats: a message per copy would grow with the input
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for n in names {
        *seen.entry(n.as_str()).or_default() += 1;
    }
    for (i, n) in names.iter().enumerate() {
        let at = i.to_string();
        if n.trim().is_empty() {
            pb.add(&["nodes", &at], "a node needs a name");
        } else if let Some(count) = seen.remove(n.as_str()).filter(|c| *c > 1) {
            let times = if count == 2 { "twice".to_string() } else { format!("{count} times") };
            pb.add(&["nodes", &at], format!("node `{n}` is declared {times}"));
        }
    }
    names.to_vec()
}

type NodeLookup<'a> = dyn Fn(&str, &[&str], &mut Problems) -> Option<NodeId> + 'a;

/// What a flow is checked against: the run, the nodes, links and routes.
struct Network<'a> {
    run: &'a RawRun,
    node: &'a NodeLookup<'a>,
    graph: &'a Graph<'a>,
    ports: &'a [PortSpec],
    /// The links are sound, so a flow without a route is the flow's mistake.
    topology_ok: bool,
}

fn build_links(
    raw: &indexmap::IndexMap<String, RawLink>,
    node: &NodeLookup,
    pb: &mut Problems,
) -> (Vec<LinkSpec>, Vec<PortSpec>) {
    let mut links = vec![];
    let mut ports: Vec<PortSpec> = vec![];
    for (name, l) in raw {
        let n = name.as_str();
        if l.between.len() != 2 {
            pb.add(&["links", n, "between"], format!("a link joins exactly two nodes; found {}", l.between.len()));
            continue;
        }
        let a = node(&l.between[0], &["links", n, "between", "0"], pb);
        let b = node(&l.between[1], &["links", n, "between", "1"], pb);
        let (Some(a), Some(b)) = (a, b) else { continue };
        if a == b {
            pb.add(&["links", n, "between"], format!("a link cannot join `{}` to itself", l.between[0]));
            continue;
        }
        let link = links.len();
        links.push(LinkSpec { name: name.clone(), a, b });
        let (na, nb) = (&l.between[0], &l.between[1]);
        for (dir, from, to, label, over) in
            [("forward", a, b, format!("{na}->{nb}"), &l.forward), ("reverse", b, a, format!("{nb}->{na}"), &l.reverse)]
        {
            let over = over.clone().unwrap_or_default();
            let qdisc = match (&over.qdisc, &l.qdisc) {
                (Some(q), _) => Some(with_path(q.clone(), &["links", n, dir, "qdisc"])),
                (None, Some(q)) => Some(with_path(q.clone(), &["links", n, "qdisc"])),
                _ => None,
            };
            ports.push(PortSpec {
                name: label,
                link,
                from,
                to,
                rate: over.rate.unwrap_or(l.rate),
                delay: over.delay.or(l.delay).unwrap_or(Time::ZERO),
                buffer: over.buffer.or(l.buffer).unwrap_or(BufferLimit::Unlimited),
                buffer_includes_line: over.buffer_includes_line.or(l.buffer_includes_line).unwrap_or(false),
                qdisc,
                host: false,
            });
        }
    }
    // hosts' access ports; parallel links get the link's name in their port names
    let degree = |n: NodeId| links.iter().filter(|l| l.a == n || l.b == n).count();
    let names: Vec<String> = ports.iter().map(|p| p.name.clone()).collect();
    for p in &mut ports {
        p.host = degree(p.from) == 1;
        if names.iter().filter(|n| **n == p.name).count() > 1 {
            p.name = format!("{} ({})", p.name, links[p.link].name);
        }
    }
    (links, ports)
}

fn build_pairs(raw: &RawScenario, pb: &mut Problems) -> Vec<PairSpec> {
    if raw.pairs.is_empty() {
        return vec![PairSpec {
            name: DEFAULT_PAIR.into(),
            description: None,
            transport: None,
            qdisc: None,
            transports: Default::default(),
        }];
    }
    raw.pairs
        .iter()
        .map(|(name, p)| {
            let n = name.as_str();
            if p.transport.as_ref().is_some_and(|t| t.kind == transport::NONE) {
                pb.add(&["pairs", n, "transport"], "a pair's transport must be a flow-control protocol, not `none`");
            }
            PairSpec {
                name: name.clone(),
                description: p.description.clone(),
                transport: p.transport.clone().map(|t| with_path(t, &["pairs", n, "transport"])),
                qdisc: p.qdisc.clone().map(|q| with_path(q, &["pairs", n, "qdisc"])),
                transports: p
                    .transports
                    .iter()
                    .map(|(flow, t)| (flow.clone(), with_path(t.clone(), &["pairs", n, "transports", flow])))
                    .collect(),
            }
        })
        .collect()
}

/// A pair's per-flow transports must name flow-controlled flows and real protocols.
fn check_pair_transports(
    pairs: &[PairSpec],
    flows: &[FlowSpec],
    raw: &indexmap::IndexMap<String, RawFlow>,
    pb: &mut Problems,
) {
    for pair in pairs {
        for (name, t) in &pair.transports {
            let at = ["pairs", pair.name.as_str(), "transports", name.as_str()];
            if !raw.contains_key(name) && !flows.iter().any(|f| f.name == *name) {
                pb.add(&at, unknown("flow", name, &raw.keys().collect::<Vec<_>>()));
            } else if t.kind == transport::NONE {
                pb.add(&at, "a pair cannot make a flow open loop; give the flow `transport = \"none\"` instead");
            } else if flows.iter().any(|f| {
                (f.name == *name || f.draw.as_ref().is_some_and(|d| d.group == *name))
                    && f.transport == TransportChoice::OpenLoop
            }) {
                pb.add(
                    &at,
                    format!(
                        "flow `{name}` is open loop; a pair can only change the flow control of flow-controlled flows"
                    ),
                );
            }
        }
    }
}

/// The flows a name stands for: the flow of that name, or every transfer of that `web` group.
fn flows_named(flows: &[FlowSpec], name: &str) -> Vec<FlowId> {
    let is = |f: &FlowSpec| f.name == name || f.draw.as_ref().is_some_and(|d| d.group == name);
    flows.iter().enumerate().filter(|(_, f)| is(f)).map(|(i, _)| FlowId::from_idx(i)).collect()
}

fn build_run(raw: &RawRun, flows: &[FlowSpec], ports: usize, pb: &mut Problems) -> RunSpec {
    let duration = raw.duration;
    if duration == Time::ZERO {
        pb.add(&["run", "duration"], "a run must last longer than 0s");
    }
    let warmup = raw.warmup.unwrap_or(Time::ZERO);
    if warmup >= duration && duration > Time::ZERO {
        pb.add(&["run", "warmup"], format!("the warm-up ({warmup}) must end before the run does ({duration})"));
    }
    let measured = duration.saturating_sub(warmup);
    let interval = raw.interval.unwrap_or(measured);
    let mut intervals = 1;
    if raw.interval.is_some() {
        if interval == Time::ZERO {
            pb.add(&["run", "interval"], "an interval must be longer than 0s");
        } else if measured.0 % interval.0 != 0 {
            pb.add(
                &["run", "interval"],
                format!("duration − warmup ({measured}) is not a whole number of intervals of {interval}"),
            );
        } else if let Err(e) = check_records(measured.0 / interval.0, warmup > Time::ZERO, flows.len() + ports) {
            pb.add(&["run", "interval"], e);
        } else {
            intervals = (measured.0 / interval.0) as usize;
        }
    }
    RunSpec {
        duration,
        warmup,
        interval,
        intervals,
        seed: raw.seed.unwrap_or(1),
        fairness: vec![], // looked up with the other lists of names, in `validate`
        fluid_reference: vec![],
        trace: vec![],
        trace_queues: vec![],
    }
}

/// Every interval (the warm-up's too) is recorded for every flow and port, kept in memory and
/// written to the results.
fn check_records(intervals: u64, warmup: bool, rows: usize) -> Result<(), String> {
    let records = (intervals + u64::from(warmup)).saturating_mul(rows as u64);
    limits::check(records, limits::MAX_INTERVAL_RECORDS, "interval records").map_err(|e| {
        format!("{intervals} intervals × {rows} flows and ports = {e}; use a longer interval, or `trace` for fine time series")
    })
}

/// Indices of the things `names` in `run.<field>` stand for, each found with `find`; a name
/// that finds nothing is reported with `why_not` (`None`: it was reported already). `"*"` names
/// all `star` of them, where allowed.
fn named(
    names: &Option<Vec<String>>,
    field: &str,
    star: Option<usize>,
    find: &dyn Fn(&str) -> Vec<usize>,
    why_not: &dyn Fn(&str) -> Option<String>,
    pb: &mut Problems,
) -> impl Iterator<Item = usize> {
    let names = names.as_deref().unwrap_or_default();
    if let Some(all) = star.filter(|_| names.iter().any(|n| n == "*")) {
        return (0..all).collect::<Vec<_>>().into_iter();
    }
    let mut ids = vec![];
    for (i, n) in names.iter().enumerate() {
        let found = find(n);
        if found.is_empty() {
            if let Some(why) = why_not(n) {
                pb.add(&["run", field, &i.to_string()], why);
            }
        }
        ids.extend(found);
    }
    ids.into_iter()
}

/// Why no flow of the run is called `name`, or `None` when the file's flow of that name failed
/// its checks (which were reported).
fn missing_flow(name: &str, raw: &indexmap::IndexMap<String, RawFlow>) -> Option<String> {
    match raw.get(name) {
        Some(f) if f.enabled == Some(false) => Some(format!("flow `{name}` is left out of the run (enabled = false)")),
        Some(_) => None,
        None => Some(unknown("flow", name, &raw.keys().collect::<Vec<_>>())),
    }
}

fn build_flow(name: &str, f: &RawFlow, net: &Network, pb: &mut Problems) -> Option<FlowSpec> {
    let Network { run, node, graph, ports, topology_ok } = *net;
    let at = |field: &'static str| ["flows", name, field];
    let before = pb.0.len();
    let src = node(&f.src, &at("src"), pb);
    let dst = node(&f.dst, &at("dst"), pb);
    if let (Some(s), Some(d)) = (src, dst) {
        if s == d {
            pb.add(&at("dst"), format!("a flow needs two different nodes; src and dst are both `{}`", f.src));
        }
    }
    let positive = |v: Option<Bytes>, field: &'static str, default: u64, pb: &mut Problems| -> u32 {
        let b = v.map_or(default, |b| b.0);
        if b == 0 || b > u32::MAX as u64 {
            pb.add(&at(field), "a packet must be between 1 byte and 4 GB");
        }
        b.clamp(1, u32::MAX as u64) as u32
    };
    let packet_size = positive(f.packet_size, "packet_size", if f.app == "telnet" { 40 } else { 1000 }, pb);
    let ack_size = positive(f.ack_size, "ack_size", 40, pb);

    let start = f.start.unwrap_or(Time::ZERO);
    if start >= run.duration && run.duration > Time::ZERO {
        pb.add(&at("start"), format!("the flow starts at {start}, after the run ends ({})", run.duration));
    }
    if let Some(stop) = f.stop {
        if stop <= start {
            pb.add(&at("stop"), format!("the flow stops ({stop}) before it starts ({start})"));
        }
    }
    if f.window == Some(0) {
        pb.add(&at("window"), "a window must be at least 1 packet");
    }
    if let Some(Err(e)) = f.window.map(|w| limits::check(w, limits::MAX_WINDOW, "packets")) {
        pb.add(&at("window"), e);
    }
    let weight = f.weight.unwrap_or(1.0);
    if !(weight > 0.0 && weight.is_finite()) {
        pb.add(&at("weight"), "a weight must be a positive number");
    }

    let (src, dst) = (src?, dst?);
    let data_route = match &f.route {
        Some(hops) => explicit_route(name, hops, src, dst, node, graph, pb),
        None => {
            let r = graph.shortest_path(src, dst);
            if r.is_none() && src != dst && topology_ok {
                pb.add(&at("dst"), format!("no route from `{}` to `{}`: no chain of links joins them", f.src, f.dst));
            }
            r
        }
    };
    let first_hop_rate = data_route.as_ref().and_then(|r| r.first()).map(|p| ports[p.idx()].rate);
    let app = apps::application(name, f, packet_size, first_hop_rate, &mut pb.0);

    let transport = match &f.transport {
        Some(c) if c.kind == transport::NONE => TransportChoice::OpenLoop,
        Some(c) => TransportChoice::Explicit(with_path(c.clone(), &at("transport"))),
        None if app.as_ref().is_some_and(App::flow_controlled_by_default) => TransportChoice::FromPair,
        None => TransportChoice::OpenLoop,
    };
    match (&app, &transport) {
        (Some(App::Ftp { .. }), TransportChoice::OpenLoop) => {
            pb.add(&at("transport"), "an FTP needs flow control; use app = \"firehose\" for a source that ignores it")
        }
        (Some(App::Firehose { .. }), TransportChoice::Explicit(_)) => {
            pb.add(&at("transport"), "a firehose ignores flow control; remove `transport`")
        }
        // (an unknown app, reported already, says nothing about flow control)
        (Some(_), TransportChoice::OpenLoop) if f.window.is_some() => {
            pb.add(&at("window"), "`window` applies only to flow-controlled flows")
        }
        _ => {}
    }
    let firehose = matches!(app, Some(App::Firehose { .. }));
    let acks = f.acks.unwrap_or(transport != TransportChoice::OpenLoop || firehose);
    if !acks && transport != TransportChoice::OpenLoop {
        pb.add(&at("acks"), "a flow-controlled flow needs its ACKs");
    }
    if pb.0.len() > before {
        return None;
    }
    let data_route = data_route?;
    Some(FlowSpec {
        name: name.to_string(),
        src,
        dst,
        app: app?,
        transport,
        window: f.window,
        packet_size,
        ack_size,
        start,
        stop: f.stop,
        acks,
        weight,
        ack_route: graph.reverse(&data_route),
        data_route,
        draw: None,
    })
}

/// A `web` application: `transfers` FTP flows `name#0`, `name#1`, ... over the same path, each
/// a fresh connection, whose starts and sizes are drawn at run time (`Scenario::draws`).
fn build_web(name: &str, f: &RawFlow, net: &Network, room: usize, pb: &mut Problems) -> Vec<FlowSpec> {
    let at = |field: &'static str| ["flows", name, field];
    let before = pb.0.len();
    let web = apps::application(name, f, 0, None, &mut pb.0);
    let Some(App::Web { transfers, mean_gap, mean_size, shape }) = web else { return vec![] };
    if transfers as usize > room {
        // refused before any transfer is built
        let before = limits::MAX_FLOWS - room;
        let e = limits::check(before + transfers as usize, limits::MAX_FLOWS, "flows").unwrap_err();
        let counting =
            if before > 0 { format!(" (counting the {before} flows before these transfers)") } else { "".into() };
        pb.add(&at("transfers"), format!("{e}{counting}"));
    }
    let ftp = RawFlow { app: "ftp".into(), size: None, mean_gap: None, shape: None, transfers: None, ..f.clone() };
    let built = build_flow(name, &ftp, net, pb);
    let (Some(flow), true) = (built, pb.0.len() == before) else { return vec![] };
    let draw = Draw { group: name.to_string(), mean_gap, mean_size, shape };
    (0..transfers).map(|k| FlowSpec { name: format!("{name}#{k}"), draw: Some(draw.clone()), ..flow.clone() }).collect()
}

fn explicit_route(
    name: &str,
    hops: &[String],
    src: NodeId,
    dst: NodeId,
    node: &NodeLookup,
    graph: &Graph,
    pb: &mut Problems,
) -> Option<Vec<PortId>> {
    let at = ["flows", name, "route"];
    let ids: Vec<Option<NodeId>> =
        hops.iter().enumerate().map(|(i, h)| node(h, &["flows", name, "route", &i.to_string()], pb)).collect();
    let ids: Vec<NodeId> = ids.into_iter().collect::<Option<_>>()?;
    if ids.first() != Some(&src) || ids.last() != Some(&dst) {
        pb.add(&at, "a route lists the nodes from `src` to `dst`, both included");
        return None;
    }
    let mut route = vec![];
    for (i, w) in ids.windows(2).enumerate() {
        if ids[..=i].contains(&w[1]) {
            pb.add(&at, format!("the route visits `{}` twice", hops[i + 1]));
            return None;
        }
        match graph.port_between(w[0], w[1]) {
            Some(p) => route.push(p),
            None => {
                pb.add(&at, format!("no link joins `{}` and `{}`", hops[i], hops[i + 1]));
                return None;
            }
        }
    }
    Some(route)
}

/// Builds every component of every pair once, so that a bad parameter is caught on loading.
fn check_components(s: &Scenario) -> Result<(), Vec<Problem>> {
    let mut problems: Vec<Problem> = vec![];
    for pair in &s.pairs {
        for p in 0..s.ports.len() {
            if let Err(e) = s.build_qdisc(PortId::from_idx(p), pair) {
                problems.push(e);
            }
        }
        for f in 0..s.flows.len() {
            if let Err(e) = s.build_sender(FlowId::from_idx(f), pair, s.run.seed) {
                problems.push(e);
            }
        }
    }
    let mut unique: Vec<Problem> = vec![];
    for p in problems {
        if !unique.contains(&p) {
            unique.push(p);
        }
    }
    if unique.is_empty() {
        Ok(())
    } else {
        Err(unique)
    }
}
