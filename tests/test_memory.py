"""Freed memory goes back to the system before the runs and after big ones (fairsim.memory)."""

import platform

import pytest

from fairsim import memory


def test_glibc_has_malloc_trim_where_it_is_the_c_library():
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert memory._malloc_trim() is not None


def test_only_big_runs_trim(monkeypatch):
    calls = []
    monkeypatch.setattr(memory, "_malloc_trim", lambda: calls.append)
    memory.return_freed(memory.BIG - 1)
    assert calls == []
    memory.return_freed(memory.BIG)
    assert calls == [0]


def test_a_finished_run_offers_its_reports_size(monkeypatch, small_path):
    import fairsim

    reported = []
    monkeypatch.setattr("fairsim.runner.return_freed", reported.append)
    fairsim.run(small_path, pair="G/FCFS", seed=[1, 2], progress=False)
    assert len(reported) == 2 and min(reported) > 1000, "each run's report, as text"


def test_runs_begin_with_the_loading_room_returned_and_are_read_once_let_go(monkeypatch, small_path):
    import fairsim
    from fairsim import runner

    calls = []
    monkeypatch.setattr(runner, "return_loading_room", lambda: calls.append("room"))
    monkeypatch.setattr(runner, "return_freed", lambda size: calls.append("freed"))
    read = runner.read_report
    monkeypatch.setattr(runner, "read_report", lambda taken: calls.append("read") or read(taken))
    fairsim.run(small_path, pair="G/FCFS", seed=[1, 2], progress=False, jobs=1)
    assert calls == ["room", "freed", "read", "freed", "read"]
