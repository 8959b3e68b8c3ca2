//! From the raw schema to a resolved `Scenario`: names become ids, defaults are filled in,
//! routes are computed, and everything that can be wrong is reported together.

use super::crossing::Crossing;
use super::link_changes::{join, Written};
use super::schema::RawScenario;
use super::topology::{at_tiers, expand, Expanded, Places, Tiers};
use super::{
    problem::Problem,
    spec::{port_named, FlowSpec, NetworkAction, Scenario},
};
use crate::error::unknown;
use crate::limits;
use crate::net::multipath::EqualCost;
use crate::net::routing::Graph;
use crate::net::{FlowId, Forwarding, NodeId, PacketKind, PortId};
use std::collections::HashMap;

mod events;
mod flows;
mod links;
mod nodes;
mod pairs;
mod problems;
mod run;
mod workloads;

use events::build_events;
use flows::{build_flows, share_transport_tables, Network};
use links::build_links;
use nodes::check_nodes;
use pairs::{build_pairs, check_pair_transports, flows_named};
use problems::Problems;
use run::{build_run, missing_flow, missing_port, named};
use workloads::build_workload;

pub fn validate(mut raw: RawScenario, file: &str, overrides: &[String]) -> Result<Scenario, Vec<Problem>> {
    let (listed, tiers, written) = with_topology(&mut raw)?;
    let places = Places { tiers: &tiers, written: &written };
    validate_nodes_and_links(raw, listed, file, overrides, &places).map_err(|problems| at_tiers(problems, &places))
}

