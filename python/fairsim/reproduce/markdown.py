"""The reproduction report as Markdown (figures as files beside it, in `figures/`).

Verdicts are words (no emoji: a machine without an emoji font would show empty boxes); headings
carry explicit anchors, so the table of contents links work in any renderer.
"""

from __future__ import annotations

from fairsim.reproduce.added import (
    ADDED_NOTE,
    ADDED_ROWS_NOTE,
    GOODPUT_CAPTION,
    AddedRow,
    GoodputTable,
    column_label,
    summary_line,
)
from fairsim.reproduce.claims import Verdict
from fairsim.reproduce.prose import reflow
from fairsim.reproduce.report import (
    GARBLED_NOTE,
    GRADE_MARK,
    NOT_HELD_NOTE,
    RANK_MARK,
    TESTED_HEADING,
    DrawnFigure,
    Report,
    Section,
    cell_text,
    cells_line,
    claim_anchor,
    claims_line,
    contents,
    estimate_text,
    quick_banner,
)


def _esc(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(_esc(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(_esc(c) for c in row) + " |" for row in rows]
    return out


def verdict_text(v: Verdict) -> str:
    return f"*{v.label}*" if v.held is None else f"**{v.label}**"


def _caveats(v: Verdict) -> list[str]:
    return [f"  - {c}" for c in v.caveats()]


def _anchor(name: str) -> str:
    """An HTML anchor (a heading's own slug differs between Markdown renderers); before a
    heading it needs a blank line, or the heading would be read as part of the HTML block."""
    return f'<a id="{name}"></a>'


def render(report: Report, figure_dir: str = "figures") -> str:
    p, o = report.paper, report.outcome
    claims = report.claim_counts()
    lines = [
        f"# Reproduction of {p.title}",
        "",
        f"*{p.citation}*",
        "",
        *([f"> **{banner}**", ""] if (banner := quick_banner(report)) else []),
        p.summary.strip(),
        "",
        "## Contents",
        "",
        *(f"{i}. [{title}](#{a})" for i, (a, title) in enumerate(contents(report), 1)),
        "",
        _anchor("summary"),
        "",
        "## Summary",
        "",
        f"- **Claims:** {claims_line(claims, len(report.verdicts))}. {NOT_HELD_NOTE}",
        f"- **Published cells:** {cells_line(report)}.",
        f"- **Runs:** {o.runs} ({o.replications_line()}"
        f"{', quick mode' if o.quick else ''}), {o.events:,} events.",
    ]
    if o.interrupted:
        lines.append("- **Interrupted:** the runs were stopped early; numbers are partial.")
    if o.added:
        lines.append(f"- **Added pairs:** {summary_line(o)}")
    lines += [
        "",
        "Cells read *ours ±spread · paper's as printed* and are graded ✓ close (within 10% or the "
        f"metric's slack), ≈ near (25%), ✗ far; {GARBLED_NOTE}. "
        "See docs/reproductions.md for the rules.",
        "",
        _anchor("method"),
        "",
        "## Method",
        "",
        p.method.strip(),
        "",
        "| claim | verdict | experiment |",
        "|---|---|---|",
    ]
    lines += [
        f"| [{c.id}](#{claim_anchor(c)}) | {verdict_text(v)} | [{c.experiment}](#{c.experiment}) |"
        for c, v in report.verdicts
    ]
    if report.stability is not None:
        from fairsim.reproduce.stability import CAUSES_HEADING, HEADING, causes_text, summary

        text, headers, rows = summary(report.paper, report.stability)
        lines += ["", _anchor("stability"), "", f"## {HEADING}", "", text, "", *_table(headers, rows)]
        moves = causes_text(report.paper, report.stability)
        if moves:
            lines += ["", f"### {CAUSES_HEADING}", "", moves]
    for sec in report.sections:
        lines += ["", *_section(sec, figure_dir)]
    if p.tested:
        lines += ["", _anchor("tested"), "", f"## {TESTED_HEADING}", ""]
        for t in p.tested:
            tests = ", ".join(f"`{x}`" for x in t.tests) or "none"
            lines.append(f"- **{t.id}** — {t.text} *({t.source})* Tests: {tests}.")
    return "\n".join(lines) + "\n"


def _figure(f: DrawnFigure, figure_dir: str) -> list[str]:
    return ["", f"![{f.title}]({figure_dir}/{f.id}.svg)", "", f"*{f.title}.* {f.caption}"]


def _added_row(row: AddedRow, label: str) -> list[str]:
    return [label, *(estimate_text(v.ours) for v in row.values)]


def _goodput(table: GoodputTable) -> list[str]:
    headers = ["flow", *(column_label(p, table.added) for p in table.pairs)]
    body = [_added_row(r, r.label) for r in table.rows]
    return ["", f"### {table.title}", "", *_table(headers, body), "", f"*{GOODPUT_CAPTION}*"]


def _section(sec: Section, figure_dir: str) -> list[str]:
    exp, sc, pub = sec.experiment, sec.loaded.scenario, sec.loaded.published
    lines = [_anchor(exp.id), "", f"## {exp.title}", "", f"`{exp.file}` — {sc.description}"]
    if sc.notes:
        lines += ["", "**Setup and reconstruction.** " + reflow(sc.notes)]
    if sec.network:
        lines += _figure(sec.network, figure_dir)
    elif sec.network_as:
        lines += ["", f"*The network is [{sec.network_as}](#{sec.network_as})'s.*"]
    if pub.source:
        lines += ["", f"**Published:** {pub.source}. {pub.units}"]
    if pub.notes:
        lines += ["", "**The paper's tables:** " + " ".join(pub.notes.split())]
    for pair, message in sec.failures:
        lines += ["", f"**The added pair `{pair}` failed here**; it has no numbers in this section:", ""]
        lines += ["```text", message.rstrip(), "```"]
    for table, rows in sec.tables:
        lines += ["", f"### {table.title}", ""]
        if table.interval:
            lines += [f"*Measured over {table.interval[0]:g}–{table.interval[1]:g} s.*", ""]
        body = []
        for label, row in zip(table.row_labels, rows, strict=True):
            cells = []
            for c in row:
                ours, paper = cell_text(c)
                rank = f" {RANK_MARK}" if c.ranked else ""
                cells.append(f"{ours} · {paper} {GRADE_MARK[c.grade]}{rank}".strip())
            body.append([label, *cells])
        added = sec.added_rows.get(table.id, [])
        body += [_added_row(r, f"{r.label} ({ADDED_NOTE})") for r in added]
        lines += _table(["", *table.column_labels], body)
        if table.notes:
            lines += ["", f"*{' '.join(table.notes.split())}*"]
        if added:
            lines += ["", f"*{ADDED_ROWS_NOTE}*"]
    if sec.goodput:
        lines += _goodput(sec.goodput)
    for f in sec.figures:
        lines += _figure(f, figure_dir)
    if sec.claims:
        lines += ["", "### Claims", ""]
        for c, v in sec.claims:
            lines += [
                f"- {_anchor(claim_anchor(c))}{verdict_text(v)} — {c.text} *({c.source})*",
                f"  - tolerance: {c.tolerance}",
                *_caveats(v),
                f"  - measured: {v.measured}",
            ]
    if sec.discussion.strip():
        lines += ["", "### Discussion", "", sec.discussion.strip()]
    return lines
