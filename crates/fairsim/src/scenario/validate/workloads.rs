//! Workloads (`[workloads.NAME]`): each becomes one flow whose connections, an open population,
//! run between hosts it draws (Poisson arrivals at a load), pairs it forms at its start
//! (permutation, all-to-all, incast) or connections it lists (an htsim connection matrix). The
//! population is `traffic::population`'s; docs/workloads.md says what each pattern means.

use super::flows::Network;
use super::problems::{with_path, Problems};
use crate::error::suggest;
use crate::net::{Forwarding, Headers, NodeId};
use crate::scenario::schema::RawWorkload;
use crate::scenario::spec::{FlowSpec, TransportChoice};
use crate::traffic::population::{Ends, Listed, Pairs, Population, SizeCdf, Sizes, BUILT_IN};
use crate::traffic::{Application, FlowControl, Source, DEFAULT_PAYLOAD};
use crate::units::Time;
use std::path::Path;
use std::sync::Arc;

/// A workload's application: its population, and its table as written, for the resolved scenario.
#[derive(Debug)]
pub struct Workload {
    population: Population,
    payload: u32,
    resolved: Vec<(&'static str, toml::Value)>,
}

impl Application for Workload {
    fn name(&self) -> &'static str {
        "workload"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::Needed("a workload's connections need flow control: each ends when its file is acknowledged")
    }
    fn demand_bps(&self) -> Option<f64> {
        None
    }
    fn source(&self) -> Source {
        Source::Population(self.population.clone())
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        self.resolved.clone()
    }
}

/// Workload `name` as a flow, or `None` with its problems added.
pub(super) fn build_workload(
    name: &str,
    w: &RawWorkload,
    net: &Network,
    file: &str,
    pb: &mut Problems,
) -> Option<FlowSpec> {
    let at = |field: &'static str| ["workloads", name, field];
    let before = pb.0.len();
    let hosts = hosts(name, w, net, pb)?;
    if w.packet_size.is_some_and(|b| b.0 == 0) {
        pb.add(&at("packet_size"), "a packet carries at least 1 byte (as in `[flows]`)");
    }
    let payload = w.packet_size.map_or(DEFAULT_PAYLOAD, |b| b.0.clamp(1, u32::MAX as u64) as u32);
    let sizes = sizes(name, w, payload, file, pb);
    let dir = Path::new(file).parent().unwrap_or(Path::new("."));
    let population = match w.pattern.as_str() {
        "poisson" => {
            let Some(sizes) = sizes else {
                // a `sizes` or `size` that was given and refused has its own message already
                if w.sizes.is_none() && w.size.is_none() {
                    pb.add(&at("sizes"), "a Poisson workload needs `sizes` (a distribution) or `size`");
                }
                return None;
            };
            let per_second = poisson_rate(name, w, &hosts, &sizes, net, pb)?;
            Population::Poisson { per_second, ends: Ends::Uniform(hosts.clone().into()), sizes }
        }
        "permutation" => Population::Batch {
            pairs: Pairs::Permutation(hosts.clone().into()),
            sizes: sizes.unwrap_or(Sizes::Packets(None)),
        },
        "all_to_all" => Population::Batch {
            pairs: Pairs::AllToAll(hosts.clone().into()),
            sizes: sizes.unwrap_or(Sizes::Packets(None)),
        },
        "incast" => {
            let receiver = w.receiver.as_deref().and_then(|r| (net.node)(r, &at("receiver"), pb));
            let Some(receiver) = receiver else {
                if w.receiver.is_none() {
                    pb.add(&at("receiver"), "an incast needs its `receiver`");
                }
                return None;
            };
            if !hosts.contains(&receiver) {
                let name = w.receiver.as_deref().unwrap_or_default();
                pb.add(&at("receiver"), format!("`{name}` is not one of the workload's hosts (nodes with one link)"));
            }
            let senders: Vec<NodeId> = match &w.senders {
                Some(names) => names.iter().filter_map(|n| (net.node)(n, &at("senders"), pb)).collect(),
                None => hosts.iter().copied().filter(|&h| h != receiver).collect(),
            };
            let lines = |n: NodeId| net.lines[n.idx()].0;
            // the names beside the nodes they found, when all were found (an unknown one has its
            // own message already)
            let named = w.senders.iter().filter(|names| names.len() == senders.len()).flatten();
            if let Some((name, n)) = named.zip(&senders).find(|&(_, &n)| lines(n) != 1) {
                let why =
                    format!("`{name}` has {} links: an incast's senders are hosts (nodes with one link)", lines(*n));
                pb.add(&at("senders"), why);
            }
            if senders.contains(&receiver) {
                let name = w.receiver.as_deref().unwrap_or_default();
                pb.add(&at("senders"), format!("`{name}` is the incast's receiver: it cannot send to itself"));
            }
            Population::Batch {
                pairs: Pairs::Incast { senders: senders.into(), receiver },
                sizes: sizes.unwrap_or(Sizes::Packets(None)),
            }
        }
        "matrix" => {
            let Some(path) = &w.file else {
                pb.add(&at("file"), "a `matrix` workload reads its connections from `file` (an htsim `.cm`)");
                return None;
            };
            let text = read(&dir.join(path), &at("file"), pb)?;
            match parse_matrix(&text, &hosts, payload) {
                Ok(list) => Population::Listed(list.into()),
                Err(e) => {
                    pb.add(&at("file"), format!("{path}: {e}"));
                    return None;
                }
            }
        }
        other => {
            pb.add(
                &at("pattern"),
                format!(
                    "unknown pattern `{other}` (the patterns are poisson, permutation, all_to_all, incast, matrix)"
                ),
            );
            return None;
        }
    };
    if pb.0.len() > before {
        return None;
    }
    let (src, dst) = (hosts[0], hosts[1]);
    let data_route = net.graph.shortest_path(src, dst)?;
    let headers = w.headers.or(net.run.headers).unwrap_or(Headers::None);
    let header_bytes = headers.bytes(true);
    let transport = match &w.transport {
        Some(c) if c.kind == crate::transport::NONE => {
            pb.add(&at("transport"), "a workload's connections need flow control");
            return None;
        }
        Some(c) => TransportChoice::Explicit(with_path(c.clone(), &at("transport"))),
        None => TransportChoice::FromPairOr(workload_transport()),
    };
    let start = w.start.unwrap_or(Time::ZERO);
    if start >= net.run.duration && net.run.duration > Time::ZERO {
        pb.add(&at("start"), format!("the workload starts at {start}, after the run ends ({})", net.run.duration));
        return None;
    }
    Some(FlowSpec {
        name: name.to_string(),
        src,
        dst,
        app: Arc::new(Workload { population, payload, resolved: resolved(w, dir) }),
        transport,
        window: None,
        packet_size: payload.saturating_add(header_bytes),
        ack_size: if headers == Headers::None { 40 } else { header_bytes },
        headers,
        payload_size: payload,
        start,
        start_jitter: Time::ZERO,
        stop: w.stop,
        acks: true,
        weight: 1.0,
        priority: w.priority.unwrap_or(0),
        forwarding: net.run.forwarding.unwrap_or(Forwarding::Static),
        ack_route: net.graph.reverse(&data_route),
        data_route,
        draw: None,
    })
}

