"""One run on several threads (`engine::parallel`): the same results as on one thread, to the
byte, through the Python package and the CLI; the runs that do not split say why at -v; a run
stopped early still reports; by default a run takes only the threads that pay."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import fairsim
from fairsim import _core
from tests.conftest import EXAMPLES, ROOT

PERMUTATION = ROOT / "validation" / "htsim" / "fat-tree-permutation.toml"
WEB_SEARCH = ROOT / "scenarios" / "bench" / "fat-tree-k16-websearch.toml"
SHORT = ["topology.k=4", "run.duration=5ms", "run.warmup=1ms", "run.interval=2ms"]


def document(path, sets, threads):
    results = fairsim.run(path, set=[*sets, f"run.threads={threads}"], seed=[1, 2])
    doc = results.to_dict()
    overrides = doc["scenario"]["overrides"]
    doc["scenario"]["overrides"] = [o for o in overrides if not o.startswith("run.threads")]
    for run in doc["runs"]:
        run.pop("wall_s")
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize(
    "path, sets",
    [
        (PERMUTATION, SHORT),
        (ROOT / "validation" / "htsim" / "fat-tree-permutation-dctcp.toml", SHORT),
        (EXAMPLES / "parking_lot.toml", []),
        # transfers that arrive and finish: their slots are taken again (docs/decisions.md)
        (WEB_SEARCH, ["topology.k=4", "run.duration=10ms", "run.warmup=1ms", "run.interval=3ms"]),
    ],
    ids=["newreno-permutation", "dctcp-permutation", "parking-lot", "dctcp-web-search"],
)
def test_a_run_on_two_threads_is_the_run_on_one(path, sets):
    assert document(path, sets, 2) == document(path, sets, 1)


# routes given, queues drop-tail: nothing draws at random, so its two seeds are one run
@pytest.mark.filterwarnings("ignore::fairsim.IdenticalSeedsWarning")
def test_a_fabric_given_as_an_explicit_link_list_with_routes_splits_and_is_the_run_on_one(tmp_path):
    script = ROOT / "scripts" / "explicit_fat_tree.py"
    out = tmp_path / "explicit.toml"
    subprocess.run([sys.executable, str(script), "--k", "4", "-o", str(out)], check=True)
    flows = fairsim.load(out).resolved()["flows"]
    assert len(flows) == 16 and all(len(f["route"]) in (3, 5, 7) for f in flows.values())
    sets = ["run.duration=3ms", "run.warmup=0s", "run.interval=3ms"]
    assert document(out, sets, 2) == document(out, sets, 1)
    args = [sys.executable, "-m", "fairsim.cli", "run", str(out), "-v", "--no-progress", "--seed", "1"]
    for key in [*sets, "run.threads=2"]:
        args += ["--set", key]
    said = subprocess.run(args, capture_output=True, text=True, check=True).stderr
    assert ": on 2 threads; its partitions handled " in said, said


def test_the_runs_say_how_many_threads_they_took_or_why_one_at_verbose():
    def notes(path, *sets, pair=None):
        args = [sys.executable, "-m", "fairsim.cli", "run", str(path), "-v", "--no-progress", "--seed", "1"]
        args += ["--pair", pair] if pair else []
        for s in sets:
            args += ["--set", s]
        done = subprocess.run(args, capture_output=True, text=True, check=True)
        return [line for line in done.stderr.splitlines() if line.startswith("fairsim: ")]

    (split,) = notes(PERMUTATION, *SHORT, "run.threads=2")
    on_two = f"fairsim: {PERMUTATION}: pair default, seed 1: on 2 threads; its partitions handled "
    assert split.startswith(on_two)
    assert "; 2 threads given: " in split, split
    listed = split.removeprefix(on_two).split(" of its events")[0].split(" and ")
    shares = [float(s.rstrip("%")) for s in listed]
    assert len(shares) == 2 and all(s > 20 for s in shares) and abs(sum(shares) - 100) < 0.2, split
    (pulled,) = notes(EXAMPLES / "ndp_incast.toml", "run.threads=2")
    assert "seed 1: on 2 threads; its partitions handled " in pulled, pulled
    (why,) = notes(EXAMPLES / "dumbbell.toml", "run.threads=2", pair="G/FCFS")
    uneven = "the network does not split into 2 even parts (the heaviest would hold 19 of its 22 ports)"
    assert why.endswith(f"on one thread: {uneven}: one bottleneck or too few switches"), why
    (web,) = notes(WEB_SEARCH, *SHORT, "run.threads=2")
    assert "seed 1: on 2 threads; its partitions handled " in web
    (one,) = notes(PERMUTATION, *SHORT, "run.threads=1")
    assert one.endswith("on one thread: one thread was given")
    # by default a run takes only the threads that pay: a short one stays on one thread
    parking_lot = EXAMPLES / "parking_lot.toml"
    (default,) = notes(parking_lot, "run.duration=20s", "run.warmup=4s", "run.interval=8s", pair="G/FCFS")
    assert ": on one thread: " in default and "given" not in default, default


def test_a_run_on_its_default_threads_is_the_run_on_one(monkeypatch):
    # one run alone may take every core: the engine weighs them (its probe, then a split from
    # the start again, is tested in the engine's own tests, where it can be forced)
    monkeypatch.delenv("FAIRSIM_THREADS", raising=False)
    sets = ["topology.k=4", "run.duration=20ms", "run.warmup=2ms", "run.interval=6ms"]

    def doc(*threads):
        runs = fairsim.run(PERMUTATION, set=[*sets, *threads], seed=1, progress=False).to_dict()["runs"]
        return json.dumps([{k: v for k, v in run.items() if k != "wall_s"} for run in runs], sort_keys=True)

    assert doc() == doc("run.threads=1")


@pytest.mark.skipif(
    shutil.which("taskset") is None or not hasattr(os, "sched_getaffinity"),
    reason="needs taskset and CPU affinity",
)
def test_a_run_takes_the_cores_its_process_may_use_not_the_machines():
    count = "from fairsim.cores import usable_cores; print(usable_cores())"
    one_core = str(min(os.sched_getaffinity(0)))
    run = [sys.executable, "-c", count]
    on_one = subprocess.run(["taskset", "-c", one_core, *run], capture_output=True, text=True, check=True)
    assert on_one.stdout.split() == ["1"]
    on_ours = subprocess.run(run, capture_output=True, text=True, check=True)
    assert on_ours.stdout.split() == [str(len(os.sched_getaffinity(0)))]


def test_a_run_stopped_before_its_first_step_says_so():
    from fairsim.runner import threads_note

    def simulation(threads):
        scenario = _core.loads(PERMUTATION.read_bytes(), str(PERMUTATION), SHORT)
        return scenario.simulation("default", 1, threads)

    sim = simulation(2)
    assert threads_note(sim) == "stopped before it started"
    sim.step(1_000)
    assert threads_note(sim).startswith("on 2 threads; its partitions handled ")
    one = simulation(1)
    one.step(1_000)
    assert threads_note(one) == "on one thread: one thread was given"


def test_a_bad_thread_count_is_refused_with_its_source(monkeypatch):
    with pytest.raises(fairsim.FairsimError, match=r"run\.threads"):
        fairsim.run(PERMUTATION, set=[*SHORT, "run.threads=0"])
    with pytest.raises(fairsim.FairsimError, match=r"run\.threads.*limit of 1024"):
        fairsim.run(PERMUTATION, set=[*SHORT, "run.threads=1025"])
    monkeypatch.setenv("FAIRSIM_THREADS", "100000000")
    with pytest.raises(fairsim.FairsimError, match="FAIRSIM_THREADS must be a whole number from 1 to 1024"):
        fairsim.run(PERMUTATION, set=SHORT)
    monkeypatch.setenv("FAIRSIM_THREADS", "two")
    with pytest.raises(fairsim.FairsimError, match="FAIRSIM_THREADS must be a whole number"):
        fairsim.run(PERMUTATION, set=SHORT)


def test_a_run_stopped_early_on_two_threads_reports_what_it_has():
    sc = _core.loads(PERMUTATION.read_bytes(), str(PERMUTATION), SHORT)
    sim = sc.simulation(None, None, 2)
    assert not sim.step(20_000)
    report = json.loads(sim.report_json())
    assert sim.serial_reason == "stopped"
    # whole windows: at least the stretch's events, far fewer than the run's
    assert 20_000 <= report["events"] < 100_000
    assert report["flows"] and not report["complete"]
