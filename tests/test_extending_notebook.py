"""The tutorial on components written in Python (docs/extending.ipynb) runs from top to bottom
in a real Jupyter kernel, and its Python LIFO gives the results of its Rust port."""

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
    tables = "".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "AIMD/LIFO" in tables and "beta" in tables
