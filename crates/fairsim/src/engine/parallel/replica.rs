//! One partition of a parallel run: a `Simulation` that handles only the events of what its
//! partition holds, and hands the packets that leave it to the partitions they reach.
//!
//! Every partition builds the run (the same scenario, pair and seed), so each port and flow has
//! the same index everywhere; of the ports it holds only those it handles events of
//! (`port_table`). It runs only its own events: a port's transmissions by the partition of its
//! near end, its arrivals by that of its far end; a flow's application, sender and timers by its
//! source's, its sink and delayed ACKs by its sink's; a pause frame's by its port's near end's;
//! the clock's interval ends, the run's end and the network's changes by every partition (each
//! closes the intervals of what it holds, and makes the changes of the ports it sends on),
//! counted once; so are an open population's start and arrivals, which make every connection in
//! every partition (with its sender only in its source's), started by its source's (and whose
//! slots are freed as the partitions' notes say: `slots`).
//! What another partition does to its own copy of a port or flow is never read here, and the
//! run's figures are put together at its end (`merge`).

use super::partition::{DelaySample, Partition};
use super::plan::Plan;
use crate::engine::event::{Code, Event};
use crate::engine::pfc::Frame;
use crate::engine::sim::Simulation;
use crate::net::int::IntHop;
use crate::net::packet_pool::InFlight;
use crate::net::Packet;
use crate::net::{FlowId, PortId};
use crate::node::FlowState;
use crate::transport::reliability::sack::SackBlocks;
use crate::transport::reliability::sink::DELAYED_ACK;
use crate::units::Time;

/// What one partition hands another at a window's end: its mail, and the in-band telemetry
/// records of the packets in it, in their order (`CarriedInt`).
#[derive(Default)]
pub(super) struct Mailbox {
    mail: Vec<Mail>,
    hops: Vec<IntHop>,
}

/// One piece of mail.
enum Mail {
    /// A packet on a link that crosses into the other partition: its copy of the port's pipe
    /// takes it, with the ACK's SACK blocks and the packet's telemetry if it has some.
    Packet { port: PortId, entry: InFlight, sack: Option<SackBlocks>, int: Option<CarriedInt> },
    /// A pause frame for a port the other partition sends on (PFC): its event there.
    Frame(Frame),
}

/// A packet's in-band telemetry on its way into another partition, its records in the
/// mailbox's `hops` after those of the packets before it: first the record the cut port stamped
/// into it, if it did (the packet's size then given), which the far end's copy of the port
/// gives up as the packet arrives, as one run's port does; then the `records` the packet
/// carried already. The records are copied, not moved, so that each partition frees only what
/// it allocated: a block freed on another thread than its own takes the allocator's locks, and
/// moving the packets' lists made a split HPCC run's events 40% dearer than one thread's.
#[derive(Copy, Clone)]
struct CarriedInt {
    stamped: Option<u32>,
    records: u32,
}

/// `sim` as built, not yet started; holding only the ports `held` marks, if given.
pub(super) fn again(sim: &Simulation, held: Option<&[bool]>) -> Simulation {
    let (scenario, pair) = (sim.scenario.clone(), Some(sim.pair.name.as_str()));
    Simulation::holding(scenario, pair, Some(sim.seed), held).expect("built once already")
}

/// Which events partition `me` handles.
#[derive(Copy, Clone)]
pub(super) struct Own<'a> {
    pub plan: &'a Plan,
    pub me: u16,
}

/// Whose an event is: this partition's, every partition's (the clock's, and an open
/// population's start and stop, which make and stop its connections everywhere), or another's.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Whose {
    Mine,
    Every,
    Other,
}

