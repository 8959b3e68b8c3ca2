"""fairsim beside htsim on a fat-tree permutation (docs/validation.md, *htsim*): total goodput,
Jain's index over the flows, the slowest flow, drops and CPU time, seed by seed; or an incast's
completion times (`--incast`).

    python3 validation/htsim/compare.py [--htsim PATH] [--seeds 3] [--end-ms 100] [--k 8] [--dctcp | --incast]

fairsim's side is `fat-tree-permutation.toml` beside this file. htsim's is its `htsim_tcp`
(Broadcom/csg-htsim, sim/datacenter/main_tcp.cpp) with options added to its command line,
`-end` (µs), `-speed` (Mb/s), `-q` (packets), `-seed`, `-ackpath` (ACKs return over a random
fewest-hop path through the fabric's queues and pipes, as fairsim's do, instead of straight to
the source) and `-dctcp` (its DCTCPSrc over ECN queues; `--dctcp` here, with
`fat-tree-permutation-dctcp.toml`), `-incast N -flowsize B` (`--incast` here, with
`fat-tree-incast.toml`: hosts 1..N each send B bytes to host 0), and each sink's data printed
as `SINK <name> <bytes in order> <cumulative_ack()>`, `DROPS <n>` and `EVENTS <n>` at the end:
docs/validation.md says how. Goodput on both sides is each flow's data received, every packet
once (fairsim's transfers' `delivered`). `--direct-acks` leaves `-ackpath` out (htsim's own
main). This project does not ship htsim or build it; without `--htsim` (or FAIRSIM_HTSIM_TCP)
only fairsim's side runs."""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIO = HERE / "fat-tree-permutation.toml"
DCTCP_SCENARIO = HERE / "fat-tree-permutation-dctcp.toml"
INCAST_SCENARIO = HERE / "fat-tree-incast.toml"
INCAST_SENDERS, INCAST_BYTES, INCAST_END_MS = 32, 1_000_000, 2000


