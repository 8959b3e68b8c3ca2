"""How much of a k = 8 fat-tree's bisection a permutation gets under each forwarding and each
loss detection (docs/workloads.md, *Spraying and reordering*).

    python3 validation/forwarding/bisection.py [--seeds 3] [--end-ms 100]
        [--forwarding ecmp,spray,adaptive,flowlet] [--transports newreno,dctcp]
        [--detection dupack,adaptive,rack]

`permutation.toml` beside this file is the network (128 hosts at 10 Gb/s, one flow per host
without end). Loss detection: `dupack` is the linux stack with three duplicate ACKs and nothing
else (`rack`, `tlp`, `undo`, `adaptive_reordering` off); `adaptive` adds the adaptive threshold
and undo (Linux before RACK); `rack` is the stack as it is (RACK-TLP, D-SACK, undo, the adaptive
threshold). DCTCP marks at dequeue above 22,500 bytes, as htsim's fat-tree does. Printed per
cell, as medians over the seeds: goodput as a fraction of 128 × 10 Gb/s (each flow's packets
received once, over the whole run), Jain's index over the flows, and the retransmissions, those
the receivers reported they already had (D-SACK), and the packets dropped."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

SCENARIO = Path(__file__).resolve().parent / "permutation.toml"
HOSTS, LINE_BPS, PACKET_BITS = 128, 10e9, 1500 * 8
DETECTION = {
    "dupack": {"rack": "false", "tlp": "false", "undo": "false", "adaptive_reordering": "false"},
    "adaptive": {"rack": "false", "tlp": "false"},
    "rack": {},
}
DCTCP_QUEUE = '{ kind = "ecn_threshold", k = "22500B", at = "dequeue" }'


def overrides(forwarding: str, transport: str, detection: str, end_ms: float) -> dict[str, str]:
    o = {
        "run.forwarding": forwarding,
        "run.duration": f"{end_ms}ms",
        "run.warmup": "0s",
        "run.interval": f"{end_ms}ms",
    }
    if transport == "dctcp":
        o["workloads.perm.transport.kind"] = "dctcp"
        o["topology.hosts.qdisc"] = DCTCP_QUEUE
    o.update({f"workloads.perm.transport.{k}": v for k, v in DETECTION[detection].items()})
    return o


def one(forwarding: str, transport: str, detection: str, seed: int, end_ms: float) -> dict:
    import fairsim

    sc = fairsim.load(SCENARIO, set=overrides(forwarding, transport, detection, end_ms))
    res = fairsim.run(sc, seed=seed, progress=False)
    rates = [d * PACKET_BITS / (end_ms / 1e3) for d in res.transfers["delivered"]]
    totals = [f["run_totals"] for f in res.runs[0]["flows"]]
    return {
        "bisection": sum(rates) / (HOSTS * LINE_BPS),
        "jain": sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates)),
        "retransmitted": sum(t["retransmitted"] for t in totals),
        "spurious": sum(t["spurious_retransmits"] for t in totals),
        "dropped": sum(t["dropped"] for t in totals),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--end-ms", type=float, default=100)
    p.add_argument("--forwarding", default="ecmp,spray,adaptive")
    p.add_argument("--transports", default="newreno,dctcp")
    p.add_argument("--detection", default="dupack,adaptive,rack")
    a = p.parse_args()
    columns = ["transport", "forwarding", "loss detection", "bisection", "Jain", "retransmitted"]
    print("| " + " | ".join([*columns, "spurious (D-SACK)", "dropped"]) + " |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for transport in a.transports.split(","):
        for forwarding in a.forwarding.split(","):
            for detection in a.detection.split(","):
                runs = [one(forwarding, transport, detection, s, a.end_ms) for s in range(1, a.seeds + 1)]
                m = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
                print(
                    f"| {transport} | {forwarding} | {detection} | {m['bisection']:.1%} | {m['jain']:.3f} "
                    f"| {m['retransmitted']:,.0f} | {m['spurious']:,.0f} | {m['dropped']:,.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