/// `validate` once the topology, if any, has been expanded into `raw`'s links and `listed`.
fn validate_nodes_and_links(
    raw: RawScenario,
    listed: Vec<String>,
    file: &str,
    overrides: &[String],
    places: &Places,
) -> Result<Scenario, Vec<Problem>> {
    let mut pb = Problems::default();
    let nodes = check_nodes(&listed, &mut pb);
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
    let (links, ports) = build_links(&raw.links, &node, places, &mut pb);
    // a broken link would make every flow across it look unroutable: say it once
    let topology_ok = pb.0.len() == before_links;
    let endpoints: Vec<(NodeId, NodeId)> = ports.iter().map(|p| (p.from, p.to)).collect();
    let graph = Graph::new(nodes.len(), &endpoints);

    let pairs = build_pairs(&raw, &mut pb);
    let lines = lines(nodes.len(), &ports);
    let net = Network { run: &raw.run, node: &node, graph: &graph, ports: &ports, lines: &lines, topology_ok };
    let mut flows = vec![];
    for (name, f) in raw.flows.iter().filter(|(_, f)| f.enabled != Some(false)) {
        let room = limits::MAX_FLOWS.saturating_sub(flows.len());
        flows.extend(build_flows(name, f, &net, room, &mut pb));
    }
    for (name, w) in &raw.workloads {
        if raw.flows.contains_key(name) {
            pb.add(&["workloads", name], format!("`{name}` is a flow's name too: a workload is reported as a flow"));
        } else if topology_ok {
            flows.extend(build_workload(name, w, &net, file, &mut pb));
        }
    }
    share_transport_tables(&mut flows);
    if flows.is_empty() && pb.0.is_empty() {
        pb.add(&["flows"], "a scenario needs at least one flow or workload");
    }
    if let Err(e) = limits::check(flows.len(), limits::MAX_FLOWS, "flows") {
        pb.add(&["flows"], e);
    }
    check_pair_transports(&pairs, &flows, &raw.flows, &mut pb);
    let mut run = build_run(&raw.run, &flows, ports.len(), &mut pb);
    run::unused_settings(&raw.run, &flows, !raw.events.is_empty(), &mut pb);
    let port = |n: &str| port_named(&ports, &nodes, &links, n).into_iter().collect();
    let flow = |n: &str| flows_named(&flows, n).iter().map(|f| f.idx()).collect();
    // a port of a broken link, or a flow that failed, was reported already
    let no_port = |n: &str| topology_ok.then(|| missing_port(n, &nodes, &links, &ports));
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
    untraceable(raw.run.trace.as_deref().unwrap_or_default(), &flows, &mut pb);
    run.trace_queues = named(&raw.run.trace_queues, "trace_queues", all_ports, &port, &no_port, &mut pb)
        .map(PortId::from_idx)
        .collect();
    run.pcap = named(&raw.run.pcap, "pcap", all_ports, &port, &no_port, &mut pb).map(PortId::from_idx).collect();
    run.events = named(&raw.run.events, "events", all_ports, &port, &no_port, &mut pb).map(PortId::from_idx).collect();

    let shared_buffer = raw.shared_buffer.as_ref().and_then(|b| shared_buffer(b, &lines, &node, &mut pb));
    let pfc = raw.pfc.as_ref().map(|p| pfc(p, &lines, &node, &mut pb));
    let events = if topology_ok {
        let changes = events::Network { links: &links, ports: &ports, nodes: &nodes };
        build_events(&raw.events, run.duration, run.failure_detection, &changes, &mut pb)
    } else {
        vec![]
    };
    if !pb.0.is_empty() {
        return Err(pb.0);
    }
    // a failed link sends chosen paths round it, over ports no fewest-hop path crosses
    let detours = events.iter().any(|e| e.action == NetworkAction::Down);
    let crossing = crossing(&flows, nodes.len(), &endpoints, detours);
    let mut traced = vec![false; flows.len()];
    run.trace.iter().for_each(|f| traced[f.idx()] = true);
    let scenario = Scenario {
        file: file.to_string(),
        name: raw.scenario.name.unwrap_or_else(|| stem(file)),
        description: raw.scenario.description.unwrap_or_default(),
        reference: raw.scenario.reference,
        notes: raw.scenario.notes,
        run,
        nodes: nodes.into(),
        links,
        ports,
        shared_buffer,
        pfc,
        pairs,
        events,
        overrides: overrides.to_vec(),
        flow_meta: flows_meta(&flows),
        crossing,
        traced,
        flows,
        configured: vec![],
    };
    let configured = scenario.configure()?;
    Ok(Scenario { configured, ..scenario })
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

/// The conversations crossing each port (`ends`: each port's nodes): each flow's data where its
/// data route goes, then its ACKs (if it has any) where its ACK route goes, flow by flow. A flow
/// whose path is chosen at each switch crosses every port of every fewest-hop path; one that may
/// go anywhere (a workload, whose connections run between any of its hosts, or a flow that
/// detours round failed links) is listed once for every port.
fn crossing(flows: &[FlowSpec], nodes: usize, ends: &[(NodeId, NodeId)], detours: bool) -> Crossing {
    let mut everywhere = vec![];
    let mut by_port: Vec<Vec<(FlowId, PacketKind)>> = vec![vec![]; ends.len()];
    let mut multipath = flows.iter().any(|f| f.forwarding != Forwarding::Static).then(|| EqualCost::new(nodes, ends));
    for (f, spec) in flows.iter().enumerate() {
        let f = FlowId::from_idx(f);
        let (data, acks) = match &mut multipath {
            _ if spec.draws_ends() || (detours && spec.forwarding != Forwarding::Static) => {
                everywhere.extend([(f, PacketKind::Data), (f, PacketKind::Ack)]);
                continue;
            }
            Some(paths) if spec.forwarding != Forwarding::Static => {
                let acks = if spec.acks { paths.ports_between(spec.dst, spec.src) } else { vec![] };
                (paths.ports_between(spec.src, spec.dst).into(), acks.into())
            }
            _ => {
                let acks = if spec.acks { spec.ack_route.as_slice() } else { &[] };
                (std::borrow::Cow::from(spec.data_route.as_slice()), std::borrow::Cow::from(acks))
            }
        };
        for (route, kind) in [(data, PacketKind::Data), (acks, PacketKind::Ack)] {
            for p in route.iter() {
                let at = &mut by_port[p.idx()];
                // once per port, should a route pass a port twice
                if at.last() != Some(&(f, kind)) {
                    at.push((f, kind));
                }
            }
        }
    }
    Crossing::new(everywhere, by_port)
}

/// `[shared_buffer]`: its switches (named, or every node with several links) and its figures.
fn shared_buffer(
    b: &super::schema::RawSharedBuffer,
    lines: &[(u32, Option<PortId>)],
    node: &nodes::NodeLookup,
    pb: &mut Problems,
) -> Option<super::spec::SharedBufferSpec> {
    let alpha = b.alpha.unwrap_or(1.0);
    if !(alpha > 0.0 && alpha.is_finite()) {
        pb.add(&["shared_buffer", "alpha"], "α must be a positive number (1, or a power of 2 as switches use)");
    }
    if b.size.0 == 0 {
        pb.add(&["shared_buffer", "size"], "a shared buffer needs a size above 0");
    }
    let nodes = match &b.nodes {
        Some(names) => names.iter().filter_map(|n| node(n, &["shared_buffer", "nodes"], pb)).collect(),
        None => (0..lines.len()).filter(|&n| lines[n].0 > 1).map(NodeId::from_idx).collect(),
    };
    Some(super::spec::SharedBufferSpec { size: b.size.0, alpha, nodes })
}

/// `[pfc]`: its switches (named, or every node with several links) and its thresholds.
fn pfc(
    p: &super::schema::RawPfc,
    lines: &[(u32, Option<PortId>)],
    node: &nodes::NodeLookup,
    pb: &mut Problems,
) -> super::spec::PfcSpec {
    if p.xoff.0 == 0 {
        pb.add(&["pfc", "xoff"], "xoff must be above 0 bytes");
    }
    if p.xon.0 > p.xoff.0 {
        pb.add(&["pfc", "xon"], format!("xon ({} B) must not be above xoff ({} B)", p.xon.0, p.xoff.0));
    }
    let frame = p.frame.map_or(0, |b| b.0);
    if frame > u64::from(u32::MAX) {
        pb.add(&["pfc", "frame"], "a pause frame of more than 4 GB");
    }
    let mut priorities = 0u8;
    for &prio in p.priorities.as_deref().unwrap_or(&[0, 1, 2, 3, 4, 5, 6, 7]) {
        if prio > 7 {
            pb.add(&["pfc", "priorities"], format!("priority {prio}: PFC has eight, 0 to 7"));
        }
        priorities |= 1 << prio.min(7);
    }
    if priorities == 0 {
        pb.add(&["pfc", "priorities"], "no priority is lossless: leave [pfc] out instead");
    }
    let nodes = match &p.nodes {
        Some(names) => names.iter().filter_map(|n| node(n, &["pfc", "nodes"], pb)).collect(),
        None => (0..lines.len()).filter(|&n| lines[n].0 > 1).map(NodeId::from_idx).collect(),
    };
    super::spec::PfcSpec {
        xoff: p.xoff.0,
        xon: p.xon.0,
        headroom: p.headroom.map(|b| b.0),
        frame: frame as u32,
        priorities,
        nodes,
    }
}

/// Each node's lines: how many ports leave it, and the first of them.
fn lines(nodes: usize, ports: &[super::spec::PortSpec]) -> Vec<(u32, Option<PortId>)> {
    let mut lines = vec![(0u32, None); nodes];
    for (p, port) in ports.iter().enumerate() {
        let (count, first) = &mut lines[port.from.idx()];
        *count += 1;
        first.get_or_insert(PortId::from_idx(p));
    }
    lines
}

fn stem(file: &str) -> String {
    std::path::Path::new(file).file_stem().map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned())
}

