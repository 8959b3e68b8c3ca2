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
