//! The simulation loop: one run of a scenario under one protocol pair with one seed.
//!
//! The loop pops events and hands each to what it names: a port (`TxDone`, `Arrive`), a flow's
//! host or application (`FlowStart`, `FlowStop`, `AppPacket`), a sender's timer, the interval
//! clock. The verbs live with their state (`node::Port`, `node::FlowState`); the loop only
//! schedules the events they ask for, and the event set runs the events of one instant in its
//! canonical order (`engine::event`), whatever the order they were scheduled in. Hosts and
//! switches are infinitely fast (thesis §6.5): a packet arriving at a node is handed on,
//! delivered or acknowledged at the same instant, so queues form only at output ports.

use super::build;
use super::connections::Connections;
use super::event::{Code, Event, EventQueue};
use super::forwarding::Forwarder;
use super::parallel::partition::{DelaySample, FirstDrop, Partition};
use super::port_table::PortTable;
use super::routes::Routes;
use super::shared_buffer::SharedBuffers;
use crate::error::Result;
use crate::net::{Control, FlowId, Forwarding, Packet, PacketPool, PortId};
use crate::node::{FlowState, Line, Next, Port, SinkReply, Woken, MAX_QUEUE_PACKETS, NO_ARRIVAL};
use crate::qdisc::DropReason;
use crate::scenario::{Component, PairSpec, Scenario};
use crate::stats::DelayStats;
use crate::timer::TimerFire;
use crate::timer::TimerId;
use crate::transport::reliability::sack::SackBlocks;
use crate::transport::reliability::sink::SackOptions;
use crate::transport::reliability::sink::DELAYED_ACK;
use crate::units::Time;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct Simulation {
    /// Shared, not copied: every run of a sweep or of a call's seeds reads the same scenario,
    /// which at 100,000 flows is hundreds of megabytes.
    pub(super) scenario: Arc<Scenario>,
    pub(super) pair: PairSpec,
    pub(super) seed: u64,
    pub(super) now: Time,
    pub(super) done: bool,
    /// Why the run stopped early, if something made it impossible to go on.
    pub(super) failure: Option<String>,
    pub(super) events: EventQueue,
    pub(super) events_processed: u64,
    pub(super) intervals_closed: usize,
    /// The scenario's ports, then connections' own access lines; in a partition of a parallel
    /// run, only those it handles events of.
    pub(super) ports: PortTable,
    /// The scenario's flows, then the connections of open-population flows (`connections`).
    pub(super) flows: Vec<FlowState>,
    /// Each scenario flow's routes, for forwarding (`routes.rs`).
    pub(super) routes: Routes,
    /// The next hops of flows whose paths are chosen at each switch, if the run has any.
    pub(super) forwarder: Option<Box<Forwarder>>,
    /// What transfers' ideal completion times are measured on (`ideal`), once one is.
    pub(super) ideal: Option<Box<super::ideal::IdealNetwork>>,
    /// The switches' shared buffers, if the scenario has any.
    shared: Option<Box<SharedBuffers>>,
    /// Priority flow control at the switches' ingresses, if the scenario has it (`pfc.rs`).
    pub(super) pfc: Option<Box<super::pfc::Pfc>>,
    /// The network's changes (`[[events]]`), by their events' numbers (`failures.rs`).
    pub(super) changes: Vec<super::changes::Change>,
    pub(super) connections: Connections,
    /// Each flow's data packets in the network when the run ended, counted before its pipes
    /// were let go (`shed_packets`); `None` while it runs.
    in_network_at_end: Option<Vec<u64>>,
    /// Each scenario flow's queueing delays since the warm-up ended (stats::delay), and the
    /// fixed part of its data packets' one-way delay: (packet size, transmission and propagation
    /// along the route), for the size last seen.
    pub(super) queueing: Vec<DelayStats>,
    path_delay: Vec<(u32, u64)>,
    /// The pair's index in the scenario: its resolved components (`port_qdiscs`,
    /// `flow_transports`) are read there, not copied into each run.
    configured: usize,
    pub(super) next_packet_id: u64,
    /// Packet ids count up by this: 1, or in a parallel run the number of partitions, each
    /// starting from its own, so that ids stay unique across partitions (`engine::parallel`).
    pub(super) id_stride: u64,
    /// A partition's own state in a parallel run (`engine::parallel`); `None` on one thread.
    pub(super) partition: Option<Box<Partition>>,
    /// The SACK blocks of the ACKs in the network, by packet id (an ACK's options, kept beside
    /// it so that packets stay small for the flows that do not use SACK); kept for the whole
    /// run when ports are captured, for their pcap files.
    pub(super) sack_options: SackOptions,
    /// Where the ports' queues and pipes keep their packets (`net::packet_pool`); a partition's
    /// own, numbered apart from the others' (`PacketPool::sibling`).
    pub(super) pool: PacketPool,
    /// Scratch space reused across events so the hot path does not allocate.
    pub(super) drops: Vec<(Packet, DropReason)>,
    pub(super) actions: Vec<crate::transport::Action>,
    /// Each receiving host's pull pacer, by node, for receiver-driven transports (`pulls.rs`);
    /// empty in runs without them.
    pub(super) pacers: Vec<crate::node::PullPacer>,
    /// The INT records of the packets in the network, in runs with a telemetry flow
    /// (`telemetry.rs`).
    pub(super) telemetry: Option<Box<crate::net::int::IntRecords>>,
    pub(super) wall: Duration,
    /// How long this run took to build (a parallel run's copies take about as long each).
    pub(super) built_in: Duration,
}