def jain(x: list[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def figures(rates: list[float], drops: int, cpu_s: float) -> dict:
    """A permutation's figures from each flow's goodput (b/s)."""
    return {
        "goodput_gbps": sum(rates) / 1e9,
        "jain": jain(rates),
        "min_gbps": min(rates) / 1e9,
        "drops": drops,
        "cpu_s": cpu_s,
    }


def one_interval(end_ms: float) -> dict[str, str]:
    """fairsim's overrides for a run of `end_ms` measured whole, as htsim measures it: no
    warm-up, one interval."""
    return {"run.duration": f"{end_ms}ms", "run.warmup": "0s", "run.interval": f"{end_ms}ms"}


def fairsim_side(seed: int, end_ms: float, dctcp: bool, k: int = 8) -> dict:
    import fairsim

    sc = fairsim.load(DCTCP_SCENARIO if dctcp else SCENARIO, set={**one_interval(end_ms), "topology.k": k})
    before = cpu()
    res = fairsim.run(sc, seed=seed, progress=False)
    spent = cpu() - before
    t = res.transfers
    totals = [f["run_totals"] for f in res.runs[0]["flows"]]
    drops = sum(f["dropped"] + f["acks_dropped"] for f in totals)
    # each connection's goodput: the packets its sink received for the first time (its file has no end)
    rates = [d * 1500 * 8 / (end_ms / 1e3) for d in t["delivered"]]
    return figures(rates, drops, spent)


def htsim_command(binary: str, options: list[str], end_ms: float, seed: int, k: int, log: str) -> list[str]:
    """htsim_tcp's command line: the k-ary fat-tree of 10 Gb/s links and 100-packet queues with
    `options`, writing its log file (which it needs) to `log`."""
    hosts = str(k**3 // 4)
    command = [binary, "-nodes", hosts, "-conns", hosts, "-speed", "10000", "-q", "100", *options]
    return [*command, "-end", str(end_ms * 1000), "-seed", str(seed), "UNCOUPLED", "-o", log]


def run_htsim(binary: str, options: list[str], end_ms: float, seed: int, k: int = 8) -> tuple[str, float]:
    """htsim_tcp on the k-ary fat-tree with `options`: its output and the CPU time it took."""
    with tempfile.TemporaryDirectory() as scratch:
        command = htsim_command(binary, options, end_ms, seed, k, f"{scratch}/log")
        before = cpu()
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return out, cpu() - before


def sink_bytes(line: str) -> float:
    """The data a `SINK <name> <in order> <cumulative_ack()>` line says its sink received, each
    packet once: the bytes in order and the packets held above a hole, which htsim's
    TcpSink::cumulative_ack() counts as 1000 bytes each, at their 1500. (A line with one number,
    from the first build, is cumulative_ack() alone.)"""
    numbers = [int(w) for w in line.split()[2:]]
    if len(numbers) == 1:
        return numbers[0]
    in_order, cumulative = numbers
    return in_order + (cumulative - in_order) * 1500 / 1000


def htsim_side(binary: str, seed: int, end_ms: float, direct_acks: bool, dctcp: bool, k: int = 8) -> dict:
    options = ([] if direct_acks else ["-ackpath"]) + (["-dctcp"] if dctcp else [])
    out, spent = run_htsim(binary, options, end_ms, seed, k)
    rates = [sink_bytes(line) * 8 / (end_ms / 1e3) for line in out.splitlines() if line.startswith("SINK")]
    drops = next(int(line.split()[1]) for line in out.splitlines() if line.startswith("DROPS"))
    return figures(rates, drops, spent)


def percentile(xs: list[float], q: float) -> float:
    """The q-th percentile of xs, nearest rank (the ⌈q·n/100⌉-th smallest)."""
    import numpy

    return float(numpy.percentile(xs, q, method="inverted_cdf"))


def completions(times_ms: list[float], cpu_s: float) -> dict:
    """The incast's figures from its completion times (unfinished transfers left out)."""
    return {
        "finished": len(times_ms),
        "p50_ms": percentile(times_ms, 50),
        "p99_ms": percentile(times_ms, 99),
        "last_ms": max(times_ms),
        "cpu_s": cpu_s,
    }


def fairsim_incast(seed: int) -> dict:
    import fairsim

    before = cpu()
    t = fairsim.run(fairsim.load(INCAST_SCENARIO), seed=seed, progress=False).transfers
    spent = cpu() - before
    return completions([f * 1e3 for f in t["fct_s"].dropna()], spent)


def htsim_incast(binary: str, seed: int) -> dict:
    options = ["-ackpath", "-incast", str(INCAST_SENDERS), "-flowsize", str(INCAST_BYTES)]
    out, spent = run_htsim(binary, options, INCAST_END_MS, seed)
    # htsim's TcpSrc prints "Flow NAME finished at T" (ms) on every ACK at or past its size: the first
    first: dict[str, float] = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 5 and words[0] == "Flow" and words[2:4] == ["finished", "at"]:
            first.setdefault(words[1], float(words[4]))
    return completions(list(first.values()), spent)


def incast(args) -> int:
    print("| seed | simulator | finished | p50 (ms) | p99 (ms) | last (ms) | CPU (s) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for seed in range(1, args.seeds + 1):
        sides = [("fairsim", fairsim_incast(seed))]
        if args.htsim:
            sides.append(("htsim", htsim_incast(args.htsim, seed)))
        for name, m in sides:
            cells = [str(m["finished"]), f"{m['p50_ms']:.1f}", f"{m['p99_ms']:.1f}", f"{m['last_ms']:.1f}"]
            print(f"| {seed} | {name} | " + " | ".join(cells) + f" | {m['cpu_s']:.2f} |", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--htsim", default=os.environ.get("FAIRSIM_HTSIM_TCP"), help="htsim_tcp with the options above"
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--k", type=int, default=8, help="the fat-tree's k (16: 1,024 hosts)")
    parser.add_argument("--end-ms", type=float, default=100.0)
    parser.add_argument("--direct-acks", action="store_true", help="htsim's ACKs skip the network")
    parser.add_argument("--dctcp", action="store_true", help="DCTCP through marking queues instead of TCP")
    parser.add_argument(
        "--incast",
        action="store_true",
        help="the incast (fat-tree-incast.toml): completion percentiles instead",
    )
    args = parser.parse_args()
    if args.incast:
        return incast(args)
    print("| seed | simulator | goodput (Gb/s) | Jain | slowest flow (Gb/s) | drops | CPU (s) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    started = time.time()
    for seed in range(1, args.seeds + 1):
        sides = [("fairsim", fairsim_side(seed, args.end_ms, args.dctcp, args.k))]
        if args.htsim:
            sides.append(
                ("htsim", htsim_side(args.htsim, seed, args.end_ms, args.direct_acks, args.dctcp, args.k))
            )
        for name, m in sides:
            cells = [
                f"{m['goodput_gbps']:.1f}",
                f"{m['jain']:.3f}",
                f"{m['min_gbps']:.2f}",
                str(m["drops"]),
                f"{m['cpu_s']:.2f}",
            ]
            print(f"| {seed} | {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"({time.time() - started:.0f} s in all)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
