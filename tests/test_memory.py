"""Freed memory goes back to the system once a scenario is loaded and after big runs
(fairsim.memory)."""

import platform

import pytest

from fairsim import memory


def resident_kb() -> int:
    with open("/proc/self/status") as status:
        return int(next(line for line in status if line.startswith("VmRSS:")).split()[1])


def test_the_trim_hands_freed_heap_memory_back_to_the_system():
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc: the trim does nothing there")
    # 40 MB in C's heap (each above Python's own allocator's 512 bytes, below malloc's own
    # mappings), freed below a block still held, which glibc keeps rather than returns unasked
    blocks = [bytes(2000) for _ in range(20_000)]
    held = bytes(2000)
    before = resident_kb()
    del blocks
    kept = resident_kb()
    memory.return_freed(memory.BIG)
    assert kept > before - 10_000, "glibc kept the freed room until asked"
    assert resident_kb() < kept - 30_000, "the trim returned it"
    del held


def test_only_big_runs_trim(monkeypatch):
    calls = []
    monkeypatch.setattr(memory, "_trim", lambda: calls.append("trim"))
    memory.return_freed(memory.BIG - 1)
    assert calls == []
    memory.return_freed(memory.BIG)
    assert calls == ["trim"]


def test_a_finished_run_offers_its_reports_size(monkeypatch, small_path):
    import fairsim

    reported = []
    monkeypatch.setattr("fairsim.runner.return_freed", reported.append)
    fairsim.run(small_path, pair="G/FCFS", seed=[1, 2], progress=False)
    assert len(reported) == 2 and min(reported) > 1000, "each run's report, as text"


def many_flows(n: int) -> str:
    """A scenario of `n` hosts each sending through one port, as text."""
    hosts = [f"h{i}" for i in range(n)]
    lines = [f"nodes = {[*hosts, 'left', 'sink']}".replace("'", '"'), '[run]\nduration = "1s"', "[links]"]
    lines += [f'{h} = {{ between = ["{h}", "left"], rate = "1Gbps", delay = "1ms" }}' for h in hosts]
    lines += ['out = { between = ["left", "sink"], rate = "1Gbps", delay = "1ms" }', "[flows]"]
    lines += [f'f{i} = {{ src = "{h}", dst = "sink", app = "ftp" }}' for i, h in enumerate(hosts)]
    return "\n".join(lines) + '\n[pairs]\n"G/FQ" = { transport = "generic", qdisc = "fq" }\n'


def test_a_loaded_scenario_leaves_no_freed_room_behind():
    """Loading returns what the parse freed (`fairsim::memory`): a run on a worker thread, in a
    heap of its own, could not use that room, and it would stay counted beside the run's."""
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc: the trim does nothing there")
    import fairsim

    text = many_flows(2_000)
    memory.return_freed(memory.BIG)  # what earlier tests freed, not this one's to count
    scenario = fairsim.loads(text, set=["run.seed=2"])  # the path with overrides as well
    loaded = resident_kb()
    memory.return_freed(memory.BIG)
    assert resident_kb() > loaded - 2_000, "the load had already returned what it freed"
    del scenario


def test_runs_are_read_once_let_go(monkeypatch, small_path):
    import fairsim
    from fairsim import runner

    calls = []
    monkeypatch.setattr(runner, "return_freed", lambda size: calls.append("freed"))
    read = runner.read_report
    monkeypatch.setattr(runner, "read_report", lambda taken: calls.append("read") or read(taken))
    fairsim.run(small_path, pair="G/FCFS", seed=[1, 2], progress=False, jobs=1)
    assert calls == ["freed", "read", "freed", "read"]


def test_measure_rss_splits_the_resident_memory_into_state_and_code(monkeypatch):
    """`scripts/measure_rss.py` reads a process's whole resident memory, its state (heap and
    stacks) and its code; memory this process writes shows in its state."""
    import os
    from pathlib import Path

    if platform.system() != "Linux":
        pytest.skip("/proc is Linux's")
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "scripts"))
    import measure_rss

    whole, state, code = measure_rss.rss_mib(os.getpid())
    assert state > 0 and code > 0 and whole >= state + code - 0.1  # less shared memory, if any
    written = bytearray(50_000_000)  # zeroed, so every page written
    assert measure_rss.rss_mib(os.getpid())[1] > state + 40
    del written
    assert measure_rss.rss_mib(-1) is None, "a process gone reads as nothing"


@pytest.mark.slow
def test_a_k64_fabric_runs_in_the_memory_its_state_needs():
    """The k = 64 permutation of 20 µs (65,536 connections over 393,216 ports), the whole
    `fairsim run` on one thread, peaks at about 443 MiB: its ports, connections, packets in
    flight and their statistics (docs/decisions.md, "What a k = 64 fabric may take"). A run that
    grows by an eighth fails here."""
    import subprocess
    import sys

    if platform.system() != "Linux":
        pytest.skip("the peak is read as Linux counts it")
    from tests.conftest import ROOT

    sets = ["topology.k=64", "run.duration=20us", "run.warmup=0us", "run.interval=20us", "run.threads=1"]
    scenario = str(ROOT / "validation" / "htsim" / "fat-tree-permutation.toml")
    command = [sys.executable, "-m", "fairsim.cli", "run", scenario, "--no-progress"]
    command += [a for s in sets for a in ("--set", s)]
    # a fresh process waits for the command, so that its children's peak is the command's alone
    measure = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run([sys.executable, "-c", measure, *command], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    peak_mib = int(done.stdout) / 1024
    assert 300 < peak_mib < 500, f"{peak_mib:.1f} MiB"