/// Returns the heaps' free pages to the system if a run's end gave back enough to be worth the
/// trim (memory::WORTH_TRIMMING).
fn return_freed_if_worth(freed: usize) {
    if freed >= crate::memory::WORTH_TRIMMING {
        crate::memory::return_freed();
    }
}

impl Simulation {
    /// Builds a run of `scenario` under the pair called `pair` (the first one if `None`),
    /// seeded with `seed` (the scenario's own seed if `None`).
    pub fn new(scenario: &Scenario, pair: Option<&str>, seed: Option<u64>) -> Result<Simulation> {
        Simulation::shared(Arc::new(scenario.clone()), pair, seed)
    }

    /// `new` for a scenario held in an `Arc`, which the run shares instead of copying.
    pub fn shared(scenario: Arc<Scenario>, pair: Option<&str>, seed: Option<u64>) -> Result<Simulation> {
        Simulation::holding(scenario, pair, seed, None)
    }

    /// `shared`, holding only the ports `held` marks, by id, if given: a partition of a parallel
    /// run (`engine::parallel`), whose other ports are the other partitions'.
    pub(super) fn holding(
        scenario: Arc<Scenario>,
        pair: Option<&str>,
        seed: Option<u64>,
        held: Option<&[bool]>,
    ) -> Result<Simulation> {
        let building = Instant::now();
        let pair = scenario.pair(pair)?.clone();
        let seed = seed.unwrap_or(scenario.run.seed);
        let mut ports = build::ports(&scenario, &pair, seed, held)?;
        // connections may add an access line each way
        if ports.len() + 2 * crate::limits::MAX_OPEN_CONNECTIONS > super::event::MAX_PORTS {
            return Err(crate::error::Error::Usage(format!(
                "{} ports are more than the engine can name ({})",
                ports.len(),
                super::event::MAX_PORTS - 2 * crate::limits::MAX_OPEN_CONNECTIONS
            )));
        }
        let flows = build::flows(&scenario, &pair, seed)?;
        let configured = scenario.pair_index(&pair);
        let mut routes = Routes::default();
        for spec in &scenario.flows {
            // a workload's connections run between the hosts it draws: none takes its route
            if spec.forwarding == Forwarding::Static && !spec.draws_ends() {
                routes.push(&spec.data_route, &spec.ack_route);
            } else {
                routes.push(&[], &[]);
            }
        }
        let forwarder = Forwarder::new(&scenario, seed);
        let shared = SharedBuffers::new(&scenario);
        // a shared buffer and adaptive forwarding read switches' queues at arrivals elsewhere:
        // each must be as of that instant, so no port may leave its dequeues to its next look
        // (node::port, `chained`). A connection's own line (engine::arrivals) is read by neither.
        if shared.is_some() || scenario.flows.iter().any(|f| f.forwarding == Forwarding::Adaptive) {
            ports.iter_mut().for_each(Port::keep_end_events);
        }
        let pfc = super::pfc::Pfc::new(&scenario);
        if let Some(pfc) = &pfc {
            pfc.prepare(&scenario, &mut ports)?;
        }
        let shortest = scenario.ports.iter().map(|p| p.delay).filter(|d| *d > Time::ZERO).min();
        let mut connections = Connections::new(flows.len(), ports.len(), shortest.unwrap_or(Time::ZERO));
        connections.transfers.detailed = scenario.flows.iter().any(|f| f.draws_ends());
        connections.taken = (!scenario.run.events.is_empty()).then(Vec::new);
        let (queueing, path_delay) =
            (vec![DelayStats::default(); scenario.flows.len()], vec![(u32::MAX, 0); scenario.flows.len()]);
        let sack_options = SackOptions::new(!scenario.run.pcap.is_empty());
        let telemetry =
            crate::net::int::IntRecords::new(flows.iter().map(|f| f.ends.telemetry)).map(|(table, stamps)| {
                // every switch egress stamps (a host's access line does not, as htsim's), of
                // those held (a partition of a parallel run holds only some)
                for (id, _) in scenario.ports.iter().enumerate().filter(|(_, spec)| !spec.host) {
                    if let Some(port) = ports.get_mut(id) {
                        port.start_stamping(stamps.clone());
                    }
                }
                Box::new(table)
            });
        let changes = super::changes::changes(&scenario);
        let mut sim = Simulation {
            scenario,
            pair,
            seed,
            now: Time::ZERO,
            done: false,
            failure: None,
            events: EventQueue::default(),
            events_processed: 0,
            intervals_closed: 0,
            ports,
            flows,
            routes,
            forwarder,
            ideal: None,
            shared,
            pfc,
            changes,
            connections,
            in_network_at_end: None,
            queueing,
            path_delay,
            configured,
            next_packet_id: 0,
            id_stride: 1,
            partition: None,
            sack_options,
            pool: PacketPool::standalone(),
            drops: vec![],
            actions: vec![],
            pacers: vec![],
            telemetry,
            wall: Duration::ZERO,
            built_in: Duration::ZERO,
        };
        sim.schedule_run();
        sim.built_in = building.elapsed();
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
        self.schedule_changes();
    }

