"""A report's figures are drawn on every core, and give the same bytes as drawn one by one."""

import pytest

import fairsim.reproduce.drawing as drawing
from fairsim.reproduce import paper
from fairsim.reproduce.model import run_paper
from fairsim.reproduce.report import build, runs_line

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = pytest.mark.slow


def test_figures_drawn_in_workers_are_the_bytes_drawn_here(monkeypatch, tmp_path):
    outcome = run_paper(paper("dks89"), quick=True, only=["s1", "s3"], progress=False, cache=tmp_path)
    forked = build(outcome)
    monkeypatch.setattr(drawing, "_can_fork", lambda: False)
    here = build(outcome)
    figures = [[(f.id, f.svg) for f in s.figures] for s in forked.sections]
    assert sum(map(len, figures)) >= 2
    assert figures == [[(f.id, f.svg) for f in s.figures] for s in here.sections]
    # a second run finds every run in the folder and says so
    again = run_paper(paper("dks89"), quick=True, only=["s1", "s3"], progress=False, cache=tmp_path)
    assert again.cached == again.runs > 0
    assert f"{again.runs} runs ({again.runs} from the cache)" in runs_line(again)


def test_a_failing_figure_fails_the_report_with_its_error():
    def broken() -> str:
        raise ValueError("no such column")

    try:
        drawing.draw_all([lambda: "<svg/>", broken], "t", progress=False, workers=2)
    except ValueError as e:
        assert "no such column" in str(e)
    else:
        raise AssertionError("the error was lost")


def test_a_paper_without_tables_says_so_in_words():
    from collections import Counter
    from types import SimpleNamespace

    from fairsim.reproduce.report import cells_line

    cells = {"close": 0, "graded": 0, "nonzero_close": 0, "nonzero": 0}
    none = SimpleNamespace(grade_counts=Counter, close_counts=lambda: cells)
    assert cells_line(none).startswith("none graded (no table of the paper is compared cell by cell")
    some = SimpleNamespace(grade_counts=lambda: Counter(close=3, far=1), close_counts=lambda: cells)
    assert cells_line(some).startswith("3 close, 0 near, 1 far; 0 blank")


def test_each_network_is_drawn_once_and_shown_with_its_experiments(tmp_path):
    from fairsim.reproduce import write

    outcome = run_paper(
        paper("dks89"), quick=True, only=["s1", "s2"], progress=False, cache=tmp_path / "runs"
    )
    report = build(outcome)
    s1, s2 = report.sections
    assert s1.network and s2.network and s1.network.svg != s2.network.svg, "two files, two networks"
    assert s1.network.svg.lstrip().startswith(("<?xml", "<svg")) and "s1" in s1.network.title
    written = write(report, tmp_path / "out")
    assert tmp_path / "out" / "figures" / "s1-network.svg" in written
    md = (tmp_path / "out" / "report.md").read_text()
    assert "![The network of dks89/s1_underloaded.toml](figures/s1-network.svg)" in md
    # the drawing comes with the setup, before the experiment's tables and their figures
    assert (
        md.index("figures/s2-network.svg")
        < md.index("### ", md.index("## Scenario 2"))
        < md.index("figures/s2-throughput.svg")
    )
    html = (tmp_path / "out" / "report.html").read_text()
    assert html.count("<figure id='fig-s1-network'>") == 1


def test_experiments_that_run_one_network_share_its_drawing(tmp_path):
    # dks89's Figure 1 and its delay table run the same file with the same network
    dks89 = paper("dks89")
    shared = [e.id for e in dks89.experiments if e.file == "dks89/fig1_telnet_delay.toml"]
    assert len(shared) == 2
    report = build(run_paper(dks89, quick=True, only=shared, progress=False, cache=tmp_path))
    first, second = report.sections
    assert first.network is not None and second.network is None and second.network_as == first.experiment.id
    from fairsim.reproduce import markdown

    assert f"*The network is [{shared[0]}](#{shared[0]})'s.*" in markdown.render(report)
