"""Event traces (`--events PORT`, `[run] events`, `Results.events`): a line per packet queued,
sent, dropped and received, matching the port's own counters."""

from __future__ import annotations

import subprocess
from pathlib import Path

import fairsim


def test_the_cli_writes_a_ports_events_and_the_api_returns_them(small_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    cmd = ["fairsim", "run", str(small_path), "--pair", "G/FCFS", "--events", "gw->b", "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    text = (out / "G_FCFS.seed3.gw_to_b.events.txt").read_text()
    res = fairsim.run(small_path, pair="G/FCFS", set={"run.events": ["gw->b"], "run.warmup": "0s"})
    assert res.events("gw->b") == text, "the same run, the same trace"
    port = res.queues.set_index("port").loc["gw->b"]
    lines = [line.split() for line in text.splitlines() if not line.startswith("#")]
    count = {letter: sum(1 for f in lines if f[0] == letter) for letter in "+-dr"}
    assert count["+"] == port["arrivals"] and count["d"] == port["drops"] > 0
    assert {f[2] for f in lines} == {"ftp", "telnet", "noise"}
    assert all(len(f) == 8 for f in lines if f[0] == "d") and all(len(f) == 7 for f in lines if f[0] != "d")
    done = subprocess.run(
        ["fairsim", "run", str(small_path), "--events", "gw->b"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--out" in done.stderr


def test_a_workloads_packets_name_their_transfer_by_its_row() -> None:
    # an incast: every host but h0 sends one file to h0; a host's own line carries its transfer's
    # data and the ACKs of none other, so each data line there names a row whose source is it
    sc = fairsim.load("examples/fat_tree_incast", set={"run.events": ["*"]})
    res = fairsim.run(sc, progress=False)
    t = res.transfers
    assert len(t) == 15
    for port in ("h3->tor1", "h12->tor6"):
        lines = [f.split() for f in res.events(port).splitlines() if not f.startswith("#")]
        rows = {int(f[3]) for f in lines if f[4] == "data"}
        assert len(rows) == 1, (port, rows)
        assert t["src"][rows.pop()] == port.split("->")[0]
    header = res.events("h3->tor1").splitlines()[1]
    assert header == "# event time_s flow transfer kind seq size_bytes [reason]"
