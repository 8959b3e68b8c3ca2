//! Command-line overrides: `--set flows.ftp1.window=8`, `--set pairs."G/FQ".qdisc=fq`.
//!
//! The key is a dotted path (segments with dots or slashes in double quotes); the value is read
//! as TOML (`8`, `true`, `["a", "b"]`, `{ kind = "fcfs" }`) and, failing that, as a string
//! (`10Mbps`, `ftp`). Overrides are applied to the document before it is validated, so they are
//! checked exactly like the file; a missing table on the path is created, except a member of
//! `flows`, `links` or `pairs`: a dotted key into one that does not exist is far more likely a
//! typo than a wish to add one, which is done by setting the member to a whole inline table
//! (`flows.new={ src = "a", dst = "b", app = "ftp" }`). In a scenario with a `[topology]`, a
//! dotted key may reach a link the file does not write: it changes the generated link of that
//! name, and validation refuses a name the topology does not generate (`scenario::link_changes`).

use super::problem::Problem;
use super::schema::MEMBERS;
use crate::error::{did_you_mean, dotted, names, Error, Result};
use toml_edit::{DocumentMut, Item, Table, TableLike, Value};

#[derive(Debug, Clone)]
pub struct Override {
    pub path: Vec<String>,
    pub value: Value,
    /// The override as the user wrote it, for messages.
    pub text: String,
    /// How overrides are named in messages: `--set` on the command line, `set=` from Python.
    pub origin: String,
    /// How many segments of `path` existed before `apply`: a table it created, and anything a
    /// problem finds in it, is the override's doing, not the file's.
    existed: usize,
}

/// The segments of a dotted key (`pairs."G/FQ".qdisc`), or `None` if it is malformed.
pub fn split_path(key: &str) -> Option<Vec<String>> {
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

/// `KEY=VALUE` split at the first `=` outside a quoted key segment, so that a key such as
/// `pairs."FQ delta=0".qdisc` reaches the pair of that name.
fn split_assignment(text: &str) -> Option<(&str, &str)> {
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '=' if !quoted => return Some((&text[..i], &text[i + 1..])),
            _ => {}
        }
    }
    None
}

impl Override {
    /// Reads `KEY=VALUE`; `origin` names overrides in messages (`--set`, `set=`).
    pub fn parse(text: &str, origin: &str) -> Result<Override> {
        let bad = || {
            Error::Usage(format!(
                "{origin} expects KEY=VALUE with a dotted KEY such as flows.ftp1.window=8, got `{text}`"
            ))
        };
        let (key, raw) = split_assignment(text).ok_or_else(bad)?;
        let path = split_path(key.trim()).ok_or_else(bad)?;
        let raw = raw.trim();
        let value = raw.parse::<Value>().unwrap_or_else(|_| Value::from(raw));
        let existed = path.len();
        Ok(Override { path, value, text: text.to_string(), origin: origin.to_string(), existed })
    }

    /// Writes the value into `doc`, creating missing tables on the path (not members of
    /// `flows`, `links` or `pairs`: see the module's comment).
    pub fn apply(&mut self, doc: &mut DocumentMut) -> Result<(), Problem> {
        let path = &self.path;
        let (last, parents) = path.split_last().expect("non-empty path");
        // a link a `[topology]` generates is not in the file: its name is checked once expanded
        let generated = path[0] == "links" && doc.contains_key("topology");
        let mut table = doc.as_table_mut() as &mut dyn TableLike;
        self.existed = path.len();
        let mut i = 0;
        while i < parents.len() {
            let seg = &parents[i];
            if table.get(seg).is_none() {
                if i == 1 && !generated {
                    no_member(&path[0], seg, &*table)?;
                }
                self.existed = self.existed.min(i);
                table.insert(seg, Item::Table(Table::new()));
            }
            let item = table.get_mut(seg).expect("just ensured");
            if is_array_of_tables(item) {
                // an array of tables (`[[events]]`) is entered by the number that follows
                table = nth_table(item, path, i)?;
                i += 2;
                continue;
            }
            table = item.as_table_like_mut().ok_or_else(|| Problem {
                path: path[..=i].to_vec(),
                message: format!("is not a table, so `{}` cannot be set inside it", dotted(path)),
            })?;
            i += 1;
        }
        table.insert(last, Item::Value(self.value.clone()));
        Ok(())
    }

