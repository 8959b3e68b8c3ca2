"""A reproduction's findings, assembled once from the runs; the writers only lay them out.

`build(outcome)` compares every published cell, evaluates every claim and draws every figure,
and lays out the pairs added beside the paper's (`added.py`); `to_json` is the machine-readable
document (schema `fairsim.reproduce/1`), and `markdown.py` and `html.py` render the same report
for people.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from fairsim.draw import Network, network, picture
from fairsim.reproduce.added import (
    GOODPUT_FIGURE_CAPTION,
    AddedRow,
    AddedValue,
    GoodputTable,
    failures,
    goodput_table,
    rows_of_added,
)
from fairsim.reproduce.claims import LABELS, Claim, Context, Missing, Verdict, fmt
from fairsim.reproduce.compare import Comparison, compare_rows, compare_table
from fairsim.reproduce.discussion import prose
from fairsim.reproduce.figures import cells as cells_figure
from fairsim.reproduce.figures import goodput as goodput_figure
from fairsim.reproduce.figures import to_svg
from fairsim.reproduce.measure import Estimate, Measurements
from fairsim.reproduce.model import AddedPair, DerivedTable, Experiment, Loaded, Outcome
from fairsim.reproduce.published import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SCHEMA = "fairsim.reproduce/1"
GRADES = ("close", "near", "far")

CELLS_CAPTION = (
    "The paper's value (×) and ours (dot: our mean; bar: from the lowest to the highest "
    "replication, or transfer for transfer times; none with a single one), a panel per unit."
)


@dataclass
class DrawnFigure:
    id: str
    title: str
    caption: str
    svg: str


#: The caption of an experiment's network (`fairsim draw`).
NETWORK_CAPTION = (
    "The scenario as run, drawn by `fairsim draw`: hosts are circles, routers squares; a red line "
    "is a bottleneck (some flow's slowest link), with each pair's discipline at its ports."
)


@dataclass
class Section:
    """One experiment: its setup, network, tables, figures, claims and our discussion."""

    experiment: Experiment
    loaded: Loaded
    #: The drawing of its network; None when an earlier section's (`network_as`) is the same.
    network: DrawnFigure | None = None
    #: The id of the earlier experiment that runs the same network.
    network_as: str | None = None
    tables: list[tuple[Table, list[list[Comparison]]]] = field(default_factory=list)
    figures: list[DrawnFigure] = field(default_factory=list)
    claims: list[tuple[Claim, Verdict]] = field(default_factory=list)
    #: The rows of the added pairs under each published table, by the table's id.
    added_rows: dict[str, list[AddedRow]] = field(default_factory=dict)
    #: Every flow's goodput under every pair, when pairs were added to the paper's.
    goodput: GoodputTable | None = None
    #: (pair, message) of each added pair that failed here: it has no numbers in this section.
    failures: list[tuple[str, str]] = field(default_factory=list)
    #: Our discussion, its fields filled from the runs (Markdown).
    discussion: str = ""

    @property
    def added_values(self) -> list[tuple[str, AddedRow, AddedValue]]:
        """(table id, row, value) of every value of ours shown beside the added pairs."""
        tables = [*self.added_rows.items(), *([(self.goodput.id, self.goodput.rows)] if self.goodput else [])]
        return [(t, row, v) for t, rows in tables for row in rows for v in row.values]


@dataclass
class Report:
    outcome: Outcome
    sections: list[Section]
    #: Claim id -> {variant -> verdict} when the reproduction ran its stability variants.
    stability: dict[str, dict[str, str]] | None = None

    @property
    def paper(self):
        return self.outcome.paper

    @property
    def comparisons(self) -> list[Comparison]:
        return [c for s in self.sections for _, rows in s.tables for row in rows for c in row]

    @property
    def verdicts(self) -> list[tuple[Claim, Verdict]]:
        return [cv for s in self.sections for cv in s.claims]

    @property
    def added(self) -> list[AddedPair]:
        """The pairs run beside the paper's, each with the experiments it failed in."""
        return self.outcome.added

    def claim_counts(self) -> Counter:
        return Counter(v.label for _, v in self.verdicts)

    def grade_counts(self) -> Counter:
        return Counter(c.grade for c in self.comparisons)

    def close_counts(self) -> dict[str, int]:
        """Graded cells and close ones, over all of them and over those whose published value is
        not zero: a printed zero (no drops, no retransmissions) is easy to be close to. Cells
        that fed a derivation of ours (◇) are close by construction and left out."""
        graded = [c for c in self.comparisons if c.grade in GRADES and not c.paper.construction]
        nonzero = [c for c in graded if c.paper.value != 0]
        return {
            "construction": sum(c.paper.construction for c in self.comparisons),
            "graded": len(graded),
            "close": sum(c.grade == "close" for c in graded),
            "nonzero": len(nonzero),
            "nonzero_close": sum(c.grade == "close" for c in nonzero),
        }


