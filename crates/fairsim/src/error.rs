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
    /// Set when the value came from an override (`KEY=VALUE`), as the user wrote it.
    pub from_override: Option<String>,
    /// How overrides are named in messages: `--set` on the command line, `set=` from Python.
    pub origin: String,
}

impl Diagnostic {
    /// Where it is: `file`, `file:line` or `file:line:column`.
    pub fn place(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", self.file),
            (Some(l), None) => format!("{}:{l}", self.file),
            _ => self.file.clone(),
        }
    }

    /// The override it came from as messages echo it: cut, if long.
    pub fn override_shown(&self) -> Option<String> {
        self.from_override.as_deref().map(|o| abbreviated(o, 120).into_owned())
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.place())?;
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        write!(f, "{}", self.message)?;
        if let Some(o) = self.override_shown() {
            write!(f, " (from {} {o})", self.origin)?;
        }
        Ok(())
    }
}

/// `text` cut to its first `max` characters, saying how much was left out: an override echoed
/// in a message need not repeat ten thousand node names.
pub fn abbreviated(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => text.into(),
        Some((end, _)) => format!("{}... ({} characters in all)", &text[..end], text.chars().count()).into(),
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

/// The name in `known` closest to `name` when it is close enough to be a likely typo: at most
/// one edit (insertion, deletion, substitution or swap of neighbours, ignoring case) per three
/// characters, and never all of them (`a` does not suggest `b`). Ties go to the first; a name
/// that is known suggests nothing.
pub fn suggest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let len = lower.chars().count();
    let allowed = (len / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        if k == name {
            return None;
        }
        let d = strsim::damerau_levenshtein(&lower, &k.to_lowercase());
        if d <= allowed && d < len && d < k.chars().count() && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

/// `; did you mean `x`?` when `suggest` finds a likely intended name, else nothing: for
/// messages such as ``unknown flow `ftpp`; did you mean `ftp1`? (the flows are ...)``.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    suggest(name, known).map(|k| format!("; did you mean `{k}`?")).unwrap_or_default()
}

/// The message for `name`, which is not among `known`:
/// ``unknown flow `ftpp`; did you mean `ftp1`? (the flows are ftp1, ftp2, telnet)``.
pub fn unknown<S: AsRef<str>>(what: &str, name: &str, known: &[S]) -> String {
    let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
    format!("unknown {what} `{name}`{} (the {what}s are {})", did_you_mean(name, known.iter().copied()), names(&known))
}

/// Names for a message, the first 20 of them: enough for every discipline, and for a
/// scenario's flows, links or ports without filling the screen.
pub fn names<S: AsRef<str>>(known: &[S]) -> String {
    const SHOWN: usize = 20;
    let shown: Vec<&str> = known.iter().take(SHOWN).map(AsRef::as_ref).collect();
    let more = if known.len() > SHOWN { format!(", ... ({} in all)", known.len()) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// serde's message for an unknown field or variant (``unknown field `windw`, expected one of
/// `src`, `window` ``) with the likely intended name, when there is one:
/// ``unknown field `windw`; did you mean `window`? (expected one of `src`, `window`)``.
pub fn suggest_in_serde_message(message: &str) -> String {
    let rewrite = || {
        let rest = message.strip_prefix("unknown field `").or_else(|| message.strip_prefix("unknown variant `"))?;
        let (name, expected) = rest.split_once('`')?;
        let expected = expected.strip_prefix(", ")?;
        let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let hint = suggest(name, known)?;
        let head = &message[..message.len() - rest.len() + name.len() + 1];
        Some(format!("{head}; did you mean `{hint}`? ({expected})"))
    };
    rewrite().unwrap_or_else(|| message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_likely_typos_only() {
        let flows = ["ftp1", "ftp2", "telnet"];
        assert_eq!(suggest("ftpp", flows), Some("ftp1"));
        assert_eq!(suggest("FTP2", flows), Some("ftp2"));
        assert_eq!(suggest("telnte", flows), Some("telnet"));
        assert_eq!(suggest("windw", ["window", "src"]), Some("window"));
        assert_eq!(suggest("examples/dumbell", ["examples/dumbbell"]), Some("examples/dumbbell"));
        assert_eq!(suggest("G/FCF", ["G/FCFS", "G/RD"]), Some("G/FCFS"));
        assert_eq!(suggest("nowhere", ["a", "b"]), None);
        assert_eq!(suggest("a", ["b", "c"]), None);
        assert_eq!(suggest("web", ["ftp", "cbr"]), None);
        assert_eq!(suggest("ftp1", flows), None, "an exact name is not a typo");
        assert_eq!(did_you_mean("ftpp", flows), "; did you mean `ftp1`?");
        assert_eq!(did_you_mean("zzz", flows), "");
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        assert_eq!(
            unknown("flow", "ftpp", &["ftp1", "ftp2"]),
            "unknown flow `ftpp`; did you mean `ftp1`? (the flows are ftp1, ftp2)"
        );
        assert_eq!(unknown("node", "nowhere", &["a", "b"]), "unknown node `nowhere` (the nodes are a, b)");
        let many: Vec<String> = (0..25).map(|i| format!("f{i}")).collect();
        assert!(unknown("flow", "x", &many).ends_with("f18, f19, ... (25 in all))"));
    }

    #[test]
    fn serde_messages_get_the_intended_name() {
        assert_eq!(
            suggest_in_serde_message("unknown field `windw`, expected one of `src`, `window`"),
            "unknown field `windw`; did you mean `window`? (expected one of `src`, `window`)"
        );
        assert_eq!(
            suggest_in_serde_message("unknown variant `paretoo`, expected `exponential` or `pareto`"),
            "unknown variant `paretoo`; did you mean `pareto`? (expected `exponential` or `pareto`)"
        );
        let far = "unknown field `zzz`, expected one of `src`, `window`";
        assert_eq!(suggest_in_serde_message(far), far);
        assert_eq!(suggest_in_serde_message("missing field `src`"), "missing field `src`");
    }
}
