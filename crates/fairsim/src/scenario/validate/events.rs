//! `[[events]]`: changes of the network during the run. Each names what changes (a `link`, both
//! directions; a `port`, one; a `node`, every link it has), when (`at`, before the run's end)
//! and how (`action`: `down`, `up`, or `rate` with its `rate`).

use super::problems::Problems;
use super::run::missing_port;
use crate::error::unknown;
use crate::limits;
use crate::net::{NodeId, PortId};
use crate::scenario::schema::{RawAction, RawEvent};
use crate::scenario::spec::{port_named, LinkSpec, NetworkAction, NetworkEvent, PortSpec};
use crate::units::Time;

/// What an event may change.
pub(super) struct Network<'a> {
    pub links: &'a [LinkSpec],
    pub ports: &'a [PortSpec],
    pub nodes: &'a [String],
}

pub(super) fn build_events(
    raw: &[RawEvent],
    duration: Time,
    detection: Time,
    net: &Network,
    pb: &mut Problems,
) -> Vec<NetworkEvent> {
    if let Err(e) = limits::check(raw.len(), limits::MAX_EVENTS, "events") {
        pb.add(&["events"], e);
        return vec![];
    }
    raw.iter().enumerate().filter_map(|(i, e)| build_event(&i.to_string(), e, duration, detection, net, pb)).collect()
}

fn build_event(
    i: &str,
    e: &RawEvent,
    duration: Time,
    detection: Time,
    net: &Network,
    pb: &mut Problems,
) -> Option<NetworkEvent> {
    let before = pb.0.len();
    if e.at >= duration {
        pb.add(&["events", i, "at"], format!("an event at {} comes after the run, which ends at {duration}", e.at));
    }
    let action = match (e.action, e.rate) {
        (RawAction::Rate, Some(rate)) => Some(NetworkAction::Rate(rate)),
        (RawAction::Rate, None) => {
            pb.add(&["events", i, "rate"], "`action = \"rate\"` needs the new `rate` (`rate = \"1Gbps\"`)");
            None
        }
        (_, Some(_)) => {
            pb.add(
                &["events", i, "rate"],
                "`rate` goes with `action = \"rate\"`; a link that goes down or up keeps its own",
            );
            None
        }
        (RawAction::Down, None) => Some(NetworkAction::Down),
        (RawAction::Up, None) => Some(NetworkAction::Up),
    };
    let target = target(i, e, net, pb);
    if pb.0.len() > before {
        return None;
    }
    let (target, ports) = target?;
    Some(NetworkEvent { at: e.at, target, ports, action: action?, detection: e.detection.unwrap_or(detection) })
}

