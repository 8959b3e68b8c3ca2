"""How much the choices Hasegawa et al. 2001 leave open move the reproduction's fairness: RED's
w_q and probability rule, Vegas's α and β, DRR's buffer arrangement and the minimum RTO, and
Enhanced RED's bound and ideal (docs/reproductions.md, "The 2001 DRR/RED paper").

    python3 scripts/hasegawa_sensitivity.py [SEEDS] [PAIR_PART]

PAIR_PART runs only the rows whose pair contains it (`DRR`: the DRR rows).

Each variant is one `fairsim.sweep` of the forward model over BW = 400..880 kb/s (step 80), the
paper's 5000 s per point; the figure is Jain's index of the relative throughputs (1: every
connection at the same fraction of its input line), averaged over those BW, and at 400 kb/s.
"""

from __future__ import annotations

import sys

import fairsim
from fairsim.models import hasegawa01 as model
from fairsim.reproduce.reproductions.hasegawa01.experiments import (
    ACCESS,
    DRR_QUEUES,
    FLOWS,
    drr_buffers,
    ered_p,
)

#: FIFO, RED and Enhanced RED in the router's 60 KB; DRR with each queue its own 60 KB (240 KB).
SCENARIO = "hasegawa01/forward.toml"
DRR_SCENARIO = "hasegawa01/forward-drr.toml"
BW = list(range(400, 881, 80))
RED = 'pairs."Reno/RED".qdisc'
ERED = 'pairs."Reno/ERED".qdisc'


def fairness(
    pair: str, seeds: int, axes: dict | None = None, sets: dict | None = None
) -> tuple[float, float]:
    axes = {"links.out.rate": [f"{b}kbps" for b in BW], **(axes or {})}
    scenario = DRR_SCENARIO if pair in DRR_QUEUES else SCENARIO
    s = fairsim.sweep(scenario, axes=axes, mode="zip", seeds=seeds, pairs=[pair], set=sets, progress=False)
    mean = s.flows.groupby(["rate", "flow"])["goodput_bps"].mean().unstack("flow")[list(FLOWS)]
    access = [k * 1000 for k in ACCESS.values()]
    jains = {rate: model.weighted_jain(list(row), access) for rate, row in mean.iterrows()}
    return sum(jains.values()) / len(jains), jains[min(jains)]


def main(seeds: int, only: str = "") -> None:
    drr = {"Reno/DRR": DRR_QUEUES["Reno/DRR"]}
    rows = [
        ("Reno/RED", "as reproduced (linear p, w_q 0.002)", {}, {}),
        ("Reno/RED", "w_q 0.02", {}, {f"{RED}.w_q": 0.02}),
        ("Reno/RED", "constant p (the analysis's reading)", {}, {f"{RED}.p_mode": "constant"}),
        (
            "Reno/RED",
            "window halved after a timeout (the paper's Reno)",
            {},
            {'pairs."Reno/RED".transport.after_timeout': "halved"},
        ),
        (
            "Reno/ERED",
            "as reproduced (p_i ≤ 0.5, ideal ∝ input)",
            {f"{ERED}.flow_p": [ered_p(b) for b in BW]},
            {},
        ),
        (
            "Reno/ERED",
            "constant p",
            {f"{ERED}.flow_p": [ered_p(b) for b in BW]},
            {f"{ERED}.p_mode": "constant"},
        ),
        ("Reno/ERED", "p_i ≤ 0.1", {f"{ERED}.flow_p": [ered_p(b, bounds=(1e-4, 0.1)) for b in BW]}, {}),
        ("Reno/ERED", "ideal BW·bw_i/Σbw", {f"{ERED}.flow_p": [ered_p(b, ideal="share") for b in BW]}, {}),
        ("Reno/DRR", "as reproduced (each queue its own 60 KB in a 240 KB port, min RTO 1 s)", {}, {}),
        ("Reno/DRR", "60 KB divided: 15 KB per queue (option `divided`)", {}, drr_buffers("divided", drr)),
        (
            "Reno/DRR",
            "one shared 60 KB pool, tail drop at a full queue or pool (option `shared`; ran before issue 28)",
            {},
            drr_buffers("shared", drr),
        ),
        (
            "Reno/DRR",
            "one shared 60 KB, longest-queue drop",
            {},
            {
                "links.out.buffer": "60KB",
                'pairs."Reno/DRR".qdisc.drop': "longest",
                'pairs."Reno/DRR".qdisc.queue_limit': "unlimited",
            },
        ),
        ("Reno/DRR", "min RTO 0.2 s", {}, {'pairs."Reno/DRR".transport.min_rto': "200ms"}),
        (
            "Reno/DRR",
            "window halved after a timeout",
            {},
            {'pairs."Reno/DRR".transport.after_timeout': "halved"},
        ),
        ("Vegas/FIFO", "as reproduced (α 1, β 3)", {}, {}),
        (
            "Vegas/FIFO",
            "α 2, β 4",
            {},
            {'pairs."Vegas/FIFO".transport.alpha': 2.0, 'pairs."Vegas/FIFO".transport.beta': 4.0},
        ),
        ("Vegas/DRR", "as reproduced (α 1, β 3)", {}, {}),
        (
            "Vegas/DRR",
            "α 2, β 4",
            {},
            {'pairs."Vegas/DRR".transport.alpha': 2.0, 'pairs."Vegas/DRR".transport.beta': 4.0},
        ),
    ]
    print("| pair | variant | Jain, mean over 400-880 kb/s | Jain at 400 kb/s |")
    print("|---|---|---|---|")
    for pair, label, axes, sets in rows:
        if only not in pair:
            continue
        mean, low = fairness(pair, seeds, axes, sets)
        print(f"| {pair} | {label} | {mean:.3f} | {low:.3f} |", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, sys.argv[2] if len(sys.argv) > 2 else "")
