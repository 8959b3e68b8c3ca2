//! The results of a run: per-flow and per-queue summaries, per-interval rows, fairness.
//!
//! This is the engine's whole output; it serialises to the JSON documented in
//! `docs/results.md`. Rates are per second of simulated time; summaries are over the
//! measurement intervals (the warm-up, if any, is reported as its own interval and left out).

use crate::engine::Simulation;
use crate::params::Params;
use crate::reference::max_min::max_min;
use crate::scenario::{params_table, Component, Recent};
use crate::stats::fairness::jain;
use crate::stats::{DelaySummary, FlowCounters, FlowMetrics, PortCounters, QueueMetrics, Summary};
use crate::units::Time;
use serde::Serialize;
use std::sync::Arc;

#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub scenario: String,
    pub pair: String,
    pub seed: u64,
    /// False when the run was stopped before its end (then `simulated_s` < `duration_s`).
    pub complete: bool,
    /// Why the run stopped early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub simulated_s: f64,
    pub duration_s: f64,
    pub events: u64,
    pub wall_s: f64,
    pub measurement: Measurement,
    pub flows: Vec<FlowReport>,
    pub queues: Vec<QueueReport>,
    pub fairness: Fairness,
    /// Service compared with GPS, for the ports named in `[run] fluid_reference`.
    pub fluid: Vec<crate::stats::fluid::FluidReport>,
    /// Recorded time series (`[run] trace`, `trace_queues`), one per flow variable or queue.
    pub traces: Vec<Trace>,
    pub flow_intervals: Vec<FlowInterval>,
    pub queue_intervals: Vec<QueueInterval>,
    /// The metrics of each open-population flow's transfers (`app = "files"`); absent when the
    /// scenario has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_summary: Option<Vec<crate::stats::transfers::TransferSummary>>,
    /// Every transfer of the open-population flows, as columns; absent when the scenario has
    /// none or `[run] transfer_rows = false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfers: Option<crate::stats::transfers::Transfers>,
    /// The network's changes (`[[events]]`), in the file's order; absent without any. What they
    /// cost is in each queue's `link_down` and each flow's `drops` (reason `link_down`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub network_events: Vec<NetworkEventReport>,
    /// What priority flow control counted (`[pfc]`); absent without it. Each queue's `pauses`
    /// and `paused_ns` are in its totals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc: Option<crate::engine::PfcReport>,
    /// What the run found doubtful but not wrong enough to stop it, a sentence each naming its
    /// port (a discipline written in Python holding packets it seems never to send); absent
    /// without any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A change of the network during the run, as the scenario gave it.
