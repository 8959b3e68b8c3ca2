"""Results of one or more runs, as pandas DataFrames and as the documented JSON document.

pandas is imported when a DataFrame is first asked for, not with this module: the command line
prints its tables and writes its CSV files from the runs' reports (plain dicts) alone.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import TYPE_CHECKING, Any

from fairsim import _core
from fairsim.columns import plain
from fairsim.transfer_tables import (
    slowdown_table,
    study_edges,
    transfer_rows,
    transfer_summary_rows,
    workload_columns,
)

if TYPE_CHECKING:
    import pandas as pd

#: Version of the JSON document written by ``fairsim run --json`` (see docs/results.md).
SCHEMA = "fairsim.run/2"

#: Each table's columns from the engine's catalogue (`_core.columns()`): (name, unit, source),
#: in the table's order. A summary (`source` `summary`) is a mean over the measurement
#: intervals with `_std` and `_ci95` beside it; `total` a count over them; `delay` a figure of a
#: report's delay summary (`queueing` of a flow, `sojourn` of a queue); `field` the report's own.
COLUMNS: dict[str, list[tuple[str, str, str]]] = {}
for _table, _name, _unit, _, _source in _core.columns():
    COLUMNS.setdefault(_table, []).append((_name, _unit, _source))

#: The delay summaries' figures (docs/results.md, "Queueing delay"), in seconds: p50/p95/p99
#: within 1/256 of the exact values, the rest exact.
DELAY_FIGURES = tuple(n.split("_")[1] for n, _, source in COLUMNS["queues"] if source == "delay")
QUEUE_DELAY = tuple(n for n, _, source in COLUMNS["queues"] if source == "delay")
FLOW_DELAY = tuple(n for n, _, source in COLUMNS["flows"] if source == "delay")
#: How long the flow's own window (the receiver's) held its sender back (docs/results.md).
WINDOW_LIMITED = ("window_limited_s", "window_limited_share")

#: Units whose values are words, not numbers (a missing one stays None rather than NaN).
_WORDS = {"text"}


def _laid_out(row: dict, record: dict, table: str) -> None:
    """`record` (a flow's or queue's report) laid out as `table`'s columns in `row`: a missing
    number is NaN (no sample, no access line, a buffer counted in the other unit)."""
    nan = float("nan")
    for name, unit, source in COLUMNS[table]:
        if source == "summary":
            s = record.get(name)
            row[name] = s["mean"] if s else nan
            row[f"{name}_std"] = s["std"] if s else nan
            row[f"{name}_ci95"] = s["ci95"] if s else nan
            continue
        if source == "total":
            value = record["totals"].get(name, 0)
        elif source == "delay":
            key, figure = name.split("_", 1)
            value = (record.get(key) or {}).get(figure)
        else:
            value = record.get(name)
        row[name] = nan if value is None and unit not in _WORDS else value


def flow_rows(r: dict) -> list[dict]:
    """One row per flow of run report `r` (the `flows` table)."""
    rows = []
    for f in r["flows"]:
        row: dict[str, Any] = {"pair": r["pair"], "seed": r["seed"], "flow": f["name"]}
        _laid_out(row, f, "flows")
        rows.append(row)
    return rows


#: The queues table's counts over the measurement intervals (docs/results.md): `losses` are the
#: packets the line lost after sending them (a link's `loss`), counted in `departures` too.
QUEUE_TOTALS = tuple(n for n, _, source in COLUMNS["queues"] if source == "total")


def queue_rows(r: dict) -> list[dict]:
    """One row per port of run report `r` (the `queues` table), then its discipline's own figures."""
    rows = []
    for q in r["queues"]:
        row: dict[str, Any] = {"pair": r["pair"], "seed": r["seed"], "port": q["port"]}
        _laid_out(row, q, "queues")
        row.update(q.get("qdisc_stats", {}))
        rows.append(row)
    return rows


def _or_nan(x: float | None) -> float:
    return float("nan") if x is None else x


def jain_index(xs: list[float]) -> float:
    """Jain's index (Σx)² / (n·Σx²), the engine's: 1 when all are equal, 1/n when one has
    everything; NaN for no values or all zero (the run's own `jain` is in its report; this
    serves indices of other quantities)."""
    return _or_nan(_core.jain([float(x) for x in xs]))


def interval_rows(r: dict) -> list[dict]:
    return [{"pair": r["pair"], "seed": r["seed"], **i} for i in r["flow_intervals"]]


def queue_interval_rows(r: dict) -> list[dict]:
    return [{"pair": r["pair"], "seed": r["seed"], **i} for i in r["queue_intervals"]]