    /// Processes at most `budget` events; returns whether the run has ended.
    pub fn run_events(&mut self, budget: u64) -> bool {
        self.advance(budget);
        self.pause()
    }

    /// The run stops for now after `advance`: ended, or its ports settled up to now (a stop
    /// changes no result: the run in steps is the run in one go). Returns whether it has ended.
    pub(super) fn pause(&mut self) -> bool {
        let started = Instant::now();
        if self.done {
            self.ended();
        } else {
            self.settle_ports();
        }
        self.wall += started.elapsed();
        self.done
    }

    /// Processes at most `budget` events, leaving the ports as the last event left them (a
    /// caller that goes on at once need not settle every port: `pause`).
    #[inline]
    pub(super) fn advance(&mut self, budget: u64) {
        let started = Instant::now();
        let limit = self.events_processed.saturating_add(budget);
        while self.events_processed < limit && !self.done {
            let (t, ev) = self.events.pop_code().expect("the End event is always queued");
            self.now = t;
            // counted before it is handled: a run stopped from outside inside a Python hook
            // unwinds out of `dispatch`, and its report counts the events that ran
            self.events_processed += 1;
            self.dispatch_fetching_ahead(ev);
        }
        self.wall += started.elapsed();
    }

    /// Handles `ev` while the port of the likely next event is fetched: its pipe now, then
    /// (that in the cache by the end) the packet leading it (net::prefetch).
    #[inline(always)]
    pub(super) fn dispatch_fetching_ahead(&mut self, ev: Code) {
        let next = self.events.likely_next_port();
        if let Some(p) = next {
            self.ports[p.idx()].prefetch_state();
        }
        self.dispatch(ev);
        if let Some(p) = next {
            self.ports[p.idx()].prefetch_pipe_head(&self.pool);
        }
    }

    /// The run stopped without its `End` event (a failure): what nothing reads any more goes
    /// (`let_go_of_packets`), and its room goes back to the system if it is worth it. A run
    /// that ended at its `End` event, or whose partitions were put together, has let go
    /// already (`end_whole`).
    #[inline(never)]
    pub(super) fn ended(&mut self) {
        let freed = self.let_go_of_packets();
        return_freed_if_worth(freed);
    }

    /// The run has ended: the packets propagating and the pending events go, once counted, and
    /// with them the pool's chunks if no queue still holds a packet, for the last records and
    /// the report to reuse (`net::packet_pool`), and ECMP's tables. Returns the bytes of chunks
    /// given back (0 if it had let go already: once only).
    fn let_go_of_packets(&mut self) -> usize {
        if self.in_network_at_end.is_some() {
            return 0;
        }
        self.shed_packets();
        // nothing routes a packet any more, and the report reads no table: ECMP's tables, 21 MB
        // of a k = 64 fabric's run, were held while its report's columns were made
        self.forwarder = None;
        self.pool.release_if_empty()
    }

    /// Once the run has ended and its last interval is closed, its connections' states go:
    /// their counts are in their flows' and their transfers' (`fold_connections`), and nothing
    /// reads them any more (`flows()` is the scenario's flows). A k = 64 fat-tree's 65,536
    /// connections held about 110 MB, with their senders and routes, while the report's columns
    /// were made. Returns the bytes of the states let go of.
    pub(super) fn let_go_of_connections(&mut self) -> usize {
        let first = self.connections.first;
        let freed = (self.flows.len() - first) * std::mem::size_of::<FlowState>();
        self.flows.truncate(first);
        self.flows.shrink_to_fit();
        freed
    }

    /// A whole run's end (one thread's at its `End` event, or a parallel run's once put
    /// together): the last interval's records take the room of what the run lets go of first,
    /// its packets (the ports those records close settled first, as closing them does); then,
    /// the records made, its connections. What they freed goes back to the system in one trim,
    /// after a big run only, so that the report is made in that room rather than on top of the
    /// run's peak.
    pub(super) fn end_whole(&mut self) {
        self.settle_closing_ports();
        let packets = self.let_go_of_packets();
        self.close_interval();
        return_freed_if_worth(packets + self.let_go_of_connections());
    }

    /// An ended run lets go of what its report does not read: the packets propagating on its
    /// links (counted first, for `data_in_network`) and its pending events, which were held
    /// while the report's columns were made (10,000 flows through FQ: that peak 11 MiB lower,
    /// docs/performance.md), and the packets waiting in FCFS queues (a k = 64 fat-tree over
    /// 20 µs: that peak 26 MiB lower). Other disciplines keep theirs, which their own figures
    /// may read, and so do all under PFC, whose report of stuck ports reads them (`pausing.rs`).
    #[inline(never)]
    fn shed_packets(&mut self) {
        self.in_network_at_end = Some(self.data_in_network());
        let queues_too = self.pfc.is_none();
        for port in self.ports.iter_mut() {
            port.shed_pipe(&mut self.pool);
            if queues_too {
                port.shed_fcfs_queue(&mut self.pool);
            }
        }
        self.events = EventQueue::default();
    }

    /// A report may be asked for when a stretch of the run stops: lazy transmissions that have
    /// ended are counted, as their end events would have been (a run that ends settles as it
    /// closes its last interval). Out of line, to keep the loop's code as it was.
    #[inline(never)]
    fn settle_ports(&mut self) {
        let now = self.now;
        self.ports.iter_mut().for_each(|p| p.settle(now, &mut self.pool));
    }