#[derive(Debug, Clone, Serialize)]
pub struct NetworkEventReport {
    pub at_s: f64,
    /// What the event names: `link`, `port` or `node`.
    pub target: &'static str,
    pub name: String,
    /// `down`, `up` or `rate`.
    pub action: &'static str,
    /// The new line rate (`action = "rate"`).
    pub rate_bps: Option<u64>,
    /// The ports it changed.
    pub ports: Vec<String>,
    /// When forwarding learnt of it (a link down or up), if that was before the run's end.
    pub detected_s: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Measurement {
    pub warmup_s: f64,
    pub interval_s: f64,
    /// Measurement intervals completed (the warm-up not counted).
    pub intervals: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlowReport {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub app: String,
    /// The flow-control protocol, or `none` for an open-loop source.
    pub transport: String,
    pub transport_params: Option<Arc<Params>>,
    /// Data packet size on the wire, bytes (payload and headers).
    pub packet_size: u32,
    /// Application bytes of a data packet (`packet_size` less the headers).
    pub payload_size: u32,
    /// The headers on top of the payload (`none`: `packet_size` is all payload).
    pub headers: &'static str,
    /// Data packets delivered per second, duplicates included (the 1989 paper's throughput).
    pub throughput_pps: Option<Summary>,
    /// Data packets delivered per second, first copies only (the thesis's throughput).
    pub goodput_pps: Option<Summary>,
    /// Bits on the wire of first copies per second, headers included: comparable with line
    /// rates and fair shares.
    pub goodput_bps: Option<Summary>,
    /// Payload bits of first copies per second: application goodput, as ns-3's PacketSink
    /// counts it (the same as `goodput_bps` without headers).
    pub payload_bps: Option<Summary>,
    /// Mean round-trip time per interval, from sending a data packet to receiving its ACK.
    pub rtt_s: Option<Summary>,
    /// Mean round trip per interval from each packet's first transmission to the ACK covering
    /// it, retransmission waits included (the papers' round-trip time).
    pub rtt_first_s: Option<Summary>,
    /// Mean one-way delay per interval, from leaving the source to reaching the sink.
    pub delay_s: Option<Summary>,
    pub retransmit_pps: Option<Summary>,
    pub drop_pps: Option<Summary>,
    /// Counts over the measurement intervals.
    pub totals: FlowCounters,
    /// Counts over the whole run, warm-up included.
    pub run_totals: FlowCounters,
    /// Mean of every RTT sample in the measurement intervals.
    pub rtt_mean_s: Option<f64>,
    /// Queueing delay of each data packet delivered in the measurement intervals: its one-way
    /// delay less the transmissions and propagations of its route (stats::delay).
    pub queueing: DelaySummary,
    /// Data packets still queued, on a line or propagating when the run ended.
    pub in_network: u64,
    /// The flow's max-min fair share of the network, in bit/s.
    pub fair_share_bps: f64,
    /// Goodput over fair share.
    pub share_of_fair: Option<f64>,
    /// Data packets dropped over the whole run, by queue and reason.
    pub drops: Vec<DropCount>,
    /// When a finite transfer had every packet acknowledged (seconds since the flow started).
    pub completion_s: Option<f64>,
    /// Time in the measurement intervals the flow's own `window` (the receiver's window) held
    /// the sender back: full, with data waiting, while its congestion control allowed more
    /// (`None`: the transport has no such window).
    pub window_limited_s: Option<f64>,
    /// `window_limited_s` over the measured time: near 1, the window, not the network, set
    /// the flow's rate.
    pub window_limited_share: Option<f64>,
    /// The rate of the source's access line, bit/s, when the source has exactly one line.
    pub access_bps: Option<u64>,
    /// Goodput over the access line's rate: Hasegawa et al. 2001's relative throughput.
    pub relative_throughput: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DropCount {
    pub queue: String,
    pub reason: String,
    pub count: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct QueueReport {
    pub port: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// The buffer's limit in packets, or in bytes; both `None`: unlimited.
    pub buffer_packets: Option<u64>,
    pub buffer_bytes: Option<u64>,
    pub qdisc: String,
    pub qdisc_params: Arc<Params>,
    /// Figures particular to the discipline (operation counts, internal state).
    pub qdisc_stats: std::collections::BTreeMap<String, f64>,
    /// Fraction of the time the line was busy, per interval.
    pub utilisation: Option<Summary>,
    /// Time-averaged packets waiting (not counting the one on the line), per interval.
    pub occupancy_pkts: Option<Summary>,
    /// Of the packets offered, the fraction dropped, per interval (intervals without arrivals
    /// left out).
    pub drop_fraction: Option<Summary>,
    pub totals: PortCounters,
    /// Sojourn (enqueue to start of transmission) of each packet the line took in the
    /// measurement intervals (stats::delay).
    pub sojourn: DelaySummary,
}

#[derive(Debug, Clone, Serialize)]
pub struct Fairness {
    pub flows: Vec<String>,
    /// Jain's index of goodput over max-min fair share (Jain 1984's normalised form).
    pub jain: Option<f64>,
    /// Jain's index of raw goodput.
    pub jain_raw: Option<f64>,
    /// Jain's index of the relative throughputs (goodput over access line): 1 when each flow
    /// gets the same fraction of its own input line, Hasegawa et al. 2001's fair service.
    pub jain_access: Option<f64>,
}

/// A recorded time series: `value[i]` from `t_s[i]` until the next point.
#[derive(Debug, Clone, Serialize)]
pub struct Trace {
    /// `flow` (a sender's variable) or `queue` (packets waiting at a port).
    pub source: &'static str,
    pub name: String,
    pub series: &'static str,
    pub t_s: Vec<f64>,
    pub value: Vec<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlowInterval {
    pub flow: String,
    pub interval: usize,
    pub start_s: f64,
    pub end_s: f64,
    pub warmup: bool,
    #[serde(flatten)]
    pub counters: FlowCounters,
    /// The rates and means of the interval (`stats::metrics`).
    #[serde(flatten)]
    pub metrics: FlowMetrics,
}

#[derive(Debug, Clone, Serialize)]
pub struct QueueInterval {
    pub port: String,
    pub interval: usize,
    pub start_s: f64,
    pub end_s: f64,
    pub warmup: bool,
    #[serde(flatten)]
    pub counters: PortCounters,
    #[serde(flatten)]
    pub metrics: QueueMetrics,
}

/// Each port's discipline as a table for the report, one table for the ports that share their
/// discipline's configuration (`scenario::components`): a thousand FCFS ports, one table. Ports
/// alike interleave in a fabric (`scenario::share`), so the last few tables are looked at.
fn shared_tables(qdiscs: &[Arc<Component>]) -> Vec<Arc<Params>> {
    // a configuration is the same if it is the same value (its kind, and its shared parameters)
    let mut recent = Recent::default();
    qdiscs
        .iter()
        .map(|c| recent.get((c.kind.as_str(), Arc::as_ptr(&c.params)), |_, _| Arc::new(params_table(c))))
        .collect()
}

/// Start, end and warm-up flag of every recorded interval (the last may be partial).
fn interval_bounds(sim: &Simulation, recorded: usize) -> Vec<(Time, Time, bool)> {
    let run = &sim.scenario().run;
    let mut b = vec![];
    if run.warmup > Time::ZERO {
        b.push((Time::ZERO, run.warmup, true));
    }
    for k in 0..run.intervals as u64 {
        b.push((run.warmup + Time(run.interval.0 * k), run.warmup + Time(run.interval.0 * (k + 1)), false));
    }
    b.truncate(recorded);
    if let Some(last) = b.last_mut() {
        last.1 = last.1.min(sim.now());
    }
    b
}

/// What a report's tables are made from, computed once: the intervals' bounds and which are
/// measured, each flow's fair share, access rate and packets in the network, each port's
/// discipline as a table. Each table is then made a row at a time (`flows`, `queues`,
/// `flow_intervals`, `queue_intervals`), so that a caller can take a long table row by row
/// instead of whole (the Python binding's columns, `fairsim-py/src/arrow_report.rs`).
pub struct Tables<'a> {
    sim: &'a Simulation,
    bounds: Vec<(Time, Time, bool)>,
    /// The complete measurement intervals, which summaries use.
    measured: Vec<usize>,
    measured_s: f64,
    fair: Vec<f64>,
    access: Vec<Option<u64>>,
    in_network: Vec<u64>,
    qdisc_tables: Vec<Arc<Params>>,
}

impl<'a> Tables<'a> {
    fn new(sim: &'a Simulation) -> Tables<'a> {
        let open = usize::from(!sim.is_done());
        let recorded = (sim.flows().first().map(|f| f.intervals.len() + open))
            .or(sim.ports().first().map(|p| p.stats.intervals.len() + open))
            .unwrap_or(0);
        let bounds = interval_bounds(sim, recorded);
        let measured: Vec<usize> =
            (0..bounds.len()).filter(|&i| !bounds[i].2 && (sim.is_done() || i + 1 < bounds.len())).collect();
        let measured_s = measured.iter().map(|&i| (bounds[i].1 - bounds[i].0).as_secs_f64()).sum();
        Tables {
            sim,
            bounds,
            measured,
            measured_s,
            fair: sim.fair_shares(),
            access: sim.access_rates(),
            in_network: sim.data_in_network(),
            qdisc_tables: shared_tables(sim.port_qdiscs()),
        }
    }

    fn secs(&self, i: usize) -> f64 {
        (self.bounds[i].1 - self.bounds[i].0).as_secs_f64()
    }

    /// Flow `fi`'s interval records; an unfinished run reports its partial last interval too.
    fn flow_record(&self, fi: usize) -> Vec<FlowCounters> {
        let f = &self.sim.flows()[fi];
        let mut v = f.intervals.clone();
        if !self.sim.is_done() {
            let mut current = f.counters;
            if let Some(since) = f.window_limited_since {
                current.window_limited_ns += (self.sim.now() - since).0;
            }
            v.push(current);
        }
        v
    }

    /// Port `pi`'s interval records, the partial last one included.
    fn port_record(&self, pi: usize) -> Vec<PortCounters> {
        let p = &self.sim.ports()[pi];
        let mut v = p.stats.intervals.clone();
        if !self.sim.is_done() {
            // the loop settled every port as it stopped: lazy departures that ended are counted
            v.push(p.counters_now());
        }
        v
    }

    /// Every recorded interval's rates and means, for the summaries and the interval rows alike.
    fn flow_metrics(&self, record: &[FlowCounters]) -> Vec<FlowMetrics> {
        let n = self.bounds.len();
        record.iter().take(n).enumerate().map(|(i, c)| FlowMetrics::of(c, self.secs(i))).collect()
    }

    fn queue_metrics(&self, record: &[PortCounters]) -> Vec<QueueMetrics> {
        let n = self.bounds.len();
        record.iter().take(n).enumerate().map(|(i, c)| QueueMetrics::of(c, self.secs(i))).collect()
    }

    /// The summary of a flow's goodput over the measured intervals, from its intervals' metrics.
    fn goodput_bps(&self, metrics: &[FlowMetrics]) -> Option<Summary> {
        Summary::of(self.measured.iter().map(|&i| Some(metrics[i].goodput_bps)))
    }

    /// Flow `fi`'s goodput summary and goodput relative to its access line, which the fairness
    /// indices need, without making its whole row.
    fn goodput_of(&self, fi: usize) -> (Option<Summary>, Option<f64>) {
        let goodput = self.goodput_bps(&self.flow_metrics(&self.flow_record(fi)));
        let access = self.access[self.sim.scenario().flows[fi].src.idx()];
        (goodput, crate::stats::metrics::relative_throughput(goodput, access))
    }

    /// The flows table's row of flow `fi`.
    pub fn flow(&self, fi: usize) -> FlowReport {
        let (sim, sc) = (self.sim, self.sim.scenario());
        let spec = &sc.flows[fi];
        let rec = self.flow_record(fi);
        let metrics = self.flow_metrics(&rec);
        let state = &sim.flows()[fi];
        let summary =
            |get: fn(&FlowMetrics) -> Option<f64>| Summary::of(self.measured.iter().map(|&i| get(&metrics[i])));
        let mut totals = FlowCounters::default();
        self.measured.iter().for_each(|&i| totals.merge(&rec[i]));
        let mut run_totals = FlowCounters::default();
        rec.iter().for_each(|r| run_totals.merge(r));
        let goodput_bps = self.goodput_bps(&metrics);
        let transport = &sim.flow_transports()[fi];
        let windowed = state.sender.as_ref().is_some_and(|s| s.has_window_limit());
        let window_limited_s = windowed.then(|| totals.window_limited_ns as f64 / 1e9);
        let access_bps = self.access[spec.src.idx()];
        let fair = self.fair[fi];
        // a workload's connections run between hosts it draws: its ends are any
        let drawn = spec.draws_ends();
        let end = |n| if drawn { "*".to_string() } else { sc.node_name(n).to_string() };
        FlowReport {
            name: spec.name.clone(),
            src: end(spec.src),
            dst: end(spec.dst),
            app: spec.app.name().to_string(),
            transport: transport.as_ref().map_or(crate::transport::NONE.to_string(), |c| c.kind.clone()),
            transport_params: transport.as_ref().map(|c| c.params.clone()),
            packet_size: spec.packet_size,
            payload_size: spec.payload_size,
            headers: spec.headers.name(),
            throughput_pps: summary(|m| Some(m.throughput_pps)),
            goodput_pps: summary(|m| Some(m.goodput_pps)),
            payload_bps: summary(|m| Some(m.payload_bps)),
            rtt_s: summary(|m| m.rtt_s),
            rtt_first_s: summary(|m| m.rtt_first_s),
            delay_s: summary(|m| m.delay_s),
            retransmit_pps: summary(|m| Some(m.retransmit_pps)),
            drop_pps: summary(|m| Some(m.drop_pps)),
            rtt_mean_s: crate::stats::metrics::rtt_mean_s(&totals),
            queueing: sim.flow_queueing()[fi].summary(),
            share_of_fair: goodput_bps.map(|g| g.mean / fair).filter(|x| x.is_finite()),
            goodput_bps,
            totals,
            run_totals,
            in_network: self.in_network[fi],
            fair_share_bps: fair,
            drops: state
                .drop_tally
                .iter()
                .map(|(p, r, n)| DropCount { queue: sim.port_name(*p), reason: r.as_str().to_string(), count: *n })
                .collect(),
            completion_s: state.completed_at.map(|t| (t - state.start).as_secs_f64()),
            window_limited_share: window_limited_s.filter(|_| self.measured_s > 0.0).map(|s| s / self.measured_s),
            window_limited_s,
            relative_throughput: crate::stats::metrics::relative_throughput(goodput_bps, access_bps),
            access_bps,
        }
    }

    /// The flows table, a row at a time.
    pub fn flows(&self) -> impl ExactSizeIterator<Item = FlowReport> + '_ {
        (0..self.sim.scenario().flows.len()).map(|fi| self.flow(fi))
    }

    /// The queues table, a row at a time.
    pub fn queues(&self) -> impl ExactSizeIterator<Item = QueueReport> + '_ {
        let sc = self.sim.scenario();
        (0..self.sim.ports().len().min(sc.ports.len())).map(move |pi| {
            let (port, spec) = (&self.sim.ports()[pi], &sc.ports[pi]);
            let rec = self.port_record(pi);
            let metrics = self.queue_metrics(&rec);
            let measured = &self.measured;
            let mut totals = PortCounters::default();
            measured.iter().for_each(|&i| totals.merge(&rec[i]));
            QueueReport {
                port: sc.port_name(pi),
                from: sc.node_name(spec.from).to_string(),
                to: sc.node_name(spec.to).to_string(),
                // as built: a rate changed during the run is in `network_events`
                rate_bps: spec.rate.0,
                delay_s: port.delay.as_secs_f64(),
                buffer_packets: match spec.buffer {
                    crate::units::BufferLimit::Packets(n) => Some(n),
                    _ => None,
                },
                buffer_bytes: match spec.buffer {
                    crate::units::BufferLimit::Bytes(n) => Some(n),
                    _ => None,
                },
                qdisc: self.sim.port_qdiscs()[pi].kind.clone(),
                qdisc_params: Arc::clone(&self.qdisc_tables[pi]),
                qdisc_stats: port.qdisc_stats().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                utilisation: Summary::of(measured.iter().map(|&i| Some(metrics[i].utilisation))),
                occupancy_pkts: Summary::of(measured.iter().map(|&i| Some(metrics[i].occupancy_pkts))),
                drop_fraction: Summary::of(measured.iter().map(|&i| metrics[i].drop_fraction)),
                totals,
                sojourn: port.stats.sojourn.summary(),
            }
        })
    }

    /// Interval `i`'s number, start, end and warm-up flag.
    fn interval(&self, i: usize) -> (usize, f64, f64, bool) {
        let (start, end, warmup) = self.bounds[i];
        (i, start.as_secs_f64(), end.as_secs_f64(), warmup)
    }

    /// Rows of `flow_intervals` and of `queue_intervals`, counted without making them.
    pub fn interval_rows(&self) -> (usize, usize) {
        let open = usize::from(!self.sim.is_done());
        let n = |recorded: usize| (recorded + open).min(self.bounds.len());
        let flows = self.sim.flows().iter().map(|f| n(f.intervals.len())).sum();
        let ports = self.sim.ports().iter().map(|p| n(p.stats.intervals.len())).sum();
        (flows, ports)
    }

    /// Every flow's interval rows, flow by flow.
    pub fn flow_intervals(&self) -> impl Iterator<Item = FlowInterval> + '_ {
        let flows = &self.sim.scenario().flows;
        (0..flows.len()).flat_map(move |fi| {
            let rec = self.flow_record(fi);
            let metrics = self.flow_metrics(&rec);
            rec.into_iter().zip(metrics).enumerate().map(move |(i, (counters, metrics))| {
                let (interval, start_s, end_s, warmup) = self.interval(i);
                FlowInterval { flow: flows[fi].name.clone(), interval, start_s, end_s, warmup, counters, metrics }
            })
        })
    }

    /// Every port's interval rows, port by port.
    pub fn queue_intervals(&self) -> impl Iterator<Item = QueueInterval> + '_ {
        (0..self.sim.ports().len()).flat_map(move |pi| {
            let rec = self.port_record(pi);
            let metrics = self.queue_metrics(&rec);
            rec.into_iter().zip(metrics).enumerate().map(move |(i, (counters, metrics))| {
                let (interval, start_s, end_s, warmup) = self.interval(i);
                let port = self.sim.scenario().port_name(pi);
                QueueInterval { port, interval, start_s, end_s, warmup, counters, metrics }
            })
        })
    }

    /// The report without its four long tables, which are left empty: the caller takes them
    /// from `flows`, `queues`, `flow_intervals` and `queue_intervals`.
    pub fn short_report(&self) -> RunReport {
        let (sim, sc) = (self.sim, self.sim.scenario());
        let chosen: Vec<usize> = sc.run.fairness.iter().map(|f| f.idx()).collect();
        // (goodput's mean, relative throughput) of each chosen flow
        let figures: Vec<(f64, Option<f64>)> = chosen
            .iter()
            .map(|&i| self.goodput_of(i))
            .map(|(goodput, relative)| (goodput.map_or(0.0, |s| s.mean), relative))
            .collect();
        let fairness = Fairness {
            flows: chosen.iter().map(|&i| sc.flows[i].name.clone()).collect(),
            jain: jain(
                &chosen.iter().zip(&figures).map(|(&i, (goodput, _))| goodput / self.fair[i]).collect::<Vec<_>>(),
            ),
            jain_raw: jain(&figures.iter().map(|(goodput, _)| *goodput).collect::<Vec<_>>()),
            // a flow without a relative throughput makes the index undefined, as any NaN would
            jain_access: jain(&figures.iter().map(|(_, relative)| relative.unwrap_or(f64::NAN)).collect::<Vec<_>>()),
        };
        RunReport {
            scenario: sc.name.clone(),
            pair: sim.pair().name.clone(),
            seed: sim.seed(),
            complete: sim.is_done() && sim.error().is_none(),
            error: sim.error().map(str::to_string),
            simulated_s: sim.now().as_secs_f64(),
            duration_s: sc.run.duration.as_secs_f64(),
            events: sim.events_processed(),
            wall_s: sim.wall().as_secs_f64(),
            measurement: Measurement {
                warmup_s: sc.run.warmup.as_secs_f64(),
                interval_s: sc.run.interval.as_secs_f64(),
                intervals: self.measured.len(),
            },
            flows: vec![],
            queues: vec![],
            fairness,
            fluid: sim.fluid_reports(),
            traces: sim.traces(),
            flow_intervals: vec![],
            queue_intervals: vec![],
            transfer_summary: sim.transfer_summary(),
            transfers: (sc.run.transfer_rows && sim.has_transfers()).then(|| {
                let mut t = sim.transfers().clone();
                t.most_open = t.open_at_most();
                if t.detailed {
                    t.nodes = sc.nodes.to_vec();
                }
                t
            }),
            network_events: sim.network_event_reports(),
            pfc: sim.pfc_report(),
            warnings: (sim.ports().iter().enumerate().take(sc.ports.len()))
                .filter_map(|(pi, port)| Some(format!("{}: {}", sc.port_name(pi), port.stranded(sim.now())?)))
                .collect(),
        }
    }
}

impl Simulation {
    /// The results so far; complete once `run` has returned.
    pub fn report(&self) -> RunReport {
        let tables = self.report_tables();
        let mut report = tables.short_report();
        report.flows = tables.flows().collect();
        report.queues = tables.queues().collect();
        report.flow_intervals = tables.flow_intervals().collect();
        report.queue_intervals = tables.queue_intervals().collect();
        report
    }

