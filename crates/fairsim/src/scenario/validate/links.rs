//! Links and their two ports: endpoints, rates, delays, buffers, loss, each direction's overrides.

use super::nodes::NodeLookup;
use super::problems::{with_path, Problems};
use crate::net::NodeId;
use crate::node::LossModel;
use crate::scenario::schema::RawLink;
use crate::scenario::share::Recent;
use crate::scenario::spec::{LinkSpec, PortSpec};
use crate::scenario::topology::Places;
use crate::units::{BufferLimit, Time};
use std::collections::HashMap;
use std::sync::Arc;

/// The links and their ports. A port's discipline is told where the file wrote it (`places`: a
/// generated link's at its tier), and ports alike share one (`Recent`).
pub(super) fn build_links(
    raw: &indexmap::IndexMap<String, RawLink>,
    node: &NodeLookup,
    places: &Places,
    pb: &mut Problems,
) -> (Vec<LinkSpec>, Vec<PortSpec>) {
    let mut links = Vec::with_capacity(raw.len());
    let mut ports: Vec<PortSpec> = Vec::with_capacity(2 * raw.len());
    let mut labels: Vec<String> = Vec::with_capacity(2 * raw.len());
    let mut qdiscs = Recent::default();
    for (name, l) in raw {
        let n = name.as_str();
        // optional in the schema only for changes to generated links, which have them by now
        let (Some(between), Some(rate)) = (&l.between, l.rate) else {
            let missing = if l.between.is_none() { "between" } else { "rate" };
            pb.add(&["links", n], format!("missing field `{missing}`"));
            continue;
        };
        if between.len() != 2 {
            pb.add(&["links", n, "between"], format!("a link joins exactly two nodes; found {}", between.len()));
            continue;
        }
        let a = node(&between[0], &["links", n, "between", "0"], pb);
        let b = node(&between[1], &["links", n, "between", "1"], pb);
        let (Some(a), Some(b)) = (a, b) else { continue };
        if a == b {
            pb.add(&["links", n, "between"], format!("a link cannot join `{}` to itself", between[0]));
            continue;
        }
        let link = u32::try_from(links.len()).expect("fewer links than 2^32 (limits::MAX_PORTS)");
        links.push(LinkSpec { name: name.clone(), a, b });
        check_loss(l.loss.as_ref(), &["links", n, "loss"], pb);
        let (na, nb) = (&between[0], &between[1]);
        for (dir, from, to, label, over) in
            [("forward", a, b, format!("{na}->{nb}"), &l.forward), ("reverse", b, a, format!("{nb}->{na}"), &l.reverse)]
        {
            let over = over.clone().unwrap_or_default();
            let written = match (&over.qdisc, &l.qdisc) {
                (Some(q), _) => Some((q, &["links", n, dir, "qdisc"][..])),
                (None, Some(q)) => Some((q, &["links", n, "qdisc"][..])),
                _ => None,
            };
            let qdisc = written.map(|(q, at)| {
                let mut q = with_path(q.clone(), at);
                places.tell(&mut q.path);
                qdiscs.get(q, |q, _| Arc::new(q.clone()))
            });
            check_loss(over.loss.as_ref(), &["links", n, dir, "loss"], pb);
            labels.push(label);
            ports.push(PortSpec {
                link,
                from,
                to,
                rate: over.rate.unwrap_or(rate),
                delay: over.delay.or(l.delay).unwrap_or(Time::ZERO),
                buffer: over.buffer.or(l.buffer).unwrap_or(BufferLimit::Unlimited),
                buffer_includes_line: over.buffer_includes_line.or(l.buffer_includes_line).unwrap_or(false),
                qdisc,
                host: false,
                parallel: false,
                loss: over.loss.or(l.loss).map(Box::new),
            });
        }
    }
    // hosts' access ports; parallel links get the link's name in their port names
    let mut degree: HashMap<NodeId, usize> = HashMap::new();
    for l in &links {
        *degree.entry(l.a).or_default() += 1;
        *degree.entry(l.b).or_default() += 1;
    }
    // ports of the same name (over parallel links, or nodes whose names hold `->`) say their links'
    let mut named: HashMap<&str, usize> = HashMap::new();
    labels.iter().for_each(|l| *named.entry(l).or_default() += 1);
    for (p, label) in ports.iter_mut().zip(&labels) {
        p.host = degree[&p.from] == 1;
        p.parallel = named[label.as_str()] > 1;
    }
    (links, ports)
}

