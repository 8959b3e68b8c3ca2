"""The analysis of Hasegawa, Matsuo, Murata & Miyahara, "Comparisons of Packet Scheduling
Algorithms for Fair Service among Connections on the Internet" (2001), as functions.

Connections i = 1..N have access ("input") links of bw_i packets/s into one router whose output
link has BW packets/s; every connection has the same one-way propagation delay tau. The paper's
analysis (its Eqs. 3-32):

- `reno_red_window`: TCP Reno under RED with drop probability p, the window's cycle (Eqs. 3-8);
- `phase_throughput`: the "phase" model of how RED shares the line among windows of W_a packets
  arriving at their access rates (Eqs. 9-11);
- `reno_red_throughput`: that share corrected for retransmission timeouts (Eqs. 12-14);
- `enhanced_red`: the paper's offline iteration for per-connection drop probabilities p_i
  (its Enhanced RED, §3.2: a = 1.1, b = 0.9);
- `vegas_converged`: TCP Vegas's converged windows without loss (Eqs. 15-23);
- `vegas_red_throughput`: Vegas under RED's drops (Eqs. 24-32).

Readings of the garbled equations (the spec's §11 lists them; each is a choice):
- Eq. 5 lacks 1/RTT and Eq. 6 the /4 on W_max²: W̄_max = sqrt(8/(3p)) (Eq. 7) follows only from
  W' = sqrt(W²/4 + 2N_p), which is the reading taken.
- Eq. 10 as printed is a time; taken as connection i's share of the phase's service rate,
  R_ij = S_j·bw_i/Σ_{k≤j} bw_k (= min(bw_i, BW·bw_i/Σ_{k≤j} bw_k)).
- Eq. 11's indices: ρ_i = Σ_{j=i..N} (W_ij/W_a)·R_ij, the packet-weighted mean over the phases
  connection i takes part in.
- Eq. 12: P(at least two losses in a window), summed over i = 2..W with W = round(W_a), with the
  printed exponent W + 1 − i (`exponent="printed"`, default) or W − i (`"binomial"`).
- Eqs. 21 and 23: the i/j index typos read as sums over the other connections.
- Vegas (Eqs. 15-23) gives inequalities; l_i is taken at the middle of its band,
  (α + β)/2 + ρ_i/BW (the throughputs do not depend on where in the band; the windows do).

Generalisations the paper needs but does not give (Enhanced RED gives each connection its own
p_i, so its own W_a,i): the phase model with unequal windows sorts the bursts' end times
W_a,i/bw_i and, in each interval between them, shares S = min(BW, Σ_active bw) among the
connections still sending in proportion to bw; with equal windows this is the paper's model.

The model describes shares and shape, not absolute throughput: Σ ρ_i exceeds BW below
BW = Σ bw (the paper does not normalise). Throughputs here are in packets/s; `kbps` converts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from fairsim.results import jain_index


def kbps(packets_per_s: float, packet_bytes: int = 2000) -> float:
    return packets_per_s * packet_bytes * 8 / 1000


def packets_per_s(kbit_per_s: float, packet_bytes: int = 2000) -> float:
    return kbit_per_s * 1000 / (packet_bytes * 8)


# --- TCP Reno under RED ------------------------------------------------------------------------


def reno_red_window(p: float) -> tuple[float, float]:
    """(W̄_max, W_a): the window's peak and mean over its cycle at drop probability p (Eqs. 7, 8)."""
    w_max = math.sqrt(8 / (3 * p))
    return w_max, 0.75 * w_max


def phase_throughput(bw: Sequence[float], big_bw: float, w_a: float | Sequence[float]) -> list[float]:
    """ρ_i of the phase model (Eqs. 9-11): windows of W_a packets (one per connection, or each its
    own) arriving together at their access rates bw_i, sharing a line of `big_bw`."""
    n = len(bw)
    windows = [float(w_a)] * n if isinstance(w_a, (int, float)) else [float(w) for w in w_a]
    ends = sorted({w / b for w, b in zip(windows, bw, strict=True)})
    rho = [0.0] * n
    start = 0.0
    for end in ends:
        active = [i for i in range(n) if windows[i] / bw[i] >= end - 1e-12]
        offered = sum(bw[i] for i in active)
        service = min(big_bw, offered)
        for i in active:
            sent = bw[i] * (end - start)
            rho[i] += sent / windows[i] * service * bw[i] / offered
        start = end
    return rho


