//! Protocol pairs, and the flows a pair's own transports name.

use super::problems::{with_path, Problems};
use crate::error::unknown;
use crate::net::FlowId;
use crate::scenario::schema::{RawFlow, RawScenario};
use crate::scenario::spec::{FlowSpec, PairSpec, TransportChoice, DEFAULT_PAIR};
use crate::transport;

pub(super) fn build_pairs(raw: &RawScenario, pb: &mut Problems) -> Vec<PairSpec> {
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
pub(super) fn check_pair_transports(
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
pub(super) fn flows_named(flows: &[FlowSpec], name: &str) -> Vec<FlowId> {
    let is = |f: &FlowSpec| f.name == name || f.draw.as_ref().is_some_and(|d| d.group == name);
    flows.iter().enumerate().filter(|(_, f)| is(f)).map(|(i, _)| FlowId::from_idx(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::super::{net, one, problems};

    const FLOWS: &str = "[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\" }\nu = { src = \"a\", dst = \"b\", app = \"cbr\", rate = \"1kbps\" }\n";

    #[test]
    fn a_pair_names_real_flow_controlled_flows() {
        let pairs = |p: &str| problems(&net("", &format!("{FLOWS}[pairs]\n{p}\n")));
        assert_eq!(pairs("\"G\" = { transport = \"generic\", transports = { f = \"jk\" } }"), vec![]);
        assert_eq!(
            pairs("\"N\" = { transport = \"none\" }"),
            one("pairs.N.transport", "a pair's transport must be a flow-control protocol, not `none`")
        );
        assert_eq!(
            pairs("\"O\" = { transports = { f = \"none\" } }"),
            one(
                "pairs.O.transports.f",
                "a pair cannot make a flow open loop; give the flow `transport = \"none\"` instead"
            )
        );
        let unknown = pairs("\"X\" = { transports = { g = \"jk\" } }");
        assert_eq!(unknown[0].0, "pairs.X.transports.g");
        assert!(unknown[0].1.starts_with("unknown flow `g`"), "{unknown:?}");
        let open = pairs("\"Y\" = { transports = { u = \"jk\" } }");
        assert_eq!(open[0].0, "pairs.Y.transports.u", "an open-loop flow cannot be given flow control: {open:?}");
    }
}