/// A workload's transport when neither it nor the pair names one: the `linux` stack's NewReno,
/// acknowledging every packet. Linux acknowledges every segment at a connection's start
/// (quick-ACK mode), which a data-centre transfer of a few packets never leaves; a 200 ms delayed
/// ACK would add 200 ms to every transfer of an odd number of packets on a microsecond fabric.
fn workload_transport() -> crate::scenario::schema::Component {
    let params: crate::params::Params = [("ack_every".to_string(), toml::Value::Integer(1))].into_iter().collect();
    crate::scenario::schema::Component { kind: "newreno".into(), params: Arc::new(params), path: vec![] }
}

/// The workload's hosts: those it names, or every node with one link; each must have one.
fn hosts(name: &str, w: &RawWorkload, net: &Network, pb: &mut Problems) -> Option<Vec<NodeId>> {
    let at = ["workloads", name, "hosts"];
    let lines = |n: NodeId| net.lines[n.idx()].0;
    let hosts: Vec<NodeId> = match &w.hosts {
        Some(names) => {
            let named: Vec<(&String, NodeId)> =
                names.iter().filter_map(|h| (net.node)(h, &at, pb).map(|n| (h, n))).collect();
            if let Some(&(name, n)) = named.iter().find(|&&(_, n)| lines(n) != 1) {
                pb.add(&at, format!("`{}` has {} links: a workload's hosts have one each", name, lines(n)));
                return None;
            }
            named.into_iter().map(|(_, n)| n).collect()
        }
        None => (0..net.lines.len()).map(NodeId::from_idx).filter(|&n| lines(n) == 1).collect(),
    };
    if hosts.len() < 2 {
        pb.add(&at, "a workload needs at least two hosts (nodes with one link)");
        return None;
    }
    Some(hosts)
}

