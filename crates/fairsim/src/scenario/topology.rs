//! Topologies written as generators: a `[topology]` table expands into nodes and links
//! before validation, beside (and before) those the file lists itself.
//!
//! - `kind = "fat_tree"`: the k-ary fat-tree of Al-Fares, Loukissas & Vahdat, "A Scalable,
//!   Commodity Data Center Network Architecture", SIGCOMM 2008, §3: k pods, each of k/2 edge
//!   (ToR) and k/2 aggregation switches, (k/2)² core switches, k/2 hosts per ToR (k³/4 hosts).
//!   Aggregation switch j of every pod connects to cores j·k/2 … j·k/2 + k/2 − 1. More hosts per
//!   ToR (`hosts_per_tor`) oversubscribe the edge.
//! - `kind = "leaf_spine"`: `leaves` ToRs, each with `hosts_per_leaf` hosts and a link to each of
//!   `spines` spine switches (a two-tier Clos).
//!
//! Names: hosts `h0`, `h1`, … (host i under ToR ⌊i / hosts per ToR⌋, htsim's numbering, so its
//! connection matrices map one to one), `tor0`…, `agg0`…, `core0`… (fat-tree), `leaf0`…, `spine0`…
//! (leaf-spine). Links: `h3` (host to its ToR), `tor2-agg1`, `agg1-core4`, `leaf0-spine3`. Each
//! tier's links take that tier's table (`hosts`, `tor_agg`, `agg_core`, `leaf_spine`:
//! `rate`, `delay`, `buffer`, `buffer_includes_line`, `qdisc`, `loss`, and `forward` and `reverse` for
//! the direction up, away from the host, and down); a tier without one takes the `hosts` tier's
//! line (`rate`, `delay`, `buffer`, `buffer_includes_line`, `qdisc`) but not its `forward` and
//! `reverse`: on the hosts tier those are a host's own interface and its ToR's port towards it,
//! which a switch-to-switch link does not have. A tier table that leaves one of the line's keys
//! out takes the `hosts` tier's for it: `tor_agg = { rate = "40Gbps" }` is the hosts' line at
//! 40 Gb/s (the same delay, buffer and discipline), not a line without delay, buffer limit or
//! ECN marking.
//!
//! A flow takes one shortest path, the first in the links' order, as in any scenario, unless its
//! `forwarding` has the switches choose (`net/multipath.rs`).

use super::link_changes::{wrote, Written};
use super::problem::Problem;
use super::schema::{RawLink, RawTier, RawTopology};
use indexmap::IndexMap;
use std::collections::{HashMap, HashSet};

/// The largest fat-tree: k = 64 has 65,536 hosts and 5,120 switches.
pub const MAX_K: u32 = 64;
/// The most leaves, spines or hosts under one leaf.
pub const MAX_LEAF_SPINE: u32 = 4096;
/// The most hosts a generated topology may have.
pub const MAX_HOSTS: u64 = 1 << 17;
/// The most links it may have: the largest fat-tree (k = 64) has 196,608. Checked before any is
/// made, since a leaf-spine's grow as leaves × spines.
pub const MAX_LINKS: u64 = 1 << 18;

/// What a `[topology]` generates: its nodes and links, in that order (hosts, then switches tier
/// by tier), and the tier each link was made from, so that a problem with a link's component is
/// told once, at the tier the user wrote (`at_tiers`).
#[derive(Debug, Default)]
pub struct Expanded {
    pub nodes: Vec<String>,
    pub links: IndexMap<String, RawLink>,
    /// Link name -> its tier's key (`hosts`, `tor_agg`, `agg_core`, `leaf_spine`): the table it
    /// took, which is `hosts` for a tier the file does not give.
    pub tiers: Tiers,
}

/// Generated link name -> the key of the tier it was made from.
pub type Tiers = HashMap<String, &'static str>;

/// Expands `t` (module documentation).
pub fn expand(t: &RawTopology) -> Result<Expanded, Problem> {
    let mut g = Expanded::default();
    match t.kind.as_str() {
        "fat_tree" => fat_tree(t, &mut g)?,
        "leaf_spine" => leaf_spine(t, &mut g)?,
        other => return Err(problem(&["kind"], crate::error::unknown("topology", other, &["fat_tree", "leaf_spine"]))),
    }
    Ok(g)
}