/// For the tests of each part: the problems a scenario text is refused with, as (field, message).
#[cfg(test)]
fn problems(text: &str) -> Vec<(String, String)> {
    match crate::scenario::Scenario::parse(text, "t.toml", &[]) {
        Ok(_) => vec![],
        Err(crate::Error::Scenario(diags)) => diags.into_iter().map(|d| (d.field, d.message)).collect(),
        Err(e) => panic!("not a scenario error: {e}"),
    }
}

/// A workload's connections come and go by the thousand, and are not traced one by one: naming
/// a workload in `trace`, or `*` where every flow is one, would record nothing.
fn untraceable(names: &[String], flows: &[FlowSpec], pb: &mut Problems) {
    let workload = FlowSpec::draws_ends;
    for (i, name) in names.iter().enumerate() {
        let at = ["run".to_string(), "trace".to_string(), i.to_string()];
        let at: Vec<&str> = at.iter().map(String::as_str).collect();
        if name == "*" && !flows.is_empty() && flows.iter().all(workload) {
            pb.add(
                &at,
                "every flow of the scenario is a workload, whose connections are not traced (docs/workloads.md)",
            );
        } else if flows.iter().any(|f| f.name == *name && workload(f)) {
            pb.add(&at, format!("`{name}` is a workload, whose connections are not traced (docs/workloads.md)"));
        }
    }
}

