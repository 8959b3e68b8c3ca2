"""Hasegawa, Matsuo, Murata & Miyahara 2001: the forward model's four connections and output
line, the pairs each model runs, and Enhanced RED's p_i from the paper's offline iteration, which
the experiments set and the claims, figures and discussions read."""

from __future__ import annotations

from fairsim.models import hasegawa01 as model

#: Access capacities (kb/s) of connections c1..c4, and their names.
ACCESS = {"c1": 64, "c2": 128, "c3": 256, "c4": 512}
FLOWS = tuple(ACCESS)
#: One-way propagation delay (s) and packet size (bytes): the paper's.
TAU, PACKET = 0.1, 2000
#: The output line's capacities (kb/s): 400 to 960 in steps of 40 (the paper's step is lost).
CAPACITIES = tuple(range(400, 961, 40))
QUICK = (400, 680, 960)
#: DRR's two queues in the insufficient case (Figure 6) and their shares of the line.
QUEUES = ({"c1": 64, "c2": 128}, {"c3": 256, "c4": 512})
RENO = ("Reno/FIFO", "Reno/RED", "Reno/ERED", "Reno/DRR", "Reno/DRR 2q", "Reno/DRR+", "Reno/DRR+ 2q")
VEGAS = ("Vegas/FIFO", "Vegas/RED", "Vegas/DRR")
PAIRS = RENO + VEGAS
#: The reverse-traffic model's pairs (§5: Reno only).
REVERSE = ("Reno/FIFO", "Reno/RED", "Reno/ERED", "Reno/DRR")
PAIRS_OF = {"forward": PAIRS, "reverse": REVERSE}


def packets(kbit: float) -> float:
    return model.packets_per_s(kbit, PACKET)


def ered_p(capacity: float, **options) -> dict[str, float]:
    """Enhanced RED's p_i for the four connections at an output line of `capacity` kb/s
    (`options`: those of `enhanced_red`, for the sensitivity study)."""
    bw = [packets(k) for k in ACCESS.values()]
    e = model.enhanced_red(bw, packets(capacity), TAU, **options)
    return dict(zip(FLOWS, e.p, strict=True))


def ered_p_in_queues(capacity: float, **options) -> dict[str, float]:
    """DRR+'s p_i inside the two shared queues: the same iteration per queue, with the queue's
    DRR share of the line for BW and its two connections for N (the paper does not say how it
    computed them; this is the reading the spec suggests)."""
    total = sum(ACCESS.values())
    out = {}
    for queue in QUEUES:
        share = capacity * sum(queue.values()) / total
        e = model.enhanced_red([packets(k) for k in queue.values()], packets(share), TAU, **options)
        out.update(zip(queue, e.p, strict=True))
    return out
