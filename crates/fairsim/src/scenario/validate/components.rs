//! Every pair's disciplines and transports built once on loading, so a bad parameter is
//! reported with its place in the file.

use super::*;

/// Builds every component of every pair once, so that a bad parameter is caught on loading.
pub(super) fn check_components(s: &Scenario) -> Result<(), Vec<Problem>> {
    let mut problems: Vec<Problem> = vec![];
    for pair in &s.pairs {
        for p in 0..s.ports.len() {
            if let Err(e) = s.build_qdisc(PortId::from_idx(p), pair) {
                problems.push(e);
            }
        }
        for f in 0..s.flows.len() {
            if let Err(e) = s.build_sender(FlowId::from_idx(f), pair, s.run.seed) {
                problems.push(e);
            }
        }
    }
    let mut unique: Vec<Problem> = vec![];
    for p in problems {
        if !unique.contains(&p) {
            unique.push(p);
        }
    }
    if unique.is_empty() {
        Ok(())
    } else {
        Err(unique)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{net, problems};

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
}
