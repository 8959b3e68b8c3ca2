"""Queueing delay: the sojourn of each queue and the queueing delay of each flow in
the JSON, the DataFrames, the docs, a sweep's tables and the printed queue table. (The figures
themselves are checked against the packet log in crates/fairsim/tests/queueing_delay.rs.)"""

from __future__ import annotations

import math
from pathlib import Path

import fairsim
from fairsim.results import FLOW_DELAY, QUEUE_DELAY
from fairsim.sweeps.axes import RESERVED

from conftest import SMALL

ROOT = Path(__file__).resolve().parent.parent
SHORT = {"run.duration": "120s", "run.warmup": "20s", "run.interval": "20s"}


def test_queues_and_flows_carry_the_delay_figures_of_the_json(small_path):
    res = fairsim.run(small_path, pair="G/FCFS", set=SHORT, progress=False)
    run = res.runs[0]
    queues, flows = res.queues.set_index("port"), res.flows.set_index("flow")
    for q in run["queues"]:
        s = q["sojourn"]
        for column in QUEUE_DELAY:
            want = s[column.removeprefix("sojourn_")]
            got = queues.loc[q["port"], column]
            assert (want is None and math.isnan(got)) or got == want, (q["port"], column)
    out = next(q["sojourn"] for q in run["queues"] if q["port"] == "gw->b")
    assert out["samples"] > 100 and 0 < out["p50_s"] <= out["p95_s"] <= out["p99_s"] <= out["max_s"]
    # at most 8 packets of 1000 bytes queued and one on the line, 143 ms each at 56 kb/s
    assert out["max_s"] < 9 * 8000 / 56000 and out["mean_s"] <= out["max_s"]
    for f in run["flows"]:
        d = f["queueing"]
        assert d["samples"] == f["totals"]["delivered"], f["name"]
        for column in FLOW_DELAY:
            want = d[column.removeprefix("queueing_")]
            got = flows.loc[f["name"], column]
            assert (want is None and math.isnan(got)) or got == want, (f["name"], column)
        # queueing is the part of the one-way delay spent waiting
        assert d["mean_s"] < f["delay_s"]["mean"] + 1e-9


def test_the_docs_list_the_columns_and_sweeps_reserve_them():
    docs = (ROOT / "docs" / "results.md").read_text()
    queues = docs.split("res.queues", 1)[1].split("res.queue_intervals", 1)[0]
    flows = docs.split("res.flows", 1)[1].split("res.intervals", 1)[0]
    assert all(c in queues for c in QUEUE_DELAY), queues
    assert all(c in flows for c in FLOW_DELAY), flows
    assert "1/256" in docs and "RFC 3550" in docs
    assert set(QUEUE_DELAY) | set(FLOW_DELAY) <= RESERVED


def test_delay_aqms_show_the_sojourn_first_and_others_keep_their_table(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(
        SMALL.replace(
            '"G/RD" = { transport = "generic", qdisc = "random_drop" }',
            '"G/CoDel" = { transport = "generic", qdisc = "codel" }',
        )
    )
    res = fairsim.run(path, set=SHORT, progress=False)
    codel = res["G/CoDel"].summary()
    header = next(line for line in codel.splitlines() if "utilisation" in line)
    assert header.index("sojourn mean") < header.index("sojourn p99") < header.index("utilisation"), header
    fcfs = res["G/FCFS"].summary()
    assert "sojourn" not in fcfs


def test_a_sweep_carries_the_delay_columns(small_path, tmp_path):
    s = fairsim.sweep(
        small_path,
        axes={"links.out.buffer": [4, 8]},
        pairs=["G/FCFS"],
        tables=["flows", "queues"],
        set=SHORT,
        out=tmp_path / "out",
        progress=False,
    )
    assert set(QUEUE_DELAY) <= set(s.queues.columns) and set(FLOW_DELAY) <= set(s.flows.columns)
    out = s.queues[s.queues["port"] == "gw->b"].set_index("out_buffer")
    # a bigger buffer holds packets longer
    assert out.loc[4, "sojourn_max_s"] < out.loc[8, "sojourn_max_s"]
