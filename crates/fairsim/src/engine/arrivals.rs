//! An open population's arrivals and departures, as the loop sees them (`Arrival` events; the
//! sends and deliveries of a connection's packets): a connection is made at each arrival in a
//! free slot of `Connections`, counted while its packets are in the network, and folded into
//! its flow's counters when it is gone (connections.rs says what a connection is).

use super::connections::Slot;
use super::event::Event;
use super::ideal::IdealNetwork;
use super::sim::Simulation;

use crate::limits::MAX_OPEN_CONNECTIONS;
use crate::net::{FlowId, NodeId, PortId};
use crate::node::{Port, PortSetup};
use crate::qdisc::PortInfo;
use crate::traffic::population::{derangement, Ends, Listed, Pairs, Population};
use crate::traffic::{exponential, Source};
use crate::transport::Sender;
use crate::units::{BufferLimit, Rate, Time};
use rand::Rng;

/// What a connection's transport reads of its own path (`FlowInfo`'s fields of these names).
struct OwnRoute {
    rate: Rate,
    links: u32,
    base_rtt: Time,
}

impl OwnRoute {
    /// The path's bandwidth-delay product in packets of `packet_size` bytes: its NIC's rate
    /// over its base round trip (as HPCC's B·T is reckoned, so that the default T gives 1).
    fn bdp_packets(&self, packet_size: u32) -> f64 {
        self.rate.0 as f64 / 8.0 * self.base_rtt.as_secs_f64() / packet_size as f64
    }
}

impl Simulation {
    /// Flow `f` starts: its first connection arrives after an exponential gap.
    pub(super) fn schedule_arrival(&mut self, f: FlowId, arrivals: f64) {
        let flow = &mut self.flows[f.idx()];
        let gap = Time::from_secs_f64(exponential(1.0 / arrivals, flow.rng.get()));
        let at = self.now + gap;
        if at < self.scenario.run.duration && !flow.stopped {
            self.events.push(at, Event::Arrival(f));
        }
    }

    /// Open-population flow `f` starts: its first Poisson arrival is scheduled, its batch of
    /// connections is made, or its first listed connection is scheduled.
    pub(super) fn population_start(&mut self, f: FlowId, population: &Population) {
        match population {
            Population::Poisson { per_second, .. } => self.schedule_arrival(f, *per_second),
            Population::Batch { pairs, sizes } => {
                let rng = self.flows[f.idx()].rng.get();
                let pairs = match pairs {
                    Pairs::Permutation(hosts) => derangement(hosts, rng),
                    Pairs::AllToAll(hosts) => hosts
                        .iter()
                        .flat_map(|&s| hosts.iter().filter(move |&&d| d != s).map(move |&d| (s, d)))
                        .collect(),
                    Pairs::Incast { senders, receiver } => senders.iter().map(|&s| (s, *receiver)).collect(),
                };
                for (src, dst) in pairs {
                    let packets = sizes.draw(self.flows[f.idx()].rng.get());
                    self.connect(f, src, dst, packets);
                }
            }
            Population::Listed(list) => {
                if let Some(first) = list.first() {
                    self.events.push(self.now + first.at, Event::Arrival(f));
                }
            }
        }
    }

    /// A connection of flow `f` arrives, as its population says; the next arrival is scheduled.
    pub(super) fn arrival(&mut self, f: FlowId) {
        let spec = &self.scenario.flows[f.idx()];
        let Source::Population(population) = spec.app.source() else { return };
        match population {
            Population::Poisson { per_second, ends, sizes } => {
                let (src, dst) = match &ends {
                    Ends::Flow => (spec.src, spec.dst),
                    Ends::Uniform(hosts) => {
                        let rng = self.flows[f.idx()].rng.get();
                        let src = rng.random_range(0..hosts.len());
                        let dst = (src + rng.random_range(1..hosts.len())) % hosts.len();
                        (hosts[src], hosts[dst])
                    }
                };
                let packets = sizes.draw(self.flows[f.idx()].rng.get());
                self.connect(f, src, dst, packets);
                self.schedule_arrival(f, per_second);
            }
            Population::Listed(list) => {
                let i = self.connections.listed_next(f);
                let Some(&Listed { src, dst, packets, .. }) = list.get(i) else { return };
                self.connect(f, src, dst, packets);
                if let Some(next) = list.get(i + 1) {
                    self.events.push(self.flows[f.idx()].start + next.at, Event::Arrival(f));
                }
            }
            Population::Batch { .. } => {}
        }
    }