    /// Whether this override set the value at `path`, a table that contains it, or created a
    /// table that contains it.
    pub fn covers(&self, path: &[String]) -> bool {
        path.starts_with(&self.path) || path.starts_with(&self.path[..self.existed])
    }
}

/// Whether `item` is an array of tables, written `[[name]]` or inline.
fn is_array_of_tables(item: &Item) -> bool {
    match item {
        Item::ArrayOfTables(_) => true,
        Item::Value(Value::Array(a)) => !a.is_empty() && a.iter().all(Value::is_inline_table),
        _ => false,
    }
}

/// The table of array `item` (segment `i` of `path`) that segment `i + 1` numbers.
fn nth_table<'a>(item: &'a mut Item, path: &[String], i: usize) -> Result<&'a mut dyn TableLike, Problem> {
    let len = match &*item {
        Item::ArrayOfTables(a) => a.len(),
        Item::Value(Value::Array(a)) => a.len(),
        _ => 0,
    };
    let k = path[i + 1].parse::<usize>().ok().filter(|&k| k < len && i + 2 < path.len()).ok_or_else(|| Problem {
        path: path[..=i].to_vec(),
        message: format!(
            "holds {len} tables, numbered from 0: set a field of one (`{}.0.{{field}}`), or the whole array",
            dotted(&path[..=i])
        ),
    })?;
    Ok(match item {
        Item::ArrayOfTables(a) => a.get_mut(k).expect("within the array"),
        Item::Value(Value::Array(a)) => {
            a.get_mut(k).and_then(Value::as_inline_table_mut).expect("a table within the array")
        }
        _ => unreachable!("an array of tables"),
    })
}

