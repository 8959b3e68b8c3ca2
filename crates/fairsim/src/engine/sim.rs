//! The simulation loop: one run of a scenario under one protocol pair with one seed.
//!
//! Hosts and switches are infinitely fast (thesis §6.5): a packet arriving at a node is handed
//! on, delivered or acknowledged at the same instant, so queues form only at output ports.

use super::event::{Event, EventQueue, TimerFire};
use super::flow::FlowState;
use crate::error::{Error, Result};
use crate::net::{FlowId, Packet, PacketKind, Port, PortId, PortTrace};
use crate::qdisc::{DropReason, QdiscCtx};
use crate::rng;
use crate::scenario::{Component, PairSpec, Problem, Scenario};
use crate::stats::PortStats;
use crate::traffic::{App, TimedSource};
use crate::transport::TimerId;
use crate::transport::{Action, AgentCtx, Sender};
use crate::units::Time;
use std::time::{Duration, Instant};

pub struct Simulation {
    pub(crate) scenario: Scenario,
    pub(crate) pair: PairSpec,
    pub(crate) seed: u64,
    pub(crate) now: Time,
    pub(crate) done: bool,
    /// Why the run stopped early, if something made it impossible to go on.
    pub(crate) failure: Option<String>,
    events: EventQueue,
    pub(crate) events_processed: u64,
    intervals_closed: usize,
    pub(crate) ports: Vec<Port>,
    pub(crate) port_qdiscs: Vec<Component>,
    pub(crate) flows: Vec<FlowState>,
    pub(crate) flow_transports: Vec<Option<Component>>,
    next_packet_id: u64,
    /// Scratch space reused across events so the hot path does not allocate.
    drops: Vec<(Packet, DropReason)>,
    actions: Vec<Action>,
    pub(crate) wall: Duration,
}

/// A queue longer than this stops the run with an error instead of exhausting memory (about
/// 100 bytes a packet): only an unlimited buffer fed faster than it drains gets there.
pub const MAX_QUEUE_PACKETS: usize = 4_000_000;

fn built<T>(scenario: &Scenario, r: std::result::Result<T, Problem>) -> Result<T> {
    r.map_err(|p| Error::Usage(format!("{}: {}: {}", scenario.file, crate::error::dotted(&p.path), p.message)))
}

impl Simulation {
    /// Builds a run of `scenario` under the pair called `pair` (the first one if `None`),
    /// seeded with `seed` (the scenario's own seed if `None`).
    pub fn new(scenario: &Scenario, pair: Option<&str>, seed: Option<u64>) -> Result<Simulation> {
        let pair = scenario.pair(pair)?.clone();
        let seed = seed.unwrap_or(scenario.run.seed);
        let mut ports = vec![];
        let mut port_qdiscs = vec![];
        for (i, spec) in scenario.ports.iter().enumerate() {
            let (qdisc, resolved) = built(scenario, scenario.build_qdisc(PortId::from_idx(i), &pair))?;
            ports.push(Port {
                name: spec.name.clone(),
                from: spec.from,
                to: spec.to,
                rate: spec.rate,
                delay: spec.delay,
                buffer: spec.buffer,
                buffer_includes_line: spec.buffer_includes_line,
                qdisc_name: resolved.kind.clone(),
                qdisc,
                rng: rng::stream(seed, &format!("port:{}", spec.name)),
                transmitting: None,
                pipe: Default::default(),
                stats: PortStats::default(),
                fluid: scenario.run.fluid_reference.contains(&PortId::from_idx(i)).then(Default::default),
                trace: scenario.run.trace_queues.contains(&PortId::from_idx(i)).then(PortTrace::default),
            });
            port_qdiscs.push(resolved);
        }
        let mut flows = vec![];
        let mut flow_transports = vec![];
        let draws = scenario.draws(seed);
        for (i, spec) in scenario.flows.iter().enumerate() {
            let sender = built(scenario, scenario.build_sender(FlowId::from_idx(i), &pair, seed))?;
            let (sender, resolved) = sender.map(|(s, c)| (Some(s), Some(c))).unwrap_or((None, None));
            flows.push(FlowState {
                source: TimedSource::new(&spec.app, spec.packet_size),
                app_limit: 0,
                file_packets: None,
                stopped: false,
                sender,
                receiver: Default::default(),
                next_new_seq: 0,
                highest_ack: 0,
                first_sent: Default::default(),
                timers: Default::default(),
                rng: rng::stream(seed, &format!("flow:{}", spec.name)),
                data_route: spec.data_route.clone(),
                ack_route: spec.ack_route.clone(),
                counters: Default::default(),
                intervals: vec![],
                drop_tally: vec![],
                completed_at: None,
                trace: scenario.run.trace.contains(&FlowId::from_idx(i)).then(Vec::new),
                start: draws[i].map_or(spec.start, |(at, _)| at),
                drawn_packets: draws[i].map(|(_, n)| n),
            });
            flow_transports.push(resolved);
        }
        let mut sim = Simulation {
            scenario: scenario.clone(),
            pair,
            seed,
            now: Time::ZERO,
            done: false,
            failure: None,
            events: EventQueue::default(),
            events_processed: 0,
            intervals_closed: 0,
            ports,
            port_qdiscs,
            flows,
            flow_transports,
            next_packet_id: 0,
            drops: vec![],
            actions: vec![],
            wall: Duration::ZERO,
        };
        sim.schedule_run();
        Ok(sim)
    }

