"""The reports' prose is Markdown (code spans, emphasis, links); in HTML it is rendered, not shown raw.

CommonMark through markdown-it-py, with raw HTML off: text such as the OCR notes' `<del>` is
shown as written, never interpreted as markup.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False})


def blocks(text: str) -> str:
    """Paragraphs (and any lists) of Markdown as HTML."""
    return _MD.render(text.strip())


def inline(text: str) -> str:
    """One line of Markdown as HTML without a paragraph around it; line breaks become spaces."""
    return _MD.renderInline(" ".join(text.split()))
