"""Writes a paper's `verdicts_before.json` from a report folder of an earlier commit.

    python3 scripts/verdicts_before.py REPORT_DIR COMMIT SINCE PAPER...

REPORT_DIR/PAPER/reproduction.json is the full reproduction (`fairsim reproduce PAPER --out
REPORT_DIR/PAPER`) run at COMMIT; SINCE names what changed after it ("issue 12").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PACKAGES = Path(__file__).resolve().parent.parent / "python/fairsim/reproduce/reproductions"


def main() -> None:
    folder, commit, since, *papers = sys.argv[1:]
    for paper in papers:
        report = json.loads((Path(folder) / paper / "reproduction.json").read_text())
        claims = {c["id"]: {"verdict": c["verdict"], "measured": c["measured"]} for c in report["claims"]}
        graded = [c for c in report["cells"] if c["grade"] in ("close", "near", "far")]
        nonzero = [c for c in graded if c["paper"]["value"] != 0]
        cells = {
            "graded": len(graded),
            "close": sum(c["grade"] == "close" for c in graded),
            "nonzero": len(nonzero),
            "nonzero_close": sum(c["grade"] == "close" for c in nonzero),
        }
        doc = {
            "commit": commit,
            "since": since,
            "seeds": report["options"]["seeds"],
            "cells": cells,
            "claims": claims,
        }
        (PACKAGES / paper / "verdicts_before.json").write_text(
            json.dumps(doc, indent=1, ensure_ascii=False).replace(
                "[\n  1,\n  2,\n  3,\n  4,\n  5\n ]", "[1, 2, 3, 4, 5]"
            )
            + "\n"
        )


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    main()