impl Own<'_> {
    #[inline]
    fn whose(self, code: Code, flows: &[FlowState]) -> Whose {
        let p = self.plan;
        let mine = |part: u16| if part == self.me { Whose::Mine } else { Whose::Other };
        // a flow's or connection's source's partition, or its sink's
        let end = |f: FlowId, sink: bool| {
            let ends = &flows[f.idx()].ends;
            mine(p.node[if sink { ends.dst } else { ends.src }.idx()])
        };
        match code.kind() {
            Code::TX_DONE => Whose::Mine, // only the near end's partition ever schedules one
            Code::ARRIVE => mine(p.far[code.port().idx()]),
            Code::TIMER => {
                let (f, t) = code.timer();
                end(f, t == DELAYED_ACK)
            }
            Code::CLOCK => match (code.pace(), code.pause()) {
                (Some(host), _) => mine(p.node[host.idx()]),
                (_, Some((port, _))) => mine(p.near[port.idx()]),
                _ => Whose::Every, // the clock's, the run's end, the network's changes
            },
            _ if p.population.get(code.flow().idx()) == Some(&true) => Whose::Every,
            _ => end(code.flow(), false), // a flow's start, stop, application
        }
    }
}

impl Simulation {
    /// Prepares this copy of the run to be partition `me` of `parts`: packet ids unique across
    /// partitions, first drops noted for the merge.
    pub(super) fn become_partition(&mut self, me: u16, plan: &Plan) {
        self.id_stride = plan.parts as u64;
        self.next_packet_id = me as u64;
        self.partition = Some(Box::new(Partition {
            elsewhere: plan.node.iter().map(|&p| p != me).collect(),
            first_drops: vec![],
            current: Code::default(),
            delays_later: plan.population.contains(&true).then(Vec::new),
            frames_out: vec![],
        }));
        self.connections.notes = plan.finite.then(Box::default);
        for p in &plan.cut[me as usize] {
            self.ports[p.idx()].hand_over();
        }
    }

    /// Handles this partition's events before `until`.
    pub(super) fn run_window(&mut self, until: Time, own: Own) -> u64 {
        let before = self.events_processed;
        while let Some((t, code)) = self.events.peek_code() {
            if t >= until || self.done {
                break;
            }
            let whose = own.whose(code, &self.flows);
            if whose == Whose::Other {
                self.discard_other(code);
                continue;
            }
            self.events.pop_code();
            self.now = t;
            if let Some(part) = self.partition.as_mut() {
                part.current = code;
            }
            self.dispatch_fetching_ahead(code);
            // an event every partition handles counts once, in partition 0's events
            self.events_processed += (whose == Whose::Mine || own.me == 0) as u64;
        }
        self.events_processed - before
    }

    /// The window ends at `at`: the packets that entered the pipes of this partition's cut ports
    /// go into `outbox`, by the partition they reach, and the queueing delays kept for later into
    /// `delays`. A port that sends without end events is looked at first, as an arrival at `at`
    /// would, so that every packet it started by then is in its pipe. Returns the earliest of those packets' arrivals, of the starts such a port
    /// will make without an event, and of this partition's next event; or `Time::MAX` once the
    /// run has ended here.
    pub(super) fn close_window(
        &mut self,
        at: Time,
        own: Own,
        outbox: &mut [Mailbox],
        delays: &mut Vec<DelaySample>,
    ) -> Time {
        if let Some(later) = self.partition.as_mut().and_then(|part| part.delays_later.as_mut()) {
            delays.append(later);
        }
        if self.done {
            return Time::MAX;
        }
        let mut next = Time::MAX;
        if let Some(part) = self.partition.as_mut() {
            for frame in part.frames_out.drain(..) {
                next = next.min(frame.at);
                outbox[own.plan.near[frame.port.idx()] as usize].mail.push(Mail::Frame(frame));
            }
        }
        for &p in &own.plan.cut[own.me as usize] {
            let to = own.plan.far[p.idx()] as usize;
            self.ports[p.idx()].settle(at, &mut self.pool);
            // a link that may go down keeps the packet on its line until its end, which the next
            // window must then reach: the cut loses it here, before any other partition has it
            let keep_line = own.plan.goes_down[p.idx()];
            if let Some(ends) = self.ports[p.idx()].line_ends().filter(|_| keep_line) {
                next = next.min(ends);
            }
            while let Some(entry) = self.ports[p.idx()].take_in_flight(&mut self.pool, keep_line) {
                next = next.min(entry.arrival);
                let pkt = entry.pkt;
                let sack = (!pkt.is_data() && self.flows[pkt.conn.idx()].uses_sack())
                    .then(|| self.sack_options.take(pkt.id))
                    .flatten();
                let int = self.telemetry.is_some().then(|| self.carried_int(p, &pkt, &mut outbox[to].hops)).flatten();
                outbox[to].mail.push(Mail::Packet { port: p, entry, sack, int });
            }
            if let Some(start) = self.ports[p.idx()].next_chained_start() {
                next = next.min(start);
            }
        }
        next.min(self.next_own_event(own))
    }

