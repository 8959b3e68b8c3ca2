"""The report's long tables as Arrow columns (`fairsim.columns`): every row read from the
columns is the JSON report's row, and every table, summary and document made from a run is the
same whether its tables crossed as columns or as JSON."""

import json
import pickle

import pytest

import fairsim
from fairsim import _core, columns
from fairsim.columns import JsonRows, Rows, plain, report_of
from tests.conftest import EXAMPLES, ROOT

LONG = ("flows", "queues", "flow_intervals", "queue_intervals")

#: Runs whose reports hold every kind of row the engine writes: disciplines' own figures and
#: parameters, per-flow drops, delays, workloads' transfers, PFC, failures, telemetry.
SCENARIOS = [
    EXAMPLES / "dumbbell.toml",
    EXAMPLES / "fat_tree_failure.toml",
    EXAMPLES / "fat_tree_websearch.toml",
    EXAMPLES / "roce_incast.toml",
    EXAMPLES / "hpcc_websearch.toml",
    EXAMPLES / "ndp_incast.toml",
    ROOT / "scenarios" / "dks89" / "s6_complicated.toml",
    ROOT / "scenarios" / "csfq98" / "fig6_chain.toml",
]


def finished(path, pair=None):
    sc = _core.loads(path.read_bytes(), str(path), [])
    sim = sc.simulation(pair or sc.pairs[0], None)
    while not sim.step(10**7):
        pass
    return sim


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_rows_read_from_columns_are_the_json_reports_rows(path, monkeypatch):
    monkeypatch.setattr(columns, "COLUMNS_FROM", 0)
    expected = json.loads(finished(path).report_json())
    report, size = report_of(finished(path))
    assert size > 0
    assert all(isinstance(report[name], Rows) for name in LONG)
    for doc in (expected, report):
        doc.pop("wall_s")
    # key for key in the same order, value for value (a float read back is the float written)
    assert list(report) == list(expected)
    for name in LONG:
        got = list(report[name])
        assert got == expected[name], name
        assert [list(row) for row in got] == [list(row) for row in expected[name]], f"{name}: key order"
    assert json.dumps(plain(report)) == json.dumps(expected)


def test_small_tables_cross_as_json_and_large_ones_as_columns(monkeypatch):
    path = EXAMPLES / "dumbbell.toml"
    report, _ = report_of(finished(path))
    assert all(isinstance(report[name], JsonRows) for name in LONG), "a small run needs no pyarrow"
    monkeypatch.setattr(columns, "COLUMNS_FROM", 100)
    report, _ = report_of(finished(path))
    kinds = {name: type(report[name]).__name__ for name in LONG}
    assert kinds == {
        "flows": "JsonRows",
        "queues": "JsonRows",
        "flow_intervals": "JsonRows",
        "queue_intervals": "Rows",
    }


def test_short_tables_are_the_json_reports_rows_read_when_first_asked_for():
    path = EXAMPLES / "dumbbell.toml"
    expected = json.loads(finished(path).report_json())
    taken = columns.taken_report(finished(path))
    report = columns.read_report(taken)
    assert taken[1].take_texts() == [], "the texts are handed over once, not kept beside them"
    queues = report["queues"]
    assert queues._rows is None, "decoded before anyone read it"
    assert pickle.loads(pickle.dumps(queues)) == expected["queues"]
    assert queues._rows is None, "pickled as its text"
    assert len(queues) == len(expected["queues"]) and queues[0] == expected["queues"][0]
    assert queues == expected["queues"] and expected["queues"] == list(queues)
    assert [list(row) for row in queues] == [list(row) for row in expected["queues"]], "key order"
    queues[0]["port"] = "changed"  # read, its rows are a list's: a change stays
    assert report["queues"][0]["port"] == "changed"
    assert pickle.loads(pickle.dumps(queues))[0]["port"] == "changed", "pickled as its rows, once read"
    extra = [{"port": "another"}]
    assert queues + extra == [*list(queues), *extra] and extra + queues == [*extra, *list(queues)]
    for doc in (expected, report):
        doc.pop("wall_s")
    expected["queues"][0]["port"] = "changed"
    assert json.dumps(plain(report)) == json.dumps(expected)


#: A fresh interpreter takes a finished run's report as columns and lets the run go before
#: pyarrow is imported: the import (tens of megabytes) and the conversion then add nothing to the
#: run's state, which is gone by then (docs/performance.md, "The report after the run").
PYARROW_AFTER_THE_RUN = """
import sys
from fairsim import _core, columns
from tests.test_columns import finished, EXAMPLES
columns.COLUMNS_FROM = 0
taken = columns.taken_report(finished(EXAMPLES / "dumbbell.toml"))
assert "pyarrow" not in sys.modules, "imported while the run was alive"
assert columns.taken_size(taken) > len(taken[0])
report = columns.read_report(taken)
assert "pyarrow" in sys.modules and len(report["queues"]) > 0
"""