    fn schedule_run(&mut self) {
        let run = &self.scenario.run;
        for (i, f) in self.scenario.flows.iter().enumerate() {
            let start = self.flows[i].start;
            if start < run.duration {
                self.events.push(start, Event::FlowStart(FlowId::from_idx(i)));
            }
            if let Some(stop) = f.stop.filter(|s| *s < run.duration) {
                self.events.push(stop, Event::FlowStop(FlowId::from_idx(i)));
            }
        }
        self.events.push(run.duration, Event::End);
        self.schedule_next_interval_end();
    }

    /// Schedules the end of the interval under way, unless the run's end closes it. Intervals
    /// are scheduled one at a time so that the heap holds one such event, however many there are.
    fn schedule_next_interval_end(&mut self) {
        let run = &self.scenario.run;
        // with a warm-up, interval 0 is the warm-up, and interval k ≥ 1 ends at warmup + k·interval
        let k = self.intervals_closed as u64 + u64::from(run.warmup == Time::ZERO);
        let end = run.warmup + Time(run.interval.0 * k);
        if end < run.duration {
            self.events.push(end, Event::IntervalEnd);
        }
    }

    /// Processes at most `budget` events; returns whether the run has ended.
    pub fn run_events(&mut self, budget: u64) -> bool {
        let started = Instant::now();
        let mut n = 0;
        while n < budget && !self.done {
            let (t, ev) = self.events.pop().expect("the End event is always queued");
            self.now = t;
            n += 1;
            self.dispatch(ev);
        }
        self.events_processed += n;
        self.wall += started.elapsed();
        self.done
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.run_events(u64::MAX);
    }

