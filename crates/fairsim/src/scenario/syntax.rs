//! Messages for scenario text that is not valid TOML. toml_edit says what it expected where it
//! gave up, which for an unclosed array, inline table or string is lines after the cause (the
//! end of the file, or the next table header); such errors are moved to where the construct was
//! opened, escapes are pointed at their backslash, and a duplicate names its first definition.

use super::locate::{char_boundary, line_col, offset_of};
use super::overrides::split_path;
use toml_edit::{ImDocument, TomlError};
use toml_parser::lexer::{Token, TokenKind};
use toml_parser::Source;

/// Where (1-based line and column) and what to report about TOML `text` that `e` refused.
pub fn toml_error(text: &str, e: &TomlError) -> (Option<(usize, usize)>, String) {
    let description: Vec<&str> = e.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let description = description.join("; ");
    let Some(at) = e.span().map(|s| char_boundary(text, s.start)) else {
        return (None, format!("invalid TOML: {description}"));
    };
    let (line, column) = line_col(text, at);
    if let Some((opened, what)) = unclosed(text, at, &description) {
        let message = format!(
            "invalid TOML: {what} opened here is never closed (the parser gave up at line {line}, column {column}: \
             {description})"
        );
        return (Some(line_col(text, opened)), message);
    }
    if let Some((start, message)) = unquoted(text, at, &description) {
        return (Some(line_col(text, start)), message);
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    if let Some(c) = text[at..].chars().next().filter(|c| c.is_control() && description.contains("string")) {
        let code = format!("{:04X}", c as u32);
        let message = format!(
            "invalid TOML: {description}: control character U+{code} (write it as the escape \\u{code} in a \"string\")"
        );
        return (Some((line, column)), message);
    }
    if description.starts_with("invalid escape") || description.starts_with("invalid unicode") {
        // toml_edit points after the escape; the backslash is where it starts
        let backslash = text[line_start..at].rfind('\\').map_or(at, |b| line_start + b);
        return (Some(line_col(text, backslash)), format!("invalid TOML: {description}"));
    }
    let mut message = format!("invalid TOML: {description}");
    if let Some(first) = first_definition(&text[..line_start], &description) {
        message += &format!(" (first defined at line {first})");
    } else if description.starts_with("invalid inline table") && !text[at..].lines().next().unwrap_or("").contains('}')
    {
        message += " (an inline table must be written on one line)";
    }
    (Some((line, column)), message)
}

/// The offset where the array, inline table or string that `description` (toml_edit's, for
/// an error at offset `at`) complains about was opened, when it is never closed; with what it is.
fn unclosed(text: &str, at: usize, description: &str) -> Option<(usize, &'static str)> {
    const KINDS: [(&str, TokenKind, &str); 6] = [
        ("invalid array", TokenKind::LeftSquareBracket, "array"),
        ("invalid inline table", TokenKind::LeftCurlyBracket, "inline table"),
        ("invalid basic string", TokenKind::BasicString, "string"),
        ("invalid literal string", TokenKind::LiteralString, "string"),
        ("invalid multiline basic string", TokenKind::MlBasicString, "multi-line string"),
        ("invalid multiline literal string", TokenKind::MlLiteralString, "multi-line string"),
    ];
    let first = description.split(';').next().unwrap_or_default();
    let (_, kind, what) = KINDS.iter().find(|(d, _, _)| *d == first)?;
    let tokens: Vec<Token> = Source::new(text).lex().collect();
    let opened = match kind {
        TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => {
            open_at_end(&tokens).into_iter().rfind(|t| t.kind() == *kind && t.span().start() < at)
        }
        // a string the lexer ended at the end of its line (or of the file) without its quote
        _ => tokens.iter().copied().find(|t| t.kind() == *kind && t.span().start() < at && at == t.span().end()),
    }?;
    Some((opened.span().start(), what))
}

/// A value written without quotes where the parser failed (`rate = 10Mbps`, `app = ftp`,
/// `acks = tru`): where it starts, and the message saying to quote it (or the boolean meant).
fn unquoted(text: &str, at: usize, description: &str) -> Option<(usize, String)> {
    let tokens: Vec<Token> = Source::new(text).lex().collect();
    let i =
        tokens.iter().position(|t| t.kind() == TokenKind::Atom && t.span().start() <= at && at <= t.span().end())?;
    let before = tokens[..i].iter().rev().find(|t| t.kind() != TokenKind::Whitespace)?;
    if !matches!(before.kind(), TokenKind::Equals | TokenKind::Comma | TokenKind::LeftSquareBracket) {
        return None;
    }
    let span = tokens[i].span();
    let word = &text[span.start()..span.end()];
    if !word.chars().any(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let fix = match crate::error::suggest(word, ["true", "false"]) {
        Some(boolean) => format!("did you mean `{boolean}`, or the string \"{word}\"?"),
        None => format!("a name or a value with a unit is a string, written in quotes: \"{word}\""),
    };
    Some((span.start(), format!("invalid TOML: `{word}` is not a TOML value; {fix} (parser: {description})")))
}

/// The `[` of arrays and `{` of inline tables that no bracket closes, outermost first. A `[`
/// opens an array after `=` or inside another value; elsewhere it starts a table header.
fn open_at_end(tokens: &[Token]) -> Vec<Token> {
    let mut open: Vec<Token> = vec![];
    let mut previous = TokenKind::Newline;
    for t in tokens {
        match t.kind() {
            TokenKind::LeftSquareBracket if !open.is_empty() || previous == TokenKind::Equals => open.push(*t),
            TokenKind::LeftCurlyBracket => open.push(*t),
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                let opener = if t.kind() == TokenKind::RightSquareBracket {
                    TokenKind::LeftSquareBracket
                } else {
                    TokenKind::LeftCurlyBracket
                };
                if open.last().is_some_and(|o| o.kind() == opener) {
                    open.pop();
                }
            }
            _ => {}
        }
        if !matches!(t.kind(), TokenKind::Whitespace | TokenKind::Comment) {
            previous = t.kind();
        }
    }
    open
}

/// The line where the key of a `duplicate key `k` in table `t`` error was first defined,
/// looked up in `before`, the text before the duplicate's line.
fn first_definition(before: &str, description: &str) -> Option<usize> {
    let rest = description.split(';').find_map(|d| d.trim().strip_prefix("duplicate key `"))?;
    let (key, rest) = rest.split_once('`')?;
    let mut path = match rest.trim().strip_prefix("in table `").and_then(|t| t.strip_suffix('`')) {
        Some(table) => split_path(table)?,
        None => vec![],
    };
    path.push(key.to_string());
    let doc = ImDocument::parse(before.to_string()).ok()?;
    offset_of(&doc, &path).map(|o| line_col(before, o).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(text: &str) -> String {
        let e = ImDocument::parse(text.to_string()).unwrap_err();
        let (place, message) = toml_error(text, &e);
        let (line, column) = place.unwrap();
        format!("{line}:{column}: {message}")
    }

    #[test]
    fn unclosed_arrays_tables_and_strings_are_reported_where_they_open() {
        let r = report("nodes = [\"a\",\n\n[run]\nduration = \"1s\"\n");
        assert_eq!(
            r,
            "1:9: invalid TOML: array opened here is never closed (the parser gave up at line 3, column 2: \
             invalid array; expected `]`)"
        );
        assert!(report("x = [1, [2, 3]\ny = [4]\n").starts_with("1:5: invalid TOML: array opened here"));
        assert!(report("x = { a = [1], b = 2\n\n[run]\n").starts_with("1:5: invalid TOML: inline table opened here"));
        assert!(report("name = \"abc\n[run]\n").starts_with("1:8: invalid TOML: string opened here"));
        assert!(report("name = 'abc\n").starts_with("1:8: invalid TOML: string opened here"));
        assert!(
            report("a = 1\nx = \"\"\"abc\n\n[run]\n").starts_with("2:5: invalid TOML: multi-line string opened here")
        );
        assert!(report("x = '''abc\n").starts_with("1:5: invalid TOML: multi-line string opened here"));
    }

    #[test]
    fn control_characters_in_strings_are_named() {
        assert_eq!(
            report("a = 1\nname = \"tab\u{1}here\"\n"),
            "2:12: invalid TOML: invalid basic string: control character U+0001 (write it as the escape \\u0001 in a \
             \"string\")"
        );
    }

    #[test]
    fn closed_constructs_keep_the_parsers_place() {
        assert_eq!(report("a = [1, 2 3]\n"), "1:11: invalid TOML: invalid array; expected `]`");
        assert_eq!(
            report("x = { a = 1,\n b = 2 }\n"),
            "1:12: invalid TOML: invalid inline table; expected `}` (an inline table must be written on one line)"
        );
        assert_eq!(report("nodes\n[run]\n"), "1:6: invalid TOML: expected `.`, `=`");
    }

    #[test]
    fn unquoted_strings_are_named() {
        assert_eq!(
            report("[links]\nab = { rate = 10Mbps }\n"),
            "2:15: invalid TOML: `10Mbps` is not a TOML value; a name or a value with a unit is a string, written in \
             quotes: \"10Mbps\" (parser: invalid inline table; expected `}`)"
        );
        assert_eq!(
            report("app = ftp\n"),
            "1:7: invalid TOML: `ftp` is not a TOML value; a name or a value with a unit is a string, written in \
             quotes: \"ftp\" (parser: invalid string; expected `\"`, `'`)"
        );
        assert!(report("nodes = [a, b]\n").starts_with("1:10: invalid TOML: `a` is not a TOML value"));
        assert!(
            report("acks = tru\n").contains("`tru` is not a TOML value; did you mean `true`, or the string \"tru\"?")
        );
        assert_eq!(report("a = 1.\n"), "1:7: invalid TOML: invalid floating-point number; expected digit");
    }

    #[test]
    fn escapes_are_reported_at_their_backslash() {
        assert!(report("a = \"ab\\qcd\"\n").starts_with("1:8: invalid TOML: invalid escape sequence"));
        assert!(report("a = \"ab\\u12\"\n").starts_with("1:8: invalid TOML: invalid unicode"));
    }

    #[test]
    fn duplicates_name_their_first_definition() {
        assert_eq!(
            report("a = 1\nb = 2\na = 3\n"),
            "3:1: invalid TOML: duplicate key `a` in document root (first defined at line 1)"
        );
        assert_eq!(
            report("[run]\nx = 1\n\n[run]\ny = 2\n"),
            "4:1: invalid TOML: invalid table header; duplicate key `run` in document root (first defined at line 1)"
        );
        assert_eq!(
            report("[pairs]\n\"G/FQ\" = 1\n\"G/FQ\" = 2\n"),
            "3:1: invalid TOML: duplicate key `G/FQ` in table `pairs` (first defined at line 2)"
        );
        assert_eq!(
            report("[flows.f]\nx = 1\n[flows]\nf = 2\n"),
            "4:1: invalid TOML: duplicate key `f` in table `flows` (first defined at line 1)"
        );
    }
}