impl Expanded {
    fn nodes(&mut self, prefix: &str, count: u32) {
        self.nodes.extend((0..count).map(|i| format!("{prefix}{i}")));
    }

    /// A link of the tier `(key, tier, own)`, its line's unset keys the `hosts` tier's.
    fn link(
        &mut self,
        name: String,
        a: String,
        b: String,
        (key, tier, own): (&'static str, &RawTier, bool),
        hosts: &RawTier,
    ) {
        let link = RawLink {
            between: Some(vec![a, b]),
            rate: Some(tier.rate),
            delay: tier.delay.or(hosts.delay),
            buffer: tier.buffer.or(hosts.buffer),
            buffer_includes_line: tier.buffer_includes_line.or(hosts.buffer_includes_line),
            qdisc: tier.qdisc.clone().or_else(|| hosts.qdisc.clone()),
            // a link's own, as its directions are: loss on the hosts' links is not the uplinks'
            loss: tier.loss.filter(|_| own),
            forward: tier.forward.clone().filter(|_| own),
            reverse: tier.reverse.clone().filter(|_| own),
        };
        self.tiers.insert(name.clone(), key);
        self.links.insert(name, link);
    }
}

/// Where a generated link's keys are told (`Places::tell`): its tiers and the keys the file's
/// changes of its links wrote.
pub struct Places<'a> {
    pub tiers: &'a Tiers,
    pub written: &'a Written,
}

impl Places<'_> {
    /// `path` within a generated link (`links.tor0-agg1.qdisc`) told at its tier instead
    /// (`topology.tor_agg.qdisc`), unless the file's change of the link wrote that key: a
    /// tier's bad component would otherwise be reported for every link of the tier, and at no
    /// line of the file; and the tier's component, told at the tier, is one value that every
    /// port of the tier shares (`scenario::share`).
    pub fn tell(&self, path: &mut Vec<String>) {
        if let [first, link, within @ ..] = path.as_slice() {
            let changed = self.written.get(link).is_some_and(|keys| wrote(keys, within));
            if let (true, false, Some(tier)) = (first == "links", changed, self.tiers.get(link)) {
                path.splice(..2, ["topology".to_string(), tier.to_string()]);
            }
        }
    }
}

/// `problems` told where the file wrote them (`Places::tell`), each once.
pub fn at_tiers(problems: Vec<Problem>, places: &Places) -> Vec<Problem> {
    let mut told = HashSet::new();
    problems
        .into_iter()
        .map(|mut p| {
            places.tell(&mut p.path);
            p
        })
        .filter(|p| told.insert((p.path.clone(), p.message.clone())))
        .collect()
}

/// The tier table `key`, or the `hosts` one if the file gives none; and whether it is the
/// tier's own (only its own table's `forward` and `reverse` apply: module documentation).
fn tier<'a>(t: &'a RawTopology, key: &'static str, given: Option<&'a RawTier>) -> (&'static str, &'a RawTier, bool) {
    given.map_or(("hosts", &t.hosts, key == "hosts"), |table| (key, table, true))
}

fn problem(path: &[&str], message: String) -> Problem {
    Problem { path: ["topology"].iter().chain(path).map(|s| s.to_string()).collect(), message }
}

/// `field`, which `kind` needs, within 1..=`max`.
/// A count the topology gives, read wide so that a negative or huge one is told its range (not
/// the range of the integer type it is kept in).
fn count(value: Option<i64>, field: &str, kind: &str, max: u32) -> Result<u32, Problem> {
    match value {
        None => Err(problem(&[field], format!("a `{kind}` topology needs `{field}`"))),
        Some(v) if v < 1 || v > i64::from(max) => Err(problem(&[field], format!("must be 1 to {max}, not {v}"))),
        Some(v) => Ok(v as u32),
    }
}

/// Keys that belong to the other kind are refused rather than ignored.
fn refuse(t: &RawTopology, keys: &[(&str, bool)]) -> Result<(), Problem> {
    match keys.iter().find(|(_, set)| *set) {
        Some((key, _)) => Err(problem(&[key], format!("a `{}` topology takes no `{key}`", t.kind))),
        None => Ok(()),
    }
}

