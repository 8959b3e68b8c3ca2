"""hasegawa01's DRR buffers: what each scenario file and experiment runs is the
arrangement its notes and title describe, and the FIFO and RED pairs keep the router's 60 KB."""

from __future__ import annotations

import pytest

from fairsim import reproduce
from fairsim.api import load
from fairsim.catalogue import BUNDLED
from fairsim.reproduce.reproductions.hasegawa01.experiments import (
    ARRANGEMENT_TEXT,
    ARRANGEMENTS,
    DRR_QUEUES,
    arrangement_of,
    drr_buffers,
)

FILES = sorted((BUNDLED / "hasegawa01").glob("*.toml"))
PAPER = reproduce.paper("hasegawa01")


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_files_are_there():
    assert {f.name for f in FILES} == {"forward.toml", "forward-drr.toml", "reverse.toml", "reverse-drr.toml"}


@pytest.mark.parametrize("file", FILES, ids=lambda f: f.name)
def test_each_scenario_runs_the_drr_buffer_its_notes_describe(file):
    s = load(file)
    notes = _flat(s.notes)
    found = {}
    for pair in s.pairs:
        r = s.resolved(pair)
        arrangement = arrangement_of(r)
        port = r["links"]["out"]["forward"]
        if arrangement is None:
            # FIFO, RED and Enhanced RED: one queue in the router's 60 KB
            assert port["buffer"] == "60000B", (pair, port["buffer"])
            continue
        found[pair] = arrangement
        queues = port["qdisc"].get("queues") or len(r["flows"])
        assert queues == DRR_QUEUES[pair], pair
    if not found:
        assert "DRR" not in s.description or "drr.toml" in s.description
        assert ARRANGEMENT_TEXT["each"] not in notes, "notes describe DRR queues the file does not run"
        return
    # one arrangement for the file, the one its notes give as the reading and its description names
    assert set(found.values()) == {"each"}, found
    assert ARRANGEMENT_TEXT["each"] in notes
    assert "its own 60 KB" in s.description
    port = s.resolved(next(iter(found)))["links"]["out"]["forward"]
    assert "240 KB" in notes and port["buffer"] == "240000B"


@pytest.mark.parametrize("exp", PAPER.experiments, ids=lambda e: e.id)
def test_each_experiment_runs_the_drr_buffer_its_title_names(exp):
    s = load(exp.path, set={**exp.overrides, **exp.sweep.overrides(400)})
    arrangements = {arrangement_of(s.resolved(p)) for p in s.pairs}
    expected = {"drr-divided": "divided", "drr-shared": "shared"}.get(exp.id)
    if arrangements == {None}:
        assert exp.id in ("forward", "windows", "reverse")
        assert "60 KB" not in exp.title
        return
    assert arrangements == {expected or "each"}, (exp.id, arrangements)
    words = {"each": "its own 60 KB", "divided": "60 KB divided", "shared": "one 60 KB"}
    assert words[expected or "each"] in exp.title


def test_the_method_says_what_ran():
    method = _flat(PAPER.method)
    assert "each DRR queue with its own 60 KB" in method and "240 KB" in method
    assert "`divided`" in method and "`shared`" in method


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_drr_buffers_sets_what_arrangement_of_reads(arrangement):
    s = load(BUNDLED / "hasegawa01/forward-drr.toml", set=drr_buffers(arrangement))
    for pair, queues in DRR_QUEUES.items():
        r = s.resolved(pair)
        assert arrangement_of(r) == arrangement
        limit = int(r["links"]["out"]["forward"]["qdisc"]["queue_limit"][:-1])
        assert limit == {"each": 60_000, "shared": 60_000, "divided": 60_000 // queues}[arrangement]


def test_an_unknown_arrangement_is_refused():
    with pytest.raises(ValueError, match="one of each, divided, shared"):
        drr_buffers("pooled")
