"""Figures pooled over seeds, for `ndp.py --pooled` and `roce.py --pooled` (docs/validation.md,
*htsim*): each case's runs, one per seed on each side (the matrix drawn with seed S, htsim's path
draw with its seed S, fairsim's with its seed S), taken together as one population.

* completion times: percentiles (nearest rank) over every finished flow of every seed together,
  not averages of per-seed percentiles; "last" is the mean over seeds of each run's last
  completion (an incast's completion time);
* a permutation's flows: Jain's index and the 1st percentile of per-flow goodput over every flow
  of every seed, and the slowest flow of them all; total goodput, trims, drops, pauses and the
  like: the mean over seeds (the ratio of the two means is that of the totals).

Beside each pooled figure: the spread of the same figure over the simulator's own seeds (min–max
of the per-seed figure), the range of the per-seed ratios (seed S of fairsim over seed S of
htsim: the same matrix, different paths), and a 95% interval of the pooled ratio from a bootstrap
over seeds (seeds drawn with replacement, the same seeds on both sides, so that each keeps its
matrix)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy

#: web-search size bins (bytes, upper bounds inclusive), as ndp.py's size_bins
BINS = ((0, 100_000, "< 100 KB"), (100_000, 1_000_000, "100 KB–1 MB"), (1_000_000, float("inf"), "≥ 1 MB"))
BOOTSTRAP = 500


def seed_set(text: str) -> set[int]:
    """Seeds written as `1-20`, `1,2,5-9` or `3`."""
    seeds: set[int] = set()
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        seeds.update(range(int(low), int(high or low) + 1))
    return seeds


def case_and_seed(label: str) -> tuple[str, int]:
    """`perm_ndp_rand_s12` → (`perm_ndp_rand`, 12)."""
    m = re.fullmatch(r"(.*)_s(\d+)", label)
    if not m:
        raise ValueError(f"no seed in label {label!r}")
    return m.group(1), int(m.group(2))


@dataclass
class Run:
    """One side's run of one seed: its finished flows' completion times (µs) and sizes, every
    flow's goodput (b/s, over the run), and its scalar figures."""

    seed: int
    fcts: numpy.ndarray
    sizes: numpy.ndarray
    flow_gbps: numpy.ndarray
    scalars: dict = field(default_factory=dict)


def run_of(figures: dict, seed: int, sizes: dict[str, int], end_us: float) -> Run:
    """A side's Run from its figures: `flow_fcts_us` (id → µs or None) and `flow_received_bytes`
    or `flow_sink_bytes` (id → bytes), `sizes` the matrix's (id → bytes)."""
    fcts = figures.get("flow_fcts_us") or {}
    done = [(fct, sizes[i]) for i, fct in fcts.items() if fct is not None]
    received = figures.get("flow_received_bytes") or figures.get("flow_sink_bytes") or {}
    return Run(
        seed=seed,
        fcts=numpy.array([fct for fct, _ in done], dtype=float),
        sizes=numpy.array([size for _, size in done], dtype=float),
        flow_gbps=numpy.array([b * 8 / (end_us * 1e-6) / 1e9 for b in received.values()], dtype=float),
        scalars={k: v for k, v in figures.items() if isinstance(v, (int, float)) and not isinstance(v, bool)},
    )


def nearest_rank(xs: numpy.ndarray, q: float) -> float | None:
    return float(numpy.percentile(xs, q, method="inverted_cdf")) if len(xs) else None


Figure = Callable[[list["Run"]], float | None]


def pooled_percentile(q: float, low: float = 0, high: float = float("inf")) -> Figure:
    """The q-th percentile of the completion times of every finished flow of `runs` whose size is
    in (low, high]."""

    def f(runs: list[Run]) -> float | None:
        parts = [r.fcts[(r.sizes > low) & (r.sizes <= high)] for r in runs]
        return nearest_rank(numpy.concatenate(parts), q)

    return f


def mean_of(per_run: Callable[[Run], float | None]) -> Figure:
    """The mean over `runs` of a per-run figure (None if any run lacks it)."""

    def f(runs: list[Run]) -> float | None:
        xs = [per_run(r) for r in runs]
        return None if not xs or any(x is None for x in xs) else float(numpy.mean(xs))

    return f


def scalar(key: str) -> Figure:
    return mean_of(lambda r: r.scalars.get(key))


def last(runs: list[Run]) -> float | None:
    return mean_of(lambda r: float(r.fcts.max()) if len(r.fcts) else None)(runs)


def jain(runs: list[Run]) -> float | None:
    x = numpy.concatenate([r.flow_gbps for r in runs])
    return float(x.sum() ** 2 / (len(x) * (x * x).sum())) if len(x) and x.any() else None


def flow_p1(runs: list[Run]) -> float | None:
    return nearest_rank(numpy.concatenate([r.flow_gbps for r in runs]), 1)


def slowest(runs: list[Run]) -> float | None:
    x = numpy.concatenate([r.flow_gbps for r in runs])
    return float(x.min()) if len(x) else None


