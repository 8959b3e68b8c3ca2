"""A sweep's size is counted before its points are listed: a description too large is refused
at once, and a dry run of a large new sweep answers without resolving every run."""

import subprocess
import sys

import pytest

from fairsim.sweeps import SweepError, make_sweep_plan
from fairsim.sweeps.plan import MOST_RUNS, _checked_values


def test_a_sweep_past_the_limit_is_refused_before_listing_its_points(small_path):
    axes = {"links.out.buffer": "1..100000:1", "flows.ftp.window": "1..100000:1"}
    with pytest.raises(SweepError, match=r"10,000,000,000 runs .* at most 1,000,000"):
        make_sweep_plan(small_path, axes=axes, pairs=["G/FCFS"])
    with pytest.raises(
        SweepError, match=r"2,000,000 runs \(1,000 out_buffer × 1,000 window × 2 pairs × 1 seed\)"
    ):
        make_sweep_plan(small_path, axes={"links.out.buffer": "1..1000:1", "flows.ftp.window": "1..1000:1"})
    seeds = MOST_RUNS // 2 + 1
    with pytest.raises(SweepError, match=r"seeds: the sweep has"):
        make_sweep_plan(small_path, seeds=list(range(seeds)))


@pytest.mark.slow
def test_a_dry_run_of_a_million_new_runs_answers(small_path, tmp_path):
    axes = ["--axis", "links.out.buffer=1..1000:1", "--axis", "flows.ftp.window=1..1000:1"]
    command = [sys.executable, "-m", "fairsim.cli", "sweep", str(small_path), "--dry-run", *axes]
    r = subprocess.run(
        [*command, "--pair", "G/FCFS"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,  # listing every run took over an hour; not a measure of speed
    )
    assert r.returncode == 0, r.stderr
    assert "1000000 of 1000000 runs to do" in r.stderr and "1000000 points" in r.stdout


@pytest.mark.slow
def test_large_axes_check_a_spread_of_values_and_the_rest_fail_their_runs(small_path):
    picked = _checked_values(3000)
    assert len(picked) == 1000 and picked[0] == 0 and picked[-1] == 2999
    unpicked = next(i for i in range(3000) if i not in picked)
    values = [5] * 3000
    values[picked[500]] = 0
    with pytest.raises(SweepError, match=r"value '0': .*at least one packet"):
        make_sweep_plan(small_path, axes={"links.out.buffer": values}, pairs=["G/FCFS"])
    values = [5] * 3000
    values[unpicked] = 0
    plan = make_sweep_plan(small_path, axes={"links.out.buffer": values}, pairs=["G/FCFS"])
    bad = [r for r in plan.runs() if r.point == unpicked]
    assert len(bad) == 1 and "at least one packet" in bad[0].error
