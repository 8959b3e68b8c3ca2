"""Files written by `--out` get the permissions the user's umask asks for."""

import os
import stat
import subprocess

import pytest
from test_cli import FAIRSIM

from fairsim.output import atomic_write


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    """Sets the process's umask for a test and restores it after."""
    saved = os.umask(0o022)
    yield os.umask
    os.umask(saved)


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_atomic_write_honours_the_umask(umask, tmp_path, mask, expected):
    umask(mask)
    path = tmp_path / "report.html"
    atomic_write(path, lambda p: p.write_text("<p>hi</p>"))
    assert path.read_text() == "<p>hi</p>"
    assert mode(path) == expected
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o002, 0o664)])
def test_run_out_files_are_readable_as_the_umask_says(small_path, tmp_path, mask, expected):
    out = tmp_path / "res"
    r = subprocess.run(
        [*FAIRSIM, "run", str(small_path), "--pair", "G/RD", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.umask(mask),
    )
    assert r.returncode == 0, r.stderr
    files = list(out.iterdir())
    assert files and {p.name: mode(p) for p in files} == {p.name: expected for p in files}


@pytest.mark.slow
def test_reproduce_out_files_are_readable_as_the_umask_says(tmp_path):
    out = tmp_path / "report"
    r = subprocess.run(
        [*FAIRSIM, "reproduce", "dks89", "--quick", "--no-progress", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=lambda: os.umask(0o022),
    )
    assert r.returncode == 0, r.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) > 2 and {p.name: mode(p) for p in files} == {p.name: 0o644 for p in files}
