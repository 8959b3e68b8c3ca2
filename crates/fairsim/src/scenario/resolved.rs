//! The fully resolved scenario: one pair, one seed, every default written out.
//!
//! Written beside results so that a run can be understood and repeated without the original
//! file, its overrides or this version's defaults: loading it and running its single pair with
//! its seed reproduces the run.

use super::{
    components::params_table,
    spec::{FlowSpec, PairSpec, Scenario},
};
use crate::error::{Error, Result};
use crate::net::{Headers, PortId};
use crate::units::Bytes;
use toml::{Table, Value};

fn s(v: impl ToString) -> Value {
    Value::String(v.to_string())
}

fn app_fields(t: &mut Table, f: &FlowSpec) {
    t.insert("app".into(), s(f.app.name()));
    for (key, value) in f.app.resolved() {
        t.insert(key.into(), value);
    }
}

pub fn resolved_toml(sc: &Scenario, pair: &PairSpec, seed: u64) -> Result<String> {
    toml::to_string(&resolved_table(sc, pair, seed, None))
        .map_err(|e| Error::Usage(format!("cannot write the resolved scenario: {e}")))
}

/// The resolved scenario as JSON, as a TOML reader reads `resolved_toml`'s text: the same
/// tables, each table's keys in the order that text gives them (`json_in_toml_order`), without
/// writing and reading TOML (seconds for a network of 100,000 flows). With `ends = Some(n)`,
/// only the first and the last `n` links and flows: a preview of a big scenario, whose size
/// then does not matter (`fairsim validate` shows the ends of its long tables).
pub fn resolved_json(sc: &Scenario, pair: &PairSpec, seed: u64, ends: Option<usize>) -> String {
    let mut out = String::new();
    json_in_toml_order(&Value::Table(resolved_table(sc, pair, seed, ends)), &mut out);
    out
}

/// Whether item `i` of `len` is among the first or last `ends` (every item without `ends`).
fn at_the_ends(i: usize, len: usize, ends: Option<usize>) -> bool {
    ends.is_none_or(|n| i < n || i + n >= len)
}

/// A loss model as a scenario writes it, every probability written out.
fn loss_table(model: &crate::node::LossModel) -> Table {
    let mut t = Table::new();
    t.insert("model".into(), s(model.name()));
    for (field, p) in model.probabilities() {
        t.insert(field.into(), Value::Float(p));
    }
    t
}

/// A network event as a scenario writes it, its detection delay written out.
fn event_table(e: &super::spec::NetworkEvent) -> Table {
    let mut t = Table::new();
    t.insert("at".into(), s(e.at));
    t.insert(e.target.0.into(), s(&e.target.1));
    t.insert("action".into(), s(e.action.name()));
    if let super::spec::NetworkAction::Rate(rate) = e.action {
        t.insert("rate".into(), s(rate));
    }
    t.insert("detection".into(), s(e.detection));
    t
}