    /// A connection of flow `f` from `src` to `dst` with a file of `packets` (`None`: without
    /// end): it takes a free slot (or a new one) and starts its sender.
    fn connect(&mut self, f: FlowId, src: NodeId, dst: NodeId, packets: Option<u64>) {
        if self.flows[f.idx()].stopped {
            return;
        }
        self.connections.free_reusable(self.now);
        if self.connections.open >= MAX_OPEN_CONNECTIONS {
            let name = &self.scenario.flows[f.idx()].name;
            self.failure = Some(format!(
                "{MAX_OPEN_CONNECTIONS} connections of `{name}` were open at once at {}: the network carries \
                 far less than the load offered (fairsim's limit, see \"Limits\" in docs/scenario-format.md)",
                self.now
            ));
            self.done = true;
            return;
        }
        let name = format!("{}#{}", self.scenario.flows[f.idx()].name, self.connections.arrived);
        self.connections.arrived += 1;
        let serial = self.connections.arrived - 1;
        let c = self.take_slot(f);
        let spec = &self.scenario.flows[f.idx()];
        let drawn = spec.draws_ends();
        if let Some(forwarder) = &mut self.forwarder {
            let conversation = self.scenario.flows.len() as u64 + serial;
            forwarder.set_connection(c.idx(), spec.forwarding, src, dst, conversation, drawn);
        }
        self.forget_path_delay(c);
        let route = drawn.then(|| self.route_of(c, f, src, dst)).flatten();
        let bdp = route.as_ref().map(|r| r.bdp_packets(self.scenario.flows[f.idx()].packet_size));
        let sender = match self.new_sender(f, route) {
            Ok(sender) => sender,
            Err(e) => {
                // validation built this flow's sender once, so this cannot fail
                self.failure = Some(e);
                self.done = true;
                return;
            }
        };
        let window_bdp = sender.as_ref().and_then(|s| s.largest_window()).zip(bdp).map(|(w, bdp)| w / bdp);
        let mut ends = super::build::ends(&self.scenario, self.seed, f, &name, sender);
        let own_line = self.connections.slot(c).own_line;
        let spec = &self.scenario.flows[f.idx()];
        ends.ends.conn = c;
        ends.trace = None;
        ends.start = self.now;
        ends.file_packets = packets;
        ends.app_limit = packets.unwrap_or(u64::MAX);
        if let Some(line) = own_line {
            ends.data_line = Some(line);
        }
        if let Some(forwarder) = self.forwarder.as_ref().filter(|_| drawn) {
            // a workload's hosts have one port each (validation checks it): the host's line
            (ends.ends.src, ends.ends.dst) = (src, dst);
            (ends.data_line, ends.ack_line) = (Some(forwarder.line(src)), Some(forwarder.line(dst)));
        }
        if let Some(elsewhere) = self.partition.as_ref().map(|part| &part.elsewhere) {
            // a parallel run's partition that does not hold the source never reads the sender
            // (the sink reads only `closed_loop`): a k = 64 fat-tree's 65,536 senders took 29 MB
            // in each partition. One that holds neither end reads only the ends (whose events
            // are whose) and the sink's settings (whether ACKs crossing it carry SACK blocks),
            // never the routes.
            if elsewhere[src.idx()] {
                ends.sender = None;
                if elsewhere[dst.idx()] {
                    (ends.data_line, ends.ack_line) = (None, None);
                }
            }
        }
        let payload = spec.payload_size as u64;
        let ideal = self.connections.transfers.detailed.then(|| self.ideal_fct(f, c, src, dst, packets));
        let t = &mut self.connections.transfers;
        let row = t.flow.len();
        t.flow.push(f.0);
        t.arrival_s.push(self.now.as_secs_f64());
        t.finish_s.push(None);
        t.bytes.push(packets.unwrap_or(0) * payload);
        t.sent.push(0);
        t.retransmitted.push(0);
        t.delivered.push(0);
        if let Some(ideal) = ideal {
            t.src.push(src.0);
            t.dst.push(dst.0);
            t.ideal_s.push(ideal);
            t.window_bdp.push(window_bdp);
        }
        let first = self.connections.first;
        self.connections.note_taken(c.idx() - first, self.now, row);
        let slot = self.connections.slot(c);
        (slot.row, slot.in_network, slot.done, slot.released) = (row, 0, false, false);
        slot.endless = packets.is_none();
        slot.owes_ack = false;
        if let Some(notes) = &mut self.connections.notes {
            notes.taken(c.idx() - first);
        }
        if let Some(pulls) = &mut ends.pulls {
            pulls.tag = row as u64 + 1; // its pacer's turns are its own, not the slot's last connection's
        }
        if c.idx() == self.flows.len() {
            self.flows.push(ends);
        } else {
            self.flows[c.idx()] = ends;
        }
        self.connections.open += 1;
        // in a parallel run every partition makes every connection; its source's starts it
        if self.holds(src) {
            self.with_sender(c, |s, ctx| s.on_start(ctx));
        }
    }

