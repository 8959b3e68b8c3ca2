"""Hasegawa, Matsuo, Murata & Miyahara 2001: the forward model (Figure 1) swept over the output
line's capacity, under every scheduler and TCP of §3-4.

The Enhanced RED pairs get their per-connection drop probabilities from the paper's offline
iteration (`fairsim.models.hasegawa01.enhanced_red`), computed for each capacity before the runs,
as the paper does; the probabilities used are in each run's resolved scenario and in the figure
`ered-p`."""

from __future__ import annotations

from pathlib import Path

from fairsim import _core
from fairsim.reproduce.model import Experiment, Sweep
from fairsim.reproduce.reproductions.hasegawa01.discussion import (
    DIVIDED_DISCUSSION,
    DRR_DISCUSSION,
    FORWARD_DISCUSSION,
    REVERSE_DISCUSSION,
    REVERSE_DRR_DISCUSSION,
    SHARED_DISCUSSION,
    WINDOWS_DISCUSSION,
)
from fairsim.reproduce.reproductions.hasegawa01.network import (
    CAPACITIES,
    FLOWS,
    QUICK,
    ered_p,
    ered_p_in_queues,
)
from fairsim.reproduce.stability import Variant

#: The DRR pairs and their number of queues. They run from their own scenario files
#: (forward-drr.toml, reverse-drr.toml): a port has one buffer for all of a file's pairs, and the
#: DRR queues' buffer is not the FIFO router's.
DRR_QUEUES = {"Reno/DRR": 4, "Reno/DRR 2q": 2, "Reno/DRR+": 4, "Reno/DRR+ 2q": 2, "Vegas/DRR": 4}
#: The router's buffer (bytes): "The buffer size of the router is 60 Kbytes".
BUFFER = 60_000
#: DRR's buffer arrangements. `each` (what the DRR scenario files run): every queue its own
#: 60 KB, the port's buffer the sum for four queues (§3.3: "the large buffer is equipped with the
#: router so that every connection is given a sufficient amount of buffer"). `divided`: the
#: router's 60 KB divided equally among the queues (§2.1: "The buffer at the router is logically
#: divided into multiple queues"). `shared`: every queue may hold 60 KB, all in one 60 KB pool that
#: refuses any arrival once full.
ARRANGEMENTS = ("each", "divided", "shared")
#: How each arrangement is described in the notes of the scenario files that run it.
ARRANGEMENT_TEXT = {
    "each": "each DRR queue has its own 60 KB",
    "divided": "the router's 60 KB divided equally among the queues",
    "shared": "share the port's one 60 KB",
}


def drr_buffers(arrangement: str, pairs=DRR_QUEUES, link: str = "out") -> dict:
    """The overrides that give `pairs` (DRR pairs -> number of queues) DRR buffer
    `arrangement` (one of `ARRANGEMENTS`) on the port of `link`."""
    if arrangement not in ARRANGEMENTS:
        raise ValueError(f"DRR buffer arrangement {arrangement!r}: one of {', '.join(ARRANGEMENTS)}")
    most = max(pairs.values())
    port = most * BUFFER if arrangement == "each" else BUFFER
    out: dict = {f"links.{link}.buffer": f"{port}B"}
    for pair, queues in pairs.items():
        per_queue = BUFFER // queues if arrangement == "divided" else BUFFER
        out[f'pairs."{pair}".qdisc.queue_limit'] = f"{per_queue}B"
    return out


def drr_knob(arrangement: str) -> Variant:
    """A stability knob (`fairsim reproduce hasegawa01 --stability`): every experiment that runs
    DRR with each queue its own 60 KB runs it with `arrangement` instead."""

    def overrides(sc) -> dict:
        pairs = {p: DRR_QUEUES[p] for p in sc.pairs if p in DRR_QUEUES}
        if not pairs or any(arrangement_of(sc.resolved(p)) != "each" for p in pairs):
            return {}
        return drr_buffers(arrangement, pairs)

    why = {
        "divided": "DRR's queues share the router's 60 KB equally (15 KB each of four, 30 KB each of two) "
        'instead of each its own 60 KB: §2.1 says "The buffer at the router is logically divided into '
        'multiple queues"',
        "shared": "DRR's queues may each hold 60 KB but share one 60 KB pool, refused once it is full, instead "
        "of each its own 60 KB: the paper's router buffer is 60 KB",
    }[arrangement]
    return Variant(f"DRR buffer {arrangement}", why, overrides=overrides)


def bytes_of(limit) -> float:
    """A resolved buffer limit ("60000B", "unlimited") in bytes, read by the engine."""
    unit, value = _core.parse("buffer", str(limit))
    if unit == "unlimited":
        return float("inf")
    if unit != "bytes":
        raise ValueError(f"buffer limit {limit!r}: expected bytes")
    return float(value)


