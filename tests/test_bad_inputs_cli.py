"""Bad input on the command line and through the API: a clear message naming the file, line and
field (or the option as typed), exit code 2, never a traceback, a hang or "internal error"."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


# --- 3. sweep ranges: a clear AxisError, quickly, whatever the numbers -----------------------------

BAD_RANGES = {
    "1..1000:log²": "`log²`: give the number of points",
    "1..1000:log" + "9" * 5000: "more than 100,000 points",
    "1..10:*NaN": "factor",
    "1..10:*Infinity": "factor",
    "1..10:*inf": "factor",
    "1..10:*1_000": "factor",
    "1..2:1e-999999999": "the step `1e-999999999` is too small",
    "1e999999999..2:1": "the range's start `1e999999999` is too large",
    "1..1e999999999:1": "the range's end `1e999999999` is too large",
    "1..2:*1e999999999": "the factor `*1e999999999` is too large",
    "1..1e999999999:*2": "too large",
    "1e-999999999..1:*2": "too small",
    "1..1e99999:log3": "too large",
    "-1e999999999..1e999999999:1e999999990": "too large",
    "1e-999999999..1e-999999998:1e-999999999": "too small",
    "1..2:1e-29": "more than 100,000 points",
    "1..2:*1.0000000000000000000001": "more than 100,000 points",
    "1e-30..1e30:*1.0001": "more than 100,000 points",
    "5..100": "has no step",
    "5ms..100ms": "has no step",
    "5..100:": "has no step",
    "5..100,200": "has no step",
    "1e999999999": "too large",
    "5,1e999999999": "too large",
    "1e999999999Mbps": "too large",
    "[" * 10_000: "cannot read the list",
}


@pytest.mark.parametrize("text", BAD_RANGES, ids=lambda t: t[:40])
def test_bad_ranges_give_an_axis_error_quickly(text):
    import time

    from fairsim.sweeps.axes import AxisError, values_from_text

    started = time.monotonic()
    with pytest.raises(AxisError, match=re.escape(BAD_RANGES[text])):
        values_from_text(text)
    assert time.monotonic() - started < 2


def test_good_ranges_still_work():
    from fairsim.sweeps.axes import values_from_text

    def texts(spec):
        return [v.text for v in values_from_text(spec)]

    assert texts("1e-30..3e-30:1e-30") == [
        "0.000000000000000000000000000001",
        *[f"0.{'0' * 29}{d}" for d in "23"],
    ]
    assert texts("1..1e30:*1e10") == ["1", "10000000000", "100000000000000000000", "1" + "0" * 30]
    assert texts("1..2:*1.5") == ["1", "1.5"]
    assert texts("0..0.2:0.1") == ["0", "0.1", "0.2"]
    assert texts("5..100:95") == ["5", "100"]
    assert [v.column for v in values_from_text("1e30")] == [10**30]


def test_a_stepless_range_in_the_file_is_named(tmp_path):
    import fairsim

    path = tmp_path / "s.toml"
    path.write_text(SMALL + '\n[sweep.axes]\n"flows.ftp.window" = "2..8"\n')
    with pytest.raises(fairsim.FairsimError, match=r"s\.toml:\d+:\d+: sweep\.axes.*has no step"):
        fairsim.sweeps.make_sweep_plan(str(path))


@pytest.mark.parametrize("values", ["1..1000:log²", "1..2:*1e999999999", "5..100", "1..10:*NaN"])
def test_the_cli_names_the_axis_option_as_typed(values, small_path):
    r = fairsim("sweep", small_path, "--axis", f"flows.ftp.window={values}", "--dry-run", timeout=60)
    rejected(r, f"--axis flows.ftp.window={values}:")


NUMBER = st.one_of(
    st.sampled_from(["0", "1", "-1", "1e999999999", "1e-999999999", "NaN", "inf", "Infinity", "1_0", ""]),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.integers().map(str),
    st.floats().map(str),
    st.builds(lambda m, e: f"{m}e{e}", st.integers(-9, 9), st.integers(-(10**10), 10**10)),
)
UNIT = st.sampled_from(["", "ms", "s", "Mbps", "kbps", "B", "KiB", "p", "x", "²"])
RANGE = st.builds(
    lambda a, ua, b, ub, kind, c, uc: f"{a}{ua}..{b}{ub}:{kind}{c}{uc}",
    NUMBER,
    UNIT,
    NUMBER,
    UNIT,
    st.sampled_from(["", "*", "log", "log-"]),
    NUMBER,
    UNIT,
)


@settings(max_examples=400, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=60), RANGE, st.lists(NUMBER, min_size=1, max_size=4).map(",".join)))
@pytest.mark.slow
def test_any_axis_text_gives_values_or_an_axis_error_quickly(text):
    from fairsim.sweeps.axes import AxisError, values_from_text

    try:
        values = values_from_text(text)
    except AxisError as e:
        assert str(e) and "Traceback" not in str(e)
        return
    assert values and all(isinstance(v.text, str) for v in values)
    assert len(values) <= 100_001


# --- 4. a file that starts with a UTF-8 byte-order mark ------------------------------------------

BOM = b"\xef\xbb\xbf"
SWEEP_TABLE = '\n[sweep]\nseeds = 1\npairs = ["G/FCFS"]\n[sweep.axes]\n"flows.ftp.window" = [2, 3]\n'


@pytest.fixture
def bom_path(tmp_path: Path) -> Path:
    path = tmp_path / "bom.toml"
    path.write_bytes(
        BOM
        + (
            SMALL.replace('duration = "300s"', 'duration = "20s"').replace('"60s"', '"5s"') + SWEEP_TABLE
        ).encode()
    )
    return path


@pytest.mark.slow
def test_validate_run_and_sweep_read_a_file_with_a_bom(bom_path, tmp_path):
    r = fairsim("validate", bom_path)
    assert r.returncode == 0, r.stderr
    r = fairsim("run", bom_path, "--pair", "G/FCFS", "--no-progress")
    assert r.returncode == 0, r.stderr
    r = fairsim("sweep", bom_path, "--dry-run")
    assert r.returncode == 0, r.stderr
    r = fairsim("sweep", bom_path, "--out", tmp_path / "sweep", "--no-progress", "-j", "1")
    assert r.returncode == 0, r.stderr
    assert "2 runs ran" in r.stderr


def test_the_api_reads_a_file_with_a_bom(bom_path, tmp_path):
    import fairsim
    from fairsim.sweeps import make_sweep_plan

    data = bom_path.read_bytes()
    for sc in (fairsim.load(bom_path), fairsim.loads(data), fairsim.loads(data.decode())):
        assert sc.name == "small"
        assert not sc.text.startswith("\ufeff")
        assert len(make_sweep_plan(sc).points) == 2
    assert len(make_sweep_plan(str(bom_path)).points) == 2
    results = fairsim.sweep(bom_path, out=tmp_path / "sweep", jobs=1, progress=False)
    assert len(results.runs) == 2


def test_a_bom_does_not_move_the_lines_of_messages(tmp_path):
    """The same line and column with the mark as without it, from the engine and from [sweep]."""
    import fairsim
    from fairsim.sweeps import make_sweep_plan

    bad_window = SMALL + SWEEP_TABLE.replace("[2, 3]", '"5..100"')
    messages = []
    for prefix in (b"", BOM):
        path = tmp_path / f"s{len(prefix)}.toml"
        path.write_bytes(prefix + bad_window.encode())
        with pytest.raises(fairsim.FairsimError) as e:
            make_sweep_plan(str(path))
        messages.append(str(e.value).replace(path.name, "FILE"))
        path.write_bytes(prefix + SMALL.replace("buffer = 8", "buffer = -8").encode())
        with pytest.raises(fairsim.FairsimError) as e:
            fairsim.load(path)
        messages.append(str(e.value).replace(path.name, "FILE"))
    assert messages[:2] == messages[2:]
    assert "FILE:16:65:" in messages[1], messages[1]


# --- 5. --dask with an address that is none ---------------------------------------------------------

BAD_ADDRESSES = {
    "not an address": "not a scheduler's address",
    "tcp://": "not a scheduler's address",
    "tcp://host:notaport": "not a scheduler's address",
    "http://host:8786": "not a scheduler's address",
    "tcp://[::1": "not a scheduler's address",
    "tcp://host:99999": "port",
    "tcp://:8786": "not a scheduler's address",
    "inproc://x": "not a scheduler's address",
    "": "give the scheduler's address",
    "  ": "give the scheduler's address",
}


@pytest.mark.parametrize("address", BAD_ADDRESSES)
def test_sweep_refuses_a_dask_address_that_is_none(address, small_path, tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "out"
    r = fairsim(
        "sweep", small_path, "--axis", "flows.ftp.window=2,3", "--dask", address, "--out", out, timeout=30
    )
    message = rejected(r, f"--dask {address}".rstrip(), BAD_ADDRESSES[address])
    assert "runs ran" not in message, "it ran locally"
    assert not out.exists()


def test_reproduce_refuses_an_empty_dask_address(tmp_path):
    r = fairsim("reproduce", "dks89", "--quick", "--dask", "", "--out", tmp_path / "out", timeout=30)
    rejected(r, "--dask", "give the scheduler's address")


def test_a_dry_run_checks_the_dask_address(small_path):
    r = fairsim("sweep", small_path, "--axis", "flows.ftp.window=2,3", "--dask", "", "--dry-run", timeout=30)
    rejected(r, "--dask", "give the scheduler's address")


# --- 6. pcap and events in the file need a folder too ---------------------------------------------

SHORT = SMALL.replace('duration = "300s"', 'duration = "20s"').replace('"60s"', '"5s"')


@pytest.mark.parametrize("key, port", [("pcap", "gw->b"), ("events", "*")])
def test_run_refuses_captures_in_the_file_without_out(key, port, tmp_path):
    path = tmp_path / "captures.toml"
    path.write_text(SHORT.replace("seed = 3", f'seed = 3\n{key} = ["{port}"]'))
    assert fairsim("validate", path).returncode == 0, "the file itself is valid"
    r = fairsim("run", path, "--no-progress")
    rejected(r, f"{path}:13:1: run.{key}", "--out")
    assert "G/FCFS" not in r.stdout, "refused before the runs"
    r = fairsim("run", path, "--no-progress", "--json", "--pair", "G/FCFS")
    rejected(r, f"run.{key}", "--out")
    out = tmp_path / "out"
    r = fairsim("run", path, "--no-progress", "--pair", "G/FCFS", "--out", out)
    assert r.returncode == 0, r.stderr
    suffix = ".pcap" if key == "pcap" else ".events.txt"
    assert [p for p in out.iterdir() if p.name.endswith(suffix)]


def test_run_refuses_captures_set_without_out(small_path):
    r = fairsim("run", small_path, "--set", 'run.pcap=["gw->b"]', "--no-progress")
    rejected(r, '--set run.pcap=["gw->b"]', "--out")


def test_an_empty_capture_list_needs_no_folder(tmp_path):
    path = tmp_path / "none.toml"
    path.write_text(SHORT.replace("seed = 3", "seed = 3\npcap = []\nevents = []"))
    r = fairsim("run", path, "--no-progress", "--pair", "G/FCFS")
    assert r.returncode == 0, r.stderr


# --- 7. two --axis options over the same field, or of the same name --------------------------------


@pytest.mark.parametrize(
    "first, second",
    [
        ("flows.ftp.window=2,3", "flows.ftp.window=5,6"),
        ("flows.ftp.window=2,3", " flows.ftp.window =5,6"),
        ("w:flows.ftp.window=2,3", "flows.ftp.window=5,6"),
        ("flows.ftp.window+flows.telnet.window=2,3", "flows.ftp.window=5,6"),
        ("w:flows.ftp.window=2,3", "w:flows.telnet.window=5,6"),
    ],
)
def test_two_axes_over_one_field_or_name_are_refused(first, second, small_path):
    from fairsim.sweeps import file_spec
    from fairsim.sweeps.spec import SweepError, with_command_line

    sc = __import__("fairsim").load(small_path)
    with pytest.raises(SweepError) as e:
        with_command_line(file_spec(sc), [first, second])
    assert f"--axis {first}" in str(e.value) and f"--axis {second}" in str(e.value), str(e.value)
    r = fairsim("sweep", small_path, "--axis", first, "--axis", second, "--dry-run")
    rejected(r, f"--axis {first}", f"--axis {second}")


def test_one_axis_naming_a_field_twice_is_refused(small_path):
    r = fairsim("sweep", small_path, "--axis", "flows.ftp.window+flows.ftp.window=2,3", "--dry-run")
    rejected(r, "--axis flows.ftp.window+flows.ftp.window=2,3", "twice")


def test_a_command_line_axis_still_replaces_the_files(tmp_path):
    import fairsim
    from fairsim.sweeps import file_spec
    from fairsim.sweeps.spec import with_command_line

    path = tmp_path / "s.toml"
    path.write_text(SMALL + '\n[sweep.axes]\n"flows.ftp.window" = [2, 3]\n"flows.telnet.window" = [4]\n')
    spec = with_command_line(file_spec(fairsim.load(path)), ["flows.ftp.window=7,8,9"])
    axes = {a.fields: [v.text for v in a.values] for a in spec.axes}
    assert axes == {("flows.telnet.window",): ["4"], ("flows.ftp.window",): ["7", "8", "9"]}


# --- 8. what a range lacks, the unit meant, the ports of a link named as a port -------------------

MISSING_IN_RANGES = {
    "10Mbit..20Mbit": [
        "has no step",
        "its start `10Mbit` has an unknown unit `Mbit`; did you mean `10Mbit/s`?",
    ],
    "5..": ["the range `5..` has no end"],
    "..100": ["the range `..100` has no start"],
    "5..:2": ["the range `5..:2` has no end"],
    "10Mbps..20Mbit:1Mbps": ["the range's end `20Mbit` has an unknown unit `Mbit`; did you mean `20Mbit/s`?"],
    "10ms..1s:10msec": ["the step `10msec` has an unknown unit `msec`; did you mean `10ms`?"],
}


@pytest.mark.parametrize("text", MISSING_IN_RANGES)
def test_a_range_says_what_it_lacks_and_which_unit_was_meant(text):
    from fairsim.sweeps.axes import AxisError, values_from_text

    with pytest.raises(AxisError) as e:
        values_from_text(text)
    for expected in MISSING_IN_RANGES[text]:
        assert expected in str(e.value), str(e.value)


def test_the_cli_names_the_axis_and_what_its_range_lacks(small_path):
    r = fairsim("sweep", small_path, "--axis", "links.out.rate=10Mbit..20Mbit", "--dry-run")
    rejected(r, "--axis links.out.rate=10Mbit..20Mbit:", "has no step", "did you mean `10Mbit/s`?")


@pytest.mark.parametrize(
    "value, meant",
    [("10Mbit", "10Mbit/s"), ("10 Mbits", "10 Mbit/s"), ("64kbit", "64kbit/s"), ("10Mbs", "10Mbps")],
)
def test_a_unit_error_suggests_the_nearest_accepted_unit(value, meant):
    r = fairsim("validate", "examples/dumbbell", "--set", f"links.bottleneck.rate={value}")
    rejected(
        r, "links.bottleneck.rate:", f"did you mean `{meant}`?", f"(from --set links.bottleneck.rate={value})"
    )


@pytest.mark.parametrize("option", ["--pcap", "--events", "--trace-queue", "--gps"])
def test_a_link_named_where_a_port_is_expected_is_answered_with_its_two_ports(option, tmp_path):
    r = fairsim("run", "examples/dumbbell", option, "bottleneck", "--out", tmp_path / "out")
    rejected(
        r,
        "`bottleneck` is a link, not a port: name one of its two ports",
        "`left->right` or `right->left`",
        f"(from {option} bottleneck)",
    )
    assert not (tmp_path / "out").exists()