/// The problem with a dotted key into member `name` of `table` (`flows`, ...) that does not
/// exist; `members` is what `table` holds (empty if the file has no such table). Other tables
/// may be created.
fn no_member(table: &str, name: &str, members: &dyn TableLike) -> Result<(), Problem> {
    let Some((_, what)) = MEMBERS.iter().find(|(t, _)| *t == table) else { return Ok(()) };
    let known: Vec<&str> = members.iter().map(|(k, _)| k).collect();
    let listed = if known.is_empty() {
        format!("the scenario has no {what}s")
    } else {
        format!("the {what}s are {}", names(&known))
    };
    let path = vec![table.to_string(), name.to_string()];
    let message = format!(
        "no {what} `{name}`{} ({listed}); to add a {what}, set `{}` to a whole table",
        did_you_mean(name, known.iter().copied()),
        dotted(&path)
    );
    Err(Problem { path, message })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(doc: &str, sets: &[&str]) -> String {
        let mut d: DocumentMut = doc.parse().unwrap();
        for s in sets {
            Override::parse(s, "--set").unwrap().apply(&mut d).unwrap();
        }
        d.to_string()
    }

    #[test]
    fn a_quoted_key_segment_may_hold_an_equals_sign() {
        let out = applied("[pairs]\n\"FQ delta=0\" = { qdisc = \"fq\" }\n", &["pairs.\"FQ delta=0\".qdisc=fcfs"]);
        let t: toml::Table = out.parse().unwrap();
        assert_eq!(t["pairs"]["FQ delta=0"]["qdisc"].as_str(), Some("fcfs"));
        let o = Override::parse("flows.a.name=x=y", "--set").unwrap();
        assert_eq!(o.value.as_str(), Some("x=y"), "the value may hold `=` too");
    }

    fn refused(doc: &str, set: &str) -> Problem {
        let mut d: DocumentMut = doc.parse().unwrap();
        Override::parse(set, "--set").unwrap().apply(&mut d).unwrap_err()
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
        let out = applied("[run]\nduration = 10\n[flows.f]\n", &["run.seed=3", "flows.f.transport.kind=reno"]);
        let t: toml::Table = out.parse().unwrap();
        assert_eq!(t["run"]["seed"].as_integer(), Some(3));
        assert_eq!(t["flows"]["f"]["transport"]["kind"].as_str(), Some("reno"));
        let e = refused("[run]\nduration = 10\n", "run.duration.x=1");
        assert_eq!(e.path, ["run", "duration"]);
        assert!(e.message.contains("is not a table"), "{e:?}");
    }

    #[test]
    fn dotted_keys_do_not_create_flows_links_or_pairs() {
        let doc = "[flows.ftp1]\nsrc = \"a\"\n[flows.ftp2]\nsrc = \"a\"\n";
        let e = refused(doc, "flows.ftpp.src=a");
        assert_eq!(e.path, ["flows", "ftpp"]);
        assert!(e.message.starts_with("no flow `ftpp`; did you mean `ftp1`? (the flows are ftp1, ftp2)"), "{e:?}");
        let e = refused(doc, "pairs.\"G/FQ\".qdisc=fq");
        assert!(e.message.starts_with("no pair `G/FQ` (the scenario has no pairs)"), "{e:?}");
        let out = applied(doc, &["flows.new={ src = \"a\" }", "pairs.P={ qdisc = \"fq\" }"]);
        let t: toml::Table = out.parse().unwrap();
        assert_eq!(t["flows"]["new"]["src"].as_str(), Some("a"));
        assert_eq!(t["pairs"]["P"]["qdisc"].as_str(), Some("fq"));
    }

    #[test]
    fn a_dotted_key_reaches_a_link_a_topology_generates() {
        let doc = "[topology]\nkind = \"fat_tree\"\n[links.mine]\nrate = 1\n";
        let out = applied(doc, &["links.\"agg1-core2\".rate=1Gbps"]);
        let t: toml::Table = out.parse().unwrap();
        assert_eq!(t["links"]["agg1-core2"]["rate"].as_str(), Some("1Gbps"));
        let e = refused("[links.mine]\nrate = 1\n", "links.agg1-core2.rate=1Gbps");
        assert!(e.message.starts_with("no link `agg1-core2` (the links are mine)"), "without a topology: {e:?}");
    }

    #[test]
    fn overrides_own_the_tables_they_create() {
        let mut d: DocumentMut = "[run]\nduration = 10\n".parse().unwrap();
        let mut o = Override::parse("runn.seed=3", "--set").unwrap();
        o.apply(&mut d).unwrap();
        assert!(o.covers(&["runn".to_string()]));
        let mut o = Override::parse("run.sed=3", "--set").unwrap();
        o.apply(&mut d).unwrap();
        assert!(o.covers(&["run".to_string(), "sed".to_string()]));
        assert!(!o.covers(&["run".to_string()]));
    }

    #[test]
    fn a_table_of_an_array_of_tables_is_reached_by_its_number() {
        let doc = "[[events]]\nat = \"1s\"\n[[events]]\nat = \"2s\"\n";
        let t: toml::Table = applied(doc, &["events.1.at=3s"]).parse().unwrap();
        assert_eq!(t["events"][1]["at"].as_str(), Some("3s"));
        let inline = "events = [{ at = \"1s\" }]\n";
        let t: toml::Table = applied(inline, &["events.0.link=out"]).parse().unwrap();
        assert_eq!(t["events"][0]["link"].as_str(), Some("out"));
        let e = refused(doc, "events.2.at=3s");
        assert_eq!(e.path, ["events"]);
        assert!(e.message.starts_with("holds 2 tables, numbered from 0"), "{e:?}");
    }

    #[test]
    fn malformed_overrides_are_usage_errors() {
        for bad in ["window", "=3", "a..b=1", "\"a=1"] {
            let e = Override::parse(bad, "set=").unwrap_err();
            assert!(matches!(&e, Error::Usage(m) if m.starts_with("set= expects KEY=VALUE")), "{bad}: {e}");
        }
    }
}