    /// What the report's tables are made from, to make them a row at a time.
    pub fn report_tables(&self) -> Tables<'_> {
        Tables::new(self)
    }

    fn network_event_reports(&self) -> Vec<NetworkEventReport> {
        let sc = self.scenario();
        sc.events
            .iter()
            .map(|e| {
                let detected = e.at.0.saturating_add(e.detection.0);
                let rate = match e.action {
                    crate::scenario::NetworkAction::Rate(r) => Some(r.0),
                    _ => None,
                };
                NetworkEventReport {
                    at_s: e.at.as_secs_f64(),
                    target: e.target.0,
                    name: e.target.1.clone(),
                    action: e.action.name(),
                    rate_bps: rate,
                    ports: e.ports.iter().map(|p| sc.port_name(p.idx())).collect(),
                    detected_s: (rate.is_none() && detected < sc.run.duration.0).then(|| Time(detected).as_secs_f64()),
                }
            })
            .collect()
    }

    fn has_transfers(&self) -> bool {
        self.scenario().flows.iter().any(|f| matches!(f.app.source(), crate::traffic::Source::Population(_)))
    }

    /// Each `files` flow's transfers arriving after the warm-up and before its arrivals stop.
    fn transfer_summary(&self) -> Option<Vec<crate::stats::transfers::TransferSummary>> {
        let run = &self.scenario().run;
        let since = run.warmup.as_secs_f64();
        let summaries = self
            .scenario()
            .flows
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f.app.source(), crate::traffic::Source::Population(_)));
        let summaries: Vec<_> = summaries
            .map(|(i, f)| {
                let until = f.stop.unwrap_or(run.duration).min(self.now()).as_secs_f64();
                crate::stats::transfers::summarize(self.transfers(), i as u32, &f.name, since, until)
            })
            .collect();
        (!summaries.is_empty()).then_some(summaries)
    }

    fn traces(&self) -> Vec<Trace> {
        let mut out = vec![];
        for (spec, state) in self.scenario().flows.iter().zip(self.flows()) {
            let Some(points) = &state.trace else { continue };
            let mut series: Vec<crate::transport::Series> = points.iter().map(|p| p.1).collect();
            series.sort_by_key(|s| s.name());
            series.dedup();
            for s in series {
                let (t_s, value) = points.iter().filter(|p| p.1 == s).map(|p| (p.0.as_secs_f64(), p.2)).unzip();
                out.push(Trace { source: "flow", name: spec.name.clone(), series: s.name(), t_s, value });
            }
        }
        for (p, port) in self.ports().iter().enumerate() {
            let Some(trace) = port.trace() else { continue };
            let queue = trace.queue.iter().map(|&(t, n)| (t, n as f64)).collect();
            // PFC's pause state, where a pause frame reached the port
            let paused = (!trace.paused.is_empty()).then(|| ("paused", trace.paused.clone()));
            for (series, points) in std::iter::once(("queue", queue)).chain(trace.gauge.clone()).chain(paused) {
                let (t_s, value) = points.iter().map(|p| (p.0.as_secs_f64(), p.1)).unzip();
                out.push(Trace { source: "queue", name: self.scenario().port_name(p), series, t_s, value });
            }
        }
        out
    }

    fn fluid_reports(&self) -> Vec<crate::stats::fluid::FluidReport> {
        let names: Vec<String> = self.scenario().flows.iter().map(|f| f.name.clone()).collect();
        let weights: Vec<f64> = self.scenario().flows.iter().map(|f| f.weight).collect();
        let from = self.scenario().run.warmup.0 as f64;
        (self.ports().iter().enumerate())
            .filter_map(|(i, p)| {
                let rec = p.fluid()?;
                Some(rec.analyse(&self.scenario().port_name(i), p.rate.0 as f64, &names, &weights, from))
            })
            .collect()
    }

    /// Each node's access line rate (bit/s), for the nodes with exactly one line out.
    fn access_rates(&self) -> Vec<Option<u64>> {
        let sc = self.scenario();
        let mut lines: Vec<(u32, u64)> = vec![(0, 0); sc.nodes.len()];
        for p in &sc.ports {
            let l = &mut lines[p.from.idx()];
            *l = (l.0 + 1, p.rate.0);
        }
        lines.into_iter().map(|(n, rate)| (n == 1).then_some(rate)).collect()
    }

    /// Each flow's max-min fair share of the network given the demands of open-loop sources.
    fn fair_shares(&self) -> Vec<f64> {
        let sc = &self.scenario();
        let capacity: Vec<f64> = sc.ports.iter().map(|p| p.rate.0 as f64).collect();
        let flows: Vec<(Vec<usize>, Option<f64>)> =
            sc.flows.iter().map(|f| (f.data_route.iter().map(|p| p.idx()).collect(), wire_demand_bps(f))).collect();
        max_min(&capacity, &flows)
    }
}

