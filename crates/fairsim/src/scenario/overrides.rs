//! Command-line overrides: `--set flows.ftp1.window=8`, `--set pairs."G/FQ".qdisc=fq`.
//!
//! The key is a dotted path (segments with dots or slashes in double quotes); the value is read
//! as TOML (`8`, `true`, `["a", "b"]`, `{ kind = "fcfs" }`) and, failing that, as a string
//! (`10Mbps`, `ftp`). Overrides are applied to the document before it is validated, so they are
//! checked exactly like the file; a missing table on the path is created.

use crate::error::{Error, Result};
use toml_edit::{DocumentMut, Item, Table, Value};

#[derive(Debug, Clone)]
pub struct Override {
    pub path: Vec<String>,
    pub value: Value,
    /// The override as the user wrote it, for messages.
    pub text: String,
}

fn split_path(key: &str) -> Option<Vec<String>> {
    let mut segs = vec![];
    let mut cur = String::new();
    let mut quoted = false;
    let mut was_quoted = false;
    for c in key.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                was_quoted = true;
            }
            '.' if !quoted => {
                if cur.is_empty() && !was_quoted {
                    return None;
                }
                segs.push(std::mem::take(&mut cur));
                was_quoted = false;
            }
            c => cur.push(c),
        }
    }
    if quoted || (cur.is_empty() && !was_quoted) {
        return None;
    }
    segs.push(cur);
    Some(segs)
}

impl Override {
    pub fn parse(text: &str) -> Result<Override> {
        let bad = || {
            Error::Usage(format!("--set expects KEY=VALUE with a dotted KEY such as flows.ftp1.window=8, got `{text}`"))
        };
        let (key, raw) = text.split_once('=').ok_or_else(bad)?;
        let path = split_path(key.trim()).ok_or_else(bad)?;
        let raw = raw.trim();
        let value = raw.parse::<Value>().unwrap_or_else(|_| Value::from(raw));
        Ok(Override { path, value, text: text.to_string() })
    }

    pub fn apply(&self, doc: &mut DocumentMut) -> Result<()> {
        let fail = |why: String| Error::Usage(format!("cannot apply --set {}: {why}", self.text));
        let (last, parents) = self.path.split_last().expect("non-empty path");
        let mut table = doc.as_table_mut() as &mut dyn toml_edit::TableLike;
        for (i, seg) in parents.iter().enumerate() {
            if table.get(seg).is_none() {
                table.insert(seg, Item::Table(Table::new()));
            }
            let item = table.get_mut(seg).expect("just ensured");
            table = item
                .as_table_like_mut()
                .ok_or_else(|| fail(format!("`{}` is not a table", crate::error::dotted(&self.path[..=i]))))?;
        }
        table.insert(last, Item::Value(self.value.clone()));
        Ok(())
    }

    /// Whether this override set the value at `path` or a table that contains it.
    pub fn covers(&self, path: &[String]) -> bool {
        path.starts_with(&self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(doc: &str, sets: &[&str]) -> String {
        let mut d: DocumentMut = doc.parse().unwrap();
        for s in sets {
            Override::parse(s).unwrap().apply(&mut d).unwrap();
        }
        d.to_string()
    }

    #[test]
    fn values_are_toml_or_strings() {
        let out = applied("[flows.ftp1]\nwindow = 5\n", &["flows.ftp1.window=8", "flows.ftp1.rate=10Mbps"]);
        let t: toml::Table = out.parse().unwrap();
        assert_eq!(t["flows"]["ftp1"]["window"].as_integer(), Some(8));
        assert_eq!(t["flows"]["ftp1"]["rate"].as_str(), Some("10Mbps"));
    }

    #[test]
    fn quoted_segments_and_inline_tables() {
        let out = applied(
            "[pairs]\n\"G/FQ\" = { transport = \"generic\", qdisc = \"fq\" }\n",
            &["pairs.\"G/FQ\".qdisc=fcfs"],
        );
        let t: toml::Table = out.parse().unwrap();
        assert_eq!(t["pairs"]["G/FQ"]["qdisc"].as_str(), Some("fcfs"));
        assert_eq!(t["pairs"]["G/FQ"]["transport"].as_str(), Some("generic"));
    }

    #[test]
    fn missing_tables_are_created_and_scalars_are_not_tables() {
        let out = applied("[run]\nduration = 10\n", &["run.seed=3", "flows.f.src=a"]);
        let t: toml::Table = out.parse().unwrap();
        assert_eq!(t["run"]["seed"].as_integer(), Some(3));
        assert_eq!(t["flows"]["f"]["src"].as_str(), Some("a"));
        let mut d: DocumentMut = "[run]\nduration = 10\n".parse().unwrap();
        let e = Override::parse("run.duration.x=1").unwrap().apply(&mut d).unwrap_err();
        assert!(e.to_string().contains("`run.duration` is not a table"), "{e}");
    }

    #[test]
    fn malformed_overrides_are_usage_errors() {
        for bad in ["window", "=3", "a..b=1", "\"a=1"] {
            assert!(matches!(Override::parse(bad), Err(Error::Usage(_))), "{bad}");
        }
    }
}
