"""fairsim's RoCE over PFC (and, with --transport, HPCC or Swift) beside htsim's `htsim_roce`
(`htsim_hpcc`, `htsim_swift`) on the same connection matrices (docs/validation.md, *RoCE over
PFC, and HPCC* and *Swift*): completion times, a permutation's goodput, the pauses and the time
paused, the largest ingress count, the incast's last hop, drops, and each side's CPU time.

    python3 validation/htsim/roce.py HTSIM_RESULTS_DIR [--transport roce|hpcc|swift-q400|swift-q8]
        [--only LABEL ...] [--seeds 1-20] [--save DIR] [--pooled] [--json FILE]

HTSIM_RESULTS_DIR holds htsim's side as `roce_htsim_results.py` writes it
(`<kind>..._<program>_s<seed>.json`). For each run fairsim runs the same matrix (`pattern =
"matrix"`) on `roce-fabric.toml` (k = 8, 100 Gb/s, 1 µs links, PFC at htsim's 15 and 12
packets of 9,000 bytes, ECMP) for the same time, measured whole.

Sizes: htsim sends ⌈size / 9,000⌉ packets of 9,064 bytes (its MTU is the payload); fairsim's
matrix reader sends ⌈size / packet_size⌉, so each size is given to fairsim as ⌈size / 9,000⌉ ×
9,064 bytes: the same packets on both sides. Paused time: htsim's is measured at each ingress
(XOFF sent to XON sent), fairsim's at the paused port (one link delay later, the same length);
both are summed over ports.

Swift (`swift-q400`, `swift-q8`) runs on `swift-fabric.toml` instead: no PFC, switch ports as
htsim's RandomQueue at `-q 400` (`red` with `count_arrival`; `swift-q8` sets `-q 8`'s buffer and
thresholds), packets of 4,000 bytes with no header on both sides (htsim: ⌈size / 4,000⌉ packets
of its MTU, which is the whole packet), ACKs of 40 bytes.

`--seeds`, `--save` and `--pooled` as in ndp.py: only those seeds, fairsim's runs kept and
reused, each case pooled over its seeds."""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from ndp import command_line, cpu, jain, matrix_rows, per_flow, percentile, side_by_side, size_bins

HERE = Path(__file__).resolve().parent
FABRIC = HERE / "roce-fabric.toml"
SWIFT_FABRIC = HERE / "swift-fabric.toml"
#: Swift as htsim runs it (docs/decisions.md, Swift): hops per link, flow scaling on ⌊cwnd⌋, one
#: delay (the round trip); htsim's constants are the defaults but its smallest window (10 bytes of
#: 4,000, the paper's being 0.001 packets), `-cwnd 15` the initial window. No hop term: htsim's
#: subflow takes `Route::clone()` of its path (`swift.cpp` 546), which builds the copy with
#: `Route(int size)`, a constructor that sets `_hop_count` to 0 (`route.cpp` 12, 32); the sink then
#: pushed is no `Pipe`, so `targetDelay`'s `route.hop_count() * _h` is 0 for every flow
SWIFT = {
    "kind": "swift",
    "hops": "links",
    "hop_scale": "0us",
    "fs_integer": True,
    "delay": "rtt",
    "initial_cwnd": 15.0,
    "min_cwnd": 0.0025,
}
#: htsim's RandomQueue at -q 8 -mtu 4000: 32,000 B, early drops above 32,000 − 3 × 4,000
Q8 = {
    "topology.hosts.buffer": "32000B",
    "topology.hosts.qdisc.min_th": "20001B",
    "topology.hosts.qdisc.max_th": "32001B",
}
#: each comparison's htsim results, packet size on the wire, payload, transport, fabric and
#: changes to the fabric
TRANSPORTS = {
    "roce": ("*_roce_s*.json", 9064, 9000, "roce", FABRIC, {}),
    # htsim's HPCC departs from the paper's Algorithm 1 (roce-hpcc-swift-model.md §3.4):
    # `htsim_compat` follows it; `hpcc-paper` runs the paper's law on the same fabric
    "hpcc": ("*_hpcc_s*.json", 9064, 9000, {"kind": "hpcc", "htsim_compat": True}, FABRIC, {}),
    "hpcc-paper": ("*_hpcc_s*.json", 9064, 9000, "hpcc", FABRIC, {}),
    "swift-q400": ("*_swift_q400_s*.json", 4000, 4000, SWIFT, SWIFT_FABRIC, {}),
    "swift-q8": ("*_swift_q8_s*.json", 4000, 4000, SWIFT, SWIFT_FABRIC, Q8),
}