def arrangement_of(resolved: dict, link: str = "out") -> str | None:
    """The DRR buffer arrangement of one pair's resolved scenario (`Scenario.resolved`), read
    from its per-queue limit and the port's buffer; `None` if the port does not run DRR."""
    port = resolved["links"][link]["forward"]
    qdisc = port["qdisc"]
    if qdisc["kind"] != "drr":
        return None
    queues = qdisc.get("queues") or len(resolved["flows"])
    limit, buffer = bytes_of(qdisc.get("queue_limit", "unlimited")), bytes_of(port["buffer"])
    if qdisc.get("drop") != "tail":
        raise ValueError(f"DRR with drop = {qdisc.get('drop')!r}: not one of the arrangements")
    if limit == BUFFER and buffer >= queues * BUFFER:
        return "each"
    if limit == BUFFER // queues and buffer == BUFFER:
        return "divided"
    if limit == BUFFER and buffer == BUFFER:
        return "shared"
    raise ValueError(f"DRR queues of {limit:g} B in a port of {buffer:g} B: not one of the arrangements")


#: The pairs that drop with Enhanced RED's per-connection p_i, and where their RED's settings are.
ERED_PAIRS = {"Reno/ERED": "qdisc", "Reno/DRR+ 2q": "qdisc.red"}
#: Every pair with a RED and where its settings are: plain RED, Enhanced RED, DRR+.
RED_PAIRS = {"Reno/RED": "qdisc", "Vegas/RED": "qdisc", "Reno/DRR+": "qdisc.red", **ERED_PAIRS}
#: How a RED applies its p (plain RED's 0.02, Enhanced RED's p_i). `constant` (what every RED
#: runs): between the thresholds every arrival is dropped with probability p, as §3.2.1 says
#: ("p shows the packet dropping probability defined in RED, with which incoming packets are
#: dropped when the avarage queue length is over the threshold th_min") and as the analysis
#: that computes the p_i assumes. `linear`: Floyd and Jacobson's rule with max_p = p (the
#: stability knob `RED p linear`).
P_MODES = ("constant", "linear")


def red_p_mode(resolved: dict, pair: str, link: str = "out") -> str | None:
    """How one pair's resolved scenario applies its RED's p (`P_MODES`); `None` if it has no
    RED."""
    if pair not in RED_PAIRS:
        return None
    qdisc = resolved["links"][link]["forward"]["qdisc"]
    red = qdisc.get("red") if RED_PAIRS[pair] == "qdisc.red" else qdisc
    if not red or "p_mode" not in red:
        return None
    return red["p_mode"]


def red_knob(mode: str = "linear") -> Variant:
    """A stability knob: every RED (plain RED, Enhanced RED, DRR+) applies its p by `mode`
    (`P_MODES`) instead of as the constant probability of §3.2.1."""
    if mode not in P_MODES:
        raise ValueError(f"RED p_mode {mode!r}: one of {', '.join(P_MODES)}")

    def overrides(sc) -> dict:
        out = {}
        for pair in sc.pairs:
            where = RED_PAIRS.get(pair)
            if where and red_p_mode(sc.resolved(pair), pair) not in (None, mode):
                out[f'pairs."{pair}".{where}.p_mode'] = mode
        return out

    return Variant(
        f"RED p {mode}",
        f"every RED's p (0.02, or Enhanced RED's p_i) applied by Floyd and Jacobson's {mode} rule, "
        "max_p = p, instead of as a constant drop probability above th_min: the paper cites Floyd "
        'and Jacobson, but says "p shows the packet dropping probability defined in RED, with which '
        'incoming packets are dropped when the avarage queue length is over the threshold th_min"',
        overrides=overrides,
    )


#: Vegas's α and β (the paper: "some constant values"): Brakmo and Peterson's 1 and 3 run; the
#: second value the spec suggests, 2 and 4, is a stability knob.
VEGAS_AB = (1.0, 3.0)


def vegas_knob(alpha: float = 2.0, beta: float = 4.0) -> Variant:
    """A stability knob: every Vegas pair with α = `alpha`, β = `beta`."""

    def overrides(sc) -> dict:
        out = {}
        for pair in sc.pairs:
            transport = sc.resolved(pair)["flows"]["c1"]["transport"]
            if transport["kind"] == "vegas" and (transport["alpha"], transport["beta"]) != (alpha, beta):
                out[f'pairs."{pair}".transport.alpha'] = alpha
                out[f'pairs."{pair}".transport.beta'] = beta
        return out

    return Variant(
        f"Vegas α {alpha:g}, β {beta:g}",
        f"TCP Vegas with α = {alpha:g}, β = {beta:g} instead of Brakmo and Peterson's 1 and 3: the paper "
        'gives "some constant values"',
        overrides=overrides,
    )


