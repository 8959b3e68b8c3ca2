"""Bad input on the command line and through the API: a clear message naming the file, line and
field (or the option as typed), exit code 2, never a traceback, a hang or "internal error"."""

import subprocess
import sys

import pytest

from conftest import SMALL

FAIRSIM = [sys.executable, "-m", "fairsim.cli"]
BUG_SIGNS = ("Traceback", "panicked", "internal error", "This is a bug")


def fairsim(*args, cwd=None, prelude: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    """`fairsim ARGS` in a process of its own; `prelude` is Python run before the CLI starts."""
    command = FAIRSIM
    if prelude:
        command = [
            sys.executable,
            "-c",
            f"{prelude}\nimport sys\nfrom fairsim.cli import main\nsys.exit(main())",
        ]
    return subprocess.run(
        [*command, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


def rejected(r: subprocess.CompletedProcess, *expected: str) -> str:
    """Asserts that `r` refused its input cleanly (exit 2) with each of `expected` in its message."""
    message = r.stderr
    assert r.returncode == 2, f"exit code {r.returncode}\n{r.stdout}\n{r.stderr}"
    for sign in BUG_SIGNS:
        assert sign not in message, message
    flat = " ".join(message.split())
    for text in expected:
        assert text in message or text in flat, f"{text!r} not in:\n{message}"
    return message


# --- 1. messages keep their square brackets ------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_a_missing_path_with_brackets_is_named_whole(command, tmp_path):
    (tmp_path / "runs[old]").mkdir()
    rejected(fairsim(command, "runs[old]/x.toml", cwd=tmp_path), "runs[old]/x.toml")


@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_an_error_in_a_path_with_brackets_is_named_whole(command, tmp_path):
    (tmp_path / "runs[old]").mkdir()
    (tmp_path / "runs[old]" / "x.toml").write_text(SMALL + "bogus = 1\n")
    rejected(fairsim(command, "runs[old]/x.toml", cwd=tmp_path), "runs[old]/x.toml:", "pairs.bogus")


def test_the_dask_hint_names_the_extra():
    """Without dask.distributed, the hint is `pip install 'fairsim[dask]'`, brackets and all."""
    r = fairsim(
        "sweep",
        "examples/dumbbell",
        "--axis",
        "links.bottleneck.buffer=5,10",
        "--dask",
        "tcp://127.0.0.1:1",
        prelude="import sys; sys.modules['distributed'] = None",
    )
    rejected(r, "pip install 'fairsim[dask]'")


def test_an_override_with_brackets_is_echoed_whole(small_path):
    r = fairsim("validate", small_path, "--set", "flows.ftp.window=[1, 2]")
    rejected(r, "[1, 2]")


def test_names_with_brackets_show_in_validate_and_run(tmp_path):
    text = SMALL.replace("ftp = {", '"ftp[1]" = {').replace('name = "small"', 'name = "small[x]"')
    path = tmp_path / "s[1].toml"
    path.write_text(text)
    r = subprocess.run([*FAIRSIM, "validate", path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"{path} — small[x]" in r.stdout, r.stdout
    assert "ftp[1]" in r.stdout, r.stdout
    r = subprocess.run(
        [*FAIRSIM, "run", path, "--pair", "G/FCFS", "--out", tmp_path / "out[1]", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "ftp[1]" in r.stdout and "small[x]" in r.stdout, r.stdout
    assert f"to {tmp_path / 'out[1]'}" in r.stderr, r.stderr


def test_markup_escape_is_used_where_messages_are_printed():
    """The CLI's own escaping (a backslash before each `[`) lost a backslash that came before a
    bracket; rich's does not."""
    from rich.console import Console

    from fairsim.cli import _escape

    console = Console(width=200, highlight=False)
    for text in ("runs[old]/x.toml", "a\\[b]", "[bold]not bold[/]", "C:\\[x]\\y"):
        with console.capture() as c:
            console.print(f"[bold red]error[/]: {_escape(text)}")
        assert c.get() == f"error: {text}\n"
