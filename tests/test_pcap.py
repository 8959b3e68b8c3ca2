"""Packet captures (`--pcap`, `[run] pcap`) read by the real tshark: its counts of frames,
retransmissions and duplicate ACKs match fairsim's own counters."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import fairsim

pytestmark = pytest.mark.skipif(
    shutil.which("tshark") is None and not os.environ.get("FAIRSIM_REQUIRE_TSHARK"),
    # scripts/test.sh installs it with apt-get and, where it cannot, says why here
    reason=os.environ.get("FAIRSIM_TSHARK_MISSING", "tshark is not installed (scripts/test.sh installs it)"),
)

#: One NewReno flow (the classic papers' TCP: no SACK, an ACK a packet) through a port that drops
#: three chosen packets, and a UDP source beside it.
SCENARIO = """
nodes = ["src", "udp", "gw", "dst"]
[run]
duration = "10s"
[links]
in = { between = ["src", "gw"], rate = "100Mbps", delay = "1ms" }
u = { between = ["udp", "gw"], rate = "100Mbps", delay = "1ms" }
[links.out]
between = ["gw", "dst"]
rate = "2Mbps"
delay = "20ms"
qdisc = { kind = "loss_list", flow = "bulk", seqs = [100, 300, 301] }
[flows.bulk]
src = "src"
dst = "dst"
app = "ftp"
transport = { kind = "newreno", window = 30, stack = "classic" }
[flows.cbr]
src = "udp"
dst = "dst"
app = "cbr"
rate = "200kbps"
packet_size = 500
"""


def tshark(path: Path, *args: str) -> list[str]:
    done = subprocess.run(
        ["tshark", "-r", str(path), *args], capture_output=True, text=True, check=True, timeout=120
    )
    return [line for line in done.stdout.splitlines() if line.strip()]


def frames(path: Path, display_filter: str) -> int:
    return len(tshark(path, "-Y", display_filter, "-T", "fields", "-e", "frame.number"))


@pytest.mark.slow
def test_tshark_reads_the_capture_and_counts_what_fairsim_counted(tmp_path: Path) -> None:
    scenario = tmp_path / "lossy.toml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "out"
    cmd = ["fairsim", "run", str(scenario), "--pcap", "gw->dst", "--pcap", "dst->gw", "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    data, acks = out / "default.seed1.gw_to_dst.pcap", out / "default.seed1.dst_to_gw.pcap"
    assert data.exists() and acks.exists()

    res = fairsim.run(scenario)
    bulk = res.flows.set_index("flow").loc["bulk"]
    queues = res.queues.set_index("port")
    sent_on_port = int(queues.loc["gw->dst", "departures"])
    # every packet the port put on its line is a frame (the loss list drops before the line)
    assert frames(data, "frame") == sent_on_port
    assert frames(data, "udp") > 0 and frames(data, "tcp") + frames(data, "udp") == sent_on_port
    # tshark's own TCP analysis: the segments missing before each retransmission (two gaps:
    # packet 100, and packets 300-301), and one retransmission for each of fairsim's
    assert int(bulk["dropped"]) == 3
    assert frames(data, "tcp.analysis.lost_segment") == 2
    seen = frames(data, "tcp.analysis.retransmission || tcp.analysis.fast_retransmission")
    assert seen == int(bulk["retransmitted"]) == 3
    # the ACK port: one frame per ACK sent, and tshark finds duplicate ACKs at each hole: packet
    # 100, then 300 and, after NewReno's partial ACK, 301 (ACK numbers count bytes: 1 + k·MSS)
    assert frames(acks, "tcp") == int(queues.loc["dst->gw", "departures"])
    absolute = ("-o", "tcp.relative_sequence_numbers:FALSE")
    fields = ("-T", "fields", "-e", "tcp.ack")
    dupacks = tshark(acks, *absolute, "-Y", "tcp.analysis.duplicate_ack", *fields)
    mss = 1000 - 52
    assert {int(a) for a in dupacks} == {1 + k * mss for k in (100, 300, 301)}


def test_the_api_gives_the_bytes_and_pcap_without_out_is_a_usage_error(tmp_path: Path) -> None:
    scenario = tmp_path / "lossy.toml"
    scenario.write_text(SCENARIO)
    res = fairsim.run(scenario, set={"run.pcap": ["gw->dst"]})
    head = res.pcap("gw->dst")[:4]
    assert head == bytes.fromhex("4d3cb2a1"), "nanosecond pcap, little-endian"
    with pytest.raises(KeyError, match="recorded port 'in'"):
        res.pcap("in")
    done = subprocess.run(
        ["fairsim", "run", str(scenario), "--pcap", "gw->dst"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--out" in done.stderr


@pytest.mark.slow
def test_with_ppp_headers_tshark_sees_ns3s_frame_sizes_and_the_same_holes(tmp_path: Path) -> None:
    # the same run with 1000-byte payloads under PPP headers: 1054-byte segments, 54-byte ACKs,
    # 530-byte datagrams, framed as PPP; the sequence step is the payload
    res = fairsim.run(
        fairsim.loads(SCENARIO),
        set={"run.headers": "ppp", "run.pcap": ["gw->dst", "dst->gw"]},
    )
    data, acks = tmp_path / "data.pcap", tmp_path / "acks.pcap"
    data.write_bytes(res.pcap("gw->dst"))
    acks.write_bytes(res.pcap("dst->gw"))
    sizes = tshark(data, "-T", "fields", "-e", "frame.len", "-e", "ppp.protocol", "-e", "ip.proto")
    assert {tuple(s.split("\t")) for s in sizes} == {("1054", "0x0021", "6"), ("530", "0x0021", "17")}
    assert {s.split("\t")[0] for s in tshark(acks, "-T", "fields", "-e", "frame.len")} == {"54"}
    assert frames(data, "tcp.analysis.lost_segment") == 2
    absolute = ("-o", "tcp.relative_sequence_numbers:FALSE")
    fields = ("-T", "fields", "-e", "tcp.ack")
    dupacks = tshark(acks, *absolute, "-Y", "tcp.analysis.duplicate_ack", *fields)
    assert {int(a) for a in dupacks} == {1 + k * 1000 for k in (100, 300, 301)}


def test_tshark_reads_the_sack_blocks_of_todays_tcp(tmp_path: Path) -> None:
    # the same losses under NewReno's defaults (SACK, delayed ACKs): the ACKs carry SACK blocks
    # whose edges are data sequence numbers above the cumulative ACK, the 54-byte ACK grows by
    # 4 + 8 bytes a block, and every hole is retransmitted once, as fairsim counted
    scenario = SCENARIO.replace(', stack = "classic"', "")
    res = fairsim.run(fairsim.loads(scenario), set={"run.headers": "ppp", "run.pcap": ["gw->dst", "dst->gw"]})
    data, acks = tmp_path / "data.pcap", tmp_path / "acks.pcap"
    data.write_bytes(res.pcap("gw->dst"))
    acks.write_bytes(res.pcap("dst->gw"))
    absolute = ("-o", "tcp.relative_sequence_numbers:FALSE")
    rows = tshark(
        acks,
        *absolute,
        "-Y",
        "tcp.options.sack_le",
        "-T",
        "fields",
        "-e",
        "tcp.ack",
        "-e",
        "tcp.options.sack_le",
        "-e",
        "tcp.options.sack_re",
        "-e",
        "frame.len",
    )
    assert rows, "ACKs with SACK blocks"
    for row in rows:
        ack, left, right, length = row.split("\t")
        lefts, rights = [int(x) for x in left.split(",")], [int(x) for x in right.split(",")]
        assert all(int(ack) < le < re for le, re in zip(lefts, rights, strict=True)), row
        assert all(
            (le - 1) % 1000 == 0 and (re - 1) % 1000 == 0 for le, re in zip(lefts, rights, strict=True)
        ), row
        assert int(length) == 54 + 4 + 8 * len(lefts), row
    bulk = res.flows.set_index("flow").loc["bulk"]
    seen = frames(data, "tcp.analysis.retransmission || tcp.analysis.fast_retransmission")
    assert seen == int(bulk["retransmitted"]) == 3
