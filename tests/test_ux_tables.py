"""The tables `fairsim run` prints and `summary()` returns: one per pair over seeds, numbers that
read naturally, runs that never started in one line, and a warning when seeds change nothing."""

import os
import re
import warnings

import pytest
from test_cli import fairsim as cli
from test_cli import interrupted

import fairsim
from fairsim.table_parts import Stat, duration, pm, size

from conftest import EXAMPLES

#: A firewall run: random (Telnet, firehose drops) and with a GPS comparison table.
FIREWALL = {"run.fluid_reference": ["gw->sink"], "run.duration": "1700s"}


@pytest.fixture(scope="module")
def firewall():
    return fairsim.run("examples/firewall", pair=["G/FCFS", "G/FQ", "G/DRR"], seed=[1, 2, 3], set=FIREWALL)


def test_several_seeds_give_one_table_per_pair(firewall):
    text = firewall.summary()
    assert text.count("Jain's fairness index") == 3
    assert "pair G/FQ · 3 seeds (1, 2, 3)" in text
    assert "values: mean ± 95% CI over seeds" in text and "(3 runs)" in text


def test_per_seed_tables_on_request(firewall, small_path):
    assert firewall.summary(per_seed=True).count("Jain's fairness index") == 9
    r = cli("run", small_path, "--seed", "1", "--seed", "2")
    assert r.returncode == 0 and r.stdout.count("Jain's fairness index") == 2, r.stderr
    r = cli("run", small_path, "--seed", "1", "--seed", "2", "--per-seed")
    assert r.returncode == 0 and r.stdout.count("Jain's fairness index") == 4, r.stderr


def test_table_means_are_the_means_over_seeds(firewall):
    fq = firewall["G/FQ"]
    mean = fq.flows[fq.flows.flow == "ftp"].goodput_pps.mean()
    row = next(line for line in fq.summary().splitlines() if line.startswith("ftp "))
    assert f"{mean:.2f} ± " in row


def test_spread_has_the_decimals_of_the_value():
    assert pm(Stat(0.272, 0.0000052, 5)) == "0.272 ± 0.000"
    assert pm(Stat(47.4, 102.8, 5)) == "47.4 ± 102.8"
    assert pm(Stat(0.0, 0.0, 3)) == "0 ± 0"
    assert pm(Stat(0.0, 0.0123, 3)) == "0.000 ± 0.012"
    assert pm(Stat(12.5, 1.0, 1)) == "12.5"


def test_sizes_and_times_in_natural_units():
    assert size(Stat(0.014)) == "0 B"
    assert size(Stat(1000.0)) == "1.00 kB"
    assert size(Stat(999.0)) == "999 B"
    assert duration(Stat(2.01e-6)) == "2.01 µs"
    assert duration(Stat(-0.00245)) == "-2.45 ms"
    assert duration(Stat(2.702)) == "2.70 s"
    assert duration(Stat(0.0)) == "0 s"


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.toml")))
def test_tables_of_every_example_read_well(example):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fairsim.IdenticalSeedsWarning)
        res = fairsim.run(f"examples/{example}", seed=[1, 2])
    for text in (res.summary(), res.summary(per_seed=True), res[res.pairs[0]].summary()):
        assert text.strip()
        lines = text.splitlines()
        assert [line for line in lines if line != line.rstrip()] == []
        assert not re.search(r"\b1 (runs|seeds|flows|queues|intervals)\b", text)
        assert not re.search(r"\d\.\d{5,} B\b", text)  # no fractions of bytes
        for mean, spread in re.findall(r"(-?[\d,]+(?:\.\d+)?) ± ([\d,]+(?:\.\d+)?)", text):
            assert len(mean.partition(".")[2]) == len(spread.partition(".")[2]), (mean, spread, example)
    assert "1 run (complete)" in repr(fairsim.Results(res.scenario, res.runs[:1]))


def test_identical_seeds_warn_once_from_the_api():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fairsim.run("examples/dumbbell", pair=["G/FCFS"], seed=[1, 2, 3])
    messages = [str(w.message) for w in caught if issubclass(w.category, fairsim.FairsimWarning)]
    assert len(messages) == 1, messages
    assert messages[0].startswith("seeds 1, 2, 3 gave identical results under G/FCFS: the scenario has no")
    assert issubclass(caught[0].category, fairsim.IdenticalSeedsWarning)
    assert caught[0].filename == __file__  # points at the caller's line


def test_seeds_that_differ_do_not_warn(small_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", fairsim.FairsimWarning)
        fairsim.run(small_path, seed=[1, 2])
        fairsim.run("examples/dumbbell", pair="G/FCFS", seed=1)


def test_identical_seeds_warn_in_one_line_from_the_cli():
    r = cli("run", "examples/dumbbell", "--seed", "1", "--seed", "2", "--seed", "3")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    assert lines == [
        "warning: seeds 1, 2, 3 gave identical results under G/FCFS: the scenario has no random element "
        "under that pair, so its replications do not differ (a confidence interval of zero measures nothing)"
    ]


@pytest.mark.skipif(os.name != "posix", reason="needs POSIX signals")
@pytest.mark.slow
def test_runs_that_never_started_are_listed_in_one_line():
    args = "run examples/dumbbell --pair G/FCFS --pair G/RD --seed 1 --seed 2 --seed 3 --jobs 1"
    returncode, stdout, stderr = interrupted(*args.split(), "--set", "run.duration=50000s")
    assert returncode == 130, stderr
    assert "not run (interrupted): G/FCFS seeds 2, 3; G/RD seeds 1, 2, 3" in stdout, stdout
    assert stdout.count("Jain's fairness index") == 1  # only the run that started has a table
    assert "interrupted at" in stdout


@pytest.mark.skipif(os.name != "posix", reason="needs POSIX signals")
@pytest.mark.slow
def test_an_interrupted_run_says_so_on_a_line_of_its_own_and_out_gets_only_what_ran(tmp_path):
    out = tmp_path / "partial"
    args = "run examples/dumbbell --pair G/FCFS --pair G/RD --seed 1 --seed 2 --jobs 1 --out"
    returncode, stdout, stderr = interrupted(*args.split(), out, "--set", "run.duration=50000s")
    assert returncode == 130, stderr
    lines = stdout.splitlines()
    heading = next(i for i, line in enumerate(lines) if "pair G/FCFS" in line)
    assert lines[heading].endswith("warm-up"), lines[heading]  # nothing glued onto it
    assert lines[heading + 1].startswith("interrupted at "), lines[heading + 1]
    assert lines[heading + 1].endswith(" s of 50,000 s: partial results"), lines[heading + 1]
    # the resolved scenario of the run that started, none of those that never did
    assert sorted(p.name for p in out.glob("scenario.*")) == ["scenario.G_FCFS.seed1.toml"]


@pytest.mark.parametrize(
    "args", [["list"], ["validate", "examples/dumbbell"], ["run", "examples/parking_lot", "--pair", "G/RD"]]
)
def test_command_output_has_no_trailing_spaces(args):
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stdout.splitlines() if line != line.rstrip()] == []
