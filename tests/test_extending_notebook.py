"""The tutorial on components written in Python (docs/extending.ipynb) runs from top to bottom
in a real Jupyter kernel, and its Python FIFO gives the built-in fcfs's results."""

from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "extending.ipynb"


def test_the_extending_tutorial_runs_and_its_port_check_holds(tmp_path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel draws inline, as Jupyter does
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed without outputs"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute(cwd=str(tmp_path))
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) == 1, "one plot"
    assert len([o for o in outputs if "image/svg+xml" in o.get("data", {})]) == 1, "the reproduction's figure"
    text = "".join(o.get("text", "") for o in outputs)
    assert "identical results: True" in text, text
    tables = "".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "AIMD/LIFO" in tables and "beta" in tables
