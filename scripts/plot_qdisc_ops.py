"""Draws docs/img/qdisc-cost.png from the last `cargo bench -p fairsim --bench qdisc_ops`: the
per-packet cost of each discipline against the number of conversations (criterion's median
estimates, read from target/criterion).

    python scripts/plot_qdisc_ops.py [DISCIPLINE ...]    # default: the CSFQ paper's five
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "target" / "criterion" / "enqueue+dequeue"
OUT = ROOT / "docs" / "img" / "qdisc-cost.png"
DEFAULT = ("fcfs", "red", "fred", "csfq-core", "csfq-edge", "drr", "fq")


def medians(label: str) -> list[tuple[int, float]]:
    """(conversations, ns per enqueue + dequeue) for one benchmarked discipline."""
    points = []
    for d in (RESULTS / label).iterdir():
        estimates = d / "new" / "estimates.json"
        if d.name.isdigit() and estimates.exists():
            points.append((int(d.name), json.loads(estimates.read_text())["median"]["point_estimate"]))
    return sorted(points)


def main(labels: list[str]) -> int:
    if not RESULTS.is_dir():
        print(f"no benchmark results in {RESULTS}: run `cargo bench -p fairsim --bench qdisc_ops` first")
        return 1
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label in labels:
        if not (RESULTS / label).is_dir():
            print(f"skipping {label}: not benchmarked")
            continue
        pts = medians(label)
        ax.plot([n for n, _ in pts], [t for _, t in pts], "o-", markersize=4, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("backlogged conversations")
    ax.set_ylabel("ns per enqueue + dequeue")
    ax.set_title("per-packet cost of the CSFQ paper's disciplines", fontsize="medium")
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize="small", ncol=2)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110, bbox_inches="tight")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    sys.exit(main(sys.argv[1:] or list(DEFAULT)))
