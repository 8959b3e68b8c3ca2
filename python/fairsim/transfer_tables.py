"""The transfers table and the completion-time slowdown table as plain Python lists and dicts,
without pandas: what `fairsim run` prints for a workload, puts in its JSON document
(`completion_times`) and writes (`transfers.csv`, `slowdown.csv`), and what `fairsim.transfers`
makes its DataFrames of. Importing pandas for these tables took a k = 8 workload run's whole
process from 36–74 MB to 133–165 MB (issue 50; docs/performance.md).

The figures are the ones pandas 3 with numpy 2.3 or later gives, bit for bit: a percentile is
`numpy.quantile`'s (its linear method, which pandas 3's `Series.quantile` calls), a mean FCT
numpy's sum (pairwise summation) over the count, and the size bins pandas' `cut`.
tests/test_transfer_tables.py checks them against numpy and pandas on random inputs
(docs/decisions.md: older pandas and numpy gave other last bits).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence

#: The transfers table's columns (`Results.transfers`).
COLUMNS = [
    "pair",
    "seed",
    "flow",
    "arrival_s",
    "finish_s",
    "response_s",
    "unfinished",
    "bytes",
    "sent",
    "retransmitted",
    "delivered",
]
# with a workload: each transfer's hosts, its ideal completion time and its slowdown, and the
# slowdown it has reached so far: its own if it finished, else its elapsed time over its ideal
# and at least 1 (a lower bound of what it would have been)
WORKLOAD_COLUMNS = ["src", "dst", "fct_s", "ideal_fct_s", "slowdown", "slowdown_so_far"]

#: The slowdown table's percentiles: p99.9 is what data-centre papers report beside the others.
PERCENTILES = {"p50": 0.5, "p95": 0.95, "p99": 0.99, "p999": 0.999}

SLOWDOWN_COLUMNS = [
    "pair",
    "flow",
    "bin",
    "count",
    "unfinished",
    "max_bytes",
    *PERCENTILES,
    "mean_fct_s",
    "lower_bound",
]

_NAN = float("nan")


def transfer_columns(r: dict) -> dict[str, list] | None:
    """Run report `r`'s transfers as the transfers table's columns: `COLUMNS`, and with a
    workload `WORKLOAD_COLUMNS` (NaN for a time or slowdown there is none of); None without
    transfers."""
    t = r.get("transfers")
    if not t or not t["flow"]:
        return None
    names = [f["name"] for f in r["flows"]]
    arrival = t["arrival_s"]
    finish = [_NAN if x is None else float(x) for x in t["finish_s"]]
    response = [f - a for f, a in zip(finish, arrival, strict=True)]
    columns = {
        "pair": [r["pair"]] * len(arrival),
        "seed": [r["seed"]] * len(arrival),
        "flow": [names[i] for i in t["flow"]],
        "arrival_s": arrival,
        "finish_s": finish,
        "response_s": response,
        "unfinished": [f != f for f in finish],  # NaN: no finish
        "bytes": t["bytes"],
        "sent": t["sent"],
        "retransmitted": t["retransmitted"],
        "delivered": t["delivered"],
    }
    if t.get("src"):
        nodes, end = t["nodes"], r["simulated_s"]
        ideal = [_NAN if x is None else float(x) for x in t["ideal_s"]]
        slowdown = [_divided(fct, i) for fct, i in zip(response, ideal, strict=True)]
        # an unfinished transfer has taken at least until the run's end (its stop, if cut
        # short), and at least its ideal: its slowdown is at least the larger of the two
        so_far = [
            s if s == s else _at_least_one(_divided(end - a, i))
            for s, a, i in zip(slowdown, arrival, ideal, strict=True)
        ]
        columns |= {
            "src": [nodes[i] for i in t["src"]],
            "dst": [nodes[i] for i in t["dst"]],
            "fct_s": response,
            "ideal_fct_s": ideal,
            "slowdown": slowdown,
            "slowdown_so_far": so_far,
        }
    return columns


def transfer_rows(r: dict) -> list[dict]:
    """One row per transfer of run report `r` (the `transfers` table)."""
    columns = transfer_columns(r)
    if columns is None:
        return []
    return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def workload_columns(runs: list[dict]) -> dict[str, list]:
    """The transfers of the workloads of `runs`, run after run, as one table's columns; a run
    without a workload has none there (its transfers have no ideal, so no slowdown)."""
    table: dict[str, list] = {name: [] for name in COLUMNS + WORKLOAD_COLUMNS}
    for r in runs:
        columns = transfer_columns(r)
        if columns is not None and "slowdown" in columns:
            for name, values in columns.items():
                table[name] += values
    return table


def slowdown_table(transfers: Mapping[str, Sequence], bins=10) -> list[dict]:
    """The completion-time slowdown by size (`SLOWDOWN_COLUMNS`) of a transfers table given as
    columns (`pair`, `flow`, `bytes`, `unfinished`, `ideal_fct_s`, `slowdown_so_far`): per pair
    and workload, in order of first appearance, and per size bin, its count, how many did not
    finish, its largest size, the percentiles of its slowdown so far and its mean FCT, and
    whether those are lower bounds (it holds an unfinished transfer). A transfer without an
    ideal (a file without end) has no slowdown and is left out. `bins`: as
    `Results.slowdown`'s."""
    pair, flow, sizes, unfinished = (transfers[name] for name in ("pair", "flow", "bytes", "unfinished"))
    ideal, so_far = transfers["ideal_fct_s"], transfers["slowdown_so_far"]
    groups: dict[tuple, list[int]] = {}
    for i, fct in enumerate(ideal):
        if fct == fct:  # not NaN
            groups.setdefault((pair[i], flow[i]), []).append(i)
    rows = []
    for (p, f), members in groups.items():
        parts: dict[int, list[int]] = {}
        for i, b in zip(members, size_bins([sizes[i] for i in members], bins), strict=True):
            if b is not None:
                parts.setdefault(b, []).append(i)
        for b in sorted(parts):
            part = parts[b]
            slowdowns = [so_far[i] for i in part]
            late = sum(bool(unfinished[i]) for i in part)
            measured = [s for s in slowdowns if s == s]
            figures = quantiles(measured, PERCENTILES.values()) if measured else [_NAN] * len(PERCENTILES)
            row = {"pair": p, "flow": f, "bin": b, "count": len(part), "unfinished": late}
            row["max_bytes"] = int(max(sizes[i] for i in part))
            row |= dict(zip(PERCENTILES, figures, strict=True))
            row["mean_fct_s"] = mean([s * ideal[i] for s, i in zip(slowdowns, part, strict=True)])
            row["lower_bound"] = late > 0
            rows.append(row)
    return rows


