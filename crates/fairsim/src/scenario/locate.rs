//! Finding where a field is written in a scenario file, so errors can name the line.

use toml_edit::{ImDocument, Item, Value};

/// 1-based line and column of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Byte offset of the field at `path`, or of the deepest enclosing field that exists.
/// Returns `None` only when not even the first segment is in the file.
pub fn offset_of(doc: &ImDocument<String>, path: &[String]) -> Option<usize> {
    let mut item: &Item = doc.as_item();
    let mut found = None;
    for seg in path {
        if let Some(table) = item.as_table_like() {
            let Some((key, value)) = table.get_key_value(seg) else { break };
            found = key.span().or_else(|| value.span()).map(|s| s.start).or(found);
            item = value;
        } else if let Some(Value::Array(arr)) = item.as_value() {
            // arrays in scenarios hold scalars: an index is the last segment
            let v = seg.parse::<usize>().ok().and_then(|i| arr.get(i));
            return v.and_then(|v| v.span()).map(|s| s.start).or(found);
        } else {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locate(text: &str, path: &[&str]) -> Option<(usize, usize)> {
        let doc = ImDocument::parse(text.to_string()).unwrap();
        let path: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        offset_of(&doc, &path).map(|o| line_col(text, o))
    }

    const DOC: &str =
        "nodes = [\"a\", \"b\"]\n\n[flows.ftp1]\nsrc = \"a\"\nwindow = 5\n\n[pairs]\n\"G/FQ\" = { qdisc = \"fq\" }\n";

    #[test]
    fn finds_keys_in_tables_inline_tables_and_arrays() {
        assert_eq!(locate(DOC, &["flows", "ftp1", "window"]), Some((5, 1)));
        assert_eq!(locate(DOC, &["pairs", "G/FQ", "qdisc"]), Some((8, 12)));
        assert_eq!(locate(DOC, &["nodes", "1"]), Some((1, 15)));
    }

    #[test]
    fn falls_back_to_the_deepest_existing_field() {
        assert_eq!(locate(DOC, &["flows", "ftp1", "nosuch"]), locate(DOC, &["flows", "ftp1"]));
        assert_eq!(locate(DOC, &["nosuch"]), None);
    }
}