    /// Every transmission ends with an event, none left out (`node::port`: lazy and chained
    /// ends): the same run with more events, so that a check can show that leaving them out
    /// changes no result. Before the run starts.
    #[doc(hidden)]
    pub fn end_every_transmission(&mut self) {
        self.ports.iter_mut().for_each(Port::end_every_transmission);
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.run_events(u64::MAX);
    }

    #[inline(always)]
    pub(super) fn dispatch(&mut self, ev: Code) {
        match ev.kind() {
            Code::TX_DONE => self.tx_done(ev.port()),
            Code::ARRIVE => self.arrive(ev.port()),
            Code::FLOW_START => self.flow_start(ev.flow()),
            Code::FLOW_STOP => self.flows[ev.flow().idx()].stop_app(),
            Code::APP_PACKET => self.app_packet(ev.flow()),
            Code::ARRIVAL => self.arrival(ev.flow()),
            Code::TIMER => {
                let (f, t) = ev.timer();
                self.timer(f, t)
            }
            _ if ev.is_end() => {
                if self.partition.is_none() {
                    self.end_whole();
                } else {
                    // a partition: its connections' counts go to its flows' and transfers', which
                    // the partitions' are summed into. The run put together closes the last
                    // interval (`end_whole`), where those records take the room of the packets
                    // it lets go of first: closed here, they were made on top of them (a k = 64
                    // run on two threads: 51 MB).
                    self.fold_connections();
                }
                self.done = true;
            }
            _ => match (ev.pause(), ev.pace(), ev.network()) {
                (Some((port, xoff)), ..) => self.pause_frame(port, xoff),
                (None, Some(node), _) => self.pace(node),
                (None, None, Some(n)) => self.network_change(n),
                (None, None, None) => {
                    self.close_interval();
                    self.schedule_next_interval_end();
                }
            },
        }
    }

    // ----- ports ---------------------------------------------------------------------------

    pub(super) fn enqueue(&mut self, p: PortId, pkt: Packet) {
        let shared = self.shared_before(p);
        let port = &mut self.ports[p.idx()];
        let line = port.enqueue(pkt, self.now, &mut self.drops, &mut self.pool);
        if port.overflowed() {
            self.failure = Some(self.overflow_message(p));
            self.done = true;
        }
        if let Some(before) = shared {
            self.shared_after(p, before);
        }
        self.account_drops(p);
        match line {
            Line::Idle => self.start_tx(p),
            Line::Then(next) => self.schedule(p, next),
        }
    }

    pub(super) fn start_tx(&mut self, p: PortId) {
        let shared = self.shared_before(p);
        let next = self.ports[p.idx()].start_tx(self.now, &mut self.drops, &mut self.pool);
        if let Some(before) = shared {
            self.shared_after(p, before);
        }
        self.schedule(p, next);
        self.account_drops(p);
    }

    /// If port `p` is in a shared buffer: its queue's bytes before a verb changes them, its
    /// share set for the verb.
    #[inline]
    pub(super) fn shared_before(&mut self, p: PortId) -> Option<u64> {
        let shared = self.shared.as_deref()?;
        let port = &mut self.ports[p.idx()];
        let queued = port.queued_bytes();
        port.share = shared.share(p, queued)?;
        Some(queued)
    }

    /// Port `p`'s queue changed from `before` bytes: its shared buffer counts the change.
    #[cold]
    pub(super) fn shared_after(&mut self, p: PortId, before: u64) {
        let after = self.ports[p.idx()].queued_bytes();
        if let Some(shared) = self.shared.as_deref_mut() {
            shared.changed(p, before, after);
        }
    }

    /// Schedules the event port `p`'s verb asked for.
    #[inline]
    pub(super) fn schedule(&mut self, p: PortId, next: Next) {
        match next {
            Next::Nothing => {}
            Next::TxDone(at) => self.events.push(at, Event::TxDone(p)),
            Next::Arrive(at) => self.events.push(at, Event::Arrive(p)),
        }
    }

    fn tx_done(&mut self, p: PortId) {
        if self.ports[p.idx()].timer_set() {
            return self.tx_done_or_timer(p);
        }
        self.tx_end(p);
    }

    /// A `TxDone` at a port whose discipline set its timer: the transmission's end, the timer
    /// (the idle line asks the discipline again), or neither (`Port::woken`).
    #[cold]
    #[inline(never)]
    fn tx_done_or_timer(&mut self, p: PortId) {
        match self.ports[p.idx()].woken(self.now, &mut self.pool) {
            Woken::TxEnd => self.tx_end(p),
            Woken::Ask => {
                self.start_tx(p);
                if self.pfc.is_some() {
                    self.pfc_started(p);
                }
            }
            Woken::Stale => {}
        }
    }

    #[inline(always)]
    fn tx_end(&mut self, p: PortId) {
        if self.pfc.is_some() {
            return self.tx_end_pfc(p);
        }
        self.finish_tx(p);
        self.start_tx(p);
    }

    /// The packet on port `p`'s line is sent: into the pipe, or lost on the line.
    #[inline(always)]
    pub(super) fn finish_tx(&mut self, p: PortId) {
        if let Some(arrival) = self.ports[p.idx()].finish_tx(self.now, &mut self.drops, &mut self.pool) {
            self.events.push(arrival, Event::Arrive(p));
        }
        self.account_drops(p); // a packet the line lost
    }