/// The rate flow `f`'s application asks for on the wire, bit/s: applications count payload, the
/// network carries the headers too (`None`: as much as it can get).
fn wire_demand_bps(f: &crate::scenario::FlowSpec) -> Option<f64> {
    let demand = f.app.demand_bps()?;
    // no headers: the demand as it is, to the bit
    Some(if f.packet_size == f.payload_size { demand } else { demand * f.packet_size as f64 / f.payload_size as f64 })
}

#[cfg(test)]
mod tests {
    use crate::{Scenario, Simulation};
    use std::sync::Arc;

    /// The interval rows counted without making them are those made, in a run stopped in an
    /// interval (its partial one reported) and in a finished one.
    #[test]
    fn interval_rows_are_counted_as_made() {
        let text = r#"
nodes = ["a", "b"]
[run]
duration = "2s"
warmup = "0.5s"
interval = "0.3s"
[links]
ab = { between = ["a", "b"], rate = "1Mbps", delay = "1ms" }
[flows]
f = { src = "a", dst = "b", app = "ftp" }
w = { src = "a", dst = "b", app = "telnet", transport = "reno" }
"#;
        let sc = Arc::new(Scenario::parse(text, "rows.toml", &[]).unwrap());
        let mut sim = Simulation::shared(sc, None, None).unwrap();
        let counted = |sim: &Simulation| {
            let report = sim.report();
            let made = (report.flow_intervals.len(), report.queue_intervals.len());
            assert_eq!(sim.report_tables().interval_rows(), made);
            made
        };
        assert!(!sim.run_events(300));
        let early = counted(&sim);
        sim.run();
        let late = counted(&sim);
        assert!(early.0 < late.0 && early.1 < late.1 && late.0 == 2 * 6, "{early:?} {late:?}");
    }

