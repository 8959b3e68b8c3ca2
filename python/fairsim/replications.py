"""Replications that cannot differ: several seeds of a pair that gave the same results.

A scenario whose sources and disciplines draw no random numbers runs identically under every
seed; averaging such runs gives a confidence interval of zero that means nothing. fairsim says
so, once per call, rather than let the zero pass for a measurement.
"""

from __future__ import annotations

import warnings


class FairsimWarning(UserWarning):
    """Base class of fairsim's warnings."""


class IdenticalSeedsWarning(FairsimWarning):
    """Every seed of a pair gave identical results: the replications do not differ."""


#: Fields of a run's report that differ between replications however deterministic the run is.
PER_RUN_FIELDS = frozenset({"seed", "wall_s"})


def _outcome(run: dict) -> dict:
    return {k: v for k, v in run.items() if k not in PER_RUN_FIELDS}


def identical_seeds_message(runs: list[dict]) -> str | None:
    """The warning for the pairs whose seeds (at least two, every run complete) all gave the
    same results, or None."""
    same: dict[tuple, list[str]] = {}
    for pair in dict.fromkeys(r["pair"] for r in runs):
        of_pair = [r for r in runs if r["pair"] == pair]
        seeds = tuple(dict.fromkeys(r["seed"] for r in of_pair))
        if len(seeds) < 2 or not all(r["complete"] for r in of_pair):
            continue
        first = _outcome(of_pair[0])
        if all(_outcome(r) == first for r in of_pair[1:]):
            same.setdefault(seeds, []).append(pair)
    if not same:
        return None
    cases = "; ".join(
        f"seeds {', '.join(map(str, seeds))} gave identical results under {' and '.join(pairs)}"
        for seeds, pairs in same.items()
    )
    which = "that pair" if sum(len(p) for p in same.values()) == 1 else "those pairs"
    return (
        f"{cases}: the scenario has no random element under {which}, so its replications do not "
        "differ (a confidence interval of zero measures nothing)"
    )


def warn_if_identical(runs: list[dict], stacklevel: int = 3) -> None:
    message = identical_seeds_message(runs)
    if message:
        warnings.warn(message, IdenticalSeedsWarning, stacklevel=stacklevel)


def identical_sweep_pairs(flows, axes: list[str]) -> list[str]:
    """The pairs of a sweep's `flows` table whose seeds gave identical rows at every point that
    ran at least two of them: the sweep's replications of those pairs do not differ."""
    keys = [*axes, "pair", "flow"]
    measured = [c for c in flows.columns if c not in {*keys, "run_id", "seed"}]
    if flows.empty or not measured:
        return []
    grouped = flows.groupby(keys, dropna=False, sort=False)
    seeds = grouped["seed"].nunique()
    same = (grouped[measured].nunique(dropna=False) <= 1).all(axis=1)
    replicated = seeds >= 2
    pairs = []
    for pair, rows in same[replicated].groupby(level="pair", sort=False):
        if bool(rows.all()):
            pairs.append(str(pair))
    return pairs


def warn_if_sweep_identical(flows, axes: list[str], stacklevel: int = 3) -> None:
    pairs = identical_sweep_pairs(flows, axes)
    if pairs:
        which = "that pair" if len(pairs) == 1 else "those pairs"
        warnings.warn(
            f"every point's seeds gave identical results under {' and '.join(pairs)}: the scenario "
            f"has no random element under {which}, so the sweep's replications do not differ "
            "(a confidence interval of zero measures nothing)",
            IdenticalSeedsWarning,
            stacklevel=stacklevel,
        )
