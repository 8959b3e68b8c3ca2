"""The reports' prose is Markdown (code spans, emphasis, links); in HTML it is rendered, not shown raw.

CommonMark through markdown-it-py, with raw HTML off: text such as the OCR notes' `<del>` is
shown as written, never interpreted as markup.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False})


def reflow(text: str) -> str:
    """Text wrapped in a source file as Markdown a reader gets whole: each paragraph on one line,
    each `- ` item on its own line (its indented continuation lines joined to it), a blank line
    between a paragraph and a list, and around an unindented paragraph that follows a list."""
    out: list[str] = []
    for raw in text.strip().splitlines():
        line = raw.strip()
        if not line:
            if out and out[-1]:
                out.append("")
        elif line.startswith("- "):
            if out and out[-1] and not out[-1].startswith("- "):
                out.append("")
            out.append(line)
        elif out and out[-1].startswith("- ") and raw[:1].isspace():
            out[-1] += " " + line  # the item goes on
        elif out and out[-1].startswith("- "):
            out += ["", line]  # a paragraph after the list
        elif out and out[-1]:
            out[-1] += " " + line
        else:
            out.append(line)
    return "\n".join(out)


def blocks(text: str) -> str:
    """Paragraphs (and any lists) of Markdown as HTML."""
    return _MD.render(text.strip())


def inline(text: str) -> str:
    """One line of Markdown as HTML without a paragraph around it; line breaks become spaces."""
    return _MD.renderInline(" ".join(text.split()))
