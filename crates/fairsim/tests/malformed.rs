//! Every file in tests/scenarios/malformed is rejected with the message, field and line its
//! header announces (`# expect:`, `# field:`, `# line:`). The Python tests check the CLI's exit
//! code on the same files.

use fairsim::{Error, Scenario};
use std::path::PathBuf;

fn header(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("# {key}:")))
        .unwrap_or_else(|| panic!("missing `# {key}:`"))
        .trim()
        .to_string()
}

#[test]
fn malformed_scenarios_are_rejected_with_file_line_and_field() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/malformed");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 12, "a dozen malformed scenarios at least");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.to_string_lossy().to_string();
        let err = match Scenario::load(&file, &[]) {
            Ok(_) => panic!("{file}: accepted"),
            Err(Error::Scenario(diags)) => diags,
            Err(other) => panic!("{file}: wrong kind of error: {other}"),
        };
        let d = &err[0];
        assert_eq!(d.file, file);
        assert!(d.message.contains(&header(&text, "expect")), "{file}: message was `{}`", d.message);
        assert_eq!(d.field, header(&text, "field"), "{file}: {d}");
        let line = header(&text, "line");
        let want = if line == "none" { None } else { Some(line.parse().unwrap()) };
        assert_eq!(d.line, want, "{file}: {d}");
    }
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = r#"
nodes = ["a", "b"]
[run]
duration = "10s"
[links]
ab = { between = ["a", "b"], rate = "1Mbps", buffer = 5 }
[flows]
f1 = { src = "a", dst = "nowhere", app = "ftp" }
f2 = { src = "a", dst = "b", app = "ftp", window = 0 }
"#;
    let Err(Error::Scenario(diags)) = Scenario::parse(text, "x.toml", &[]) else { panic!() };
    let fields: Vec<&str> = diags.iter().map(|d| d.field.as_str()).collect();
    assert_eq!(fields, ["flows.f1.dst", "flows.f2.window"]);
    assert_eq!(diags[0].to_string(), "x.toml:8:19: flows.f1.dst: unknown node `nowhere` (the nodes are a, b)");
}

#[test]
fn errors_in_overridden_values_name_the_override() {
    let text = "nodes = [\"a\", \"b\"]\n[run]\nduration = \"10s\"\n[links]\nab = { between = [\"a\", \"b\"], rate = \"1Mbps\" }\n[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\" }\n";
    assert!(Scenario::parse(text, "x.toml", &[]).is_ok());
    let Err(Error::Scenario(diags)) = Scenario::parse(text, "x.toml", &["links.ab.rate=fast".into()]) else { panic!() };
    assert_eq!(diags[0].from_override.as_deref(), Some("links.ab.rate=fast"));
    assert_eq!(diags[0].line, None);
    assert!(diags[0].to_string().ends_with("(from --set links.ab.rate=fast)"), "{}", diags[0]);
    let Err(Error::Usage(msg)) = Scenario::parse(text, "x.toml", &["nonsense".into()]) else { panic!() };
    assert!(msg.contains("KEY=VALUE"));
}

const SMALL: &str = "nodes = [\"a\", \"b\"]\n[run]\nduration = \"10s\"\n[links]\nab = { between = [\"a\", \"b\"], rate = \"1Mbps\" }\n[flows]\nftp1 = { src = \"a\", dst = \"b\", app = \"ftp\" }\nftp2 = { src = \"a\", dst = \"b\", app = \"ftp\" }\n";

/// The one message of a scenario that is refused.
fn refused(bytes: &[u8], overrides: &[&str], origin: &str) -> String {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match Scenario::parse_bytes(bytes, "x.toml", &overrides, origin) {
        Err(Error::Scenario(diags)) => diags.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"),
        Err(other) => panic!("wrong kind of error: {other}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn files_that_are_not_utf8_are_refused_with_the_first_bad_byte() {
    let mut bytes = SMALL.as_bytes().to_vec();
    bytes.splice(10..10, [0x9a]);
    assert_eq!(refused(&bytes, &[], "--set"), "x.toml: not UTF-8 text (invalid byte 0x9A at line 1, column 11)");
    let path = std::env::temp_dir().join(format!("fairsim-binary-{}.toml", std::process::id()));
    std::fs::write(&path, [0u8, 0xff, 0xfe, b'\n']).unwrap();
    let file = path.to_string_lossy().to_string();
    let Err(Error::Scenario(diags)) = Scenario::load(&file, &[]) else { panic!("binary file accepted") };
    std::fs::remove_file(&path).unwrap();
    assert_eq!(diags[0].to_string(), format!("{file}: not UTF-8 text (invalid byte 0xFF at line 1, column 2)"));
}

#[test]
fn overrides_are_named_as_the_caller_names_them() {
    let msg = refused(SMALL.as_bytes(), &["links.ab.rate=fast"], "set=");
    assert!(msg.ends_with("(from set= links.ab.rate=fast)"), "{msg}");
    let Err(Error::Usage(msg)) = Scenario::parse_bytes(SMALL.as_bytes(), "x.toml", &["window".into()], "set=") else {
        panic!()
    };
    assert!(msg.starts_with("set= expects KEY=VALUE"), "{msg}");
}

#[test]
fn syntax_errors_point_at_their_cause() {
    let unclosed = SMALL.replacen("nodes = [\"a\", \"b\"]", "nodes = [\"a\",", 1);
    assert_eq!(
        refused(unclosed.as_bytes(), &[], "--set"),
        "x.toml:1:9: invalid TOML: array opened here is never closed (the parser gave up at line 2, column 2: \
         invalid array; expected `]`)"
    );
    let twice = SMALL.replacen("[links]", "[run]\nseed = 2\n[links]", 1);
    assert_eq!(
        refused(twice.as_bytes(), &[], "--set"),
        "x.toml:4:1: invalid TOML: invalid table header; duplicate key `run` in document root (first defined at line 2)"
    );
}
