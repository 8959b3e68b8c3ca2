"""A paper's claim verdicts at an earlier commit, beside today's, with why each one changed.

Issue 12 asked every report to show, per claim, the verdict before the issue and after it. The
earlier verdicts are a file in the paper's package (`verdicts_before.json`, written from a full
reproduction at that commit by `scripts/verdicts_before.py`); the reasons are the paper's own
words in its `claims.py` (`WHY_CHANGED`), so a verdict that moves without a reason shows as
unexplained in the report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairsim.reproduce.claims import Claim, Verdict


@dataclass(frozen=True)
class Change:
    claim: str
    before: str
    now: str
    why: str


@dataclass(frozen=True)
class History:
    #: The commit whose verdicts are the "before".
    commit: str
    #: What happened since, e.g. "issue 12".
    since: str
    #: Claim id -> its verdict's label at `commit`.
    before: dict[str, str]
    #: Claim id -> why its verdict changed (or why it was added).
    why: dict[str, str]
    #: Graded cells then: how many, how many close, and the same over non-zero published cells.
    cells: dict[str, int]

    @staticmethod
    def read(path: Path, why: dict[str, str]) -> History:
        doc = json.loads(path.read_text())
        before = {c: v["verdict"] for c, v in doc["claims"].items()}
        return History(doc["commit"], doc["since"], before, why, doc["cells"])

    def changes(self, verdicts: list[tuple[Claim, Verdict]]) -> list[Change]:
        """The claims whose verdict differs from the earlier one, or that are new."""
        out = []
        for c, v in verdicts:
            before = self.before.get(c.id, "(new)")
            if before != v.label:
                out.append(Change(c.id, before, v.label, self.why.get(c.id, "(not explained)")))
        return out