    /// What a transport reads of connection `c` (of flow `f`)'s own path from `src` to `dst`: its
    /// first line's rate (its NIC's), its links and its base round trip (a fixed path's, else
    /// the first fewest-hop path's), on the network as forwarding knows it now.
    fn route_of(&mut self, c: FlowId, f: FlowId, src: NodeId, dst: NodeId) -> Option<OwnRoute> {
        let forwarder = self.forwarder.as_mut()?;
        let path =
            forwarder.fixed_path(c.idx(), src, dst, false, false).unwrap_or_else(|| forwarder.first_path(src, dst));
        let (ports, specs) = (&self.ports, &self.scenario.ports);
        let line = |p: &PortId| ports.line(p.idx(), specs);
        let rate = line(&forwarder.line(src)).0;
        let base_rtt = crate::transport::base_rtt(path.iter().map(line), self.scenario.flows[f.idx()].packet_size);
        Some(OwnRoute { rate, links: u32::try_from(path.len()).unwrap_or(u32::MAX), base_rtt })
    }

    /// A fresh sender for a connection of flow `f`, from the flow's transport read once, built
    /// for the connection's own path (`route`), if it has its own ends.
    fn new_sender(&mut self, f: FlowId, route: Option<OwnRoute>) -> Result<Option<Box<dyn Sender>>, String> {
        let makers = &mut self.connections.makers;
        if makers.len() <= f.idx() {
            makers.resize_with(f.idx() + 1, || None);
        }
        if makers[f.idx()].is_none() {
            let made = self.scenario.sender_builder(f, &self.pair, self.seed).map_err(|p| p.message)?;
            let Some(maker) = made else { return Ok(None) };
            makers[f.idx()] = Some(maker);
        }
        let (build, info) = makers[f.idx()].as_mut().expect("made above");
        if let Some(r) = route {
            (info.access_rate, info.links, info.base_rtt) = (r.rate, r.links, r.base_rtt);
        }
        build(info).map(Some).map_err(|e| e.message)
    }

