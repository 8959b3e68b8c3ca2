"""A value the notes derive or recall, not printed in our copy of the paper (marked ‡), is shown
beside ours but not graded: it is not the paper's own number (csfq98's Tables 1 and 2)."""

from pathlib import Path

import pytest

import fairsim
from fairsim.reproduce.compare import Comparison
from fairsim.reproduce.measure import Estimate
from fairsim.reproduce.published import Key, parse_cell

ROOT = Path(__file__).resolve().parent.parent


def compared(printed: str, ours: float) -> Comparison:
    key = Key("P", "f", "packets")
    return Comparison("e", "t", "P", "c", key, parse_cell(printed), Estimate(ours, 0.0, 0.0, 1, 1))


@pytest.mark.parametrize("printed, grade", [("1714", "near"), ("1714 †", "near"), ("1714 ‡", "ungraded")])
def test_a_value_not_printed_in_the_paper_is_not_graded(printed, grade):
    c = compared(printed, 1421.0)
    assert c.grade == grade
    assert c.paper.value == 1714.0, "the value is still shown"


def test_csfq98s_recalled_and_derived_cells_are_marked():
    """The scenarios' notes (`table1_onoff.toml`, `table2_web.toml`) mark Table 1's FRED row as
    recalled and its FIFO drops as derived, and Table 2's DRR, CSFQ and FRED rows as recalled."""
    for name, marked in (("table1_onoff", 3), ("table2_web", 3)):
        text = (ROOT / "python/fairsim/scenarios/csfq98" / f"{name}.toml").read_text()
        assert text.count(' ‡"') == marked, name
    sc = fairsim.load("csfq98/table1_onoff")
    assert sc.name


def test_a_cell_that_fed_a_derivation_is_graded_but_left_out_of_the_close_fraction():
    """keshav91's Packet-Pair setpoints come from the thesis's own PP delays and throughputs by
    Little's law, and Scenario 6's 85 ms per hop from its DEC/DEC round trips: those cells are
    close by construction (◇), not evidence."""
    from fairsim.reproduce.report import Report, close_line

    c = compared("2.40 ◇", 2.41)
    assert c.paper.construction and c.paper.value == 2.40 and c.grade == "close"

    from types import SimpleNamespace

    counts = Report.close_counts(SimpleNamespace(comparisons=[c, compared("2.40", 2.41)]))
    assert counts == {"construction": 1, "graded": 1, "close": 1, "nonzero": 1, "nonzero_close": 1}
    assert "1 close by construction left out" in close_line(counts)
    marked = sum(
        (ROOT / "python/fairsim/scenarios/keshav91" / f"{s}.toml").read_text().count(' ◇"')
        for s in ("s2_overloaded", "s4_ill_behaved", "s5_mixed", "s6_multihop")
    )
    assert marked == 12 + 2 + 8 + 3