def size_bins(sizes: Sequence, bins) -> list[int | None]:
    """Each transfer's bin (0, 1, ...) by its size, as pandas' `cut` gives it (a bin holds the
    sizes above its lower edge up to its upper one): `bins` equal-count bins, whose edges are
    the sizes' quantiles, so that equal sizes share one; or bins with the given upper edges,
    the last taking the rest (None for a size of -1 or less, which none is)."""
    if isinstance(bins, int):
        # edges that coincide merge (a single size is one bin); the first takes its edge too
        q = min(bins, len(sizes))
        edges = list(dict.fromkeys(quantiles(sizes, [i / q for i in range(q + 1)])))
        if len(edges) < 2:
            return [0] * len(sizes)
        return [max(bisect_left(edges, s), 1) - 1 for s in sizes]
    edges = [-1.0, *sorted(float(e) for e in bins), math.inf]
    if len(set(edges)) < len(edges):
        raise ValueError(f"Bin edges must be unique: {edges}")  # as pandas' `cut` says
    return [bisect_left(edges, s) - 1 if s > edges[0] else None for s in sizes]


def quantiles(values: Sequence, qs) -> list[float]:
    """`numpy.quantile(values, qs)` (linear interpolation, its default) as Python floats, bit
    for bit: the q-quantile lies (n - 1)·q places along the sorted values, between the two
    beside it, and from the upper one back when it is nearer (`numpy`'s `_lerp`). `values`:
    numbers, none NaN, at least one."""
    ordered = sorted(values)
    n = len(ordered)
    figures = []
    for q in qs:
        place = (n - 1) * q
        if place >= n - 1:  # numpy takes the last value as both ends, its weight past 1
            below, a = -1, ordered[-1]
            b, t = a, place + 1
        else:
            below = math.floor(place)
            a, b = ordered[below], ordered[below + 1]
            t = place - below
        diff = b - a
        figures.append(float(b - diff * (1 - t) if t >= 0.5 else a + diff * t))
    return figures


def mean(values: Sequence[float]) -> float:
    """The mean of floats as pandas' `Series.mean` gives it, bit for bit: numpy's sum, which
    adds in pairs (`_pairwise_sum`), over the count of those not NaN, which count as 0 in the
    sum; NaN if none is. (numpy 2.3 and later sums in one pass; numpy 2.0 to 2.2 summed in
    blocks of 8,192 values, so that a longer column's mean could differ in its last bit.)"""
    count = sum(v == v for v in values)
    if not count:
        return _NAN
    return (0.0 + _pairwise_sum([v if v == v else 0.0 for v in values], 0, len(values))) / count


def _pairwise_sum(xs: list[float], start: int, n: int) -> float:
    """numpy's sum of `xs[start:start + n]` (numpy/_core/src/umath/loops_utils.h.src): fewer
    than 8 one by one; up to 128 in eight running sums, added in pairs, then the rest one by
    one; more in two halves (the first a multiple of 8)."""
    if n < 8:
        total = 0.0
        for x in xs[start : start + n]:
            total += x
        return total
    if n <= 128:
        sums = xs[start : start + 8]
        whole = n - n % 8
        for i in range(start + 8, start + whole, 8):
            for j in range(8):
                sums[j] += xs[i + j]
        total = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]))
        for x in xs[start + whole : start + n]:
            total += x
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(xs, start, half) + _pairwise_sum(xs, start + half, n - half)


def _divided(a: float, b: float) -> float:
    """a / b as numpy divides floats: ±inf or NaN for a division by zero, not an error."""
    if b == 0:
        return _NAN if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _at_least_one(x: float) -> float:
    """`x` clipped below at 1, NaN staying NaN (pandas' `clip(lower=1.0)`)."""
    return 1.0 if x < 1.0 else x
