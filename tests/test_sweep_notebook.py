"""The sweep tutorial (docs/sweep.ipynb) runs from top to bottom in a real Jupyter kernel."""

from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "sweep.ipynb"


def test_the_sweep_tutorial_runs_and_shows_its_tables_and_plots(tmp_path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel draws inline, as Jupyter does
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed without outputs"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute(cwd=str(tmp_path))
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2, "two plots"
    text = "".join(o.get("text", "") for o in outputs)
    assert "ran 12, found 60 in the folder" in text, text
    assert "identical results" not in text, "the tutorial averages replications that differ"
    assert (tmp_path / "sweep-tutorial" / "manifest.json").is_file()
