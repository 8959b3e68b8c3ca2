//! Loading: text → span-keeping document (for locating errors) → overrides applied → serde into
//! the raw schema (`schema`) → validation (`validate`) into `Scenario`.

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
        let mut sets = overrides.iter().map(|o| Override::parse(o, origin)).collect::<Result<Vec<_>>>()?;
        let doc = ImDocument::parse(text.to_string()).map_err(|e| {
            let (place, message) = syntax::toml_error(text, &e);
            unreadable(place, message)
        })?;
        let lines = locate::Lines::new(text);
        let (raw, doc) = if sets.is_empty() {
            // the file as written: read from the document parsed above, which is then gone; the
            // rare scenario with problems parses it again to find their places
            if let Some(p) = schema::member_not_a_table(doc.as_table()) {
                let located = Locator { file, text, lines: &lines, doc: &doc, overrides: &[], origin };
                return Err(Error::Scenario(vec![located.diagnostic(&p)]));
            }
            let raw = serde_path_to_error::deserialize(toml_edit::de::Deserializer::from(doc));
            let doc = || ImDocument::parse(text.to_string()).expect("parsed above");
            match raw {
                Ok(raw) => (raw, None),
                Err(e) => {
                    let located = Locator { file, text, lines: &lines, doc: &doc(), overrides: &[], origin };
                    return Err(Error::Scenario(vec![located.serde_error(e.path(), e.inner().message())]));
                }
            }
        } else {
            let mut editable: DocumentMut = text.parse().expect("parsed above");
            let mut located = Locator { file, text, lines: &lines, doc: &doc, overrides: &[], origin };
            for s in sets.iter_mut() {
                if let Err(p) = s.apply(&mut editable) {
                    return Err(Error::Scenario(vec![located.diagnostic_in(&p, Some(s))]));
                }
            }
            located.overrides = &sets;
            if let Some(p) = schema::member_not_a_table(editable.as_table()) {
                return Err(Error::Scenario(vec![located.diagnostic(&p)]));
            }
            let merged = editable.to_string();
            drop(editable);
            let raw: schema::RawScenario = serde_path_to_error::deserialize(toml::Deserializer::new(&merged))
                .map_err(|e| Error::Scenario(vec![located.serde_error(e.path(), e.inner().message())]))?;
            (raw, Some(doc))
        };
        validate::validate(raw, file, overrides).map_err(|problems| {
            let doc = doc.unwrap_or_else(|| ImDocument::parse(text.to_string()).expect("parsed above"));
            let located = Locator { file, text, lines: &lines, doc: &doc, overrides: &sets, origin };
            let mut diags: Vec<Diagnostic> = problems.iter().map(|p| located.diagnostic(p)).collect();
            diags.dedup();
            Error::Scenario(at_most(MAX_DIAGNOSTICS, diags))
        })
    }
}
