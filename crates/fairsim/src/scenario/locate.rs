//! Finding where a field is written in a scenario file, so errors can name the line.

use toml_edit::{ImDocument, Item, Table, TableLike, Value};

/// 1-based line and column of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Where each line of a text starts, so that the line and column of many offsets (one per
/// problem, in a generated file with thousands) cost a search each, not a scan of the text.
pub struct Lines {
    /// Byte offset of each line's start; the first line starts at 0.
    starts: Vec<usize>,
}

impl Lines {
    pub fn new(text: &str) -> Lines {
        let newlines = text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1);
        Lines { starts: std::iter::once(0).chain(newlines).collect() }
    }

    /// `line_col(text, offset)` for the `text` these lines are of.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let at = char_boundary(text, offset);
        let line = self.starts.partition_point(|&s| s <= at);
        let col = text[self.starts[line - 1]..at].chars().count() + 1;
        (line, col)
    }
}

/// `offset`, or the start of the character it falls in (a parser's offset may not be on a
/// character boundary in malformed text), within `text`.
pub fn char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `bytes` as text, or what is wrong with them and where: `not UTF-8 text (invalid byte 0x9A
/// at line 3, column 12)`, the column counting the characters before it on its line.
pub fn utf8(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid up to here");
        let (line, column) = line_col(valid, valid.len());
        let byte = bytes[e.valid_up_to()];
        format!("not UTF-8 text (invalid byte 0x{byte:02X} at line {line}, column {column})")
    })
}

/// Byte offset of the field at `path`, or of the deepest enclosing field that exists.
/// Returns `None` only when not even the first segment is in the file. A segment that is a
/// number indexes an array: of scalars, of inline tables, or of `[[tables]]`.
pub fn offset_of(doc: &ImDocument<String>, path: &[String]) -> Option<usize> {
    let mut node = Node::Item(doc.as_item());
    let mut found = None;
    for seg in path {
        let Some((start, next)) = node.child(seg) else { break };
        found = start.or(found);
        node = next;
    }
    found
}

/// A place in a parsed document that may have children.
#[derive(Clone, Copy)]
enum Node<'a> {
    Item(&'a Item),
    Value(&'a Value),
    Table(&'a Table),
}

impl<'a> Node<'a> {
    /// The child named (or, in an array, numbered) `seg`, with where it is written.
    fn child(self, seg: &str) -> Option<(Option<usize>, Node<'a>)> {
        let index = || seg.parse::<usize>().ok();
        let table: Option<&dyn TableLike> = match self {
            Node::Item(item) => item.as_table_like(),
            Node::Value(value) => value.as_inline_table().map(|t| t as &dyn TableLike),
            Node::Table(table) => Some(table),
        };
        if let Some(table) = table {
            let (key, item) = table.get_key_value(seg)?;
            return Some((key.span().or_else(|| item.span()).map(|s| s.start), Node::Item(item)));
        }
        let array = match self {
            Node::Item(Item::ArrayOfTables(aot)) => {
                let table = aot.get(index()?)?;
                return Some((table.span().map(|s| s.start), Node::Table(table)));
            }
            Node::Item(item) => item.as_array(),
            Node::Value(value) => value.as_array(),
            Node::Table(_) => None,
        }?;
        let value = array.get(index()?)?;
        Some((value.span().map(|s| s.start), Node::Value(value)))
    }
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
    fn finds_fields_inside_arrays_of_tables() {
        let doc = "[[t]]\nname = \"a\"\n\n[[t]]\nname = \"b\"\nrows = [\n  { pair = \"x\", cells = [1, 2] },\n]\n";
        assert_eq!(locate(doc, &["t", "1", "name"]), Some((5, 1)));
        assert_eq!(locate(doc, &["t", "1", "rows", "0", "cells", "1"]), Some((7, 29)));
        assert_eq!(locate(doc, &["t", "7"]), locate(doc, &["t"]));
    }

    #[test]
    fn the_line_index_agrees_with_counting() {
        for text in [DOC, "", "\n", "a\n\nné = 1\nb", "x = \"é\"\r\ny = 2\n"] {
            let lines = Lines::new(text);
            for offset in 0..text.len() + 3 {
                assert_eq!(lines.line_col(text, offset), line_col(text, offset), "{text:?} at {offset}");
            }
        }
    }

    #[test]
    fn offsets_inside_a_character_count_as_its_start() {
        let text = "a = \"né\"\n";
        assert_eq!(char_boundary(text, 7), 6);
        assert_eq!(line_col(text, 7), (1, 7));
        assert_eq!(line_col(text, 99), (2, 1));
    }

    #[test]
    fn names_the_first_byte_that_is_not_utf8() {
        let text = utf8(b"a = 1\nname = \"caf\x9a\"\n");
        assert_eq!(text.unwrap_err(), "not UTF-8 text (invalid byte 0x9A at line 2, column 12)");
        assert_eq!(utf8(b"\xff").unwrap_err(), "not UTF-8 text (invalid byte 0xFF at line 1, column 1)");
        assert_eq!(utf8("né".as_bytes()), Ok("né"));
    }

    #[test]
    fn falls_back_to_the_deepest_existing_field() {
        assert_eq!(locate(DOC, &["flows", "ftp1", "nosuch"]), locate(DOC, &["flows", "ftp1"]));
        assert_eq!(locate(DOC, &["nosuch"]), None);
    }
}