fn resolved_table(sc: &Scenario, pair: &PairSpec, seed: u64, ends: Option<usize>) -> Table {
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
    // a workload takes the run's forwarding (a flow writes its own)
    if let Some(w) =
        sc.flows.iter().find(|f| f.app.name() == "workload" && f.forwarding != crate::net::Forwarding::Static)
    {
        run.insert("forwarding".into(), s(w.forwarding.name()));
    }
    if sc.flows.iter().any(|f| f.forwarding == crate::net::Forwarding::Flowlet) {
        run.insert("flowlet_timeout".into(), s(sc.run.flowlet_timeout));
    }
    let fair = sc.run.fairness.iter().map(|f| s(&sc.flows[f.idx()].name)).collect();
    run.insert("fairness".into(), Value::Array(fair));
    let ports = |ids: &[PortId]| Value::Array(ids.iter().map(|p| s(sc.port_name(p.idx()))).collect());
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
    if !sc.events.is_empty() {
        run.insert("failure_detection".into(), s(sc.run.failure_detection));
    }
    doc.insert("run".into(), Value::Table(run));
    doc.insert("nodes".into(), Value::Array(sc.nodes.iter().map(s).collect()));

    let mut links = Table::new();
    // each link's ports, in port order (found once, not by a search per link)
    let mut ports_of: Vec<Vec<usize>> = vec![vec![]; sc.links.len()];
    sc.ports.iter().enumerate().for_each(|(p, port)| ports_of[port.link()].push(p));
    for (li, link) in sc.links.iter().enumerate().filter(|(li, _)| at_the_ends(*li, sc.links.len(), ends)) {
        let mut l = Table::new();
        l.insert("between".into(), Value::Array(vec![s(sc.node_name(link.a)), s(sc.node_name(link.b))]));
        for (p, port) in ports_of[li].iter().map(|&p| (p, &sc.ports[p])) {
            l.entry("rate").or_insert_with(|| s(port.rate));
            let qdisc = &sc.components(pair).qdiscs[p];
            let mut d = Table::new();
            d.insert("rate".into(), s(port.rate));
            d.insert("delay".into(), s(port.delay));
            d.insert("buffer".into(), s(port.buffer));
            d.insert("buffer_includes_line".into(), Value::Boolean(port.buffer_includes_line));
            d.insert("qdisc".into(), Value::Table(params_table(qdisc)));
            if let Some(loss) = &port.loss {
                d.insert("loss".into(), Value::Table(loss_table(loss)));
            }
            l.insert(if port.from == link.a { "forward" } else { "reverse" }.into(), Value::Table(d));
        }
        links.insert(link.name.clone(), Value::Table(l));
    }
    doc.insert("links".into(), Value::Table(links));
    if let Some(b) = &sc.shared_buffer {
        let mut t = Table::new();
        t.insert("size".into(), s(Bytes(b.size)));
        t.insert("alpha".into(), Value::Float(b.alpha));
        t.insert("nodes".into(), Value::Array(b.nodes.iter().map(|&n| s(sc.node_name(n))).collect()));
        doc.insert("shared_buffer".into(), Value::Table(t));
    }
    if let Some(p) = &sc.pfc {
        let mut t = Table::new();
        t.insert("xoff".into(), s(Bytes(p.xoff)));
        t.insert("xon".into(), s(Bytes(p.xon)));
        if let Some(h) = p.headroom {
            t.insert("headroom".into(), s(Bytes(h)));
        }
        t.insert("frame".into(), s(Bytes(p.frame.into())));
        let lossless = (0..8).filter(|i| p.priorities & 1 << i != 0).map(|i| Value::Integer(i.into()));
        t.insert("priorities".into(), Value::Array(lossless.collect()));
        t.insert("nodes".into(), Value::Array(p.nodes.iter().map(|&n| s(sc.node_name(n))).collect()));
        doc.insert("pfc".into(), Value::Table(t));
    }

    let mut flows = Table::new();
    let mut workloads = Table::new();
    let drawn = sc.drawn(seed);
    // a preview keeps every workload (a few tables, each standing for many flows)
    let shown = |i: usize, f: &FlowSpec| f.app.name() == "workload" || at_the_ends(i, sc.flows.len(), ends);
    for (i, f) in sc.flows.iter().enumerate().filter(|(i, f)| shown(*i, f)) {
        let mut t = Table::new();
        if f.app.name() == "workload" {
            // written back as the workload it is: its own table, then what every flow has
            t.extend(f.app.resolved().into_iter().map(|(k, v)| (k.to_string(), v)));
            if let Some(c) = &sc.components(pair).transports[i] {
                t.insert("transport".into(), Value::Table(params_table(c)));
            }
            t.insert("headers".into(), s(f.headers.name()));
            t.insert("packet_size".into(), s(Bytes(f.payload_size as u64)));
            t.insert("start".into(), s(f.start));
            if let Some(stop) = f.stop {
                t.insert("stop".into(), s(stop));
            }
            if f.priority != 0 {
                t.insert("priority".into(), Value::Integer(f.priority.into()));
            }
            workloads.insert(f.name.clone(), Value::Table(t));
            continue;
        }
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
        if f.priority != 0 {
            t.insert("priority".into(), Value::Integer(f.priority.into()));
        }
        if f.forwarding == crate::net::Forwarding::Static {
            let mut route = vec![s(sc.node_name(f.src))];
            route.extend(f.data_route.iter().map(|p| s(sc.node_name(sc.ports[p.idx()].to))));
            t.insert("route".into(), Value::Array(route));
        } else {
            t.insert("forwarding".into(), s(f.forwarding.name()));
        }
        flows.insert(f.name.clone(), Value::Table(t));
    }
    doc.insert("flows".into(), Value::Table(flows));
    if !workloads.is_empty() {
        doc.insert("workloads".into(), Value::Table(workloads));
    }
    if !sc.events.is_empty() {
        doc.insert("events".into(), Value::Array(sc.events.iter().map(|e| Value::Table(event_table(e))).collect()));
    }

    let mut p = Table::new();
    if let Some(d) = &pair.description {
        p.insert("description".into(), s(d));
    }
    let mut pairs = Table::new();
    pairs.insert(pair.name.clone(), Value::Table(p));
    doc.insert("pairs".into(), Value::Table(pairs));
    doc
}

/// Whether the TOML writer writes `v` as a table of its own, after its table's other keys: a
/// table, or an array of tables.
fn written_after(v: &Value) -> bool {
    match v {
        Value::Table(_) => true,
        Value::Array(a) => !a.is_empty() && a.iter().all(|x| matches!(x, Value::Table(_))),
        _ => false,
    }
}

/// `v` as JSON, each table's keys in the order the TOML writer writes them: its plain values
/// first, then its tables and arrays of tables, each group in the table's order. A float JSON
/// cannot write is `{"$float": "inf"}` (or `-inf`, `nan`), as Python's `float()` reads it.
fn json_in_toml_order(v: &Value, out: &mut String) {
    write_json(v, true, out);
}

