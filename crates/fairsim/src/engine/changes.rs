//! The network's changes of a run (`[[events]]`), in the order they happen: what the loop's
//! `Event::Network` events name (`failures.rs` carries them out).
//!
//! Each event of the scenario is a physical change at its `at`, and, for a link going down or
//! coming back, forwarding's learning of it `detection` later.

use crate::net::PortId;
use crate::scenario::{NetworkAction, Scenario};
use crate::units::{Rate, Time};

/// One change of the network.
pub(super) struct Change {
    pub at: Time,
    pub ports: Vec<PortId>,
    pub what: What,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) enum What {
    Down,
    Up,
    Rate(Rate),
    /// Forwarding learns whether the ports are down.
    Learn,
}

/// A run's changes of the network, in the order they happen (the index is each one's event).
pub(super) fn changes(scenario: &Scenario) -> Vec<Change> {
    let end = scenario.run.duration;
    let mut changes: Vec<(bool, usize, Change)> = vec![];
    for (i, e) in scenario.events.iter().enumerate() {
        let what = match e.action {
            NetworkAction::Down => What::Down,
            NetworkAction::Up => What::Up,
            NetworkAction::Rate(r) => What::Rate(r),
        };
        changes.push((false, i, Change { at: e.at, ports: e.ports.clone(), what }));
        let learnt = Time(e.at.0.saturating_add(e.detection.0));
        if !matches!(what, What::Rate(_)) && learnt < end {
            changes.push((true, i, Change { at: learnt, ports: e.ports.clone(), what: What::Learn }));
        }
    }
    // at one instant, what happens to the links (in the file's order), then what forwarding
    // learns of them
    changes.sort_by_key(|(learn, i, c)| (c.at, *learn, *i));
    changes.into_iter().map(|(_, _, c)| c).collect()
}

/// Whether each port of change `n` (forwarding's learning) is down then, by the changes before
/// it: every partition of a parallel run knows it so, holding the port or not. The links'
/// changes at an instant come before forwarding's learning at it.
pub(super) fn down_when_learnt(changes: &[Change], n: usize) -> Vec<(PortId, bool)> {
    let down = |p: PortId| {
        let last = changes[..n].iter().rev().find(|c| matches!(c.what, What::Down | What::Up) && c.ports.contains(&p));
        last.is_some_and(|c| c.what == What::Down)
    };
    changes[n].ports.iter().map(|&p| (p, down(p))).collect()
}
