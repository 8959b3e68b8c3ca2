//! A transport on a network it cannot work on is refused with the reason, at its field: a
//! receiver-driven transport where nothing trims, another where packets are trimmed.

use fairsim::Scenario;

fn refused(qdisc: &str, transport: &str) -> Option<String> {
    let text = format!(
        r#"
[run]
duration = "1ms"
forwarding = "ecmp"
[topology]
kind = "fat_tree"
k = 4
hosts = {{ rate = "10Gbps", delay = "1us", qdisc = "{qdisc}" }}
[workloads.web]
pattern = "permutation"
transport = "{transport}"
"#
    );
    Scenario::parse(&text, "fit.toml", &[]).err().map(|e| e.to_string())
}

#[test]
fn a_receiver_driven_transport_needs_trimming_and_no_other_takes_it() {
    for pulled in ["ndp", "eqds"] {
        assert_eq!(refused("trim", pulled), None, "{pulled} over trimming switches");
        let why = refused("fcfs", pulled).expect("refused where nothing trims");
        assert!(why.contains("workloads.web.transport") && why.contains("needs switches that trim"), "{why}");
    }
    for other in ["newreno", "dctcp", "hpcc", "swift"] {
        assert_eq!(refused("fcfs", other), None, "{other} over drop-tail");
        let why = refused("trim", other).expect("refused where packets are trimmed");
        assert!(
            why.contains("workloads.web.transport") && why.contains("cannot use a trimmed packet's header"),
            "{why}"
        );
    }
}

fn workload(body: &str) -> Option<String> {
    let text = format!(
        "[run]\nduration = \"1ms\"\n[topology]\nkind = \"fat_tree\"\nk = 4\nhosts = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[workloads.w]\n{body}\n"
    );
    Scenario::parse(&text, "w.toml", &[]).err().map(|e| e.to_string())
}

#[test]
fn a_workload_that_could_not_run_as_written_is_refused_at_its_field() {
    let late = workload("pattern = \"permutation\"\nstart = \"2ms\"").expect("refused");
    assert!(late.contains("workloads.w.start") && late.contains("after the run ends (1ms)"), "{late}");
    let switch = workload("pattern = \"incast\"\nreceiver = \"h0\"\nsenders = [\"h1\", \"tor3\"]").expect("refused");
    assert!(switch.contains("workloads.w.senders") && switch.contains("`tor3` has"), "{switch}");
    assert_eq!(workload("pattern = \"incast\"\nreceiver = \"h0\"\nsenders = [\"h1\", \"h9\"]"), None);
}

#[test]
fn tracing_a_workload_is_refused_rather_than_recording_nothing() {
    let traced = |names: &str| {
        let text = format!(
            "[run]\nduration = \"1ms\"\ntrace = [{names}]\n[topology]\nkind = \"fat_tree\"\nk = 4\nhosts = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[workloads.web]\npattern = \"permutation\"\n"
        );
        Scenario::parse(&text, "w.toml", &[]).err().map(|e| e.to_string()).unwrap_or_default()
    };
    assert!(traced("\"web\"").contains("run.trace.0: `web` is a workload"), "{}", traced("\"web\""));
    assert!(traced("\"*\"").contains("every flow of the scenario is a workload"), "{}", traced("\"*\""));
}

#[test]
fn an_unknown_component_with_no_likely_name_says_how_one_written_in_python_is_known() {
    let why = workload("pattern = \"permutation\"\ntransport = \"mine\"").expect("refused");
    assert!(why.contains("unknown transport `mine`") && why.contains("fairsim --import MODULE"), "{why}");
    let near = workload("pattern = \"permutation\"\ntransport = \"renno\"").expect("refused");
    assert!(near.contains("did you mean `reno`?") && !near.contains("--import"), "{near}");
}
