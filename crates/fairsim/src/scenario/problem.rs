//! A problem found while validating, before it is given a place in the file.

use crate::error::suggest_in_serde_message;
use crate::params::ParamError;

/// A problem found while validating, before it is given a place in the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Problem {
    pub path: Vec<String>,
    pub message: String,
}

impl Problem {
    pub fn new(path: &[&str], message: impl Into<String>) -> Problem {
        Problem { path: path.iter().map(|s| s.to_string()).collect(), message: message.into() }
    }

    pub(crate) fn from_param(base: &[String], e: ParamError) -> Problem {
        // the toml crate appends "\nin `key`", which the path already says
        let message = e.message.split("\nin `").next().unwrap_or_default();
        let message = suggest_in_serde_message(&plain_types(message));
        Problem { path: base.iter().cloned().chain(e.path).collect(), message }
    }
}

/// serde's message with Rust's type names (`expected struct RawLink`, `expected u32`) said as
/// a scenario's author would: `expected a table (a link)`, `expected a whole number from 0 to
/// 4294967295`.
pub(super) fn plain_types(message: &str) -> String {
    const TYPES: [(&str, &str); 17] = [
        ("struct RawScenario", "a table (a scenario)"),
        ("struct RawMeta", "a table ([scenario])"),
        ("struct RawRun", "a table ([run])"),
        ("struct RawLink", "a table (a link)"),
        ("struct RawDirection", "a table (a direction of a link)"),
        ("struct RawFlow", "a table (a flow)"),
        ("struct RawPair", "a table (a pair)"),
        ("struct RawEvent", "a table (an event)"),
        ("a map", "a table"),
        ("a sequence", "an array"),
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number from 0 to 18446744073709551615"),
        ("usize", "a whole number from 0 to 18446744073709551615"),
        ("i64", "a whole number"),
        ("f64", "a number"),
    ];
    let mut plain = message.to_string();
    for (rust, said) in TYPES {
        // only where serde names what it expected, so that a value quoted in the message stays
        plain = plain.replace(&format!("expected {rust}"), &format!("expected {said}"));
    }
    plain
}
