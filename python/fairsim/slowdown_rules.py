"""The three rules every completion-time table follows, kept here once so that a run's table, the
first screen of `fairsim run`, its JSON document and a sweep's pooled table cannot disagree
(docs/results.md, *Completion-time slowdown*):

- **which transfers count**: those that arrived after the warm-up, the engine's rule for
  `transfer_summary` (`in_warmup`);
- **which size bins**: one set of edges for a whole study, per workload, cut from the sizes of
  all its measured transfers or given in bytes (`equal_count_edges`, `bin_index`), never one set
  per run, so that bin 0 of one seed is bin 0 of every other;
- **which percentiles a bin supports**: Wilks' rule (`FEWEST`, `supported`).

Plain Python: the command line uses it without pandas (`fairsim.transfer_tables`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence

#: The confidence of the percentile-support rule.
CONFIDENCE = 0.95


def in_warmup(arrival_s: float, warmup_s: float) -> bool:
    """Whether a transfer that arrived at `arrival_s` belongs to the warm-up, and so counts in no
    table: the engine summarises the transfers arriving in [warm-up, stop) (`transfer_summary`,
    crates/fairsim/src/stats/transfers.rs), and no arrival comes at or after a flow's stop, so
    arriving before the warm-up's end is the whole of the rule."""
    return arrival_s < warmup_s


def fewest(q: float) -> int:
    """The fewest transfers from which a bin's q-quantile is shown: n with qⁿ ≤ 1 − CONFIDENCE.

    Wilks' rule: with n samples, the chance that all of them lie below the true q-quantile is
    qⁿ. Above 5%, the sample may not have reached the percentile at all, and what it gives is a
    guess at its largest value; from n on, its largest value bounds the percentile from above
    at 95% confidence. 5 transfers for the median, 59 for p95, 299 for p99, 2,995 for p99.9."""
    return math.ceil(math.log(1 - CONFIDENCE) / math.log(q) - 1e-9) if 0 < q < 1 else 1


def supported(count: int, q: float) -> bool:
    """Whether `count` transfers support a q-quantile (`fewest`)."""
    return count >= fewest(q)


def equal_count_edges(sizes: Sequence, bins: int, quantiles) -> list[float]:
    """The inner upper edges of `bins` bins holding about equal numbers of `sizes` (HPCC's and
    Homa's reading): the sizes' quantiles at 1/bins, 2/bins, …, edges that coincide merged, so
    that one size never splits across two bins (a distribution's point mass makes fewer, larger
    bins). The last bin takes every size above the last edge. `quantiles`: numpy's linear
    quantiles (`fairsim.transfer_tables.quantiles`), as pandas' `qcut` would cut."""
    if not sizes:
        return []
    q = min(bins, len(sizes))
    edges = list(dict.fromkeys(quantiles(sizes, [i / q for i in range(q + 1)])))
    return edges[1:-1]


def given_edges(edges: Sequence) -> list[float]:
    """Upper edges given in bytes (`[100e3, 10e6]`: pFabric's (0, 100 KB], (100 KB, 10 MB],
    (10 MB, ∞)), sorted; the last bin takes the rest."""
    out = sorted(float(e) for e in edges)
    if len(set(out)) < len(out) or any(e != e for e in out):
        raise ValueError(f"Bin edges must be unique: {[-1.0, *out, math.inf]}")  # as pandas' `cut` says
    return out


def bin_index(size: float, edges: Sequence[float]) -> int | None:
    """The bin (0, 1, …) of `size` among bins with upper edges `edges` (each bin holding the sizes
    above the edge before it up to its own, the first from 0 and the last without end; None for
    a size of -1 or less, which none is): pandas' `cut` over [-1, *edges, ∞]."""
    if size <= -1:
        return None
    return bisect_left(edges, size)


def upper_edge(b: int, edges: Sequence[float]) -> float:
    """Bin `b`'s upper edge in bytes (infinity for the last)."""
    return float(edges[b]) if b < len(edges) else math.inf
