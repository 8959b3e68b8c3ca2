"""Our value of a published metric, measured on the runs of one experiment.

Every run gives one sample per measurement interval for rate metrics (the thesis's
"mean of means"), or one sample per run for counts over the measurement window (the 1989
paper's packets in 500 s). An estimate pools the samples of every replication: its mean, their
standard deviation (the thesis's second number), and a 95% confidence interval from the
per-replication means. See docs/reproductions.md.
"""

from __future__ import annotations

import fnmatch
import json
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from fairsim import _core
from fairsim.results import Results

#: metric -> (unit, how samples are formed: "window" = one per run, "interval" = one per interval)
METRIC_UNITS = {
    "packets": ("packets", "window"),
    "packets_unique": ("packets", "window"),
    "rtt": ("s", "window"),
    "retransmissions": ("packets", "window"),
    "drops": ("packets", "window"),
    "throughput": ("packets/s", "interval"),
    "delay": ("s", "interval"),
    "drop_rate": ("packets/s", "interval"),
    "retx_rate": ("packets/s", "interval"),
    "mbps": ("Mb/s", "interval"),
    "transfer_time": ("ms", "window"),
    # not in the papers' tables; used by claims and figures
    "delay_one_way": ("s", "window"),
}

_COUNTS = {
    "packets": "delivered",
    "packets_unique": "delivered_unique",
    "retransmissions": "retransmitted",
    "drops": "dropped",
}
#: Metrics that are the engine's per-interval rates (stats::metrics), by their column.
_RATES = {"throughput": "goodput_pps", "drop_rate": "drop_pps", "retx_rate": "retransmit_pps"}
#: Metrics that are the engine's means over a run's whole window, by the figure's name.
_WINDOW = {"rtt": "rtt_first_s", "delay_one_way": "delay_s"}
#: The counters of an interval row (the catalogue's `counter` columns; the rest are figures).
_FLOW_COUNTERS = [
    name for table, name, _, _, source in _core.columns() if table == "intervals" and source == "counter"
]


def _window_figures(g: pd.DataFrame) -> dict:
    """The engine's figures (stats::metrics) of a flow's intervals `g` merged as the engine
    merges counters: a mean over the whole window weighs every sample alike, not every interval."""
    seconds = float((g["end_s"] - g["start_s"]).sum())
    return json.loads(_core.flow_metrics(g[_FLOW_COUNTERS].to_dict("records"), seconds))


@dataclass(frozen=True)
class Estimate:
    mean: float
    #: Standard deviation of the samples (intervals of every replication, or replications).
    std: float
    #: Half-width of the 95% confidence interval from the replications' means (0 with one).
    ci95: float
    runs: int
    samples: int
    #: Half-width of the 95% Student-t interval over the pooled samples.
    ci95_samples: float = 0.0
    #: The lowest and highest replication's own value (its mean): the spread figures draw,
    #: which stays within the quantity's range (a count is never below zero).
    low: float = math.nan
    high: float = math.nan

    @property
    def interval(self) -> float:
        """The 95% half-width figures draw: over the pooled interval values, like the thesis's
        boxes over one run's intervals (with two or three replications, an interval from their
        means alone would be wider than the data: Student's t for one degree of freedom is 12.7)."""
        return self.ci95_samples

    @staticmethod
    def of(per_run: list[list[float]]) -> Estimate | None:
        """From the samples of each run (runs without a sample are left out)."""
        per_run = [s for s in per_run if s]
        pooled = [x for s in per_run for x in s]
        if not pooled:
            return None
        mean, std, ci95_samples, n = _core.summarize(pooled)
        means = [float(np.mean(s)) for s in per_run]
        _, _, ci95, _ = _core.summarize(means)
        return Estimate(
            mean,
            std,
            ci95,
            runs=len(per_run),
            samples=n,
            ci95_samples=ci95_samples,
            low=min(means),
            high=max(means),
        )


