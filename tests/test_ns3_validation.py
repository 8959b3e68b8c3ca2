"""fairsim beside ns-3 on the reference dumbbell, the short variant of `validation/ns3/compare.py`
(20 s, 8 NewReno flows and a CBR, FIFO / RED / FQ-CoDel, 3 draws of start times, each simulator
with and without SACK, PRR and limited transmit). It installs ns-3's own wheel
(`ns3==3.44.post0`, about 520 MB, once) in its own environment, so it runs only when asked:
`FAIRSIM_NS3_VALIDATION=1` (scripts/test.sh sets it). docs/validation.md has the full run and
what each difference comes from. Also a smoke run of the speed comparison
(`validation/ns3/speed.py --short`), without timing assertions.
"""

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("FAIRSIM_NS3_VALIDATION") != "1",
        reason="set FAIRSIM_NS3_VALIDATION=1 to compare with ns-3",
    ),
]


@pytest.fixture(scope="module")
def medians(tmp_path_factory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("ns3")
    script = ROOT / "validation" / "ns3" / "compare.py"
    done = subprocess.run(
        [sys.executable, str(script), "--short", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return pd.read_csv(out / "medians.csv").set_index("qdisc")


@pytest.mark.parametrize("qdisc", ["fifo", "red", "fqcodel"])
def test_todays_tcp_gets_ns3s_goodput(medians, qdisc):
    # with SACK, PRR and limited transmit in both (each simulator's default), the medians of the
    # TCP sum and of the CBR agree within a few percent (measured: 1–2% and 1–6%)
    row = medians.loc[qdisc]
    assert abs(row["tcp_mbps:ratio_default"] - 1) < 0.05, row["tcp_mbps:ratio_default"]
    assert abs(row["udp_mbps:ratio_default"] - 1) < 0.10, row["udp_mbps:ratio_default"]
    # Jain's index over 20 s: under FIFO both simulators' draws spread by 0.04-0.05 (standard
    # deviation over 15 draws), so a median of 3 can land 0.1 from the other simulator's by luck;
    # fairsim's FIFO is also a little less fair (medians of 15 draws 0.917 and 0.954, of the full
    # 60 s run 0.961 and 0.978: docs/validation.md). RED and FQ-CoDel spread by 0.015 and 0.001
    tolerance = 0.15 if qdisc == "fifo" else 0.05
    assert abs(row["jain:fairsim-default"] - row["jain:ns3-default"]) < tolerance


def test_fq_codel_gives_the_same_shares_without_sack(medians):
    # without SACK ns-3's FIFO is erratic over 3 draws (docs/validation.md); FQ-CoDel is not
    row = medians.loc["fqcodel"]
    assert abs(row["tcp_mbps:ratio_like"] - 1) < 0.05
    assert abs(row["udp_mbps:ratio_like"] - 1) < 0.10


def test_both_simulators_report_their_engine_time(medians):
    # the comparison's table carries each simulator's engine time; how they compare is measured
    # by validation/ns3/speed.py into docs/performance.md, never asserted here: on a shared
    # machine a ratio of wall times says as much about the load as about the simulators
    for qdisc, row in medians.iterrows():
        for sim in ("fairsim", "ns3"):
            assert row[f"wall_s:{sim}-default"] > 0, (qdisc, sim)


def test_speed_comparison_runs_both_on_the_same_work(tmp_path):
    # validation/ns3/speed.py --short: one fresh process of each simulator on the 8-flow dumbbell
    # (10 s); no timing is asserted (the machine is shared), only that the table is there and that
    # both simulators did the same work
    script = ROOT / "validation" / "ns3" / "speed.py"
    done = subprocess.run(
        [sys.executable, str(script), "--short", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for column in ("ns-3 Run()", "fairsim engine", "engine ratio", "ns-3 process", "process ratio"):
        assert column in done.stdout
    med = pd.read_csv(tmp_path / "medians.csv")
    assert len(med) == 1 and med.loc[0, "flows"] == 8 and med.loc[0, "rate_mbps"] == 10
    row = med.loc[0]
    for sim in ("ns-3", "fairsim"):
        for c in ("engine_s", "process_s", "events"):
            assert row[f"{c}:{sim}"] > 0
    assert row["engine_s:ratio"] > 0 and row["process_s:ratio"] > 0
    # measured: 11,861 and 11,905 packets delivered, 46,371 and 46,623 packet-hops (over the
    # whole run: fairsim's queues' totals leave its 1 s warm-up out, its intervals do not)
    assert abs(row["delivered_bytes:fairsim"] / row["delivered_bytes:ns-3"] - 1) < 0.05
    assert abs(row["packet_hops:fairsim"] / row["packet_hops:ns-3"] - 1) < 0.10
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert sorted(runs["sim"]) == ["fairsim", "ns-3"]
