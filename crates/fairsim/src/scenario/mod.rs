//! Scenarios: loading a TOML file (with command-line overrides), validating it with errors that
//! name file, line and field, and the resolved form the engine is built from.
//!
//! Loading goes: text → span-keeping document (for locating errors) → overrides applied →
//! serde into the raw schema (`schema`) → validation (`validate`) into `Scenario`, which has ids,
//! routes and defaults filled in, and every protocol pair's components checked.

mod apps;
mod components;
mod crossing;
mod diagnostics;
mod draws;
mod link_changes;
mod load;
mod locate;
mod overrides;
mod problem;
mod resolved;
pub mod schema;
mod share;
mod spec;
mod syntax;
pub mod topology;
mod validate;

pub use components::params_table;
pub use diagnostics::MAX_DIAGNOSTICS;
pub use overrides::Override;
pub use problem::Problem;
pub use schema::Component;
pub(crate) use share::Recent;
pub use spec::{
    Configured, Draw, FlowSpec, LinkSpec, NetworkAction, NetworkEvent, PairSpec, PfcSpec, PortSpec, RunSpec, Scenario,
    TransportChoice, CLI_ORIGIN, DEFAULT_FAILURE_DETECTION, DEFAULT_PAIR, DEFAULT_QDISC, DEFAULT_TRANSPORT,
};

use toml_edit::ImDocument;

/// 1-based line and column where the field at `path` (or its deepest existing parent) is
/// written in the TOML `text`; `None` if the text does not parse or has no such field. For
/// tools that read tables of their own from scenario files (`fairsim reproduce`).
pub fn locate_field(text: &str, path: &[String]) -> Option<(usize, usize)> {
    let doc = ImDocument::parse(text.to_string()).ok()?;
    locate::offset_of(&doc, path).map(|o| locate::line_col(text, o))
}
