"""The blt94 reproduction's choices: the paper's TCP (one duplicate ACK) under one baseline rule
with BLT (the duplicate-delivery filter, a timer floored at the network's largest round trip),
the stability knobs, and the outstanding connections counted the paper's way."""

from __future__ import annotations

import math

import pytest

import fairsim
from fairsim.catalogue import BUNDLED
from fairsim.reproduce.reproductions.blt94 import PAPER
from fairsim.reproduce.reproductions.blt94.claims import little
from fairsim.reproduce.reproductions.blt94.experiments import (
    CONFIG,
    CONFIGS,
    Point,
    knobs,
    largest_round_trip,
)

NETWORK = BUNDLED / "blt94" / "network.toml"


def point(mbps: float, response_s: float) -> Point:
    theta = mbps * 1e6 / 8
    nan = math.nan
    return Point(0.5, nan, response_s, theta, theta, theta / response_s, nan, nan, nan, nan, 0, 3, 0.0)


def test_outstanding_connections_the_papers_way_give_its_numbers():
    # §4.3.1: TCP 318 Mb/s at R = 0.2894 s is 115 files of 100 KB in the system; BLT 725 Mb/s
    # (its Θ with the measured R) at 0.032 s is 29
    assert little(point(318, 0.2894)) == pytest.approx(115.0, abs=0.1)
    assert little(point(725, 0.032)) == pytest.approx(29.0, abs=0.1)


def test_both_sides_have_one_rule_and_tcp_is_the_papers():
    sc = fairsim.load(NETWORK)
    floor = f"{largest_round_trip(CONFIG['ref'], 30e6)}ns"
    for pair in ("BLT", "TCP", "BT"):
        t = sc.resolved(pair)["flows"]["files"]["transport"]
        assert (t["clock_granularity"], t["initial_rto"]) == ("0s", "1s"), pair
        # the file is the reference network at 30 Mb/s: its floor is that network's
        assert t["min_rto"] == "45.509ms" and floor == "45509000ns", pair
    tcp = sc.resolved("TCP")["flows"]["files"]["transport"]
    # §4: "immediate retransmission upon the arrival of 1 duplicate ACK"; the filter BLT has
    assert tcp["dupack_threshold"] == 1 and tcp["ignore_duplicate_deliveries"] is True
    assert tcp["rtt_samples"] == "timestamps" and tcp["kind"] == "reno"


def test_the_timer_floor_is_the_largest_round_trip_of_each_network():
    ref = CONFIG["ref"]
    # D = 30 ms; 75 packets of 500 B ahead and its own at 30 Mb/s: 76 × 4000 b / 30 Mb/s; the 100 KB
    # file and one packet at 150 Mb/s; a 40-byte ACK on two 150 Mb/s lines and the 30 Mb/s one
    seconds = 0.030 + 76 * 4000 / 30e6 + 8 * 100_500 / 150e6 + 320 * (2 / 150e6 + 1 / 30e6)
    assert largest_round_trip(ref, 30e6) == math.ceil(seconds * 1e6) * 1000
    for c in CONFIGS:
        for bw in c.bottlenecks:
            exp = PAPER.experiment(c.experiment_id(bw))
            floors = {v for k, v in exp.overrides.items() if k.endswith("min_rto")}
            assert floors == {f"{largest_round_trip(c, bw)}ns"}, exp.id
            assert largest_round_trip(c, bw) > c.d * 1e9 * 4 / 3


def test_the_knobs_set_the_timer_and_the_filter_where_the_pairs_have_them():
    sc = fairsim.load(NETWORK)
    by_name = {k.name: k.overrides(sc) for k in PAPER.knobs}
    assert set(by_name) == {k.name for k in knobs()}
    bsd = by_name["4.4BSD's timer"]
    assert {v for k, v in bsd.items() if k.endswith("min_rto")} == {"1s"}
    assert len(bsd) == 6  # min_rto and clock_granularity of BLT, TCP and BT
    unfiltered = by_name["TCP without the duplicate filter"]
    assert unfiltered == {'pairs."TCP".transport.ignore_duplicate_deliveries': "false"}
    changed = fairsim.load(NETWORK, set=unfiltered)
    assert changed.resolved("TCP")["flows"]["files"]["transport"]["ignore_duplicate_deliveries"] is False
    fitted = by_name["Table 1's fitted TCP"]
    assert fitted == by_name["RTO floor 1 ms"] | unfiltered