/// `hosts` and `links` within what a generated topology may have.
fn size_limits(hosts: u64, links: u64) -> Result<(), Problem> {
    if hosts > MAX_HOSTS {
        return Err(problem(&[], format!("{hosts} hosts are more than a generated topology may have ({MAX_HOSTS})")));
    }
    if links > MAX_LINKS {
        return Err(problem(&[], format!("{links} links are more than a generated topology may have ({MAX_LINKS})")));
    }
    Ok(())
}

fn fat_tree(t: &RawTopology, g: &mut Expanded) -> Result<(), Problem> {
    let leaf_spine_keys = [
        ("leaves", t.leaves.is_some()),
        ("spines", t.spines.is_some()),
        ("hosts_per_leaf", t.hosts_per_leaf.is_some()),
        ("leaf_spine", t.leaf_spine.is_some()),
    ];
    refuse(t, &leaf_spine_keys)?;
    let k = count(t.k, "k", "fat_tree", MAX_K)?;
    if k % 2 == 1 {
        return Err(problem(&["k"], format!("must be even (k/2 switches a tier per pod), not {k}")));
    }
    let half = k / 2;
    let per_tor = match t.hosts_per_tor {
        None => half,
        given => count(given, "hosts_per_tor", "fat_tree", MAX_LEAF_SPINE)?,
    };
    let (tors, cores) = (k * half, half * half);
    let hosts = tors as u64 * per_tor as u64;
    size_limits(hosts, hosts + 2 * tors as u64 * half as u64)?;
    g.nodes("h", tors * per_tor);
    g.nodes("tor", tors);
    g.nodes("agg", tors); // as many as ToRs: k/2 a pod
    g.nodes("core", cores);
    let (hosts_tier, tor_agg) = (tier(t, "hosts", None), tier(t, "tor_agg", t.tor_agg.as_ref()));
    let agg_core = tier(t, "agg_core", t.agg_core.as_ref());
    for h in 0..tors * per_tor {
        g.link(format!("h{h}"), format!("h{h}"), format!("tor{}", h / per_tor), hosts_tier, &t.hosts);
    }
    for tor in 0..tors {
        let pod = tor / half;
        for agg in pod * half..(pod + 1) * half {
            g.link(format!("tor{tor}-agg{agg}"), format!("tor{tor}"), format!("agg{agg}"), tor_agg, &t.hosts);
        }
    }
    for agg in 0..tors {
        let j = agg % half; // its place in the pod names the cores it reaches
        for core in j * half..(j + 1) * half {
            g.link(format!("agg{agg}-core{core}"), format!("agg{agg}"), format!("core{core}"), agg_core, &t.hosts);
        }
    }
    Ok(())
}

