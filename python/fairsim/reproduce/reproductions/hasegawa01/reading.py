"""Hasegawa, Matsuo, Murata & Miyahara 2001: what the claims, figures and discussions read from
the runs: a model's sweep with each pair read from the experiment that ran it, the connections'
throughputs, relative throughputs, Jain's index, losses, timeouts and windows."""

from __future__ import annotations

import numpy as np

from fairsim.models import hasegawa01 as model
from fairsim.reproduce.claims import Context, Missing
from fairsim.reproduce.reproductions.hasegawa01.network import ACCESS, FLOWS, PAIRS_OF


def measured(m) -> tuple[float, float]:
    """The measured interval (start, end) in seconds of a sweep point's runs: from the end of the
    warm-up over every measurement interval (the intervals table also has the warm-up's row)."""
    got = m.results.runs[0]["measurement"]
    start = float(got["warmup_s"])
    return start, start + float(got["interval_s"]) * int(got["intervals"])


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


def kbit(m, pair: str, flow: str) -> float:
    return m.value(pair, flow, "mbps") * 1000


def throughputs(
    ctx: Context, exp: str = "forward", pairs: tuple[str, ...] | None = None
) -> dict[str, dict[float, list[float]]]:
    """pair -> BW -> the four connections' mean throughputs (kb/s): a model's every pair
    (`PAIRS_OF`), or `pairs` from experiment `exp` alone."""
    joined = pairs is None
    pairs = PAIRS_OF[exp] if pairs is None else pairs
    out: dict[str, dict[float, list[float]]] = {p: {} for p in pairs}
    for bw, m in sweep(ctx, exp, joined):
        for p in pairs:
            out[p][bw] = [kbit(m, p, f) for f in FLOWS]
    return out


def relative(
    ctx: Context, exp: str = "forward", pairs: tuple[str, ...] | None = None
) -> dict[str, dict[float, list[float]]]:
    access = list(ACCESS.values())
    return {
        p: {bw: [t / a for t, a in zip(ts, access, strict=True)] for bw, ts in v.items()}
        for p, v in throughputs(ctx, exp, pairs).items()
    }


def jain(ctx: Context, exp: str = "forward") -> dict[str, dict[float, float]]:
    access = list(ACCESS.values())
    return {
        p: {bw: model.weighted_jain(ts, access) for bw, ts in v.items()}
        for p, v in throughputs(ctx, exp).items()
    }


def losses(ctx: Context, pair: str, exp: str = "forward") -> dict[float, list[float]]:
    """BW -> each connection's packets dropped."""
    return {bw: [m.value(pair, f, "drops") for f in FLOWS] for bw, m in sweep(ctx, exp)}


def timeouts(
    ctx: Context, pair: str, exp: str = "forward", what: str = "timeouts"
) -> dict[float, list[float]]:
    """BW -> each connection's retransmission timeouts (`what="fast_retransmits"`: fast
    retransmits) in the measured interval, the mean over the replications, read from the runs
    of experiment `exp` alone."""
    out = {}
    for bw, m in sweep(ctx, exp, joined=False):
        runs = [r for r in m.results.runs if r["pair"] == pair]
        if not runs:
            raise KeyError(f"experiment {exp} did not run pair {pair!r}")
        per_flow = {f: [] for f in FLOWS}
        for r in runs:
            for f in r["flows"]:
                if f["name"] in per_flow:
                    per_flow[f["name"]].append(f["totals"][what])
        out[bw] = [float(np.mean(per_flow[f])) for f in FLOWS]
    return out


def below(values: dict[float, float], most: float) -> list[float]:
    return [v for bw, v in sorted(values.items()) if bw <= most]


def mean_below(values: dict[float, float], most: float = 920) -> float:
    return float(np.mean(below(values, most)))
