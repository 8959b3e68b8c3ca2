"""Open-population flows from Python: the transfers table, the engine's summary checked by
hand, and what `fairsim run` writes."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

import fairsim
from fairsim.catalogue import BUNDLED

NETWORK = BUNDLED / "blt94" / "network.toml"
#: Two arrivals (at 0.263 s and 0.513 s with seed 1 at one per second) before the stop.
TWO = {
    "flows.files.arrivals": 1.0,
    "flows.files.stop": "0.6s",
    "run.duration": "2s",
    "run.warmup": "0s",
    "run.interval": "2s",
    "run.transfer_rows": True,
}


def test_r_theta_and_power_of_a_two_transfer_run_by_hand():
    r = fairsim.run(fairsim.load(NETWORK, set=TWO), pair="BLT")
    t = r.transfers
    assert len(t) == 2 and t["finish_s"].notna().all()
    # in whole nanoseconds, as the engine keeps time
    assert (t["response_s"] == ((t["finish_s"] * 1e9).round() - (t["arrival_s"] * 1e9).round()) / 1e9).all()
    R = (t["response_s"][0] + t["response_s"][1]) / 2
    T = t["finish_s"].max() - t["arrival_s"].min()
    theta = 2 * 100_000 / T
    s = r.transfer_summary.iloc[0]
    assert (s["arrivals"], s["finished"], s["unfinished"]) == (2, 2, 0)
    assert s["response_s"] == pytest.approx(R, rel=1e-12)
    assert s["elapsed_s"] == pytest.approx(T, rel=1e-12)
    assert s["throughput_bps"] == pytest.approx(theta, rel=1e-12)
    assert s["power"] == pytest.approx(theta / R, rel=1e-12)
    assert s["outstanding"] == pytest.approx(2 / 0.6 * R, rel=1e-12)
    # the two transfers do not overlap, so each takes what one alone takes
    assert t["response_s"][0] == pytest.approx(t["response_s"][1], abs=1e-9)


def test_without_transfer_rows_the_summary_stays():
    r = fairsim.run(fairsim.load(NETWORK, set={**TWO, "run.transfer_rows": False}), pair="TCP")
    assert r.transfers.empty
    assert r.transfer_summary.iloc[0]["finished"] == 2


def test_a_run_writes_its_transfers_and_their_summary(tmp_path):
    sets = [f"--set={k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in TWO.items()]
    run = [sys.executable, "-m", "fairsim.cli", "run", str(NETWORK), "--pair", "BT"]
    subprocess.run([*run, "--out", str(tmp_path), *sets], check=True, capture_output=True)
    rows = pd.read_csv(tmp_path / "transfers.csv")
    assert list(rows["flow"]) == ["files", "files"] and (rows["bytes"] == 100_000).all()
    summary = pd.read_csv(tmp_path / "transfer_summary.csv")
    assert summary.loc[0, "finished"] == 2


def test_a_scenario_without_open_population_flows_writes_no_transfer_tables(tmp_path):
    scenario = BUNDLED / "dks89" / "s1_underloaded.toml"
    run = [sys.executable, "-m", "fairsim.cli", "run", str(scenario), "--out", str(tmp_path)]
    subprocess.run(run, check=True, capture_output=True)
    assert not (tmp_path / "transfers.csv").exists() and not (tmp_path / "transfer_summary.csv").exists()
