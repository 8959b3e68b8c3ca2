"""Our discussion of an experiment: prose whose numbers about the run come from the run.

A discussion is Markdown with fields in double braces, filled when the report is built:

- `{{s5-dec-waste}}`: the claim's verdict (`held`, `not held`, ...);
- `{{s5-dec-waste:waste}}`: a number its check looked at, by the name it gave it;
- `{{waste_20}}`: a fact, a number (or a word, such as which of two schemes is ahead) the
  discussion computes itself from the runs (`facts`);
- a `|spec` after either kind formats it (`{{s5-dec-waste:waste|.1%}}`), else `claims.fmt`.

So a rerun that moves a number moves the sentence with it, and no sentence states a number the
run does not give. The numbers typed into the text are the paper's and the scenario's, which
`typed_numbers` finds for the test that checks them (tests/test_reproduce_discussion.py); what
other runs found (an audit, a sensitivity script) is said in docs/reproductions.md, with the
command that gives it, not in a report's discussion.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fairsim.reproduce.claims import Missing, fmt

if TYPE_CHECKING:
    from fairsim.reproduce.claims import Context, Verdict

FIELD = re.compile(r"\{\{([^{}|]+)(?:\|([^{}]*))?\}\}")


class ProseError(ValueError):
    """A field names no claim, no number of its claim's and no fact."""


@dataclass(frozen=True)
class Discussion:
    text: str
    #: Numbers (or words) computed from the runs for the text (`{{name}}`), each by a function
    #: of the context; a fact whose experiment did not run reads "n/a".
    facts: Mapping[str, Callable[[Context], float | str]] = field(default_factory=dict)

    def render(self, ctx: Context, verdicts: Mapping[str, Verdict]) -> str:
        def fill(m: re.Match) -> str:
            name, spec = m.group(1).strip(), m.group(2)
            claim, _, key = name.partition(":")
            if claim in verdicts:
                v = verdicts[claim]
                if not key:
                    return v.label
                if key not in v.values:
                    if v.held is None:  # not evaluated: its numbers were never measured
                        return "n/a"
                    raise ProseError(f"claim {claim} gives no number named {key!r}: {sorted(v.values)}")
                return _format(v.values[key], spec)
            if name in self.facts:
                try:
                    return _format(self.facts[name](ctx), spec)
                except Missing:
                    return "n/a"
            raise ProseError(f"{{{{{name}}}}} names no claim of this paper and no fact of this discussion")

        return FIELD.sub(fill, self.text)

    def fields(self) -> list[str]:
        return [m.group(1).strip() for m in FIELD.finditer(self.text)]


def _format(x: float | str, spec: str | None) -> str:
    if isinstance(x, str):  # a word the runs choose ("DRR", "above")
        return x
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    text = format(x, spec) if spec else fmt(x)
    return "−" + text[1:] if text.startswith("-") else text  # the minus sign of the prose around it


def prose(d: Discussion | str) -> Discussion:
    """A plain string is a discussion without fields."""
    return d if isinstance(d, Discussion) else Discussion(d)


# ----- what the test checks --------------------------------------------------------------------

#: Numbers that name a place, not a quantity: sections, figures, tables, equations, scenarios,
#: issues, RFCs and references; code spans and fields are not prose.
_NOT_QUANTITY = re.compile(
    r"`[^`]*`|\{\{[^{}]*\}\}|§\s*[\d.]+(?:[-–]\d+(?:\.\d+)*)?"
    r"|\b(?:Figures?|Fig\.|Tables?|Eqs?\.|Equations?|Scenarios?|S|issues?|RFCs?|footnote|Section|items?|page)"
    r"\s+\d+(?:\.\d+)*(?:\s*(?:,|and|-|–|to)\s*\d+(?:\.\d+)*)*",
)
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?![\w])")


def typed_numbers(text: str) -> list[str]:
    """The quantities typed into `text` (not in a field, a code span or a reference), with a
    decimal point or of 10 or more: a typed 3 of "3 of 5 runs" is let through, which this test
    accepts (words are the rule for small counts)."""
    out = []
    for m in _NUMBER.finditer(_NOT_QUANTITY.sub(" ", text)):
        raw = _written(m.group(0))
        if "." in raw or float(raw) >= 10:
            out.append(raw)
    return out


def _written(number: str) -> str:
    """A number as the test compares it: no sign, no thousands' commas, no sentence's full stop."""
    return number.replace("−", "").replace("-", "").replace(",", "").rstrip(".")


def number_set(*texts: str) -> set[str]:
    """Every number written in `texts`, as `typed_numbers` writes them (a source of allowed
    numbers: the paper's claims, the published tables, the scenario files)."""
    found = set()
    for t in texts:
        for m in _NUMBER.finditer(t):
            raw = _written(m.group(0))
            found.add(raw)
            if "." in raw:
                found.add(raw.rstrip("0").rstrip("."))
    return found