def capacity_overrides(capacity: float) -> dict:
    """forward.toml (FIFO, RED, Enhanced RED) at an output line of `capacity` kb/s."""
    return {"links.out.rate": f"{capacity:g}kbps", 'pairs."Reno/ERED".qdisc.flow_p': ered_p(capacity)}


def drr_overrides(capacity: float) -> dict:
    """forward-drr.toml (DRR, DRR+) at an output line of `capacity` kb/s."""
    return {
        "links.out.rate": f"{capacity:g}kbps",
        'pairs."Reno/DRR+ 2q".qdisc.red.flow_p': ered_p_in_queues(capacity),
    }


def reverse_overrides(capacity: float) -> dict:
    # §5: "the analysis can also be applied to the network model of reverse traffic"
    return {"links.out.rate": f"{capacity:g}kbps", 'pairs."Reno/ERED".qdisc.flow_p': ered_p(capacity)}


def line_only(capacity: float) -> dict:
    return {"links.out.rate": f"{capacity:g}kbps"}


def traced(capacity: float) -> dict:
    """Vegas under FIFO with every connection's window recorded (Figure 12(c))."""
    return {"links.out.rate": f"{capacity:g}kbps", "run.trace": list(FLOWS)}


#: `--quick`: 1100 s runs (a 100 s warm-up, one 1000 s interval) at three capacities, one seed.
SHORT_RUNS = {"run.duration": "1100s", "run.interval": "1000s"}


def bw_sweep(overrides, pairs=None) -> Sweep:
    """The paper's sweep of the output line's capacity."""
    return Sweep("BW (kb/s)", values=CAPACITIES, quick_values=QUICK, overrides=overrides, pairs=pairs)


#: The sensitivity study (`scripts/hasegawa_sensitivity.py`, which writes this file): Jain's
#: index of the relative throughputs of one pair under one variant at a time, from runs of its
#: own, shown in docs/reproductions.md (not in the report, which holds none of those runs).
SENSITIVITY_FILE = Path(__file__).parent / "sensitivity.json"


def drr_option(arrangement: str, what: str, discussion: str) -> Experiment:
    """The forward model's DRR pairs with their buffer in another arrangement (`drr_buffers`)."""
    return Experiment(
        f"drr-{arrangement}",
        "hasegawa01/forward-drr.toml",
        f"DRR's buffer, option `{arrangement}`: {what}",
        sweep=bw_sweep(drr_overrides),
        quick=SHORT_RUNS,
        overrides=drr_buffers(arrangement),
        discussion=discussion,
    )


EXPERIMENTS = (
    Experiment(
        "forward",
        "hasegawa01/forward.toml",
        "Figures 2-16: four connections of 64-512 kb/s into an output line of 400-960 kb/s",
        sweep=bw_sweep(capacity_overrides),
        quick=SHORT_RUNS,
        discussion=FORWARD_DISCUSSION,
    ),
    Experiment(
        "forward-drr",
        "hasegawa01/forward-drr.toml",
        "Figures 5, 7 and 16: the forward model under DRR and DRR+, each DRR queue with its own 60 KB",
        sweep=bw_sweep(drr_overrides),
        quick=SHORT_RUNS,
        discussion=DRR_DISCUSSION,
    ),
    drr_option(
        "divided",
        "the router's 60 KB divided among the queues (15 KB each of four, 30 KB each of two)",
        DIVIDED_DISCUSSION,
    ),
    drr_option(
        "shared",
        "every queue may hold 60 KB, all in the router's one 60 KB",
        SHARED_DISCUSSION,
    ),
    Experiment(
        "windows",
        "hasegawa01/forward.toml",
        "Figure 12(c): Vegas's windows under FIFO",
        sweep=bw_sweep(traced, pairs=lambda _: ["Vegas/FIFO"]),
        quick=SHORT_RUNS,
        one_run=True,
        discussion=WINDOWS_DISCUSSION,
    ),
    Experiment(
        "reverse",
        "hasegawa01/reverse.toml",
        "Figures 18-21: the same four connections downstream, from the ISP to subscriber lines",
        sweep=bw_sweep(reverse_overrides),
        quick=SHORT_RUNS,
        discussion=REVERSE_DISCUSSION,
    ),
    Experiment(
        "reverse-drr",
        "hasegawa01/reverse-drr.toml",
        "Figure 21: the reverse-traffic model under DRR, each DRR queue with its own 60 KB",
        sweep=bw_sweep(line_only),
        quick=SHORT_RUNS,
        discussion=REVERSE_DRR_DISCUSSION,
    ),
)
