"""Spraying and reordering (docs/workloads.md, *Spraying and reordering*): on a fat-tree that
sprays every packet, packets arrive out of order, and a sender that counts three duplicate ACKs
as a loss retransmits what was only late; the `linux` stack's loss detection (RACK-TLP, D-SACK,
undo) keeps most of the bisection that this costs."""

from __future__ import annotations

from pathlib import Path

import fairsim

PERMUTATION = Path(__file__).resolve().parent.parent / "validation" / "forwarding" / "permutation.toml"
LINUX_LOSS_DETECTION = ("rack", "tlp", "undo", "adaptive_reordering")
DUPACKS_ALONE = {f"workloads.perm.transport.{k}": "false" for k in LINUX_LOSS_DETECTION}


def sprayed(extra: dict) -> tuple[float, dict]:
    """A k = 4 sprayed permutation for 20 ms: its share of the hosts' lines, and its counters."""
    whole = {"run.duration": "20ms", "run.warmup": "0s", "run.interval": "20ms"}
    sc = fairsim.load(PERMUTATION, set={"topology.k": 4, "run.forwarding": "spray", **whole, **extra})
    res = fairsim.run(sc, progress=False)
    share = res.transfers["delivered"].sum() * 1500 * 8 / 0.02 / (16 * 10e9)
    return share, res.runs[0]["flows"][0]["run_totals"]


def test_linux_loss_detection_keeps_the_bisection_that_three_duplicate_acks_lose():
    counted, c = sprayed(DUPACKS_ALONE)
    assert c["spurious_retransmits"] > 0.9 * c["retransmitted"], "nearly every retransmission was spurious"
    assert c["spurious_retransmits"] > 20 * c["dropped"]
    timed, t = sprayed({})
    assert timed > counted + 0.08, (timed, counted)
    assert t["fast_retransmits"] < c["fast_retransmits"] / 2, "fewer recoveries, most of them undone"
