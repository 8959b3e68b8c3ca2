//! Loading: text → document (span-keeping as written, editable with overrides) → serde into the
//! raw schema (`schema`) → validation (`validate`) into `Scenario`; a scenario with problems is
//! parsed again, as written, to locate them.

use super::diagnostics::{at_most, Locator, MAX_DIAGNOSTICS};
use super::overrides::Override;
use super::spec::{Scenario, CLI_ORIGIN};
use super::{locate, schema, syntax, validate};
use crate::error::{Diagnostic, Error, Result};
use toml_edit::{DocumentMut, ImDocument};

impl Scenario {
    /// Loads and validates a scenario file, applying `overrides` (`KEY=VALUE`) first.
    pub fn load(path: &str, overrides: &[String]) -> Result<Scenario> {
        let bytes = std::fs::read(path).map_err(|e| Error::Io { path: path.to_string(), message: e.to_string() })?;
        Scenario::parse_bytes(&bytes, path, overrides, CLI_ORIGIN)
    }

    /// Parses and validates scenario text; `file` names it in messages.
    pub fn parse(text: &str, file: &str, overrides: &[String]) -> Result<Scenario> {
        Scenario::parse_bytes(text.as_bytes(), file, overrides, CLI_ORIGIN)
    }

    /// Parses and validates the bytes of a scenario file, which must be UTF-8 text; `file` names
    /// it in messages and `origin` names the overrides (`--set`, or `set=` from Python).
    pub fn parse_bytes(bytes: &[u8], file: &str, overrides: &[String], origin: &str) -> Result<Scenario> {
        let unreadable = |place: Option<(usize, usize)>, message: String| {
            Error::Scenario(vec![Diagnostic {
                file: file.to_string(),
                line: place.map(|p| p.0),
                column: place.map(|p| p.1),
                field: String::new(),
                message,
                from_override: None,
                origin: origin.to_string(),
            }])
        };
        let text = locate::utf8(bytes).map_err(|why| unreadable(None, why))?;
        let sets = overrides.iter().map(|o| Override::parse(o, origin)).collect::<Result<Vec<_>>>()?;
        let lines = locate::Lines::new(text);
        // The text is parsed into its raw form on a thread of its own, so that the parse's
        // pieces go to that thread's heap (glibc gives each thread one) and leave it nearly
        // empty when freed, rather than holes between the scenario's pieces in this thread's
        // heap that no later allocation of a run on a worker thread could use: a 100,000-flow
        // run held 243 MiB less (docs/performance.md, "Memory at 100,000 flows"). A program
        // that then runs on this thread no longer fills those holes.
        let (raw, sets) = std::thread::scope(|scope| {
            let parse = || read_raw(text, file, &lines, sets.clone(), origin, &unreadable);
            match std::thread::Builder::new().name("fairsim-parse".into()).spawn_scoped(scope, parse) {
                Ok(parsing) => parsing.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => parse(), // no thread to be had: parsed here, with the holes
            }
        })?;
        let scenario = validate::validate(raw, file, overrides).map_err(|problems| {
            let doc = parsed_again(text);
            let located = Locator { file, text, lines: &lines, doc: &doc, overrides: &sets, origin };
            let mut diags: Vec<Diagnostic> = problems.iter().map(|p| located.diagnostic(p)).collect();
            diags.dedup();
            Error::Scenario(at_most(MAX_DIAGNOSTICS, diags))
        })?;
        // the parse's heap, now nearly empty, and validation's pieces back to the system
        crate::memory::return_freed();
        Ok(scenario)
    }
}

/// The text parsed, `sets` applied, read into the raw schema: the raw scenario and the overrides
/// as applied (which know what they created, for messages).
fn read_raw(
    text: &str,
    file: &str,
    lines: &locate::Lines,
    mut sets: Vec<Override>,
    origin: &str,
    unreadable: &(impl Fn(Option<(usize, usize)>, String) -> Error + Sync),
) -> Result<(schema::RawScenario, Vec<Override>)> {
    let syntax_error = |e: toml_edit::TomlError| {
        let (place, message) = syntax::toml_error(text, &e);
        unreadable(place, message)
    };
    // Each way keeps one parsed document at a time, read into the raw schema as it goes; a
    // scenario with problems parses the text again, as written, to find their places
    let placed = |overrides: &[Override], diagnose: &dyn Fn(&Locator) -> Diagnostic| {
        let doc = parsed_again(text);
        Error::Scenario(vec![diagnose(&Locator { file, text, lines, doc: &doc, overrides, origin })])
    };
    if sets.is_empty() {
        // the file as written
        let doc = ImDocument::parse(text.to_string()).map_err(syntax_error)?;
        if let Some(p) = schema::member_not_a_table(doc.as_table()) {
            let located = Locator { file, text, lines, doc: &doc, overrides: &[], origin };
            return Err(Error::Scenario(vec![located.diagnostic(&p)]));
        }
        let raw = serde_path_to_error::deserialize(toml_edit::de::Deserializer::from(doc));
        return match raw {
            Ok(raw) => Ok((raw, sets)),
            Err(e) => Err(placed(&[], &|l| l.serde_error(e.path(), e.inner().message()))),
        };
    }
    // with overrides: an editable document, changed in place and read as it stands (as text
    // again, beside the document and the file's own, it took 330 MiB more at 100,000 flows)
    let mut editable: DocumentMut = text.parse().map_err(syntax_error)?;
    for set in &mut sets {
        if let Err(p) = set.apply(&mut editable) {
            return Err(placed(&[], &|l| l.diagnostic_in(&p, Some(set))));
        }
    }
    if let Some(p) = schema::member_not_a_table(editable.as_table()) {
        return Err(placed(&sets, &|l| l.diagnostic(&p)));
    }
    match serde_path_to_error::deserialize(toml_edit::de::Deserializer::from(editable)) {
        Ok(raw) => Ok((raw, sets)),
        Err(e) => Err(placed(&sets, &|l| l.serde_error(e.path(), e.inner().message()))),
    }
}

/// Text that parsed once, parsed again: the document is kept only while it is read, and a
/// scenario with problems needs it again to find their places.
fn parsed_again(text: &str) -> ImDocument<String> {
    ImDocument::parse(text.to_string()).expect("parsed above")
}

#[cfg(test)]
mod tests {
    use super::Scenario;

    #[test]
    fn overridden_values_read_as_if_written_in_the_file() {
        let file = |rate: &str, flows: &str| {
            format!(
                r#"nodes = ["a", "b"]
[run]
duration = "10s"
[links]
ab = {{ between = ["a", "b"], rate = "{rate}", buffer = 5 }}
[flows]
f = {{ src = "a", dst = "b", app = "ftp" }}
{flows}"#
            )
        };
        let sets = [
            "links.ab.rate=2Mbps".to_string(),
            "run.duration=3s".to_string(),
            r#"flows.g={ src = "a", dst = "b", app = "ftp", start = "1s" }"#.to_string(),
        ];
        let mut set = Scenario::parse(&file("1Mbps", ""), "s.toml", &sets).unwrap();
        let written = file("2Mbps", r#"g = { src = "a", dst = "b", app = "ftp", start = "1s" }"#);
        let written = Scenario::parse(&written.replace("\"10s\"", "\"3s\""), "s.toml", &[]).unwrap();
        assert_eq!(set.overrides, sets);
        set.overrides.clear();
        assert_eq!(format!("{set:?}"), format!("{written:?}"));
    }
}
