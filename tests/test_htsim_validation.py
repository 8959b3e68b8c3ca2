"""The side-by-side run with htsim (validation/htsim/, docs/validation.md): fairsim's side always
runs briefly; htsim's only where an `htsim_tcp` with the options compare.py documents is named
by FAIRSIM_HTSIM_TCP (this project does not ship or build htsim). The k = 16 web-search bench
scenario is loaded, not run (it takes minutes)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import fairsim

ROOT = Path(__file__).resolve().parents[1]
COMPARE = ROOT / "validation" / "htsim" / "compare.py"


def test_fairsims_side_of_the_permutation_runs_and_the_bench_scenario_loads():
    sc = fairsim.load(ROOT / "validation" / "htsim" / "fat-tree-permutation.toml")
    t = fairsim.run(
        sc, set={"run.duration": "2ms", "run.warmup": "0s", "run.interval": "2ms"}, progress=False
    ).transfers
    assert len(t) == 128 and sorted(t["dst"]) == sorted(f"h{i}" for i in range(128))
    for other in ("fat-tree-permutation-dctcp.toml", "fat-tree-incast.toml"):
        fairsim.load(ROOT / "validation" / "htsim" / other)
    bench = fairsim.load(ROOT / "scenarios" / "bench" / "fat-tree-k16-websearch.toml")
    assert len(bench.nodes) == 1024 + 320


@pytest.mark.skipif(not os.environ.get("FAIRSIM_HTSIM_TCP"), reason="no htsim_tcp named by FAIRSIM_HTSIM_TCP")
def test_fairsim_and_htsim_agree_on_a_short_permutation():
    out = subprocess.run(
        [sys.executable, str(COMPARE), "--seeds", "2", "--end-ms", "5"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [line.split("|") for line in out.splitlines() if line.startswith("| ") and "seed" not in line]
    goodput = {(r[1].strip(), r[2].strip()): float(r[3]) for r in rows}
    for seed in ("1", "2"):
        # docs/validation.md: fairsim's total is 0.88-1.02 of htsim's over 20-100 ms; over 5 ms,
        # slow start dominates both
        assert goodput[(seed, "fairsim")] == pytest.approx(goodput[(seed, "htsim")], rel=0.2)
