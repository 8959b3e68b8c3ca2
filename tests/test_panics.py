"""A Rust panic never crosses into Python: it becomes `fairsim.InternalError`, a bug in fairsim,
without Rust's report on stderr; a simulation that panicked refuses to go on."""

import os
import subprocess
import sys

import pytest

import fairsim
from fairsim import _core

from conftest import SMALL


def test_a_panic_is_an_internal_error_naming_the_bug(capfd):
    with pytest.raises(fairsim.InternalError) as e:
        _core._panic_for_tests("the invariant broke")
    assert isinstance(e.value, fairsim.FairsimError)
    assert "the invariant broke" in str(e.value) and "bug in fairsim" in str(e.value)
    assert capfd.readouterr().err == ""


def test_a_simulation_that_panicked_refuses_to_go_on(capfd):
    sim = _core.loads(SMALL, "small.toml").simulation("G/FCFS", None)
    assert sim.step(100) is False
    with pytest.raises(fairsim.InternalError, match="deliberate panic for tests"):
        sim._panic_for_tests()
    for call in (lambda: sim.step(100), sim.report_json):
        with pytest.raises(fairsim.InternalError, match="cannot go on"):
            call()
    assert capfd.readouterr().err == ""
    # other simulations are unaffected
    other = _core.loads(SMALL, "small.toml").simulation("G/FCFS", None)
    assert other.step(10**9) is True


# The command line, in a real process, with its run replaced by a deliberate panic.
PANICKING_CLI = """
import sys
import fairsim._core
import fairsim.cli
fairsim.cli.run = lambda *a, **k: fairsim._core._panic_for_tests("deliberate panic for tests")
sys.argv = ["fairsim", *sys.argv[1:]]
fairsim.cli.main()
"""


def cli_with_a_panic(path, **env):
    return subprocess.run(
        [sys.executable, "-c", PANICKING_CLI, "run", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


def test_the_cli_reports_a_panic_as_an_internal_error(small_path):
    r = cli_with_a_panic(small_path)
    assert r.returncode == 1, r.stderr
    assert "internal error" in r.stderr and "deliberate panic for tests" in r.stderr
    assert "This is a bug in fairsim" in r.stderr
    assert "panicked at" not in r.stderr and "Traceback" not in r.stderr and "backtrace" not in r.stderr


def test_fairsim_debug_shows_rusts_own_report(small_path):
    r = cli_with_a_panic(small_path, FAIRSIM_DEBUG="1")
    assert r.returncode == 1
    assert "panicked at" in r.stderr and "deliberate panic for tests" in r.stderr