    pub fn now(&self) -> Time {
        self.now
    }
    pub fn is_done(&self) -> bool {
        self.done
    }
    /// Why the run stopped before its end, if it did (a queue grew beyond any memory).
    pub fn error(&self) -> Option<&str> {
        self.failure.as_deref()
    }
    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }
    pub fn end_time(&self) -> Time {
        self.scenario.run.duration
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(p) => self.tx_done(p),
            Event::Arrive(p) => self.arrive(p),
            Event::FlowStart(f) => self.flow_start(f),
            Event::FlowStop(f) => self.flow_stop(f),
            Event::AppPacket(f) => self.app_packet(f),
            Event::Timer(f, t) => self.timer(f, t),
            Event::IntervalEnd => {
                self.close_interval();
                self.schedule_next_interval_end();
            }
            Event::End => {
                self.close_interval();
                self.done = true;
            }
        }
    }

    // ----- ports ---------------------------------------------------------------------------

    fn enqueue(&mut self, p: PortId, mut pkt: Packet) {
        let now = self.now;
        pkt.enqueued_at = now;
        let port = &mut self.ports[p.idx()];
        port.stats.current.arrivals += 1;
        if let Some(rec) = &mut port.fluid {
            rec.arrived(now.0, &pkt);
        }
        let on_line = port.transmitting.filter(|_| port.buffer_includes_line).map(|(p, _)| p.size);
        let mut ctx = QdiscCtx::new(now, port.rate, &mut port.rng, &mut self.drops, &mut port.stats.current.marks)
            .with_line(on_line);
        port.qdisc.enqueue(pkt, &mut ctx);
        if port.qdisc.len_packets() > MAX_QUEUE_PACKETS {
            self.failure = Some(format!(
                "the queue at port {} passed {MAX_QUEUE_PACKETS} packets at {now}: an unlimited buffer is fed \
                 faster than its line drains it; give the link a `buffer` or slow the sources",
                port.name
            ));
            self.done = true;
        }
        let idle = port.transmitting.is_none();
        if !idle {
            // an idle port takes the packet straight to the line: it never waits, and start_tx
            // records the queue's length
            port.queue_changed(now);
        }
        self.account_drops(p);
        if idle {
            self.start_tx(p);
        }
    }

    fn start_tx(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.ports[p.idx()];
        let mut ctx = QdiscCtx::new(now, port.rate, &mut port.rng, &mut self.drops, &mut port.stats.current.marks);
        let next = port.qdisc.dequeue(&mut ctx);
        port.queue_changed(now);
        if let Some(pkt) = next {
            port.transmitting = Some((pkt, now));
            self.events.push(now + port.rate.tx_time(pkt.size), Event::TxDone(p));
        }
        self.account_drops(p);
    }

    fn tx_done(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.ports[p.idx()];
        let (pkt, started) = port.transmitting.take().expect("TxDone only while transmitting");
        port.stats.add_busy(started, now);
        port.stats.current.departures += 1;
        port.stats.current.bytes_sent += pkt.size as u64;
        if let Some(rec) = &mut port.fluid {
            rec.departed(now.0, &pkt);
        }
        let arrival = now + port.delay;
        port.pipe.push_back((arrival, pkt));
        if port.pipe.len() == 1 {
            self.events.push(arrival, Event::Arrive(p));
        }
        self.start_tx(p);
    }

    fn arrive(&mut self, p: PortId) {
        let port = &mut self.ports[p.idx()];
        let (_, mut pkt) = port.pipe.pop_front().expect("Arrive only with a packet in the pipe");
        if let Some(&(next, _)) = port.pipe.front() {
            self.events.push(next, Event::Arrive(p));
        }
        pkt.hop += 1;
        let flow = &self.flows[pkt.flow.idx()];
        let route = if pkt.is_data() { &flow.data_route } else { &flow.ack_route };
        match route.get(pkt.hop as usize) {
            Some(&next) => self.enqueue(next, pkt),
            None if pkt.is_data() => self.sink_receive(pkt),
            None => self.source_receive(pkt),
        }
    }

    /// Attributes the drops a discipline just reported; almost always there are none.
    #[inline]
    fn account_drops(&mut self, p: PortId) {
        if !self.drops.is_empty() {
            self.account_drops_now(p);
        }
    }

    #[cold]
    fn account_drops_now(&mut self, p: PortId) {
        for (pkt, reason) in std::mem::take(&mut self.drops).drain(..) {
            let flow = &mut self.flows[pkt.flow.idx()];
            if pkt.is_data() {
                flow.counters.dropped += 1;
                flow.tally_drop(p, reason);
            } else {
                flow.counters.acks_dropped += 1;
            }
            self.ports[p.idx()].stats.current.drops += 1;
        }
    }

    // ----- hosts ---------------------------------------------------------------------------

    fn next_id(&mut self) -> u64 {
        self.next_packet_id += 1;
        self.next_packet_id
    }

    fn send_data(&mut self, f: FlowId, seq: u64) {
        let id = self.next_id();
        let spec = &self.scenario.flows[f.idx()];
        let flow = &mut self.flows[f.idx()];
        let retransmission = seq < flow.next_new_seq;
        if flow.sender.is_some() {
            for _ in flow.next_new_seq..=seq {
                flow.first_sent.push_back(self.now);
            }
        }
        flow.next_new_seq = flow.next_new_seq.max(seq + 1);
        flow.counters.sent += 1;
        flow.counters.retransmitted += retransmission as u64;
        let pkt = Packet {
            id,
            flow: f,
            kind: PacketKind::Data,
            seq,
            size: spec.packet_size,
            src: spec.src,
            dst: spec.dst,
            sent_at: self.now,
            echo_sent_at: Time::ZERO,
            echo_seq: 0,
            enqueued_at: self.now,
            hop: 0,
            congestion: false,
            retransmission,
            priority: 0,
            label: 0.0,
        };
        let first = flow.data_route[0];
        self.enqueue(first, pkt);
    }

    fn sink_receive(&mut self, pkt: Packet) {
        let ack_id = if self.scenario.flows[pkt.flow.idx()].acks { self.next_id() } else { 0 };
        let spec = &self.scenario.flows[pkt.flow.idx()];
        let flow = &mut self.flows[pkt.flow.idx()];
        let c = &mut flow.counters;
        c.delivered += 1;
        c.bytes_delivered += pkt.size as u64;
        c.add_delay(self.now - pkt.sent_at);
        // open-loop sources never retransmit, so they need no reordering state
        let closed_loop = flow.sender.is_some();
        if !closed_loop || flow.receiver.receive(pkt.seq) {
            c.delivered_unique += 1;
            c.bytes_unique += pkt.size as u64;
        }
        if !spec.acks {
            return;
        }
        c.acks_sent += 1;
        let ack = Packet {
            id: ack_id,
            kind: PacketKind::Ack,
            seq: if closed_loop { flow.receiver.ack() } else { pkt.seq + 1 },
            size: spec.ack_size,
            src: spec.dst,
            dst: spec.src,
            sent_at: self.now,
            echo_sent_at: pkt.sent_at,
            echo_seq: pkt.seq,
            hop: 0,
            retransmission: false,
            ..pkt
        };
        let first = flow.ack_route[0];
        self.enqueue(first, ack);
    }

    fn source_receive(&mut self, ack: Packet) {
        let f = ack.flow;
        let flow = &mut self.flows[f.idx()];
        flow.counters.acks_received += 1;
        flow.counters.add_rtt(self.now - ack.echo_sent_at);
        if flow.sender.is_some() {
            // a cumulative ACK: every packet it newly covers completes its round trip now
            for _ in flow.highest_ack..ack.seq.min(flow.next_new_seq) {
                let first = flow.first_sent.pop_front().expect("one entry per unacknowledged packet");
                flow.counters.add_rtt_first(self.now - first);
            }
        } else {
            flow.counters.add_rtt_first(self.now - ack.echo_sent_at);
        }
        flow.highest_ack = flow.highest_ack.max(ack.seq);
        if let Some(n) = flow.file_packets {
            if flow.completed_at.is_none() && flow.highest_ack >= n {
                flow.completed_at = Some(self.now);
            }
        }
        self.with_sender(f, |s, ctx| s.on_ack(&ack, ctx));
    }

    /// Calls the flow's sender (if it has one) and carries out what it asked for.
    fn with_sender(&mut self, f: FlowId, call: impl FnOnce(&mut dyn Sender, &mut AgentCtx)) {
        let flow = &mut self.flows[f.idx()];
        let Some(sender) = flow.sender.as_mut() else { return };
        let mut ctx = AgentCtx::new(self.now, flow.app_limit, &mut self.actions);
        call(sender.as_mut(), &mut ctx);
        let mut actions = std::mem::take(&mut self.actions);
        for a in actions.drain(..) {
            match a {
                Action::Send { seq } => self.send_data(f, seq),
                Action::SetTimer(id, at) => {
                    if let Some(t) = self.flows[f.idx()].timers[id.0 as usize].set(at.max(self.now)) {
                        self.events.push(t, Event::Timer(f, id));
                    }
                }
                Action::CancelTimer(id) => self.flows[f.idx()].timers[id.0 as usize].cancel(),
                Action::Count(event) => {
                    let c = &mut self.flows[f.idx()].counters;
                    match event {
                        crate::transport::Event::Timeout => c.timeouts += 1,
                        crate::transport::Event::FastRetransmit => c.fast_retransmits += 1,
                    }
                }
                Action::Record(series, value) => {
                    if let Some(t) = &mut self.flows[f.idx()].trace {
                        // a value set twice at one instant keeps its last
                        match t.last_mut() {
                            Some(last) if last.0 == self.now && last.1 == series => last.2 = value,
                            _ => t.push((self.now, series, value)),
                        }
                    }
                }
            }
        }
        self.actions = actions;
    }

    fn flow_start(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f.idx()];
        if let App::Ftp { packets } = self.scenario.flows[f.idx()].app {
            let packets = flow.drawn_packets.or(packets);
            flow.file_packets = packets;
            flow.app_limit = packets.unwrap_or(u64::MAX);
        }
        if let Some(source) = flow.source.as_mut() {
            let first = source.first(now, &mut flow.rng);
            self.events.push(first, Event::AppPacket(f));
        }
        self.with_sender(f, |s, ctx| s.on_start(ctx));
    }

    /// The application stops producing data; what it already produced is still sent. An FTP's
    /// file ends with the packets sent so far.
    fn flow_stop(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        flow.stopped = true;
        if flow.source.is_none() {
            flow.app_limit = flow.app_limit.min(flow.next_new_seq);
        }
    }

    fn app_packet(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f.idx()];
        if flow.stopped {
            return;
        }
        if flow.sender.is_some() {
            flow.app_limit += 1;
            self.with_sender(f, |s, ctx| s.on_data(ctx));
        } else {
            let seq = flow.next_new_seq;
            self.send_data(f, seq);
        }
        let flow = &mut self.flows[f.idx()];
        let next = flow.source.as_mut().expect("timed application").next(now, &mut flow.rng);
        if next < self.scenario.run.duration {
            self.events.push(next, Event::AppPacket(f));
        }
    }

    fn timer(&mut self, f: FlowId, id: TimerId) {
        match self.flows[f.idx()].timers[id.0 as usize].on_event(self.now) {
            TimerFire::Fire => self.with_sender(f, |s, ctx| s.on_timer(id, ctx)),
            TimerFire::Reschedule(t) => self.events.push(t, Event::Timer(f, id)),
            TimerFire::Ignore => {}
        }
    }

    fn close_interval(&mut self) {
        self.intervals_closed += 1;
        for flow in &mut self.flows {
            flow.intervals.push(std::mem::take(&mut flow.counters));
        }
        for port in &mut self.ports {
            let tx = port.transmitting.map(|(_, started)| started);
            port.stats.close_interval(self.now, tx);
        }
    }

    /// Data packets of each flow still in the network (queued, on a line, or propagating).
    pub fn data_in_network(&self) -> Vec<u64> {
        let mut n = vec![0; self.flows.len()];
        for port in &self.ports {
            port.for_each_packet(&mut |p| {
                if p.is_data() {
                    n[p.flow.idx()] += 1;
                }
            });
        }
        n
    }
}