/// `v` as JSON, each table's keys in the TOML writer's order (`toml_order`) or in the table's.
fn write_json(v: &Value, toml_order: bool, out: &mut String) {
    let quoted = |s: &str| serde_json::to_string(s).expect("a string serialises");
    match v {
        Value::String(s) => out.push_str(&quoted(s)),
        Value::Integer(i) => out.push_str(&i.to_string()),
        Value::Float(f) if f.is_finite() => out.push_str(&serde_json::to_string(f).expect("a finite float")),
        Value::Float(f) => {
            let name = if f.is_nan() { "nan".to_string() } else { f.to_string() };
            out.push_str(&format!(r#"{{"$float":"{name}"}}"#));
        }
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Datetime(d) => out.push_str(&quoted(&d.to_string())),
        Value::Array(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, toml_order, out);
            }
            out.push(']');
        }
        Value::Table(t) => {
            out.push('{');
            let values = t.iter().filter(|(_, v)| !toml_order || !written_after(v));
            let tables = t.iter().filter(|(_, v)| toml_order && written_after(v));
            for (i, (k, item)) in values.chain(tables).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&quoted(k));
                out.push(':');
                write_json(item, toml_order, out);
            }
            out.push('}');
        }
    }
}

impl Scenario {
    /// The scenario as a complete TOML file for one pair and seed, every default written out:
    /// running it gives the same results as running this scenario with that pair and seed.
    pub fn resolved_toml(&self, pair: &str, seed: u64) -> Result<String> {
        resolved_toml(self, self.pair(Some(pair))?, seed)
    }

    /// `resolved_toml` as a TOML reader reads it (the same tables, keys in the order the text
    /// gives them), written as JSON for readers that parse JSON much faster than TOML (`fairsim
    /// validate`); a float JSON cannot write is `{"$float": "inf"}` (or `-inf`, `nan`). With
    /// `ends = Some(n)`, only the first and the last `n` links and flows.
    pub fn resolved_json(&self, pair: &str, seed: u64, ends: Option<usize>) -> Result<String> {
        Ok(resolved_json(self, self.pair(Some(pair))?, seed, ends))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` read by a TOML reader, as JSON in the text's order (what `resolved_json` must give).
    fn read_back(text: &str) -> String {
        let mut out = String::new();
        write_json(&Value::Table(toml::from_str(text).unwrap()), false, &mut out);
        out
    }

    #[test]
    fn json_has_the_keys_in_the_order_of_the_written_toml_and_every_float() {
        let mut inner = Table::new();
        inner.insert("z".into(), Value::Float(f64::INFINITY));
        inner.insert("empty".into(), Value::Table(Table::new()));
        inner.insert("y".into(), Value::Float(f64::NEG_INFINITY));
        inner.insert("x".into(), Value::Float(f64::NAN));
        inner.insert("w".into(), Value::Float(1e300));
        inner.insert("rows".into(), Value::Array(vec![Value::Table(Table::new()), Value::Table(Table::new())]));
        inner.insert("mixed".into(), Value::Array(vec![Value::Integer(1), Value::String("s".into())]));
        inner.insert("none".into(), Value::Array(vec![]));
        let mut doc = Table::new();
        doc.insert("t".into(), Value::Table(inner));
        doc.insert("b".into(), Value::Integer(1));
        doc.insert("a".into(), Value::Float(-0.0));
        let mut json = String::new();
        json_in_toml_order(&Value::Table(doc.clone()), &mut json);
        assert_eq!(json, read_back(&toml::to_string(&doc).unwrap()));
        assert!(
            json.starts_with(r#"{"b":1,"a":-0.0,"t":{"z":{"$float":"inf"},"y":{"$float":"-inf"},"x":{"$float":"nan"}"#)
        );
    }

    #[test]
    fn every_bundled_example_reads_back_as_its_json() {
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/examples");
        for entry in std::fs::read_dir(examples).unwrap() {
            let path = entry.unwrap().path();
            let sc = Scenario::load(path.to_str().unwrap(), &[]).unwrap();
            for pair in &sc.pairs {
                let text = resolved_toml(&sc, pair, 1).unwrap();
                assert_eq!(resolved_json(&sc, pair, 1, None), read_back(&text), "{path:?} {}", pair.name);
            }
        }
    }

    #[test]
    fn the_ends_keep_the_first_and_last_links_and_flows_as_the_whole_writes_them() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/csfq98/fig6_chain.toml");
        let sc = Scenario::load(path, &[]).unwrap();
        let pair = &sc.pairs[0];
        let whole = resolved_table(&sc, pair, 1, None);
        let ends = resolved_table(&sc, pair, 1, Some(3));
        for section in ["links", "flows"] {
            let (all, kept) = (whole[section].as_table().unwrap(), ends[section].as_table().unwrap());
            let names: Vec<&String> = all.keys().collect();
            let expected: Vec<&String> = names[..3].iter().chain(&names[names.len() - 3..]).copied().collect();
            assert_eq!(kept.keys().collect::<Vec<_>>(), expected, "{section}");
            assert!(kept.iter().all(|(k, v)| all[k] == *v), "{section}");
        }
        // more ends than items: every one
        let wide = resolved_table(&sc, pair, 1, Some(10_000));
        assert_eq!(wide, whole);
    }
}
