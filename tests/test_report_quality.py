"""The reproduction reports as a reader meets them: every character renders with a stock font,
the prose is rendered rather than shown as Markdown, the figures say what they draw without
mixing units or drawing impossible values, claims cite the paper, and the same runs give the
same bytes."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from itertools import combinations

import pytest
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.ft2font import FT2Font

from fairsim import reproduce
from fairsim.reproduce.figures import cells, utility_diagram
from fairsim.reproduce.measure import METRIC_UNITS

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dks89():
    """Scenarios 1, 2 and 4 with two replications each, so that spreads exist."""
    return reproduce.run("dks89", quick=True, seeds=2, only=["s1", "s2", "s4"], progress=False)


@pytest.fixture(scope="module")
def written(dks89, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    reproduce.write(dks89, out)
    return out


class _Page(HTMLParser):
    """The visible text of a page (outside <style> and <svg>), its ids and its local links."""

    def __init__(self):
        super().__init__()
        self.text: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("style", "svg"):
            self._hidden += 1
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "a" and (a.get("href") or "").startswith("#"):
            self.links.append(a["href"][1:])

    def handle_startendtag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])

    def handle_endtag(self, tag):
        if tag in ("style", "svg"):
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.text.append(data)


def _page(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def _stock_font_characters() -> set[int]:
    """What DejaVu Sans and DejaVu Sans Mono (Debian's fonts-dejavu-core, bundled with
    matplotlib) can draw: a reader without an emoji font sees boxes for anything else."""
    chars: set[int] = set()
    for family in ("DejaVu Sans", "DejaVu Sans Mono"):
        path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
        chars |= set(FT2Font(path).get_charmap())
    return chars


@pytest.mark.parametrize("name", ["report.html", "report.md"])
def test_every_character_of_the_report_renders_with_a_stock_font(written, name):
    drawable = _stock_font_characters() | {ord("\n")}
    text = (written / name).read_text()
    if name.endswith(".html"):
        text = "".join(_page(text).text)
    missing = sorted({ch for ch in text if ord(ch) not in drawable})
    assert not missing, f"{name} uses characters a stock font cannot draw: {missing}"


def test_verdicts_are_coloured_text_badges(written):
    text = (written / "report.html").read_text()
    assert "<span class='badge held'>held</span>" in text
    assert re.search(r"\.badge\.not-held \{[^}]*background", text)


@pytest.mark.parametrize(
    "source, rendered",
    [
        ("the `buffer_includes_line` rule", "the <code>buffer_includes_line</code> rule"),
        ("*italic* and **bold**", "<em>italic</em> and <strong>bold</strong>"),
        ("see [the paper](https://example.org/p)", 'see <a href="https://example.org/p">the paper</a>'),
        ("'.85<del>9</del>' & 1 < 2", "'.85&lt;del&gt;9&lt;/del&gt;' &amp; 1 &lt; 2"),
        ("two\n  lines", "two lines"),
    ],
)
def test_inline_markdown_becomes_html(source, rendered):
    from fairsim.reproduce.prose import inline

    assert inline(source) == rendered


def test_the_html_shows_no_raw_markdown(written):
    page = (written / "report.html").read_text()
    text = "".join(_page(page).text)
    assert "`" not in text and "*" not in text
    assert "<code>buffer_includes_line</code>" in page


def test_the_papers_italics_in_table_cells_are_rendered():
    """The thesis prints some spreads in italics, kept as `*0.02*` in the scenario files."""
    from fairsim.reproduce import html

    page = html.render(reproduce.run("keshav91", quick=True, only=["s1"], progress=False))
    assert "<em>0.02</em>" in page
    assert "*" not in "".join(_page(page).text)


def test_every_report_has_a_table_of_contents_whose_links_resolve(written):
    page = _page((written / "report.html").read_text())
    assert "Contents" in page.text
    assert {"summary", "method", "s1", "s2", "s4", "tested"} <= set(page.links)
    assert set(page.links) <= set(page.ids), "a link to nowhere"
    assert len(page.ids) == len(set(page.ids)), "two elements (or two figures' SVG parts) share an id"
    md = (written / "report.md").read_text()
    contents = md[md.index("## Contents") : md.index("## Summary")]
    targets = re.findall(r"\]\(#([^)]+)\)", contents)
    assert {"summary", "method", "s1", "s2", "s4", "tested"} <= set(targets)
    for t in targets:
        assert f'<a id="{t}"></a>\n\n#' in md, (
            f"the Markdown contents link #{t} has no anchor before a heading"
        )


def _svg_texts(svg: str) -> list[str]:
    """matplotlib writes each text of a figure drawn as paths as a comment."""
    return re.findall(r"<!-- (.*?) -->", svg)


def test_no_figure_title_repeats_itself(dks89):
    titles = [s.experiment.title for s in dks89.sections]
    for f in (f for s in dks89.sections for f in s.figures):
        for text in _svg_texts(f.svg):
            for title in titles:
                assert text.count(title) <= 1, f"{f.id}: {text!r}"


def test_a_table_of_several_units_is_drawn_a_panel_per_unit(dks89):
    s4 = next(s for s in dks89.sections if s.experiment.id == "s4")
    _, rows = s4.tables[0]
    flat = [c for row in rows for c in row if c.paper.value is not None]
    assert {METRIC_UNITS[c.key.metric][0] for c in flat} == {"packets", "s"}
    svg = next(f.svg for f in s4.figures if f.id == "s4-results")
    assert len(re.findall(r'<g id="[\w-]*axes_\d+">', svg)) == 2
    assert {"packets", "seconds"} <= set(_svg_texts(svg))


def test_spreads_stay_within_what_the_quantity_can_be(dks89):
    """G/FCFS's Scenario 2 FTPs win or lose by replication: a mean ± a multiple of the spread
    reaches below zero packets, the range of the replications does not."""
    s2 = next(s for s in dks89.sections if s.experiment.id == "s2")
    _, rows = s2.tables[0]
    assert any(c.ours.mean - c.ours.ci95 < 0 for row in rows for c in row if c.ours), "no wide spread to test"
    fig = cells(rows, "Scenario 2")
    lows = [seg[:, 0].min() for ax in fig.axes for coll in ax.collections for seg in coll.get_segments()]
    assert lows and min(lows) >= 0


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_the_utility_diagram_has_no_overlapping_labels_and_tells_pairs_apart_by_marker(dks89):
    m = dks89.outcome.measurements["s1"]
    flows = [("ftp1", "1"), ("ftp2", "2"), ("telnet3", "3"), ("telnet4", "4")]
    fig = utility_diagram(m, ("G/FCFS", "G/FQ"), flows, "Scenario 1")
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    ax = fig.axes[0]
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        ticks = zip(axis.get_ticklocs(), axis.get_ticklabels(), strict=True)
        texts += [label for loc, label in ticks if lo <= loc <= hi]  # those drawn
    for legend in fig.legends or [ax.get_legend()]:
        texts += [legend.get_title(), *legend.get_texts()]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    for (ta, a), (tb, b) in combinations(boxes, 2):
        assert not _overlap(a, b), f"labels {ta!r} and {tb!r} overlap"
    plot_area = ax.get_window_extent(renderer)
    legends = fig.legends or [ax.get_legend()]
    for legend in legends:
        assert not _overlap(legend.get_window_extent(renderer), plot_area), "a legend covers the plot"
    handles = {h.get_label(): h for lg in legends for h in lg.legend_handles}
    assert handles["G/FCFS"].get_marker() != handles["G/FQ"].get_marker()
    assert {h.get_label() for h in handles.values()} >= {"1: ftp1", "4: telnet4"}


@pytest.mark.parametrize("paper", list(reproduce.papers()))
def test_claims_cite_the_paper_not_our_notes(paper):
    p = reproduce.paper(paper)
    where = re.compile(r"§\s?\d|Figure|Fig\.|Table|Appendix")
    for claim in (*p.claims, *p.tested):
        assert claim.source and where.search(claim.source), f"{claim.id}: {claim.source!r}"
        assert not re.search(r"\bspec\b", claim.source, re.I), f"{claim.id}: {claim.source!r}"


def test_the_reader_meets_no_reference_to_our_notes(written):
    text = " ".join(_page((written / "report.html").read_text()).text)
    for internal in re.findall(r"[^.]*\b(?:spec|seed)\b[^.]*", text, re.I):
        pytest.fail(f"internal reference in the report: {internal.strip()!r}")


def test_the_same_runs_give_the_same_bytes(tmp_path):
    for folder in ("a", "b"):
        report = reproduce.run("dks89", quick=True, only=["s1", "s4"], progress=False)
        reproduce.write(report, tmp_path / folder)
    a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert a == b and len(a) > 4
    for rel in a:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


def test_identical_replications_show_no_spread_of_rounding_error():
    from fairsim.reproduce.compare import Comparison
    from fairsim.reproduce.measure import Estimate
    from fairsim.reproduce.published import Cell, Key
    from fairsim.reproduce.report import cell_text

    def ours(mean: float, std: float) -> str:
        estimate = Estimate(mean, std, 0.0, runs=5, samples=5)
        cell = Comparison("s4", "t", "row", "col", Key("G/FQ", "ftp1", "rtt"), Cell("2.11", 2.11), estimate)
        return cell_text(cell)[0]

    assert ours(1.98, 2.5e-16) == "1.98"
    assert ours(0.859, 9.1e-5) == "0.859 ±9.1e-05"
