"""The tables `fairsim run` prints and `Results.summary()` returns.

A pair run with one seed gets a table of means ± standard deviations over its measurement
intervals; a pair run with several seeds gets one table of means over the seeds ± the 95%
confidence interval of those means (per-seed tables on request). Runs that Ctrl-C stopped
before they started are listed in one line.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from fairsim.columns import column
from fairsim.table_parts import (
    BUSY,
    LINE_END,
    LOST_COLUMNS,
    NA,
    Stat,
    add_rows,
    bare_table,
    buffer,
    duration,
    num,
    pct,
    plural,
    pm,
    queue_totals,
    rate,
    size,
    stat_over,
)

if TYPE_CHECKING:
    from fairsim.results import Results


def _named(items: list[dict], key: str, name: str) -> dict | None:
    return next((x for x in items if x[key] == name), None)


def _by_name(runs: list[dict], section: str, key: str) -> list[ByName]:
    """Each run's items of `section` by their `key`: looked up once per cell, not searched for
    (a search per cell made the tables of 100,000 flows take hours)."""
    return [ByName(run[section], key) for run in runs]


class ByName(Mapping):
    """A run's rows of one section by their `key`, each row read when it is looked up: a report
    whose long tables are columns (`fairsim.columns`) makes no dict for a row never shown."""

    def __init__(self, rows: Sequence[dict], key: str) -> None:
        self.rows = rows
        self.index = {name: i for i, name in enumerate(column(rows, key))}

    def __getitem__(self, name: Any) -> dict:
        return self.rows[self.index[name]]

    def __iter__(self) -> Iterator:
        return iter(self.index)

    def __len__(self) -> int:
        return len(self.index)


def _field(name: Any, metric: str) -> Callable[[dict[Any, dict]], Any]:
    """`items[name][metric]` of one run's items by name, or None when that run lacks the item."""

    def get(items: dict[str, dict]) -> Any:
        item = items.get(name)
        return item[metric] if item else None

    return get


def _heading(runs: list[dict]) -> Text:
    first = runs[0]
    m = first["measurement"]
    if len(runs) == 1:
        which = f"seed {first['seed']}"
    else:
        which = f"{plural(len(runs), 'seed')} ({', '.join(str(r['seed']) for r in runs)})"
    return Text.from_markup(
        f"[bold]{_escape(first['scenario'])}[/] · pair [bold cyan]{_escape(first['pair'])}[/] · {which} · "
        f"{plural(m['intervals'], 'interval')} of {num(m['interval_s'])} s after {num(m['warmup_s'])} s "
        "warm-up"
    )


def _stopped_line(runs: list[dict]) -> Text | None:
    """`interrupted at 423 s of 50,000 s: partial results` on a line of its own under the
    heading (`seed 2 interrupted at ...` when several runs are summed up), not glued onto it."""
    stopped = [r for r in runs if not r["complete"]]
    if not stopped:
        return None
    said = "; ".join(
        ("" if len(runs) == 1 else f"seed {r['seed']} ")
        + f"interrupted at {num(r['simulated_s'])} s"
        + (f" of {num(r['duration_s'])} s" if r.get("duration_s") is not None else "")
        for r in stopped
    )
    return Text(f"{said}: partial results", style="bold red")


def _escape(text: str) -> str:
    """`text` as it reads when printed through rich markup (`ftp[1]` keeps its brackets)."""
    return escape(text)


#: A flow held back by its own window for at least this share of the measured time gets the
#: flows table's `window-limited` column and its explanation (otherwise the table is unchanged).
WINDOW_LIMITED_SHOWN = 0.01


def _window_limited(runs: list[dict]) -> bool:
    shares = (f.get("window_limited_share") or 0.0 for r in runs for f in r["flows"])
    return any(share >= WINDOW_LIMITED_SHOWN for share in shares)


def _delay_aimed(runs: list[dict]) -> bool:
    """Whether some queue of the runs aims at a delay (CoDel, FQ-CoDel, PIE): its studies read
    queueing delays first, so the tables show them."""
    return any(qdisc in DELAY_QDISCS for r in runs for qdisc in column(r["queues"], "qdisc"))


