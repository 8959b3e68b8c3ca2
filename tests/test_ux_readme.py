"""The README's examples run as written: the tour's commands and the Python snippet."""

import re
import shlex
import warnings

import pytest
from test_cli import fairsim as cli

import fairsim

from conftest import ROOT

README = (ROOT / "README.md").read_text()


def block(language: str) -> str:
    return re.search(rf"## A tour.*?```{language}\n(.*?)```", README, re.S).group(1)


@pytest.mark.slow
def test_python_snippet_runs_without_warnings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # bundled names work from anywhere
    with warnings.catch_warnings():
        warnings.simplefilter("error", fairsim.FairsimWarning)
        exec(block("python"), {})


def tour() -> list[list[str]]:
    """The tour's commands that finish in a few seconds, as argument lists (no redirections)."""
    commands = []
    for line in block("sh").splitlines():
        command = shlex.split(line.split("  #", 1)[0])
        if command[:2] == ["fairsim", "reproduce"] and "--list" not in command:
            continue  # reproductions have their own tests
        if "--dask" in command:
            continue  # needs a cluster: test_sweep_dask.py runs one
        if command[0] == "mkdir":
            continue  # the folder the tour writes in: each test runs in a temporary one
        commands.append([c for c in command[1:] if c not in (">", "tour/results.json")])
    return commands


@pytest.mark.parametrize("args", tour(), ids=lambda a: " ".join(a)[:60])
@pytest.mark.slow
def test_tour_commands_succeed(args, tmp_path):
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    (tmp_path / "tour").mkdir()
    r = cli(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scenarios", "tour"], "the tour writes under tour/"


def test_tour_comments_name_the_pairs_that_run():
    """A comment such as `FCFS vs Random Drop` names exactly the disciplines of the file's pairs."""
    names = {"RD": "Random Drop"}
    checked = 0
    for line in block("sh").splitlines():
        command, _, comment = line.partition("  #")
        if not command.startswith("fairsim"):
            continue
        versus = next((part for part in comment.split(",") if " vs " in part), None)
        if versus is None:
            continue
        named = [name.strip() for name in versus.split(":")[0].split(" vs ")]
        pairs = fairsim.load(shlex.split(command)[2]).pairs
        assert sorted(named) == sorted(names.get(p.split("/")[1], p.split("/")[1]) for p in pairs), line
        checked += 1
    assert checked == 2