    /// A free slot for a connection of `f` (the ends of a slot's previous connection are
    /// replaced by the caller; their counts went to their flow on release); or a new slot past
    /// the last, with its own access line if `f` starts on a host's line and follows a fixed
    /// route. A slot with its own line serves only connections that start on the line it copies;
    /// one without, any connection without.
    fn take_slot(&mut self, f: FlowId) -> FlowId {
        let copies = self.scenario.copied_access_line(f.idx());
        if let Some(k) = self.connections.free.get_mut(&copies).and_then(Vec::pop) {
            return FlowId::from_idx(self.connections.first + k as usize);
        }
        let c = FlowId::from_idx(self.flows.len());
        let own_line = copies.map(|first| self.own_line(first, c));
        let slot = Slot {
            row: 0,
            in_network: 0,
            done: true,
            done_at: Time::ZERO,
            left_at: Time::ZERO,
            released: true,
            endless: false,
            owes_ack: false,
            copies,
            own_line,
        };
        self.connections.slots.push(slot);
        c
    }

    /// A copy of access line `of` for connection `c` alone: same rate, delay and loss model (its
    /// own stream), a FIFO without limit (a host's own line is never where packets queue up
    /// to be dropped).
    fn own_line(&mut self, of: PortId, c: FlowId) -> PortId {
        let spec = &self.scenario.ports[of.idx()];
        let info = PortInfo {
            name: self.scenario.port_name(of.idx()),
            nodes: self.scenario.nodes.clone(),
            buffer: BufferLimit::Unlimited,
            rate: spec.rate,
            flows: self.scenario.flow_meta.clone(),
            crossing: vec![],
            exact_crossing: false,
        };
        // built directly, not looked up by name: no registry (and no door to foreign
        // components) on the run's path
        let qdisc = Box::new(crate::qdisc::Fcfs::new(crate::qdisc::FcfsConfig::default(), &info));
        let number = (c.idx() - self.connections.first) as u32;
        self.connections.own_lines.push((of, number));
        let name = self.port_name(PortId::from_idx(self.ports.len()));
        self.ports.push(Port::new(PortSetup {
            rng: crate::rng::LazyStream::new(self.seed, &format!("port:{name}")),
            loss: super::build::link_loss(spec.loss.as_deref(), self.seed, &name),
            rate: spec.rate,
            delay: spec.delay,
            buffer_includes_line: false,
            qdisc,
            fluid: false,
            traced: false,
        }));
        PortId::from_idx(self.ports.len() - 1)
    }

    /// Connection `c` put a packet on the network.
    #[inline]
    pub(super) fn connection_sent(&mut self, c: FlowId) {
        if self.connections.is_connection(c) {
            // wrapping: in a parallel run a packet may leave in another partition than the one
            // that counted it in, and only the partitions' sum is the count (`engine::parallel`)
            let slot = self.connections.slot(c);
            slot.in_network = slot.in_network.wrapping_add(1);
            self.connection_noted(c);
        }
    }

    /// The sink of `c` holds back the ACK of the data packet it took: the first such packet
    /// stays counted in the network until an ACK goes for it (`ack_went`), the rest leave. One
    /// run frees a connection's slot once nothing of it is in the network; held so, its sink's
    /// delayed-ACK timer can never send a packet after that, and every partition of a parallel
    /// run sees the slot freed at the same instant (`engine::parallel::slots`).
    pub(super) fn hold_for_ack(&mut self, c: FlowId) {
        if self.connections.is_connection(c) && !std::mem::replace(&mut self.connections.slot(c).owes_ack, true) {
            return;
        }
        self.connection_left(c);
    }

    /// The sink of `c` sent an ACK: a data packet whose ACK it held back leaves now.
    pub(super) fn ack_went(&mut self, c: FlowId) {
        if self.connections.is_connection(c) && std::mem::take(&mut self.connections.slot(c).owes_ack) {
            self.connection_left(c);
        }
    }

    /// A packet of connection `c` left the network (delivered, or dropped).
    #[inline]
    pub(super) fn connection_left(&mut self, c: FlowId) {
        if self.connections.is_connection(c) {
            let now = self.now;
            let slot = self.connections.slot(c);
            slot.in_network = slot.in_network.wrapping_sub(1);
            slot.left_at = now;
            let gone = slot.done && slot.in_network == 0;
            self.slot_changed(c, gone);
        }
    }