    /// Flows that each write the same transport table, and ports that share a discipline,
    /// hold one parameter table between them, in the scenario and in the report.
    #[test]
    fn equal_parameter_tables_are_held_once() {
        let text = r#"
nodes = ["a", "b", "c"]
[run]
duration = "1s"
[links]
ab = { between = ["a", "b"], rate = "1Mbps", delay = "1ms", qdisc = { kind = "red", max_p = 0.05 } }
bc = { between = ["b", "c"], rate = "1Mbps", delay = "1ms", qdisc = { kind = "red", max_p = 0.05 } }
[flows]
f0 = { src = "a", dst = "c", app = "ftp", transport = { kind = "newreno", initial_cwnd = 4 } }
f1 = { src = "a", dst = "c", app = "ftp", transport = { kind = "newreno", initial_cwnd = 4 } }
f2 = { src = "a", dst = "c", app = "ftp", transport = { kind = "newreno", initial_cwnd = 5 } }
"#;
        let sc = Arc::new(Scenario::parse(text, "shared.toml", &[]).unwrap());
        let mut sim = Simulation::shared(Arc::clone(&sc), None, None).unwrap();
        sim.run();
        let report = sim.report();
        let given = |i: usize| match &sc.flows[i].transport {
            crate::scenario::TransportChoice::Explicit(c) => Arc::clone(&c.params),
            other => panic!("{other:?}"),
        };
        assert!(Arc::ptr_eq(&given(0), &given(1)), "the tables as written");
        assert!(!Arc::ptr_eq(&given(1), &given(2)));
        let resolved = |i: usize| Arc::clone(report.flows[i].transport_params.as_ref().unwrap());
        assert!(Arc::ptr_eq(&resolved(0), &resolved(1)), "the tables resolved");
        assert!(!Arc::ptr_eq(&resolved(1), &resolved(2)));
        let number = |v: &toml::Value| v.as_float().or(v.as_integer().map(|i| i as f64));
        assert_eq!(number(&resolved(0)["initial_cwnd"]), Some(4.0));
        assert_eq!(number(&resolved(2)["initial_cwnd"]), Some(5.0));
        let (ab, bc) = (&report.queues[0].qdisc_params, &report.queues[2].qdisc_params);
        assert_eq!(report.queues[2].port, "b->c");
        assert!(Arc::ptr_eq(ab, bc), "the disciplines' tables");
        assert_eq!(ab["kind"].as_str(), Some("red"));
        assert_eq!(number(&ab["max_p"]), Some(0.05));
    }
}