def p_timeout(w_a: float, p: float, exponent: str = "printed") -> float:
    """P_to (Eq. 12): the probability of two or more losses in a window of round(W_a) packets."""
    w = round(w_a)
    extra = 1 if exponent == "printed" else 0
    return sum(math.comb(w, i) * p**i * (1 - p) ** (w + extra - i) for i in range(2, w + 1))


def reno_red_throughput(
    bw: Sequence[float], big_bw: float, tau: float, p: float | Sequence[float], exponent: str = "printed"
) -> list[float]:
    """ρ'_i (Eq. 14): the phase model's share corrected for timeouts, RTO_i = 2·RTT_i, RTT_i by
    Eq. 13; `p` common (RED) or per connection (Enhanced RED)."""
    n = len(bw)
    ps = [float(p)] * n if isinstance(p, (int, float)) else [float(x) for x in p]
    windows = [reno_red_window(x)[1] for x in ps]
    rho = phase_throughput(bw, big_bw, windows)
    out = []
    for i in range(n):
        w, r = windows[i], rho[i]
        rtt = 2 * tau + sum(windows[k] for k in range(n) if k != i) / big_bw + w / r
        rto = 2 * rtt
        pto = p_timeout(w, ps[i], exponent)
        out.append((r * w + (1 - pto) * r * r * rto) / (w + r * rto))
    return out


@dataclass(frozen=True)
class EnhancedRed:
    """The outcome of the offline iteration: the p_i, the model's throughputs with them, how many
    steps it took and whether it met its tolerance."""

    p: list[float]
    throughput: list[float]
    steps: int
    converged: bool


def enhanced_red(
    bw: Sequence[float],
    big_bw: float,
    tau: float,
    p0: float = 0.02,
    a: float = 1.1,
    b: float = 0.9,
    ideal: str = "proportional",
    difference: str = "absolute",
    tolerance: float = 0.02,
    bounds: tuple[float, float] = (1e-4, 0.5),
    most_steps: int = 10_000,
) -> EnhancedRed:
    """The paper's iteration (§3.2): from p_i = p0, compute ρ'_i (Eq. 14); stop when every ρ'_i is
    within `tolerance` (relative) of its ideal; else change the p_i of "the connection having the
    largest difference between ρ_i and the ideal value", times `a` if above it, times `b` if
    below, and repeat.

    The difference is the text's, ρ'_i minus its ideal in packets/s (`difference="absolute"`);
    `"relative"` divides it by the ideal (a reading which drives the smallest connection's p_i to
    its upper bound at small lines).

    Choices the paper leaves open: the ideal is ρ proportional to input capacity with the model's
    own total, (Σρ')·bw_i/Σbw (`"proportional"`), or BW·bw_i/Σbw (`"share"`); the stopping
    tolerance is relative; p_i stays within `bounds` (a naive model drives the smallest
    connection's p above 0.5 at low BW), and a connection at its bound is passed over for the
    next furthest."""
    if difference not in ("absolute", "relative"):
        raise ValueError(f'difference {difference!r}: "absolute" (the text\'s) or "relative"')
    n = len(bw)
    ps = [p0] * n
    total_bw = sum(bw)
    for step in range(most_steps + 1):
        rho = reno_red_throughput(bw, big_bw, tau, ps)
        scale = sum(rho) if ideal == "proportional" else big_bw
        target = [scale * x / total_bw for x in bw]
        errors = [(rho[i] - target[i]) / target[i] for i in range(n)]
        if max(abs(e) for e in errors) < tolerance:
            return EnhancedRed(ps, rho, step, True)
        movable = [
            i
            for i in range(n)
            if (errors[i] > 0 and ps[i] < bounds[1]) or (errors[i] < 0 and ps[i] > bounds[0])
        ]
        if not movable or step == most_steps:
            return EnhancedRed(ps, rho, step, False)
        gap = errors if difference == "relative" else [rho[k] - target[k] for k in range(n)]
        i = max(movable, key=lambda k: abs(gap[k]))
        ps[i] = min(bounds[1], max(bounds[0], ps[i] * (a if errors[i] > 0 else b)))
    raise AssertionError("unreachable")


