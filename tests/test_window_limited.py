"""Window-limited flows: the time each flow's own window held its sender back, in
the JSON, the DataFrames, a sweep and the printed flows table, and the `linux` stack's default
receiver window (docs/decisions.md, *Window-limited flows*). The engine's accounting is checked
against a traced window in crates/fairsim/tests/window_limited.rs."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import fairsim
from fairsim.results import WINDOW_LIMITED
from fairsim.sweeps.axes import RESERVED

ROOT = Path(__file__).resolve().parent.parent

#: One CUBIC flow (today's Linux defaults) over a 100 Mb/s path with a 100 ms round trip: 1,250
#: packets in flight fill it, far above the classic window of 64 packets; with the buffer's 300
#: more the line drops before the window reaches Linux's 2,173.
LONG_FAT = """
nodes = ["src", "gw", "dst"]
[run]
duration = "20s"
warmup = "5s"
interval = "5s"
[links]
in = { between = ["src", "gw"], rate = "1Gbps", delay = "1ms" }
out = { between = ["gw", "dst"], rate = "100Mbps", delay = "49ms", buffer = 300 }
[flows]
bulk = { src = "src", dst = "dst", app = "ftp" }
[pairs]
"linux window" = { qdisc = "fcfs", transport = "cubic" }
"window 64" = { qdisc = "fcfs", transport = { kind = "cubic", window = 64 } }
"""


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "long_fat.toml"
    path.write_text(LONG_FAT)
    return path


def test_a_window_of_64_caps_a_long_fat_path_and_linux_autotuning_does_not(tmp_path):
    res = fairsim.run(_scenario(tmp_path), progress=False)
    flows = res.flows.set_index("pair")
    capped, linux = flows.loc["window 64"], flows.loc["linux window"]
    assert capped["window_limited_share"] == 1.0 and capped["window_limited_s"] == 15.0
    # held back throughout: 64 packets of 1000 bytes per round trip, by hand
    by_hand = 64 * 1000 * 8 / capped["rtt_mean_s"]
    assert abs(capped["goodput_bps"] - by_hand) / by_hand < 0.01, (capped["goodput_bps"], by_hand)
    # Linux's receiver window (2,173 packets) leaves the path to the congestion control
    assert linux["window_limited_share"] == 0.0 and linux["goodput_bps"] > 0.9e8
    run = next(r for r in res.runs if r["pair"] == "linux window")
    assert run["flows"][0]["transport_params"]["window"] == 2173


def test_flows_without_a_window_of_their_own_have_no_figure(small_path):
    res = fairsim.run(small_path, pair="G/FCFS", set={"run.duration": "120s"}, progress=False)
    assert all(f["window_limited_s"] is None for f in res.runs[0]["flows"]), "Generic and open-loop flows"
    assert res.flows["window_limited_share"].map(math.isnan).all()


def test_the_flows_table_shows_the_column_and_says_why_only_when_a_window_held_a_flow_back(tmp_path):
    path = _scenario(tmp_path)
    command = [sys.executable, "-m", "fairsim.cli", "run", str(path), "--no-progress"]
    out = subprocess.run(command, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    linux, capped = out.stdout.split("pair window 64")
    assert "window-limited" not in linux, linux
    header = next(line for line in capped.splitlines() if "goodput" in line)
    assert header.rstrip().endswith("window-limited"), header
    row = next(line for line in capped.splitlines() if line.startswith("bulk"))
    assert row.rstrip().endswith("100%"), row
    assert "the window, not the network, set the flow's rate" in " ".join(capped.split())


def test_a_sweep_carries_the_columns_and_reserves_their_names(tmp_path):
    s = fairsim.sweep(
        _scenario(tmp_path),
        axes={'pairs."window 64".transport.window': [32, 64]},
        pairs=["window 64"],
        tables=["flows"],
        set={"run.duration": "10s"},
        out=tmp_path / "out",
        progress=False,
    )
    assert set(WINDOW_LIMITED) <= set(s.flows.columns) and set(WINDOW_LIMITED) <= RESERVED
    assert (s.flows["window_limited_share"] == 1.0).all()
    docs = (ROOT / "docs" / "results.md").read_text()
    flows = docs.split("res.flows", 1)[1].split("res.intervals", 1)[0]
    assert all(c in flows for c in WINDOW_LIMITED), flows


def _first_screen(*sets: str) -> str:
    args = [sys.executable, "-m", "fairsim.cli", "run", "examples/ndp_permutation", "--no-progress"]
    args += [a for s in sets for a in ("--set", s)]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def test_a_workload_says_which_transfers_cannot_fill_their_own_path():
    # a k = 4 fat-tree at 100 Gb/s with 9,064-byte packets: an inter-pod path's bandwidth-delay
    # product is about 23 packets, an intra-pod one's 15
    short = _first_screen("workloads.perm.transport.initial_window=10")
    assert "15 of 16 transfers are window-limited" in short and "initial_window" in short, short
    assert "window-limited" not in _first_screen(), "the example's window of 30 fills every path"
    sc = fairsim.load("examples/ndp_permutation", set={"workloads.perm.transport.initial_window": "10"})
    ratios = fairsim.run(sc, progress=False).transfers["window_bdp"]
    # the one pair under a ToR of its own: 2 links, about 7 packets in flight fill it
    assert (sorted(ratios < 1), ratios.max() > 1) == ([False] + [True] * 15, True), ratios