def test_pyarrow_comes_after_the_run_is_let_go():
    import subprocess
    import sys

    command = [sys.executable, "-c", PYARROW_AFTER_THE_RUN]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_rows_behave_as_a_list_of_their_dicts(monkeypatch):
    monkeypatch.setattr(columns, "COLUMNS_FROM", 0)
    monkeypatch.setattr(columns, "BLOCK", 7)  # rows across several blocks
    rows = report_of(finished(EXAMPLES / "dumbbell.toml"))[0]["queues"]
    listed = list(rows)
    assert len(rows) == len(listed) > 2 * 7
    assert rows[0] == listed[0] and rows[-1] == listed[-1] and rows[8] == listed[8]
    assert rows[3:20:4] == listed[3:20:4]
    assert rows == listed and listed == rows and rows != listed[1:]
    assert rows + [1] == [*listed, 1] and [1] + rows == [1, *listed]  # noqa: RUF005 (`+` is tested)
    with pytest.raises(IndexError):
        rows[len(rows)]
    assert pickle.loads(pickle.dumps(rows)) == listed
    # a row's nested values are its own, even where their texts are equal (held once)
    assert len({id(r[key]) for r in listed for key in ("totals", "sojourn")}) == 2 * len(listed)
    first = rows[0]
    first["totals"]["arrivals"] = -1
    assert all(r["totals"]["arrivals"] != -1 for r in listed[1:])
    assert columns.column(rows, "port") == [r["port"] for r in listed]


@pytest.mark.parametrize("path", SCENARIOS[:3], ids=lambda p: p.stem)
def test_values_decoded_a_block_at_a_time_are_those_decoded_once(path, monkeypatch):
    monkeypatch.setattr(columns, "COLUMNS_FROM", 0)
    report = report_of(finished(path))[0]
    monkeypatch.setattr(columns, "SHARED_UP_TO", 0)  # every dictionary counts as large
    apart = report_of(finished(path))[0]
    for name in LONG:
        rows, rows_apart = report[name], apart[name]
        assert [list(r.items()) for r in rows_apart] == [list(r.items()) for r in rows], name
        for key in rows.batch.schema.names:
            assert columns.column(rows_apart, key) == columns.column(rows, key), (name, key)
    listed = list(apart["queues"])
    listed[0]["totals"]["arrivals"] = -1  # a row's nested values are its own
    assert all(r["totals"]["arrivals"] != -1 for r in listed[1:])


@pytest.mark.parametrize("shared_up_to", [0, 4096])
def test_a_column_read_in_turn_is_the_column(shared_up_to, monkeypatch):
    monkeypatch.setattr(columns, "COLUMNS_FROM", 0)
    monkeypatch.setattr(columns, "BLOCK", 7)  # rows across several blocks, the last one short
    monkeypatch.setattr(columns, "SHARED_UP_TO", shared_up_to)  # texts decoded apart, or once
    report = report_of(finished(EXAMPLES / "fat_tree_failure.toml"))[0]
    assert len(report["queues"]) % 7 and len(report["queues"]) > 7
    for name in LONG:
        rows = report[name]
        for key in rows.batch.schema.names:
            assert list(columns.each(rows, key)) == columns.column(rows, key), (name, key)
    listed = list(report["queues"])
    assert list(columns.each(listed, "totals")) == [r["totals"] for r in listed]


def test_results_are_the_same_from_columns_and_from_json(monkeypatch):
    path = EXAMPLES / "fat_tree_failure.toml"
    monkeypatch.setattr(columns, "COLUMNS_FROM", 10**9)
    as_json = fairsim.run(path)
    monkeypatch.setattr(columns, "COLUMNS_FROM", 0)
    as_columns = fairsim.run(path)
    assert isinstance(as_columns.runs[0]["queues"], Rows)
    assert isinstance(as_json.runs[0]["queues"], JsonRows)
    for table in ("flows", "queues", "intervals", "queue_intervals", "fairness", "network_events"):
        a, b = getattr(as_json, table), getattr(as_columns, table)
        wall = {"columns": ["wall_s"], "errors": "ignore"}
        assert a.drop(**wall).equals(b.drop(**wall)), table

    def document(results):
        doc = results.to_dict(intervals=True)
        for run in doc["runs"]:
            run.pop("wall_s")
        return json.dumps(doc)

    assert document(as_json) == document(as_columns)
    assert as_json.summary().split("events in")[0] == as_columns.summary().split("events in")[0]
