"""A sweep's results as tidy tables: one row per run, one per flow of each run, axis values as
columns; aggregation over seeds and a plot of a metric against an axis."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import pandas as pd

from fairsim import _core
from fairsim.sweeps.store import read_manifest, read_plan, read_table

#: Rows of the overview a notebook shows.
OVERVIEW_ROWS = 20


class SweepResults:
    """The runs of a sweep's current plan, read from its folder (`fairsim.open_sweep(path)`).

    Tables (pandas DataFrames, long format: seaborn and Altair take them as they are):
    ``runs`` (one row per run: axis values, pair, seed, status, error, events, wall time, Jain's
    index), ``flows`` (one row per flow of each finished run), and ``queues``, ``intervals``,
    ``queue_intervals``, ``transfer_summary``, ``slowdown``, ``transfers`` when the sweep
    recorded them. ``failures`` are the runs that did not finish. ``aggregate()`` and
    ``plot()`` summarise over seeds; ``completion_times()`` pools workloads' transfers over seeds.
    """

    def __init__(self, folder: str | Path, summary=None):
        self.folder = Path(folder)
        self.manifest = read_manifest(self.folder)
        #: What the call that made these results ran (None when read back with `open_sweep`).
        self.summary = summary

    @property
    def axes(self) -> list[str]:
        return list(self.manifest["axes"])

    @cached_property
    def plan(self) -> pd.DataFrame:
        plan = read_plan(self.folder)
        missing = [a for a in self.axes if a not in plan.columns]
        if "point" in plan.columns and missing:
            raise _core.FairsimError(
                f"{self.folder / 'manifest.json'}: axis `{missing[0]}` is not a column of plan.parquet "
                "(the two are of different sweeps): run the sweep again to rewrite both"
            )
        return plan

    @property
    def complete(self) -> bool:
        """Every run of the plan finished without error."""
        runs = self.runs
        return len(runs) == self.manifest["runs"] and bool((runs["status"] == "ok").all())

    @cached_property
    def runs(self) -> pd.DataFrame:
        """The latest attempt of each run of the plan (a run that failed and then finished
        shows as finished)."""
        runs = read_table(self.folder, "runs")
        runs = runs[runs["run_id"].isin(set(self.plan["run_id"]))]
        if runs.empty:
            return runs.reset_index(drop=True)
        ok_last = runs.assign(_ok=runs["status"] == "ok").sort_values(["_ok", "finished_at"], kind="stable")
        latest = ok_last.drop_duplicates("run_id", keep="last").drop(columns="_ok")
        order = {rid: i for i, rid in enumerate(self.plan["run_id"])}
        latest = latest.sort_values("run_id", key=lambda s: s.map(order)).reset_index(drop=True)
        # stored as seconds since the epoch (a number every Parquet reader takes); shown as a time
        return latest.assign(finished_at=pd.to_datetime(latest["finished_at"], unit="s", utc=True))

    @property
    def failures(self) -> pd.DataFrame:
        runs = self.runs
        return runs[runs["status"] != "ok"] if not runs.empty else runs

    def _table(self, name: str) -> pd.DataFrame:
        df = read_table(self.folder, name)
        if df.empty:
            return df
        df = df[df["run_id"].isin(set(self.plan["run_id"]))]
        # a row's identity within its run (a run recorded twice keeps its last rows)
        within = ["transfer"] if name == "transfers" else ("flow", "port", "interval", "bin")
        key = ["run_id", *[c for c in within if c in df.columns]]
        return df.drop_duplicates(key, keep="last").reset_index(drop=True)

    def _recorded_without(self, table: str) -> int:
        """How many finished runs of the plan were recorded without `table` (`runs.recorded`)."""
        runs = self.runs
        if runs.empty or "recorded" not in runs:
            return 0
        ok = runs[runs["status"] == "ok"]
        return sum(table not in str(t).split() for t in ok["recorded"].fillna(""))

    @cached_property
    def flows(self) -> pd.DataFrame:
        return self._table("flows")

    @cached_property
    def queues(self) -> pd.DataFrame:
        return self._table("queues")

    @cached_property
    def intervals(self) -> pd.DataFrame:
        return self._table("intervals")

    @cached_property
    def queue_intervals(self) -> pd.DataFrame:
        return self._table("queue_intervals")

    @cached_property
    def transfer_summary(self) -> pd.DataFrame:
        return self._table("transfer_summary")

    @cached_property
    def slowdown(self) -> pd.DataFrame:
        """Workloads' slowdown by size bin, per run, each run in its own equal-count bins
        (recorded with ``tables=["slowdown"]``): for figures over seeds, record the transfers
        and see ``completion_times()``."""
        return self._table("slowdown")

    @cached_property
    def transfers(self) -> pd.DataFrame:
        """One row per transfer of each finished run (recorded with ``tables=["transfers"]``):
        the columns of ``Results.transfers``, the run's id and the axes in front."""
        return self._table("transfers")

    def completion_times(self, bins=10, by: list[str] | None = None) -> pd.DataFrame:
        """Workloads' completion-time slowdown by size, pooled over seeds from the recorded
        transfers: per value of `by` (default: every axis and the pair), workload and size bin,
        ``Results.slowdown``'s columns over the transfers of all its seeds together (the p99 is
        that of the concatenated transfers; NaN where the bin has too few for a percentile),
        ``seeds``, and a 95% interval of each figure from resampling whole seeds
        (``p99_low``, ``p99_high``, …; a slowdown's never below 1).

        `bins`: a number of equal-count bins cut once from every transfer of the study after
        its warm-up, per workload, so that a bin is the same sizes at every point, pair and
        seed; or upper edges in bytes (``[100e3, 10e6]``). ``by=[*axes, "pair", "seed"]``
        gives each run's table in the study's bins."""
        from fairsim.sweeps.by_size import RECORD_TRANSFERS
        from fairsim.sweeps.pooled import completion_times

        transfers = self.transfers
        if transfers.empty:
            raise _core.FairsimError(f"the sweep has no transfers recorded: {RECORD_TRANSFERS}")
        without = self._recorded_without("transfers")
        if without:  # pooled over some seeds only, a figure would not be the point's
            raise _core.FairsimError(
                f"{without:,} finished run{'s' if without != 1 else ''} of the sweep "
                "recorded without their transfers: " + RECORD_TRANSFERS
            )
        keys = by if by is not None else [*self.axes, "pair"]
        for key in keys:
            if key not in transfers.columns:
                hint = _core.did_you_mean(str(key), [str(c) for c in transfers.columns])
                raise _core.FairsimError(f"no column `{key}` in the transfers table to group by{hint}")
        return completion_times(transfers, keys, bins)

    def aggregate(
        self,
        metric: str,
        by: list[str] | None = None,
        table: str = "flows",
        flows: list[str] | None = None,
        per_run: str | None = None,
        bins=10,
    ) -> pd.DataFrame:
        """The mean over seeds of `metric`, with its standard deviation, 95% confidence interval
        (Student's t over the seeds) and the number of seeds, per value of `by` (default: every
        axis, the pair, and for per-flow tables the flow).

        `per_run` first reduces each run's rows to one value (`"sum"`, `"mean"`, `"min"`,
        `"max"`): `aggregate("goodput_bps", per_run="sum")` is each point's total goodput.
        `flows` keeps only those flows.

        `table="slowdown"`: a percentile of the slowdown (`p50`, `p95`, `p99`, `p999`) or
        `mean_fct_s` per size bin of `bins` (as `completion_times`), pooled over seeds from the
        recorded transfers: `value`, its 95% bootstrap interval `low` to `high`, `n` seeds and
        the `transfers`. Without recorded transfers, each run's own slowdown rows are averaged
        (Student's t) only where every run has the same bins, and refused otherwise.
        """
        if table == "slowdown":
            return self._by_size(metric, by, flows, bins)
        return self._aggregate(getattr(self, table), table, metric, by, flows, per_run)

    def _aggregate(self, df: pd.DataFrame, table: str, metric: str, by, flows, per_run) -> pd.DataFrame:
        """`aggregate` of the rows `df` of `table`."""
        if df.empty:
            raise _core.FairsimError(f"the sweep has no `{table}` rows (no run finished, or not recorded)")
        if metric not in df.columns:
            hint = _core.did_you_mean(metric, [str(c) for c in df.columns])
            raise _core.FairsimError(f"no column `{metric}` in the {table} table{hint}")
        if flows is not None:
            df = df[df["flow"].isin(flows)]
        keys = by if by is not None else [*self.axes, "pair"]
        for key in keys:
            if key not in df.columns:
                hint = _core.did_you_mean(str(key), [str(c) for c in df.columns])
                raise _core.FairsimError(f"no column `{key}` in the {table} table to group by{hint}")
        if per_run:
            df = df.groupby([*dict.fromkeys([*keys, "run_id", "seed"])], dropna=False, sort=False)[metric]
            df = df.agg(per_run).reset_index()
        elif by is None and "flow" in df.columns:
            keys = [*keys, "flow"]
        rows = []
        for key, group in df.groupby(keys, dropna=False, sort=False):
            values = [float(v) for v in group[metric] if pd.notna(v)]
            mean, std, ci95, n = _core.summarize(values) or (float("nan"), float("nan"), float("nan"), 0)
            key = key if isinstance(key, tuple) else (key,)
            rows.append({**dict(zip(keys, key, strict=True)), "mean": mean, "std": std, "ci95": ci95, "n": n})
        return pd.DataFrame(rows)

    def _by_size(self, metric: str, by, flows, bins) -> pd.DataFrame:
        """`aggregate` of the slowdown by size (`fairsim.sweeps.by_size`)."""
        from fairsim.sweeps import by_size

        by_size.check_metric(metric)
        keys = by if by is not None else [*self.axes, "pair"]
        if not self.transfers.empty:
            out = by_size.pooled(self, metric, keys, bins)
            return out[out["flow"].isin(flows)] if flows is not None else out
        table, keys = by_size.per_run_rows(self, keys)
        return self._aggregate(table, "slowdown", metric, keys, flows, None)

    def plot(
        self,
        metric: str,
        x: str | None = None,
        *,
        per_run: str = "mean",
        flows=None,
        table="flows",
        ax=None,
        bins=10,
    ):
        """`metric` against axis `x` (default: the first axis), one line per pair, with a band
        of the 95% confidence interval over seeds; other axes, if any, as one line each too.
        `table="slowdown"`: a line per pair and size bin of `bins` (as `aggregate`), the band
        the bootstrap interval of the figure pooled over seeds."""
        from fairsim.plots import plot_sweep

        x = x or (self.axes[0] if self.axes else None)
        if x is None:
            raise _core.FairsimError("the sweep has no axis to plot against")
        others = [a for a in self.axes if a != x]
        if table == "slowdown":
            agg = self.aggregate(metric, by=[*self.axes, "pair"], table=table, flows=flows, bins=bins)
            series = [*others, "size_bin"] if "size_bin" in agg else [*others, "bin"]
            return plot_sweep(agg, metric, x, series, ax=ax, ylabel=by_size_label(metric, agg))
        agg = self.aggregate(metric, by=[*self.axes, "pair"], table=table, flows=flows, per_run=per_run)
        return plot_sweep(agg, metric, x, others, ax=ax, ylabel=averaged(metric, table, per_run, flows, agg))

    def overview(self) -> pd.DataFrame:
        """Per point and pair, the mean over seeds of Jain's index and of the run's total goodput
        (b/s), each with the 95% confidence half-width of that mean (Student's t over the seeds;
        NaN for one seed), and the seeds that finished: what `fairsim sweep` prints at its end."""
        runs = self.runs
        ok = runs[runs["status"] == "ok"] if not runs.empty else runs
        keys = [*self.axes, "pair"]
        measured = [c for m in OVERVIEW_METRICS for c in (m, f"{m}_ci95")]
        if ok.empty:
            return pd.DataFrame(columns=[*keys, *measured, "seeds"])
        goodput = self.flows.groupby("run_id")["goodput_bps"].sum().rename("goodput_bps")
        per_run = ok.merge(goodput, left_on="run_id", right_index=True)
        rows = []
        for key, group in per_run.groupby(keys, sort=False):
            row = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
            for metric in OVERVIEW_METRICS:
                values = [float(v) for v in group[metric] if pd.notna(v)]
                mean, _, ci95, _ = _core.summarize(values) or (float("nan"),) * 4
                row |= {metric: mean, f"{metric}_ci95": ci95 if len(values) > 1 else float("nan")}
            rows.append(row | {"seeds": len(group)})
        return pd.DataFrame(rows, columns=[*keys, *measured, "seeds"])

    @cached_property
    def written(self) -> dict[str, dict]:
        """Per axis, each value as the tables hold it → as it was written (1000000.0 → "1Mbps")."""
        from fairsim.sweeps.axes import value_from_text, value_of

        shown = {}
        for axis in self.manifest["sweep"]["axes"]:
            values = [value_from_text(v) if isinstance(v, str) else value_of(v) for v in axis["values"]]
            shown[axis["name"]] = {
                v.column: v.text for v in values if isinstance(v.column, int | float | str)
            }
        return shown

    def _repr_html_(self) -> str:
        """In Jupyter: what ran, and the overview (its first rows), as `fairsim.Results` shows its
        tables; for a sweep of workloads with recorded transfers, their completion times pooled
        over seeds instead (Jain's index over one flow, a workload, says nothing), as `fairsim
        sweep` prints them."""
        from html import escape

        if not self.transfers.empty and not self._recorded_without("transfers"):
            return f"<p><code>{escape(repr(self))}</code></p>{self._completion_html()}"
        table = self.overview()
        for axis, texts in self.written.items():
            if axis in table.columns:
                table[axis] = [texts.get(v, v) for v in table[axis]]
        more = (
            f"<p>… {len(table) - OVERVIEW_ROWS} more rows: <code>.overview()</code></p>"
            if len(table) > OVERVIEW_ROWS
            else ""
        )
        head = table.head(OVERVIEW_ROWS)
        shown = head[[*self.axes, "pair"]].copy()
        for heading, cell in OVERVIEW_CELLS.values():
            shown[heading] = [cell(row) for _, row in head.iterrows()]
        html = shown.to_html(index=False, border=0)
        return f"<p><code>{escape(repr(self))}</code></p><p>{OVERVIEW_CAPTION}</p>{html}{more}"

    def _completion_html(self) -> str:
        """The pooled completion times' first rows, each percentile with its interval."""
        from fairsim.sweeps.completion_report import SHOWN, figure

        table = self.completion_times()
        keys = [c for c in [*self.axes, "pair", "flow", "bin", "up_to_bytes", "count", "seeds"] if c in table]
        head = table.head(OVERVIEW_ROWS)
        shown = head[keys].copy()
        for name, heading in SHOWN.items():
            shown[heading] = [figure(row, name) for _, row in head.iterrows()]
        more = (
            f"<p>… {len(table) - OVERVIEW_ROWS} more rows: <code>.completion_times()</code></p>"
            if len(table) > OVERVIEW_ROWS
            else ""
        )
        caption = (
            "completion-time slowdown by size, pooled over seeds (95% interval from resampling whole seeds)"
        )
        return f"<p>{caption}</p>{shown.to_html(index=False, border=0)}{more}"

    def __repr__(self) -> str:
        runs = self.runs
        ok = int((runs["status"] == "ok").sum()) if not runs.empty else 0
        name = self.manifest["scenario"]["name"]
        total = self.manifest["runs"]
        return f"<fairsim.SweepResults {name!r}: {ok} of {total} runs finished, axes {self.axes}>"