#: One line for a reader new to reproductions: a claim that does not hold is what the simulation
#: found about the paper, not a fault of the tool (a run that fails is an error, said as one).
NOT_HELD_NOTE = (
    "A claim marked \u201cnot held\u201d is a finding about the paper under this reproduction's "
    "reading of it, not a failure of fairsim: every run of the paper's pairs finished, and the "
    "report says where and why the numbers differ."
)


def claims_line(counts: Counter, total: int) -> str:
    """`24 held, 6 not held, 0 not checkable, 0 not evaluated (of 30)`."""
    return ", ".join(f"{counts.get(k, 0)} {k}" for k in LABELS) + f" (of {total})"


def close_line(cells: dict[str, int]) -> str:
    """`close: 176 of 289 graded cells (61%), 112 of 223 non-zero ones (50%)`."""

    def share(close: int, n: int) -> str:
        return f" ({close / n:.0%})" if n else ""

    return (
        f"close: {cells['close']} of {cells['graded']} graded cells{share(cells['close'], cells['graded'])}, "
        f"{cells['nonzero_close']} of the {cells['nonzero']} whose published value is not zero"
        f"{share(cells['nonzero_close'], cells['nonzero'])}"
        + (f"; {cells['construction']} close by construction left out" if cells.get("construction") else "")
    )


def cells_line(report: Report) -> str:
    """The published cells compared, in one line: the grades and the close fraction, or, for a
    paper that prints no table of numbers, that it does not."""
    grades = report.grade_counts()
    if not any(grades.get(g, 0) for g in (*GRADES, "ungraded")):
        return (
            "none graded (no table of the paper is compared cell by cell; its findings are checked as claims)"
        )
    return (
        ", ".join(f"{grades.get(g, 0)} {g}" for g in GRADES)
        + f"; {grades.get('ungraded', 0)} blank, unreadable or not printed in the paper; "
        + close_line(report.close_counts())
    )


def runs_line(o: Outcome) -> str:
    """ "75 runs (45 from the cache), 1,234 events in 9.8 s": what ran and how long it took."""
    cached = f" ({o.cached} from the cache)" if o.cached else ""
    return f"{o.runs} runs{cached}, {o.events:,} events in {o.wall_s:.1f} s."


def quick_banner(report: Report) -> str | None:
    """What a `--quick` report says at its top: its verdicts come from coarse sweep grids and
    one replication (or `--seeds`), and may differ from the full run's; None for a full run."""
    o = report.outcome
    if not o.quick:
        return None
    full = o.paper.seeds
    return (
        f"Quick mode: these verdicts and numbers come from coarse sweep grids and "
        f"{o.replications_line()}, and may differ from the full run's, which "
        f"uses {full} replication{'s' if full != 1 else ''} per pair and the full grids "
        f"(`fairsim reproduce {o.paper.id}` without `--quick`)."
    )