fn leaf_spine(t: &RawTopology, g: &mut Expanded) -> Result<(), Problem> {
    let fat_tree_keys = [
        ("k", t.k.is_some()),
        ("hosts_per_tor", t.hosts_per_tor.is_some()),
        ("tor_agg", t.tor_agg.is_some()),
        ("agg_core", t.agg_core.is_some()),
    ];
    refuse(t, &fat_tree_keys)?;
    let leaves = count(t.leaves, "leaves", "leaf_spine", MAX_LEAF_SPINE)?;
    let spines = count(t.spines, "spines", "leaf_spine", MAX_LEAF_SPINE)?;
    let per_leaf = count(t.hosts_per_leaf, "hosts_per_leaf", "leaf_spine", MAX_LEAF_SPINE)?;
    let hosts = leaves as u64 * per_leaf as u64;
    size_limits(hosts, hosts + leaves as u64 * spines as u64)?;
    g.nodes("h", leaves * per_leaf);
    g.nodes("leaf", leaves);
    g.nodes("spine", spines);
    let (hosts_tier, up) = (tier(t, "hosts", None), tier(t, "leaf_spine", t.leaf_spine.as_ref()));
    for h in 0..leaves * per_leaf {
        g.link(format!("h{h}"), format!("h{h}"), format!("leaf{}", h / per_leaf), hosts_tier, &t.hosts);
    }
    for leaf in 0..leaves {
        for spine in 0..spines {
            g.link(format!("leaf{leaf}-spine{spine}"), format!("leaf{leaf}"), format!("spine{spine}"), up, &t.hosts);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{BufferLimit, Rate};
    use std::collections::HashMap;

    fn topology(text: &str) -> RawTopology {
        toml::from_str(text).unwrap()
    }

    /// Each node's number of links.
    fn degrees(links: &IndexMap<String, RawLink>) -> HashMap<String, usize> {
        let mut d = HashMap::new();
        for l in links.values() {
            for n in l.between.iter().flatten() {
                *d.entry(n.clone()).or_default() += 1;
            }
        }
        d
    }

    fn with_prefix<'a>(d: &'a HashMap<String, usize>, prefix: &'a str) -> impl Iterator<Item = usize> + 'a {
        d.iter().filter(move |(n, _)| n.strip_prefix(prefix).is_some_and(|r| r.parse::<u32>().is_ok())).map(|(_, c)| *c)
    }

    #[test]
    fn a_fat_tree_has_al_fares_counts_and_degrees() {
        for k in [2u32, 4, 8, 16] {
            let t = topology(&format!("kind = \"fat_tree\"\nk = {k}\nhosts = {{ rate = \"10Gbps\" }}"));
            let Expanded { nodes, links, .. } = expand(&t).unwrap();
            let (hosts, tors, aggs, cores) = (k * k * k / 4, k * k / 2, k * k / 2, k * k / 4);
            assert_eq!(nodes.len() as u32, hosts + tors + aggs + cores, "k = {k}");
            // each host one link; each ToR–agg pair of a pod one; each agg k/2 cores
            assert_eq!(links.len() as u32, hosts + tors * (k / 2) + aggs * (k / 2));
            let d = degrees(&links);
            assert!(with_prefix(&d, "h").all(|c| c == 1));
            // every switch has k ports: k/2 down, k/2 up (cores: k down)
            for prefix in ["tor", "agg", "core"] {
                assert!(with_prefix(&d, prefix).all(|c| c == k as usize), "{prefix}, k = {k}");
            }
            assert_eq!(with_prefix(&d, "core").count() as u32, cores);
        }
    }

    #[test]
    fn hosts_are_numbered_under_their_tor_as_htsim_numbers_them() {
        let t = topology("kind = \"fat_tree\"\nk = 4\nhosts = { rate = \"1Gbps\" }");
        let Expanded { links, .. } = expand(&t).unwrap();
        assert_eq!(links["h0"].between.as_deref().unwrap(), ["h0", "tor0"]);
        assert_eq!(links["h3"].between.as_deref().unwrap(), ["h3", "tor1"]);
        assert_eq!(links["h15"].between.as_deref().unwrap(), ["h15", "tor7"]);
        // agg j of each pod reaches cores j·k/2 …: agg 3 is j = 1 of pod 1
        assert!(links.contains_key("agg3-core2") && links.contains_key("agg3-core3"));
        assert!(!links.contains_key("agg3-core0"));
    }

    #[test]
    fn more_hosts_per_tor_oversubscribe_and_tiers_take_their_own_links() {
        let t = topology(
            "kind = \"fat_tree\"\nk = 4\nhosts_per_tor = 6\nhosts = { rate = \"10Gbps\", delay = \"1us\" }\n\
             tor_agg = { rate = \"40Gbps\" }",
        );
        let Expanded { nodes, links, .. } = expand(&t).unwrap();
        assert_eq!(nodes.iter().filter(|n| n.starts_with('h')).count(), 8 * 6);
        assert_eq!(degrees(&links)["tor0"], 6 + 2);
        assert_eq!(
            (links["tor0-agg0"].rate, links["h0"].rate),
            (Some(Rate(40_000_000_000)), Some(Rate(10_000_000_000)))
        );
        assert_eq!(links["agg0-core0"].rate, Some(Rate(10_000_000_000)), "no table of its own: the hosts'");
    }

    #[test]
    fn a_tier_loses_packets_where_its_own_table_says_so() {
        let t = topology(
            "kind = \"fat_tree\"\nk = 4\nhosts = { rate = \"10Gbps\", loss = { model = \"bernoulli\", rate = 0.01 } }\n\
             agg_core = { rate = \"10Gbps\", loss = { model = \"bernoulli\", rate = 0.001 } }",
        );
        let Expanded { links, .. } = expand(&t).unwrap();
        let loss = |name: &str| links[name].loss.is_some();
        assert!(loss("h0") && loss("agg0-core0"), "the tiers that say so");
        assert!(!loss("tor0-agg0"), "no table of its own: the hosts' line, not their loss");
    }

    #[test]
    fn a_tier_that_gives_only_a_rate_takes_the_hosts_line_for_the_rest() {
        // DCTCP's marking and the buffer reach the uplinks: a tier table of a rate alone once
        // gave lines without delay, buffer limit or discipline
        let t = topology(
            "kind = \"fat_tree\"\nk = 4\nhosts = { rate = \"10Gbps\", delay = \"1us\", buffer = 100, \
             qdisc = { kind = \"ecn_threshold\", k = 65 } }\ntor_agg = { rate = \"40Gbps\", buffer = 400 }",
        );
        let Expanded { links, .. } = expand(&t).unwrap();
        let up = &links["tor0-agg0"];
        assert_eq!((up.rate, up.buffer), (Some(Rate(40_000_000_000)), Some(BufferLimit::Packets(400))), "its own");
        assert_eq!(up.delay, Some(crate::units::Time(1_000)), "the hosts' 1 µs");
        assert_eq!(up.qdisc.as_ref().map(|q| q.kind.as_str()), Some("ecn_threshold"), "the hosts'");
    }

    #[test]
    fn a_tiers_directions_and_line_counting_reach_its_links() {
        // htsim's fat-tree: byte-counted switch queues that count the packet on the line, and a
        // host interface (the host link's forward direction) that never drops
        let t = topology(
            "kind = \"fat_tree\"\nk = 4\nhosts = { rate = \"10Gbps\", buffer = \"150000B\", \
             buffer_includes_line = true, forward = { buffer = \"100MB\" } }",
        );
        let Expanded { links, .. } = expand(&t).unwrap();
        let (host, core) = (&links["h5"], &links["agg0-core0"]);
        assert_eq!(host.buffer_includes_line, Some(true));
        assert_eq!(host.forward.as_ref().and_then(|d| d.buffer), Some(BufferLimit::Bytes(100_000_000)));
        assert!(host.reverse.is_none());
        assert_eq!((core.buffer, core.buffer_includes_line), (Some(BufferLimit::Bytes(150_000)), Some(true)));
        // the hosts' directions are a host's interface and its ToR's port: no uplink takes them
        assert!(core.forward.is_none() && links["tor0-agg0"].forward.is_none());
    }

    #[test]
    fn a_leaf_spine_links_every_leaf_to_every_spine() {
        let t = topology(
            "kind = \"leaf_spine\"\nleaves = 4\nspines = 3\nhosts_per_leaf = 5\nhosts = { rate = \"25Gbps\" }",
        );
        let Expanded { nodes, links, .. } = expand(&t).unwrap();
        assert_eq!(nodes.len(), 20 + 4 + 3);
        assert_eq!(links.len(), 20 + 12);
        let d = degrees(&links);
        assert!(with_prefix(&d, "leaf").all(|c| c == 5 + 3));
        assert!(with_prefix(&d, "spine").all(|c| c == 4));
    }

    #[test]
    fn bad_topologies_are_refused_naming_the_field() {
        let cases = [
            ("kind = \"fat_tree\"\nk = 5", ["topology", "k"], "must be even"),
            ("kind = \"fat_tree\"\nk = -2", ["topology", "k"], "must be 1 to"),
            ("kind = \"fat_tree\"\nk = 0", ["topology", "k"], "must be 1 to 64, not 0"),
            ("kind = \"fat_tree\"", ["topology", "k"], "a `fat_tree` topology needs `k`"),
            ("kind = \"fat_tree\"\nk = 4\nspines = 2", ["topology", "spines"], "takes no `spines`"),
            ("kind = \"leaf_spine\"\nleaves = 2\nspines = 2", ["topology", "hosts_per_leaf"], "needs `hosts_per_leaf`"),
            ("kind = \"torus\"", ["topology", "kind"], "unknown topology `torus`"),
        ];
        let too_many = "kind = \"leaf_spine\"\nleaves = 4096\nspines = 4096\nhosts_per_leaf = 1";
        let t = topology(&format!("{too_many}\nhosts = {{ rate = \"1Gbps\" }}"));
        let p = expand(&t).unwrap_err();
        assert_eq!((p.path, p.message.contains("16781312 links are more")), (vec!["topology".to_string()], true));
        for (text, path, says) in cases {
            let t = topology(&format!("{text}\nhosts = {{ rate = \"1Gbps\" }}"));
            let p = expand(&t).unwrap_err();
            assert_eq!(p.path, path, "{text}");
            assert!(p.message.contains(says), "{text}: {}", p.message);
        }
    }
}
