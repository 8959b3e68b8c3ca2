"""The transfers table and the completion-time slowdown table as plain Python lists and dicts,
without pandas: what `fairsim run` prints for a workload, puts in its JSON document
(`completion_times`) and writes (`transfers.csv`, `slowdown.csv`), and what `fairsim.transfers`
makes its DataFrames of. Importing pandas for these tables took a k = 8 workload run's whole
process from 36–74 MB to 133–165 MB (docs/performance.md).

The figures are the ones pandas 3 with numpy 2.3 or later gives, bit for bit: a percentile is
`numpy.quantile`'s (its linear method, which pandas 3's `Series.quantile` calls), a mean FCT
numpy's sum (pairwise summation) over the count, and the size bins pandas' `cut`.
tests/test_transfer_tables.py checks them against numpy and pandas on random inputs
(docs/decisions.md: older pandas and numpy gave other last bits).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from fairsim.slowdown_rules import (
    bin_index,
    equal_count_edges,
    given_edges,
    in_warmup,
    supported,
    upper_edge,
)

#: The transfers table's columns (`Results.transfers`): `transfer` is the transfer's row in its
#: run (as event traces name it), `warmup` whether it arrived in the warm-up, and so counts in no
#: table (`fairsim.slowdown_rules.in_warmup`).
COLUMNS = [
    "pair",
    "seed",
    "flow",
    "transfer",
    "arrival_s",
    "warmup",
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
# and at least 1 (a lower bound of what it would have been); and its transport's largest window
# over its path's bandwidth-delay product (NaN without such a window): below 1, it cannot fill
# its path even alone
WORKLOAD_COLUMNS = ["src", "dst", "fct_s", "ideal_fct_s", "slowdown", "slowdown_so_far", "window_bdp"]

#: The slowdown table's percentiles: p99.9 is what data-centre papers report beside the others.
#: A bin with fewer transfers than a percentile needs has NaN there (`slowdown_rules.fewest`).
PERCENTILES = {"p50": 0.5, "p95": 0.95, "p99": 0.99, "p999": 0.999}

#: `up_to_bytes`: the bin's upper edge (infinity for the last), the same in every run of a study.
SLOWDOWN_COLUMNS = [
    "pair",
    "flow",
    "bin",
    "up_to_bytes",
    "count",
    "unfinished",
    "max_bytes",
    *PERCENTILES,
    "mean_fct_s",
    "lower_bound",
]

_NAN = float("nan")


def transfer_summary_rows(r: dict) -> list[dict]:
    """One row per open-population flow of run report `r` (the engine's transfer summary)."""
    return [{"pair": r["pair"], "seed": r["seed"], **s} for s in r.get("transfer_summary") or []]


def transfer_columns(r: dict) -> dict[str, list] | None:
    """Run report `r`'s transfers as the transfers table's columns: `COLUMNS`, and with a
    workload `WORKLOAD_COLUMNS` (NaN for a time or slowdown there is none of); None without
    transfers."""
    t = r.get("transfers")
    if not t or not t["flow"]:
        return None
    names = [f["name"] for f in r["flows"]]
    arrival = t["arrival_s"]
    warmup_s = r["measurement"]["warmup_s"]
    finish = [_NAN if x is None else float(x) for x in t["finish_s"]]
    # in whole nanoseconds, as the engine keeps time: a difference of two instants in seconds
    # can fall an ulp short, and a transfer that took its ideal time exactly show 0.9999999
    response = [_ns(f - a, f, a) for f, a in zip(finish, arrival, strict=True)]
    columns = {
        "pair": [r["pair"]] * len(arrival),
        "seed": [r["seed"]] * len(arrival),
        "flow": [names[i] for i in t["flow"]],
        "transfer": list(range(len(arrival))),
        "arrival_s": arrival,
        "warmup": [in_warmup(a, warmup_s) for a in arrival],
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
        slowdown = [
            _divided(round(fct * 1e9), round(i * 1e9)) if fct == fct and i == i else _divided(fct, i)
            for fct, i in zip(response, ideal, strict=True)
        ]
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
            "window_bdp": [_NAN if x is None else float(x) for x in t["window_bdp"]],
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


def measured_sized(transfers: Mapping[str, Sequence]) -> list[int]:
    """The rows of a transfers table (as columns) that count in a slowdown table: those with an
    ideal (a file of a size) that did not arrive in the warm-up (its `warmup` column; a table
    without one has no warm-up)."""
    ideal, warmup = transfers["ideal_fct_s"], transfers.get("warmup")
    return [i for i, fct in enumerate(ideal) if fct == fct and not (warmup is not None and warmup[i])]


def study_edges(transfers: Mapping[str, Sequence], bins=10) -> dict[str, list[float]]:
    """Each workload's size-bin edges for every table of `transfers` (every pair and seed in it):
    `bins` equal-count bins cut from the sizes of all its measured transfers at once
    (`slowdown_rules.equal_count_edges`), or the upper edges in bytes that `bins` gives. One
    set per workload, so that a bin is the same sizes in every run, pair and seed."""
    if not isinstance(bins, int):
        edges = given_edges(bins)
    sizes: dict[str, list] = {}
    flow, nbytes = transfers["flow"], transfers["bytes"]
    for i in measured_sized(transfers):
        sizes.setdefault(flow[i], []).append(nbytes[i])
    if isinstance(bins, int):
        return {f: equal_count_edges(s, bins, quantiles) for f, s in sizes.items()}
    return dict.fromkeys(sizes, edges)


def slowdown_table(transfers: Mapping[str, Sequence], bins=10) -> list[dict]:
    """The completion-time slowdown by size (`SLOWDOWN_COLUMNS`) of a transfers table given as
    columns (`pair`, `flow`, `bytes`, `unfinished`, `ideal_fct_s`, `slowdown_so_far`, and
    `warmup`): per pair and workload, in order of first appearance, and per size bin, its count,
    how many did not finish, its upper edge and largest size, the percentiles of its slowdown so
    far (NaN where the bin has too few transfers for one: `slowdown_rules.fewest`) and its mean
    FCT, and whether those are lower bounds (it holds an unfinished transfer). Transfers of the
    warm-up, and those without an ideal (files without end), are left out.

    `bins`: a number of equal-count bins cut from all the table's transfers of a workload at once
    (every pair and seed: `study_edges`), upper edges in bytes, or each workload's edges
    (`study_edges` of a larger study)."""
    pair, flow, sizes, unfinished = (transfers[name] for name in ("pair", "flow", "bytes", "unfinished"))
    ideal, so_far = transfers["ideal_fct_s"], transfers["slowdown_so_far"]
    edges = bins if isinstance(bins, Mapping) else study_edges(transfers, bins)
    groups: dict[tuple, dict[int, list[int]]] = {}
    for i in measured_sized(transfers):
        b = bin_index(sizes[i], edges[flow[i]])
        if b is not None:
            groups.setdefault((pair[i], flow[i]), {}).setdefault(b, []).append(i)
    rows = []
    for (p, f), parts in groups.items():
        for b in sorted(parts):
            part = parts[b]
            slowdowns = [so_far[i] for i in part]
            late = sum(bool(unfinished[i]) for i in part)
            row = {"pair": p, "flow": f, "bin": b, "up_to_bytes": upper_edge(b, edges[f])}
            row |= {"count": len(part), "unfinished": late, "max_bytes": int(max(sizes[i] for i in part))}
            row |= percentiles(slowdowns)
            row["mean_fct_s"] = mean([s * ideal[i] for s, i in zip(slowdowns, part, strict=True)])
            row["lower_bound"] = late > 0
            rows.append(row)
    return rows


def percentiles(values: Sequence[float]) -> dict[str, float]:
    """`PERCENTILES` of `values` (NaN left out), each NaN where they are too few to support it."""
    measured = [v for v in values if v == v]
    figures = quantiles(measured, PERCENTILES.values()) if measured else [_NAN] * len(PERCENTILES)
    return {
        name: figure if supported(len(measured), q) else _NAN
        for (name, q), figure in zip(PERCENTILES.items(), figures, strict=True)
    }


def size_bins(sizes: Sequence, bins) -> list[int | None]:
    """Each transfer's bin (0, 1, ...) by its size, as pandas' `cut` gives it (a bin holds the
    sizes above its lower edge up to its upper one): `bins` equal-count bins cut from these
    sizes (`slowdown_rules.equal_count_edges`), or bins with the given upper edges, the last
    taking the rest (None for a size of -1 or less, which none is)."""
    edges = equal_count_edges(sizes, bins, quantiles) if isinstance(bins, int) else given_edges(bins)
    return [bin_index(s, edges) for s in sizes]


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


def _ns(d: float, f: float, a: float) -> float:
    """`f - a` (seconds, each a whole number of nanoseconds) in whole nanoseconds; NaN stays."""
    return d if d != d else (round(f * 1e9) - round(a * 1e9)) / 1e9


def _divided(a: float, b: float) -> float:
    """a / b as numpy divides floats: ±inf or NaN for a division by zero, not an error."""
    if b == 0:
        return _NAN if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _at_least_one(x: float) -> float:
    """`x` clipped below at 1, NaN staying NaN (pandas' `clip(lower=1.0)`)."""
    return 1.0 if x < 1.0 else x
