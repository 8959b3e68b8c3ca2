"""How much the choices Hasegawa et al. 2001 leave open move the reproduction's fairness: RED's
w_q and probability rule, Vegas's α and β, DRR's buffer arrangement and the minimum RTO, and
Enhanced RED's reading of "the largest difference", how its p_i are applied, its bound and its
ideal (docs/reproductions.md, "The 2001 DRR/RED paper"; the report's forward-model discussion).

    python3 scripts/hasegawa_sensitivity.py [SEEDS] [PAIR_PART]

PAIR_PART runs only the rows whose pair contains it (`DRR`: the DRR rows).

Each variant is one `fairsim.sweep` of the forward model over BW = 400..880 kb/s (step 80), the
paper's 5000 s per point; the figure is Jain's index of the relative throughputs (1: every
connection at the same fraction of its input line), averaged over those BW, and at 400 kb/s.
The rows run are printed as a Markdown table and written into the reproduction's
`sensitivity.json` (rows not run keep their earlier values), which the report shows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import fairsim
from fairsim.models import hasegawa01 as model
from fairsim.reproduce.reproductions.hasegawa01.experiments import DRR_QUEUES, drr_buffers
from fairsim.reproduce.reproductions.hasegawa01.network import ACCESS, FLOWS, ered_p

#: FIFO, RED and Enhanced RED in the router's 60 KB; DRR with each queue its own 60 KB (240 KB).
SCENARIO = "hasegawa01/forward.toml"
DRR_SCENARIO = "hasegawa01/forward-drr.toml"
BW = list(range(400, 881, 80))
RED = 'pairs."Reno/RED".qdisc'
ERED = 'pairs."Reno/ERED".qdisc'
#: The rows the report shows (`experiments.SENSITIVITY`).
OUT = Path(fairsim.__file__).parent / "reproduce/reproductions/hasegawa01/sensitivity.json"


def ered_axes(**options) -> dict:
    """Enhanced RED's p_i at each BW of the sweep, from the iteration with `options`."""
    return {f"{ERED}.flow_p": [ered_p(b, **options) for b in BW]}


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
        ("Reno/RED", "as reproduced (constant p, §3.2.1's and the analysis's reading; w_q 0.002)", {}, {}),
        ("Reno/RED", "w_q 0.02", {}, {f"{RED}.w_q": 0.02}),
        ("Reno/RED", "Floyd and Jacobson's linear p (knob `RED p linear`)", {}, {f"{RED}.p_mode": "linear"}),
        (
            "Reno/RED",
            "window halved after a timeout (the paper's Reno)",
            {},
            {'pairs."Reno/RED".transport.after_timeout': "halved"},
        ),
        (
            "Reno/ERED",
            "as reproduced (largest absolute difference, constant p_i, p_i ≤ 0.5, ideal ∝ input)",
            ered_axes(),
            {},
        ),
        (
            "Reno/ERED",
            "p_i by Floyd and Jacobson's linear rule, max_p = p_i (knob `RED p linear`)",
            ered_axes(),
            {f"{ERED}.p_mode": "linear"},
        ),
        ("Reno/ERED", "the largest relative difference", ered_axes(difference="relative"), {}),
        (
            "Reno/ERED",
            "the largest relative difference, p_i linear (an earlier reading of this reproduction)",
            ered_axes(difference="relative"),
            {f"{ERED}.p_mode": "linear"},
        ),
        ("Reno/ERED", "p_i ≤ 0.1", ered_axes(bounds=(1e-4, 0.1)), {}),
        ("Reno/ERED", "ideal BW·bw_i/Σbw", ered_axes(ideal="share"), {}),
        ("Reno/DRR", "as reproduced (each queue its own 60 KB in a 240 KB port, min RTO 1 s)", {}, {}),
        ("Reno/DRR", "60 KB divided: 15 KB per queue (option `divided`)", {}, drr_buffers("divided", drr)),
        (
            "Reno/DRR",
            "one shared 60 KB pool, tail drop at a full queue or pool "
            "(option `shared`; an earlier reading of this reproduction)",
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
    before = (
        {(r["pair"], r["variant"]): r for r in json.loads(OUT.read_text())["rows"]} if OUT.exists() else {}
    )
    print("| pair | variant | Jain, mean over 400-880 kb/s | Jain at 400 kb/s |")
    print("|---|---|---|---|")
    got = {}
    for pair, label, axes, sets in rows:
        if only not in pair:
            continue
        mean, low = fairness(pair, seeds, axes, sets)
        got[(pair, label)] = {
            "pair": pair,
            "variant": label,
            "mean": round(mean, 3),
            "at_400": round(low, 3),
            "seeds": seeds,
        }
        print(f"| {pair} | {label} | {mean:.3f} | {low:.3f} |", flush=True)
    table = [got.get((p, lab)) or before.get((p, lab)) for p, lab, _, _ in rows]
    doc = {
        "command": "python3 scripts/hasegawa_sensitivity.py SEEDS [PAIR_PART]",
        "capacities_kbps": BW,
        "rows": [r for r in table if r is not None],
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, sys.argv[2] if len(sys.argv) > 2 else "")
