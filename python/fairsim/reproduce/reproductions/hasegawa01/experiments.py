"""Hasegawa, Matsuo, Murata & Miyahara 2001: the forward model (Figure 1) swept over the output
line's capacity, under every scheduler and TCP of §3-4.

The Enhanced RED pairs get their per-connection drop probabilities from the paper's offline
iteration (`fairsim.models.hasegawa01.enhanced_red`), computed for each capacity before the runs,
as the paper does; the probabilities used are in each run's resolved scenario and in the figure
`ered-p`."""

from __future__ import annotations

import json
from pathlib import Path

from fairsim import _core
from fairsim.models import hasegawa01 as model
from fairsim.reproduce.claims import Context, Missing
from fairsim.reproduce.model import Experiment, Sweep
from fairsim.reproduce.stability import Variant

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
#: refuses any arrival once full (what ran before issue 28).
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


#: The pairs that drop with Enhanced RED's per-connection p_i, and where their RED's settings are.
ERED_PAIRS = {"Reno/ERED": "qdisc", "Reno/DRR+ 2q": "qdisc.red"}
#: How Enhanced RED applies its p_i. `constant` (what runs): between the thresholds every arrival
#: of connection i is dropped with probability p_i, as the analysis that computes the p_i
#: defines p (§3.2: "the average queue length is always larger than th_min, that is, all
#: arriving packets are dropped with probability p"). `linear`: Floyd and Jacobson's rule with
#: max_p = p_i (what ran before issue 28).
ERED_P_MODES = ("constant", "linear")


def ered_p_mode(resolved: dict, pair: str, link: str = "out") -> str | None:
    """How one pair's resolved scenario applies Enhanced RED's p_i (`ERED_P_MODES`); `None` if
    it has no Enhanced RED."""
    if pair not in ERED_PAIRS:
        return None
    qdisc = resolved["links"][link]["forward"]["qdisc"]
    red = qdisc.get("red") if ERED_PAIRS[pair] == "qdisc.red" else qdisc
    if not red or "p_mode" not in red:
        return None
    return red["p_mode"]


