//! Problems given their places: the file's line and column of the field, or the override that
//! wrote it; serde's messages in a scenario author's words; at most `MAX_DIAGNOSTICS` of them.

use super::locate;
use super::overrides::Override;
use super::problem::{plain_types, Problem};
use crate::error::{dotted, suggest_in_serde_message, Diagnostic};
use toml_edit::ImDocument;

/// How many problems one load reports: enough for every mistake a person makes at once, few
/// enough that a generated file with thousands of errors gives a message one can read.
pub const MAX_DIAGNOSTICS: usize = 50;

/// The first `max` diagnostics, and one more saying how many were left out.
pub(super) fn at_most(max: usize, mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    if diags.len() > max {
        let left_out = diags.len() - max;
        diags.truncate(max);
        let file = diags[0].file.clone();
        let origin = diags[0].origin.clone();
        let message = format!("... and {left_out} more problems (the first {max} are listed)");
        diags.push(Diagnostic {
            file,
            line: None,
            column: None,
            field: String::new(),
            message,
            from_override: None,
            origin,
        });
    }
    diags
}

/// Turns problems into diagnostics with file positions.
pub(super) struct Locator<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
    pub(super) lines: &'a locate::Lines,
    pub(super) doc: &'a ImDocument<String>,
    pub(super) overrides: &'a [Override],
    pub(super) origin: &'a str,
}

impl Locator<'_> {
    /// The diagnostic of `p`: in the override that wrote what it is about, else in the file.
    pub(super) fn diagnostic(&self, p: &Problem) -> Diagnostic {
        self.diagnostic_in(p, self.overrides.iter().rev().find(|o| o.covers(&p.path)))
    }

    pub(super) fn diagnostic_in(&self, p: &Problem, from_override: Option<&Override>) -> Diagnostic {
        let offset = match from_override {
            None => locate::offset_of(self.doc, &p.path),
            Some(_) => None,
        };
        let (line, column) = offset.map(|o| self.lines.line_col(self.text, o)).unzip();
        let from_override = from_override.map(|o| o.text.clone());
        Diagnostic {
            file: self.file.to_string(),
            line,
            column,
            field: dotted(&p.path),
            message: p.message.clone(),
            from_override,
            origin: self.origin.to_string(),
        }
    }

    /// The diagnostic of serde's error `message` at `path`.
    pub(super) fn serde_error(&self, path: &serde_path_to_error::Path, message: &str) -> Diagnostic {
        let mut path = crate::params::path_segments(path);
        let mut message = message.trim().to_string();
        // serde names an unknown or missing field in its message, not in the path
        let named = |prefix: &str| message.strip_prefix(prefix).and_then(|r| r.split('`').next()).map(str::to_string);
        let (unknown, missing) = (named("unknown field `"), named("missing field `"));
        message = suggest_in_serde_message(&plain_types(&message));
        if let Some(unknown) = unknown {
            if unknown == "nodes" && !path.is_empty() {
                message += "; top-level keys such as `nodes` must come before the first [table] header";
            }
            if path.last() != Some(&unknown) {
                path.push(unknown);
            }
        }
        let mut d = self.diagnostic(&Problem { path: path.clone(), message: message.clone() });
        if let Some(missing) = missing {
            path.push(missing); // located at the table that lacks it
            d.field = dotted(&path);
        }
        d
    }
}
