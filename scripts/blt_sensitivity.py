"""How much the choices Kim & Farber 1994 leave open move the blt94 reproduction's maximum
powers: the retransmission timer (its clock granularity, its floor, its value before the first
sample), TCP's duplicate-ACK filter, the push-out switch's victim (the paper's tail-most against
the least important), and the run's length (docs/reproductions.md, "The 1994 BLT paper"; the
timer and the filter are also the reproduction's stability knobs, `--stability`).

    python3 scripts/blt_sensitivity.py [SEEDS] [VARIANT,...] [CACHE]

(variants by number from 0, all by default; CACHE a folder whose runs are reused and kept, such
as a reproduction's `OUT/.runs`)

Each variant reruns three of the reproduction's experiments (the reference network at
BW_b = 30 and 150 Mb/s and the 1 Gb/s network at BW_b = 1 Gb/s) over the full load grid and
prints log10 P_m of BLT and TCP and their gap, beside Table 1's.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from fairsim.reproduce.claims import Context
from fairsim.reproduce.model import run_paper
from fairsim.reproduce.reproductions.blt94 import PAPER
from fairsim.reproduce.reproductions.blt94.claims import TABLE1
from fairsim.reproduce.reproductions.blt94.experiments import ARRIVALS, CONFIG, max_log_power, run_length

CASES = (("ref", 30e6, 0), ("ref", 150e6, 2), ("gbit", 1e9, 2))
BLT, TCP, BT = "pairs.BLT.transport", "pairs.TCP.transport", "pairs.BT.transport"
FAIRER_SWITCH = {"kind": "pushout", "victim": "lowest"}


def timers(**rto) -> dict:
    return {f"{pair}.{k}": v for pair in (BLT, TCP, BT) for k, v in rto.items()}


VARIANTS = (
    (
        "as reproduced (G = 0, floor the largest round trip, 1 s before a sample, the filter in both, "
        "tail-most victim)",
        {},
        None,
    ),
    (
        "Table 1's fitted TCP (RTO floor 1 ms, G = 0, no filter in TCP)",
        timers(min_rto="1ms", clock_granularity="0s") | {f"{TCP}.ignore_duplicate_deliveries": False},
        None,
    ),
    ("RTO floor 1 ms, TCP's filter kept", timers(min_rto="1ms", clock_granularity="0s"), None),
    ("G = 1 ms, floor 2 ms (RFC 1323's finest clock)", timers(min_rto="2ms", clock_granularity="1ms"), None),
    ("RTO floor 200 ms (Linux's)", timers(min_rto="200ms"), None),
    ("RTO floor 1 s (RFC 6298)", timers(min_rto="1s"), None),
    ("TCP counts duplicate deliveries", {f"{TCP}.ignore_duplicate_deliveries": False}, None),
    ("3 s before the first sample (RFC 2988)", timers(initial_rto="3s"), None),
    ("least important victim (the paper's fix)", {"pairs.BLT.qdisc": FAIRER_SWITCH}, None),
    ("twice the arrivals per run", {}, 2),
)


def experiments(sets: dict, longer: int | None):
    chosen = []
    for config, bw, _ in CASES:
        exp = PAPER.experiment(CONFIG[config].experiment_id(bw))
        sweep = exp.sweep
        if longer:
            cap, files = bw / (8 * 100_000), longer * ARRIVALS["100KB"]
            longer_runs = lambda rho, cap=cap, n=files: run_length(rho * cap, n)  # noqa: E731
            sweep = dataclasses.replace(sweep, overrides=longer_runs)
        chosen.append(dataclasses.replace(exp, overrides={**exp.overrides, **sets}, sweep=sweep))
    return tuple(chosen)


def main(seeds: int, only: list[int] | None, cache: Path | None = None) -> None:
    table = [f"{c} {b / 1e6:g}: BLT {TABLE1[('BLT', c)][i]} TCP {TABLE1[('TCP', c)][i]}" for c, b, i in CASES]
    print(f"log10 P_m (B/s²), {seeds} seed(s) per point; Table 1: " + ", ".join(table))
    for i, (label, sets, longer) in enumerate(VARIANTS):
        if only is not None and i not in only:
            continue
        paper = dataclasses.replace(PAPER, experiments=experiments(sets, longer))
        out = run_paper(paper, seeds=seeds, progress=False, cache=cache)
        ctx = Context(out.measurements, out.sweeps)
        cells = []
        for config, bw, _ in CASES:
            b, t = (max_log_power(ctx, CONFIG[config], bw, s) for s in ("BLT", "TCP"))
            cells.append(f"{config} {bw / 1e6:g}: BLT {b:.2f} TCP {t:.2f} gap {b - t:.2f}")
        print(f"- {label}: " + "; ".join(cells) + f" ({out.wall_s:.0f} s)", flush=True)


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    chosen = [int(i) for i in sys.argv[2].split(",")] if len(sys.argv) > 2 and sys.argv[2] != "all" else None
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 2,
        chosen,
        Path(sys.argv[3]) if len(sys.argv) > 3 else None,
    )
