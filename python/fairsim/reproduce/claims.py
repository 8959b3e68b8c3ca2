"""A paper's claims as checks on our runs, each with a stated tolerance and a computed verdict.

A claim's check reads measured values through a `Context` and returns a `Verdict`: held or not,
with the numbers it looked at. Nothing is written down in advance: change the runs and the
verdicts change (tests/test_reproduce.py checks exactly that).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairsim.reproduce.measure import Measurements


#: Every verdict's label, in the order reports count them.
LABELS = ("held", "not held", "derived", "undecided", "not checkable", "not evaluated")


@dataclass(frozen=True)
class Verdict:
    #: True held, False not held, None not evaluated (an experiment it needs did not run) or
    #: not checkable.
    held: bool | None
    #: The numbers the check looked at, formatted for the report.
    measured: str
    #: Why the claim cannot fail in our runs (it holds by construction), if it cannot.
    unchecked: str = ""
    #: The constant of ours that was derived from the numbers this claim tests, if any: it is
    #: close by construction, so its check's result is shown but counts neither way.
    derived: str = ""
    #: The numbers the check looked at, by name (a discussion's `{{claim:name}}`).
    values: Mapping[str, float] = field(default_factory=dict)
    #: Why the runs cannot decide the claim either way, if they cannot (too few replications
    #: for its test): counts neither way.
    undecided: str = ""

    @property
    def label(self) -> str:
        if self.unchecked:
            return "not checkable"
        if self.undecided:
            return "undecided"
        if self.derived and self.held is not None:
            return "derived"
        return self.checked

    @property
    def checked(self) -> str:
        """What the check itself found (a derived claim's label hides it)."""
        return {True: "held", False: "not held", None: "not evaluated"}[self.held]

    def caveats(self) -> list[str]:
        """Why the verdict counts neither way, in words, if it does not."""
        out = [f"cannot fail: {self.unchecked}"] if self.unchecked else []
        if self.undecided:
            out.append(f"undecided: {self.undecided}")
        if self.derived and self.held is not None:
            out.append(f"derived: {self.derived} (its own check: {self.checked})")
        return out


class Missing(Exception):
    """An experiment a claim needs has no runs."""


class Context:
    """What a claim's check can read: the measurements of every experiment that ran."""

    def __init__(self, experiments: dict[str, Measurements], sweeps: dict | None = None):
        self._experiments = experiments
        self.sweeps = sweeps or {}

    def __call__(self, experiment: str) -> Measurements:
        try:
            return self._experiments[experiment]
        except KeyError:
            raise Missing(experiment) from None


@dataclass(frozen=True)
class Claim:
    id: str
    #: The experiments it reads (for grouping in the report).
    experiment: str
    #: The claim, in the paper's words or the spec's checklist.
    text: str
    #: What we count as holding, in words (the check implements exactly this).
    tolerance: str
    check: Callable[[Context], Verdict]
    #: Where the claim is made (paper section or spec item).
    source: str = ""
    #: Why the claim cannot fail in our reconstruction, if it cannot: it is reported as not
    #: checkable, with the numbers its check looked at, and counts neither way.
    cannot_fail: str = ""
    #: The constant of ours derived from the very numbers this claim tests, if one was: it is
    #: reported as derived, with its check's result, and counts neither way.
    derived: str = ""

    def evaluate(self, ctx: Context) -> Verdict:
        try:
            v = self.check(ctx)
        except Missing as e:
            return Verdict(None, f"experiment {e} did not run")
        if self.cannot_fail:
            return Verdict(None, v.measured, unchecked=self.cannot_fail, values=v.values)
        return dataclasses.replace(v, derived=self.derived) if self.derived else v


class Claims(list):
    """A paper's claims in the order they are declared, each declared beside its check:

    ```python
    CLAIMS = Claims()

    @CLAIMS.claim("s1-fair", experiment="s1", text="...", tolerance="...", source="DKS89 §4")
    def s1_fair(ctx): ...
    ```

    `add` declares a claim whose check is made by a function (one check for several claims)."""

    def claim(
        self,
        id: str,
        *,
        experiment: str,
        text: str,
        tolerance: str,
        source: str = "",
        cannot_fail: str = "",
        derived: str = "",
    ):
        def declare(check: Callable[[Context], Verdict]):
            self.append(Claim(id, experiment, text, tolerance, check, source, cannot_fail, derived))
            return check

        return declare

    def add(
        self,
        id: str,
        *,
        experiment: str,
        text: str,
        tolerance: str,
        check,
        source: str = "",
        cannot_fail: str = "",
        derived: str = "",
    ) -> None:
        self.append(Claim(id, experiment, text, tolerance, check, source, cannot_fail, derived))


@dataclass(frozen=True)
class TestedClaim:
    """A claim about an algorithm alone, checked by the test suite rather than by a run."""

    id: str
    text: str
    tests: tuple[str, ...]
    source: str = ""


def fmt(x: float, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if abs(x) >= 100 or float(x).is_integer():
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def numbers(**named: float) -> str:
    """`a = 1.5, b = 0.2` with the names' underscores as spaces."""
    return ", ".join(f"{k.replace('_', ' ')} = {fmt(v)}" for k, v in named.items())


def verdict(held: bool, **named: float) -> Verdict:
    """A verdict on the named numbers; a condition on a value that was never measured (NaN)
    does not hold."""
    bad = any(isinstance(v, float) and math.isnan(v) for v in named.values())
    return Verdict(bool(held) and not bad, numbers(**named), values=named)


#: The level of the one-sided binomial test that decides a claim about most runs.
MOST_RUNS_LEVEL = 0.05
#: What a claim decided by `in_most_runs` tests, for its tolerance.
MOST_RUNS = (
    "in most runs, by a one-sided binomial test at the 5% level of 'it holds in at most half of the runs' "
    "(held if rejected: all of 5 runs, at least 15 of 20; one run cannot decide it)"
)


def binomial_tail(k: int, n: int, p: float = 0.5) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p): the one-sided p-value of k successes in n trials."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def in_most_runs(m: Measurements, check: Callable[[Measurements], tuple[bool, dict[str, float]]]) -> Verdict:
    """Evaluates `check` on each replication alone — for claims about one run's dynamics, such
    as which sources win a segregation, that an average over replications would wash out —
    and holds if it holds in most runs: a one-sided binomial test rejects, at `MOST_RUNS_LEVEL`,
    that the check holds in at most half of them (p₀ = ½). With 5 runs it must hold in all 5,
    with 20 in at least 15; a handful of runs in which it holds 3 times of 5 decides nothing."""
    outcomes = [check(r) for r in m.replications()]
    if not outcomes:
        return Verdict(None, "no runs")
    held = sum(bool(ok) for ok, _ in outcomes)
    p = binomial_tail(held, len(outcomes))
    # even all of n runs cannot reject "at most half" when ½ⁿ ≥ the level (n < 5 at 5%)
    decidable = binomial_tail(len(outcomes), len(outcomes)) < MOST_RUNS_LEVEL
    detail = "; ".join(f"run {i}: {numbers(**named)}" for i, (_, named) in enumerate(outcomes[:3], 1))
    more = " …" if len(outcomes) > 3 else ""
    return Verdict(
        p < MOST_RUNS_LEVEL if decidable else None,
        f"holds in {held} of {len(outcomes)} runs, binomial p = {p:.3g} against at most half "
        f"(held if below {MOST_RUNS_LEVEL:g}) ({detail}{more})",
        values={"runs_held": held, "runs": len(outcomes), "p": p},
        undecided="" if decidable else f"{len(outcomes)} runs cannot show most runs at {MOST_RUNS_LEVEL:g}",
    )


def all_of(**parts: Verdict) -> Verdict:
    """A claim made of parts, each checked on its own runs (`in_most_runs` of two experiments):
    held if every part is, undecided if one is; the parts' numbers are named `part: name`."""
    held = None if any(v.held is None for v in parts.values()) else all(v.held for v in parts.values())
    return Verdict(
        held,
        "; ".join(f"{name}: {v.measured}" for name, v in parts.items()),
        values={f"{name}: {k}": x for name, v in parts.items() for k, x in v.values.items()},
        undecided="; ".join(f"{name}: {v.undecided}" for name, v in parts.items() if v.undecided),
    )


def within(x: float, target: float, rel: float = 0.0, abs_: float = 0.0) -> bool:
    return abs(x - target) <= max(rel * abs(target), abs_)


def all_within(values: Iterable[float], target: float, rel: float = 0.0, abs_: float = 0.0) -> bool:
    return all(within(v, target, rel, abs_) for v in values)


def spread(values: Iterable[float]) -> float:
    """max − min."""
    xs = list(values)
    return max(xs) - min(xs)