    fn arrive(&mut self, p: PortId) {
        let (pkt, next) = self.ports[p.idx()].deliver(self.now, &mut self.pool);
        if next != NO_ARRIVAL {
            self.events.push(next, Event::Arrive(p));
        }
        if self.telemetry.is_some() && pkt.is_data() {
            self.collect_int(p, &pkt);
        }
        match self.routes.hop(pkt.flow.idx(), pkt.is_data(), pkt.hop) {
            Some(next) => self.forward(p, next, pkt),
            None => self.at_route_end(p, pkt),
        }
    }

    /// `pkt`, arrived over port `p`, is queued at port `next` of the node it reached. PFC's work
    /// is out of line (`forward_pfc`), and telemetry's by reference: `arrive` and `at_route_end`
    /// keep one caller each and stay inlined, and without PFC the packet is never copied into a
    /// call.
    #[inline(always)]
    fn forward(&mut self, p: PortId, next: PortId, pkt: Packet) {
        if self.pfc.is_some() {
            return self.forward_pfc(p, next, pkt);
        }
        self.enqueue(next, pkt)
    }

    /// `pkt` came over port `p` to the end of its route: to its destination, or, if its path is
    /// chosen at each switch, to a node that chooses its next port.
    #[inline(always)]
    fn at_route_end(&mut self, p: PortId, pkt: Packet) {
        if let Some(next) = self.forwarder.as_mut().and_then(|f| f.next(p, &pkt, &self.ports, self.now)) {
            self.forward(p, next, pkt);
        } else if pkt.is_data() {
            self.sink_receive(pkt);
        } else {
            self.source_receive(pkt);
        }
    }

    /// Attributes the drops a discipline (or the line's loss model) just reported; almost always
    /// there are none. A packet the line lost counts in the port's `losses`, any other drop in
    /// its `drops`; the flow counts both as dropped.
    #[inline]
    pub(super) fn account_drops(&mut self, p: PortId) {
        if !self.drops.is_empty() {
            self.account_drops_now(p);
        }
    }

    #[cold]
    fn account_drops_now(&mut self, p: PortId) {
        for (pkt, reason) in std::mem::take(&mut self.drops).drain(..) {
            if self.pfc.is_some() {
                self.pfc_dropped(p, &pkt, reason);
            }
            if let Some(t) = self.telemetry.as_deref_mut() {
                t.dropped(pkt.id); // a data packet's records, or those its ACK echoed
            }
            let flow = &mut self.flows[pkt.flow.idx()];
            if pkt.is_data() {
                flow.counters.dropped += 1;
                let tallied = flow.drop_tally.len();
                flow.tally_drop(p, reason);
                if let Some(part) = self.partition.as_mut().filter(|_| flow.drop_tally.len() > tallied) {
                    let event = part.current;
                    let change = (event.kind() == Code::CLOCK).then(|| event.network()).flatten();
                    let place = change.and_then(|n| self.changes[n as usize].ports.iter().position(|&q| q == p));
                    let (flow, at, place) = (pkt.flow, self.now, place.unwrap_or(0) as u32);
                    part.first_drops.push(FirstDrop { flow, at, event: event.raw(), place });
                }
            } else {
                flow.counters.acks_dropped += 1;
                if flow.uses_sack() {
                    self.sack_options.dropped(pkt.id);
                }
            }
            let port = &mut self.ports[p.idx()];
            match reason {
                DropReason::Loss => port.rare_counters().losses += 1,
                DropReason::LinkDown => port.rare_counters().link_down += 1,
                _ => port.stats.current.drops += 1,
            }
            self.connection_left(pkt.conn);
        }
    }

    /// Whether this run handles node `node`'s events: always on one thread; in a partition of a
    /// parallel run, if the partition holds the node.
    pub(super) fn holds(&self, node: crate::net::NodeId) -> bool {
        self.partition.as_ref().is_none_or(|part| !part.elsewhere[node.idx()])
    }

    // ----- hosts ---------------------------------------------------------------------------

    pub(super) fn next_id(&mut self) -> u64 {
        self.next_packet_id += self.id_stride;
        self.next_packet_id
    }

    pub(super) fn send_data(&mut self, f: FlowId, seq: u64, priority: u8) {
        let id = self.next_id();
        let flow = &mut self.flows[f.idx()];
        let (first, mut pkt) = flow.send_data(seq, id, self.now, priority);
        if flow.pulls.as_ref().is_some_and(|p| !p.spec.per_arrival) {
            // a sender that asks for credit says how much in each data packet (EQDS's pull target)
            pkt.echo_seq = flow.sender.as_ref().map_or(0, |s| s.pull_target());
        }
        self.connection_sent(f);
        self.enqueue(first, pkt);
    }

