"""The regression corpus (tests/scenarios/malformed/): every malformed scenario fails cleanly,
and every valid one that once crashed or hung runs, through the command line and the API.

Each input runs in a process of its own with its address space capped (`api_worker`), so an
allocation abort, a signal or a hang fails its test instead of killing pytest. A case's header
says what to expect: `# exit:` (2 unless given), `# expect:` (text the message must contain),
`# field:`, `# line:` (`none` when the message has no line), and for cases that must run,
`# max_events:` (the run must end within that many events, so a hang is not traded for events).
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from api_worker import ApiWorker, limit_memory

from conftest import CORPUS, MALFORMED, header

VALID = [p for p in CORPUS if p not in MALFORMED]

# what a bug looks like in a message: Python's and Rust's crash reports, and the CLI's own
BUG_SIGNS = ("Traceback", "panicked", "internal error", "RUST_BACKTRACE", "This is a bug")


def fairsim(command: str, path, timeout: float = 60) -> subprocess.CompletedProcess:
    quiet = {"run": ["--no-progress"], "sweep": ["--dry-run"]}.get(command, [])
    return subprocess.run(
        [sys.executable, "-m", "fairsim.cli", command, str(path), *quiet],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
        preexec_fn=limit_memory,
    )


@pytest.fixture(scope="module")
def api():
    with ApiWorker(timeout=60) as worker:
        yield worker


def assert_clean_rejection(message: str, file: str, line: str = "none", field: str = "", expect: str = ""):
    """A message for bad input: names the file (and line and field), says what is wrong, and
    shows no sign of a crash."""
    message = message.replace("\n", " ")
    for sign in BUG_SIGNS:
        assert sign not in message, message
    assert file in message, message
    if line != "none":
        assert f"{file}:{line}" in message, message
    assert field in message, message
    assert expect in message, message


def expectations(path: Path) -> dict:
    return {key: header(path, key) for key in ("line", "field", "expect")}


def commands(path: Path) -> list[str]:
    """What a case is fed to: `validate` and `run`, or (`# commands: sweep`) a description in its
    `[sweep]` table that `fairsim sweep --dry-run` must refuse, the scenario itself being valid."""
    return header(path, "commands", "validate run").split()


def is_sweep(path: Path) -> bool:
    return commands(path) == ["sweep"]


FED = [(p, c) for p in MALFORMED for c in commands(p)]


@pytest.mark.parametrize("path, command", FED, ids=[f"{p.stem}-{c}" for p, c in FED])
@pytest.mark.slow
def test_cli_rejects_with_exit_2(path, command):
    r = fairsim(command, path)
    assert r.returncode == 2, f"exit code {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert_clean_rejection(r.stderr, str(path), **expectations(path))


@pytest.mark.parametrize("path", MALFORMED, ids=[p.stem for p in MALFORMED])
def test_api_raises_a_fairsim_error(path, api):
    outcome = api.check(str(path), sweep=is_sweep(path))
    assert outcome.kind == "rejected", outcome
    assert outcome.type in ("ScenarioError", "FairsimError", "SweepError"), outcome
    assert_clean_rejection(outcome.message, str(path), **expectations(path))


RUST_TYPES = re.compile(r"\bstruct \w+|\b[uif](8|16|32|64|size)\b")


@pytest.mark.parametrize("path", MALFORMED, ids=[p.stem for p in MALFORMED])
def test_messages_name_no_rust_types(path, api):
    """A user reads "expected a table" or "a whole number", not `struct RawRun` or `u32`."""
    message = api.check(str(path), sweep=is_sweep(path)).message
    assert not RUST_TYPES.search(message), message


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
@pytest.mark.slow
def test_formerly_crashing_scenarios_run(path, api):
    for command in ("validate", "run"):
        r = fairsim(command, path)
        assert r.returncode == 0, f"fairsim {command}: exit code {r.returncode}\n{r.stderr}"
        assert not any(sign in r.stderr for sign in BUG_SIGNS), r.stderr
    max_events = int(header(path, "max_events"))
    outcome = api.check(str(path), steps=1, events=max_events)
    assert outcome.kind == "ok", outcome
    assert outcome.done, f"the runs did not end within {max_events} events"


def _unreadable(tmp: Path) -> Path:
    path = tmp / "unreadable.toml"
    path.write_text("nodes = []\n")
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads it anyway
        pytest.skip("this user can read a file of mode 000")
    return path


def _through_a_file(tmp: Path) -> Path:
    (tmp / "a_file").write_text("")
    return tmp / "a_file" / "scenario.toml"


# paths that are not a readable scenario file: (path made in a temporary folder, message)
PATHS = {
    "directory": (lambda tmp: tmp, "is a directory"),
    "missing": (lambda tmp: tmp / "missing.toml", "no such file"),
    # must not run the bundled examples/dumbbell, whose file name it shares
    "missing_with_a_bundled_name": (lambda tmp: Path("/nonexistent/dir/dumbbell.toml"), "no such file"),
    "missing_relative_with_a_bundled_name": (lambda tmp: Path("nonexistent/dumbbell.toml"), "no such file"),
    "through_a_file": (_through_a_file, ""),
    "unreadable": (_unreadable, "cannot read"),
    "name_too_long": (lambda tmp: tmp / ("x" * 5000 + ".toml"), ""),
}


@pytest.mark.parametrize("name", PATHS)
def test_paths_that_are_no_scenario_file(name, tmp_path, api):
    make, expect = PATHS[name]
    path = str(make(tmp_path))
    for command in ("validate", "run"):
        r = fairsim(command, path)
        assert r.returncode == 2, f"fairsim {command}: exit code {r.returncode}\n{r.stderr}"
        assert_clean_rejection(r.stderr, path, expect=expect)
    outcome = api.check(path)
    assert outcome.kind == "rejected" and outcome.type == "FairsimError", outcome
    assert_clean_rejection(outcome.message, path, expect=expect)


def test_the_corpus_covers_issue_10():
    """At least 40 malformed cases beyond the 21 that came before, and every kind named."""
    assert len(MALFORMED) >= 61
    names = " ".join(p.stem for p in CORPUS)
    for kind in (
        "syntax",
        "type",
        "unknown",
        "bad_unit",
        "negative",
        "zero",
        "nan",
        "inf",
        "huge",
        "duplicate",
        "encoding",
    ):
        assert kind in names, kind


def test_overrides_reach_names_with_an_equals_sign(api):
    """The bundled pair `"FQ delta=0"` can be overridden like any other (the fuzzer found that
    `--set` split the key at the `=` inside its quotes)."""
    outcome = api.check("dks89/fig1_telnet_delay", ['pairs."FQ delta=0".qdisc=fcfs'], steps=1, events=1)
    assert outcome.kind == "ok", outcome


def test_errors_stay_short_whatever_the_input(api):
    """Ten thousand duplicate nodes are one problem, not a message that repeats the override and
    every node name for each of them (the fuzzer found 500 MB of text and a 10 s "hang")."""
    outcome = api.check("examples/dumbbell", ["nodes=" + json.dumps(["x"] * 10_000)])
    assert outcome.kind == "rejected", outcome.kind
    assert len(outcome.message) < 100_000, f"{len(outcome.message):,} characters"