/// What event `i` names, as (`link`, `port` or `node`, the name) and the ports it changes.
#[allow(clippy::type_complexity)]
fn target(i: &str, e: &RawEvent, net: &Network, pb: &mut Problems) -> Option<((&'static str, String), Vec<PortId>)> {
    let named: Vec<(&'static str, &String)> = [("link", &e.link), ("port", &e.port), ("node", &e.node)]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v.as_ref()?)))
        .collect();
    let (key, name) = match named.as_slice() {
        [one] => *one,
        [] => {
            pb.add(
                &["events", i],
                "an event names what changes: a `link` (both directions), a `port` (one) or a `node`",
            );
            return None;
        }
        [_, (second, _), ..] => {
            pb.add(&["events", i, second], "an event names one `link`, `port` or `node`");
            return None;
        }
    };
    let found = match key {
        "link" => link_ports(name, net),
        "port" => port_named(net.ports, net.nodes, net.links, name).map(|p| vec![PortId::from_idx(p)]),
        _ => node_ports(name, net),
    };
    match found {
        Some(ports) if !ports.is_empty() => Some(((key, name.clone()), ports)),
        Some(_) => {
            pb.add(&["events", i, key], format!("node `{name}` has no links"));
            None
        }
        None => {
            pb.add(&["events", i, key], missing(key, name, net));
            None
        }
    }
}

/// The two ports of the link called `name`, or of the link whose port is called `name`.
fn link_ports(name: &str, net: &Network) -> Option<Vec<PortId>> {
    let link = net
        .links
        .iter()
        .position(|l| l.name == name)
        .or_else(|| port_named(net.ports, net.nodes, net.links, name).map(|p| net.ports[p].link()))?;
    Some(ports_where(net, |p| p.link() == link))
}

fn node_ports(name: &str, net: &Network) -> Option<Vec<PortId>> {
    let n = NodeId::from_idx(net.nodes.iter().position(|n| n == name)?);
    Some(ports_where(net, |p| p.from == n || p.to == n))
}

fn ports_where(net: &Network, keep: impl Fn(&PortSpec) -> bool) -> Vec<PortId> {
    net.ports.iter().enumerate().filter(|(_, p)| keep(p)).map(|(i, _)| PortId::from_idx(i)).collect()
}

/// Why no `key` (`link`, `port`, `node`) is called `name`.
fn missing(key: &str, name: &str, net: &Network) -> String {
    match key {
        "port" => missing_port(name, net.nodes, net.links, net.ports),
        // a name written as a port's is looked up among the ports
        "link" if name.contains("->") => {
            unknown("port", name, &net.ports.iter().map(|p| p.name(net.nodes, net.links)).collect::<Vec<_>>())
        }
        "link" => unknown("link", name, &net.links.iter().map(|l| l.name.as_str()).collect::<Vec<_>>()),
        _ => unknown("node", name, net.nodes),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{net, one, problems};
    use crate::scenario::spec::NetworkAction;
    use crate::units::{Rate, Time};

    const FLOW: &str = "[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\" }\n";

    /// The network with `events` after its flows, and `run` in its run.
    fn with(run: &str, events: &str) -> String {
        format!("{}{events}", net(run, FLOW))
    }

    #[test]
    fn an_event_names_a_link_a_port_or_a_node_and_changes_their_ports() {
        let text = with(
            "failure_detection = \"2ms\"",
            "[[events]]\nat = \"1s\"\nlink = \"out\"\naction = \"down\"\n\
             [[events]]\nat = \"2s\"\nlink = \"b->gw\"\naction = \"up\"\ndetection = \"0s\"\n\
             [[events]]\nat = \"3s\"\nport = \"gw->b\"\naction = \"rate\"\nrate = \"500kbps\"\n\
             [[events]]\nat = \"4s\"\nnode = \"gw\"\naction = \"down\"\n",
        );
        let sc = crate::Scenario::parse(&text, "t.toml", &[]).unwrap();
        let ports = |e: usize| sc.events[e].ports.iter().map(|p| sc.port_name(p.idx())).collect::<Vec<_>>();
        assert_eq!(ports(0), ["gw->b", "b->gw"]);
        assert_eq!(ports(1), ["gw->b", "b->gw"], "a port's name in `link` is its link's");
        assert_eq!(ports(2), ["gw->b"]);
        assert_eq!(ports(3), ["a->gw", "gw->a", "gw->b", "b->gw"]);
        assert_eq!(sc.events[2].action, NetworkAction::Rate(Rate(500_000)));
        assert_eq!(sc.events[0].target, ("link", "out".to_string()));
        assert_eq!(
            sc.events.iter().map(|e| e.detection).collect::<Vec<_>>(),
            [Time::from_millis(2), Time::ZERO, Time::from_millis(2), Time::from_millis(2)]
        );
        let plain = crate::Scenario::parse(
            &with("", "[[events]]\nat = \"1s\"\nlink = \"out\"\naction = \"down\"\n"),
            "t.toml",
            &[],
        );
        assert_eq!(plain.unwrap().events[0].detection, crate::scenario::DEFAULT_FAILURE_DETECTION);
    }

    #[test]
    fn a_bad_event_is_refused_at_its_field() {
        let event = |body: &str| problems(&with("", &format!("[[events]]\n{body}\n")));
        let unknown_link = event("at = \"1s\"\nlink = \"outt\"\naction = \"down\"");
        assert_eq!(unknown_link.len(), 1, "{unknown_link:?}");
        assert_eq!(unknown_link[0].0, "events.0.link");
        assert!(unknown_link[0].1.starts_with("unknown link `outt`; did you mean `out`?"), "{unknown_link:?}");
        let unknown_port = event("at = \"1s\"\nlink = \"gw->bb\"\naction = \"down\"");
        assert!(unknown_port[0].1.starts_with("unknown port `gw->bb`; did you mean `gw->b`?"), "{unknown_port:?}");
        let a_link_as_port = event("at = \"1s\"\nport = \"out\"\naction = \"down\"");
        assert!(a_link_as_port[0].1.starts_with("`out` is a link, not a port"), "{a_link_as_port:?}");
        assert_eq!(
            event("at = \"10s\"\nlink = \"out\"\naction = \"down\""),
            one("events.0.at", "an event at 10s comes after the run, which ends at 10s")
        );
        assert_eq!(
            event("at = \"1s\"\nlink = \"out\"\naction = \"rate\""),
            one("events.0.rate", "`action = \"rate\"` needs the new `rate` (`rate = \"1Gbps\"`)")
        );
        assert_eq!(
            event("at = \"1s\"\nlink = \"out\"\nnode = \"gw\"\naction = \"down\""),
            one("events.0.node", "an event names one `link`, `port` or `node`")
        );
        assert_eq!(
            event("at = \"1s\"\naction = \"down\""),
            one("events.0", "an event names what changes: a `link` (both directions), a `port` (one) or a `node`")
        );
        let unknown_node = event("at = \"1s\"\nnode = \"gx\"\naction = \"down\"");
        assert!(unknown_node[0].1.starts_with("unknown node `gx`; did you mean `gw`?"), "{unknown_node:?}");
    }
}