class Measurements:
    """The runs of one experiment (or one point of a sweep), every pair and seed."""

    def __init__(self, results: Results):
        self.results = results

    @cached_property
    def _intervals(self) -> pd.DataFrame:
        df = self.results.intervals
        if df.empty:
            return df
        return df[~df["warmup"]]

    @cached_property
    def _by_pair_and_flow(self) -> dict[tuple[str, str], pd.DataFrame]:
        """The measurement intervals of each pair and flow, split once: claims ask for thousands
        of (pair, flow) values, and filtering the whole table for each took seconds."""
        df = self._intervals
        return {} if df.empty else dict(iter(df.groupby(["pair", "flow"], sort=False)))

    @property
    def pairs(self) -> list[str]:
        return self.results.pairs

    def replications(self) -> list[Measurements]:
        """The same measurements, one replication (seed) at a time."""
        runs = self.results.runs
        seeds = sorted({r["seed"] for r in runs})
        meta, source = self.results.scenario, self.results.source
        return [
            Measurements(Results(meta, [r for r in runs if r["seed"] == s], source=source)) for s in seeds
        ]

    def estimate(
        self, pair: str, flow: str, metric: str, interval: tuple[float, float] | None = None
    ) -> Estimate | None:
        """Our value of `metric` for `flow` under `pair`, over the measurement intervals (those
        inside `interval`, in seconds from the start, if given); `None` if nothing was measured."""
        key = (pair, flow, metric, interval)
        if key not in self._estimates:  # claims and figures ask for the same values many times
            self._estimates[key] = self._estimate(pair, flow, metric, interval)
        return self._estimates[key]

    @cached_property
    def _estimates(self) -> dict:
        return {}

    def _estimate(self, pair: str, flow: str, metric: str, interval) -> Estimate | None:
        if "*" in flow:
            return self._across(pair, flow, metric, interval)
        if metric == "transfer_time":
            return Estimate.of([[v] for v in self._completions(pair, flow)])
        df = self._by_pair_and_flow.get((pair, flow))
        if df is None:
            return None
        if interval is not None:
            lo, hi = interval
            df = df[(df["start_s"] >= lo - 1e-9) & (df["end_s"] <= hi + 1e-9)]
        per_run = [self._samples(metric, g) for _, g in df.groupby("seed", sort=True)]
        return Estimate.of(per_run)

    def matching(self, pattern: str) -> list[str]:
        """The flows a pattern such as `tcp*` or `web#*` names."""
        return [f for f in self.flows() if fnmatch.fnmatchcase(f, pattern)]

    def _across(self, pair: str, pattern: str, metric: str, interval) -> Estimate | None:
        """Across the flows `pattern` names: one sample per flow and run (the flow's value in
        that run), so the spread is between flows, as the CSFQ paper's tables give it."""
        per_run = []
        for m in self.replications():
            values = []
            for flow in m.matching(pattern):
                e = m.estimate(pair, flow, metric, interval)
                if e is not None:
                    values.append(e.mean)
            per_run.append(values)
        return Estimate.of(per_run)

    def _completions(self, pair: str, flow: str) -> list[float]:
        """Completion times (ms) of a finite transfer, one per run that completed it."""
        df = self.results.flows
        df = df[(df["pair"] == pair) & (df["flow"] == flow)]
        return [float(v) * 1000 for v in df["completion_s"] if pd.notna(v)]

    def _samples(self, metric: str, g: pd.DataFrame) -> list[float]:
        if metric in _COUNTS:
            return [float(g[_COUNTS[metric]].sum())]
        if metric in _RATES:
            return list(g[_RATES[metric]].astype(float))
        if metric == "mbps":
            return list((g["goodput_bps"] / 1e6).astype(float))
        if metric in _WINDOW:
            figure = _window_figures(g)[_WINDOW[metric]]
            return [figure] if figure is not None else []
        if metric == "delay":
            return list(g["rtt_first_s"].dropna().astype(float))
        raise KeyError(f"unknown metric `{metric}`")

    def value(self, pair: str, flow: str, metric: str, interval=None) -> float:
        """The mean of `estimate`, or NaN when nothing was measured (for claims)."""
        e = self.estimate(pair, flow, metric, interval)
        return e.mean if e else float("nan")

    def flows(self) -> list[str]:
        df = self.results.flows
        return list(dict.fromkeys(df["flow"])) if not df.empty else []

    def starts(self, pair: str) -> dict[int, dict[str, float]]:
        """When each flow started (seconds) in each replication, by seed: the scenario's start
        plus the run's draw of start jitter, as the resolved scenario of that pair and seed
        writes it. Empty when the runs carry no scenario to resolve."""
        source = self.results.source
        if source is None:
            return {}
        seeds = sorted({r["seed"] for r in self.results.runs if r["pair"] == pair})
        return {
            s: {name: _seconds(f["start"]) for name, f in source.resolved(pair, s)["flows"].items()}
            for s in seeds
        }

    def traces(self, pair: str, name: str, series: str, seed: int | None = None) -> pd.DataFrame:
        """One recorded series of the first replication (or of `seed`): columns t_s, value."""
        df = self.results.traces
        if df.empty:
            return df
        df = df[(df["pair"] == pair) & (df["name"] == name) & (df["series"] == series)]
        if df.empty:
            return df
        seed = df["seed"].min() if seed is None else seed
        return df[df["seed"] == seed][["t_s", "value"]].reset_index(drop=True)

    def queue(self, pair: str, port: str, column: str) -> float:
        """Mean over replications of a per-queue total or summary (`utilisation`, `drops`, ...)."""
        df = self.results.queues
        df = df[(df["pair"] == pair) & (df["port"] == port)]
        return float(df[column].mean()) if not df.empty else float("nan")


def _seconds(text: str) -> float:
    """A resolved scenario's time (`49.983us`, `1.5s`, `0s`) in seconds, read by the engine."""
    return _core.parse("time", text)[1] / 1e9
