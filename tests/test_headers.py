"""Packet headers (`headers = "ppp"`): the results give the payload goodput beside the wire's."""

import subprocess
import sys

import pandas as pd
import pytest

import fairsim

SCENARIO = """
nodes = ["s", "r", "d"]
[run]
duration = "10s"
warmup = "2s"
interval = "4s"
[links]
access = { between = ["s", "r"], rate = "100Mbps", delay = "1ms" }
neck = { between = ["r", "d"], rate = "10Mbps", delay = "10ms", buffer = 100 }
[flows]
tcp = { src = "s", dst = "d", app = "ftp", transport = "reno", window = 200, headers = "ppp" }
udp = { src = "s", dst = "d", app = "cbr", rate = "2Mbps", headers = "ppp" }
"""


@pytest.fixture(scope="module")
def results():
    return fairsim.run(fairsim.loads(SCENARIO))


def test_flows_give_payload_goodput_beside_the_wire_goodput(results):
    flows = results.flows.set_index("flow")
    assert flows.loc["tcp", ["packet_size", "payload_size", "headers"]].tolist() == [1054, 1000, "ppp"]
    assert flows.loc["udp", ["packet_size", "payload_size"]].tolist() == [1030, 1000]
    for flow, wire in (("tcp", 1054), ("udp", 1030)):
        ratio = flows.loc[flow, "payload_bps"] / flows.loc[flow, "goodput_bps"]
        assert ratio == pytest.approx(1000 / wire, rel=1e-12), flow
        assert not pd.isna(flows.loc[flow, "payload_bps_ci95"])
    # a CBR's rate counts its payload: 2 Mb/s is 250 datagrams a second over the 8 s measured
    assert flows.loc["udp", "sent"] == pytest.approx(2000, abs=1)


def test_intervals_derive_payload_goodput_from_payload_bytes(results):
    iv = results.intervals
    tcp = iv[(iv.flow == "tcp") & ~iv.warmup]
    assert len(tcp) == 2
    assert (tcp.payload_unique * 1054 == tcp.bytes_unique * 1000).all()
    assert (tcp.payload_bps == tcp.payload_unique * 8 / 4).all()


def test_out_writes_payload_goodput_to_the_flows_table(tmp_path):
    path = tmp_path / "h.toml"
    path.write_text(SCENARIO)
    out = tmp_path / "out"
    cli = [sys.executable, "-m", "fairsim.cli", "run", str(path), "--out", str(out), "--no-progress"]
    subprocess.run(cli, check=True, capture_output=True, timeout=120)
    flows = pd.read_csv(out / "flows.csv").set_index("flow")
    assert flows.loc["tcp", "headers"] == "ppp"
    assert flows.loc["tcp", "payload_bps"] < flows.loc["tcp", "goodput_bps"]


def test_without_headers_payload_goodput_is_the_goodput(small_path):
    flows = fairsim.run(small_path, pair="G/FCFS").flows
    assert (flows.headers == "none").all()
    assert (flows.payload_bps == flows.goodput_bps).all()