    fn sink_receive(&mut self, pkt: Packet) {
        // the one-way delay less the route's transmissions and propagations: the time the packet
        // waited in the queues it crossed
        let fixed = self.path_delay(&pkt);
        let queued = (self.now - pkt.sent_at).0.saturating_sub(fixed);
        let later = self.partition.as_mut().and_then(|part| {
            let event = part.current.raw();
            part.delays_later.as_mut().map(|later| (later, event))
        });
        if let Some((later, event)) = later.filter(|_| self.connections.is_connection(pkt.conn)) {
            later.push(DelaySample { at: self.now, event, flow: pkt.flow.0, ns: queued });
        } else if let Some(q) = self.queueing.get_mut(pkt.flow.idx()) {
            q.record(queued);
        }
        let (c, trimmed, target, id, marked) = (pkt.conn, pkt.trimmed(), pkt.echo_seq, pkt.id, pkt.congestion());
        if marked {
            self.notify_congestion(c);
        }
        let reply = self.flows[c.idx()].sink_receive(pkt, self.now);
        if let Some(t) = self.telemetry.as_deref_mut() {
            if !matches!(reply, SinkReply::Ack(..)) {
                t.dropped(id); // no ACK of its own echoes its records
            }
        }
        match reply {
            SinkReply::Ack(first, ack) => {
                // the data packet becomes its ACK; one held back before it leaves
                self.send_ack(first, ack, id);
                self.ack_went(c);
            }
            SinkReply::Arm(at) => {
                self.arm(c, DELAYED_ACK, at);
                self.hold_for_ack(c);
            }
            SinkReply::Nothing => self.connection_left(c),
        }
        if self.flows[c.idx()].pulls.is_some() {
            self.pull_for(c, trimmed, target);
        }
    }

    /// A CE-marked data packet of ends `c` reached its sink: a CNP goes back if its transport
    /// asks for them and one is due (DCQCN).
    #[cold]
    fn notify_congestion(&mut self, c: FlowId) {
        if let Some((first, mut cnp)) = self.flows[c.idx()].cnp(self.now) {
            cnp.id = self.next_id();
            self.connection_sent(c);
            self.enqueue(first, cnp);
        }
    }

    /// Transmission and propagation of data packet `pkt` along its path, in ns.
    #[inline]
    fn path_delay(&mut self, pkt: &Packet) -> u64 {
        match self.path_delay.get(pkt.conn.idx()) {
            Some(&(size, ns)) if size == pkt.size => ns,
            _ => self.path_delay_of(pkt),
        }
    }

    /// Lines changed rate: each flow's fixed part of the delay is computed again when next needed.
    pub(super) fn forget_path_delays(&mut self) {
        self.path_delay.iter_mut().for_each(|d| *d = (u32::MAX, 0));
    }

    /// The fixed part of `pkt`'s one-way delay, on its connection's own path: its route; the
    /// one path forwarding gives all its packets (the first next hops, ECMP's hash); or, where
    /// each packet may take its own, the fastest of the fewest-hop paths (the time a packet
    /// spent on a slower one counts as queueing: docs/results.md).
    #[cold]
    #[inline(never)]
    fn path_delay_of(&mut self, pkt: &Packet) -> u64 {
        let Some(spec) = self.scenario.flows.get(pkt.flow.idx()) else { return 0 };
        let (ports, specs) = (&self.ports, &self.scenario.ports);
        let hop = |p: PortId| {
            let (rate, delay) = ports.line(p.idx(), specs);
            (rate.tx_time(pkt.size) + delay).0
        };
        let c = pkt.conn.idx();
        let ns = match self.forwarder.as_mut() {
            Some(fw) if fw.is_forwarded(c) => match fw.fixed_path(c, pkt.src, pkt.dst, false, false) {
                Some(path) => path.into_iter().map(hop).sum(),
                None => fw.least(pkt.src, pkt.dst, false, &hop).unwrap_or(0),
            },
            _ => spec.data_route.iter().copied().map(hop).sum(),
        };
        if self.path_delay.len() <= c {
            self.path_delay.resize(c + 1, (u32::MAX, 0));
        }
        self.path_delay[c] = (pkt.size, ns);
        ns
    }

    /// Connection `c` (a slot taken anew) has a path of its own: its delays are measured on it.
    pub(super) fn forget_path_delay(&mut self, c: FlowId) {
        if let Some(d) = self.path_delay.get_mut(c.idx()) {
            *d = (u32::MAX, 0);
        }
    }

    /// The data packet that caused `ack` (packet `data`, 0 for none) left the network as the
    /// ACK joins it, with the data packet's INT records if it has any.
    fn send_ack(&mut self, first: PortId, mut ack: Packet, data: u64) {
        ack.id = self.next_id();
        if let Some(t) = self.telemetry.as_deref_mut() {
            t.echo(data, ack.id);
        }
        if self.flows[ack.conn.idx()].uses_sack() {
            self.attach_sack(&mut ack);
        }
        self.enqueue(first, ack);
    }

    /// `ack` carries its sink's SACK blocks.
    #[inline(never)]
    fn attach_sack(&mut self, ack: &mut Packet) {
        let blocks = self.flows[ack.conn.idx()].receiver.take_sack_blocks();
        self.sack_options.attach(ack, blocks);
    }

    /// The sink's delayed-ACK timer of ends `c` expired.
    fn delayed_ack(&mut self, c: FlowId) {
        if let Some((first, ack)) = self.flows[c.idx()].delayed_ack(self.now) {
            // the packet held back becomes the ACK (in a flow of the scenario, it enters)
            self.connection_sent(c);
            self.send_ack(first, ack, 0);
            self.ack_went(c);
        }
    }