def build(outcome: Outcome, progress: bool | None = None) -> Report:
    """Compares every published cell, evaluates every claim and draws every figure (on every
    core, with a progress line: reproduce/drawing.py)."""
    from fairsim.reproduce.drawing import draw_all

    paper = outcome.paper
    ctx = outcome.context
    figures = paper.figures  # imports the paper's figures module: once, not per experiment
    sections = []
    #: (where it goes, id, title, caption, draws the figure): drawn together below
    pending: list[tuple[Callable[[DrawnFigure], None], str, str, str, Callable[[], Figure]]] = []
    #: the first section of each network: experiments that run the same one share its drawing
    networks: dict[Network, Section] = {}
    verdicts = {c.id: c.evaluate(ctx) for c in paper.claims}
    for exp_id, loaded in outcome.loaded.items():
        sec = Section(loaded.experiment, loaded)
        sec.discussion = prose(loaded.experiment.discussion).render(ctx, verdicts)
        net = network(loaded.scenario)
        if net in networks:
            sec.network_as = networks[net].experiment.id
        else:
            networks[net] = sec
            title = f"The network of {loaded.experiment.file}"
            place = partial(setattr, sec, "network")
            pending.append((place, f"{exp_id}-network", title, NETWORK_CAPTION, partial(picture, net)))
        m = outcome.measurements.get(exp_id)
        for i, table in enumerate(loaded.published.tables):
            rows = compare_table(exp_id, table, m)
            sec.tables.append((table, rows))
            if i == 0 and any(c.paper.value is not None for row in rows for c in row):
                fig_id = f"{exp_id}-{table.id}"
                draw = partial(cells_figure, rows, table.title)
                pending.append((sec.figures.append, fig_id, table.title, CELLS_CAPTION, draw))
        if outcome.added:
            _show_added_pairs(sec, outcome, m, pending)
        for d in paper.derived_tables:
            if d.experiment == exp_id and (ours := _derived(d, ctx)) is not None:
                sec.tables.append((d.table, compare_rows(exp_id, d.table, ours)))
        for f in figures:
            if f.experiment == exp_id:
                pending.append((sec.figures.append, f.id, f.title, f.caption, partial(f.draw, ctx)))
        sec.claims = [(c, verdicts[c.id]) for c in paper.claims if c.experiment == exp_id]
        sections.append(sec)
    jobs = [partial(_svg, draw, fig_id) for _, fig_id, _, _, draw in pending]
    for (place, fig_id, title, caption, _), svg in zip(
        pending, draw_all(jobs, paper.id, progress), strict=True
    ):
        if svg is not None:
            place(DrawnFigure(fig_id, title, caption, svg))
    return Report(outcome, sections)


def _show_added_pairs(sec: Section, outcome: Outcome, m: Measurements | None, pending: list) -> None:
    """The added pairs' rows under each published table, the goodput table (drawn too, when
    the experiment is not a sweep), and the messages of those that failed here."""
    exp = sec.experiment
    sec.failures = failures(exp, outcome)
    ran = [a.name for a in outcome.added if exp.id not in a.failures]
    if m is not None and ran:
        sec.added_rows = {t.id: rows_of_added(t, m, ran) for t in sec.loaded.published.tables}
    sec.goodput = goodput_table(exp, outcome)
    if m is not None and sec.goodput is not None:
        t = sec.goodput
        draw = partial(goodput_figure, t)
        pending.append((sec.figures.append, t.id, t.title, GOODPUT_FIGURE_CAPTION, draw))


def _derived(d: DerivedTable, ctx: Context) -> list[list[Estimate | None]] | None:
    """Our values of a derived table's cells; None when an experiment they need did not run."""
    try:
        return d.ours(ctx)
    except Missing:
        return None


def _svg(draw: Callable[[], Figure], prefix: str) -> str | None:
    """The figure as SVG; None when it needs an experiment that did not run (`-e`)."""
    try:
        return to_svg(draw(), prefix=prefix)
    except Missing:
        return None


def estimate_json(e: Estimate | None) -> dict | None:
    if e is None:
        return None
    return {"mean": e.mean, "std": e.std, "ci95": e.ci95, "runs": e.runs, "samples": e.samples}


