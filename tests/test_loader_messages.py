"""The scenario loader's messages, as a user meets them from the command line and from Python:
overrides named as written (`--set` / `set=`), "did you mean" for every name looked up, syntax
errors at their cause, bytes that are not UTF-8."""

import subprocess
import sys
import tomllib

import pytest

import fairsim
from fairsim import _core

from conftest import SMALL


def fairsim_cli(*args):
    r = subprocess.run(
        [sys.executable, "-m", "fairsim.cli", *map(str, args)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2, r.stderr
    return " ".join(r.stderr.split())  # rich wraps long lines


def test_suggest_finds_likely_typos_only():
    assert _core.suggest("ftpp", ["ftp", "telnet"]) == "ftp"
    assert _core.suggest("G/FCF", ["G/FCFS", "G/RD"]) == "G/FCFS"
    assert _core.suggest("nowhere", ["a", "b"]) is None


def test_an_override_into_a_flow_that_does_not_exist_names_the_override(small_path):
    want = "flows.ftpp: no flow `ftpp`; did you mean `ftp`? (the flows are ftp, telnet, noise)"
    err = fairsim_cli("validate", small_path, "--set", "flows.ftpp.src=a")
    assert f"{small_path}: {want}" in err and "(from --set flows.ftpp.src=a)" in err, err
    with pytest.raises(fairsim.ScenarioError) as e:
        fairsim.load(small_path, set={"flows.ftpp.src": "a"})
    assert want in str(e.value) and "(from set= flows.ftpp.src=a)" in str(e.value)
    [d] = e.value.diagnostics
    assert (d["line"], d["from_override"], d["origin"]) == (None, "flows.ftpp.src=a", "set=")


def test_a_whole_table_adds_a_flow():
    sc = fairsim.loads(SMALL, set=['flows.new={ src = "b", dst = "a", app = "ftp" }'])
    assert sc.flows == ["ftp", "telnet", "noise", "new"]


@pytest.mark.parametrize(
    "option, value, want",
    [
        ("--trace", "telnett", "run.trace.0: unknown flow `telnett`; did you mean `telnet`?"),
        ("--trace-queue", "gw->bb", "run.trace_queues.0: unknown port `gw->bb`; did you mean `gw->b`?"),
        ("--gps", "gw-b", "run.fluid_reference.0: unknown port `gw-b`; did you mean `gw->b`?"),
        ("--set", "flows.ftp.windw=3", "unknown field `windw`; did you mean `window`?"),
        ("--set", "links.out.qdisc=fqq", "unknown discipline `fqq`; did you mean `fq`?"),
        ("--set", "flows.ftp.transport=renno", "unknown transport `renno`; did you mean `reno`?"),
        ("--set", 'pairs."G/RD".transports.telnt=reno', "unknown flow `telnt`; did you mean `telnet`?"),
    ],
)
def test_names_from_options_get_a_suggestion(small_path, option, value, want):
    err = fairsim_cli("run", small_path, "--no-progress", option, value)
    assert want in err
    if option != "--set":  # named as the option the user typed, not the override it became
        assert err.endswith(f"(from {option} {value})"), err


def test_an_override_may_name_a_pair_whose_name_holds_an_equals_sign():
    sc = fairsim.load("dks89/fig1_telnet_delay", set={'pairs."FQ delta=0".qdisc': "fcfs"})
    links = tomllib.loads(sc.resolved_toml("FQ delta=0"))["links"].values()
    assert {link[d]["qdisc"]["kind"] for link in links for d in ("forward", "reverse")} == {"fcfs"}


def test_messages_stay_short_for_thousands_of_problems(small_path):
    err = fairsim_cli("validate", small_path, "--set", "nodes=" + str(["x"] * 5000))
    assert "node `x` is declared 5000 times" in err
    assert len(err) < 20_000, f"{len(err):,} characters"


def test_a_reader_that_closes_the_pipe_is_no_error():
    lister = subprocess.Popen(
        [sys.executable, "-m", "fairsim.cli", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    lister.stdout.readline()
    lister.stdout.close()  # as `fairsim list | head -1` does
    assert lister.wait(timeout=60) in (0, 1)
    assert lister.stderr.read() == b""


def test_an_unclosed_array_is_reported_where_it_opens(small_path):
    small_path.write_text(SMALL.replace('nodes = ["a", "gw", "b"]', 'nodes = ["a", "gw",', 1))
    err = fairsim_cli("validate", small_path)
    assert f"{small_path}:2:9: invalid TOML: array opened here is never closed" in err, err


def test_bytes_that_are_not_utf8_are_a_scenario_error():
    data = SMALL.encode().replace(b'"small"', b'"sm\x9aall"')
    with pytest.raises(fairsim.ScenarioError) as e:
        fairsim.loads(data, file="x.toml")
    assert str(e.value) == "x.toml: not UTF-8 text (invalid byte 0x9A at line 5, column 11)"
    assert e.value.diagnostics[0]["line"] is None
