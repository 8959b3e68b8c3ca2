"""Pairs added beside a paper's (`fairsim reproduce --pair`): their numbers are in the report's
tables, in `reproduction.json` and in the report object, marked as not the paper's; a broken one
fails only its own runs, with its message in the report, and the paper's results stay whole."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fairsim
from fairsim import reproduce
from fairsim.reproduce.claims import fmt
from fairsim.reproduce.measure import Measurements
from fairsim.reproduce.model import load_experiment

FAIRSIM = [sys.executable, "-m", "fairsim.cli"]
LIFO = '{ transport = "generic", qdisc = "lifo" }'
PAIRS = {
    "MINE": LIFO,
    "NOPE": '{ transport = "generic", qdisc = "nosuch" }',
    # the name of one of Scenario 4's own pairs: its table would replace the paper's FQ
    "FQ": LIFO,
}
#: Scenario 4's published table, rows quantity × pair: the added pair gets a row per quantity.
QUANTITIES = {
    "packets": "Throughput (packets)",
    "rtt": "Average Roundtrip Time",
    "retransmissions": "Retransmitted Packets",
    "drops": "Dropped Packets",
}
FLOWS = ["g1", "g2", "jk3", "jk4"]


@pytest.fixture(scope="module")
def s4(tmp_path_factory):
    """dks89's Scenario 4, quick, with a working pair, a broken one and one named like the paper's."""
    report = reproduce.run("dks89", quick=True, only=["s4"], pairs=PAIRS, progress=False)
    out = tmp_path_factory.mktemp("s4")
    reproduce.write(report, out)
    doc = json.loads((out / "reproduction.json").read_text())
    return report, doc, (out / "report.md").read_text(), out


@pytest.fixture(scope="module")
def mine():
    """MINE's own run of Scenario 4 (quick, seed 1), measured apart from the reproduction."""
    exp = reproduce.paper("dks89").experiment("s4")
    loaded = load_experiment(exp, {**exp.overrides, **exp.quick}, {"MINE": LIFO})
    return Measurements(fairsim.run(loaded.scenario, pair="MINE", seed=1, progress=False))


def test_an_added_pair_has_a_row_per_quantity_in_the_papers_table(s4, mine):
    report, doc, md, _ = s4
    (section,) = report.sections
    rows = section.added_rows["results"]
    assert [r.label for r in rows] == [f"MINE · {q}" for q in QUANTITIES.values()]
    for row, metric in zip(rows, QUANTITIES, strict=True):
        assert [v.key.flow for v in row.values] == FLOWS and all(v.added for v in row.values)
        assert [v.ours.mean for v in row.values] == [mine.value("MINE", f, metric) for f in FLOWS]
        assert mine.value("MINE", "g1", "packets") > 0
        cells = " | ".join(fmt(mine.value("MINE", f, metric)) for f in FLOWS)
        assert f"| MINE · {QUANTITIES[metric]} (added, not in the paper) | {cells} |" in md
    assert "Rows marked “added, not in the paper” are pairs given with `fairsim reproduce --pair`" in md
    in_json = {
        (v["metric"], v["flow"]): v
        for v in doc["added_values"]
        if v["table"] == "results" and v["pair"] == "MINE"
    }
    assert len(in_json) == len(QUANTITIES) * len(FLOWS)
    for (metric, flow), v in in_json.items():
        assert v["added"] is True and v["experiment"] == "s4"
        assert v["ours"]["mean"] == mine.value("MINE", flow, metric)
    assert in_json[("packets", "g2")]["column"] == "Generic FTP 2"
    assert in_json[("packets", "g2")]["row"] == "MINE · Throughput (packets)"


def test_an_experiment_shows_every_flows_goodput_under_every_pair_the_added_ones_marked(s4, mine):
    report, doc, md, out = s4
    table = report.sections[0].goodput
    assert table.pairs == ["FQ", "FCFS", "MINE"] and table.added == ["MINE"]
    # the paper's FQ is not the refused pair of the same name
    assert "| flow | FQ | FCFS | MINE (added, not in the paper) |" in md
    g1 = [v for v in doc["added_values"] if v["table"] == "s4-added" and v["flow"] == "g1"]
    assert [(v["pair"], v["added"]) for v in g1] == [("FQ", False), ("FCFS", False), ("MINE", True)]
    assert g1[2]["ours"]["mean"] == mine.value("MINE", "g1", "throughput") > 0
    # the figure of the same numbers names the pair, and says it is added
    svg = (out / "figures" / "s4-added.svg").read_text()
    assert "<!-- MINE (added) -->" in svg and "<!-- FCFS -->" in svg


