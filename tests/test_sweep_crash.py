"""A sweep folder survives its driver being killed and its files being damaged: on real
processes, a 200-run sweep is killed at chosen points of its writes and at random moments, its
parts are truncated, emptied and deleted, and the sweep is run again until it finishes. Then
every run is in the folder exactly once and the tables equal an uninterrupted sweep's."""

import json
import os
import random
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest

import fairsim
from fairsim import FairsimError
from fairsim.sweeps.store import DamagedPart, read_table

from conftest import EXAMPLES, busy_for, ctrl_c_able, startup_cpu_s

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = pytest.mark.slow

SWEEP = [
    "sweep",
    str(EXAMPLES / "dumbbell.toml"),
    "--set",
    "run.duration=30s",
    "--axis",
    "links.bottleneck.buffer=1..20:1",
    "--seeds",
    "5",
    "--no-progress",
    "-j",
    "2",
]
#: What differs between two runs of the same scenario: when and how fast it ran.
WALL_CLOCK = ["wall_s", "finished_at"]


def sweep(out: Path, hooks: str = "", **kw) -> subprocess.CompletedProcess | subprocess.Popen:
    env = {**os.environ, "FAIRSIM_TEST_HOOKS": hooks}
    args = [sys.executable, "-m", "fairsim.cli", *SWEEP, "--out", str(out)]
    if kw.pop("background", False):
        return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)


def tables(folder: Path) -> dict[str, pd.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DamagedPart)  # the final folder is whole
        s = fairsim.open_sweep(folder)
        runs = s.runs.drop(columns=WALL_CLOCK).sort_values("run_id").reset_index(drop=True)
        flows = s.flows.sort_values(["run_id", "flow"]).reset_index(drop=True)
    return {"runs": runs, "flows": flows}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, pd.DataFrame]:
    out = tmp_path_factory.mktemp("reference") / "sweep"
    r = sweep(out)
    assert r.returncode == 0, r.stderr
    return tables(out)


def parts(folder: Path) -> list[Path]:
    return sorted((folder / "parts").glob("part-*"))


