//! The fully resolved scenario: one pair, one seed, every default written out.
//!
//! Written beside results so that a run can be understood and repeated without the original
//! file, its overrides or this version's defaults: loading it and running its single pair with
//! its seed reproduces the run.

use super::{params_table, FlowSpec, PairSpec, Scenario};
use crate::error::{Error, Result};
use crate::net::{Headers, PortId};
use crate::traffic::App;
use crate::units::Bytes;
use toml::{Table, Value};

fn s(v: impl ToString) -> Value {
    Value::String(v.to_string())
}

fn app_fields(t: &mut Table, f: &FlowSpec) {
    t.insert("app".into(), s(f.app.name()));
    match &f.app {
        App::Ftp { packets } => {
            if let Some(n) = packets {
                t.insert("size".into(), s(Bytes(n * f.payload_size as u64)));
            }
        }
        App::Telnet { mean_gap } | App::Poisson { mean_gap } => {
            t.insert("mean_gap".into(), s(mean_gap));
        }
        App::Cbr { rate, jitter } => {
            t.insert("rate".into(), s(rate));
            t.insert("jitter".into(), Value::Float(*jitter));
        }
        App::Firehose { rate } => {
            t.insert("rate".into(), s(rate));
        }
        App::OnOff { rate, on_mean, off_mean, periods, shape } => {
            t.insert("rate".into(), s(rate));
            t.insert("on_mean".into(), s(on_mean));
            t.insert("off_mean".into(), s(off_mean));
            t.insert("periods".into(), Value::try_from(periods).expect("enum"));
            t.insert("shape".into(), Value::Float(*shape));
        }
        App::Files { arrivals, packets } => {
            t.insert("arrivals".into(), Value::Float(*arrivals));
            t.insert("size".into(), s(Bytes(packets * f.payload_size as u64)));
        }
        // validation expands a web group into its transfers, which are FTPs
        App::Web { .. } => {}
    }
}

pub fn resolved_toml(sc: &Scenario, pair: &PairSpec, seed: u64) -> Result<String> {
    let mut doc = Table::new();

    let mut meta = Table::new();
    meta.insert("name".into(), s(&sc.name));
    meta.insert("description".into(), s(&sc.description));
    if let Some(r) = &sc.reference {
        meta.insert("reference".into(), s(r));
    }
    let mut note = format!("Resolved from {} for pair `{}` with seed {seed}", sc.file, pair.name);
    if !sc.overrides.is_empty() {
        note += &format!("; overrides: {}", sc.overrides.join(" "));
    }
    meta.insert("notes".into(), s(note));
    doc.insert("scenario".into(), Value::Table(meta));

    let mut run = Table::new();
    run.insert("duration".into(), s(sc.run.duration));
    run.insert("warmup".into(), s(sc.run.warmup));
    run.insert("interval".into(), s(sc.run.interval));
    run.insert("seed".into(), Value::Integer(seed as i64));
    let fair = sc.run.fairness.iter().map(|f| s(&sc.flows[f.idx()].name)).collect();
    run.insert("fairness".into(), Value::Array(fair));
    let ports = |ids: &[PortId]| Value::Array(ids.iter().map(|p| s(&sc.ports[p.idx()].name)).collect());
    run.insert("fluid_reference".into(), ports(&sc.run.fluid_reference));
    run.insert("trace".into(), Value::Array(sc.run.trace.iter().map(|f| s(&sc.flows[f.idx()].name)).collect()));
    run.insert("trace_queues".into(), ports(&sc.run.trace_queues));
    if !sc.run.pcap.is_empty() {
        run.insert("pcap".into(), ports(&sc.run.pcap));
    }
    if !sc.run.events.is_empty() {
        run.insert("events".into(), ports(&sc.run.events));
    }
    run.insert("clock_jitter".into(), s(sc.run.clock_jitter));
    if !sc.run.transfer_rows {
        run.insert("transfer_rows".into(), Value::Boolean(false));
    }
    doc.insert("run".into(), Value::Table(run));
    doc.insert("nodes".into(), Value::Array(sc.nodes.iter().map(s).collect()));

    let mut links = Table::new();
    for (li, link) in sc.links.iter().enumerate() {
        let mut l = Table::new();
        l.insert("between".into(), Value::Array(vec![s(sc.node_name(link.a)), s(sc.node_name(link.b))]));
        for (p, port) in sc.ports.iter().enumerate().filter(|(_, p)| p.link == li) {
            l.entry("rate").or_insert_with(|| s(port.rate));
            let qdisc = &sc.components(pair).qdiscs[p];
            let mut d = Table::new();
            d.insert("rate".into(), s(port.rate));
            d.insert("delay".into(), s(port.delay));
            d.insert("buffer".into(), s(port.buffer));
            d.insert("buffer_includes_line".into(), Value::Boolean(port.buffer_includes_line));
            d.insert("qdisc".into(), Value::Table(params_table(qdisc)));
            l.insert(if port.from == link.a { "forward" } else { "reverse" }.into(), Value::Table(d));
        }
        links.insert(link.name.clone(), Value::Table(l));
    }
    doc.insert("links".into(), Value::Table(links));

    let mut flows = Table::new();
    let drawn = sc.drawn(seed);
    for (i, f) in sc.flows.iter().enumerate() {
        let mut t = Table::new();
        t.insert("src".into(), s(sc.node_name(f.src)));
        t.insert("dst".into(), s(sc.node_name(f.dst)));
        app_fields(&mut t, f);
        // a web transfer is written as the FTP it is in this run: its drawn size and start; any
        // flow's start as drawn with its jitter, which the resolved file then leaves out
        let (start, packets) = drawn[i];
        if let Some(n) = packets {
            t.insert("size".into(), s(Bytes(n * f.payload_size as u64)));
        }
        let transport = match &sc.components(pair).transports[i] {
            Some(c) => Value::Table(params_table(c)),
            None => s(crate::transport::NONE),
        };
        t.insert("transport".into(), transport);
        // as written: the payload under headers, whose ACKs are the headers alone
        t.insert("headers".into(), s(f.headers.name()));
        t.insert("packet_size".into(), s(Bytes(f.payload_size as u64)));
        if f.headers == Headers::None {
            t.insert("ack_size".into(), s(Bytes(f.ack_size as u64)));
        }
        t.insert("start".into(), s(start));
        if let Some(stop) = f.stop {
            t.insert("stop".into(), s(stop));
        }
        t.insert("acks".into(), Value::Boolean(f.acks));
        t.insert("weight".into(), Value::Float(f.weight));
        let mut route = vec![s(sc.node_name(f.src))];
        route.extend(f.data_route.iter().map(|p| s(sc.node_name(sc.ports[p.idx()].to))));
        t.insert("route".into(), Value::Array(route));
        flows.insert(f.name.clone(), Value::Table(t));
    }
    doc.insert("flows".into(), Value::Table(flows));

    let mut p = Table::new();
    if let Some(d) = &pair.description {
        p.insert("description".into(), s(d));
    }
    let mut pairs = Table::new();
    pairs.insert(pair.name.clone(), Value::Table(p));
    doc.insert("pairs".into(), Value::Table(pairs));

    toml::to_string(&doc).map_err(|e| Error::Usage(format!("cannot write the resolved scenario: {e}")))
}
