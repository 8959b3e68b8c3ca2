"""Shared fixtures: paths to bundled and test scenarios, and a small quick scenario."""

import functools
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")  # plots in tests draw off screen

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "scenarios" / "examples"
# malformed scenarios, and valid ones that once crashed or hung (header `# exit: 0`)
CORPUS = sorted((ROOT / "tests" / "scenarios" / "malformed").glob("*.toml"))

SMALL = """
nodes = ["a", "gw", "b"]

[scenario]
name = "small"
description = "an FTP, a Telnet and Poisson noise through a 56 kb/s gateway"

[run]
duration = "300s"
warmup = "60s"
interval = "60s"
seed = 3

[links]
in = { between = ["a", "gw"], rate = "1Mbps", delay = "2ms" }
out = { between = ["gw", "b"], rate = "56kbps", delay = "10ms", buffer = 8 }

[flows]
ftp = { src = "a", dst = "b", app = "ftp" }
telnet = { src = "a", dst = "b", app = "telnet" }
noise = { src = "a", dst = "b", app = "poisson", rate = "16kbps" }

[pairs]
"G/FCFS" = { transport = "generic", qdisc = "fcfs" }
"G/RD" = { transport = "generic", qdisc = "random_drop" }
"""


@pytest.fixture
def small_path(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def header(path: Path, key: str, default: str | None = None) -> str:
    """The value of a `# key: value` header line of a malformed test scenario (some files are
    not UTF-8 on purpose; their header lines are)."""
    for line in path.read_bytes().decode(errors="replace").splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    if default is None:
        raise KeyError(key)
    return default


MALFORMED = [p for p in CORPUS if header(p, "exit", "2") == "2"]


@functools.cache
def startup_cpu_s() -> float:
    """The CPU time one start of the command line takes here, now (the most of three starts):
    Python's own start-up, which no program can interrupt cleanly, and fairsim's imports. It
    grows on a loaded machine, so a test that interrupts "early" counts from here."""
    used = []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "fairsim.cli", "--version"], capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return max(used)


def ctrl_c_able() -> None:
    """For `Popen(preexec_fn=...)` of a command a test will interrupt: SIGINT as at a terminal.
    A suite started in the background (`cmd &` in a script) hands its commands SIGINT ignored,
    as POSIX has it, and Python then leaves it ignored: Ctrl-C would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def busy_for(proc: subprocess.Popen, cpu_s: float) -> None:
    """Waits until `proc` has used `cpu_s` seconds of CPU (or has ended): past its imports, into
    its work, however loaded the machine is. A condition, never a time: a fixed sleep
    interrupted the imports on a busy machine, and so did a wall-clock deadline."""
    ticks = os.sysconf("SC_CLK_TCK")
    while proc.poll() is None:
        with open(f"/proc/{proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / ticks >= cpu_s:
            return
        time.sleep(0.05)


def notebook_outputs(name: str, cwd: Path, monkeypatch) -> list:
    """Runs docs/NAME (committed without outputs) from top to bottom in a real Jupyter kernel in
    `cwd`; returns its code cells' outputs, none of them an error."""
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("ipykernel")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel draws inline, as Jupyter does
    nb = nbformat.read(ROOT / "docs" / name, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed without outputs"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute(cwd=str(cwd))
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    return outputs


def report(text: str, pair: str, overrides: list[str], seed: int | None = None) -> dict:
    """The engine's report of a run of scenario `text` under `pair` with `overrides`, run to its
    end in this process (no worker, no Python layer), which must end without an error."""
    import json

    from fairsim import _core

    sim = _core.loads(text, "test.toml", overrides, "set=").simulation(pair, seed)
    while not sim.step(10**6):
        pass
    assert sim.error is None, sim.error
    return json.loads(sim.report_json())


def scenario_error_at(field: str, value: str) -> str:
    """The message of the scenario error that SMALL with `field` set to `value` raises, which
    names the field."""
    import fairsim

    with pytest.raises(fairsim.ScenarioError) as e:
        fairsim.loads(SMALL, set=[f"{field}={value}"])
    assert field in str(e.value)
    return str(e.value)
