"""fairsim in a real Jupyter kernel (nbclient + ipykernel) and on a real terminal (a pty):
summaries are text, results display once, and one progress bar counts all the runs."""

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

#: Runs of many polls of the bar, though the bar no longer waits on their length: FAIRSIM_PROGRESS_AFTER=0
#: (set in the kernel) draws it from the start, so a fast machine shows it too.
SLOW = {"run.duration": "1500s"}

CELLS = [
    f"""
import os
os.environ["FAIRSIM_PROGRESS_AFTER"] = "0"
import fairsim
res = fairsim.run("examples/dumbbell", pair="G/RD", seed=[1, 2], set={SLOW!r})
""",
    "print(res.summary())\nprint('length', len(res.summary()))",
    "res",
]


def outputs(cell) -> list[dict]:
    return [dict(o) for o in cell["outputs"]]


def text_of(output: dict) -> str:
    if output["output_type"] == "stream":
        return output["text"]
    return " ".join(str(v) for v in output.get("data", {}).values())


@pytest.fixture(scope="module")
def notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3")
    client.execute(cwd=os.getcwd())
    return nb


@pytest.mark.slow
def test_summary_prints_its_text_in_a_kernel(notebook):
    out = outputs(notebook.cells[1])
    assert [o["output_type"] for o in out] == ["stream"], out
    text = out[0]["text"]
    assert "pair G/RD · 2 seeds (1, 2)" in text and text.count("Jain's fairness index") == 1
    length = int(text.rsplit("length", 1)[1])
    assert length > 1000


def test_results_display_their_table_once(notebook):
    out = outputs(notebook.cells[2])
    assert [o["output_type"] for o in out] == ["execute_result"], out
    data = out[0]["data"]
    assert (
        data["text/html"].count("Jain&#x27;s fairness index")
        + data["text/html"].count("Jain's fairness index")
        == 1
    )
    assert data["text/plain"].startswith("<fairsim.Results 'dumbbell': 2 runs (complete)")
    assert "<html" not in data["text/html"] and "body {" not in data["text/html"]  # a fragment, not a page


def test_progress_shows_in_a_notebook_without_ipywidgets(notebook):
    out = outputs(notebook.cells[0])
    assert not any("ipywidgets" in text_of(o) for o in out), out
    bars = [o for o in out if o["output_type"] in ("display_data", "update_display_data")]
    assert bars, out
    final = bars[-1]["data"]
    assert "<progress" in final["text/html"] and 'max="2"' in final["text/html"]
    assert re.fullmatch(r"dumbbell: 2/2 runs, done in \d+:\d\d:\d\d", final["text/plain"])
    # while runs run, the count is of whole runs finished; the bar itself moves with their time
    counts = [re.match(r"dumbbell: (\S+)/2 runs", b["data"]["text/plain"])[1] for b in bars]
    assert all(c.isdigit() for c in counts), counts


@pytest.mark.skipif(shutil.which("script") is None, reason="needs script(1) for a pty")
@pytest.mark.slow
def test_one_progress_bar_on_a_terminal():
    args = "run examples/dumbbell --pair G/RD --seed 1 --seed 2 --seed 3 --set run.duration=2000s --json"
    command = [sys.executable, "-m", "fairsim.cli", *args.split()]
    r = subprocess.run(
        ["script", "-qec", shlex.join(command) + " >/dev/null", "/dev/null"],  # any path, spaces too
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "120", "FAIRSIM_PROGRESS_AFTER": "0"},  # drawn however fast the runs
    )
    assert r.returncode == 0, r.stdout
    assert "/3 runs" in r.stdout, r.stdout
    assert not re.search(r"\d\.\d/3 runs", r.stdout), "whole runs are counted"
    assert "seed 1" not in r.stdout and "G/RD seed" not in r.stdout


@pytest.mark.skipif(shutil.which("script") is None, reason="needs script(1) for a pty")
def test_terminal_output_has_no_trailing_spaces():
    commands = (
        "fairsim list; fairsim validate examples/dumbbell; fairsim run examples/parking_lot --pair G/RD"
    )
    fairsim_cli = f"{shlex.quote(sys.executable)} -m fairsim.cli"  # any path, spaces too
    r = subprocess.run(
        ["script", "-qec", commands.replace("fairsim ", fairsim_cli + " "), "/dev/null"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert r.returncode == 0, r.stdout
    plain = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", r.stdout).replace("\r", "")
    assert "Jain's fairness index" in plain
    assert [line for line in plain.splitlines() if line != line.rstrip()] == []


@pytest.mark.parametrize(("text", "expected"), [(None, 1.0), ("0", 0.0), ("2.5", 2.5)])
def test_the_delay_before_a_bar_comes_from_the_environment(monkeypatch, text, expected):
    from fairsim import progress

    if text is None:
        monkeypatch.delenv("FAIRSIM_PROGRESS_AFTER", raising=False)
    else:
        monkeypatch.setenv("FAIRSIM_PROGRESS_AFTER", text)
    assert progress.show_after() == expected


@pytest.mark.parametrize("text", ["soon", "-1", "inf", "nan", ""])
def test_a_bad_delay_is_named_and_the_default_kept(monkeypatch, text):
    from fairsim import progress

    monkeypatch.setenv("FAIRSIM_PROGRESS_AFTER", text)
    with pytest.warns(UserWarning, match=r"FAIRSIM_PROGRESS_AFTER=.* is not a number of seconds"):
        assert progress.show_after() == progress.SHOW_AFTER