def _flows_parts(runs: list[dict], leave_out: frozenset[str] = frozenset()) -> list:
    """The flows table (without the flows in `leave_out`), or nothing if none is left."""
    limited = _window_limited(runs)
    delays = _delay_aimed(runs)
    columns = ["flow", "app", "transport", "goodput pkt/s", "goodput", "RTT s"]
    columns += ["queueing mean", "queueing p99"] if delays else []
    columns += ["retx/s", "drops/s"]
    columns += ["of fair share", "window-limited"] if limited else ["of fair share"]
    table = bare_table(columns)
    every_flow = runs[0]["flows"]
    # the positions of the flows shown, not their rows: a row is made only if shown (a list of
    # every row held 100,000 dicts at once; docs/performance.md, "Memory at 100,000 flows")
    kept = [i for i, name in enumerate(column(every_flow, "name")) if name not in leave_out]
    if not kept:
        return []
    by_name = _by_name(runs, "flows", "name")

    def row(i: int) -> list[str]:
        f = every_flow[kept[i]]

        def cell(metric: str) -> Stat | None:
            return stat_over(by_name, _field(f["name"], metric))

        def queueing(figure: str) -> str:
            return duration(
                stat_over(
                    by_name, lambda flows: ((flows.get(f["name"]) or {}).get("queueing") or {}).get(figure)
                )
            )

        goodput, share = cell("goodput_bps"), cell("share_of_fair")
        cells = [
            f["name"],
            f["app"],
            f["transport"],
            pm(cell("goodput_pps")),
            rate(goodput.mean if goodput else None),
            pm(cell("rtt_s")),
            *([queueing("mean_s"), queueing("p99_s")] if delays else []),
            pm(cell("retransmit_pps")),
            pm(cell("drop_pps")),
            f"{share.mean:.0%}" if share else NA,
        ]
        return [*cells, pct(cell("window_limited_share"))] if limited else cells

    parts = add_rows(table, len(kept), row, "flows")
    if limited:
        parts.append(
            Text(
                "window-limited: share of the measured time the flow's own `window` (the receiver's) was "
                "full with data waiting while its congestion control allowed as much or more; near 100%, "
                "the window, not the network, set the flow's rate: raise `window` unless that is the point",
                style="dim",
            )
        )
    return parts


def _fairness_line(runs: list[dict]) -> Text:
    fair = runs[0]["fairness"]
    jain = stat_over(runs, lambda r: r["fairness"]["jain"])
    raw = stat_over(runs, lambda r: r["fairness"]["jain_raw"])
    return Text(
        f"Jain's fairness index {pm(jain)} over {plural(len(fair['flows']), 'flow')} "
        f"(goodput relative to max-min fair share; raw goodput: {pm(raw)})"
    )


def _busy(queue: dict) -> bool:
    util = queue["utilisation"]["mean"] if queue["utilisation"] else 0.0
    totals = queue["totals"]
    return util >= BUSY or totals["drops"] > 0 or any(totals.get(key, 0) > 0 for key, _ in LOST_COLUMNS)


def lost_columns(runs: list[dict]) -> list[tuple[str, str]]:
    """The columns of packets lost on the line (a link's `loss`), to a failed link or to trimming
    that some queue of `runs` has: other tables stay as they were."""
    present = set()
    for t in queue_totals(runs):
        present.update(key for key, _ in LOST_COLUMNS if t.get(key, 0))
    return [(key, col) for key, col in LOST_COLUMNS if key in present]


#: Disciplines that aim at a queueing delay: the queues table shows their sojourn first.
DELAY_QDISCS = frozenset({"codel", "fq_codel", "pie"})


def _queue_parts(runs: list[dict], every: bool = False) -> list:
    """The busy queues (every queue with `every`)."""
    # a `losses` column only where some link loses packets (`loss`), `link down` where one fails
    lost = lost_columns(runs)
    # the disciplines that aim at a delay report it first: the sojourn's mean and 99th percentile
    delays = _delay_aimed(runs)
    columns = ["queue", "qdisc", "rate", "buffer"]
    columns += ["sojourn mean", "sojourn p99"] if delays else []
    columns += ["utilisation", "mean queue pkts", "drops"]
    table = bare_table([*columns, *(col for _, col in lost)], left=2)
    by_port = _by_name(runs, "queues", "port")
    every_queue = runs[0]["queues"]
    # positions, not rows, as in the flows table
    shown = [
        i
        for i, port in enumerate(column(every_queue, "port"))
        if every or any(_busy(x) for ports in by_port if (x := ports.get(port)))
    ]
    hidden = len(every_queue) - len(shown)

    def row(i: int) -> list[str]:
        q = every_queue[shown[i]]
        port = q["port"]

        def count(key: str) -> str:
            c = stat_over(by_port, lambda ports: (ports.get(port) or {})["totals"].get(key, 0))
            return f"{c.mean:,.0f}" if len(runs) == 1 else pm(c)

        def sojourn(figure: str) -> str:
            return duration(
                stat_over(by_port, lambda ports: ((ports.get(port) or {}).get("sojourn") or {}).get(figure))
            )

        cells = [port, q["qdisc"], rate(q["rate_bps"]), buffer(q)]
        cells += [sojourn("mean_s"), sojourn("p99_s")] if delays else []
        cells += [
            pct(stat_over(by_port, _field(port, "utilisation"))),
            pm(stat_over(by_port, _field(port, "occupancy_pkts"))),
            count("drops"),
        ]
        return [*cells, *(count(key) for key, _ in lost)]

    parts = add_rows(table, len(shown), row, "queues" if every else "busy queues", every=every)
    if hidden:
        parts.append(
            Text(
                f"({plural(hidden, 'queue')} below {BUSY:.0%} utilisation and without drops"
                + "".join(f" or {col}" for _, col in lost)
                + " not shown)",
                style="dim",
            )
        )
    return parts


