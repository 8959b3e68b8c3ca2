"""What `fairsim run` shows of a run whose network changes (`[[events]]`): when each link went
down, came back or changed rate, when forwarding learnt of it, the packets the failed links lost,
and the goodput of all flows between the changes, so that a failure's drop and its recovery read
off the first screen."""

from __future__ import annotations

from itertools import pairwise

from rich.text import Text

from fairsim.table_parts import NA, Stat, add_rows, bare_table, duration, queue_totals, rate, stat_over


def _when(seconds: float | None) -> str:
    return NA if seconds is None else duration(Stat(seconds))


def _lost(run: dict) -> int:
    return sum(t.get("link_down", 0) for t in queue_totals([run]))


def _phases(run: dict) -> list[tuple[float, float]]:
    """The spans between the instants the network changes, from the end of the warm-up."""
    start = run["measurement"]["warmup_s"]
    cuts = sorted({e["at_s"] for e in run["network_events"] if e["at_s"] > start})
    edges = [start, *cuts, run["duration_s"]]
    return list(pairwise(edges))


def _goodput(run: dict, span: tuple[float, float]) -> float | None:
    """The goodput of all flows, bit/s, over the measurement intervals inside `span`."""
    totals: dict[int, float] = {}
    for i in run.get("flow_intervals") or []:
        if not i["warmup"] and span[0] <= i["start_s"] and i["end_s"] <= span[1] + 1e-12:
            totals[i["interval"]] = totals.get(i["interval"], 0.0) + i["goodput_bps"]
    return sum(totals.values()) / len(totals) if totals else None


def event_parts(runs: list[dict]) -> list:
    """The network events of runs of one pair, the packets their failed links lost, and the
    goodput between them (the mean over the runs)."""
    first = runs[0]
    events = first.get("network_events") or []
    if not events:
        return []
    table = bare_table(["at", "network event", "action", "forwarding learnt"], left=3)

    def row(i: int) -> list[str]:
        e = events[i]
        action = e["action"] if e["rate_bps"] is None else f"rate {rate(e['rate_bps'])}"
        return [_when(e["at_s"]), f"{e['target']} {e['name']}", action, _when(e["detected_s"])]

    parts = add_rows(table, len(events), row, "network events")
    lost = stat_over(runs, _lost)
    if lost:
        parts.append(
            Text(
                f"packets lost to failed links: {lost.mean:,.0f} (on a line or queued when it failed, or "
                "arriving before forwarding learnt; the queues' `link_down`)"
            )
        )
    spans = _phases(first)
    if len(spans) > 1:
        shown = []
        for span in spans:
            goodput = stat_over(runs, lambda r, s=span: _goodput(r, s))
            shown.append(f"{_when(span[0])}–{_when(span[1])}: {rate(goodput.mean) if goodput else NA}")
        parts.append(Text("goodput of all flows between the changes: " + "; ".join(shown)))
    return parts