def ered_knob(mode: str = "linear") -> Variant:
    """A stability knob: every Enhanced RED (Reno/ERED, DRR+ with two queues) applies its p_i
    by `mode` (`ERED_P_MODES`) instead of the constant probability the analysis defines."""
    if mode not in ERED_P_MODES:
        raise ValueError(f"Enhanced RED p_mode {mode!r}: one of {', '.join(ERED_P_MODES)}")

    def overrides(sc) -> dict:
        out = {}
        for pair in sc.pairs:
            where = ERED_PAIRS.get(pair)
            if where and ered_p_mode(sc.resolved(pair), pair) not in (None, mode):
                out[f'pairs."{pair}".{where}.p_mode'] = mode
        return out

    return Variant(
        f"ERED p {mode}",
        f"Enhanced RED's p_i applied by Floyd and Jacobson's {mode} rule (max_p = p_i, an earlier "
        "reading of this reproduction) instead of as a constant drop probability between the "
        "thresholds: the paper cites Floyd and Jacobson's RED, its analysis assumes the constant p",
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


def mean_window(m, flow: str, start_s: float, end_s: float) -> float:
    """The time-average of a recorded window over [start, end): a step function."""
    t = m.traces("Vegas/FIFO", flow, "cwnd")
    if t.empty:
        return float("nan")
    times, values = list(t["t_s"]), list(t["value"])
    area, last_t, last_v = 0.0, start_s, None
    for ti, vi in zip(times, values, strict=True):
        if ti <= start_s:
            last_v = vi
            continue
        if ti >= end_s:
            break
        if last_v is not None:
            area += last_v * (ti - last_t)
        last_t, last_v = ti, vi
    if last_v is not None:
        area += last_v * (end_s - last_t)
    return area / (end_s - start_s)


#: The experiments whose runs together make a model's sweep: the DRR pairs run from their own
#: scenario files.
PARTS = {"forward": ("forward", "forward-drr"), "reverse": ("reverse", "reverse-drr")}


class Joined:
    """The measurements of one BW from several experiments, each pair read from the one that ran
    it."""

    def __init__(self, parts: list):
        self.parts = parts

    @property
    def pairs(self) -> list[str]:
        return [p for m in self.parts for p in m.pairs]

    def _of(self, pair: str):
        for m in self.parts:
            if pair in m.pairs:
                return m
        raise KeyError(f"no experiment ran pair {pair!r}")

    def value(self, pair: str, *args, **kwargs):
        return self._of(pair).value(pair, *args, **kwargs)

    def traces(self, pair: str, *args, **kwargs):
        return self._of(pair).traces(pair, *args, **kwargs)


def sweep(ctx: Context, exp: str = "forward", joined: bool = True) -> list[tuple[float, object]]:
    """An experiment's (BW, measurements); with `joined`, the forward and reverse models' every
    pair, from the experiments that ran them (`PARTS`)."""
    parts = PARTS.get(exp, (exp,)) if joined else (exp,)
    for part in parts:
        if part not in ctx.sweeps:
            raise Missing(part)
    if len(parts) == 1:
        return ctx.sweeps[exp]
    by_bw: dict[float, list] = {}
    for part in parts:
        for bw, m in ctx.sweeps[part]:
            by_bw.setdefault(bw, []).append(m)
    return [(bw, Joined(ms)) for bw, ms in by_bw.items() if len(ms) == len(parts)]


#: `--quick`: 1100 s runs (a 100 s warm-up, one 1000 s interval) at three capacities, one seed.
SHORT_RUNS = {"run.duration": "1100s", "run.interval": "1000s"}


def bw_sweep(overrides, pairs=None) -> Sweep:
    """The paper's sweep of the output line's capacity."""
    return Sweep("BW (kb/s)", values=CAPACITIES, quick_values=QUICK, overrides=overrides, pairs=pairs)


def kbit(m, pair: str, flow: str) -> float:
    return m.value(pair, flow, "mbps") * 1000


DRR_DISCUSSION = """
The DRR and DRR+ pairs of the forward model, with each DRR queue its own 60 KB (30 packets) in a
port of 240 KB, the four queues' sum, so that an arrival is dropped only when its own queue is
full (the scenario's notes quote the paper's "large buffer ... so that every connection is given
a sufficient amount of buffer"). The claims that read these runs are the forward experiment's.
Jain's index of the relative throughputs averaged over BW from 400 to 920 kb/s: Reno DRR 1.000
(0.999 or better at every BW), DRR with two queues 0.949 (0.83 at 400 kb/s, where the 512 kb/s
connection gets 0.23 of its line and its queue-mate 0.79), DRR+ 0.998, DRR+ with two queues 0.973
(Enhanced RED's p_i inside each queue, applied as a constant probability), Vegas DRR 0.997
without a drop.
"""
DIVIDED_DISCUSSION = """
The option `divided`: the router's 60 KB divided equally among the queues, 15 KB (7 packets)
each of four and 30 KB each of two, in the port's 60 KB (§2.1: "The buffer at the router is
logically divided into multiple queues"). Jain's index averaged over BW from 400 to 920 kb/s:
Reno DRR 0.978 (0.959 at 400 kb/s, where the relative throughputs fall with the input line,
0.60/0.54/0.46/0.33: a 7-packet queue tail-drops the larger windows' bursts); DRR+ the same
(0.978: RED's th_min of 10 KB is hardly reached in a 15 KB queue); two queues 0.952; DRR+ with
two queues 0.983; Vegas DRR 0.974, without a drop, but at some lines its 512 kb/s connection is
held back (0.31 of its line at 560 kb/s; Jain 0.828 at 440 kb/s), which we have not traced.
"""
SHARED_DISCUSSION = """
The option `shared`: every queue may hold 60 KB, but all share the port's one 60 KB, which
refuses any arrival once full, an earlier reading of this reproduction. The burstiest connection
finds the pool full: at 400 kb/s the 512 kb/s connection gets 0.20 of its line, the others
0.64-0.68 (Jain 0.884, the lowest 0.81 at 720 kb/s), 0.961 averaged over BW from 400 to
920 kb/s; DRR+ 0.975, two queues 0.959, DRR+ with two queues 0.976, Vegas DRR 0.997 (Vegas never
fills the pool).
"""
REVERSE_DRR_DISCUSSION = """
DRR in the reverse-traffic model with each queue its own 60 KB in a port of 240 KB, as in
forward-drr: Jain's index 1.000 averaged over BW from 400 to 920 kb/s, 0.999 or better at every
BW. With one shared 60 KB pool (an earlier reading of this reproduction) it was 0.969, the
512 kb/s connection getting 0.13 of its line at 400 kb/s.
"""


#: The sensitivity study (`scripts/hasegawa_sensitivity.py`, which writes this file): Jain's
#: index of the relative throughputs of one pair under one variant at a time.
SENSITIVITY_FILE = Path(__file__).parent / "sensitivity.json"


def sensitivity_text(path: Path = SENSITIVITY_FILE) -> str:
    """The sensitivity study as Markdown for the report: a list item a pair, its variants with
    Jain's index averaged over the study's BW and at its smallest."""
    doc = json.loads(path.read_text())
    bws = doc["capacities_kbps"]
    seeds = sorted({r["seeds"] for r in doc["rows"]})
    by_pair: dict[str, list[dict]] = {}
    for r in doc["rows"]:
        by_pair.setdefault(r["pair"], []).append(r)
    lines = [
        "**How much the open choices move the result** (`python3 scripts/hasegawa_sensitivity.py`, "
        f"which writes the reproduction's `sensitivity.json`: {'/'.join(map(str, seeds))} replications "
        f"of 5000 s at BW = {min(bws)} to {max(bws)} kb/s in steps of {bws[1] - bws[0]}, one pair and one "
        "variant at a time). Jain's index of the relative throughputs averaged over those BW, and in "
        f"brackets at {min(bws)} kb/s:",
        "",
    ]
    for pair, rows in by_pair.items():
        lines.append(f"- **{pair}**")
        lines += [f"  - {r['variant']}: {r['mean']:.3f} ({r['at_400']:.3f})" for r in rows]
    return "\n".join(lines)


FORWARD_DISCUSSION = """
The paper's curves are lost, so its findings are the claims; the figures are ours. Jain's index
of the relative throughputs (1: every connection at the same fraction of its input line),
averaged over BW from 400 to 920 kb/s: Reno FIFO 0.941, RED 0.946, Enhanced RED 0.927, DRR
1.000, DRR with two queues 0.949, DRR+ 0.998, DRR+ with two queues 0.973; Vegas FIFO 0.926,
RED 0.923, DRR 0.997. The DRR pairs ran in the experiment forward-drr, each DRR queue with its
own 60 KB in a port of 240 KB; the other two readings of DRR's buffer are the experiments
drr-divided and drr-shared.

What agrees with the paper: RED is fairer than FIFO, but only a little: by 0.005 averaged
(0.946 against 0.941; the claim red-better-than-fifo holds by that margin), and it stays unfair at small lines (0.86 at 400 kb/s) where, as the
analysis of Figure 10 predicts, the relative throughput falls with the input capacity at every
BW up to 640 kb/s. At 400 kb/s RED's three larger connections get 94/122/127 kb/s, within
1.34× of each other, and all four lose the same share of what they send (within 1.05×): "almost
identical" for every connection whose line reaches the equal share of 100 kb/s (the 64 kb/s
connection gets 55). Two connections sharing a DRR queue are served unequally (off their 1 : 2
ratio at 9 of 14 points); DRR with a queue per connection is near-perfect with Reno (0.999 or
better at every BW), as is DRR+, and DRR is fairer than FIFO and RED with Reno (by 0.058 and
0.054 averaged) and with Vegas (by 0.070 and 0.074), as §6 says; DRR+ with two queues (0.973)
is fairer than DRR with two (0.949). With Vegas, FIFO loses nothing, RED drops a few packets at
small lines and changes fairness by less than 0.005 (slightly *less* fair, the Introduction's
statement rather than §4.2's, though within the noise), Eq. 32's Vegas-under-RED throughputs
are within 15% of ours at 9 of 14 BW (26% at worst, at small lines), and DRR is near-perfect
(0.987 or better everywhere).

What does not: (1) FIFO is unfair at small and large lines but close to fair near 560 kb/s
(0.64/0.60/0.54/0.59 of the input lines, the Optimal 0.58), so "cannot provide fairness at
all" fails at that point; the largest connection does suffer most at 400 kb/s (0.10 of its
line). (2) Eq. 14's throughputs are within 15% of RED's at only 4 of 14 BW (40% off at worst):
as we read Eqs. 10-11 the model's shares add up to more than the line below 960 kb/s (540 kb/s
at 400), so its curves sit above the simulation's at small lines; the ordering it predicts holds
(figure `fig10`). (3) With each queue its own 60 KB, Reno's DRR is not less fair than
Vegas's (1.000 against 0.997 averaged; at 400 kb/s Vegas's 512 kb/s connection gets 0.36 of its
line, the others 0.48), so "better than TCP Reno case" fails, by 0.003; nor is Reno's DRR
"slightly degraded" at large lines. The losses and timeouts the paper blames appear when the
queues are small or share the 60 KB: with the 60 KB divided (15 KB a queue) Reno's DRR averages
0.978, and with one shared 60 KB pool, an earlier reading of this reproduction, 0.961, its
512 kb/s connection at 0.20 of its line at 400 kb/s (experiments drr-divided and drr-shared,
figure `drr-buffers`). (4) Enhanced RED is not fairer than RED: 0.927 against 0.946 averaged, fairer at 2 of 14 BW. Its p_i are the
paper's iteration on its own analysis, adjusting at each step the connection with the largest
difference from its ideal in packets/s (the text's "largest difference"), and are applied as
the analysis defines p, a constant drop probability between the thresholds: p_1 falls from
0.11 at 400 kb/s to 0.06 at 880, p_4 is at most 0.003 (figure `ered-p`). The model then
predicts perfect fairness, but the 64 kb/s connection, whose window is a few packets (a packet
takes 250 ms on its line), rarely gets the three duplicate ACKs of a fast retransmit: at
400 kb/s it has 189 timeouts and 54 fast retransmits in the 4900 s measured (under RED: 55
and 388), each timeout at least the 1 s minimum RTO of idle time and doubled while they
repeat, and it gets 0.09 of its line against the others' 0.33 to 0.47 (figure `timeouts`). The
analysis counts a timeout only when two packets of one window are lost (Eq. 12) and as one RTO
of idle time, and cannot see this. An earlier reading of this reproduction adjusted the
connection with the largest *relative* difference, which drives p_1 to its 0.5 bound below
720 kb/s, and applied the p_i by Floyd and Jacobson's linear rule with max_p = p_i: the index was
0.483, the 64 kb/s connection starved (8 b/s at 400 kb/s). Each choice alone, in the
sensitivity study below: the relative reading with constant p_i 0.665, the absolute reading with
linear p_i 0.555 (with the linear rule the 64 kb/s connection loses 93% of what it sends at 400 kb/s, in three
replications of our own); the stability knob `ERED p linear` shows which verdicts turn on it. The paper gives
neither its p_i nor how its model handles unequal windows. (5) Vegas under FIFO loses nothing
and is less fair than Reno, as printed, but its 64 kb/s connection gets 0.88 of its line at
400 kb/s (all of it from 480 kb/s on), not "almost 100%". The verdict turns on Vegas's α and β,
which the paper leaves at "some constant values": with α = 2, β = 4 (the stability knob
`Vegas α 2, β 4`) the 64 kb/s connection gets 0.98 of its line at 400 kb/s and the claim
vegas-fifo holds (Jain's index averaged 0.924, still below Reno's 0.941).
"""


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
        discussion=FORWARD_DISCUSSION + "\n" + sensitivity_text(),
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
        "every queue may hold 60 KB, all in the router's one 60 KB (an earlier reading of this reproduction)",
        SHARED_DISCUSSION,
    ),
    Experiment(
        "windows",
        "hasegawa01/forward.toml",
        "Figure 12(c): Vegas's windows under FIFO",
        sweep=bw_sweep(traced, pairs=lambda _: ["Vegas/FIFO"]),
        quick=SHORT_RUNS,
        seeds=1,
        discussion="""
One replication per BW with every connection's window recorded, averaged over the measurement
interval. As the paper says, at small lines the windows hardly depend on the input line (3.5,
5, 5 and 4 packets at 400 kb/s; the analysis's Eq. 19 with α = 1, β = 3: 3.0 to 3.7); as the
line grows the larger connections' windows grow with their shares (c4: 11 packets at 960 kb/s,
the analysis 8.9). Ours run a packet or so above the analysis's, which counts no access-line
serialisation in the round trip (250 ms a packet at 64 kb/s).
""",
    ),
    Experiment(
        "reverse",
        "hasegawa01/reverse.toml",
        "Figures 18-21: the same four connections downstream, from the ISP to subscriber lines",
        sweep=bw_sweep(reverse_overrides),
        quick=SHORT_RUNS,
        discussion="""
Reconstructed from the paper's sentence and figure fragments (the scenario's notes say how):
the four connections come from the ISP side over fast lines, share router A's line of BW, and
leave router B over their own subscriber lines of 64 to 512 kb/s. As the paper says, the
tendencies are those of the forward model: Jain's index at 400 kb/s 0.79 under FIFO and 0.85
under RED, averaged over BW 0.948 and 0.942 (here RED is not fairer than FIFO), DRR (the
experiment reverse-drr, each queue its own 60 KB) 1.000, and Enhanced RED 0.938 averaged, below RED's 0.942 (at 400 kb/s 0.850 against 0.847, its 64 kb/s
connection at 0.12 of its line after 229 timeouts), for the reason given in the forward model's
discussion. The paper's "fairly good" improvement by Enhanced RED is therefore not reproduced.
""",
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