def _fluid_parts(runs: list[dict], port: str) -> list:
    """How far each flow's service at a port strayed from the ideal fluid (GPS) service."""
    table = bare_table(
        ["vs GPS at " + port, "packets", "mean lag", "max lag", "max behind", "max ahead"], left=1
    )
    flows = _named(runs[0]["fluid"], "port", port)["flows"]
    # each run's rows at the port by flow and kind
    by_flow = [
        {(x["flow"], x["kind"]): x for x in (at["flows"] if at else [])}
        for at in (_named(run.get("fluid", []), "port", port) for run in runs)
    ]

    def row(i: int) -> list[str]:
        f = flows[i]

        def cell(metric: str) -> Stat | None:
            return stat_over(by_flow, _field((f["flow"], f["kind"]), metric))

        packets = cell("packets")
        return [
            f["flow"] + (" (ACKs)" if f["kind"] == "ack" else ""),
            f"{packets.mean:,.0f}" if len(runs) == 1 else pm(packets),
            duration(cell("mean_lag_s")),
            duration(cell("max_lag_s")),
            size(cell("max_behind_bytes")),
            size(cell("max_ahead_bytes")),
        ]

    return add_rows(table, len(flows), row, "conversations")


def pair_tables(runs: list[dict], queues: str = "auto", edges: dict | None = None) -> Group:
    """The tables of one pair: one run's, or the mean over several seeds' runs. A run with a
    workload shows its transfers' completion times and its queues by tier first
    (`workload_tables`), in the size bins of `edges` (`workload_tables.completion_edges` of
    every run shown, so that all the tables have the same bins); `queues="all"` shows every port."""
    from fairsim import workload_tables as wt

    stopped = _stopped_line(runs)
    parts: list = [_heading(runs), *([stopped] if stopped else [])]
    workloads, endless = wt.workload_flows(runs), wt.endless_flows(runs)
    flows = _flows_parts(runs, leave_out=frozenset(workloads | endless))
    parts += flows
    if flows and len(runs[0]["fairness"]["flows"]) > 1:
        parts.append(_fairness_line(runs))
    if workloads:
        parts += [*([Text("")] if flows else []), *wt.completion_parts(runs, edges)]
    if endless:
        parts += [*([Text("")] if flows or workloads else []), *wt.endless_parts(runs, endless)]
    parts.append(Text(""))
    if (workloads or endless) and queues != "all":
        parts += wt.tier_parts(runs)
    else:
        parts += _queue_parts(runs, every=queues == "all")
    if runs[0].get("pfc"):
        parts += _pfc_parts(runs)
    for port in runs[0].get("fluid", []):
        parts += [Text(""), *_fluid_parts(runs, port["port"])]
    if runs[0].get("network_events"):
        from fairsim.event_tables import event_parts

        parts += [Text(""), *event_parts(runs)]
    events = sum(r["events"] for r in runs)
    wall = sum(r.get("wall_s", 0.0) for r in runs)
    legend = "mean ± std over intervals" if len(runs) == 1 else "mean ± 95% CI over seeds"
    over = "" if len(runs) == 1 else f" ({plural(len(runs), 'run')})"
    parts.append(Text(f"values: {legend} · {events:,} events in {wall:.2f} s{over}", style="dim"))
    return Group(*parts)


