//! A run's ports and flows, made from a validated scenario under one pair and seed.

use super::port_table::PortTable;
use crate::error::{Error, Result};
use crate::net::{FlowId, PortId};
use crate::node::{FlowEnds, FlowState, HostClock, LinkLoss, LossModel, Port, PortSetup};
use crate::rng;
use crate::scenario::{PairSpec, Problem, Scenario};
use crate::traffic::Source;
use crate::transport::reliability::sink::{EcnEcho, Receiver};
use crate::transport::Sender;
use crate::units::Time;

fn built<T>(scenario: &Scenario, r: std::result::Result<T, Problem>) -> Result<T> {
    r.map_err(|p| Error::Usage(format!("{}: {}: {}", scenario.file, crate::error::dotted(&p.path), p.message)))
}

/// Every port with a fresh discipline (its resolved component stays in the scenario); only those
/// `held` marks, by id, if given (a partition of a parallel run).
pub(super) fn ports(scenario: &Scenario, pair: &PairSpec, seed: u64, held: Option<&[bool]>) -> Result<PortTable> {
    let holds = |i: usize| held.is_none_or(|held| held[i]);
    let mut ports = Vec::with_capacity((0..scenario.ports.len()).filter(|&i| holds(i)).count());
    // which ports each list names, looked up once (a list may name every port)
    let marked = |ids: &[PortId]| {
        let mut marks = vec![false; scenario.ports.len()];
        ids.iter().for_each(|p| marks[p.idx()] = true);
        marks
    };
    let run = &scenario.run;
    let (pcap, events) = (marked(&run.pcap), marked(&run.events));
    let (fluid, traced) = (marked(&run.fluid_reference), marked(&run.trace_queues));
    for (i, spec) in scenario.ports.iter().enumerate().filter(|(i, _)| holds(*i)) {
        let (id, name) = (PortId::from_idx(i), scenario.port_name(i));
        let qdisc = built(scenario, scenario.build_qdisc(id, pair))?;
        // only the ports the user watches pay for writing their packets down
        let watched = pcap[i] || events[i];
        let qdisc: Box<dyn crate::qdisc::Qdisc> =
            if watched { Box::new(crate::qdisc::logged::Logged::new(qdisc)) } else { qdisc };
        ports.push(Port::new(PortSetup {
            rate: spec.rate,
            delay: spec.delay,
            buffer_includes_line: spec.buffer_includes_line,
            qdisc,
            rng: rng::LazyStream::new(seed, &format!("port:{name}")),
            loss: link_loss(spec.loss.as_deref(), seed, &name),
            fluid: fluid[i],
            traced: traced[i],
        }));
    }
    Ok(match held {
        None => PortTable::whole(ports),
        Some(held) => PortTable::partial(ports, held),
    })
}

/// The loss model `model` of the port called `name`, drawing from its own stream (`loss:<port>`),
/// apart from the discipline's: enabling loss on one link changes no other draw.
pub(super) fn link_loss(model: Option<&LossModel>, seed: u64, name: &str) -> Option<LinkLoss> {
    model.map(|&m| LinkLoss::new(m, rng::stream(seed, &format!("loss:{name}"))))
}

/// Every flow with a fresh sender, if flow-controlled (its resolved component stays in the
/// scenario).
pub(super) fn flows(scenario: &Scenario, pair: &PairSpec, seed: u64) -> Result<Vec<FlowState>> {
    let drawn = scenario.drawn(seed);
    let mut flows = Vec::with_capacity(scenario.flows.len());
    for (i, spec) in scenario.flows.iter().enumerate() {
        let id = FlowId::from_idx(i);
        let mut flow = flow_state(scenario, pair, seed, id, &spec.name)?;
        (flow.start, flow.drawn_packets) = drawn[i];
        if matches!(spec.app.source(), Source::Population(_)) {
            flow.sender = None; // its connections have senders; the flow only counts them
        }
        flows.push(flow);
    }
    Ok(flows)
}

/// The ends of flow `id` with a fresh sender, their random streams named after `name` (the
/// flow's, or one of its connections').
pub(super) fn flow_state(scenario: &Scenario, pair: &PairSpec, seed: u64, id: FlowId, name: &str) -> Result<FlowState> {
    let sender = built(scenario, scenario.build_sender(id, pair, seed))?;
    Ok(ends(scenario, seed, id, name, sender))
}

/// The ends of flow `id` with `sender`, their random streams named after `name`.
pub(super) fn ends(
    scenario: &Scenario,
    seed: u64,
    id: FlowId,
    name: &str,
    sender: Option<Box<dyn Sender>>,
) -> FlowState {
    let spec = &scenario.flows[id.idx()];
    // the transport's sink settings, asked once (an open-loop flow's: the default, no ECN)
    let policy = sender.as_ref().map(|s| s.ack_policy()).unwrap_or_default();
    FlowState {
        ends: FlowEnds {
            id,
            conn: id,
            src: spec.src,
            dst: spec.dst,
            packet_size: spec.packet_size,
            ack_size: spec.ack_size,
            header_bytes: spec.packet_size - spec.payload_size,
            acks: spec.acks,
            closed_loop: sender.is_some(),
            ect: policy.ecn != EcnEcho::Off || policy.cnp_interval.is_some(),
            // DCQCN's packets are all ECN-capable: a lossless fabric marks, it never drops
            ect_all: policy.ecn == EcnEcho::Dctcp || policy.cnp_interval.is_some(),
            priority: spec.priority,
            telemetry: sender.as_ref().and_then(|s| s.telemetry()),
        },
        source: match spec.app.source() {
            Source::Timed(timing) => Some(timing),
            _ => None,
        },
        app_limit: 0,
        file_packets: None,
        stopped: false,
        receiver: Receiver::new(policy),
        pulls: sender.as_ref().and_then(|s| s.pulls()).map(|spec| Box::new(crate::node::Pulls::new(spec))),
        sender,
        next_new_seq: 0,
        highest_ack: 0,
        first_sent: Default::default(),
        timers: Default::default(),
        clock: HostClock::new(scenario.run.clock_jitter, seed, name),
        app_due: Time::ZERO,
        rng: rng::LazyStream::new(seed, &format!("flow:{name}")),
        data_line: spec.data_route.first().copied(),
        ack_line: spec.ack_route.first().copied(),
        counters: Default::default(),
        intervals: vec![],
        drop_tally: vec![],
        completed_at: None,
        trace: scenario.traced[id.idx()].then(Vec::new),
        start: Time::ZERO,
        drawn_packets: None,
        cwr_pending: false,
        window_limited_since: None,
    }
}