/// Two hosts and a gateway, and `rest` (links, flows, ...) after the run.
#[cfg(test)]
fn net(run: &str, rest: &str) -> String {
    format!(
        "nodes = [\"a\", \"gw\", \"b\"]\n[run]\nduration = \"10s\"\n{run}\n[links]\nin = {{ between = [\"a\", \"gw\"], rate = \"1Mbps\" }}\nout = {{ between = [\"gw\", \"b\"], rate = \"1Mbps\" }}\n{rest}"
    )
}

#[cfg(test)]
fn one(field: &str, message: &str) -> Vec<(String, String)> {
    vec![(field.to_string(), message.to_string())]
}

#[cfg(test)]
mod crossing {
    use crate::net::{FlowId, PacketKind, PortId};

    #[test]
    fn each_port_lists_the_data_and_acks_whose_routes_cross_it_in_flow_order() {
        // a parking lot: a long flow over both hops, a short one on each, one without ACKs
        let text = "nodes = [\"a\", \"b\", \"c\", \"d\"]\n[run]\nduration = \"1s\"\n[links]\n\
            ab = { between = [\"a\", \"b\"], rate = \"1Mbps\" }\n\
            bc = { between = [\"b\", \"c\"], rate = \"1Mbps\" }\n\
            cd = { between = [\"c\", \"d\"], rate = \"1Mbps\" }\n[flows]\n\
            long = { src = \"a\", dst = \"d\", app = \"ftp\" }\n\
            short = { src = \"b\", dst = \"c\", app = \"ftp\" }\n\
            udp = { src = \"d\", dst = \"b\", app = \"cbr\", rate = \"1kbps\" }\n";
        let sc = crate::Scenario::parse(text, "t.toml", &[]).unwrap();
        for p in 0..sc.ports.len() {
            // what every flow's routes say about port p, as it was once computed for each port
            let id = PortId::from_idx(p);
            let expected: Vec<(FlowId, PacketKind)> = sc
                .flows
                .iter()
                .enumerate()
                .flat_map(|(f, spec)| {
                    let data = spec.data_route.contains(&id).then_some((FlowId::from_idx(f), PacketKind::Data));
                    let acks =
                        (spec.acks && spec.ack_route.contains(&id)).then_some((FlowId::from_idx(f), PacketKind::Ack));
                    data.into_iter().chain(acks)
                })
                .collect();
            assert_eq!(sc.crossing.at(id), expected, "port {}", sc.port_name(p));
        }
        let bc = sc.port_named("b->c").unwrap();
        assert_eq!(
            sc.crossing.at(PortId::from_idx(bc)),
            [(FlowId(0), PacketKind::Data), (FlowId(1), PacketKind::Data)]
        );
        let cb = sc.port_named("c->b").unwrap();
        let acks_and_udp = [(FlowId(0), PacketKind::Ack), (FlowId(1), PacketKind::Ack), (FlowId(2), PacketKind::Data)];
        assert_eq!(sc.crossing.at(PortId::from_idx(cb)), acks_and_udp);
    }
}

#[cfg(test)]
mod components {
    use super::{net, problems};