def _pfc_parts(runs: list[dict]) -> list:
    """What priority flow control did: its pauses and the time paused over every port, the most
    an ingress held, and each deadlock (a cycle of paused ports), named."""
    pauses = paused_ns = 0
    for t in queue_totals(runs):
        pauses += t.get("pauses", 0)
        paused_ns += t.get("paused_ns", 0)
    paused = paused_ns * 1e-9
    most = max(max(r["pfc"]["max_ingress_bytes"], default=0) for r in runs)
    over = "" if len(runs) == 1 else f", over {plural(len(runs), 'run')}"
    parts: list = [
        Text(""),
        Text(
            f"PFC: {pauses:,} pauses, {duration(Stat(paused))} paused in all (summed over ports){over}; "
            f"the most an ingress held: {size(Stat(most))}"
        ),
    ]
    overflows = sum(r["pfc"]["headroom_overflows"] for r in runs)
    if overflows:
        parts.append(Text(f"{overflows:,} arrivals beyond an ingress's xoff + headroom", style="bold yellow"))
    for r in runs:
        for cycle in r["pfc"]["deadlocks"]:
            ring = " → ".join([*cycle, cycle[0]])
            parts.append(Text(f"deadlock (seed {r['seed']}): {ring}", style="bold red"))
    return parts


def never_started(run: dict) -> bool:
    """A run that Ctrl-C stopped before its first event."""
    return not run["complete"] and run["events"] == 0


def not_run_line(runs: list[dict]) -> Text | None:
    """`not run (interrupted): G/RD seeds 2, 3` for runs Ctrl-C stopped before they started."""
    by_pair: dict[str, list[str]] = {}
    for r in runs:
        if never_started(r):
            by_pair.setdefault(r["pair"], []).append(str(r["seed"]))
    if not by_pair:
        return None
    listed = "; ".join(
        f"{pair} {'seed' if len(seeds) == 1 else 'seeds'} {', '.join(seeds)}"
        for pair, seeds in by_pair.items()
    )
    return Text(f"not run (interrupted): {listed}", style="bold red")


def all_tables(results: Results, per_seed: bool = False, queues: str = "auto") -> Group:
    """One table group per pair (per run with `per_seed`), then the runs that never started.
    `queues`: `auto` (a workload's by tier, others' busy ones) or `all` (every port)."""
    from fairsim.workload_tables import completion_edges

    ran = [r for r in results.runs if not never_started(r)]
    edges = completion_edges(ran)
    groups: list = []
    for pair in dict.fromkeys(r["pair"] for r in ran):
        runs = [r for r in ran if r["pair"] == pair]
        for chunk in [[r] for r in runs] if per_seed else [runs]:
            if groups:
                groups.append(Text(""))
            groups.append(pair_tables(chunk, queues, edges))
    line = not_run_line(results.runs)
    if line is not None:
        groups += [Text(""), line] if groups else [line]
    return Group(*groups)


def _tables_in(renderable) -> list[Table]:
    """The tables in `renderable` and the groups in it (notes wrap; tables would crop)."""
    if isinstance(renderable, Table):
        return [renderable]
    if isinstance(renderable, Group):
        return [t for r in renderable.renderables for t in _tables_in(r)]
    return []


def _plain(renderable, width: int) -> str:
    """Text without colours or trailing spaces, whatever the front end (Jupyter included), at
    least `width` characters wide and as wide as its widest table: text has no screen to fit, and
    a table squeezed into it crops its values (`0.000100 ± 0.000…`)."""
    buf = io.StringIO()
    plain = Console(
        file=buf, width=width, color_system=None, force_terminal=False, force_jupyter=False, highlight=False
    )
    wide = plain.options.update_width(1 << 16)
    plain.width = max([width, *(plain.measure(t, options=wide).maximum for t in _tables_in(renderable))])
    plain.print(renderable)
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())


def render_text(results: Results, width: int = 120, per_seed: bool = False) -> str:
    return _plain(all_tables(results, per_seed), width)


#: An HTML fragment, not a page: a notebook embeds it, and a page's `body` style would restyle the notebook.
HTML_FRAGMENT = '<pre style="font-family: monospace; line-height: 1.3"><code>{code}</code></pre>'


def render_html(results: Results, per_seed: bool = False) -> str:
    console = Console(record=True, width=140, file=io.StringIO(), force_jupyter=False)
    console.print(all_tables(results, per_seed))
    text = console.export_html(inline_styles=True, code_format=HTML_FRAGMENT)
    return LINE_END.sub("", text)
