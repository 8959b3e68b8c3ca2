"""Hasegawa et al. 2001's analysis against the values its equations give (the spec's §9, computed
from the paper's equations as read in fairsim.models.hasegawa01's docstring)."""

import pytest

from fairsim.models import hasegawa01 as m

BW = [4, 8, 16, 32]  # 64, 128, 256, 512 kb/s in 2000-byte packets per second
TAU = 0.1


def kbps(xs):
    return [round(m.kbps(x), 1) for x in xs]


def test_the_reno_window_under_red_at_p_0_02():
    w_max, w_a = m.reno_red_window(0.02)
    assert w_max == pytest.approx(11.547, abs=1e-3) and w_a == pytest.approx(8.660, abs=1e-3)


def test_the_timeout_probability_of_eq_12_both_readings():
    assert m.p_timeout(9, 0.02) == pytest.approx(0.01285, abs=5e-6)
    assert m.p_timeout(9, 0.02, exponent="binomial") == pytest.approx(0.01311, abs=5e-6)


@pytest.mark.parametrize(
    "big_kbps, phase, corrected",
    [
        (400, [58.5, 105.9, 167.6, 213.3], [57.9, 104.8, 165.8, 211.0]),
        (640, [61.3, 117.3, 213.3, 341.3], [60.8, 116.2, 211.1, 337.6]),
        (960, [64.0, 128.0, 256.0, 512.0], [63.4, 126.7, 253.3, 506.3]),
    ],
)
def test_reno_under_red_phase_model_and_timeout_correction(big_kbps, phase, corrected):
    big = m.packets_per_s(big_kbps)
    _, w_a = m.reno_red_window(0.02)
    assert kbps(m.phase_throughput(BW, big, w_a)) == pytest.approx(phase, abs=0.11)
    assert kbps(m.reno_red_throughput(BW, big, TAU, 0.02)) == pytest.approx(corrected, abs=0.11)


def test_red_over_serves_the_small_connections_more_as_the_line_shrinks():
    jains = []
    for big_kbps in (400, 560, 720, 880):
        rho = m.reno_red_throughput(BW, m.packets_per_s(big_kbps), TAU, 0.02)
        relative = [r / b for r, b in zip(rho, BW, strict=True)]
        assert relative == sorted(relative, reverse=True), "relative throughput falls with bw_i"
        jains.append(m.weighted_jain(rho, BW))
    assert jains == sorted(jains) and jains[0] == pytest.approx(0.932, abs=1e-3)


def test_enhanced_red_raises_the_small_connections_p_and_evens_the_shares():
    big = m.packets_per_s(640)
    e = m.enhanced_red(BW, big, TAU)
    assert e.converged and e.steps > 0
    assert e.p[0] > 0.02 > e.p[3], "up for the small connections, down for the largest"
    assert e.p == sorted(e.p, reverse=True)
    assert m.weighted_jain(e.throughput, BW) > m.weighted_jain(m.reno_red_throughput(BW, big, TAU, 0.02), BW)
    assert max(e.p) <= 0.5


def test_enhanced_red_stays_within_its_bounds_at_a_small_line():
    e = m.enhanced_red(BW, m.packets_per_s(400), TAU)
    assert all(1e-4 <= p <= 0.5 for p in e.p)


@pytest.mark.parametrize(
    "big_kbps, rho, window",
    [
        (400, [64, 112, 112, 112], [2.96, 3.68, 3.68, 3.68]),
        (720, [64, 128, 256, 272], [2.89, 3.78, 5.56, 5.78]),
        (960, [64, 128, 256, 512], [2.87, 3.73, 5.47, 8.93]),
    ],
)
def test_vegas_converges_to_equal_shares_capped_at_the_access_rate(big_kbps, rho, window):
    s = m.vegas_converged(BW, m.packets_per_s(big_kbps), TAU)
    assert kbps(s.throughput) == pytest.approx(rho, abs=0.05)
    assert s.window == pytest.approx(window, abs=0.006)


def test_vegas_throughputs_do_not_depend_on_where_in_the_band_it_queues():
    big = m.packets_per_s(560)
    low = m.vegas_converged(BW, big, TAU, alpha=1, beta=1).throughput
    high = m.vegas_converged(BW, big, TAU, alpha=3, beta=3).throughput
    assert low == pytest.approx(high)


@pytest.mark.parametrize(
    "big_kbps, expected",
    [(400, [64, 112, 112, 112]), (640, [64, 128, 222.6, 222.6]), (960, [64, 128, 252.4, 472.8])],
)
def test_vegas_under_red(big_kbps, expected):
    assert kbps(m.vegas_red_throughput(BW, m.packets_per_s(big_kbps), TAU, 0.02)) == pytest.approx(
        expected, abs=0.11
    )


def test_the_optimal_line_and_the_weighted_index():
    assert m.optimal_relative(400, [64, 128, 256, 512]) == pytest.approx(0.4167, abs=1e-4)
    assert m.weighted_jain([64, 128, 256, 512], [64, 128, 256, 512]) == 1.0
    assert m.weighted_jain([1, 0, 0, 0], [1, 1, 1, 1]) == 0.25
