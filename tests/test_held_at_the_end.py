"""A packet a Python discipline forgot while keeping a reference to it passes every check made
during the run (its view is held, it fits the buffer); at the end it has waited far longer than
anything the port sent, and the run says so, naming the port."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from conftest import SMALL, report

TCP_DUMBBELL = (Path(__file__).resolve().parent.parent / "scenarios/bench/tcp-dumbbell.toml").read_text()

UNLIMITED = ["links.out.buffer=100000"]


def _with(cls: str) -> list[str]:
    return [*UNLIMITED, f'pairs.G/FCFS.qdisc={{kind="python", class="python_disciplines:{cls}"}}']


def test_packets_forgotten_with_references_kept_are_reported_by_port():
    r = report(SMALL, "G/FCFS", _with("ForgetsKeepingReferences"))
    data, acks = sorted(r["warnings"], reverse=True)  # the gateway's two ports: data, and ACKs back
    assert data.startswith("gw->b: its discipline") and acks.startswith("gw->a: its discipline"), r[
        "warnings"
    ]
    assert "ForgetsKeepingReferences" in data and "forgotten" in data, data


@pytest.mark.parametrize("buffer", ["100000", "8"])
def test_a_correct_fifo_reports_nothing_however_its_queue_ends(buffer):
    """An FTP into an unlimited buffer keeps its queue growing to the end, the case where the
    oldest packet held is the oldest the port ever had."""
    r = report(SMALL, "G/FCFS", [f"links.out.buffer={buffer}", *_with("Fifo")[1:]])
    assert "warnings" not in r
    assert any(q["port"] == "gw->b" and q["totals"]["departures"] > 0 for q in r["queues"])


def test_fairsim_run_warns_of_what_the_run_found(tmp_path):
    import fairsim

    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fairsim.run(path, pair="G/FCFS", set=_with("ForgetsKeepingReferences"), progress=False)
    found = [w for w in caught if issubclass(w.category, fairsim.FairsimWarning)]
    assert any("gw->b" in str(w.message) and "forgotten" in str(w.message) for w in found), found


def test_a_starved_class_is_reported_as_held():
    """A LIFO under a standing queue never sends the bottom of its stack: held, never sent."""
    r = report(
        TCP_DUMBBELL, "NR/FIFO", ['pairs.NR/FIFO.qdisc={kind="python", class="python_disciplines:Lifo"}']
    )
    assert any(w.startswith("r1->r2: ") and "starved" in w for w in r.get("warnings", [])), r.get("warnings")


def test_a_sweep_records_what_each_run_found(tmp_path):
    import fairsim

    path = tmp_path / "small.toml"
    path.write_text(SMALL.replace('duration = "300s"', 'duration = "120s"'))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = fairsim.sweep(
            path, seeds=2, pairs="G/FCFS", set=_with("ForgetsKeepingReferences"), progress=False
        )
    assert [w.startswith("gw->a: ") for w in s.runs.warnings.str.split("\n").str[0]] == [True, True]
    assert any("2 runs found" in str(w.message) for w in caught), [str(w.message) for w in caught]
