"""Confidence intervals of figures pooled over seeds, by resampling whole seeds (the bootstrap).

A percentile pooled over seeds (the p99 of every transfer of every seed) has no Student's t
interval: it is not a mean of per-seed figures, and its spread need not be symmetric. The
seeds are the independent replications, and a seed's transfers are not independent of one
another (they share its queues), so the resampled unit is the seed: each resample draws as many
seeds as there are, with replacement, pools their values, and computes the figure; the 2.5th and
97.5th percentiles of the resampled figures bound a 95% interval (the percentile bootstrap).
Those are figures of real pooled samples, so the interval stays within the values' range (a
slowdown's, above 1) where a mean ± t·s would not.

The resamples come from a fixed random seed: the same data gives the same interval, run after
run and whatever else is computed beside it. With k seeds there are only C(2k-1, k) distinct
resamples (10 for 3 seeds): few seeds give a coarse interval, and one seed none.
"""

from __future__ import annotations

from functools import cache

import numpy as np

#: Resamples per interval, and the random seed they are drawn from.
RESAMPLES = 1000
RANDOM_SEED = 20_240_917

#: The interval's coverage.
LEVEL = 0.95

#: Values handled at once, per resample: memory of (values × resamples) stays below this.
CHUNK = 1 << 21


@cache
def seed_weights(seeds: int, resamples: int = RESAMPLES) -> np.ndarray:
    """How many times each of `seeds` seeds is drawn in each resample: a (resamples × seeds)
    array of multinomial counts, each row summing to `seeds`. The same for a given count of
    seeds wherever it is used, so that every figure of a point resamples its seeds alike."""
    rng = np.random.default_rng([RANDOM_SEED, seeds])
    return rng.multinomial(seeds, np.full(seeds, 1 / seeds), size=resamples)


def resampled_quantiles(values: np.ndarray, seed: np.ndarray, seeds: int, qs) -> np.ndarray:
    """Each resample's quantiles `qs` (numpy's linear method) of the values of the seeds it drew:
    a (resamples × len(qs)) array, NaN for a resample whose seeds hold no value. `seed`: each
    value's seed, 0 to `seeds` - 1.

    A resample repeats each value as often as its seed was drawn, so its sorted values are the
    pooled sorted values, each counted that many times: rank r is the first value whose running
    count exceeds r. That finds every resample's quantiles without building its sample."""
    weights = seed_weights(seeds)
    order = np.argsort(values, kind="stable")
    ordered, owner = values[order], seed[order]
    # running count of each seed's values up to each place in the sorted order: (n × seeds)
    running = np.zeros((len(ordered), seeds))
    running[np.arange(len(ordered)), owner] = 1
    running = running.cumsum(axis=0)
    out = np.full((len(weights), len(qs)), np.nan)
    step = max(1, CHUNK // max(1, len(ordered)))
    for start in range(0, len(weights), step):
        w = weights[start : start + step].T.astype(float)
        counts = running @ w  # (n × resamples): how many values of the resample up to each place
        total = counts[-1] if len(ordered) else np.zeros(w.shape[1])
        for j, q in enumerate(qs):
            place = (total - 1) * q
            below = np.floor(place)
            above = np.minimum(below + 1, total - 1)
            low = ordered[np.minimum((counts <= below).sum(axis=0), len(ordered) - 1)]
            high = ordered[np.minimum((counts <= above).sum(axis=0), len(ordered) - 1)]
            figure = low + (place - below) * (high - low)
            out[start : start + step, j] = np.where(total > 0, figure, np.nan)
    return out


def resampled_means(values: np.ndarray, seed: np.ndarray, seeds: int) -> np.ndarray:
    """Each resample's mean of the values of the seeds it drew (NaN where they hold none)."""
    weights = seed_weights(seeds).astype(float)
    sums = np.bincount(seed, weights=values, minlength=seeds)
    counts = np.bincount(seed, minlength=seeds)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ sums) / (weights @ counts)


def interval(resampled: np.ndarray, floor: float = -np.inf) -> tuple[np.ndarray, np.ndarray]:
    """The percentile bootstrap's interval over resamples (axis 0), resamples without a figure
    left out, and never below `floor` (a slowdown's 1: rounding in a computed ideal must not
    show an interval below what the quantity can be)."""
    tail = (1 - LEVEL) / 2
    figures = np.atleast_2d(resampled.T).T
    low, high = np.full(figures.shape[1], np.nan), np.full(figures.shape[1], np.nan)
    for j in range(figures.shape[1]):
        column = figures[:, j]
        column = column[~np.isnan(column)]
        if len(column):
            low[j], high[j] = np.quantile(column, [tail, 1 - tail])
    return np.maximum(low, floor), np.maximum(high, floor)