    /// The time of this partition's next event, dropping the others' at the head of its set
    /// (a cut port's arrivals, which its sender scheduled here), so that they never shorten a
    /// window.
    pub(super) fn next_own_event(&mut self, own: Own) -> Time {
        while let Some((t, code)) = self.events.peek_code() {
            if own.whose(code, &self.flows) != Whose::Other {
                return t;
            }
            self.discard_other(code);
        }
        Time::MAX
    }

    /// Drops the next event, another partition's. A timer's can only be a finished
    /// connection's, whose slot a connection of another partition's source has taken since: one
    /// run pops it too and counts it, and it does nothing there but what the new connection's
    /// own event at that instant does (`TimerSlot::on_event`), so it is counted here.
    fn discard_other(&mut self, code: Code) {
        self.events_processed += (code.kind() == Code::TIMER) as u64;
        self.events.discard_next();
    }

    /// The telemetry `pkt` takes with it over cut port `p`, if it has some, its records put
    /// into `hops`.
    fn carried_int(&mut self, p: PortId, pkt: &Packet, hops: &mut Vec<IntHop>) -> Option<CarriedInt> {
        let stamp = self.stamp_of(p, pkt);
        hops.extend(stamp);
        let records = self.telemetry.as_deref_mut().map(|t| t.take(pkt.id)).unwrap_or_default();
        hops.extend_from_slice(&records);
        let stamped = stamp.map(|_| pkt.size);
        (stamped.is_some() || !records.is_empty()).then_some(CarriedInt { stamped, records: records.len() as u32 })
    }

    /// Packet `id`'s telemetry, come over port `p` from another partition, its records the
    /// next of `hops`.
    fn take_int(&mut self, p: PortId, id: u64, int: CarriedInt, hops: &mut std::slice::Iter<IntHop>) {
        let mut next = || *hops.next().expect("a packet's records follow those of the packets before it");
        if let Some(size) = int.stamped {
            let hop = next();
            self.ports[p.idx()].int_mut().expect("a stamping port stamps in every partition").put(id, hop, size);
        }
        if int.records > 0 {
            let n = int.records as usize;
            // room for the hops still to come, as the list had where it was made
            let mut records = Vec::with_capacity(n.max(4).next_power_of_two());
            records.extend((0..n).map(|_| next()));
            self.telemetry.as_deref_mut().expect("a telemetry run").put(id, records);
        }
    }

    /// Takes the mail other partitions sent: packets into this one's copies of their ports, and
    /// pause frames for the ports it sends on.
    pub(super) fn take_mail(&mut self, mailbox: &mut Mailbox) {
        let Mailbox { mail, hops } = mailbox;
        let mut hops_in_order = hops.iter();
        for mail in mail.drain(..) {
            let (at, event) = match mail {
                Mail::Packet { port, entry, sack, int } => {
                    if let Some(blocks) = sack {
                        self.sack_options.put(entry.pkt.id, blocks);
                    }
                    if let Some(int) = int {
                        self.take_int(port, entry.pkt.id, int, &mut hops_in_order);
                    }
                    let arrival = entry.arrival;
                    let leads = self.ports[port.idx()].push_in_flight(entry, &mut self.pool);
                    (arrival, leads.then_some(Event::Arrive(port)))
                }
                Mail::Frame(frame) => (frame.at, Some(Event::Pause(frame.port, frame.pause))),
            };
            // mail reaching this partition before the window it came in: the window was too
            // long, and the run would no longer be one thread's; never silently
            assert!(self.done || at >= self.now, "mail handed over arrives at {at}, before {}", self.now);
            if let Some(event) = event.filter(|_| !self.done) {
                self.events.push(at, event);
            }
        }
        hops.clear();
    }
}