#: (name, format, figure of a list of runs) for every kind of run; scalar figures are left out
#: where neither side has them
COMPLETION = (
    ("finished (mean)", "{:,.1f}", scalar("finished")),
    ("unfinished (mean)", "{:,.1f}", scalar("unfinished")),
    ("FCT p50 (µs)", "{:,.1f}", pooled_percentile(50)),
    ("FCT p99 (µs)", "{:,.1f}", pooled_percentile(99)),
    ("last (µs, mean)", "{:,.1f}", last),
)
PERMUTATION = (
    ("goodput (Gb/s, mean)", "{:,.0f}", scalar("goodput_gbps")),
    ("Jain, all flows", "{:.4f}", jain),
    ("flow goodput p1 (Gb/s)", "{:.2f}", flow_p1),
    ("slowest flow (Gb/s)", "{:.3f}", slowest),
)
COUNTS = (
    ("trims (mean)", "{:,.0f}", scalar("trims")),
    ("drops (mean)", "{:,.0f}", scalar("drops")),
    ("retransmissions (mean)", "{:,.0f}", scalar("rtx_packets")),
    ("pauses (mean)", "{:,.0f}", scalar("pauses")),
    ("paused (µs, mean)", "{:,.0f}", scalar("paused_us")),
    ("pauses into the receiver's ToR (mean)", "{:,.0f}", scalar("tor_downlink_pauses")),
    ("largest ingress count (B, mean)", "{:,.0f}", scalar("max_ingress_bytes")),
    ("last hop's largest queue (B, mean)", "{:,.0f}", scalar("last_hop_max_bytes")),
    ("CPU (s, mean)", "{:,.2f}", scalar("cpu_s")),
    ("wall (s, mean)", "{:,.2f}", scalar("wall_s")),
)


def measures(kind: str) -> tuple:
    if kind == "permutation":
        return PERMUTATION + COUNTS
    if kind == "websearch":
        bins = tuple(
            (f"{name}: FCT p{q} (µs)", "{:,.1f}", pooled_percentile(q, low, high))
            for low, high, name in BINS
            for q in (50, 99)
        )
        return COMPLETION + bins + COUNTS
    return COMPLETION + COUNTS


def span(xs: list[float | None], spec: str) -> str:
    xs = [x for x in xs if x is not None]
    if not xs:
        return "—"
    return spec.format(min(xs)) if min(xs) == max(xs) else f"{spec.format(min(xs))}–{spec.format(max(xs))}"


def ratio(a: float | None, b: float | None) -> float | None:
    return b / a if a is not None and b is not None and a != 0 else None


def bootstrap(fn, h: list[Run], f: list[Run], rng: numpy.random.Generator) -> tuple[float, float] | None:
    """A 95% interval of fn(f) / fn(h), seeds drawn with replacement (the same on both sides)."""
    n, ratios = len(h), []
    for _ in range(BOOTSTRAP):
        pick = rng.integers(0, n, n)
        r = ratio(fn([h[i] for i in pick]), fn([f[i] for i in pick]))
        if r is not None:
            ratios.append(r)
    if len(ratios) < BOOTSTRAP / 2:
        return None
    low, high = numpy.percentile(ratios, [2.5, 97.5])
    return float(low), float(high)


def case_table(kind: str, h: list[Run], f: list[Run]) -> tuple[list[str], dict]:
    """A case's pooled table (markdown rows) and its figures, `h` and `f` the two sides' runs in
    the same seed order."""
    rng = numpy.random.default_rng(0)
    rows = [
        "| measure | htsim pooled | htsim per seed | fairsim pooled | fairsim per seed "
        "| fairsim / htsim | per-seed ratios | 95% (bootstrap) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    figures = {}
    for name, spec, fn in measures(kind):
        a, b = fn(h), fn(f)
        if a is None and b is None:
            continue
        per_h = [fn([r]) for r in h]
        per_f = [fn([r]) for r in f]
        per_ratio = [ratio(x, y) for x, y in zip(per_h, per_f, strict=True)]
        r = ratio(a, b)
        interval = bootstrap(fn, h, f, rng) if r is not None and len(h) > 1 else None
        figures[name] = {
            "htsim": a,
            "fairsim": b,
            "ratio": r,
            "htsim_per_seed": per_h,
            "fairsim_per_seed": per_f,
            "ratio_95": interval,
        }
        cells = [
            name,
            "—" if a is None else spec.format(a),
            span(per_h, spec),
            "—" if b is None else spec.format(b),
            span(per_f, spec),
            "" if r is None else f"{r:.3f}",
            span(per_ratio, "{:.3f}"),
            "" if interval is None else f"{interval[0]:.3f}–{interval[1]:.3f}",
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return rows, figures


def report(pairs: dict[str, list[tuple[int, dict, dict]]], matrix_sizes: Callable[[str], dict]) -> dict:
    """Prints each case's pooled table; `pairs` maps a case to its (seed, htsim figures, fairsim
    figures) runs, each side's figures with its per-flow data. Returns the pooled figures."""
    out = {}
    for case, runs in sorted(pairs.items()):
        runs = sorted(runs, key=lambda x: x[0])
        kind = runs[0][1]["kind"]
        h, f = [], []
        for seed, hf, ff in runs:
            sizes = matrix_sizes(hf["matrix"])
            h.append(run_of(hf, seed, sizes, hf["end_us"]))
            f.append(run_of(ff, seed, sizes, hf["end_us"]))
        seeds = [s for s, _, _ in runs]
        flows = sum(hf["flows"] for _, hf, _ in runs)
        matrix = Path(runs[0][1]["matrix"]).name
        seeds_text = f"{len(seeds)} seeds ({span(seeds, '{}')})"
        print(f"\n### {case}: {seeds_text}, {flows:,} flows in all ({matrix}, ...)\n")
        rows, figures = case_table(kind, h, f)
        print("\n".join(rows), flush=True)
        out[case] = {"seeds": seeds, "kind": kind, "figures": figures}
    return out