def test_a_broken_added_pair_fails_alone_with_its_message(s4):
    report, doc, md, _ = s4
    failures = {a["name"]: a["failures"] for a in doc["added_pairs"]}
    assert all(a["added"] is True for a in doc["added_pairs"])
    assert failures["MINE"] == []
    (nope,) = failures["NOPE"]
    assert nope["experiment"] == "s4" and "pairs.NOPE.qdisc: unknown discipline `nosuch`" in nope["error"]
    assert "one of the paper's pairs" in failures["FQ"][0]["error"]
    assert [a.name for a in report.outcome.failed] == ["NOPE", "FQ"]
    assert "**The added pair `NOPE` failed here**" in md and "unknown discipline `nosuch`" in md
    assert "NOPE failed in s4" in md[: md.index("## Method")], "the summary says so"
    assert "NOPE" not in {v["pair"] for v in doc["added_values"]}
    # the paper's pairs are whole: every cell of its table measured, its claims judged
    assert len(doc["cells"]) == 32 and {c["pair"] for c in doc["cells"]} == {"FQ", "FCFS"}
    assert all(c["ours"] is not None for c in doc["cells"])
    assert all(c["verdict"] != "not evaluated" for c in doc["claims"])


def test_added_pairs_change_none_of_the_papers_numbers(s4):
    _, doc, _, _ = s4
    alone = reproduce.to_json(reproduce.run("dks89", quick=True, only=["s4"], progress=False))
    assert doc["cells"] == alone["cells"] and doc["claims"] == alone["claims"]
    assert alone["added_pairs"] == [] and alone["added_values"] == []


def test_an_added_pair_runs_in_a_sweep_with_a_row_per_value_and_flow():
    report = reproduce.run("dks89", quick=True, only=["fig1_windows"], pairs={"MINE": LIFO}, progress=False)
    table = report.sections[0].goodput
    assert table.added == ["MINE"]
    labels = [r.label for r in table.rows]
    assert labels[0] == "window = 2 · ftp1" and "window = 10 · telnet" in labels
    _, m = report.outcome.sweeps["fig1_windows"][0]
    assert table.rows[0].values[-1].ours.mean == m.value("MINE", "ftp1", "throughput") > 0


def test_a_python_discipline_that_raises_fails_its_pairs_runs_and_the_command_exits_3(tmp_path):
    """On worker processes, from the command line: the paper's report is written, the user's
    traceback is in it and on standard error, and fairsim's own is nowhere."""
    out = tmp_path / "r"
    raises = '{ transport = "generic", qdisc = { kind = "python", class = "python_disciplines:Raises" } }'
    command = [*FAIRSIM, "--import", "python_disciplines", "reproduce", "dks89", "--quick", "-e", "s4"]
    command += ["--json", "--no-progress", "--out", str(out)]
    command += ["--pair", f"BAD={raises}", "--pair", f"MINE={LIFO}"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 3, proc.stderr
    assert "error: added pair BAD, experiment s4: dks89/s4_mixed.toml: pair BAD, replication 1" in proc.stderr
    assert "RuntimeError: the user's bug" in proc.stderr and "internal error" not in proc.stderr
    files = set(re.findall(r'File "([^"]+)"', proc.stderr))
    assert files and all(f.endswith("python_disciplines.py") for f in files), files
    doc = json.loads(proc.stdout)
    (bad,) = [a for a in doc["added_pairs"] if a["name"] == "BAD"]
    assert "`dequeue` at t = " in bad["failures"][0]["error"]
    assert "the user's bug" in bad["failures"][0]["error"]
    assert {v["pair"] for v in doc["added_values"] if v["added"]} == {"MINE"}
    assert all(c["ours"] is not None for c in doc["cells"])
    md = (out / "report.md").read_text()
    assert "**The added pair `BAD` failed here**" in md and "RuntimeError: the user's bug" in md
    assert "| MINE · Throughput (packets) (added, not in the paper) |" in md
