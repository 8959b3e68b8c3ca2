"""A run's identity covers the code of the Python components it runs (`fairsim.extend.code_identity`):
a sweep into a folder that holds runs of an edited component runs them again and says so;
`--fresh` runs everything again; a run of built-in components keeps the id it had."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_workloads import FAT_TREE

ROOT = Path(__file__).resolve().parent.parent

COMPONENT = '''
import fairsim
from python_disciplines import Fifo


@fairsim.discipline("mine")
class Mine(Fifo):
    """A drop-tail queue served {order}."""

    def dequeue(self, ctx):
        return self.queue.{take}() if self.queue else None
'''
FIFO = COMPONENT.format(order="first in, first out", take="popleft")
LIFO = COMPONENT.format(order="last in, first out", take="pop")


def _sweep(folder: Path, *more: str) -> tuple[str, list[float]]:
    """`fairsim --import mycomp sweep` of the dumbbell example under `mine` into `folder`: its
    summary line and the flows' goodputs."""
    args = [sys.executable, "-m", "fairsim.cli", "--import", "mycomp", "sweep", "examples/dumbbell"]
    args += ["--set", "pairs.G/FCFS.qdisc=mine", "--set", "run.duration=60s", "--pair", "G/FCFS"]
    args += ["--seeds", "1", "--out", str(folder / "out"), "--no-progress", *more]
    path = os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(args, cwd=folder, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    import fairsim

    flows = fairsim.open_sweep(folder / "out").flows
    return " ".join((done.stdout + done.stderr).split()), sorted(flows["goodput_bps"])


def test_an_edited_component_runs_again_and_fresh_runs_everything(tmp_path):
    component = tmp_path / "mycomp.py"
    component.write_text(FIFO)
    first, fifo = _sweep(tmp_path)
    assert "1 runs ran, 0 were in the folder" in first, first
    again, same = _sweep(tmp_path)
    assert "0 runs ran, 1 were in the folder" in again and same == fifo, again
    component.write_text(LIFO)
    edited, lifo = _sweep(tmp_path)
    assert "1 runs ran, 0 were in the folder" in edited, edited
    assert "made by other code" in edited and "Python components" in edited, edited
    assert lifo != fifo, "the results are the edited component's"
    fresh, _ = _sweep(tmp_path, "--fresh")
    assert "1 runs ran, 0 were in the folder" in fresh, fresh


def test_runs_of_built_in_components_keep_their_identity():
    probe = (
        "import json, fairsim\n"
        "from fairsim.extend.code_identity import code_key\n"
        "from fairsim.sweeps.plan import run_id\n"
        "print(json.dumps([code_key(), run_id('x', 'y'), run_id('x', 'y', code_key())]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    key, plain, with_code = json.loads(out.stdout)
    assert key == "" and plain == with_code, "without a component of the user's, the id is as it was"


MATRIX = "Nodes 16\nConnections 1\n0->5 start 0 size {size}\n"
READS_A_MATRIX = FAT_TREE.replace("DURATION", "2ms").replace("WORKLOAD", 'pattern = "matrix"\nfile = "m.cm"')


def test_a_file_the_scenario_reads_is_part_of_its_runs_identity(tmp_path):
    import fairsim

    (tmp_path / "s.toml").write_text(READS_A_MATRIX)
    matrix = tmp_path / "m.cm"
    matrix.write_text(MATRIX.format(size=20_000))
    first = fairsim.sweep(tmp_path / "s.toml", seeds=1, out=tmp_path / "out", progress=False)
    again = fairsim.sweep(tmp_path / "s.toml", seeds=1, out=tmp_path / "out", progress=False)
    assert (first.summary.ran, again.summary.ran, again.summary.cached) == (1, 0, 1)
    matrix.write_text(MATRIX.format(size=40_000))  # the same path, edited in place
    edited = fairsim.sweep(tmp_path / "s.toml", seeds=1, out=tmp_path / "out", progress=False)
    assert (edited.summary.ran, edited.summary.cached) == (1, 0), "an edited matrix is another run"
    assert list(first.flows.delivered) == [14] and list(edited.flows.delivered) == [28], (
        "each its matrix's size"
    )
