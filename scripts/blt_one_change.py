"""Why blt94's 1 MB claim is not held: TCP's 1 MB transfers at 5% load of the 30 Mb/s reference
bottleneck, and the claim itself, with one change at a time (docs/reproductions.md, "The 1994
BLT paper").

    python3 scripts/blt_one_change.py [light|claim]

`light` (the default): R, timeouts, fast retransmits and duplicate deliveries a run of TCP alone
at 5% load, three replications, as reproduced, without the duplicate-delivery filter TCP shares
with BLT, with NewReno's recovery, and with NewReno and no filter. `claim`: file-1mb,
fairness-mixed and scalability without the filter in TCP over the reference and 1 Gb/s
experiments at 100 KB and 1 MB (the full grid, three replications: about 400 TCP runs of 1 MB
files).
"""

from __future__ import annotations

import sys

import fairsim
from fairsim.reproduce.model import run_paper
from fairsim.reproduce.reproductions.blt94 import PAPER
from fairsim.reproduce.reproductions.blt94.experiments import (
    ARRIVALS,
    CONFIG,
    lambda_cap,
    network,
    run_length,
)

TCP = 'pairs."TCP".transport'
NO_FILTER = {f"{TCP}.ignore_duplicate_deliveries": False}
VARIANTS = {
    "as reproduced": {},
    "without the filter": NO_FILTER,
    "NewReno": {f"{TCP}.kind": "newreno"},
    "NewReno without the filter": {f"{TCP}.kind": "newreno", **NO_FILTER},
}


def light() -> None:
    bw = 30e6
    base = {**network(CONFIG["ref-1MB"], bw), **run_length(0.05 * lambda_cap(bw, "1MB"), ARRIVALS["1MB"])}
    for name, sets in VARIANTS.items():
        r = fairsim.run("blt94/network", pair="TCP", seed=[1, 2, 3], set={**base, **sets}, progress=False)
        rs = [x["transfer_summary"][0]["response_s"] for x in r.runs]
        tot = [x["flows"][0]["run_totals"] for x in r.runs]
        timeouts, fast = (sum(t[key] for t in tot) / len(tot) for key in ("timeouts", "fast_retransmits"))
        dup = 1 - sum(t["delivered_unique"] for t in tot) / sum(t["delivered"] for t in tot)
        print(
            f"- {name}: R {sum(rs) / len(rs):.3f} s, {timeouts:.0f} timeouts, "
            f"{fast:.0f} fast retransmits a run, {dup:.1%} of deliveries duplicates",
            flush=True,
        )


def claim() -> None:
    bottlenecks = {"ref": (30, 90, 150), "gbit": (200, 600, 1000)}
    exps = [f"{c}{size}-{b}" for c, bs in bottlenecks.items() for size in ("", "-1MB") for b in bs]
    out = run_paper(PAPER, only=exps, extra=lambda sc: NO_FILTER, progress=False)
    for cid in ("file-1mb", "fairness-mixed", "scalability"):
        v = next(c for c in PAPER.claims if c.id == cid).evaluate(out.context)
        print(f"- {cid}: {v.label}: {v.measured}", flush=True)


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    {"light": light, "claim": claim}[sys.argv[1] if len(sys.argv) > 1 else "light"]()
