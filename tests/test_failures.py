"""Link failures (`[[events]]`) as the API and the command line report them: the
network's events in the JSON and as a table, the queues' `link_down`, the flows' drops with
reason `link_down`, the goodput between the changes, and bad events refused at their line."""

import json
import subprocess
import sys

import fairsim

EXAMPLE = "examples/fat_tree_failure"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fairsim.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_the_example_reports_its_events_and_counts_every_packet_the_failure_lost():
    res = fairsim.run(EXAMPLE, progress=False)
    (run,) = res.runs
    assert [(e["at_s"], e["action"], e["detected_s"]) for e in run["network_events"]] == [
        (0.01, "down", 0.011),
        (0.025, "up", 0.026),
    ]
    events = res.network_events
    assert list(events["ports"]) == ["agg0->core0, core0->agg0"] * 2
    assert set(events["target"]) == {"link"} and set(events["name"]) == {"agg0-core0"}
    queues = res.queues.set_index("port")
    lost = queues["link_down"]
    assert lost[["agg0->core0", "core0->agg0"]].sum() > 0
    assert lost.drop(["agg0->core0", "core0->agg0"]).sum() == 0, "only the failed link loses"
    # every packet lost is some flow's drop, data or ACK, with its own reason
    (flow,) = run["flows"]
    data_lost = sum(d["count"] for d in flow["drops"] if d["reason"] == "link_down")
    assert 0 < data_lost <= lost.sum()
    assert flow["run_totals"]["dropped"] + flow["run_totals"]["acks_dropped"] == (
        queues["drops"].sum() + queues["losses"].sum() + lost.sum()
    )
    # the goodput of all flows falls while the link is down and comes back with it
    goodput = res.intervals.groupby("start_s").goodput_bps.sum()
    before, down, after = (
        goodput[goodput.index < 0.01],
        goodput[(goodput.index >= 0.012) & (goodput.index < 0.025)],
        goodput[goodput.index >= 0.027],
    )
    assert down.mean() < 0.95 * before.mean() and after.mean() > 0.95 * before.mean(), (
        before.mean(),
        down.mean(),
        after.mean(),
    )


def test_a_run_without_events_has_none_and_loses_nothing_to_failures(small_path):
    res = fairsim.run(small_path, pair="G/FCFS", progress=False)
    assert "network_events" not in res.runs[0]
    assert res.network_events.empty
    assert (res.queues["link_down"] == 0).all()


def test_the_command_line_shows_the_events_and_writes_their_table(tmp_path):
    r = cli("run", EXAMPLE, "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    # a workload's queues by tier, with a column of the packets lost to the failed link
    header = next(line for line in r.stdout.splitlines() if line.startswith("tier "))
    assert "link down" in header
    agg_core = next(line for line in r.stdout.splitlines() if line.startswith("agg->core "))
    assert int(agg_core.split()[5]) > 0, agg_core
    assert "link agg0-core0  down" in r.stdout and "forwarding learnt" in r.stdout
    assert "goodput of all flows between the changes: 0 s–10.0 ms:" in r.stdout
    assert "packets lost to failed links:" in r.stdout
    table = (tmp_path / "network_events.csv").read_text().splitlines()
    assert table[0].startswith("pair,seed,at_s,target,name,action") and len(table) == 3
    resolved = next(tmp_path.glob("scenario.*.toml")).read_text()
    assert "[[events]]" in resolved and 'failure_detection = "1ms"' in resolved


def test_an_override_moves_an_event_and_a_bad_one_is_refused_at_its_field():
    moved = fairsim.run(EXAMPLE, set={"events.1.at": "20ms", "run.duration": "30ms"}, progress=False)
    assert [e["at_s"] for e in moved.runs[0]["network_events"]] == [0.01, 0.02]
    r = cli("run", EXAMPLE, "--set", "events.1.at=50ms")
    assert r.returncode == 2
    assert "events.1.at: an event at 50ms comes after the run, which ends at 40ms" in r.stderr, r.stderr
    r = cli("run", EXAMPLE, "--set", "events.0.link=agg0-core9")
    assert r.returncode == 2 and "unknown link `agg0-core9`; did you mean `agg0-core0`?" in r.stderr, r.stderr
    r = cli("run", EXAMPLE, "--set", "events.0.action=dwn", "--json")
    assert r.returncode == 2 and "did you mean `down`?" in r.stderr, r.stderr
    r = cli("validate", EXAMPLE, "--set", "events.0.action=rate", "--set", "events.0.rate=0Gbps")
    assert r.returncode == 2 and "rate must be positive" in r.stderr, r.stderr


def test_the_json_document_carries_the_events():
    r = cli("run", EXAMPLE, "--json", "--set", "run.duration=15ms", "--set", "events.1.at=12ms")
    assert r.returncode == 0, r.stderr
    (run,) = json.loads(r.stdout)["runs"]
    assert [e["action"] for e in run["network_events"]] == ["down", "up"]
    assert run["network_events"][1]["detected_s"] == 0.013


def test_validate_lists_the_events_as_resolved():
    r = cli("validate", EXAMPLE, "--set", "events.1.detection=5ms")
    assert r.returncode == 0, r.stderr
    shown = r.stdout.split("network events", 1)[1].splitlines()
    assert shown[2].split() == ["10ms", "link", "agg0-core0", "down", "1ms"]
    assert shown[3].split() == ["25ms", "link", "agg0-core0", "up", "5ms"]
