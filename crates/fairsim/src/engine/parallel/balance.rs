//! Partitions balanced by the work a run's packets make, not by its ports alone.
//!
//! The topology's plan (`plan`) gives each partition an equal share of the ports. A run whose
//! packets crowd some ports more than others (routes drawn at random, an incast whose senders
//! sit in a few racks) then loads one partition more than the others, and the busiest bounds
//! the speed-up. So the split is weighed by the run itself: a probe runs it on one thread for a
//! while and counts each port's packets (`PortWork`); a node weighs the packets its ports took
//! in and the packets that reached it. Of the two plans, the measured one and the topology's,
//! the one whose busiest partition holds less of the measured work is taken.
//!
//! Threads chosen by the cost model (`choice`) use the probe that weighed the split: the run
//! starts again from its beginning anyway. Threads given probe a copy of the run (`given`) for
//! `GIVEN_PROBE` events or a fiftieth of its simulated time, whichever comes first, so that the
//! plan is the same at every run of the scenario; the copy is not made for a network of more
//! than `GIVEN_PROBE_PORTS` ports, whose building would cost more than its balance could save
//! in most runs (the count, not the time the build took, so that the plan never depends on the
//! machine's load).

use super::plan::{Plan, PortWork};
use crate::engine::sim::Simulation;
use crate::units::Time;

/// Events a copy of a run with given threads is probed for: about 20 ms on one thread.
const GIVEN_PROBE: u64 = 100_000;
/// The most ports of a network whose copy is probed for given threads: building a copy takes
/// about 5 µs a port (a k = 16 fat-tree's 6,144 ports 25 ms, a k = 32 one's 49,152 ports 0.3 s,
/// 2026-11-30), so at most about 80 ms.
const GIVEN_PROBE_PORTS: usize = 16_384;
/// Packets a probe must have seen for its counts to weigh the nodes by.
const ENOUGH_PACKETS: u64 = 1_000;

/// Of `topology`, the topology's plan of `probed`'s run, and the plan weighed by its probe's
/// packets, the one whose busiest partition holds less of their work; the topology's where the
/// probe saw too few packets to weigh by, or the weighed plan does not split evenly.
pub(super) fn balanced(probed: &Simulation, topology: Plan) -> Plan {
    let work = PortWork::of(probed);
    if work.packets < ENOUGH_PACKETS {
        return topology;
    }
    match Plan::weighed(probed, topology.parts, Some(&work)) {
        Ok(weighed) if work.busiest(&weighed) < work.busiest(&topology) => weighed,
        _ => topology,
    }
}

/// `plan`, made for threads given to `sim` (not yet started), balanced by a probe of a copy of
/// the run; `plan` itself for a network too large to copy cheaply (`GIVEN_PROBE_PORTS`).
pub(super) fn given(sim: &Simulation, plan: Plan) -> Plan {
    if sim.scenario().ports.len() > GIVEN_PROBE_PORTS {
        return plan;
    }
    let mut copy = super::replica::again(sim, None);
    let until = Time(copy.end_time().0 / 50);
    while copy.events_processed() < GIVEN_PROBE && copy.now() < until && !copy.is_done() {
        copy.advance(2_000);
    }
    copy.pause();
    balanced(&copy, plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// A k = 4 fat-tree where the hosts of its first two pods send to `h0`: the topology's plan
    /// puts those pods, so nearly all the packets, in one partition.
    fn incast_from_two_pods() -> Simulation {
        let senders: Vec<String> = (1..8).map(|h| format!("\"h{h}\"")).collect();
        let text = format!(
            r#"
[run]
duration = "2ms"
forwarding = "ecmp"
[topology]
kind = "fat_tree"
k = 4
hosts = {{ rate = "10Gbps", delay = "1us", buffer = 100 }}
[workloads.incast]
pattern = "incast"
receiver = "h0"
senders = [{}]
size = "1000000B"
transport = {{ kind = "newreno" }}
"#,
            senders.join(", ")
        );
        let sc = Scenario::parse(&text, "i.toml", &[]).unwrap();
        Simulation::new(&sc, None, Some(1)).unwrap()
    }

    /// The share of the probe's work in `plan`'s busiest partition.
    fn busiest_share(probed: &Simulation, plan: &Plan) -> f64 {
        let work = PortWork::of(probed);
        work.busiest(plan) as f64 / work.nodes.iter().sum::<u64>() as f64
    }

    #[test]
    fn an_incast_from_two_pods_splits_by_its_packets_not_its_ports() {
        let sim = incast_from_two_pods();
        let topology = Plan::of(&sim, 2).unwrap();
        let mut probed = super::super::replica::again(&sim, None);
        probed.run_events(GIVEN_PROBE);
        let (before, after) = (busiest_share(&probed, &topology), busiest_share(&probed, &balanced(&probed, topology)));
        assert!(
            before > 0.85 && after < 0.75,
            "the busiest partition's share: {before:.3} by ports, {after:.3} by work"
        );
    }

    #[test]
    fn a_given_count_of_threads_gets_the_same_plan_at_every_run() {
        let sim = incast_from_two_pods();
        let plans: Vec<Vec<u16>> = (0..2).map(|_| given(&sim, Plan::of(&sim, 2).unwrap()).node).collect();
        assert_eq!(plans[0], plans[1]);
        assert_ne!(plans[0], Plan::of(&sim, 2).unwrap().node, "weighed by the probe");
    }

    #[test]
    fn a_probe_of_too_few_packets_leaves_the_topologys_plan() {
        let sim = incast_from_two_pods();
        let topology = Plan::of(&sim, 2).unwrap().node;
        // not yet started: no packet counted
        assert_eq!(balanced(&sim, Plan::of(&sim, 2).unwrap()).node, topology);
    }
}
