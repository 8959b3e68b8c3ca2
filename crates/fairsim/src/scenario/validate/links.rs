//! Links and their two ports: endpoints, rates, delays, buffers, each direction's overrides.

use super::*;

pub(super) fn build_links(
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
    let mut degree: HashMap<NodeId, usize> = HashMap::new();
    for l in &links {
        *degree.entry(l.a).or_default() += 1;
        *degree.entry(l.b).or_default() += 1;
    }
    let mut named: HashMap<String, usize> = HashMap::new();
    for p in &ports {
        *named.entry(p.name.clone()).or_default() += 1;
    }
    for p in &mut ports {
        p.host = degree[&p.from] == 1;
        if named[&p.name] > 1 {
            p.name = format!("{} ({})", p.name, links[p.link].name);
        }
    }
    (links, ports)
}

#[cfg(test)]
mod tests {
    use super::super::{net, one, problems};

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
}