def wire_matrix(matrix: str, payload: int, packet: int, into: Path) -> Path:
    """`matrix` with each size as the bytes on the wire of htsim's packets for it."""
    lines = []
    for line in Path(matrix).read_text().splitlines():
        words = line.split()
        if "->" in line and "size" in words:
            i = words.index("size") + 1
            words[i] = str(-(-int(words[i]) // payload) * packet)
            line = " ".join(words)
        lines.append(line)
    into.write_text("\n".join(lines) + "\n")
    return into


def receiver_ports(queues: list[dict], receiver: str) -> tuple[list[dict], dict | None]:
    """The ports into the receiver's ToR from the aggregation tier, and the ToR's port to it."""
    downlink = next((q for q in queues if q["to"] == receiver), None)
    tor = downlink["from"] if downlink else None
    return [q for q in queues if q["to"] == tor and q["from"].startswith("agg")], downlink


def fairsim_side(h: dict, transport: str) -> dict:
    """fairsim on htsim run `h`'s matrix for its time, measured whole; its figures as htsim's
    JSON names them."""
    import fairsim

    _, packet, payload, kind, fabric, changes = TRANSPORTS[transport]
    end = f"{h['end_us']}us"
    with tempfile.TemporaryDirectory() as tmp:
        matrix = wire_matrix(h["matrix"], payload, packet, Path(tmp) / "m.cm")
        sets = {
            **changes,
            "run.duration": end,
            "run.interval": end,
            "workloads": {
                "m": {
                    "pattern": "matrix",
                    "file": str(matrix),
                    "packet_size": f"{packet}B",
                    "transport": kind,
                }
            },
        }
        sc = fairsim.load(fabric, set=sets)
        before, wall = cpu(), time.monotonic()
        res = fairsim.run(sc, seed=int(h["label"].rsplit("_s", 1)[1]), progress=False)
        spent, wall = cpu() - before, time.monotonic() - wall
    run = res.runs[0]
    t = res.transfers
    fcts = [f * 1e6 for f in t["fct_s"][~t["unfinished"]]]
    queues = run["queues"]
    received = [d * payload for d in t["delivered"]]
    sizes = [int(row["size"]) for row in matrix_rows(h["matrix"])]
    t = t.sort_values("arrival_s", kind="stable").assign(size=sizes)
    done = t[~t["unfinished"]]
    into_tor, downlink = receiver_ports(queues, "h0")
    seconds = h["end_us"] * 1e-6
    pfc = run.get("pfc") or {}
    figures = {
        "flows": len(t),
        "finished": len(fcts),
        "unfinished": len(t) - len(fcts),
        "fct_p50_us": percentile(fcts, 50),
        "fct_p99_us": percentile(fcts, 99),
        "fct_max_us": max(fcts) if fcts else None,
        "by_size": size_bins(list(zip(done["size"], done["fct_s"] * 1e6, strict=True))),
        "pauses": sum(q["totals"].get("pauses", 0) for q in queues) if pfc else None,
        "paused_us": sum(q["totals"].get("paused_ns", 0) for q in queues) / 1e3 if pfc else None,
        "max_ingress_bytes": max(pfc["max_ingress_bytes"]) if pfc else None,
        "drops": sum(q["totals"]["drops"] for q in queues),
        "deadlocks": len(pfc["deadlocks"]) if pfc else None,
        "goodput_gbps": sum(received) * 8 / seconds / 1e9,
        "flow_goodput_gbps_min": min(received) * 8 / seconds / 1e9,
        "jain_bytes": jain(received),
        "cpu_s": spent,
        "wall_s": wall,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        **per_flow(t, payload),
    }
    if h["kind"] != "permutation":
        figures["goodput_gbps"] = figures["flow_goodput_gbps_min"] = None
    if h["kind"] == "incast" and pfc:
        figures["tor_downlink_pauses"] = sum(q["totals"].get("pauses", 0) for q in into_tor)
        figures["tor_downlink_paused_us"] = sum(q["totals"].get("paused_ns", 0) for q in into_tor) / 1e3
    if h["kind"] == "incast":
        # fairsim counts the packets waiting, htsim the bytes with the one on the line
        figures["last_hop_max_bytes"] = (downlink["totals"]["max_occupancy"] + 1) * packet
    return figures


def htsim_figures(h: dict) -> dict:
    """htsim's figures under fairsim's names."""
    sizes = {row["id"]: int(row["size"]) for row in matrix_rows(h["matrix"])}
    fcts = h.get("flow_fcts_us", {})
    finished = [(sizes[f], fct) for f, fct in fcts.items() if fct is not None]
    received = list(h.get("flow_sink_bytes", {}).values())
    downlinks = h.get("pfc_agg_to_receiver_tor", {})
    return {
        **h,
        "by_size": size_bins(finished) if fcts else {},
        "pauses": h.get("pfc", {}).get("pauses"),
        "paused_us": h.get("pfc", {}).get("paused_us"),
        "jain_bytes": jain(received) if received else None,
        "tor_downlink_pauses": downlinks.get("pauses"),
        "tor_downlink_paused_us": downlinks.get("paused_us"),
        "last_hop_max_bytes": h.get("receiver_downlink", {}).get("max_bytes"),
    }


ROWS = (
    ("finished", "{:,}"),
    ("unfinished", "{:,}"),
    ("fct_p50_us", "{:,.1f}"),
    ("fct_p99_us", "{:,.1f}"),
    ("fct_max_us", "{:,.1f}"),
    ("goodput_gbps", "{:,.0f}"),
    ("jain_bytes", "{:.4f}"),
    ("flow_goodput_gbps_min", "{:.3f}"),
    ("pauses", "{:,}"),
    ("paused_us", "{:,.0f}"),
    ("tor_downlink_pauses", "{:,}"),
    ("tor_downlink_paused_us", "{:,.0f}"),
    ("max_ingress_bytes", "{:,}"),
    ("last_hop_max_bytes", "{:,}"),
    ("drops", "{:,}"),
    ("cpu_s", "{:.2f}"),
    ("peak_rss_mb", "{:.0f}"),
)


def main() -> int:
    args, found = command_line(__doc__, TRANSPORTS, "roce", "roce_htsim_results.py")
    if not found:
        return 2
    return side_by_side(args, found, lambda h: fairsim_side(h, args.transport), htsim_figures, ROWS)


if __name__ == "__main__":
    sys.exit(main())
