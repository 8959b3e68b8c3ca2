//! Errors. A scenario error names the file, the line and the field, compiler style:
//! `scenarios/x.toml:12:1: flows.ftp1.window: must be at least 1`.

use serde::Serialize;
use std::fmt;

/// One problem found in a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The scenario file (or `<string>` for text given directly).
    pub file: String,
    /// 1-based line and column, when the problem has a place in the file.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Dotted path of the field, e.g. `flows.ftp1.window` (empty for the whole file).
    pub field: String,
    pub message: String,
    /// Set when the value came from a command-line override (`--set KEY=VALUE`).
    pub from_override: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        write!(f, ": ")?;
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        write!(f, "{}", self.message)?;
        if let Some(o) = &self.from_override {
            write!(f, " (from --set {o})")?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The scenario is malformed; every problem found is listed.
    #[error("{}", .0.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))]
    Scenario(Vec<Diagnostic>),
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    /// A request that does not fit the scenario (an unknown pair, a bad `--set`).
    #[error("{0}")]
    Usage(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Writes a field path the way a user would type it after `--set`: `pairs."G/FQ".qdisc`.
pub fn dotted(path: &[String]) -> String {
    path.iter()
        .map(|seg| {
            if !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                seg.clone()
            } else {
                format!("\"{seg}\"")
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}