    fn source_receive(&mut self, ack: Packet) {
        let c = ack.conn;
        // a pull or a CNP acknowledges nothing: it is for the sender alone
        if !matches!(ack.control(), Control::Pull | Control::Cnp) {
            self.flows[c.idx()].source_receive(&ack, self.now);
        }
        let sack =
            if self.flows[c.idx()].uses_sack() { self.sack_options.arrived(ack.id) } else { SackBlocks::default() };
        // the INT records the ACK echoes, if the run has any (an empty `Vec` allocates nothing)
        let int = self.telemetry.as_deref_mut().map(|t| t.take(ack.id)).unwrap_or_default();
        if self.connections.listening(c) {
            self.with_sender_options(c, sack.as_slice(), &int, |s, ctx| s.on_ack(&ack, ctx));
        }
        if self.connections.is_connection(c) {
            self.connection_check_done(c);
            self.connection_left(c);
        }
    }

    // ----- applications and timers ---------------------------------------------------------

    fn flow_start(&mut self, f: FlowId) {
        let packets = match self.scenario.flows[f.idx()].app.source() {
            crate::traffic::Source::Population(population) => {
                self.population_start(f, &population);
                return;
            }
            crate::traffic::Source::Bulk { packets } => Some(packets),
            crate::traffic::Source::Timed(_) => None,
        };
        if let Some(first) = self.flows[f.idx()].start_app(packets, self.now) {
            self.events.push(first, Event::AppPacket(f));
        }
        self.with_sender(f, |s, ctx| s.on_start(ctx));
    }

    fn app_packet(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        if flow.stopped {
            return;
        }
        if flow.sender.is_some() {
            flow.app_limit += 1;
            self.with_sender(f, |s, ctx| s.on_data(ctx));
        } else {
            let (seq, priority) = (flow.next_new_seq, flow.ends.priority);
            self.send_data(f, seq, priority);
        }
        // a noisy clock makes each instant late by its own draw, so the next one may come out
        // before this one: the application is sequential, and sends it right after this one
        let next = self.flows[f.idx()].next_app_packet().max(self.now);
        if next < self.scenario.run.duration {
            self.events.push(next, Event::AppPacket(f));
        }
    }

    fn timer(&mut self, f: FlowId, id: TimerId) {
        match self.flows[f.idx()].timers[id.0 as usize].on_event(self.now) {
            TimerFire::Fire if id == DELAYED_ACK => self.delayed_ack(f),
            TimerFire::Fire => self.with_sender(f, |s, ctx| s.on_timer(id, ctx)),
            TimerFire::Reschedule(t) => self.events.push(t, Event::Timer(f, id)),
            TimerFire::Ignore => {}
        }
    }