def to_json(report: Report) -> dict:
    from fairsim.reproduce.stability import what_moves

    o = report.outcome
    moves = what_moves(o.paper, report.stability) if report.stability is not None else {}
    return {
        "schema": SCHEMA,
        "paper": {"id": o.paper.id, "title": o.paper.title, "citation": o.paper.citation},
        "options": {"quick": o.quick, "seeds": o.seeds},
        "complete": not o.interrupted,
        "runs": o.runs,
        "replications": o.replications,
        "events": o.events,
        "summary": {
            "claims": {k: report.claim_counts().get(k, 0) for k in LABELS},
            "cells": {k: report.grade_counts().get(k, 0) for k in (*GRADES, "ungraded")},
            "close": report.close_counts(),
        },
        "experiments": [
            {"id": s.experiment.id, "title": s.experiment.title, "file": s.experiment.file}
            for s in report.sections
        ],
        "claims": [
            {
                "id": c.id,
                "experiment": c.experiment,
                "text": c.text,
                "tolerance": c.tolerance,
                "source": c.source,
                "verdict": v.label,
                "held": v.held,
                "measured": v.measured,
                "cannot_fail": c.cannot_fail,
                **({"stability": report.stability.get(c.id, {})} if report.stability is not None else {}),
                **({"moved_by": moves[c.id]} if c.id in moves else {}),
            }
            for c, v in report.verdicts
        ],
        "tested_claims": [
            {"id": t.id, "text": t.text, "tests": list(t.tests), "source": t.source} for t in o.paper.tested
        ],
        "cells": [
            {
                "experiment": c.experiment,
                "table": c.table,
                "row": c.row,
                "column": c.column,
                "pair": c.key.pair,
                "flow": c.key.flow,
                "metric": c.key.metric,
                "paper": {
                    "printed": c.paper.printed,
                    "value": c.paper.value,
                    "std": c.paper.std,
                    "garbled": c.paper.garbled,
                    "unprinted": c.paper.unprinted,
                    "construction": c.paper.construction,
                },
                "ours": estimate_json(c.ours),
                "ranked": c.ranked,
                "difference": c.difference,
                "grade": c.grade,
            }
            for c in report.comparisons
        ],
        **_added_json(report),
    }


def _added_json(report: Report) -> dict:
    """The added pairs: each with its table and failures, and every value of ours the report
    shows beside them, each marked `added` (its pair is not the paper's) or not."""
    pairs = [
        {
            "name": a.name,
            "added": True,
            "table": a.table,
            "failures": [{"experiment": e, "error": message} for e, message in a.failures.items()],
        }
        for a in report.added
    ]
    values = [
        {
            "experiment": s.experiment.id,
            "table": table_id,
            "row": row.label,
            "column": v.column,
            "pair": v.key.pair,
            "flow": v.key.flow,
            "metric": v.key.metric,
            "added": v.added,
            "ours": estimate_json(v.ours),
        }
        for s in report.sections
        for table_id, row, v in s.added_values
    ]
    return {"added_pairs": pairs, "added_values": values}


def cell_text(c: Comparison) -> tuple[str, str]:
    """(ours, paper's) as short strings: `1.66 ±0.02` and `1.69 0.68` as printed."""
    return estimate_text(c.ours), paper_text(c)


def estimate_text(e: Estimate | None) -> str:
    """Our value as a short string: `1.66 ±0.02`, or `–` when nothing was measured."""
    if e is None:
        return "–"
    # identical replications leave a spread of rounding error (±2.5e-16), which is no spread
    spread = e.std > 1e-9 * abs(e.mean)
    return fmt(e.mean) + (f" ±{fmt(e.std, 2)}" if spread else "")


def paper_text(c: Comparison) -> str:
    return c.paper.printed if c.paper.printed else "(blank)"


GRADE_MARK = {"close": "✓", "near": "≈", "far": "✗", "ungraded": ""}
GARBLED_NOTE = (
    "† marks a cell that looks misprinted in the paper (kept as printed); ‡ a value not printed in "
    "our copy of the paper (derived, or recalled by the notes): shown, not graded; ◇ a cell that fed one of "
    "our derivations (a setpoint, a propagation delay): close by construction, left out of the close "
    "fraction; ⇅ a cell compared by rank "
    "(the paper's k-th largest value in its row beside our k-th largest of each run, where which "
    "sources win changes from run to run)"
)
RANK_MARK = "⇅"


def contents(report: Report) -> list[tuple[str, str]]:
    """The report's top-level parts as (anchor, heading), for its table of contents."""
    parts = [("summary", "Summary"), ("method", "Method")]
    if report.stability is not None:
        parts.append(("stability", "Stability of the verdicts"))
    parts += [(s.experiment.id, s.experiment.title) for s in report.sections]
    if report.paper.tested:
        parts.append(("tested", TESTED_HEADING))
    return parts


TESTED_HEADING = "Claims about the algorithms, checked by the test suite"


def claim_anchor(claim: Claim) -> str:
    return f"claim-{claim.id}"