def damage(folder: Path, how: str) -> str:
    """Damages one committed part as a full disk, a cut copy or a careless hand would."""
    part = random.Random(how).choice(parts(folder))
    if how == "truncate flows":
        path = part / "flows.parquet"
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif how == "empty runs":
        (part / "runs.parquet").write_bytes(b"")
    elif how == "delete flows":
        (part / "flows.parquet").unlink()
    elif how == "delete commit":
        (part / "commit.json").unlink()
    elif how == "garble commit":
        (part / "commit.json").write_text("{ not json")
    elif how == "flip a byte":
        path = part / "flows.parquet"
        data = bytearray(path.read_bytes())
        data[len(data) // 3] ^= 0xFF
        path.write_bytes(bytes(data))
    return part.name


def test_killed_and_damaged_sweeps_finish_with_every_run_once(reference, tmp_path):
    out = tmp_path / "sweep"
    # killed between the writes of a part, after its commit record, and after publishing it
    for point in ("staged-table:2", "staged-commit:3", "published:2", "staged-table:5"):
        r = sweep(out, f"flush_every=0,crash_at={point}")
        assert r.returncode == -signal.SIGKILL, f"{point}: {r.returncode} {r.stderr}"
    # killed from outside at random moments (the folder is read while a driver writes it): after
    # a random number of parts more are published, a condition that holds however fast the
    # engine runs (a moment counted in the driver's CPU time came after the last run once the
    # engine got faster) and however loaded the machine is
    rng = random.Random(7)
    for _ in range(2):
        wanted = len(parts(out)) + rng.randint(1, 6)
        proc = sweep(out, "flush_every=0", background=True)
        while proc.poll() is None and len(parts(out)) < wanted:
            time.sleep(0.01)
        proc.kill()
        proc.wait()
    held = len(read_table(out, "runs"))
    assert 0 < held < 200, "some runs, not all, were committed before the kills"
    # damage in each way, then resume until done
    damaged = {how: damage(out, how) for how in ("truncate flows", "empty runs", "delete flows")}
    damaged.update({how: damage(out, how) for how in ("delete commit", "garble commit", "flip a byte")})
    r = sweep(out)
    assert r.returncode == 0, r.stderr
    for name in damaged.values():
        assert name in r.stderr and "set aside" in r.stderr, r.stderr
        assert (out / ".damaged" / name).exists()
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    runs = read_table(out, "runs")
    assert runs["run_id"].is_unique and len(runs) == 200, "every run exactly once"
    got = tables(out)
    assert fairsim.open_sweep(out).complete
    for name, expected in reference.items():
        pd.testing.assert_frame_equal(got[name], expected, check_like=True)


def test_a_run_counts_only_when_all_its_tables_are_committed(tmp_path):
    out = tmp_path / "sweep"
    r = sweep(out, "flush_every=0,crash_at=staged-table:1")  # runs written, flows not yet
    assert r.returncode == -signal.SIGKILL
    staged = list((out / ".staging").glob("part-*/runs.parquet"))
    assert staged, "the runs table of the part was written"
    s = fairsim.open_sweep(out)
    assert len(s.runs) == 0 and not s.complete, "a part that is not published holds no finished run"


def test_the_workers_end_with_a_killed_driver(tmp_path):
    out = tmp_path / "sweep"
    proc = sweep(out, background=True)
    deadline = time.monotonic() + 120
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
        workers = children(proc.pid)
        time.sleep(0.05)
    assert len(workers) >= 2, "the pool started its workers"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(alive(w) for w in workers):
        time.sleep(0.05)
    assert not any(alive(w) for w in workers), "no worker outlives its driver"


def children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


@pytest.mark.parametrize("cpu_s", [0.05, 0.15, 0.3, 0.5])
def test_ctrl_c_early_exits_130_and_leaves_a_resumable_folder(tmp_path, cpu_s):
    out = tmp_path / "sweep"
    proc = subprocess.Popen(
        [sys.executable, "-m", "fairsim.cli", *SWEEP, "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_able,
    )
    busy_for(proc, startup_cpu_s() + cpu_s)  # into fairsim's own work, however loaded the machine
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the sweep had finished before the interrupt")  # a fast machine
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "internal error" not in stderr and "Traceback" not in stderr
    if (out / "manifest.json").exists():
        assert len(fairsim.open_sweep(out).runs) >= 0  # readable, whatever it holds
    r = sweep(out)
    assert r.returncode == 0, r.stderr
    assert read_table(out, "runs")["run_id"].is_unique


DAMAGED_MANIFESTS = {
    "not JSON": ("{ oops", r"manifest.json:1:3: not JSON"),
    "a list": ("[1, 2]", r"a manifest is a JSON object"),
    "old schema": (json.dumps({"schema": "fairsim.sweep/1"}), r"schema 'fairsim.sweep/1'"),
    "no runs": (None, r"`runs` is missing or not a count"),
    "axes not names": (None, r"`axes` is a list of names"),
}


@pytest.mark.parametrize("case", DAMAGED_MANIFESTS)
def test_open_sweep_on_a_damaged_folder_says_what_is_wrong(tmp_path, case):
    out = tmp_path / "sweep"
    r = sweep(out)
    assert r.returncode == 0
    text, message = DAMAGED_MANIFESTS[case]
    manifest = json.loads((out / "manifest.json").read_text())
    if case == "no runs":
        del manifest["runs"]
    elif case == "axes not names":
        manifest["axes"] = [1]
    (out / "manifest.json").write_text(text if text is not None else json.dumps(manifest))
    with pytest.raises(FairsimError, match=message):
        fairsim.open_sweep(out)


def test_open_sweep_on_a_damaged_plan_or_an_old_folder_says_what_is_wrong(tmp_path):
    out = tmp_path / "sweep"
    assert sweep(out).returncode == 0
    (out / "plan.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(FairsimError, match=r"plan.parquet: cannot be read .* run the sweep again"):
        len(fairsim.open_sweep(out).runs)
    (out / "plan.parquet").unlink()
    (out / "runs").mkdir()
    (out / "runs" / "part-1.parquet").write_bytes(b"")
    with pytest.raises(FairsimError, match=r"written by an older fairsim"):
        len(fairsim.open_sweep(out).runs)
    with pytest.raises(FairsimError, match=r"not a sweep folder"):
        fairsim.open_sweep(tmp_path / "nothing")


JSON_VALUES = [None, True, 0, -1, 10**30, 1.5, float("nan"), "", "x", [], [1], ["x"], {}, {"name": 1}]


def test_any_hand_edit_of_the_manifest_is_a_fairsim_error_or_read(tmp_path):
    """Every table and summary of `open_sweep` on a folder whose manifest had one value replaced
    or removed, each in turn: read, or a FairsimError naming the file; never KeyError, TypeError
    and the like."""
    out = tmp_path / "sweep"
    r = sweep(out)
    assert r.returncode == 0, r.stderr
    original = json.loads((out / "manifest.json").read_text())
    paths = [(k,) for k in original] + [(k, j) for k, v in original.items() if isinstance(v, dict) for j in v]
    for path in paths:
        for value in [*JSON_VALUES, "delete"]:
            manifest = json.loads(json.dumps(original))
            node = manifest
            for key in path[:-1]:
                node = node[key]
            if value == "delete":
                del node[path[-1]]
            else:
                node[path[-1]] = value
            (out / "manifest.json").write_text(json.dumps(manifest))
            try:
                s = fairsim.open_sweep(out)
                repr(s)
                s.runs, s.flows, s.failures, s.complete, s.plan  # noqa: B018
                s.aggregate("goodput_bps", per_run="sum")
            except FairsimError as e:
                assert "manifest.json" in str(e) or "no column" in str(e), (path, value, e)
