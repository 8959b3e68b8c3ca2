//! Flows: end nodes, routes, sizes, applications and flow control; `web` groups expanded into
//! their transfers.

use super::nodes::NodeLookup;
use super::problems::{with_path, Problems};
use crate::limits;
use crate::net::routing::Graph;
use crate::net::{Forwarding, Headers, NodeId, PortId};
use crate::params::Params;
use crate::scenario::apps;
use crate::scenario::schema::{RawFlow, RawRun};
use crate::scenario::spec::{Draw, FlowSpec, PortSpec, TransportChoice};
use crate::traffic::{AppInfo, FlowControl};
use crate::transport;
use crate::units::{Bytes, Time};
use std::sync::Arc;

/// What a flow is checked against: the run, the nodes, links and routes.
pub(super) struct Network<'a> {
    pub(super) run: &'a RawRun,
    pub(super) node: &'a NodeLookup<'a>,
    pub(super) graph: &'a Graph<'a>,
    pub(super) ports: &'a [PortSpec],
    /// Each node's lines, one entry per node: how many ports leave it, and the first of them
    /// (counted once, not searched for each node: a fat-tree of k = 64 has 70,000 nodes and
    /// 393,000 ports).
    pub(super) lines: &'a [(u32, Option<PortId>)],
    /// The links are sound, so a flow without a route is the flow's mistake.
    pub(super) topology_ok: bool,
}

fn build_flow(name: &str, f: &RawFlow, net: &Network, pb: &mut Problems) -> Option<FlowSpec> {
    let Network { run, node, graph, ports, topology_ok, .. } = *net;
    let at = |field: &'static str| ["flows", name, field];
    let before = pb.0.len();
    let src = node(&f.src, &at("src"), pb);
    let dst = node(&f.dst, &at("dst"), pb);
    if let (Some(s), Some(d)) = (src, dst) {
        if s == d {
            pb.add(&at("dst"), format!("a flow needs two different nodes; src and dst are both `{}`", f.src));
        }
    }
    let positive = |v: Option<Bytes>, field: &'static str, pb: &mut Problems| -> Option<u32> {
        let b = v?.0;
        if b == 0 || b > u32::MAX as u64 {
            pb.add(&at(field), "a packet must be between 1 byte and 4 GB");
        }
        Some(b.clamp(1, u32::MAX as u64) as u32)
    };
    // with headers, `packet_size` is the payload, which applications' rates and sizes count;
    // without it, the application's own (Telnet's keystrokes are 40 bytes)
    let packet_size = positive(f.packet_size, "packet_size", pb);
    let headers = f.headers.or(run.headers).unwrap_or_default();
    let ack_size = positive(f.ack_size, "ack_size", pb).unwrap_or(40);
    if f.ack_size.is_some() && headers != Headers::None {
        pb.add(&at("ack_size"), ack_size_with_headers(headers, f.headers.is_none()));
    }

    let start = f.start.unwrap_or(Time::ZERO);
    if start >= run.duration && run.duration > Time::ZERO {
        pb.add(&at("start"), format!("the flow starts at {start}, after the run ends ({})", run.duration));
    }
    let start_jitter = f.start_jitter.or(run.start_jitter).unwrap_or(Time::ZERO);
    if start < run.duration && start.0.saturating_add(start_jitter.0) > run.duration.0 {
        // named where it was written: the flow's own, or the run's for every flow
        let path: Vec<&str> =
            if f.start_jitter.is_some() { at("start_jitter").to_vec() } else { vec!["run", "start_jitter"] };
        pb.add(
            &path,
            format!(
                "flow `{name}` could start as late as {start} + {start_jitter}, after the run ends ({})",
                run.duration
            ),
        );
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

    let forwarding = match (&f.route, f.forwarding) {
        (None, chosen) => chosen.or(run.forwarding).unwrap_or_default(),
        (Some(_), Some(chosen)) if chosen != Forwarding::Static => {
            pb.add(
                &at("forwarding"),
                format!(
                    "a flow with its own `route` follows it; forwarding = \"{}\" chooses paths at each switch: \
                     remove one of the two",
                    chosen.name()
                ),
            );
            Forwarding::Static
        }
        (Some(_), _) => Forwarding::Static,
    };
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
    // the first line, whose payload rate is a firehose's default (a firehose is UDP)
    let first_line = data_route.as_ref().and_then(|r| r.first()).map(|p| (ports[p.idx()].rate, headers.bytes(false)));
    let app = apps::application(name, f, &AppInfo { packet_size, first_line }, &mut pb.0);
    let control = app.as_ref().map(|a| a.flow_control());

    let transport = match &f.transport {
        Some(c) if c.kind == transport::NONE => TransportChoice::OpenLoop,
        Some(c) => TransportChoice::Explicit(with_path(c.clone(), &at("transport"))),
        None if matches!(control, Some(FlowControl::ByDefault | FlowControl::Needed(_))) => TransportChoice::FromPair,
        None => TransportChoice::OpenLoop,
    };
    match (control, &transport) {
        (Some(FlowControl::Needed(why)), TransportChoice::OpenLoop) => pb.add(&at("transport"), why),
        (Some(FlowControl::Refused(why)), TransportChoice::Explicit(_)) => pb.add(&at("transport"), why),
        // (an unknown app, reported already, says nothing about flow control)
        (Some(_), TransportChoice::OpenLoop) if f.window.is_some() => {
            pb.add(&at("window"), "`window` applies only to flow-controlled flows")
        }
        _ => {}
    }
    let refused = matches!(control, Some(FlowControl::Refused(_)));
    let acks = f.acks.unwrap_or(transport != TransportChoice::OpenLoop || refused);
    if !acks && transport != TransportChoice::OpenLoop {
        pb.add(&at("acks"), "a flow-controlled flow needs its ACKs");
    }
    if pb.0.len() > before {
        return None;
    }
    // TCP for any flow with flow control (all are window-based with ACKs), UDP for open loop
    let app = app?;
    let payload_size = app.payload_size();
    let header_bytes = headers.bytes(transport != TransportChoice::OpenLoop);
    let packet_size = payload_size.saturating_add(header_bytes);
    let ack_size = if headers == Headers::None { ack_size } else { header_bytes };
    let data_route = data_route?;
    Some(FlowSpec {
        name: name.to_string(),
        src,
        dst,
        app,
        transport,
        window: f.window,
        packet_size,
        ack_size,
        headers,
        payload_size,
        start,
        start_jitter,
        stop: f.stop,
        acks,
        weight,
        priority: f.priority.unwrap_or(0),
        forwarding,
        ack_route: graph.reverse(&data_route),
        data_route,
        draw: None,
    })
}