def slowdown_rows(r: dict, edges: dict[str, list[float]] | None = None) -> list[dict]:
    """Per workload of run report `r`: its completion-time slowdown by size (`Results.slowdown`'s
    rows of one run, for sweeps and `slowdown.csv`) in the size bins of `edges`
    (`fairsim.transfer_tables.study_edges`), by default ten equal-count bins cut from this run's
    transfers alone; none without workload transfers. A sweep records each run's rows as they
    arrive, so in the run's own bins; it pools its runs from their transfers
    (`SweepResults.completion_times`), never from these rows."""
    head = {"pair": r["pair"], "seed": r["seed"]}
    return [{**head, **row} for row in slowdown_table(workload_columns([r]), edges or 10)]


def table_rows(runs: list[dict], table: str) -> list[dict]:
    """Table `table`'s rows of `runs`, run after run (`ROW_TABLES`); the slowdown table's in the
    size bins cut once from every run's transfers, so that the runs of `slowdown.csv` share
    their bins, as the table `fairsim run` prints does."""
    if table == "slowdown":
        edges = study_edges(workload_columns(runs), 10)
        return [row for r in runs for row in slowdown_rows(r, edges)]
    return [row for r in runs for row in ROW_TABLES[table](r)]


def fluid_rows(r: dict) -> list[dict]:
    """Per port named in `[run] fluid_reference` and per flow of run report `r`: its lag behind
    the ideal GPS (the `fluid` table)."""
    return [
        {"pair": r["pair"], "seed": r["seed"], "port": p["port"], **f}
        for p in r.get("fluid", [])
        for f in p["flows"]
    ]


def trace_rows(r: dict) -> list[dict]:
    """Run report `r`'s recorded time series, one row per point (the `traces` table)."""
    head = {"pair": r["pair"], "seed": r["seed"]}
    return [
        {**head, "source": t["source"], "name": t["name"], "series": t["series"], "t_s": ts, "value": v}
        for t in r.get("traces", [])
        for ts, v in zip(t["t_s"], t["value"], strict=True)
    ]


def fairness_rows(r: dict) -> list[dict]:
    """Run report `r`'s fairness indices, one row (the `fairness` table)."""
    return [
        {
            "pair": r["pair"],
            "seed": r["seed"],
            "jain": r["fairness"]["jain"],
            "jain_raw": r["fairness"]["jain_raw"],
            # NaN, not None, where undefined (as before the engine computed it)
            "jain_access": _or_nan(r["fairness"].get("jain_access")),
            "flows": len(r["fairness"]["flows"]),
        }
    ]


def network_event_rows(r: dict) -> list[dict]:
    """One row per network event of run report `r` (the `network_events` table)."""
    return [
        {
            "pair": r["pair"],
            "seed": r["seed"],
            **{k: v for k, v in e.items() if k != "ports"},
            "ports": ", ".join(e["ports"]),
        }
        for e in r.get("network_events") or []
    ]


#: Table -> its rows from one run's report. Every value is the engine's (its interval rows
#: carry their rates and means, `stats::metrics`): Python only lays them out.
TABLES = {
    "transfer_summary": transfer_summary_rows,
    "slowdown": slowdown_rows,
    "transfers": transfer_rows,  # one row per transfer (`fairsim.transfer_tables`)
    "flows": flow_rows,
    "queues": queue_rows,
    "intervals": interval_rows,
    "queue_intervals": queue_interval_rows,
}

#: Tables that are `DataFrame(rows)` of rows from each run's report: the command line writes
#: them as CSV without pandas (`fairsim.csv_tables`).
ROW_TABLES = {
    **TABLES,
    "fluid": fluid_rows,
    "fairness": fairness_rows,
    "traces": trace_rows,
    "network_events": network_event_rows,
}


def table_frame(rows: list[dict]) -> pd.DataFrame:
    """The DataFrame of a table's rows (of any number of runs)."""
    import pandas as pd

    return pd.DataFrame(rows)


