//! A parallel run's partitions put together into the first, as one run would have left it:
//! each port as its near end's partition left it, with the packets still propagating on a cut
//! link (in the far end's copy of its pipe) ahead of those that entered it last; each flow as its
//! source's partition left it, with the sink of its sink's partition and the queueing delays
//! the sink recorded (a population's, recorded at each window's end: `DelaySample`); each flow's counters summed over the partitions (a sender counts what it
//! sent, a sink what it received, any switch what it dropped: `FlowCounters::merge`), and so
//! each transfer's (a population's connections count into them in every partition), whose
//! finish is its source's partition's; each
//! flow's drops by (port, reason) in the order of their first drops in the run; PFC's counts as
//! the partitions of their switches left them; in-band telemetry's records from every partition;
//! and the events summed.

use super::partition::FirstDrop;
use super::plan::Plan;
use crate::engine::pfc::Pfc;
use crate::engine::port_table::PortTable;
use crate::engine::sim::Simulation;
use crate::net::FlowId;
use crate::stats::DelayStats;

/// Puts `parts` (partition 0 first, into which all go) together.
pub(super) fn merge(parts: &mut [&mut Simulation], plan: &Plan, mut delays: Vec<DelayStats>) {
    let tallies = drop_tallies(parts);
    pipes_back(parts, plan);
    let tables = parts.iter_mut().map(|part| std::mem::take(&mut part.ports)).collect();
    let (first, rest) = parts.split_first_mut().expect("two partitions or more");
    first.ports = PortTable::merged(tables, |p| plan.near[p] as usize);
    for (f, &(src, dst)) in plan.ends.iter().enumerate() {
        let (src, dst) = (src as usize, dst as usize);
        if src != 0 {
            std::mem::swap(&mut first.flows[f], &mut rest[src - 1].flows[f]);
        }
        // where the sink's partition's own copy of the flow is now
        let sink_copy = if dst == 0 { src } else { dst };
        if dst != src && sink_copy != 0 {
            std::mem::swap(&mut first.flows[f].receiver, &mut rest[sink_copy - 1].flows[f].receiver);
        }
        if plan.population[f] {
            std::mem::swap(&mut first.queueing[f], &mut delays[f]);
        } else if dst != 0 {
            std::mem::swap(&mut first.queueing[f], &mut rest[dst - 1].queueing[f]);
        }
        for other in rest.iter() {
            let (to, from) = (&mut first.flows[f], &other.flows[f]);
            to.counters.merge(&from.counters);
            to.intervals.iter_mut().zip(&from.intervals).for_each(|(a, b)| a.merge(b));
        }
    }
    for (f, tally) in tallies {
        first.flows[f.idx()].drop_tally = tally;
    }
    for other in rest.iter() {
        first.events_processed += other.events_processed;
        let (to, from) = (&mut first.connections.transfers, &other.connections.transfers);
        let sum = |a: &mut Vec<u64>, b: &Vec<u64>| a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
        sum(&mut to.sent, &from.sent);
        sum(&mut to.retransmitted, &from.retransmitted);
        sum(&mut to.delivered, &from.delivered);
        // a transfer finishes where its sender is
        to.finish_s.iter_mut().zip(&from.finish_s).for_each(|(a, b)| *a = a.or(*b));
    }
    if let Some(records) = first.telemetry.as_deref_mut() {
        rest.iter_mut().filter_map(|other| other.telemetry.as_deref_mut()).for_each(|other| records.absorb(other));
    }
    if let Some(pfc) = first.pfc.as_deref_mut() {
        let mut others: Vec<&mut Pfc> = rest.iter_mut().filter_map(|other| other.pfc.as_deref_mut()).collect();
        Pfc::merge(pfc, &mut others, |p| plan.far[p] as usize, |p| plan.near[p] as usize);
    }
    for other in rest.iter_mut() {
        first.pool.absorb(std::mem::take(&mut other.pool));
    }
    first.partition = None;
    first.id_stride = 1;
}

type Tally = Vec<(crate::net::PortId, crate::qdisc::DropReason, u64)>;

/// Each flow that dropped packets: its drops by (port, reason) from every partition (a port is
/// in one partition only), in the order of each entry's first drop: its instant, then its
/// event's place in that instant's order, then the port's place among those the event acts on
/// (only a change of the network acts in several partitions at once, on its ports in order).
fn drop_tallies(parts: &[&mut Simulation]) -> Vec<(FlowId, Tally)> {
    let mut firsts: Vec<(FirstDrop, usize, usize)> = vec![]; // the drop, its partition and entry
    for (r, part) in parts.iter().enumerate() {
        let mut entries = std::collections::HashMap::<FlowId, usize>::new();
        for &first in part.partition.as_ref().map_or(&[][..], |p| &p.first_drops) {
            let k = entries.entry(first.flow).or_default();
            firsts.push((first, r, *k));
            *k += 1;
        }
    }
    firsts.sort_unstable();
    let mut merged: Vec<(FlowId, Tally)> = vec![];
    for (FirstDrop { flow: f, .. }, r, k) in firsts {
        if merged.last().is_none_or(|(g, _)| *g != f) {
            merged.push((f, vec![]));
        }
        let tally = &mut merged.last_mut().expect("pushed").1;
        tally.push(parts[r].flows[f.idx()].drop_tally[k]);
    }
    merged
}

/// Packets still propagating on a cut link at the end: those already handed to the far end's
/// partition go back ahead of those its near end's partition sent last.
fn pipes_back(parts: &mut [&mut Simulation], plan: &Plan) {
    for &p in plan.cut.iter().flatten() {
        let (near, far) = (plan.near[p.idx()] as usize, plan.far[p.idx()] as usize);
        let far = &mut *parts[far];
        let ahead = std::iter::from_fn(|| far.ports[p.idx()].take_in_flight(&mut far.pool, false)).collect();
        let records = far.ports[p.idx()].int_mut().map(|int| int.take_records());
        let near = &mut *parts[near];
        near.ports[p.idx()].put_ahead_in_pipe(ahead, &mut near.pool);
        if let (Some(int), Some(records)) = (near.ports[p.idx()].int_mut(), records) {
            int.put_ahead(records); // the records the port stamped into those packets
        }
    }
}