/// Why `ack_size` may not be given with `headers`; `run_wide` when the headers are `[run]`'s.
fn ack_size_with_headers(headers: Headers, run_wide: bool) -> String {
    let from = if run_wide { " (from [run] headers)" } else { "" };
    format!(
        "`ack_size` cannot be set with headers = \"{}\"{from}: an ACK is then its headers alone ({} bytes \
         for TCP); remove `ack_size`, or give whole sizes with headers = \"none\"",
        headers.name(),
        headers.bytes(true)
    )
}

/// Lets consecutive flows that name equal transport tables hold one copy: a generated scenario
/// repeats the same table on every flow, and each parsed copy cost about 1.5 kB a flow.
pub(super) fn share_transport_tables(flows: &mut [FlowSpec]) {
    let mut last: Option<&Arc<Params>> = None;
    for flow in flows {
        if let TransportChoice::Explicit(c) = &mut flow.transport {
            match last {
                Some(table) if *table == c.params => c.params = Arc::clone(table),
                _ => {}
            }
            last = Some(&c.params);
        }
    }
}

/// Flow `name` as the run has it: one flow, or, for an application that is a group of
/// transfers (`web`), one flow per transfer, `name#0`, `name#1`, ... over the same path, each a
/// fresh connection running the group's bulk application, whose starts and sizes are drawn
/// at run time (`Scenario::draws`). `room` is how many more flows the run may have.
pub(super) fn build_flows(name: &str, f: &RawFlow, net: &Network, room: usize, pb: &mut Problems) -> Vec<FlowSpec> {
    let Some(flow) = build_flow(name, f, net, pb) else { return vec![] };
    let Some(group) = flow.app.transfers().cloned() else { return vec![flow] };
    if group.count as usize > room {
        // refused before any transfer is built
        let before = limits::MAX_FLOWS - room;
        let e = limits::check(before + group.count as usize, limits::MAX_FLOWS, "flows").unwrap_err();
        let counting =
            if before > 0 { format!(" (counting the {before} flows before these transfers)") } else { "".into() };
        pb.add(&["flows", name, "transfers"], format!("{e}{counting}"));
        return vec![];
    }
    let draw =
        Draw { group: name.to_string(), mean_gap: group.mean_gap, mean_size: group.mean_size, shape: group.shape };
    let each = FlowSpec { app: group.each, draw: Some(draw), ..flow };
    (0..group.count).map(|k| FlowSpec { name: format!("{name}#{k}"), ..each.clone() }).collect()
}

