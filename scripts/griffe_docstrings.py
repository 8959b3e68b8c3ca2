"""A Griffe extension for the documentation site's API page: mkdocs.yml gives it to mkdocstrings,
which loads it from this file as it reads the package's docstrings.

The docstrings are written to be read with `help()` and in the source: they name other objects
with Sphinx's roles (:func:`fairsim.run`) and give examples as doctests (`>>> ...`, marked
`# doctest: +SKIP`). Markdown, which renders the page, reads a role as text and `>>>` as a quote
in a quote. Here a role becomes the code it names and a doctest a Python console block without
its doctest directives; the docstrings themselves are left as they are.

usage: none of its own; `mkdocs build` loads scripts/griffe_docstrings.py (see mkdocs.yml).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: `:func:`NAME`` (or another of Sphinx's roles; `~` shortens NAME to its last part in Sphinx).
ROLE = re.compile(r":(?:class|func|meth|attr|mod|exc|data|obj):`~?([^`]+)`")
#: A doctest directive at the end of an example's line, with the spaces before it.
DIRECTIVE = re.compile(r"\s*#\s*doctest:.*$")


def as_markdown(text: str) -> str:
    """`text` with its roles as code and each doctest (a paragraph whose first line starts with
    `>>>`, outside a fenced block) as a fenced `pycon` block."""
    lines, out, i, fenced = ROLE.sub(r"`\1`", text).split("\n"), [], 0, False
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            fenced = not fenced
        if fenced or not lines[i].lstrip().startswith(">>>"):
            out.append(lines[i])
            i += 1
            continue
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        out.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip():
            out.append(DIRECTIVE.sub("", lines[i]))
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


class DocstringsAsMarkdown(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = as_markdown(obj.docstring.value)

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """The package itself, for which Griffe calls no `on_object`."""
        self.on_object(obj=pkg)


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
