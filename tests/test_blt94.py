"""The blt94 reproduction's choices of issue 28 §2: the retransmission timer of a 1994
fine-grained-timer TCP, TCP's duplicate-ACK filter, the stability knobs, and the outstanding
connections counted the paper's way."""

from __future__ import annotations

import math

import pytest

import fairsim
from fairsim.catalogue import BUNDLED
from fairsim.reproduce.reproductions.blt94 import PAPER
from fairsim.reproduce.reproductions.blt94.claims import little
from fairsim.reproduce.reproductions.blt94.experiments import Point, knobs

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


def test_every_scheme_has_the_timer_of_a_ten_millisecond_clock():
    sc = fairsim.load(NETWORK)
    for pair in ("BLT", "TCP", "BT"):
        t = sc.resolved(pair)["flows"]["files"]["transport"]
        # G = one tick of hz = 100; the floor two ticks (4.4BSD's minimum feasible timer)
        assert (t["clock_granularity"], t["min_rto"], t["initial_rto"]) == ("10ms", "20ms", "1s"), pair
    tcp = sc.resolved("TCP")["flows"]["files"]["transport"]
    assert tcp["ignore_duplicate_deliveries"] is True and tcp["dupack_threshold"] == 1


def test_the_knobs_set_the_timer_and_the_filter_where_the_pairs_have_them():
    sc = fairsim.load(NETWORK)
    by_name = {k.name: k.overrides(sc) for k in PAPER.knobs}
    assert set(by_name) == {k.name for k in knobs()}
    before = by_name["RTO before issue 28"]
    assert {v for k, v in before.items() if k.endswith("min_rto")} == {"1ms"}
    assert len(before) == 6  # min_rto and clock_granularity of BLT, TCP and BT
    assert by_name["TCP counts duplicate deliveries"] == {
        'pairs."TCP".transport.ignore_duplicate_deliveries': "false"
    }
    changed = fairsim.load(NETWORK, set=by_name["TCP counts duplicate deliveries"])
    assert changed.resolved("TCP")["flows"]["files"]["transport"]["ignore_duplicate_deliveries"] is False