/// The sizes the workload gives, if any: one `size`, or a distribution `sizes` (built in, or a
/// file beside the scenario).
fn sizes(name: &str, w: &RawWorkload, payload: u32, file: &str, pb: &mut Problems) -> Option<Sizes> {
    let at = |field: &'static str| ["workloads", name, field];
    match (&w.size, &w.sizes) {
        (Some(_), Some(_)) => {
            pb.add(&at("size"), "give `size` (every file) or `sizes` (a distribution), not both");
            None
        }
        (Some(size), None) if size.0 == 0 => {
            pb.add(&at("size"), "a file holds at least 1 byte; leave `size` out for transfers without end");
            None
        }
        (Some(size), None) => Some(Sizes::Packets(Some(size.0.div_ceil(payload as u64)))),
        (None, Some(dist)) => {
            let cdf = match SizeCdf::built_in(dist) {
                Some(cdf) => cdf,
                None => {
                    let dir = Path::new(file).parent().unwrap_or(Path::new("."));
                    if let Some(meant) = suggest(dist, BUILT_IN).filter(|_| !dir.join(dist).exists()) {
                        let message = format!(
                            "`{dist}` is neither a built-in distribution ({}) nor a file; did you mean `{meant}`?",
                            BUILT_IN.join(", ")
                        );
                        pb.add(&at("sizes"), message);
                        return None;
                    }
                    let text = read(&dir.join(dist), &at("sizes"), pb)?;
                    match SizeCdf::parse(&text) {
                        Ok(cdf) => cdf,
                        Err(e) => {
                            pb.add(&at("sizes"), format!("{dist}: {e}"));
                            return None;
                        }
                    }
                }
            };
            Some(Sizes::Cdf { cdf: Arc::new(cdf), payload })
        }
        (None, None) => None,
    }
}

/// A Poisson workload's arrivals per second: `load` of every host's line, each connection's
/// mean file the distribution's mean (bytes, as drawn before rounding up to whole packets).
fn poisson_rate(
    name: &str,
    w: &RawWorkload,
    hosts: &[NodeId],
    sizes: &Sizes,
    net: &Network,
    pb: &mut Problems,
) -> Option<f64> {
    let at = |field: &'static str| ["workloads", name, field];
    let Some(load) = w.load.filter(|l| *l > 0.0 && *l <= 1.0) else {
        pb.add(&at("load"), "a Poisson workload needs its `load`, above 0 and at most 1 (of each host's line)");
        return None;
    };
    let rates: Vec<u64> =
        hosts.iter().filter_map(|&h| net.lines[h.idx()].1).map(|p| net.ports[p.idx()].rate.0).collect();
    if rates.iter().any(|&r| r != rates[0]) {
        pb.add(&at("hosts"), "a Poisson workload's hosts must have lines of one rate (its load is a share of each)");
        return None;
    }
    let mean_bytes = match sizes {
        Sizes::Packets(Some(n)) => *n as f64 * w.packet_size.map_or(DEFAULT_PAYLOAD as u64, |b| b.0) as f64,
        Sizes::Packets(None) => 0.0,
        Sizes::Cdf { cdf, .. } => cdf.mean(),
    };
    if mean_bytes <= 0.0 {
        pb.add(&at("sizes"), "a Poisson workload's files must have a size");
        return None;
    }
    Some(load * rates[0] as f64 * hosts.len() as f64 / (8.0 * mean_bytes))
}

fn read(path: &Path, at: &[&str], pb: &mut Problems) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) => {
            pb.add(at, format!("cannot read {}: {e}", path.display()));
            None
        }
    }
}

