//! The node list: names, unique and non-empty.

use super::problems::Problems;
use crate::net::NodeId;

pub(super) fn check_nodes(names: &[String], pb: &mut Problems) -> Vec<String> {
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

/// Finds a node by name, reporting an unknown one at `path`.
pub(super) type NodeLookup<'a> = dyn Fn(&str, &[&str], &mut Problems) -> Option<NodeId> + 'a;

#[cfg(test)]
mod tests {
    use super::*;

    fn check(names: &[&str]) -> Vec<(Vec<String>, String)> {
        let mut pb = Problems::default();
        check_nodes(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>(), &mut pb);
        pb.0.into_iter().map(|p| (p.path, p.message)).collect()
    }

    #[test]
    fn names_are_unique_and_not_blank_and_each_repeat_is_said_once() {
        assert_eq!(check(&["a", "b"]), vec![]);
        assert_eq!(check(&[]), vec![(vec!["nodes".into()], "a scenario needs at least two nodes".into())]);
        assert_eq!(
            check(&["a", "a", "b", "a"]),
            vec![(vec!["nodes".into(), "0".into()], "node `a` is declared 3 times".into())]
        );
        assert_eq!(check(&["a", " "]), vec![(vec!["nodes".into(), "1".into()], "a node needs a name".into())]);
    }
}
