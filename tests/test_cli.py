"""The command line, run as a user runs it: real processes, real exit codes."""

import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import MALFORMED, busy_for, ctrl_c_able, header

FAIRSIM = [sys.executable, "-m", "fairsim.cli"]


def fairsim(*args, **kw):
    return subprocess.run([*FAIRSIM, *map(str, args)], capture_output=True, text=True, timeout=120, **kw)


def interrupted(*args, cpu_s: float = 2.0) -> tuple[int, str, str]:
    """Runs `fairsim ARGS`, sends it Ctrl-C (SIGINT) once it has worked `cpu_s` seconds of CPU,
    returns what it did."""
    proc = subprocess.Popen(
        [*FAIRSIM, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_able,
    )
    busy_for(proc, cpu_s)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=600)  # a guard against a hang, not a deadline
    return proc.returncode, stdout, stderr


def test_run_prints_a_table_per_pair(small_path):
    r = fairsim("run", small_path)
    assert r.returncode == 0, r.stderr
    assert "pair G/FCFS" in r.stdout and "pair G/RD" in r.stdout
    assert "Jain's fairness index" in r.stdout and "goodput pkt/s" in r.stdout


def test_run_json_is_one_document_on_stdout(small_path):
    r = fairsim("run", small_path, "--json", "--pair", "G/RD", "--seed", "9", "--set", "flows.ftp.window=3")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == "fairsim.run/2"
    assert [(x["pair"], x["seed"]) for x in doc["runs"]] == [("G/RD", 9)]
    assert doc["runs"][0]["flows"][0]["transport_params"]["window"] == 3
    assert doc["scenario"]["overrides"] == ["flows.ftp.window=3"]


def test_out_writes_tables_json_and_resolved_scenarios(small_path, tmp_path):
    out = tmp_path / "res"
    r = fairsim("run", small_path, "--out", out, "--pair", "G/FCFS")
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        [
            "fairness.csv",
            "flows.csv",
            "intervals.csv",
            "queue_intervals.csv",
            "queues.csv",
            "run.json",
            "scenario.G_FCFS.seed3.toml",
        ]
    )
    # the resolved scenario runs on its own and gives the same numbers
    again = fairsim("run", out / "scenario.G_FCFS.seed3.toml", "--json")
    first = json.loads((out / "run.json").read_text())["runs"][0]["flows"]
    second = json.loads(again.stdout)["runs"][0]["flows"]
    assert [f["totals"] for f in first] == [f["totals"] for f in second]


def test_parquet_output(small_path, tmp_path):
    pd = pytest.importorskip("pandas")
    r = fairsim("run", small_path, "--out", tmp_path, "--format", "parquet", "--pair", "G/RD")
    assert r.returncode == 0, r.stderr
    df = pd.read_parquet(tmp_path / "intervals.parquet")
    assert {"flow", "interval", "delivered", "goodput_pps"} <= set(df.columns)


# the cases `fairsim run` refuses (not those of a `[sweep]` table, header `# commands: sweep`)
RUN_MALFORMED = [p for p in MALFORMED if "run" in header(p, "commands", "validate run").split()]


@pytest.mark.parametrize("path", RUN_MALFORMED, ids=[p.stem for p in RUN_MALFORMED])
def test_malformed_scenarios_exit_2_naming_file_line_and_field(path, tmp_path):
    out = tmp_path / "keep"
    out.mkdir()
    (out / "earlier.csv").write_text("kept\n")
    r = fairsim("run", path, "--out", out)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    line = header(path, "line")
    where = f"{path}:{line}" if line != "none" else str(path)
    assert where in r.stderr, r.stderr
    assert header(path, "expect") in r.stderr.replace("\n", " ")
    assert (out / "earlier.csv").read_text() == "kept\n", "nothing already written is lost"
    assert sorted(p.name for p in out.iterdir()) == ["earlier.csv"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "/no/such.toml"], "/no/such.toml: no such file"),
        (["run", "{small}", "--pair", "X"], "no pair `X`"),
        (["run", "{small}", "--set", "oops"], "KEY=VALUE"),
        (["run", "{small}", "--set", "links.out.rate=fast"], "(from --set links.out.rate=fast)"),
        (["validate", "{small}", "--set", "run.duration.x=1"], "is not a table"),
        (["run", "{small}", "--jobs", "0"], "Invalid value"),
    ],
)
def test_bad_requests_exit_2_with_a_message(small_path, args, message):
    r = fairsim(*[a.format(small=small_path) for a in args])
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr.replace("\n", " ")
    assert "Traceback" not in r.stderr


