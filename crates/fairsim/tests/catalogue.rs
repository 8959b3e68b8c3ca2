//! The column catalogue (`stats::catalogue`) is the interval rows' fields, in their order: a
//! counter or metric added to the rows and not to the catalogue fails here.

use fairsim::report::{FlowInterval, QueueInterval};
use fairsim::stats::catalogue::COLUMNS;

/// The fields of a serialised row after its keys, in the order they are written.
fn fields(json: &str) -> Vec<String> {
    let keys = ["flow", "port", "interval", "start_s", "end_s", "warmup"];
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut found: Vec<(usize, String)> = value
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| !keys.contains(&k.as_str()))
        .map(|k| (json.find(&format!("\"{k}\":")).unwrap(), k.clone()))
        .collect();
    found.sort();
    found.into_iter().map(|(_, k)| k).collect()
}

fn names(table: &str) -> Vec<String> {
    COLUMNS.iter().filter(|c| c.table == table).map(|c| c.name.to_string()).collect()
}

#[test]
fn the_catalogue_is_the_interval_rows_fields_in_their_order() {
    let (start_s, end_s, warmup) = (0.0, 1.0, false);
    let f = FlowInterval {
        flow: "f".into(),
        interval: 0,
        start_s,
        end_s,
        warmup,
        counters: Default::default(),
        metrics: Default::default(),
    };
    let q = QueueInterval {
        port: "p".into(),
        interval: 0,
        start_s,
        end_s,
        warmup,
        counters: Default::default(),
        metrics: Default::default(),
    };
    assert_eq!(fields(&serde_json::to_string(&f).unwrap()), names("intervals"));
    assert_eq!(fields(&serde_json::to_string(&q).unwrap()), names("queue_intervals"));
    assert!(COLUMNS.iter().all(|c| !c.unit.is_empty() && !c.description.is_empty()));
}

mod common;

/// Where a summary table's column is in a flow's or queue's report, as its `source` says.
fn lookup<'a>(record: &'a serde_json::Value, c: &fairsim::stats::catalogue::Column) -> Option<&'a serde_json::Value> {
    match c.source {
        "field" | "summary" => record.get(c.name),
        "total" => record.get("totals")?.get(c.name),
        "delay" => {
            let (key, figure) = c.name.split_once('_')?;
            record.get(key)?.get(figure)
        }
        other => panic!("{}: unknown source `{other}`", c.name),
    }
}

#[test]
fn the_summary_tables_columns_are_in_the_flows_and_queues_reports() {
    use fairsim::stats::catalogue::{FLOW_COLUMNS, QUEUE_COLUMNS};
    let sc = common::parse(
        r#"
nodes = ["a", "gw", "b"]
[run]
duration = "10s"
interval = "5s"
[links]
in = { between = ["a", "gw"], rate = "1Mbps" }
out = { between = ["gw", "b"], rate = "500kbps", buffer = 10 }
[flows]
f = { src = "a", dst = "b", app = "ftp" }
"#,
    );
    let report = serde_json::to_value(common::simulate(&sc, None, None)).unwrap();
    let (flow, queue) = (&report["flows"][0], &report["queues"][0]);
    let missing: Vec<&str> = FLOW_COLUMNS
        .iter()
        .filter(|c| lookup(flow, c).is_none())
        .chain(QUEUE_COLUMNS.iter().filter(|c| lookup(queue, c).is_none()))
        .map(|c| c.name)
        .collect();
    assert!(missing.is_empty(), "columns not in the report: {missing:?}");
    // every field of a flow's report is a column, or is laid out elsewhere (its own tables)
    let elsewhere = ["name", "transport_params", "totals", "run_totals", "queueing", "drops"];
    let fields: Vec<&String> = flow.as_object().unwrap().keys().filter(|k| !elsewhere.contains(&k.as_str())).collect();
    let listed: Vec<&str> =
        FLOW_COLUMNS.iter().filter(|c| c.source != "total" && c.source != "delay").map(|c| c.name).collect();
    let unlisted: Vec<&&String> = fields.iter().filter(|f| !listed.contains(&f.as_str())).collect();
    assert!(unlisted.is_empty(), "fields of a flow's report in no column: {unlisted:?}");
    assert!(fairsim::stats::catalogue::all().all(|c| !c.unit.is_empty() && !c.description.is_empty()));
}
