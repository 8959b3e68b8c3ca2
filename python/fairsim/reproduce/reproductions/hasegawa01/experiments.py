"""Hasegawa, Matsuo, Murata & Miyahara 2001: the forward model (Figure 1) swept over the output
line's capacity, under every scheduler and TCP of §3-4.

The Enhanced RED pairs get their per-connection drop probabilities from the paper's offline
iteration (`fairsim.models.hasegawa01.enhanced_red`), computed for each capacity before the runs,
as the paper does; the probabilities used are in each run's resolved scenario and in the figure
`ered-p`."""

from __future__ import annotations

from fairsim.models import hasegawa01 as model
from fairsim.reproduce.claims import Context, Missing
from fairsim.reproduce.model import Experiment, Sweep

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


def ered_p(capacity: float) -> dict[str, float]:
    """Enhanced RED's p_i for the four connections at an output line of `capacity` kb/s."""
    bw = [packets(k) for k in ACCESS.values()]
    e = model.enhanced_red(bw, packets(capacity), TAU)
    return dict(zip(FLOWS, e.p, strict=True))


def ered_p_in_queues(capacity: float) -> dict[str, float]:
    """DRR+'s p_i inside the two shared queues: the same iteration per queue, with the queue's
    DRR share of the line for BW and its two connections for N (the paper does not say how it
    computed them; this is the reading the spec suggests)."""
    total = sum(ACCESS.values())
    out = {}
    for queue in QUEUES:
        share = capacity * sum(queue.values()) / total
        e = model.enhanced_red([packets(k) for k in queue.values()], packets(share), TAU)
        out.update(zip(queue, e.p, strict=True))
    return out


def capacity_overrides(capacity: float) -> dict:
    return {
        "links.out.rate": f"{capacity:g}kbps",
        'pairs."Reno/ERED".qdisc.flow_p': ered_p(capacity),
        'pairs."Reno/DRR+ 2q".qdisc.red.flow_p': ered_p_in_queues(capacity),
    }


def reverse_overrides(capacity: float) -> dict:
    # §5: "the analysis can also be applied to the network model of reverse traffic"
    return {"links.out.rate": f"{capacity:g}kbps", 'pairs."Reno/ERED".qdisc.flow_p': ered_p(capacity)}


def sweep(ctx: Context, exp: str = "forward") -> list[tuple[float, object]]:
    if exp not in ctx.sweeps:
        raise Missing(exp)
    return ctx.sweeps[exp]


def kbit(m, pair: str, flow: str) -> float:
    return m.value(pair, flow, "mbps") * 1000


EXPERIMENTS = (
    Experiment(
        "forward",
        "hasegawa01/forward.toml",
        "Figures 2-16: four connections of 64-512 kb/s into an output line of 400-960 kb/s",
        sweep=Sweep("BW (kb/s)", values=CAPACITIES, quick_values=QUICK, overrides=capacity_overrides),
        quick={"run.duration": "1100s", "run.interval": "1000s"},
        discussion="",
    ),
    Experiment(
        "reverse",
        "hasegawa01/reverse.toml",
        "Figures 18-21: the same four connections downstream, from the ISP to subscriber lines",
        sweep=Sweep("BW (kb/s)", values=CAPACITIES, quick_values=QUICK, overrides=reverse_overrides),
        quick={"run.duration": "1100s", "run.interval": "1000s"},
        discussion="",
    ),
)