def test_no_claim_or_cell_counts_neither_way():
    """No constant is fitted to the paper's cells, so none is marked as the fit's."""
    from fairsim.reproduce.reproductions.blt94.table1 import TABLE

    assert not any(cell.construction for row in TABLE.cells for _, cell in row)
    assert not [c.id for c in PAPER.claims if c.derived]


def _sweep_run(pair: str, seed: int, theta_Bps: float, response_s: float) -> dict:
    summary = {"response_s": response_s, "throughput_bps": theta_Bps, "elapsed_s": 10.0, "arrival_rate": 1.0}
    summary |= {"jain": 1.0, "outstanding": 1.0, "unfinished": 0}
    return {"pair": pair, "seed": seed, "transfer_summary": [summary], "queue_intervals": []}


def test_table1_is_graded_cell_by_cell_from_the_sweeps_best_points():
    """Every configuration's sweep at two loads and two replications, with powers chosen so that
    the best point of the averaged curve (load 0.8) differs from one replication's own best."""
    from types import SimpleNamespace

    from fairsim.reproduce.claims import Context
    from fairsim.reproduce.compare import compare_rows
    from fairsim.reproduce.reproductions.blt94.table1 import DERIVED, TABLE1

    # (load, seed) -> (Θ in bytes/s, R in s): powers 1e7, 3e7 at 0.5 and 2.5e7, 2.5e7 at 0.8
    grid = {(0.5, 1): (1e6, 0.1), (0.5, 2): (3e6, 0.1), (0.8, 1): (2.5e6, 0.1), (0.8, 2): (2.5e6, 0.1)}
    sweeps = {}
    for config in ("ref", "gbit"):
        for i in range(3):
            exp = exp_id(config, i)
            sweeps[exp] = []
            for load in (0.5, 0.8):
                runs = [_sweep_run(s, seed, *grid[(load, seed)]) for s in ("BLT", "TCP") for seed in (1, 2)]
                sweeps[exp].append((load, SimpleNamespace(results=SimpleNamespace(runs=runs))))
    (table,) = DERIVED
    rows = compare_rows(table.experiment, table.table, table.ours(Context({}, sweeps)))
    assert len(rows) == 4 and all(len(r) == 3 for r in rows)
    cell = rows[0][0]
    # the averaged curve's best: 2e7 at 0.5, 2.5e7 at 0.8; the replications' own: 2.5e7 and 3e7
    assert cell.ours.mean == pytest.approx(math.log10(2.5e7))
    assert cell.ours.low == pytest.approx(math.log10(2.5e7)) and cell.ours.high == pytest.approx(
        math.log10(3e7)
    )
    assert cell.paper.value == TABLE1[("BLT", "ref")][0] and cell.key.metric == "log10_power"
    # 7.40 against the paper's 6.9: half a decade, far
    assert cell.grade == "far"
    # a report made without the sweeps leaves the table out rather than failing
    from fairsim.reproduce.report import _derived

    assert _derived(table, Context({}, {})) is None


def exp_id(config: str, i: int) -> str:
    from fairsim.reproduce.reproductions.blt94.table1 import exp_id as table_exp_id

    return table_exp_id(config, i)


@pytest.mark.parametrize(
    "ours, grade", [(6.98, "close"), (6.82, "close"), (7.05, "near"), (6.71, "near"), (7.2, "far")]
)
def test_a_logarithm_is_graded_by_the_relative_difference_of_its_quantity(ours, grade):
    """log10 P_m printed to one decimal: close within log10(1.1) + 0.05 = 0.091 decade, near
    within log10(1.25) + 0.1 = 0.197 (the powers within 10% and 25%, plus rounding)."""
    from fairsim.reproduce.compare import Comparison
    from fairsim.reproduce.measure import Estimate
    from fairsim.reproduce.published import Key, parse_cell

    c = Comparison(
        "e", "t", "r", "c", Key("BLT", "ref-1/5", "log10_power"), parse_cell(6.9), Estimate(ours, 0, 0, 1, 1)
    )
    assert c.grade == grade