    // ----- what reports read ---------------------------------------------------------------

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
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn pair(&self) -> &PairSpec {
        &self.pair
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Wall-clock time spent in the loop so far.
    pub fn wall(&self) -> Duration {
        self.wall
    }
    /// Port `p`'s name: its scenario's, or for a connection's own access line, the line it
    /// copies and the connection's number (`tor1->h3#12`).
    pub fn port_name(&self, p: PortId) -> String {
        let Some(own) = p.idx().checked_sub(self.connections.first_own_port) else {
            return self.scenario.port_name(p.idx());
        };
        let (of, number) = self.connections.own_lines[own];
        format!("{}#{number}", self.scenario.port_name(of.idx()))
    }

    /// Why the run stops at port `p`: its queue outgrew any memory (`Port::overflowed`).
    #[cold]
    pub(super) fn overflow_message(&self, p: PortId) -> String {
        format!(
            "the queue at port {} passed {MAX_QUEUE_PACKETS} packets at {}: an unlimited buffer is fed faster \
             than its line drains it; give the link a `buffer` or slow the sources",
            self.port_name(p),
            self.now
        )
    }

    /// The scenario's ports (connections' own access lines left out).
    pub fn ports(&self) -> &[Port] {
        &self.ports.all()[..self.connections.first_own_port]
    }
    /// Each scenario flow's queueing delays since the warm-up ended.
    pub fn flow_queueing(&self) -> &[DelayStats] {
        &self.queueing
    }
    /// The scenario's flows (each counting its connections, if it has any).
    pub fn flows(&self) -> &[FlowState] {
        &self.flows[..self.connections.first]
    }
    /// Every transfer of the open-population flows.
    pub fn transfers(&self) -> &crate::stats::transfers::Transfers {
        &self.connections.transfers
    }
    /// The discipline of each port, as resolved (kind and every parameter).
    pub fn port_qdiscs(&self) -> &[Arc<Component>] {
        &self.scenario.configured[self.configured].qdiscs
    }
    /// The transport of each flow, as resolved; `None` for open-loop flows.
    pub fn flow_transports(&self) -> &[Option<Arc<Component>>] {
        &self.scenario.configured[self.configured].transports
    }

    /// Data packets of each flow still in the network (queued, on a line, or propagating).
    pub fn data_in_network(&self) -> Vec<u64> {
        if let Some(n) = &self.in_network_at_end {
            return n.clone();
        }
        let mut n = vec![0; self.connections.first];
        for port in self.ports.iter() {
            port.for_each_packet(&self.pool, &mut |p| {
                if p.is_data() {
                    n[p.flow.idx()] += 1;
                }
            });
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two hops into an 80 kb/s bottleneck: a firehose at twice its rate and a Generic FTP.
    const NET: &str = r#"
nodes = ["a", "gw", "b"]
[run]
duration = "100s"
warmup = "20s"
interval = "20s"
[links]
in = { between = ["a", "gw"], rate = "1Mbps", delay = "3ms" }
out = { between = ["gw", "b"], rate = "80kbps", delay = "7ms", buffer = 10 }
[flows]
hose = { src = "a", dst = "b", app = "firehose", rate = "160kbps", stop = "60s" }
ftp = { src = "a", dst = "b", app = "ftp" }
"#;

    fn sim() -> Simulation {
        let sc = Scenario::parse(NET, "net.toml", &[]).unwrap();
        Simulation::new(&sc, None, Some(3)).unwrap()
    }

    fn without_wall(mut r: crate::RunReport) -> String {
        r.wall_s = 0.0;
        serde_json::to_string(&r).unwrap()
    }

    #[test]
    fn a_run_in_small_steps_is_the_run_in_one_go() {
        let mut whole = sim();
        whole.run();
        let mut steps = sim();
        let mut calls = 0;
        while !steps.run_events(3) {
            calls += 1;
        }
        assert!(calls > 1000, "the run took many steps ({calls})");
        assert_eq!(steps.events_processed(), whole.events_processed());
        assert_eq!(without_wall(steps.report()), without_wall(whole.report()));
        assert_eq!((whole.now(), whole.is_done(), whole.error()), (Time::from_secs(100), true, None));
    }

    #[test]
    fn an_ended_run_lets_go_of_its_propagating_and_fifo_queued_packets_and_still_counts_them() {
        let held = |s: &Simulation| {
            let mut n = 0;
            s.ports().iter().for_each(|p| p.for_each_packet(&s.pool, &mut |_| n += 1));
            n
        };
        let mut s = sim();
        let (mut counted, mut before) = (s.data_in_network(), 0);
        while !s.run_events(1) {
            (counted, before) = (s.data_in_network(), held(&s));
        }
        assert!(counted[1] > 0, "the FTP has packets in the network at the end");
        assert_eq!(s.data_in_network(), counted, "counted as they were when the run ended");
        assert!(held(&s) < before, "the propagating packets are gone ({} of {before} held)", held(&s));
        // the FCFS queues' too: what is left is at most a packet on each line
        assert!(s.ports().iter().all(|p| p.queued_bytes() == 0));
        assert!(held(&s) <= s.ports().len(), "{} held by {} ports", held(&s), s.ports().len());
        assert_eq!(s.events.len(), 0);
    }

    #[test]
    fn the_event_set_stays_small_whatever_the_load() {
        // per port at most one transmission and one arrival event; per flow its application's
        // next packet, its start and stop, and its timers; one interval end and the run's end
        let mut s = sim();
        let bound = 2 * s.ports().len() + s.flows().len() * (3 + crate::timer::TIMERS_PER_FLOW) + 2;
        let mut largest = 0;
        while !s.run_events(1) {
            largest = largest.max(s.events.len());
        }
        assert!(largest <= bound, "{largest} events queued, bound {bound}");
        assert!(largest >= 5, "the bound is not vacuous: {largest}");
    }

    #[test]
    fn a_noisy_clock_never_sends_time_backwards() {
        // Poisson gaps of 1 ms on average, each instant late by up to 50 ms: the next packet's
        // late instant often comes out before this one's, and is sent right after it instead
        let net = NET.replace("[links]", "clock_jitter = \"50ms\"\n[links]").replace(
            "ftp = {",
            "poi = { src = \"a\", dst = \"b\", app = \"poisson\", mean_gap = \"1ms\", packet_size = \"100B\" }\nftp = {",
        );
        let sc = Scenario::parse(&net, "net.toml", &[]).unwrap();
        let mut s = Simulation::new(&sc, None, Some(3)).unwrap();
        let mut last = Time::ZERO;
        while !s.run_events(1) {
            assert!(s.now() >= last, "time went back from {last} to {}", s.now());
            last = s.now();
        }
        let sent = s.flows()[1].intervals.iter().map(|c| c.sent).sum::<u64>();
        assert!(sent > 50_000, "the Poisson source kept its rate: {sent} packets");
    }

    #[test]
    fn intervals_close_after_the_warm_up_and_then_every_interval() {
        let mut s = sim();
        let mut closed_at = vec![];
        while !s.run_events(1) {
            if s.intervals_closed > closed_at.len() {
                closed_at.push(s.now().as_secs_f64());
            }
        }
        closed_at.push(s.now().as_secs_f64());
        assert_eq!(closed_at, vec![20.0, 40.0, 60.0, 80.0, 100.0]);
        assert!(s.flows().iter().all(|f| f.intervals.len() == 5));
        assert!(s.ports().iter().all(|p| p.stats.intervals.len() == 5));
    }

    #[test]
    fn drops_are_charged_to_their_flow_and_their_port() {
        let mut s = sim();
        s.run();
        let hose = &s.flows()[0];
        let dropped: u64 = hose.intervals.iter().map(|c| c.dropped).sum();
        let tallied: u64 = hose.drop_tally.iter().map(|(_, _, n)| n).sum();
        assert!(dropped > 100, "a firehose at twice the line's rate loses packets: {dropped}");
        assert_eq!(tallied, dropped);
        let at_port: u64 = s.ports().iter().flat_map(|p| &p.stats.intervals).map(|c| c.drops).sum();
        let all: u64 = s.flows().iter().flat_map(|f| &f.intervals).map(|c| c.dropped + c.acks_dropped).sum();
        assert_eq!(at_port, all);
    }
}
