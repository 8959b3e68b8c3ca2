"""Inputs a new user gets wrong: files that are not text, paths that do not exist, bad seeds.

Each goes through the command line (exit code 2, a message naming the file) and the API
(a fairsim exception), never an internal error or a Python exception of another kind.
"""

import json
import os
import sys

import pytest
from test_cli import fairsim as cli

import fairsim

BINARY = bytes(range(256)) * 4
BAD_BYTE_IN_STRING = b'nodes = ["a", "b\xff"]\n'


@pytest.fixture
def binary_path(tmp_path):
    path = tmp_path / "garbage.toml"
    path.write_bytes(BINARY)
    return path


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize(
    ("data", "where"), [(BINARY, "0x80 at line 2, column 118"), (BAD_BYTE_IN_STRING, "line 1")]
)
def test_cli_refuses_bytes_that_are_not_utf8(command, data, where, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_bytes(data)
    r = cli(command, path)
    assert r.returncode == 2, r.stderr
    assert f"{path}: not UTF-8 text (invalid byte 0x" in r.stderr and where in r.stderr, r.stderr
    assert "internal error" not in r.stderr


def test_api_refuses_bytes_that_are_not_utf8(binary_path):
    with pytest.raises(fairsim.ScenarioError, match=r"garbage.toml: not UTF-8 text \(invalid byte 0x80"):
        fairsim.load(binary_path)
    with pytest.raises(fairsim.ScenarioError, match="not UTF-8"):
        fairsim.run(binary_path)


def test_api_names_overrides_set_equals():
    with pytest.raises(fairsim.ScenarioError) as e:
        fairsim.load("examples/dumbbell", set={"flows.ftp1.windw": 3})
    assert [d["origin"] for d in e.value.diagnostics] == ["set="]


def test_cli_names_overrides_dash_dash_set():
    r = cli("validate", "examples/dumbbell", "--set", "flows.ftp1.windw=3")
    assert r.returncode == 2
    assert "set=" not in r.stderr


@pytest.mark.parametrize("command", ["run", "validate"])
def test_a_directory_is_not_a_scenario(command, tmp_path):
    r = cli(command, tmp_path)
    assert r.returncode == 2, r.stderr
    assert f"error: {tmp_path}: is a directory, not a scenario file" in r.stderr
    with pytest.raises(fairsim.FairsimError, match="is a directory"):
        fairsim.load(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_named(small_path):
    small_path.chmod(0)
    r = cli("validate", small_path)
    assert r.returncode == 2 and f"{small_path}: cannot read" in r.stderr, r.stderr


@pytest.mark.parametrize(
    "path", ["/nonexistent/dir/dumbbell.toml", "/nonexistent/examples/dumbbell", "nowhere/dumbbell.toml"]
)
def test_a_missing_path_never_runs_a_bundled_scenario(path):
    r = cli("validate", path)
    assert r.returncode == 2, r.stdout
    assert f"error: {path}: no such file" in r.stderr
    with pytest.raises(fairsim.FairsimError, match="no such file"):
        fairsim.load(path)


@pytest.mark.parametrize("name", ["examples/dumbbell", "examples/dumbbell.toml", "dumbbell"])
def test_bare_names_find_bundled_scenarios(name, tmp_path):
    r = cli("validate", name, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert fairsim.load(name).name == "dumbbell"


def test_a_local_file_wins_over_a_bundled_name(tmp_path, small_path):
    (tmp_path / "examples").mkdir()
    small_path.rename(tmp_path / "examples" / "dumbbell.toml")
    r = cli("validate", "examples/dumbbell.toml", cwd=tmp_path)
    assert r.returncode == 0 and "small" in r.stdout, r.stderr


def test_a_misspelt_bundled_name_gets_a_suggestion():
    r = cli("run", "examples/dumbell")
    assert r.returncode == 2
    assert "examples/dumbell: no such file; did you mean `examples/dumbbell`?" in r.stderr, r.stderr
    with pytest.raises(fairsim.FairsimError, match="did you mean `examples/dumbbell`"):
        fairsim.load("examples/dumbell.toml")


def test_a_misspelt_pair_gets_a_suggestion(small_path):
    r = cli("run", small_path, "--pair", "G/FCSF")
    assert r.returncode == 2
    assert "no pair `G/FCSF`; did you mean `G/FCFS`?" in r.stderr, r.stderr
    with pytest.raises(fairsim.FairsimError, match="did you mean `G/RD`"):
        fairsim.run(small_path, pair="G/DR")


def test_results_suggest_a_misspelt_pair(small_path):
    res = fairsim.run(small_path, pair="G/RD", set={"run.duration": "120s"})
    with pytest.raises(KeyError, match="did you mean 'G/RD'"):
        res["G/DR"]


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616"])
def test_cli_refuses_seeds_out_of_range(small_path, seed):
    r = cli("run", small_path, "--seed", seed, "--pair", "G/RD")
    assert r.returncode == 2, r.stderr
    assert "--seed" in r.stderr and "0<=x<=18446744073709551615" in r.stderr, r.stderr
    assert "internal error" not in r.stderr


@pytest.mark.parametrize("seed", [-1, 2**64, [1, -2], 1.5, "3", True])
def test_api_refuses_bad_seeds(small_path, seed):
    with pytest.raises(fairsim.FairsimError, match="seed"):
        fairsim.run(small_path, seed=seed, pair="G/RD")


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_resolved_toml_refuses_bad_seeds(seed):
    with pytest.raises(fairsim.FairsimError, match="a seed is an integer from 0 to"):
        fairsim.load("examples/dumbbell").resolved_toml("G/FCFS", seed)


def test_numpy_integers_are_seeds(small_path):
    # pandas hands out NumPy integers as group keys (pandas 2 did in groupby over seeds)
    import numpy as np

    res = fairsim.run(small_path, seed=[np.int64(3), np.uint64(4)], pair="G/RD", set={"run.duration": "120s"})
    assert [r["seed"] for r in res.runs] == [3, 4]
    assert fairsim.load(small_path).resolved(seed=np.int32(5))["run"]["seed"] == 5


def test_largest_seed_runs(small_path):
    res = fairsim.run(small_path, seed=2**64 - 1, pair="G/RD", set={"run.duration": "120s"})
    assert res.runs[0]["seed"] == 2**64 - 1


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


def test_seeds_n_means_n_replications_in_run_as_in_sweep(small_path):
    res = fairsim.run(small_path, pair="G/RD", seeds=3, set={"run.duration": "120s"}, progress=False)
    assert [r["seed"] for r in res.runs] == [1, 2, 3]
    r = cli("run", small_path, "--pair", "G/RD", "--seeds", "2", "--json", "--set", "run.duration=120s")
    assert r.returncode == 0, r.stderr
    assert [x["seed"] for x in json.loads(r.stdout)["runs"]] == [1, 2]
    both = cli("run", small_path, "--seeds", "2", "--seed", "7")
    assert both.returncode == 2 and "not both" in both.stderr


@pytest.mark.parametrize("kw", [{"seeds": 0}, {"seeds": 2.0}, {"seeds": True}, {"seeds": 2, "seed": 1}])
def test_bad_counts_of_replications_are_refused(small_path, kw):
    with pytest.raises(fairsim.FairsimError, match="seed"):
        fairsim.run(small_path, pair="G/RD", **kw)


def test_run_names_what_a_scenario_is_when_given_something_else():
    with pytest.raises(fairsim.FairsimError, match="a scenario is a file's path"):
        fairsim.run(42)