#: The overview's measured columns, each with its confidence half-width (`NAME_ci95`).
OVERVIEW_METRICS = ("jain", "goodput_bps")


def _mean_ci(row, metric: str, scale: float = 1.0) -> str:
    from fairsim.table_parts import Stat, pm

    seeds = int(row["seeds"]) if pd.notna(row[f"{metric}_ci95"]) else 1
    return pm(Stat(row[metric] * scale, row[f"{metric}_ci95"] * scale, seeds), decimals=3)


#: The overview's cells as `fairsim sweep` and Jupyter show them: heading, cell text of a row;
#: a mean over several seeds shows its 95% confidence interval, as `fairsim run --seeds` does.
OVERVIEW_CELLS = {
    "jain": ("Jain", lambda row: _mean_ci(row, "jain")),
    "goodput_bps": ("total goodput (Mb/s)", lambda row: _mean_ci(row, "goodput_bps", 1e-6)),
    "seeds": ("seeds", lambda row: str(int(row["seeds"]))),
}

#: What the overview's cells are.
OVERVIEW_CAPTION = "mean over seeds ± 95% CI (Student's t): Jain's index, total goodput; seeds finished"


def averaged(metric: str, table: str, per_run: str, flows: list[str] | None, agg: pd.DataFrame) -> str:
    """A plot's axis label saying what each point averages: `goodput_bps, sum over all flows of
    a run; mean over 5 seeds, band 95% CI`."""
    seeds = int(agg["n"].max()) if len(agg) else 0
    over = f"mean over {seeds} seed{'s' if seeds != 1 else ''}, band: 95% CI"
    if table == "runs":
        return f"{metric}\n{over}"
    which = (
        "all flows"
        if flows is None
        else "flows " + ", ".join(map(str, flows[:4])) + (" …" if len(flows) > 4 else "")
    )
    return f"{metric}, {per_run} over {which} of a run\n{over}"


def by_size_label(metric: str, agg: pd.DataFrame) -> str:
    """A plot's axis label for a slowdown figure by size: what it pools and what the band is."""
    seeds = int(agg["n"].max()) if len(agg) else 0
    over = f"{seeds} seed{'s' if seeds != 1 else ''}"
    if "value" in agg:
        return f"{metric} slowdown by size, pooled over {over}\nband: 95% CI (bootstrap over seeds)"
    return f"{metric} slowdown by size, mean over {over}\nband: 95% CI"


def open_sweep(folder: str | Path) -> SweepResults:
    """Reads a sweep's results back from its folder (`fairsim sweep --out FOLDER`)."""
    return SweepResults(folder)