def test_validate_shows_how_each_pair_resolves(small_path):
    r = fairsim("validate", small_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok:")
    assert "pair G/RD: queues" in r.stdout and "random_drop" in r.stdout
    assert "a → gw → b" in r.stdout


def test_validate_shows_each_resolved_transport_once(small_path):
    flows = [f'--set=flows.ftp{i}={{src="a", dst="b", app="ftp", transport="cubic"}}' for i in range(10)]
    r = fairsim("validate", small_path, *flows)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("cubic [T2]") == 10 * 2 and "pair G/FCFS: transports" in r.stdout  # T1: generic
    assert r.stdout.count("c=0.4") == len(fairsim_pairs(small_path)), "one line of parameters per pair"
    assert "ftp0, ftp1, ftp2 and 7 more" in r.stdout


def fairsim_pairs(path) -> list[str]:
    import fairsim as api

    return api.load(path).pairs


def test_a_setting_another_keeps_from_taking_effect_is_refused_at_its_place(tmp_path):
    """`min_rto = "1ms"` under the linux stack's 200 ms clock granularity would change nothing
    (every timeout stays above 200 ms): refused, naming the file, line, field and both values."""
    path = tmp_path / "rto.toml"
    path.write_text(
        'nodes = ["a", "b"]\n[run]\nduration = "1s"\n[links]\nl = { between = ["a", "b"], rate = "1Gbps" }\n'
        "[flows]\n"
        'f = { src = "a", dst = "b", app = "ftp", transport = { kind = "dctcp", min_rto = "1ms" } }\n'
    )
    r = fairsim("validate", path)
    assert r.returncode == 2, r.stderr
    message = r.stderr.replace("\n", " ")
    assert "rto.toml:7:" in message and "flows.f.transport.min_rto" in message, message
    assert "min_rto (1ms) cannot take effect" in message and "clock_granularity (200ms)" in message
    fixed = path.read_text().replace('min_rto = "1ms"', 'min_rto = "1ms", clock_granularity = "1ms"')
    path.write_text(fixed)
    assert fairsim("validate", path).returncode == 0


def test_list_names_disciplines_transports_apps_and_bundled_scenarios():
    r = fairsim("list")
    assert r.returncode == 0, r.stderr
    for word in [
        "fcfs",
        "random_drop",
        "generic",
        "firehose",
        "onoff",
        "examples/dumbbell",
        "examples/parking_lot",
    ]:
        assert word in r.stdout


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs POSIX signals and /proc")
@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_keeps_partial_results(tmp_path):
    out = tmp_path / "partial"
    returncode, stdout, stderr = interrupted(
        "run", "examples/dumbbell", "--pair", "G/FCFS", "--set", "run.duration=50000s", "--out", out
    )
    assert returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    doc = json.loads((out / "run.json").read_text())
    assert doc["complete"] is False
    assert 0 < doc["runs"][0]["simulated_s"] < 50000
    assert (out / "intervals.csv").exists()
    assert "interrupted at" in stdout


# The command line, in a real process, with its run replaced by an import that a C extension
# fails with an error of its own when Ctrl-C lands in it (pandas did: `PyCapsule_Import could not
# import module "pandas"`, the KeyboardInterrupt gone). `raise_signal` delivers Ctrl-C before
# the next instruction: no timing is involved.
CTRL_C_IN_AN_IMPORT = """
import signal
import sys
import fairsim.cli

def an_import(*a, **k):
    if {interrupt}:
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            pass  # what the extension does with it
    raise ImportError('PyCapsule_Import could not import module "pandas"')

fairsim.cli.run = an_import
sys.argv = ["fairsim", *sys.argv[1:]]
fairsim.cli.main()
"""


@pytest.mark.parametrize("interrupt", [True, False])
def test_ctrl_c_that_an_extension_turns_into_an_import_error_is_an_interrupt(small_path, interrupt):
    r = subprocess.run(
        [sys.executable, "-c", CTRL_C_IN_AN_IMPORT.format(interrupt=interrupt), "run", str(small_path)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=ctrl_c_able,
    )
    if interrupt:
        assert r.returncode == 130, r.stderr
        assert "interrupted" in r.stderr and "internal error" not in r.stderr
    else:  # the same error without Ctrl-C is a bug, and said to be one
        assert r.returncode == 1, r.stderr
        assert "internal error" in r.stderr and "PyCapsule_Import" in r.stderr
    assert "Traceback" not in r.stderr
