"""The reproduction report as one self-contained HTML page: styles and SVG figures inline."""

from __future__ import annotations

from html import escape
from pathlib import Path

from fairsim.reproduce.report import GRADE_MARK, GRADES, VERDICT_MARK, Report, Section, cell_text

STYLE = (Path(__file__).parent / "report.css").read_text()


def render(report: Report) -> str:
    p, o = report.paper, report.outcome
    claims, grades = report.claim_counts(), report.grade_counts()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>fairsim reproduction: {escape(p.id)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Reproduction of <em>{escape(p.title)}</em></h1>",
        f"<p class='small'>{escape(p.citation)}</p>",
        _paragraphs(p.summary),
        "<h2>Summary</h2><table class='summary'>",
        f"<tr><th>claims</th><td>{claims.get('held', 0)} held, {claims.get('not held', 0)} not held, "
        f"{claims.get('not evaluated', 0)} not evaluated</td></tr>",
        "<tr><th>published cells</th><td>"
        + ", ".join(f"{grades.get(g, 0)} {g}" for g in GRADES)
        + f"; {grades.get('ungraded', 0)} blank or unreadable</td></tr>",
        f"<tr><th>runs</th><td>{o.runs} ({len(o.seeds)} replication(s) per pair"
        f"{', quick mode' if o.quick else ''}), {o.events:,} events, {o.wall_s:.1f} s"
        f"{' — interrupted, partial' if o.interrupted else ''}</td></tr></table>",
        "<p class='small'>Each cell shows our value ±spread (bold) over the paper's as printed; "
        "green: within 10% (or the metric's slack), yellow: within 25%, red: further; "
        "† the spec calls the cell garbled.</p>",
        f"<h2>Method</h2>{_paragraphs(p.method)}",
        "<table class='summary'><tr><th>claim</th><th>verdict</th><th>experiment</th></tr>",
    ]
    parts += [_row(c.id, f"{VERDICT_MARK[v.held]} {v.label}", c.experiment) for c, v in report.verdicts]
    parts.append("</table>")
    for sec in report.sections:
        parts.append(_section(sec))
    if p.tested:
        parts.append("<h2>Claims about the algorithms, checked by the test suite</h2><ul>")
        for t in p.tested:
            tests = ", ".join(f"<code>{escape(x)}</code>" for x in t.tests) or "none"
            parts.append(f"<li><b>{escape(t.id)}</b> — {escape(t.text)} <i>({escape(t.source)})</i>")
            parts.append(f" Tests: {tests}</li>")
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _paragraphs(text: str) -> str:
    """Prose written with blank lines between paragraphs, as HTML paragraphs."""
    return "".join(f"<p>{escape(' '.join(par.split()))}</p>" for par in text.strip().split("\n\n"))


def _row(*cells: str) -> str:
    return "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"


def _section(sec: Section) -> str:
    exp, sc, pub = sec.experiment, sec.loaded.scenario, sec.loaded.published
    out = [
        f"<h2 id='{escape(exp.id)}'>{escape(exp.title)}</h2>",
        f"<p><code>{escape(exp.file)}</code> — {escape(sc.description)}</p>",
    ]
    if sc.notes:
        out.append(f"<p><b>Setup and reconstruction.</b> {escape(' '.join(sc.notes.split()))}</p>")
    if pub.source:
        out.append(f"<p><b>Published:</b> {escape(pub.source)}. {escape(pub.units)}</p>")
    if pub.notes:
        out.append(f"<p class='small'><b>The paper's tables:</b> {escape(' '.join(pub.notes.split()))}</p>")
    for table, rows in sec.tables:
        out.append(f"<h3>{escape(table.title)}</h3>")
        if table.interval:
            out.append(f"<p class='small'>Measured over {table.interval[0]:g}–{table.interval[1]:g} s.</p>")
        out.append(
            "<table><tr><th></th>" + "".join(f"<th>{escape(h)}</th>" for h in table.column_labels) + "</tr>"
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
                    f"<span class='paper'>{escape(paper.replace(' †', ''))} {GRADE_MARK[c.grade]}</span></td>"
                )
            out.append(f"<tr><td class='label'>{escape(label)}</td>{''.join(cells)}</tr>")
        out.append("</table>")
        if table.notes:
            out.append(f"<p class='small'>{escape(' '.join(table.notes.split()))}</p>")
    for f in sec.figures:
        out.append(
            f"<figure>{f.svg}<figcaption><b>{escape(f.title)}.</b> {escape(f.caption)}</figcaption></figure>"
        )
    if sec.claims:
        out.append("<h3>Claims</h3>")
        for c, v in sec.claims:
            cls = {True: "held", False: "not-held", None: "none"}[v.held]
            out.append(
                f"<div class='claim {cls}'>{VERDICT_MARK[v.held]} <b>{v.label}</b> — {escape(c.text)} "
                f"<i class='small'>({escape(c.source)})</i><br>"
                f"<span class='small'>tolerance: {escape(c.tolerance)}</span><br>"
                f"<span class='measured'>{escape(v.measured)}</span></div>"
            )
    if exp.discussion:
        out.append(f"<h3>Discussion</h3>{_paragraphs(exp.discussion)}")
    return "\n".join(out)
