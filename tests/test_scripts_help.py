"""Every script in scripts/ answers `--help` with its usage, exit 0, and does nothing else: no
file written (`big_scenarios.py --help` once wrote its scenarios into a folder named `--help`,
and `test.sh --help` once ran the whole test run)."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
ALL = sorted([*SCRIPTS.glob("*.py"), *SCRIPTS.glob("*.sh")])


@pytest.mark.parametrize("script", ALL, ids=lambda p: p.name)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_script_answers_help_with_its_usage_and_writes_nothing(script, flag, tmp_path):
    runner = [sys.executable] if script.suffix == ".py" else ["bash"]
    # a generous limit: some scripts import pandas or matplotlib first, on a loaded machine
    r = subprocess.run(
        [*runner, str(script), flag], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout.lower() or f"scripts/{script.name}" in r.stdout, r.stdout
    assert list(tmp_path.iterdir()) == []