    #[test]
    fn a_bad_parameter_of_any_pair_is_found_on_loading_with_its_place() {
        let text = net(
            "",
            "[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\" }\n[pairs]\nok = { transport = \"reno\" }\nbad = { transport = { kind = \"reno\", window = 0 }, qdisc = { kind = \"red\", w_q = \"x\" } }\n",
        );
        let found = problems(&text);
        let fields: Vec<&str> = found.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, vec!["pairs.bad.qdisc.w_q", "pairs.bad.transport.window"], "{found:?}");
        assert_eq!(found[1].1, "a window must be at least 1 packet");
    }

    #[test]
    fn a_bad_component_of_a_topology_tier_is_told_once_at_the_tier_and_its_line() {
        let text = "[topology]\nkind = \"fat_tree\"\nk = 4\n\
                    hosts = { rate = \"10Gbps\", qdisc = \"nope\", forward = { qdisc = { kind = \"red\", w_q = \"x\" } } }\n\
                    tor_agg = { rate = \"40Gbps\", qdisc = \"nope\" }\n\
                    [run]\nduration = \"10ms\"\n[flows]\nf = { src = \"h0\", dst = \"h5\", app = \"ftp\" }\n\
                    [links]\nmine = { between = [\"h0\", \"core0\"], rate = \"1Gbps\", qdisc = \"nope\" }\n";
        let Err(crate::Error::Scenario(found)) = crate::scenario::Scenario::parse(text, "t.toml", &[]) else {
            panic!("refused")
        };
        let told: Vec<(&str, Option<usize>)> = found.iter().map(|d| (d.field.as_str(), d.line)).collect();
        // agg_core has no table of its own: its links took the hosts' and are told there;
        // the file's own link is told as before
        assert_eq!(
            told,
            vec![
                ("topology.hosts.forward.qdisc.w_q", Some(4)),
                ("topology.hosts.qdisc", Some(4)),
                ("topology.tor_agg.qdisc", Some(5)),
                ("links.mine.qdisc", Some(11)),
            ],
            "{found:?}"
        );
    }

    #[test]
    fn a_tiers_discipline_is_one_value_told_at_the_tier_unless_a_change_wrote_it() {
        use std::sync::Arc;
        let text = "[topology]\nkind = \"fat_tree\"\nk = 4\n\
                    hosts = { rate = \"10Gbps\", forward = { qdisc = \"fcfs\" } }\n\
                    [run]\nduration = \"10ms\"\n[flows]\nf = { src = \"h0\", dst = \"h5\", app = \"ftp\" }\n\
                    [pairs]\nfq = { qdisc = \"fq\" }\n\
                    [links.h3]\nforward = { qdisc = { kind = \"fcfs\" } }\n";
        let sc = crate::scenario::Scenario::parse(text, "t.toml", &[]).unwrap();
        let host_lines: Vec<usize> = (0..sc.ports.len()).filter(|&p| sc.port_name(p).starts_with('h')).collect();
        assert_eq!(host_lines.len(), 16);
        let written = |p: usize| sc.ports[p].qdisc.clone().expect("the tier's forward discipline");
        let h3 = host_lines.iter().position(|&p| sc.port_name(p).starts_with("h3->")).unwrap();
        assert_eq!(written(host_lines[h3]).path, ["links", "h3", "forward", "qdisc"], "the change's own");
        let others: Vec<usize> = host_lines.iter().copied().filter(|&p| p != host_lines[h3]).collect();
        assert_eq!(written(others[0]).path, ["topology", "hosts", "forward", "qdisc"]);
        assert!(others.iter().all(|&p| Arc::ptr_eq(&written(p), &written(others[0]))), "one value for the tier");
        // resolved: the host lines' FCFS, and the ToRs' ports towards them the pair's FQ, which
        // alternate in the ports' order, each one value
        let resolved = &sc.configured[0].qdiscs;
        assert!(others.iter().all(|&p| Arc::ptr_eq(&resolved[p], &resolved[others[0]])));
        let towards: Vec<usize> = (0..sc.ports.len()).filter(|&p| sc.port_name(p).contains("->h")).collect();
        assert_eq!(resolved[towards[0]].kind, "fq");
        assert!(towards.iter().all(|&p| Arc::ptr_eq(&resolved[p], &resolved[towards[0]])));
    }
}

/// The scenario's nodes: those its `[topology]` generates, then those it lists; the generated
/// links go before its own, changed by those without `between` (`scenario::link_changes`). Also
/// each generated link's tier, and the keys the file changed.
fn with_topology(raw: &mut RawScenario) -> Result<(Vec<String>, Tiers, Written), Vec<Problem>> {
    let listed = raw.nodes.take();
    let Some(t) = &raw.topology else {
        let message = "missing field `nodes` (a scenario lists its nodes, or generates them with `[topology]`)";
        return Ok((listed.ok_or_else(|| vec![Problem::new(&["nodes"], message)])?, Tiers::new(), Written::new()));
    };
    let Expanded { mut nodes, mut links, tiers } = expand(t).map_err(|p| vec![p])?;
    let written = join(&mut links, std::mem::take(&mut raw.links))?;
    raw.links = links;
    nodes.extend(listed.unwrap_or_default());
    Ok((nodes, tiers, written))
}
