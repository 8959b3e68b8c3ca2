//! Every file in tests/scenarios/malformed is rejected with the message, field and line its
//! header announces (`# expect:`, `# field:`, `# line:`), except the valid scenarios that once
//! crashed (`# exit: 0`) and the sweep descriptions only Python reads (`# commands: sweep`),
//! which load. The Python tests run the same files through the CLI and the API.

use fairsim::{Error, Scenario};
use std::path::PathBuf;

/// The value of header `# key:` (`None` when absent).
fn header(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| l.strip_prefix(&format!("# {key}:"))).map(|v| v.trim().to_string())
}

#[test]
fn malformed_scenarios_are_rejected_with_file_line_and_field() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/malformed");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 40, "forty malformed scenarios at least");
    let failures: Vec<String> = files.iter().filter_map(|path| check_case(path).err()).collect();
    assert!(failures.is_empty(), "{} of {} cases fail:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// Whether the scenario at `path` is refused (or, with `# exit: 0`, loads) as its header says.
fn check_case(path: &std::path::Path) -> Result<(), String> {
    // some files are not UTF-8 on purpose; their header lines are
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let file = path.to_string_lossy().to_string();
    let required = |key: &str| header(&text, key).ok_or_else(|| format!("{file}: missing `# {key}:`"));
    let loaded = Scenario::load(&file, &[]);
    // a `[sweep]` table is Python's to read (`# commands: sweep`): the scenario itself is valid
    if header(&text, "exit").as_deref() == Some("0") || header(&text, "commands").as_deref() == Some("sweep") {
        return loaded.map(|_| ()).map_err(|e| format!("{file}: refused: {e}"));
    }
    let d = match loaded {
        Ok(_) => return Err(format!("{file}: accepted")),
        Err(Error::Scenario(diags)) => diags[0].clone(),
        Err(other) => return Err(format!("{file}: wrong kind of error: {other}")),
    };
    let line = required("line")?;
    let line = if line == "none" { None } else { Some(line.parse().map_err(|_| format!("{file}: bad `# line:`"))?) };
    // as in the Python tests: the field named is the header's or inside it (`nodes.2` for `nodes`)
    if d.file != file
        || !d.message.contains(&required("expect")?)
        || !d.field.contains(&required("field")?)
        || d.line != line
    {
        return Err(format!("{file}: got `{d}`"));
    }
    Ok(())
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

#[test]
fn messages_stay_short_whatever_the_input() {
    // ten thousand copies of one node: one problem for the name, the override echoed in brief,
    // and at most MAX_DIAGNOSTICS problems listed
    let nodes = format!("nodes={:?}", vec!["x"; 10_000]);
    let Err(Error::Scenario(diags)) = Scenario::parse(SMALL, "x.toml", &[nodes]) else { panic!() };
    assert!(diags.len() <= fairsim::scenario::MAX_DIAGNOSTICS + 1, "{} diagnostics", diags.len());
    let twice: Vec<_> = diags.iter().filter(|d| d.message.contains("declared")).collect();
    assert_eq!(twice.len(), 1);
    assert_eq!(twice[0].message, "node `x` is declared 10000 times");
    let text: String = diags.iter().map(|d| d.to_string() + "\n").collect();
    assert!(text.len() < 20_000, "{} characters", text.len());
    assert!(text.contains("characters in all)"), "{text}");
    // many distinct problems: the first ones, then how many more
    let flows: String =
        (0..200).map(|i| format!("f{i} = {{ src = \"a\", dst = \"nowhere\", app = \"ftp\" }}\n")).collect();
    let many = SMALL.replace("ftp1 = ", &format!("{flows}ftp1 = "));
    let Err(Error::Scenario(diags)) = Scenario::parse(&many, "x.toml", &[]) else { panic!() };
    assert_eq!(diags.len(), fairsim::scenario::MAX_DIAGNOSTICS + 1);
    assert_eq!(diags.last().unwrap().message, "... and 150 more problems (the first 50 are listed)");
}

#[test]
fn a_member_written_as_an_array_is_named_itself() {
    let with = |link: &str| SMALL.replace("ab = { between = [\"a\", \"b\"], rate = \"1Mbps\" }", link);
    let Err(Error::Scenario(diags)) = Scenario::parse(&with("ab = [\"a\", \"b\"]"), "x.toml", &[]) else { panic!() };
    assert_eq!(
        diags[0].to_string(),
        "x.toml:5:1: links.ab: a link is a table (`ab = { ... }` or `[links.ab]`), not the array [\"a\", \"b\"]"
    );
    let Err(Error::Scenario(diags)) = Scenario::parse(SMALL, "x.toml", &["flows.ftp1=3".into()]) else { panic!() };
    assert!(diags[0].to_string().ends_with("flows.ftp1: a flow is a table (`ftp1 = { ... }` or `[flows.ftp1]`), not the integer 3 (from --set flows.ftp1=3)"), "{}", diags[0]);
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
    let unquoted = SMALL.replacen("\"1Mbps\"", "1Mbps", 1);
    assert_eq!(
        refused(unquoted.as_bytes(), &[], "--set"),
        "x.toml:5:37: invalid TOML: `1Mbps` is not a TOML value; a name or a value with a unit is a string, written \
         in quotes: \"1Mbps\" (parser: invalid inline table; expected `}`)"
    );
    let twice = SMALL.replacen("[links]", "[run]\nseed = 2\n[links]", 1);
    assert_eq!(
        refused(twice.as_bytes(), &[], "--set"),
        "x.toml:4:1: invalid TOML: invalid table header; duplicate key `run` in document root (first defined at line 2)"
    );
}

#[test]
fn overrides_that_name_no_flow_link_or_pair_say_so() {
    let cases = [
        (
            "flows.ftpp.src=a",
            "x.toml: flows.ftpp: no flow `ftpp`; did you mean `ftp1`? (the flows are ftp1, ftp2); to add a flow, set \
             `flows.ftpp` to a whole table (from set= flows.ftpp.src=a)",
        ),
        (
            "links.abb.rate=2Mbps",
            "x.toml: links.abb: no link `abb`; did you mean `ab`? (the links are ab); to add a link, set `links.abb` \
             to a whole table (from set= links.abb.rate=2Mbps)",
        ),
        (
            "pairs.\"G/FQ\".qdisc=fq",
            "x.toml: pairs.\"G/FQ\": no pair `G/FQ` (the scenario has no pairs); to add a pair, set `pairs.\"G/FQ\"` \
             to a whole table (from set= pairs.\"G/FQ\".qdisc=fq)",
        ),
        (
            "runn.seed=2",
            "x.toml: runn: unknown field `runn`; did you mean `run`? (expected one of `scenario`, `run`, `nodes`, \
             `topology`, `shared_buffer`, `pfc`, `links`, `flows`, `workloads`, `pairs`, `events`, `published`, `sweep`) (from set= runn.seed=2)",
        ),
    ];
    for (set, want) in cases {
        assert_eq!(refused(SMALL.as_bytes(), &[set], "set="), want);
    }
    // a whole table adds one
    let added =
        ["flows.ftp3={ src = \"b\", dst = \"a\", app = \"ftp\" }".to_string(), "pairs.FQ={ qdisc = \"fq\" }".into()];
    let s = Scenario::parse(SMALL, "x.toml", &added).unwrap();
    assert_eq!(s.flows.len(), 3);
    assert_eq!(s.pairs[0].name, "FQ");
}

#[test]
fn names_that_are_looked_up_suggest_the_likely_one() {
    let cases: [(&[&str], &str); 11] = [
        (
            &["flows.ftp1.windw=3"],
            "x.toml: flows.ftp1.windw: unknown field `windw`; did you mean `window`? (expected one of `src`, `dst`, \
             `app`, `transport`, `window`, `packet_size`, `ack_size`, `headers`, `start`, `start_jitter`, `stop`, `route`, \
             `forwarding`, `acks`, `weight`, `priority`, `enabled`, `size`) (from --set flows.ftp1.windw=3)",
        ),
        (
            &["flows.ftp1.transport={ kind = \"reno\", windw = 3 }"],
            "x.toml: flows.ftp1.transport.windw: unknown field `windw`; did you mean `window`? (expected one of \
             `stack`, `window`, `dupack_threshold`, `initial_rto`, `min_rto`, `max_rto`, `rttvar_factor`, `clock_granularity`, `rtt_samples`, \
             `ack_every`, `ack_delay`, `ecn`, `sack`, `prr`, `limited_transmit`, `ignore_duplicate_deliveries`, `rack`, `tlp`, `dsack`, `adaptive_reordering`, `undo`, `recovery_exit`, `max_backoffs`, `initial_cwnd`, `initial_ssthresh`, `counting`, `after_timeout`, \
             `ssthresh_from`) (from --set flows.ftp1.transport={ \
             kind = \"reno\", windw = 3 })",
        ),
        (
            &["flows.ftp1.transport=renno"],
            "x.toml: flows.ftp1.transport: unknown transport `renno`; did you mean `reno`? (the transports are \
             generic, jk, reno, newreno, cubic, dctcp, bbr, decbit, pp, rlm, vegas, blt, bully_tyrant, ndp, eqds, roce, dcqcn, swift, hpcc, none) (from --set \
             flows.ftp1.transport=renno)",
        ),
        (
            &["links.ab.qdisc=fqq"],
            "x.toml: links.ab.qdisc: unknown discipline `fqq`; did you mean `fq`? (the disciplines are fcfs, lifo, \
             random_drop, red, csfq, fred, decbit, selective_decbit, loss_list, fq, fqbit, wfq, scfq, virtual_clock, \
             wf2qplus, drr, sfq, nagle, pushout, codel, ... (25 in all)) (from --set links.ab.qdisc=fqq)",
        ),
        (
            &["flows.ftp1.app=ftpp"],
            "x.toml: flows.ftp1.app: unknown app `ftpp`; did you mean `ftp`? (the apps are ftp, telnet, poisson, \
             cbr, firehose, onoff, web, files, bursts) (from --set flows.ftp1.app=ftpp)",
        ),
        (
            &["flows.ftp1.dst=B"],
            "x.toml: flows.ftp1.dst: unknown node `B`; did you mean `b`? (the nodes are a, b) (from --set \
             flows.ftp1.dst=B)",
        ),
        (
            &["run.trace=[\"ftpp\"]"],
            "x.toml: run.trace.0: unknown flow `ftpp`; did you mean `ftp1`? (the flows are ftp1, ftp2) (from --set \
             run.trace=[\"ftpp\"])",
        ),
        (
            &["run.trace_queues=[\"b->c\"]"],
            "x.toml: run.trace_queues.0: unknown port `b->c`; did you mean `b->a`? (the ports are a->b, b->a) (from \
             --set run.trace_queues=[\"b->c\"])",
        ),
        (
            &["run.fluid_reference=[\"a-b\"]"],
            "x.toml: run.fluid_reference.0: unknown port `a-b`; did you mean `a->b`? (the ports are a->b, b->a) \
             (from --set run.fluid_reference=[\"a-b\"])",
        ),
        (
            &["run.fairness=[\"ftp1\", \"fpt2\"]"],
            "x.toml: run.fairness.1: unknown flow `fpt2`; did you mean `ftp2`? (the flows are ftp1, ftp2) (from \
             --set run.fairness=[\"ftp1\", \"fpt2\"])",
        ),
        (
            &["pairs.P={ qdisc = \"fq\", transports = { ftp3 = \"reno\" } }"],
            "x.toml: pairs.P.transports.ftp3: unknown flow `ftp3`; did you mean `ftp1`? (the flows are ftp1, ftp2) \
             (from --set pairs.P={ qdisc = \"fq\", transports = { ftp3 = \"reno\" } })",
        ),
    ];
    for (sets, want) in cases {
        assert_eq!(refused(SMALL.as_bytes(), sets, "--set"), want);
    }
    // in the file, at the line
    let typo = SMALL.replacen("app = \"ftp\" }", "app = \"ftp\", windw = 3 }", 1);
    let msg = refused(typo.as_bytes(), &[], "--set");
    assert!(msg.starts_with("x.toml:7:45: flows.ftp1.windw: unknown field `windw`; did you mean `window`?"), "{msg}");
    let pairs = ["pairs.\"G/FQ\"={ qdisc = \"fq\" }".to_string()];
    let s = Scenario::parse(SMALL, "x.toml", &pairs).unwrap();
    let Err(Error::Usage(msg)) = s.pair(Some("G/FQQ")) else { panic!() };
    assert_eq!(msg, "x.toml: no pair `G/FQQ`; did you mean `G/FQ`? (the scenario defines G/FQ)");
}

#[test]
fn schema_types_are_named_as_tables() {
    let cases = [
        (
            "links.ab=5",
            "x.toml: links.ab: a link is a table (`ab = { ... }` or `[links.ab]`), not the integer 5 (from --set links.ab=5)",
        ),
        ("run=1", "x.toml: run: invalid type: integer `1`, expected a table ([run]) (from --set run=1)"),
        ("flows=3", "x.toml: flows: invalid type: integer `3`, expected a table (from --set flows=3)"),
    ];
    for (set, want) in cases {
        assert_eq!(refused(SMALL.as_bytes(), &[set], "--set"), want);
    }
    let numbers = [
        ("flows.ftp1.window=1.5", "invalid type: floating point `1.5`, expected a whole number from 0 to 4294967295"),
        ("run.seed=-1", "invalid value: integer `-1`, expected a whole number from 0 to 18446744073709551615"),
        ("flows.ftp1.weight=\"x\"", "invalid type: string \"x\", expected a number"),
        (
            "links.ab.qdisc={ kind = \"sfq\", queues = -3 }",
            "invalid value: integer `-3`, expected a whole number from 0",
        ),
        ("links.ab.qdisc={ kind = \"red\", max_p = \"x\" }", "invalid type: string \"x\", expected a number (from"),
    ];
    for (set, want) in numbers {
        let msg = refused(SMALL.as_bytes(), &[set], "--set");
        assert!(msg.contains(want) && !msg.contains('\n'), "{set}: {msg}");
    }
}

#[test]
fn a_flow_that_failed_is_not_reported_again_where_it_is_named() {
    let sets = ["run.fairness=[\"ftp1\"]", "run.trace=[\"ftp1\"]", "flows.ftp1.src=nowhere"];
    assert_eq!(
        refused(SMALL.as_bytes(), &sets, "--set"),
        "x.toml: flows.ftp1.src: unknown node `nowhere` (the nodes are a, b) (from --set flows.ftp1.src=nowhere)"
    );
    let sets = ["run.fairness=[\"ftp1\"]", "flows.ftp1.enabled=false"];
    assert_eq!(
        refused(SMALL.as_bytes(), &sets, "--set"),
        "x.toml: run.fairness.0: flow `ftp1` is left out of the run (enabled = false) (from --set run.fairness=[\"ftp1\"])"
    );
}
