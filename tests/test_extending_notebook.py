"""The tutorial on components written in Python (docs/extending.ipynb) runs from top to bottom
in a real Jupyter kernel: its Python LIFO gives the results of its Rust port, its token bucket
shapes to its rate on its own timer, and its Swift-like controller fills the line once it takes
out the receiver's ACK delay."""

import re

import pytest

from conftest import notebook_outputs

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = pytest.mark.slow


def test_the_extending_tutorial_runs_and_its_port_check_holds(tmp_path, monkeypatch):
    outputs = notebook_outputs("extending.ipynb", tmp_path, monkeypatch)
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) == 1, "one plot"
    assert len([o for o in outputs if "image/svg+xml" in o.get("data", {})]) == 1, "the reproduction's figure"
    text = "".join(o.get("text", "") for o in outputs)
    assert "identical results: True" in text, text
    assert "shaped to 1.00 Mb/s of 2" in text, text
    taken_out, counted_in = map(
        float, re.search(r"taken out: (\S+) Mb/s .* queueing: (\S+) Mb/s", text).groups()
    )
    assert taken_out > 9.5 and counted_in < taken_out / 2, text
    tables = "".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "AIMD/LIFO" in tables and "beta" in tables and "onoff-py" in tables
