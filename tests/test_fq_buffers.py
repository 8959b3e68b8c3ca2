"""Keshav 1991 chapter 3's claims about FQ's packet buffer, on fairsim's traces."""

import pytest

from fairsim.studies import fq_buffers as study


@pytest.fixture(scope="module")
def df():
    grid = study.Grid(conversations=(2, 10, 40), buffers=(10, 200), duration_s=150.0)
    return study.run(grid, progress=False)


def test_the_four_structures_see_identical_traffic(df):
    assert study.check_same_traffic(df)
    assert (df.inserts > 0).all()


def test_perc_always_costs_less_than_heap_or_tree(df):
    t = study.pivot(df)
    assert ((t.PERC < t.HEAP) & (t.PERC < t.TREE)).all(), t


def test_heap_is_within_an_order_of_magnitude_of_perc(df):
    t = study.pivot(df)
    assert (t.HEAP <= 10 * t.PERC.clip(lower=0.1)).all(), t


def test_link_is_cheapest_well_inside_the_underloaded_region_and_trees_skew_there(df):
    t = study.pivot(df).reset_index()
    # "zone I" of Figure 3.7; at the boundary N·W = B itself LINK already pays (see the docs)
    inside = t[t.conversations * 5 <= t.buffers / 2]
    assert len(inside) >= 2 and (inside.LINK == 0).all(), inside
    # at the same number of conversations, a tree costs more underloaded than overloaded
    n40 = t[t.conversations == 40].set_index("regime")
    assert n40.loc["underloaded", "TREE"] > n40.loc["overloaded", "TREE"]


def test_worst_cases_are_as_table_3_1_says(df):
    m = study.pivot(df, "max_ops_per_insert").reset_index()
    big = m[(m.conversations == 40) & (m.buffers == 200)].iloc[0]
    # LINK and TREE: O(B) in the worst case; HEAP O(log B); PERC O(log N)
    assert big.TREE > 100 and big.HEAP <= 2 * 8 and big.PERC <= 2 * 6
