"""fairsim beside htsim on a k = 8 fat-tree permutation (docs/validation.md, *htsim*): total
goodput, Jain's index over the flows, the slowest flow, and CPU time, seed by seed.

    python3 validation/htsim/compare.py [--htsim PATH] [--seeds 3] [--end-ms 100]

fairsim's side is `fat-tree-permutation.toml` beside this file. htsim's is its `htsim_tcp`
(Broadcom/csg-htsim, sim/datacenter/main_tcp.cpp) with five options added to its command line,
`-end` (µs), `-speed` (Mb/s), `-q` (packets), `-seed`, `-ackpath` (ACKs return over a random
fewest-hop path through the fabric's queues and pipes, as fairsim's do, instead of straight to
the source) and `-dctcp` (its DCTCPSrc over ECN queues; `--dctcp` here, with
`fat-tree-permutation-dctcp.toml`), and each sink's cumulative ACK printed as
`SINK <name> <bytes>` at the end: docs/validation.md says how. `--direct-acks` leaves `-ackpath`
out (htsim's own main). This project does not ship htsim or build it; without `--htsim` (or
FAIRSIM_HTSIM_TCP) only fairsim's side runs."""

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


def jain(x: list[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def fairsim_side(seed: int, end_ms: float, dctcp: bool) -> dict:
    import fairsim

    sc = fairsim.load(
        DCTCP_SCENARIO if dctcp else SCENARIO,
        set={"run.duration": f"{end_ms}ms", "run.warmup": "0s", "run.interval": f"{end_ms}ms"},
    )
    before = cpu()
    res = fairsim.run(sc, seed=seed, progress=False)
    spent = cpu() - before
    t = res.transfers
    # each connection's unique packets over the whole run (its file has no end)
    rates = [(s - r) * 1500 * 8 / (end_ms / 1e3) for s, r in zip(t["sent"], t["retransmitted"], strict=True)]
    return {
        "goodput_gbps": sum(rates) / 1e9,
        "jain": jain(rates),
        "min_gbps": min(rates) / 1e9,
        "cpu_s": spent,
    }


def htsim_side(binary: str, seed: int, end_ms: float, direct_acks: bool, dctcp: bool) -> dict:
    command = [binary, "-nodes", "128", "-conns", "128", "-speed", "10000", "-q", "100"]
    command += ([] if direct_acks else ["-ackpath"]) + (["-dctcp"] if dctcp else [])
    with tempfile.TemporaryDirectory() as scratch:  # its log file, which it needs
        command += ["-end", str(end_ms * 1000), "-seed", str(seed), "UNCOUPLED", "-o", f"{scratch}/log"]
        before = cpu()
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    spent = cpu() - before
    rates = [int(line.split()[-1]) * 8 / (end_ms / 1e3) for line in out.splitlines() if "SINK" in line]
    return {
        "goodput_gbps": sum(rates) / 1e9,
        "jain": jain(rates),
        "min_gbps": min(rates) / 1e9,
        "cpu_s": spent,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--htsim", default=os.environ.get("FAIRSIM_HTSIM_TCP"), help="htsim_tcp with the options above"
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--end-ms", type=float, default=100.0)
    parser.add_argument("--direct-acks", action="store_true", help="htsim's ACKs skip the network")
    parser.add_argument("--dctcp", action="store_true", help="DCTCP through marking queues instead of TCP")
    args = parser.parse_args()
    print("| seed | simulator | goodput (Gb/s) | Jain | slowest flow (Gb/s) | CPU (s) |")
    print("|---|---|---:|---:|---:|---:|")
    started = time.time()
    for seed in range(1, args.seeds + 1):
        sides = [("fairsim", fairsim_side(seed, args.end_ms, args.dctcp))]
        if args.htsim:
            sides.append(("htsim", htsim_side(args.htsim, seed, args.end_ms, args.direct_acks, args.dctcp)))
        for name, m in sides:
            cells = [
                f"{m['goodput_gbps']:.1f}",
                f"{m['jain']:.3f}",
                f"{m['min_gbps']:.2f}",
                f"{m['cpu_s']:.2f}",
            ]
            print(f"| {seed} | {name} | " + " | ".join(cells) + " |")
    print(f"({time.time() - started:.0f} s in all)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
