"""Claims and cells of two reproduction reports side by side: what changed and how much.

    python3 scripts/compare_verdicts.py BEFORE_DIR AFTER_DIR [PAPER ...]

Each DIR holds one folder per paper with its reproduction.json (`fairsim reproduce PAPER --out
DIR/PAPER`). Prints, per paper, the claims held before and after, every claim whose verdict
changed, and the fraction of graded cells that are close, over all cells and over the cells
whose published value is not zero (a printed zero is easy to be close to). A `--quick` report is
compared only with another `--quick` one of the same replications: its coarse grids and single
replication are not the full run's, and a difference between them would be no change at all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def load(folder: Path, paper: str) -> dict:
    return json.loads((folder / paper / "reproduction.json").read_text())


def close_fractions(report: dict) -> str:
    # cells close by construction (◇) are left out, as the report leaves them out
    cells = [c for c in report["cells"] if not c["paper"].get("construction")]
    graded = [c for c in cells if c["grade"] in ("close", "near", "far")]
    nonzero = [c for c in graded if c["paper"]["value"] not in (0, None)]

    def frac(cells: list) -> str:
        close = sum(c["grade"] == "close" for c in cells)
        return f"{close}/{len(cells)} = {close / max(len(cells), 1):.0%}"

    return f"close: all {frac(graded)}, non-zero {frac(nonzero)}"


def options(report: dict) -> tuple:
    o = report["options"]
    return bool(o["quick"]), o["seeds"]


def main() -> None:
    before_dir, after_dir, *papers = sys.argv[1:]
    papers = papers or sorted(p.name for p in Path(after_dir).iterdir() if (p / "reproduction.json").exists())
    for paper in papers:
        before, after = load(Path(before_dir), paper), load(Path(after_dir), paper)
        if options(before) != options(after):
            print(
                f"{paper}: the reports ran differently (quick, seeds: {options(before)} against "
                f"{options(after)}); compare a --quick report only with a --quick one",
                file=sys.stderr,
            )
            sys.exit(2)
        held = [sum(c["verdict"] == "held" for c in r["claims"]) for r in (before, after)]
        print(f"## {paper}: claims held {held[0]} -> {held[1]} of {len(after['claims'])}")
        print(f"   before {close_fractions(before)}")
        print(f"   after  {close_fractions(after)}")
        old = {c["id"]: c for c in before["claims"]}
        for c in after["claims"]:
            o = old.get(c["id"])
            if o is None or o["verdict"] != c["verdict"]:
                print(f"   {c['id']}: {o['verdict'] if o else 'new'} -> {c['verdict']}: {c['measured']}")


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    main()