# --- TCP Vegas ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class VegasState:
    """Vegas's converged state (Eqs. 15-23): throughput ρ_i, queued packets l_i, window W_i and
    round trip rtt_i of each connection."""

    throughput: list[float]
    queued: list[float]
    window: list[float]
    rtt: list[float]


def vegas_converged(
    bw: Sequence[float], big_bw: float, tau: float, alpha: float = 1.0, beta: float = 3.0
) -> VegasState:
    """Eqs. 15-23 solved: each connection keeps l_i = (α + β)/2 + ρ_i/BW packets queued (the
    middle of Eq. 20's band); FIFO shares the line in proportion to the l_i (Eq. 15), a
    connection whose share exceeds its access rate gets its access rate and the rest is shared
    among the others (Eqs. 22-23). Solved by fixed-point iteration on ρ."""
    n = len(bw)
    mid = (alpha + beta) / 2
    rho = [big_bw * x / sum(bw) for x in bw]
    for _ in range(200):
        queued = [mid + r / big_bw for r in rho]
        limited: set[int] = set()
        while True:
            free = [i for i in range(n) if i not in limited]
            left = big_bw - sum(bw[i] for i in limited)
            shares = {i: queued[i] / sum(queued[k] for k in free) * left for i in free}
            capped = {i for i in free if shares[i] >= bw[i]}
            if not capped:
                break
            limited |= capped
        new = [bw[i] if i in limited else shares[i] for i in range(n)]
        if max(abs(a - b) for a, b in zip(new, rho, strict=True)) < 1e-12:
            break
        rho = new
    queued = [mid + r / big_bw for r in rho]
    rtt = [2 * tau + q / r for q, r in zip(queued, rho, strict=True)]
    window = [2 * tau * r + q for r, q in zip(rho, queued, strict=True)]
    return VegasState(rho, queued, window, rtt)


def vegas_red_throughput(
    bw: Sequence[float], big_bw: float, tau: float, p: float, alpha: float = 1.0, beta: float = 3.0
) -> list[float]:
    """ρ̂_i (Eq. 32): Vegas's converged state cut by a RED drop every 1/p packets; the halved
    window climbs back at one packet a round trip, with a deficit while it is below the
    bandwidth-delay product 2τρ_i (phase 1), none above it (phase 2), then holds (phase 3).
    Edge cases the paper leaves open: a halved window already above 2τρ_i has no phase 1; a
    cycle of 1/p packets shorter than phases 1 and 2 has no phase 3."""
    s = vegas_converged(bw, big_bw, tau, alpha, beta)
    out = []
    for rho, w, rtt in zip(s.throughput, s.window, s.rtt, strict=True):
        bdp = 2 * tau * rho
        low = w / 2
        if low < bdp:
            t1 = (bdp - low) * rtt
            rho1 = ((low + bdp) / 2) / (2 * tau + 1 / rho)
            a1 = 0.5 * (bdp + low) * (bdp - low)
            climb_from = bdp
        else:
            t1 = rho1 = a1 = 0.0
            climb_from = low
        t2 = (w - climb_from) * rtt
        a2 = 0.5 * (w + climb_from) * (w - climb_from)
        a3 = max(0.0, 1 / p - a1 - a2)
        t3 = a3 / w * rtt
        out.append((t1 * rho1 + (t2 + t3) * rho) / (t1 + t2 + t3))
    return out


# --- fairness -----------------------------------------------------------------------------------


def optimal_relative(big_bw: float, bw: Sequence[float]) -> float:
    """The paper's "Optimal" relative throughput: BW/Σbw, the same for every connection."""
    return min(1.0, big_bw / sum(bw))


def weighted_jain(throughput: Sequence[float], bw: Sequence[float]) -> float:
    """Jain's index of throughput_i/bw_i: 1 when every connection gets the same share of its
    input capacity (the paper's fairness), 1/N at worst."""
    return jain_index([t / b for t, b in zip(throughput, bw, strict=True)])
