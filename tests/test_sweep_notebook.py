"""The sweep tutorial (docs/sweep.ipynb) runs from top to bottom in a real Jupyter kernel."""

import pytest

from conftest import notebook_outputs

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = pytest.mark.slow


def test_the_sweep_tutorial_runs_and_shows_its_tables_and_plots(tmp_path, monkeypatch):
    outputs = notebook_outputs("sweep.ipynb", tmp_path, monkeypatch)
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2, "two plots"
    text = "".join(o.get("text", "") for o in outputs)
    assert "ran 12, found 60 in the folder" in text, text
    assert "identical results" not in text, "the tutorial averages replications that differ"
    assert (tmp_path / "sweep-tutorial" / "manifest.json").is_file()
