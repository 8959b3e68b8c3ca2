//! A run's ports and flows, made from a validated scenario under one pair and seed.

use crate::error::{Error, Result};
use crate::net::{FlowId, PortId};
use crate::node::{FlowEnds, FlowState, HostClock, LinkLoss, LossModel, Port, PortSetup};
use crate::rng;
use crate::scenario::{Component, PairSpec, Problem, Scenario};
use crate::traffic::Source;
use crate::transport::reliability::sink::{EcnEcho, Receiver};
use crate::transport::Sender;
use crate::units::Time;

fn built<T>(scenario: &Scenario, r: std::result::Result<T, Problem>) -> Result<T> {
    r.map_err(|p| Error::Usage(format!("{}: {}: {}", scenario.file, crate::error::dotted(&p.path), p.message)))
}

/// Every port with a fresh discipline, and the discipline's resolved component.
pub(super) fn ports(scenario: &Scenario, pair: &PairSpec, seed: u64) -> Result<(Vec<Port>, Vec<Component>)> {
    let mut ports = vec![];
    let mut resolved_qdiscs = vec![];
    // which ports each list names, looked up once (a list may name every port)
    let marked = |ids: &[PortId]| {
        let mut marks = vec![false; scenario.ports.len()];
        ids.iter().for_each(|p| marks[p.idx()] = true);
        marks
    };
    let run = &scenario.run;
    let (pcap, events) = (marked(&run.pcap), marked(&run.events));
    let (fluid, traced) = (marked(&run.fluid_reference), marked(&run.trace_queues));
    for (i, spec) in scenario.ports.iter().enumerate() {
        let id = PortId::from_idx(i);
        let (qdisc, resolved) = built(scenario, scenario.build_qdisc(id, pair))?;
        // only the ports the user watches pay for writing their packets down
        let watched = pcap[i] || events[i];
        let qdisc: Box<dyn crate::qdisc::Qdisc> =
            if watched { Box::new(crate::qdisc::logged::Logged::new(qdisc)) } else { qdisc };
        ports.push(Port::new(PortSetup {
            name: spec.name.clone(),
            rate: spec.rate,
            delay: spec.delay,
            buffer_includes_line: spec.buffer_includes_line,
            qdisc,
            rng: rng::stream(seed, &format!("port:{}", spec.name)),
            loss: link_loss(spec.loss, seed, &spec.name),
            fluid: fluid[i],
            traced: traced[i],
        }));
        resolved_qdiscs.push(resolved);
    }
    Ok((ports, resolved_qdiscs))
}

/// The loss model `model` of the port called `name`, drawing from its own stream (`loss:<port>`),
/// apart from the discipline's: enabling loss on one link changes no other draw.
pub(super) fn link_loss(model: Option<LossModel>, seed: u64, name: &str) -> Option<LinkLoss> {
    model.map(|m| LinkLoss::new(m, rng::stream(seed, &format!("loss:{name}"))))
}

/// Every flow with a fresh sender (if flow-controlled), and the sender's resolved component.
pub(super) fn flows(
    scenario: &Scenario,
    pair: &PairSpec,
    seed: u64,
) -> Result<(Vec<FlowState>, Vec<Option<Component>>)> {
    let drawn = scenario.drawn(seed);
    let mut flows = vec![];
    let mut resolved_transports = vec![];
    for (i, spec) in scenario.flows.iter().enumerate() {
        let id = FlowId::from_idx(i);
        let (mut flow, resolved) = flow_state(scenario, pair, seed, id, &spec.name)?;
        (flow.start, flow.drawn_packets) = drawn[i];
        if matches!(spec.app.source(), Source::Population { .. }) {
            flow.sender = None; // its connections have senders; the flow only counts them
        }
        flows.push(flow);
        resolved_transports.push(resolved);
    }
    Ok((flows, resolved_transports))
}

/// The ends of flow `id` with a fresh sender, their random streams named after `name` (the
/// flow's, or one of its connections'), and the sender's resolved component.
pub(super) fn flow_state(
    scenario: &Scenario,
    pair: &PairSpec,
    seed: u64,
    id: FlowId,
    name: &str,
) -> Result<(FlowState, Option<Component>)> {
    let sender = built(scenario, scenario.build_sender(id, pair, seed))?;
    let (sender, resolved) = sender.map(|(s, c)| (Some(s), Some(c))).unwrap_or((None, None));
    Ok((ends(scenario, seed, id, name, sender), resolved))
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
            ect: sender.as_ref().is_some_and(|s| s.ack_policy().ecn != EcnEcho::Off),
            ect_all: sender.as_ref().is_some_and(|s| s.ack_policy().ecn == EcnEcho::Dctcp),
        },
        source: match spec.app.source() {
            Source::Timed(timing) => Some(timing),
            _ => None,
        },
        app_limit: 0,
        file_packets: None,
        stopped: false,
        receiver: Receiver::new(sender.as_ref().map(|s| s.ack_policy()).unwrap_or_default()),
        sender,
        next_new_seq: 0,
        highest_ack: 0,
        first_sent: Default::default(),
        timers: Default::default(),
        clock: HostClock::new(scenario.run.clock_jitter, seed, name),
        app_due: Time::ZERO,
        rng: rng::stream(seed, &format!("flow:{name}")),
        data_route: spec.data_route.clone(),
        ack_route: spec.ack_route.clone(),
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
