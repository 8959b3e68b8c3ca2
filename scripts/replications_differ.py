"""Counts, per paper, the experiments and pairs whose replications are one run repeated.

    python3 scripts/replications_differ.py [PAPER ...]

Runs each experiment's scenario under every pair with the reproduction's seeds and asks
whether all seeds gave identical flow results (fairsim's own IdenticalSeedsWarning test).
Sweeps are checked at their first point.
"""

from __future__ import annotations

import sys
import warnings

import fairsim
from fairsim import reproduce


def main() -> None:
    papers = sys.argv[1:] or list(reproduce.papers())
    for pid in papers:
        paper = reproduce.paper(pid)
        seeds = list(range(1, paper.seeds + 1))
        same, total, where = 0, 0, []
        for e in paper.experiments:
            sets = dict(e.overrides)
            if e.sweep:
                sets |= e.sweep.overrides(e.sweep.values[0])
            sc = fairsim.load(e.path)
            for pair in sc.pairs:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    fairsim.run(sc, pair=pair, seed=seeds, set=sets, progress=False)
                identical = any(issubclass(w.category, fairsim.IdenticalSeedsWarning) for w in caught)
                same += identical
                total += 1
                if identical:
                    where.append(f"{e.id} {pair}")
        identical = ", ".join(where) or "none"
        differ = f"{total - same} of {total} experiment-pairs have replications that differ"
        print(f"{pid}: {differ}; identical: {identical}")


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    main()