/// Reports a loss model's probability that is not one, under the model's field at `path`.
fn check_loss(model: Option<&LossModel>, path: &[&str], pb: &mut Problems) {
    if let Some((field, why)) = model.and_then(LossModel::problem) {
        pb.add(&[path, &[field]].concat(), why);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{net, one, problems};
    use crate::node::LossModel;

    const FLOW: &str = "[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\" }\n";

    #[test]
    fn a_link_joins_two_known_distinct_nodes() {
        assert_eq!(problems(&net("", FLOW)), vec![]);
        let text = net("", &format!("loop = {{ between = [\"gw\", \"gw\"], rate = \"1Mbps\" }}\n{FLOW}"));
        assert_eq!(problems(&text), one("links.loop.between", "a link cannot join `gw` to itself"));
        let three = net("", &format!("tri = {{ between = [\"a\", \"gw\", \"b\"], rate = \"1Mbps\" }}\n{FLOW}"));
        assert_eq!(problems(&three), one("links.tri.between", "a link joins exactly two nodes; found 3"));
        let unknown = problems(&net("", &format!("x = {{ between = [\"a\", \"c\"], rate = \"1Mbps\" }}\n{FLOW}")));
        assert_eq!(unknown.len(), 1);
        assert_eq!(unknown[0].0, "links.x.between.1");
        assert!(unknown[0].1.starts_with("unknown node `c`"), "{unknown:?}");
    }

    #[test]
    fn a_port_is_named_by_its_nodes_and_by_its_link_where_another_joins_them_too() {
        let spare = format!("spare = {{ between = [\"b\", \"gw\"], rate = \"1Mbps\" }}\n{FLOW}");
        let sc = crate::Scenario::parse(&net("", &spare), "t.toml", &[]).unwrap();
        let names: Vec<String> = (0..sc.ports.len()).map(|p| sc.port_name(p)).collect();
        let expected = ["a->gw", "gw->a", "gw->b (out)", "b->gw (out)", "b->gw (spare)", "gw->b (spare)"];
        assert_eq!(names, expected);
        for (p, name) in names.iter().enumerate() {
            assert_eq!(sc.port_named(name), Some(p), "{name}");
        }
        for other in ["gw->b", "b->gw (in)", "a->gw (in)", "a->g", "a->gw ", "", "->"] {
            assert_eq!(sc.port_named(other), None, "{other}");
        }
        // node names may hold `->`: two ports of the same name then say their links'
        let text = "nodes = [\"a\", \"b->c\", \"a->b\", \"c\"]\n[run]\nduration = \"1s\"\n[links]\n\
                    one = { between = [\"a\", \"b->c\"], rate = \"1Mbps\" }\n\
                    two = { between = [\"a->b\", \"c\"], rate = \"1Mbps\" }\n\
                    [flows]\nf = { src = \"a\", dst = \"b->c\", app = \"ftp\" }\n";
        let sc = crate::Scenario::parse(text, "t.toml", &[]).unwrap();
        let names: Vec<String> = (0..sc.ports.len()).map(|p| sc.port_name(p)).collect();
        assert_eq!(names, ["a->b->c (one)", "b->c->a", "a->b->c (two)", "c->a->b"]);
        assert_eq!(sc.port_named("a->b->c (two)"), Some(2));
        assert_eq!(sc.port_named("a->b->c"), None);
    }

    /// The problems of the network with `loss` written into link `out` (`{ ... }` fields).
    fn with_loss(fields: &str) -> Vec<(String, String)> {
        let link = format!("out = {{ between = [\"gw\", \"b\"], rate = \"1Mbps\", {fields} }}");
        problems(&net("", FLOW).replace("out = { between = [\"gw\", \"b\"], rate = \"1Mbps\" }", &link))
    }

    #[test]
    fn a_loss_model_is_read_for_a_link_and_each_direction() {
        let text = net("", FLOW).replace(
            "out = { between = [\"gw\", \"b\"], rate = \"1Mbps\" }",
            "out = { between = [\"gw\", \"b\"], rate = \"1Mbps\", loss = { model = \"bernoulli\", rate = 0.01 }, \
             reverse = { loss = { model = \"gilbert_elliott\", p = 0.01, r = 0.3 } } }",
        );
        let sc = crate::Scenario::parse(&text, "t.toml", &[]).unwrap();
        let loss = |name: &str| sc.ports[sc.port_named(name).unwrap()].loss.as_deref().copied();
        assert_eq!(loss("a->gw"), None);
        assert_eq!(loss("gw->b"), Some(LossModel::Bernoulli { rate: 0.01 }));
        let ge = LossModel::GilbertElliott { p: 0.01, r: 0.3, loss_good: 0.0, loss_bad: 1.0 };
        assert_eq!(loss("b->gw"), Some(ge), "a direction's model replaces the link's; the defaults filled in");
    }

    #[test]
    fn a_bad_loss_model_is_named_with_its_field() {
        assert_eq!(with_loss("loss = { model = \"bernoulli\", rate = 0.5 }"), vec![]);
        assert_eq!(
            with_loss("loss = { model = \"bernoulli\", rate = 1.5 }"),
            one("links.out.loss.rate", "`rate` is a probability, between 0 and 1; found 1.5")
        );
        assert_eq!(
            with_loss("forward = { loss = { model = \"gilbert_elliott\", p = 0.1, r = -0.2 } }"),
            one("links.out.forward.loss.r", "`r` is a probability, between 0 and 1; found -0.2")
        );
        let unknown_model = with_loss("loss = { model = \"uniform\", rate = 0.1 }");
        assert_eq!(unknown_model.len(), 1, "{unknown_model:?}");
        let expected = "unknown variant `uniform`, expected `bernoulli` or `gilbert_elliott`";
        assert_eq!(unknown_model, one("links.out.loss.model", expected));
        assert_eq!(
            with_loss("loss = { model = \"bernoulli\", rate = 0.1, burst = 3 }"),
            one("links.out.loss.burst", "unknown field `burst`, expected `rate`")
        );
        assert_eq!(with_loss("loss = { rate = 0.1 }"), one("links.out.loss.model", "missing field `model`"));
        assert_eq!(with_loss("loss = { model = \"bernoulli\" }"), one("links.out.loss.rate", "missing field `rate`"));
        let not_a_table = with_loss("loss = \"bernoulli\"");
        assert_eq!(not_a_table.len(), 1, "{not_a_table:?}");
        assert!(not_a_table[0].1.contains("{ model = \"bernoulli\", rate = 0.01 }"), "{not_a_table:?}");
        let not_a_number = with_loss("loss = { model = \"bernoulli\", rate = \"1%\" }");
        assert_eq!(not_a_number.len(), 1, "{not_a_number:?}");
    }
}