pub(super) fn explicit_route(
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

#[cfg(test)]
mod tests {
    use super::super::{net, one, problems};

    fn flow(f: &str) -> Vec<(String, String)> {
        problems(&net("", &format!("[flows]\nf = {{ {f} }}\n")))
    }

    #[test]
    fn a_flow_is_checked_field_by_field() {
        assert_eq!(flow("src = \"a\", dst = \"b\", app = \"ftp\""), vec![]);
        assert_eq!(
            flow("src = \"a\", dst = \"a\", app = \"ftp\""),
            one("flows.f.dst", "a flow needs two different nodes; src and dst are both `a`")
        );
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", start = \"20s\""),
            one("flows.f.start", "the flow starts at 20s, after the run ends (10s)")
        );
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", window = 0"),
            one("flows.f.window", "a window must be at least 1 packet")
        );
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", weight = -1.0"),
            one("flows.f.weight", "a weight must be a positive number")
        );
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", transport = \"none\""),
            one("flows.f.transport", "an FTP needs flow control; use app = \"firehose\" for a source that ignores it")
        );
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"files\", arrivals = 2.0, size = \"1KB\", transport = \"none\""),
            one(
                "flows.f.transport",
                "the connections of app `files` need flow control: each ends when its file is acknowledged"
            )
        );
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"cbr\", rate = \"1kbps\", window = 3"),
            one("flows.f.window", "`window` applies only to flow-controlled flows")
        );
    }

    #[test]
    fn a_start_jitter_may_not_carry_a_start_past_the_run() {
        assert_eq!(flow("src = \"a\", dst = \"b\", app = \"ftp\", start = \"9s\", start_jitter = \"1s\""), vec![]);
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", start = \"9s\", start_jitter = \"2s\""),
            one("flows.f.start_jitter", "flow `f` could start as late as 9s + 2s, after the run ends (10s)")
        );
        let run_wide =
            problems(&net("start_jitter = \"11s\"", "[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\" }\n"));
        assert_eq!(
            run_wide,
            one("run.start_jitter", "flow `f` could start as late as 0s + 11s, after the run ends (10s)")
        );
    }

    #[test]
    fn under_headers_an_ack_is_the_headers_alone_and_no_ack_size_is_taken() {
        assert_eq!(flow("src = \"a\", dst = \"b\", app = \"ftp\", headers = \"ethernet\""), vec![]);
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", headers = \"ethernet\", ack_size = 66"),
            one(
                "flows.f.ack_size",
                "`ack_size` cannot be set with headers = \"ethernet\": an ACK is then its headers alone (66 bytes \
                 for TCP); remove `ack_size`, or give whole sizes with headers = \"none\""
            )
        );
        assert_eq!(flow("src = \"a\", dst = \"b\", app = \"ftp\", headers = \"none\", ack_size = 66"), vec![]);
    }

    #[test]
    fn an_application_is_given_only_its_own_parameters() {
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", rate = \"1Mbps\""),
            one("flows.f.rate", "`rate` does not apply to app `ftp` (it takes: size)")
        );
        assert_eq!(flow("src = \"a\", dst = \"b\", app = \"cbr\""), one("flows.f.rate", "app `cbr` needs `rate`"));
    }

    #[test]
    fn an_explicit_route_follows_links_from_src_to_dst() {
        assert_eq!(flow("src = \"a\", dst = \"b\", app = \"ftp\", route = [\"a\", \"gw\", \"b\"]"), vec![]);
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", route = [\"a\", \"b\"]"),
            one("flows.f.route", "no link joins `a` and `b`")
        );
        assert_eq!(
            flow("src = \"a\", dst = \"b\", app = \"ftp\", route = [\"gw\", \"b\"]"),
            one("flows.f.route", "a route lists the nodes from `src` to `dst`, both included")
        );
    }

    #[test]
    fn a_web_group_expands_into_its_transfers() {
        let text = net("", "[flows]\nw = { src = \"a\", dst = \"b\", app = \"web\", transfers = 3, mean_gap = \"1s\", size = \"10KB\" }\n");
        let sc = crate::scenario::Scenario::parse(&text, "t.toml", &[]).unwrap();
        let names: Vec<&str> = sc.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, vec!["w#0", "w#1", "w#2"]);
        assert!(sc.flows.iter().all(|f| f.draw.is_some()));
    }
}