    /// Connection `c`'s slot changed, and it is now done and `gone` from the network or not: in
    /// one run it is released at once if it is; in a parallel run the partitions decide together
    /// (`connection_noted`).
    fn slot_changed(&mut self, c: FlowId, gone: bool) {
        if self.connections.notes.is_some() {
            self.connection_noted(c);
        } else if gone {
            self.release(c, self.now);
        }
    }

    /// In a parallel run, connection `c`'s slot changed: the other partitions hear of it at the
    /// window's end, and the slot is freed when all have counted its packets gone
    /// (`engine::parallel::slots`). A file without end never finishes: nothing to tell.
    #[inline]
    fn connection_noted(&mut self, c: FlowId) {
        let k = c.idx() - self.connections.first;
        if let Some(notes) = self.connections.notes.as_deref_mut().filter(|_| !self.connections.slots[k].endless) {
            notes.changed(k);
        }
    }

    /// Connection `c` may just have had its file acknowledged: its transfer ends, its timers stop
    /// (and with them its time limited by its window).
    pub(super) fn connection_check_done(&mut self, c: FlowId) {
        let now = self.now;
        let ends = &mut self.flows[c.idx()];
        let Some(finish) = ends.completed_at else { return };
        for t in &mut ends.timers {
            t.cancel();
        }
        let slot = self.connections.slot(c);
        if slot.done {
            return;
        }
        (slot.done, slot.done_at) = (true, now);
        let (row, gone) = (slot.row, slot.in_network == 0);
        ends.count_window_limited(now);
        ends.window_limited_since = None;
        self.connections.transfers.finish_s[row] = Some(finish.as_secs_f64());
        self.slot_changed(c, gone);
    }

    /// Connection `c` is done and its last packet left the network at `at`: its counts go to its
    /// transfer and its flow, and its slot to a later arrival (`Connections::free_slot`).
    pub(in crate::engine) fn release(&mut self, c: FlowId, at: Time) {
        let row = self.connections.slot(c).row;
        self.connections.transfers.count(row, &self.flows[c.idx()].counters);
        self.fold_into_flow(c, at);
        self.connections.slot(c).released = true;
        let k = c.idx() - self.connections.first;
        self.connections.free_slot(k, at);
    }

    /// Adds what connection `c` counted since it last did, up to `now`, to its flow's counters.
    fn fold_into_flow(&mut self, c: FlowId, now: Time) {
        self.flows[c.idx()].count_window_limited(now);
        let counts = std::mem::take(&mut self.flows[c.idx()].counters);
        let flow = self.flows[c.idx()].ends.id;
        self.flows[flow.idx()].counters.merge(&counts);
    }

    /// Before an interval closes: every open connection's counts go to its flow, and to its
    /// transfer (a released one's went when it was released).
    pub(super) fn fold_connections(&mut self) {
        for i in self.connections.first..self.flows.len() {
            let c = FlowId::from_idx(i);
            if !self.connections.slot(c).released {
                let row = self.connections.slot(c).row;
                self.connections.transfers.count(row, &self.flows[i].counters);
            }
            self.fold_into_flow(c, self.now);
        }
    }
}

impl Simulation {
    /// The ideal completion time, seconds, of a transfer of `packets` packets (`None`: a file
    /// without end) of flow `f` from `src` to `dst`, made as connection `c` (`engine::ideal`).
    fn ideal_fct(&mut self, f: FlowId, c: FlowId, src: NodeId, dst: NodeId, packets: Option<u64>) -> Option<f64> {
        let n = packets?;
        let spec = &self.scenario.flows[f.idx()];
        let sizes = (spec.packet_size, spec.ack_size, spec.acks);
        let net = self.ideal.get_or_insert_with(|| Box::new(IdealNetwork::new(&self.scenario)));
        let ns = net.fct(&self.scenario, self.forwarder.as_mut()?, c.idx(), (src, dst), n, sizes)?;
        Some(Time(ns).as_secs_f64())
    }
}