/// An htsim connection matrix: `Nodes N`, `Connections C`, then a line per connection,
/// `SRC->DST start T size B` (other keys ignored but `trigger`, which is refused), SRC and DST
/// numbering `hosts`, T in picoseconds (as htsim's loader reads it), B bytes (0: without end).
pub fn parse_matrix(text: &str, hosts: &[NodeId], payload: u32) -> Result<Vec<Listed>, String> {
    let mut list = vec![];
    let mut declared = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        let fields: Vec<&str> = line.split_whitespace().collect();
        let bad = |why: String| format!("line {}: {why}", n + 1);
        match fields.first() {
            None => continue,
            Some(&"Nodes") => match fields.get(1).and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n == hosts.len() => continue,
                Some(n) => {
                    return Err(bad(format!("the header declares {n} nodes, the workload has {} hosts", hosts.len())))
                }
                None => return Err(bad("`Nodes` needs the number of hosts".into())),
            },
            Some(&"Connections") => declared = fields.get(1).and_then(|c| c.parse::<usize>().ok()),
            Some(&("Triggers" | "Failures" | "trigger" | "failure")) => {
                return Err(bad("triggers and failures are not supported".into()))
            }
            Some(pair) => {
                let Some((s, d)) = pair.split_once("->") else {
                    return Err(bad(format!("expected `SRC->DST`, found `{pair}`")));
                };
                let host = |h: &str| {
                    h.parse::<usize>()
                        .ok()
                        .and_then(|i| hosts.get(i).copied())
                        .ok_or_else(|| bad(format!("no host {h} (hosts are 0 to {})", hosts.len() - 1)))
                };
                let (src, dst) = (host(s)?, host(d)?);
                if src == dst {
                    return Err(bad(format!("a connection from host {s} to itself")));
                }
                let mut at = None;
                let mut bytes = None;
                for kv in fields[1..].chunks(2) {
                    let value = kv.get(1).ok_or_else(|| bad(format!("`{}` has no value", kv[0])))?;
                    match kv[0] {
                        "start" => {
                            at = Some(
                                value.parse::<f64>().map_err(|_| bad(format!("start `{value}` is not a number")))?,
                            )
                        }
                        "size" => {
                            bytes = Some(value.parse::<u64>().map_err(|_| bad(format!("size `{value}` is not bytes")))?)
                        }
                        "trigger" => return Err(bad("triggers are not supported".into())),
                        _ => {}
                    }
                }
                let at = at.ok_or_else(|| bad("a connection needs its `start`".into()))?;
                let bytes = bytes.ok_or_else(|| bad("a connection needs its `size`".into()))?;
                if !(at >= 0.0 && at.is_finite()) {
                    return Err(bad(format!("start `{at}` must be 0 or more")));
                }
                let packets = (bytes > 0).then(|| bytes.div_ceil(payload as u64));
                list.push(Listed { at: Time((at / 1000.0).round() as u64), src, dst, packets });
            }
        }
    }
    if let Some(c) = declared.filter(|&c| c != list.len()) {
        return Err(format!("the header declares {c} connections, the file lists {}", list.len()));
    }
    list.sort_by_key(|l| l.at); // stable: connections of one instant in the file's order
    Ok(list)
}

/// The workload's table as written, its files' paths made absolute (the resolved scenario may
/// be written elsewhere).
fn resolved(w: &RawWorkload, dir: &Path) -> Vec<(&'static str, toml::Value)> {
    let s = |v: &str| toml::Value::String(v.to_string());
    let path = |p: &str| if SizeCdf::built_in(p).is_some() { s(p) } else { s(&dir.join(p).to_string_lossy()) };
    let mut out = vec![("pattern", s(&w.pattern))];
    let names = |v: &Vec<String>| toml::Value::Array(v.iter().map(|h| s(h)).collect());
    out.extend(w.hosts.as_ref().map(|h| ("hosts", names(h))));
    out.extend(w.sizes.as_deref().map(|d| ("sizes", path(d))));
    out.extend(w.size.map(|b| ("size", s(&b.to_string()))));
    out.extend(w.load.map(|l| ("load", toml::Value::Float(l))));
    out.extend(w.receiver.as_deref().map(|r| ("receiver", s(r))));
    out.extend(w.senders.as_ref().map(|h| ("senders", names(h))));
    out.extend(w.file.as_deref().map(|f| ("file", path(f))));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_matrix_reads_starts_in_picoseconds() {
        let hosts: Vec<NodeId> = (10..26).map(NodeId).collect();
        let text = "Nodes 16\nConnections 2\n7->5 id 1 start 2000000 size 2000000\n0->15 start 0 size 0\n";
        let list = parse_matrix(text, &hosts, 1000).unwrap();
        assert_eq!(list[0], Listed { at: Time(0), src: NodeId(10), dst: NodeId(25), packets: None });
        assert_eq!(list[1], Listed { at: Time(2_000), src: NodeId(17), dst: NodeId(15), packets: Some(2000) });
        assert!(parse_matrix("Connections 3\n0->1 start 0 size 1\n", &hosts, 1000).unwrap_err().contains("declares 3"));
        assert!(parse_matrix("0->99 start 0 size 1\n", &hosts, 1000).unwrap_err().starts_with("line 1: no host 99"));
        assert!(parse_matrix("0->1 start 0 size 1 trigger 2\n", &hosts, 1000).unwrap_err().contains("not supported"));
    }

    #[test]
    fn a_matrix_that_does_not_fit_its_hosts_is_refused_at_its_line() {
        let hosts: Vec<NodeId> = (10..26).map(NodeId).collect();
        let refused = |text: &str| parse_matrix(text, &hosts, 1000).unwrap_err();
        assert_eq!(refused("Nodes 16\n3->3 start 0 size 1\n"), "line 2: a connection from host 3 to itself");
        assert_eq!(
            refused("Nodes 128\n0->1 start 0 size 1\n"),
            "line 1: the header declares 128 nodes, the workload has 16 hosts"
        );
    }
}
