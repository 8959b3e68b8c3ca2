//! Changes to single generated links: in a scenario with a `[topology]`, a member of
//! `[links]` without `between` names a link the topology generates (`h3`, `tor2-agg1`,
//! `agg1-core4`) and changes that link alone. It takes a link's keys, each optional: a key it
//! writes replaces the tier's for that link; `forward` and `reverse` (up and down, as in a tier)
//! change one direction, key by key, over what the tier gives that direction.
//!
//! A name the topology does not generate is refused with the likely one; a port's name
//! (`agg1->core4`, as queues are named) with its link and direction.

use super::problem::Problem;
use super::schema::{RawDirection, RawLink};
use crate::error::{did_you_mean, names};
use indexmap::IndexMap;
use std::collections::HashMap;

/// A key within a link: the direction it is written in, if any, and its name (`(None, "rate")`,
/// `(Some("forward"), "qdisc")`).
pub type Key = (Option<&'static str>, &'static str);

/// The keys each changed link's change wrote: a problem found under one is the file's, at that
/// link's line, not the tier's (`topology::at_tiers`).
pub type Written = HashMap<String, Vec<Key>>;

/// The file's `own` links joined to the `generated` ones: one with `between` is the file's and
/// goes after them, one without changes the generated link of its name.
pub fn join(
    generated: &mut IndexMap<String, RawLink>,
    own: IndexMap<String, RawLink>,
) -> Result<Written, Vec<Problem>> {
    let (mut written, mut added, mut problems) = (Written::new(), vec![], vec![]);
    // a typo of one of them (`--set links.mien.rate=...`) is suggested too
    let theirs: Vec<String> = own.iter().filter(|(_, l)| l.between.is_some()).map(|(n, _)| n.clone()).collect();
    for (name, link) in own {
        match (generated.get_mut(&name), link.between.is_some()) {
            (Some(_), true) => {
                let message = format!(
                    "`{name}` is a link the topology generates: leave out `between` to change it, or name your \
                     own links otherwise"
                );
                problems.push(Problem::new(&["links", &name], message));
            }
            (Some(target), false) => {
                let mut keys = vec![];
                change(target, link, &mut keys);
                written.insert(name, keys);
            }
            (None, true) => added.push((name, link)),
            (None, false) => problems.push(not_generated(&name, generated, &theirs)),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    generated.extend(added);
    Ok(written)
}

/// `link` with the keys `by` gives, each noted in `written`.
fn change(link: &mut RawLink, by: RawLink, written: &mut Vec<Key>) {
    set(&mut link.rate, by.rate, (None, "rate"), written);
    set(&mut link.delay, by.delay, (None, "delay"), written);
    set(&mut link.buffer, by.buffer, (None, "buffer"), written);
    set(&mut link.buffer_includes_line, by.buffer_includes_line, (None, "buffer_includes_line"), written);
    set(&mut link.qdisc, by.qdisc, (None, "qdisc"), written);
    set(&mut link.loss, by.loss, (None, "loss"), written);
    for (name, to, by) in [("forward", &mut link.forward, by.forward), ("reverse", &mut link.reverse, by.reverse)] {
        if let Some(by) = by {
            direction(to.get_or_insert_with(RawDirection::default), by, name, written);
        }
    }
}

/// Direction `name` of a link, `d`, with the keys `by` gives.
fn direction(d: &mut RawDirection, by: RawDirection, name: &'static str, written: &mut Vec<Key>) {
    let dir = Some(name);
    set(&mut d.rate, by.rate, (dir, "rate"), written);
    set(&mut d.delay, by.delay, (dir, "delay"), written);
    set(&mut d.buffer, by.buffer, (dir, "buffer"), written);
    set(&mut d.buffer_includes_line, by.buffer_includes_line, (dir, "buffer_includes_line"), written);
    set(&mut d.qdisc, by.qdisc, (dir, "qdisc"), written);
    set(&mut d.loss, by.loss, (dir, "loss"), written);
}

fn set<T>(slot: &mut Option<T>, given: Option<T>, key: Key, written: &mut Vec<Key>) {
    if given.is_some() {
        *slot = given;
        written.push(key);
    }
}

/// Whether a link's change, which wrote `keys`, wrote `path` (within the link) or what holds it.
pub fn wrote(keys: &[Key], path: &[String]) -> bool {
    keys.iter().any(|&(dir, key)| match (dir, path) {
        (None, [first, ..]) => first == key,
        (Some(dir), [first, second, ..]) => first == dir && second == key,
        _ => false,
    })
}

/// The problem with `name`, which changes a link the topology does not generate; the file's own
/// links (`theirs`) are suggested too.
fn not_generated(name: &str, generated: &IndexMap<String, RawLink>, theirs: &[String]) -> Problem {
    let message = match port(name, generated) {
        Some((link, direction)) => format!(
            "`{name}` is a port, the {direction} direction of the generated link `{link}`: change it in \
             `[links.\"{link}\".{direction}]`, or both its directions in `[links.\"{link}\"]`"
        ),
        None => {
            let generated_names: Vec<&str> = generated.keys().map(String::as_str).collect();
            // a link named from its other end (`core0-agg0` for `agg0-core0`) is that link
            let turned = name.split_once('-').map(|(a, b)| format!("{b}-{a}")).filter(|t| generated.contains_key(t));
            let likely = match turned {
                Some(t) => format!("; did you mean `{t}`?"),
                None => did_you_mean(name, generated_names.iter().copied().chain(theirs.iter().map(String::as_str))),
            };
            format!(
                "unknown generated link `{name}`{likely} (the generated links are {}); a link of the file's own \
                 names its two nodes in `between`",
                names(&generated_names)
            )
        }
    };
    Problem::new(&["links", name], message)
}

/// The generated link whose port is named `name` (`a->b`), and that port's direction.
fn port<'a>(name: &str, generated: &'a IndexMap<String, RawLink>) -> Option<(&'a str, &'static str)> {
    let (from, to) = name.split_once("->")?;
    generated.iter().find_map(|(link, l)| match l.between.as_deref()? {
        [a, b] if (a.as_str(), b.as_str()) == (from, to) => Some((link.as_str(), "forward")),
        [a, b] if (a.as_str(), b.as_str()) == (to, from) => Some((link.as_str(), "reverse")),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::topology::{expand, Expanded};
    use crate::units::{BufferLimit, Rate, Time};

    const TOPOLOGY: &str = "kind = \"fat_tree\"\nk = 4\nhosts = { rate = \"10Gbps\", delay = \"1us\", buffer = 100, \
                            forward = { buffer = \"1MB\" } }\nagg_core = { rate = \"40Gbps\" }";

    /// The fat-tree of `TOPOLOGY` with the file's `[links]` table `links` joined to it.
    fn joined(links: &str) -> Result<(IndexMap<String, RawLink>, Written), Vec<Problem>> {
        let Expanded { links: mut generated, .. } = expand(&toml::from_str(TOPOLOGY).unwrap()).unwrap();
        let own: IndexMap<String, RawLink> = toml::from_str(links).unwrap();
        let written = join(&mut generated, own)?;
        Ok((generated, written))
    }

    #[test]
    fn a_change_replaces_the_keys_it_gives_of_its_link_alone() {
        let (links, written) =
            joined("agg1-core2 = { rate = \"1Gbps\", loss = { model = \"bernoulli\", rate = 0.1 } }").unwrap();
        let (changed, other) = (&links["agg1-core2"], &links["agg1-core3"]);
        assert_eq!((changed.rate, other.rate), (Some(Rate(1_000_000_000)), Some(Rate(40_000_000_000))));
        assert!(changed.loss.is_some() && other.loss.is_none());
        assert_eq!(changed.delay, Some(Time(1_000)), "the tier's, inherited from the hosts'");
        assert_eq!(changed.between.as_deref().unwrap(), ["agg1", "core2"]);
        assert_eq!(written["agg1-core2"], [(None, "rate"), (None, "loss")]);
        assert_eq!(links.get_index_of("agg1-core2"), Some(16 + 16 + 2), "in its place: after agg0's two");
    }

    #[test]
    fn a_direction_is_changed_key_by_key_over_the_tiers() {
        let (links, written) = joined("[h3]\nbuffer = 10\nforward = { rate = \"1Gbps\" }\n").unwrap();
        let forward = links["h3"].forward.as_ref().unwrap();
        assert_eq!(forward.rate, Some(Rate(1_000_000_000)));
        assert_eq!(forward.buffer, Some(BufferLimit::Bytes(1_000_000)), "the tier's host interface stays");
        assert_eq!(links["h3"].buffer, Some(BufferLimit::Packets(10)));
        assert!(wrote(&written["h3"], &["forward".into(), "rate".into()]));
        assert!(!wrote(&written["h3"], &["forward".into(), "buffer".into()]));
        assert!(wrote(&written["h3"], &["buffer".into()]));
    }

    #[test]
    fn the_files_own_links_follow_the_generated_ones() {
        let (links, written) = joined("mine = { between = [\"h0\", \"core0\"], rate = \"1Gbps\" }").unwrap();
        assert_eq!(links.last().map(|(name, _)| name.as_str()), Some("mine"));
        assert!(written.is_empty());
    }

    #[test]
    fn a_link_named_from_its_other_end_is_told_its_name() {
        let problems = joined("core0-agg0 = { rate = \"1Gbps\" }").unwrap_err();
        assert!(problems[0].message.starts_with("unknown generated link `core0-agg0`; did you mean `agg0-core0`?"));
    }

    #[test]
    fn a_name_the_topology_does_not_generate_is_refused_with_the_likely_one() {
        let problems = joined("agg1-core22 = { rate = \"1Gbps\" }\nh3 = { between = [\"h3\", \"tor1\"] }").unwrap_err();
        let told: Vec<(String, &str)> = problems.iter().map(|p| (p.path.join("."), p.message.as_str())).collect();
        assert_eq!(told[0].0, "links.agg1-core22");
        assert!(
            told[0].1.starts_with(
                "unknown generated link `agg1-core22`; did you mean `agg1-core2`? (the generated links are h0, h1,"
            ),
            "{told:?}"
        );
        assert!(
            told[0].1.ends_with("(48 in all)); a link of the file's own names its two nodes in `between`"),
            "{told:?}"
        );
        assert_eq!(told[1].0, "links.h3");
        assert!(told[1].1.contains("leave out `between` to change it"), "{told:?}");
        let theirs = joined("mine = { between = [\"h0\", \"core0\"], rate = \"1Gbps\" }\nmien = { rate = \"2Gbps\" }");
        assert!(theirs.unwrap_err()[0].message.contains("did you mean `mine`?"), "the file's own links too");
    }

    #[test]
    fn a_ports_name_is_refused_with_its_link_and_direction() {
        let problems = joined("\"core2->agg1\" = { rate = \"1Gbps\" }").unwrap_err();
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].message.starts_with(
                "`core2->agg1` is a port, the reverse direction of the generated link `agg1-core2`: change it in \
                 `[links.\"agg1-core2\".reverse]`"
            ),
            "{problems:?}"
        );
    }
}

/// Changes as a scenario's loader reads them: ports, places of problems, overrides, resolved form.
#[cfg(test)]
mod loading {
    use crate::error::Diagnostic;
    use crate::node::LossModel;
    use crate::units::Rate;
    use crate::{Error, Scenario};

    const FAT_TREE: &str = "[topology]\nkind = \"fat_tree\"\nk = 4\n\
        hosts = { rate = \"10Gbps\", delay = \"1us\", buffer = 100 }\nagg_core = { rate = \"40Gbps\" }\n\
        [run]\nduration = \"1ms\"\n[flows]\nf = { src = \"h0\", dst = \"h15\", app = \"ftp\" }\n";

    fn load(links: &str, sets: &[&str]) -> crate::error::Result<Scenario> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Scenario::parse(&format!("{FAT_TREE}[links]\n{links}"), "t.toml", &sets)
    }

    fn refused(links: &str, sets: &[&str]) -> Vec<Diagnostic> {
        match load(links, sets) {
            Err(Error::Scenario(diags)) => diags,
            other => panic!("not refused: {:?}", other.map(|_| ())),
        }
    }

    /// Port `name`'s rate and loss.
    fn port(sc: &Scenario, name: &str) -> (Rate, Option<LossModel>) {
        let p = &sc.ports[sc.port_named(name).unwrap_or_else(|| panic!("no port {name}"))];
        (p.rate, p.loss.as_deref().copied())
    }

    /// Every port's line: name, rate, delay, buffer, loss (its discipline is the pair's to say).
    fn lines(sc: &Scenario) -> Vec<String> {
        sc.ports
            .iter()
            .map(|p| format!("{} {} {} {} {:?}", p.name(&sc.nodes, &sc.links), p.rate, p.delay, p.buffer, p.loss))
            .collect()
    }

    const LOSS: LossModel = LossModel::Bernoulli { rate: 0.1 };

    #[test]
    fn a_change_reaches_its_links_ports_alone() {
        let sc =
            load("agg1-core2 = { rate = \"1Gbps\", forward = { loss = { model = \"bernoulli\", rate = 0.1 } } }", &[])
                .unwrap();
        assert_eq!(port(&sc, "agg1->core2"), (Rate(1_000_000_000), Some(LOSS)), "up");
        assert_eq!(port(&sc, "core2->agg1"), (Rate(1_000_000_000), None), "down: the rate, not the loss");
        assert_eq!(port(&sc, "agg1->core3"), (Rate(40_000_000_000), None), "another link of the tier");
        let differ = |a: &[String], b: &[String]| -> Vec<String> {
            a.iter().zip(b).filter(|(a, b)| a != b).map(|(a, _)| a.split(' ').next().unwrap().to_string()).collect()
        };
        assert_eq!(differ(&lines(&sc), &lines(&load("", &[]).unwrap())), ["agg1->core2", "core2->agg1"]);
    }

    #[test]
    fn an_unknown_name_is_refused_at_its_line_and_field() {
        let diags = refused("[links.agg1-core22]\nrate = \"1Gbps\"\n", &[]);
        let d = &diags[0];
        assert_eq!((d.field.as_str(), d.line), ("links.agg1-core22", Some(11)), "{diags:?}");
        assert!(d.message.contains("did you mean `agg1-core2`?"), "{}", d.message);
    }

    #[test]
    fn set_changes_a_generated_link_as_a_written_one() {
        let sc =
            load("", &["links.agg1-core2.rate=1Gbps", "links.h3.loss={ model = \"bernoulli\", rate = 0.1 }"]).unwrap();
        assert_eq!(port(&sc, "agg1->core2").0, Rate(1_000_000_000));
        assert_eq!((port(&sc, "h3->tor1").1, port(&sc, "tor1->h3").1), (Some(LOSS), Some(LOSS)));
        let diags = refused("", &["links.agg1-core22.rate=1Gbps"]);
        assert_eq!(diags[0].field, "links.agg1-core22");
        assert_eq!(diags[0].from_override.as_deref(), Some("links.agg1-core22.rate=1Gbps"));
        assert!(diags[0].message.contains("did you mean `agg1-core2`?"), "{}", diags[0].message);
    }

    #[test]
    fn a_bad_key_of_a_change_is_told_at_the_change_and_the_tiers_at_the_tier() {
        let text = "[links.h3]\nqdisc = \"nope\"\n[links.tor0-agg0]\ndelay = \"2us\"\n";
        let diags = refused(text, &[]);
        let told: Vec<(&str, Option<usize>)> = diags.iter().map(|d| (d.field.as_str(), d.line)).collect();
        assert_eq!(told, [("links.h3.qdisc", Some(12))], "{diags:?}");
        let tier = format!("{FAT_TREE}[links.h3]\ndelay = \"2us\"\n")
            .replace("buffer = 100", "buffer = 100, qdisc = \"nope\"");
        let Err(Error::Scenario(diags)) = Scenario::parse(&tier, "t.toml", &[]) else { panic!("refused") };
        let told: Vec<&str> = diags.iter().map(|d| d.field.as_str()).collect();
        // agg_core's table gives no discipline: its links take the hosts', and it is told there too
        let tiers = ["topology.hosts.qdisc", "topology.agg_core.qdisc"];
        assert_eq!(told, tiers, "the tier's, though h3 is changed: {diags:?}");
    }

    #[test]
    fn the_resolved_scenario_keeps_the_change() {
        let sc =
            load("[links.h3]\nrate = \"1Gbps\"\nreverse = { loss = { model = \"bernoulli\", rate = 0.1 } }\n", &[])
                .unwrap();
        let again = Scenario::parse(&sc.resolved_toml("default", 1).unwrap(), "r.toml", &[]).unwrap();
        assert_eq!(port(&again, "h3->tor1"), (Rate(1_000_000_000), None));
        assert_eq!(port(&again, "tor1->h3"), (Rate(1_000_000_000), Some(LOSS)));
        assert_eq!(lines(&again), lines(&sc));
    }
}