class Results:
    """The results of running a scenario under one or more pairs and seeds.

    DataFrames (one row per pair, seed and flow/queue/interval):
    ``flows``, ``intervals``, ``queues``, ``queue_intervals``, ``fairness``, ``fluid``,
    ``network_events`` (the network's changes, `[[events]]`); for
    open-population flows (`app = "files"`) ``transfers`` (one row per transfer) and
    ``transfer_summary`` (R, Θ, power, fairness per run and flow).
    ``summary()`` is the table ``fairsim run`` prints; ``to_json()`` the document ``--json`` prints.
    """

    def __init__(
        self,
        scenario: dict,
        runs: list[dict],
        *,
        interrupted: bool = False,
        source=None,
        captures: list[dict[tuple[str, str], bytes | str]] | None = None,
    ):
        self.scenario = scenario
        self.runs = runs
        self.interrupted = interrupted
        self.source = source
        #: Per run, by (port, "pcap" or "events"): the pcap file's bytes or the event trace's
        #: text of each port named in `[run] pcap` or `[run] events`.
        self.captures = captures if captures is not None else [{} for _ in runs]

    @property
    def complete(self) -> bool:
        return all(r["complete"] for r in self.runs)

    @property
    def pairs(self) -> list[str]:
        return list(dict.fromkeys(r["pair"] for r in self.runs))

    def __getitem__(self, pair: str) -> Results:
        chosen = [i for i, r in enumerate(self.runs) if r["pair"] == pair]
        runs = [self.runs[i] for i in chosen]
        if not runs:
            near = _core.suggest(str(pair), self.pairs)
            hint = f"; did you mean {near!r}?" if near else ""
            raise KeyError(f"no pair {pair!r}{hint} (these results have {', '.join(self.pairs)})")
        captures = [self.captures[i] for i in chosen]
        return Results(
            self.scenario, runs, interrupted=self.interrupted, source=self.source, captures=captures
        )

    def pcap(self, port: str, pair: str | None = None, seed: int | None = None) -> bytes:
        """The pcap file of the packets `port` sent (`[run] pcap`, `--pcap`), for Wireshark or
        tshark: of the only run, or of the run of `pair` and `seed`."""
        return self._seen(port, "pcap", "[run] pcap (or --pcap)", pair, seed)

    def events(self, port: str, pair: str | None = None, seed: int | None = None) -> str:
        """The text trace of `port`'s packet events (`[run] events`, `--events`): a line per
        packet queued (+), sent (-), dropped (d, with the reason) and received at the far end
        (r); of the only run, or of the run of `pair` and `seed`."""
        return self._seen(port, "events", "[run] events (or --events)", pair, seed)

    def _seen(self, port: str, what: str, option: str, pair: str | None, seed: int | None):
        found = [
            c[(port, what)]
            for r, c in zip(self.runs, self.captures, strict=True)
            if (port, what) in c and pair in (None, r["pair"]) and seed in (None, r["seed"])
        ]
        if len(found) != 1:
            which = "no run" if not found else f"{len(found)} runs"
            raise KeyError(
                f"{which} recorded port {port!r}"
                + (f" for pair {pair!r}" if pair else "")
                + (f" and seed {seed}" if seed is not None else "")
                + f": name the port in {option}, and a pair and seed if there are several"
            )
        return found[0]

    def __len__(self) -> int:
        return len(self.runs)

    def __repr__(self) -> str:
        from fairsim.table_parts import plural

        state = "complete" if self.complete else "incomplete"
        name = self.scenario["name"]
        return f"<fairsim.Results {name!r}: {plural(len(self.runs), 'run')} ({state}), pairs {self.pairs}>"

    @cached_property
    def flows(self) -> pd.DataFrame:
        return table_frame([row for r in self.runs for row in flow_rows(r)])

    @cached_property
    def intervals(self) -> pd.DataFrame:
        return table_frame([row for r in self.runs for row in interval_rows(r)])

    @cached_property
    def queues(self) -> pd.DataFrame:
        return table_frame([row for r in self.runs for row in queue_rows(r)])

    @cached_property
    def queue_intervals(self) -> pd.DataFrame:
        return table_frame([row for r in self.runs for row in queue_interval_rows(r)])

    @cached_property
    def fluid(self) -> pd.DataFrame:
        """Per port named in `[run] fluid_reference` and per flow: lag behind the ideal GPS."""
        import pandas as pd

        return pd.DataFrame([row for r in self.runs for row in fluid_rows(r)])

    @cached_property
    def traces(self) -> pd.DataFrame:
        """Recorded time series (`--trace`, `run.trace`, `run.trace_queues`), one row per point:
        pair, seed, source (`flow` or `queue`), name, series (cwnd, ssthresh, window, rate,
        rate_estimate, min_rtt, probe, outstanding, queue), t_s, value (in force until the next point)."""
        import pandas as pd

        frames = [
            pd.DataFrame(
                {
                    "pair": r["pair"],
                    "seed": r["seed"],
                    "source": t["source"],
                    "name": t["name"],
                    "series": t["series"],
                    "t_s": t["t_s"],
                    "value": t["value"],
                }
            )
            for r in self.runs
            for t in r.get("traces", [])
        ]
        columns = ["pair", "seed", "source", "name", "series", "t_s", "value"]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)

    @cached_property
    def transfers(self) -> pd.DataFrame:
        """One row per transfer of the open-population flows: pair, seed, flow, transfer (its
        row in its run), arrival_s, warmup (it arrived in the warm-up, and counts in no table),
        finish_s (NaN if unfinished), response_s, unfinished, bytes, sent, retransmitted,
        delivered; with a workload also src, dst, fct_s, ideal_fct_s, slowdown and
        slowdown_so_far (an unfinished transfer's elapsed time over its ideal; docs/results.md)."""
        from fairsim.transfers import transfer_frame

        return transfer_frame(self.runs)

    def slowdown(self, bins=10) -> pd.DataFrame:
        """Completion-time slowdown by flow size, for workloads: per pair, workload and size
        bin, over the transfers arriving after the warm-up of every seed, the count, how many
        did not finish, the bin's upper edge and largest size, the p50, p95, p99 and p99.9
        slowdown (a transfer's completion time over its ideal one, alone on the network; NaN
        where the bin has too few transfers to support it), the mean FCT, and whether those are
        lower bounds (an unfinished transfer counts at its elapsed time; docs/results.md).
        `bins`: a number of about equal-count bins that never split one size, cut once from
        every pair's and seed's transfers, or upper edges in bytes (`[100e3, 10e6]`)."""
        from fairsim.transfers import slowdown_frame

        return slowdown_frame(self.transfers, bins)

    def plot_slowdown(self, bins=10, ax=None):
        """The standard slowdown-by-size plot: p50 and p99 slowdown against each bin's largest
        size, one line per pair and workload, both axes logarithmic."""
        from fairsim.plots import plot_slowdown

        return plot_slowdown(self.slowdown(bins), ax=ax)

    @cached_property
    def transfer_summary(self) -> pd.DataFrame:
        """Per run and open-population flow: arrivals, finished, unfinished, arrival_rate,
        response_s (R), elapsed_s (T), throughput_bps (Θ, bytes/s), power (Θ/R, bytes/s²),
        jain, outstanding (N = λR), over the transfers arriving after the warm-up."""
        from fairsim.transfers import summary_frame

        return summary_frame(self.runs)

    def plot_traces(self, series: str = "cwnd", names=None, ax=None):
        """Step plot of a recorded series (e.g. `cwnd`, `rate_estimate`, `queue`) per pair and name."""
        from fairsim.plots import plot_traces

        return plot_traces(self.traces, series, names=names, ax=ax)

    @cached_property
    def network_events(self) -> pd.DataFrame:
        """The network's changes (`[[events]]`), one row per run and event: pair, seed, at_s,
        target (`link`, `port` or `node`), name, action (`down`, `up`, `rate`), rate_bps, ports,
        detected_s (when forwarding learnt of it). What the failures lost is the queues'
        `link_down`."""
        import pandas as pd

        return pd.DataFrame([row for r in self.runs for row in network_event_rows(r)])

    @cached_property
    def fairness(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame([row for r in self.runs for row in fairness_rows(r)])

    def to_dict(self, intervals: bool = False) -> dict:
        """The JSON document of docs/results.md; per-interval rows and traces only if ``intervals``."""
        from fairsim._core import __version__

        drop = () if intervals else ("flow_intervals", "queue_intervals", "traces")
        document = {
            "schema": SCHEMA,
            "fairsim_version": __version__,
            "scenario": self.scenario,
            "complete": self.complete,
            "runs": [plain({k: v for k, v in r.items() if k not in drop}) for r in self.runs],
        }
        from fairsim import workload_tables

        if workload_tables.is_workload_run(self.runs):
            # the table `fairsim run` shows first: per pair, the transfers' slowdown by size
            document["completion_times"] = workload_tables.completion_rows(self.runs)
        return document

    def to_json(self, intervals: bool = False, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(intervals), indent=indent)

    def summary(self, width: int = 120, per_seed: bool = False) -> str:
        """The tables ``fairsim run`` prints, as plain text: per pair, the mean over seeds with a
        95% confidence interval, or with ``per_seed`` one table per run."""
        from fairsim.tables import render_text

        return render_text(self, width=width, per_seed=per_seed)

    # Jupyter shows the HTML tables, IPython's terminal the text ones; `repr()` stays one line.
    def _repr_html_(self) -> str:
        from html import escape

        from fairsim.tables import render_html

        return f"<p><code>{escape(repr(self))}</code></p>" + render_html(self)

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(repr(self) if cycle else f"{self!r}\n{self.summary().rstrip()}")
