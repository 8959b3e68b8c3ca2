"""Web search on a k = 8 fat-tree under five data-centre transports at three loads, pooled over
seeds: the completion-time slowdown by size that docs/workloads.md (*A study across transports*)
shows.

    python3 validation/forwarding/websearch_study.py [--seeds 3] [--loads 0.3,0.5,0.7]
        [--end-ms 20] [--transports tcp,tcp-spray,dctcp,ndp,hpcc] [--out DIR]

The fabric is `study.toml` beside this file (128 hosts at 10 Gb/s, 1 us links, web-search sizes,
packets of 1,460 bytes, a 5 ms warm-up); each transport changes only what it needs
(`TRANSPORTS`). Each transport is one sweep over the loads and seeds recording its transfers
(`tables=["transfers"]`), kept in DIR (default: a folder of the system's temporary directory) so
that a second call reuses them. Printed per transport and load: for each size bin (at most
100 KB, to 1 MB, larger: the same edges everywhere) the measured transfers, those unfinished at
the run's end (counted at their slowdown so far, a lower bound), those whose transport's window
is below their own path's bandwidth-delay product, and the pooled p50, p99 and p99.9 slowdown
with the p99's 95% interval over seeds (a dash where the bin has too few transfers for the
percentile).
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

SCENARIO = Path(__file__).resolve().parent / "study.toml"
TCP = '{ kind = "newreno", ack_every = 1, min_rto = "1ms", clock_granularity = "1ms", initial_rto = "10ms" }'
DCTCP = TCP.replace('"newreno"', '"dctcp"')
#: What each transport changes in study.toml: its transport, its switches' discipline, its
#: forwarding. DCTCP marks at 65 packets (DCTCP's paper at 10 Gb/s); NDP's switches trim beyond
#: 72,000 bytes (NDP's paper: 8 packets of 9 KB at 10 Gb/s; 8 packets of these 1,460 bytes would
#: be a sixth of its queueing time); HPCC runs over PFC (its paper), with its defaults.
TRANSPORTS = {
    "tcp": {"workloads.web.transport": TCP},
    "tcp-spray": {"workloads.web.transport": TCP, "run.forwarding": "spray"},
    "dctcp": {
        "workloads.web.transport": DCTCP,
        "topology.hosts.qdisc": '{ kind = "ecn_threshold", k = 65 }',
    },
    "ndp": {
        "workloads.web.transport": '"ndp"',
        "topology.hosts.qdisc": '"trim"',
        "topology.hosts.buffer": '"72000B"',
        "run.forwarding": "permute",
    },
    "hpcc": {
        "workloads.web.transport": '"hpcc"',
        "topology.hosts.buffer": '"1MB"',
        "pfc": '{ xoff = "135000B", xon = "108000B" }',
    },
}
#: Size bins (upper edges, bytes): short, medium and long transfers, as data-centre papers split them.
EDGES = [100e3, 1e6]


def study(name: str, loads: list[float], seeds: int, end_ms: float, out: Path):
    import fairsim

    sets = {"run.duration": f"{end_ms}ms", "run.interval": f"{end_ms - 5}ms", **TRANSPORTS[name]}
    sc = fairsim.load(SCENARIO, set=sets)
    return fairsim.sweep(
        sc,
        axes={"workloads.web.load": loads},
        seeds=seeds,
        tables=["transfers"],
        out=out / name,
        progress=False,
    )


def cell(value: float, low: float = math.nan, high: float = math.nan) -> str:
    if value != value:
        return "–"
    return f"{value:.2f}" + (f" ({low:.2f}–{high:.2f})" if low == low else "")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--loads", default="0.3,0.5,0.7")
    p.add_argument("--end-ms", type=float, default=20)
    p.add_argument("--transports", default=",".join(TRANSPORTS))
    p.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "fairsim-websearch-study")
    a = p.parse_args()
    loads = [float(x) for x in a.loads.split(",")]
    columns = ["transport", "load", "size up to", "transfers", "unfinished", "window-limited", "p50"]
    print("| " + " | ".join([*columns, "p99 (95% CI)", "p99.9"]) + " |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for name in a.transports.split(","):
        s = study(name, loads, a.seeds, a.end_ms, a.out)
        table = s.completion_times(EDGES)
        measured = s.transfers[~s.transfers["warmup"].astype(bool)]
        for _, row in table.iterrows():
            load = row["load"]
            upper = row["up_to_bytes"]
            low_edge = ([0.0, *EDGES])[EDGES.index(upper)] if upper in EDGES else EDGES[-1]
            here = measured[
                (measured["load"] == load)
                & (measured["bytes"] > low_edge)
                & ((measured["bytes"] <= upper) if math.isfinite(upper) else True)
            ]
            limited = int((here["window_bdp"] < 1).sum())
            size = f"{upper / 1e3:,.0f} KB" if math.isfinite(upper) else "larger"
            print(
                f"| {name} | {load:.0%} | {size} | {row['count']:,} | {row['unfinished']:,} | {limited:,} "
                f"| {cell(row['p50'])} | {cell(row['p99'], row['p99_low'], row['p99_high'])} "
                f"| {cell(row['p999'])} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
