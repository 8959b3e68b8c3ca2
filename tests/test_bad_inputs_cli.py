"""Bad input on the command line and through the API: a clear message naming the file, line and
field (or the option as typed), exit code 2, never a traceback, a hang or "internal error"."""

import os
import subprocess
import sys
from pathlib import Path

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


# --- 2. an --out folder that cannot be made ------------------------------------------------------


def _under_a_file(tmp: Path) -> tuple[str, str]:
    (tmp / "a_file").write_text("kept\n")
    return str(tmp / "a_file" / "out"), "a_file"


def _read_only(tmp: Path) -> tuple[str, str]:
    folder = tmp / "read_only"
    folder.mkdir()
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):
        pytest.skip("this user can write into a folder of mode 555")
    return str(folder / "out"), "permission denied"


# an --out that cannot be made: (the folder, made in a temporary folder; what the message says)
UNWRITABLE = {
    "under_a_file": _under_a_file,
    "read_only": _read_only,
    "proc": lambda tmp: ("/proc/fairsim-out", "cannot create"),
    "dev_null": lambda tmp: ("/dev/null", "not a folder"),
}

RUN_OPTIONS = {
    "tables": [],
    "pcap": ["--pcap", "gw->b"],
    "events": ["--events", "gw->b"],
}


@pytest.mark.parametrize("options", RUN_OPTIONS)
@pytest.mark.parametrize("where", UNWRITABLE)
def test_run_refuses_an_out_folder_it_cannot_make(where, options, small_path, tmp_path):
    out, reason = UNWRITABLE[where](tmp_path)
    r = fairsim("run", small_path, "--out", out, *RUN_OPTIONS[options], "--no-progress")
    message = rejected(r, f"--out {out}")
    assert reason in message.lower(), message
    assert "G/FCFS" not in r.stdout, "the runs started before the folder was checked"
    if where == "under_a_file":
        assert (tmp_path / "a_file").read_text() == "kept\n"


@pytest.mark.parametrize("where", UNWRITABLE)
def test_sweep_refuses_an_out_folder_it_cannot_make(where, small_path, tmp_path):
    out, reason = UNWRITABLE[where](tmp_path)
    r = fairsim("sweep", small_path, "--axis", "flows.ftp.window=2,3", "--out", out, "--no-progress")
    message = rejected(r, f"--out {out}")
    assert reason in message.lower(), message


def test_run_leaves_no_folder_when_the_input_is_refused(small_path, tmp_path):
    """The folder is checked before the runs, and not left behind by a run that never started."""
    out = tmp_path / "new" / "out"
    rejected(fairsim("run", small_path, "--out", out, "--pair", "G/NOPE", "--no-progress"), "G/NOPE")
    assert not (tmp_path / "new").exists()


def test_run_keeps_what_the_folder_held(small_path, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    r = fairsim("run", small_path, "--out", out, "--pair", "G/FCFS", "--no-progress")
    assert r.returncode == 0, r.stderr
    assert (out / "notes.txt").read_text() == "mine\n"
    assert (out / "flows.csv").exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".")], list(out.iterdir())


def test_check_folder_names_a_folder_it_may_not_write(tmp_path, monkeypatch):
    """A read-only folder (root writes anyway, so the refusal is made up here)."""
    import fairsim
    from fairsim.output import check_folder

    def refuse(*args, **kw):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(
        fairsim.FairsimError, match=r"^--out x/y: cannot create the folder .*Permission denied"
    ):
        check_folder(tmp_path / "x" / "y", "--out x/y")
    monkeypatch.undo()
    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.raises(fairsim.FairsimError, match=r"cannot write into the folder .*Permission denied"):
        check_folder(tmp_path / "x" / "y", "--out x/y")
    assert not (tmp_path / "x").exists(), "the folders it made to find out are removed"


def test_a_file_that_cannot_be_written_is_named(small_path, tmp_path):
    """`flows.csv` taken by a folder: the run's other files are written, the error names it."""
    import fairsim
    from fairsim.output import write_results

    out = tmp_path / "out"
    (out / "flows.csv").mkdir(parents=True)
    (out / "flows.csv" / "mine.txt").write_text("mine\n")
    results = fairsim.run(small_path, pair="G/FCFS", progress=False)
    with pytest.raises(fairsim.FairsimError, match=r"flows\.csv: cannot write"):
        write_results(results, out)
    assert (out / "flows.csv" / "mine.txt").read_text() == "mine\n"
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_reproduce_refuses_an_out_folder_it_cannot_make(tmp_path):
    out, reason = _under_a_file(tmp_path)
    message = rejected(fairsim("reproduce", "dks89", "--quick", "--out", out), f"--out {out}")
    assert reason in message
