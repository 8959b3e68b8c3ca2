"""The reproduction report as one self-contained HTML page: styles and SVG figures inline.

Verdicts are coloured text badges (no emoji: a machine without an emoji font would show empty
boxes); prose is Markdown, rendered by `prose`.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

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
from fairsim.reproduce.prose import blocks, inline, reflow
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

STYLE = (Path(__file__).parent / "report.css").read_text()
VERDICT_CLASS = {True: "held", False: "not-held", None: "none"}


def verdict_class(v: Verdict) -> str:
    return "unchecked" if v.caveats() else VERDICT_CLASS[v.held]


def _caveats(v: Verdict) -> str:
    return "".join(f"<span class='small'>{inline(c)}</span><br>" for c in v.caveats())


def badge(v: Verdict) -> str:
    return f"<span class='badge {verdict_class(v)}'>{v.label}</span>"


def render(report: Report) -> str:
    p, o = report.paper, report.outcome
    claims = report.claim_counts()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>fairsim reproduction: {escape(p.id)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Reproduction of <em>{escape(p.title)}</em></h1>",
        f"<p class='small'>{escape(p.citation)}</p>",
        *([f"<p class='banner'>{inline(banner)}</p>"] if (banner := quick_banner(report)) else []),
        blocks(p.summary),
        _contents(report),
        "<h2 id='summary'>Summary</h2><table class='summary'>",
        f"<tr><th>claims</th><td>{claims_line(claims, len(report.verdicts))}<br>"
        f"<span class='small'>{escape(NOT_HELD_NOTE)}</span></td></tr>",
        f"<tr><th>published cells</th><td>{escape(cells_line(report))}</td></tr>",
        f"<tr><th>runs</th><td>{o.runs} ({escape(o.replications_line())}"
        f"{', quick mode' if o.quick else ''}), {o.events:,} events"
        f"{' — interrupted, partial' if o.interrupted else ''}</td></tr>",
        *([f"<tr><th>added pairs</th><td>{escape(summary_line(o))}</td></tr>"] if o.added else []),
        "</table>",
        "<p class='small'>Each cell shows our value ±spread (bold) over the paper's as printed; "
        "green: within 10% (or the metric's slack), yellow: within 25%, red: further; "
        f"{escape(GARBLED_NOTE)}.</p>",
        f"<h2 id='method'>Method</h2>{blocks(p.method)}",
        "<div class='scroll'><table class='summary'>",
        "<tr><th>claim</th><th>verdict</th><th>experiment</th></tr>",
    ]
    parts += [
        f"<tr><td><a href='#{claim_anchor(c)}'>{escape(c.id)}</a></td><td>{badge(v)}</td>"
        f"<td><a href='#{escape(c.experiment)}'>{escape(c.experiment)}</a></td></tr>"
        for c, v in report.verdicts
    ]
    parts.append("</table></div>")
    if report.stability is not None:
        from fairsim.reproduce.stability import CAUSES_HEADING, HEADING, causes_text, summary

        text, headers, rows = summary(report.paper, report.stability)
        parts += [
            f"<h2 id='stability'>{HEADING}</h2>",
            blocks(text),
            "<div class='scroll'><table class='summary'>",
        ]
        parts.append("<tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr>")
        parts += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows]
        parts.append("</table></div>")
        moves = causes_text(report.paper, report.stability)
        if moves:
            parts += [f"<h3>{CAUSES_HEADING}</h3>", blocks(moves)]
    for sec in report.sections:
        parts.append(_section(sec))
    if p.tested:
        parts.append(f"<h2 id='tested'>{TESTED_HEADING}</h2><ul>")
        for t in p.tested:
            tests = ", ".join(f"<code>{escape(x)}</code>" for x in t.tests) or "none"
            parts.append(f"<li><b>{escape(t.id)}</b> — {inline(t.text)} <i>({inline(t.source)})</i>")
            parts.append(f" Tests: {tests}</li>")
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _contents(report: Report) -> str:
    items = "".join(f"<li><a href='#{escape(a)}'>{escape(title)}</a></li>" for a, title in contents(report))
    return f"<nav class='toc'><h2>Contents</h2><ol>{items}</ol></nav>"


def _figure(f: DrawnFigure) -> str:
    return (
        f"<figure id='fig-{escape(f.id)}'>{f.svg}<figcaption><b>{escape(f.title)}.</b> "
        f"{inline(f.caption)}</figcaption></figure>"
    )


def _added_row(row: AddedRow, label: str) -> str:
    """A row of our values, none of them graded (the paper has no value to grade them by)."""
    cells = "".join(
        f"<td class='{'added' if v.added else 'ungraded'}'><span class='ours'>"
        f"{escape(estimate_text(v.ours))}</span></td>"
        for v in row.values
    )
    return f"<tr><td class='label'>{escape(label)}</td>{cells}</tr>"


def _goodput(table: GoodputTable) -> str:
    headers = "".join(f"<th>{escape(column_label(p, table.added))}</th>" for p in table.pairs)
    rows = "".join(_added_row(r, r.label) for r in table.rows)
    return (
        f"<h3>{escape(table.title)}</h3><div class='scroll'><table><tr><th>flow</th>{headers}</tr>"
        f"{rows}</table></div><p class='small'>{inline(GOODPUT_CAPTION)}</p>"
    )


def _section(sec: Section) -> str:
    exp, sc, pub = sec.experiment, sec.loaded.scenario, sec.loaded.published
    out = [
        f"<h2 id='{escape(exp.id)}'>{escape(exp.title)}</h2>",
        f"<p><code>{escape(exp.file)}</code> — {inline(sc.description)}</p>",
    ]
    if sc.notes:
        out.append(blocks("**Setup and reconstruction.** " + reflow(sc.notes)))
    if sec.network:
        out.append(_figure(sec.network))
    elif sec.network_as:
        other = escape(sec.network_as)
        out.append(f"<p class='small'>The network is <a href='#{other}'>{other}</a>'s.</p>")
    if pub.source:
        out.append(f"<p><b>Published:</b> {inline(pub.source)}. {inline(pub.units)}</p>")
    if pub.notes:
        out.append(f"<p class='small'><b>The paper's tables:</b> {inline(pub.notes)}</p>")
    for pair, message in sec.failures:
        out.append(
            f"<p><b>The added pair <code>{escape(pair)}</code> failed here</b>; it has no numbers in "
            f"this section:</p><pre>{escape(message.rstrip())}</pre>"
        )
    for table, rows in sec.tables:
        out.append(f"<h3>{escape(table.title)}</h3>")
        if table.interval:
            out.append(f"<p class='small'>Measured over {table.interval[0]:g}–{table.interval[1]:g} s.</p>")
        out.append(
            "<div class='scroll'><table><tr><th></th>"
            + "".join(f"<th>{escape(h)}</th>" for h in table.column_labels)
            + "</tr>"
        )
        for label, row in zip(table.row_labels, rows, strict=True):
            cells = []
            for c in row:
                ours, paper = cell_text(c)
                cls = c.grade + (" garbled" if c.paper.garbled else "")
                title = f"{c.key.pair} · {c.key.flow} · {c.key.metric}"
                if c.ours is not None:
                    title += f" · 95% CI ±{c.ours.ci95:.3g} over {c.ours.runs} run(s)"
                cells.append(
                    f"<td class='{cls}' title='{escape(title)}'><span class='ours'>{escape(ours)}</span>"
                    f"<span class='paper'>{inline(paper.replace(' †', ''))} {GRADE_MARK[c.grade]}"
                    f"{' ' + RANK_MARK if c.ranked else ''}</span></td>"
                )
            out.append(f"<tr><td class='label'>{escape(label)}</td>{''.join(cells)}</tr>")
        added = sec.added_rows.get(table.id, [])
        out += [_added_row(r, f"{r.label} ({ADDED_NOTE})") for r in added]
        out.append("</table></div>")
        if table.notes:
            out.append(f"<p class='small'>{inline(table.notes)}</p>")
        if added:
            out.append(f"<p class='small'>{inline(ADDED_ROWS_NOTE)}</p>")
    if sec.goodput:
        out.append(_goodput(sec.goodput))
    out += [_figure(f) for f in sec.figures]
    if sec.claims:
        out.append("<h3>Claims</h3>")
        for c, v in sec.claims:
            out.append(
                f"<div class='claim {verdict_class(v)}' id='{claim_anchor(c)}'>{badge(v)} "
                f"{inline(c.text)} <i class='small'>({inline(c.source)})</i><br>"
                f"<span class='small'>tolerance: {inline(c.tolerance)}</span><br>"
                f"{_caveats(v)}"
                f"<span class='measured'>{escape(v.measured)}</span></div>"
            )
    if sec.discussion.strip():
        out.append(f"<h3>Discussion</h3>{blocks(sec.discussion)}")
    return "\n".join(out)
