"""fairsim's NDP and EQDS beside htsim's `htsim_ndp` and `htsim_eqds` on the same connection
matrices (docs/validation.md, *NDP and EQDS*): a permutation's goodput and Jain's index, an
incast's completion times, trims and retransmissions, web-search's completion times by size, and
each side's CPU time.

    python3 validation/htsim/ndp.py HTSIM_RESULTS_DIR [--transport ndp|ndp-perm|eqds] [--only LABEL ...]

HTSIM_RESULTS_DIR holds htsim's side, one JSON per run, as `ndp_htsim_results.py` writes them
(`<kind>..._ndp_rand_s<seed>.json`, `<kind>..._eqds_s<seed>.json`: its matrix, end time, per-flow
completion times and received bytes, trims, retransmissions, CPU time and peak memory). For
each, fairsim runs the same matrix (`pattern = "matrix"`) on the fabric of
`ndp-permutation.toml` (k = 8, or k = 10 for a 250-node matrix) for the same time, measured
whole, and the two are printed side by side. htsim's `-strat rand` (a random fewest-hop path per
packet) and EQDS's 64 entropies are fairsim's `spray`; NDP's `-strat perm` (`--transport
ndp-perm`) is fairsim's `permute`.

NDP: both sides count a packet's payload as 9,000 bytes: htsim's files are ⌈size / 9,000⌉ packets
of 9,064 bytes, fairsim's ⌈size / 9,064⌉, the same count for every size these matrices hold but
the 1 GB files of the permutation, which never finish. EQDS: packets of 4,150 bytes on both
sides; htsim's carry 4,086 bytes of payload and its last packet is short, fairsim's are all
whole (a 270,000-byte file: 67 packets, 274,294 bytes on the wire, against 66 and 273,900)."""

from __future__ import annotations

import argparse
import json
import resource
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FABRIC = HERE / "ndp-permutation.toml"
#: each transport's htsim results, packet size on the wire, payload, switch buffer and transport
#: each comparison's htsim results, fairsim's forwarding, packet size on the wire, payload, switch
#: buffer and transport
NDP = {"kind": "ndp", "initial_window": 30}
TRANSPORTS = {
    "ndp": ("*_ndp_rand_s*.json", "spray", "9064B", 9000, "135000B", NDP),
    "ndp-perm": ("*_ndp_perm_s*.json", "permute", "9064B", 9000, "135000B", NDP),
    "eqds": ("*_eqds_s*.json", "spray", "4150B", 4086, "145250B", {"kind": "eqds", "speculative_window": 50}),
}
#: web-search's size bins (bytes), as ndp_htsim_results.py bins htsim's completions
BINS = (100_000, 1_000_000, float("inf"))


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def percentile(xs: list[float], q: float) -> float | None:
    import numpy

    return float(numpy.percentile(xs, q, method="inverted_cdf")) if xs else None


def jain(x: list[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if x and any(x) else float("nan")


def fairsim_side(matrix: str, end_us: float, nodes: int, seed: int, transport: str) -> dict:
    """fairsim on `matrix` for `end_us`, measured whole; its figures as htsim's JSON names them."""
    import fairsim

    _, forwarding, packet_size, payload, buffer, kind = TRANSPORTS[transport]
    k = {128: 8, 250: 10}[nodes]
    end = f"{end_us}us"
    sets = {
        "run.duration": end,
        "run.warmup": "0s",
        "run.interval": end,
        "run.transfer_rows": True,
        "run.forwarding": forwarding,
        "topology.k": k,
        "topology.hosts.buffer": buffer,
        "workloads": {
            "m": {"pattern": "matrix", "file": matrix, "packet_size": packet_size, "transport": kind}
        },
    }
    sc = fairsim.load(FABRIC, set=sets)
    before = cpu()
    res = fairsim.run(sc, seed=seed, progress=False)
    spent = cpu() - before
    t = res.transfers
    fcts = [f * 1e6 for f in t["fct_s"][~t["unfinished"]]]
    queues = res.runs[0]["queues"]
    totals = res.runs[0]["flows"][0]["run_totals"]
    received = [d * payload for d in t["delivered"]]
    # binned by the matrix's sizes, as htsim's: fairsim's `bytes` counts whole packets
    sizes = [size for _, size in sorted(matrix_starts(matrix))]
    t = t.sort_values("arrival_s", kind="stable").assign(size=sizes)
    done = t[~t["unfinished"]]
    by_size = size_bins(list(zip(done["size"], done["fct_s"] * 1e6, strict=True)))
    return {
        "flows": len(t),
        "finished": len(fcts),
        "fct_p50_us": percentile(fcts, 50),
        "fct_p99_us": percentile(fcts, 99),
        "fct_max_us": max(fcts) if fcts else None,
        "trims": sum(q["totals"].get("trims", 0) for q in queues),
        "drops": sum(q["totals"]["drops"] for q in queues),
        "rtx_packets": totals["retransmitted"],
        "goodput_gbps": sum(received) * 8 / (end_us * 1e-6) / 1e9,
        "jain_bytes": jain(received),
        "flow_goodput_gbps_min": min(received) * 8 / (end_us * 1e-6) / 1e9,
        "by_size": by_size,
        "cpu_s": spent,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def size_bins(finished: list[tuple[int, float]]) -> dict:
    """The completion times (µs) of finished transfers, each given with its size, by size bin:
    count, median and 99th percentile."""
    by_size = {}
    for low, high in zip((0, *BINS), BINS, strict=False):
        xs = [fct for size, fct in finished if low < size <= high]
        by_size[f"{low}-{high}"] = {"n": len(xs), "p50_us": percentile(xs, 50), "p99_us": percentile(xs, 99)}
    return by_size


def matrix_rows(matrix: str) -> list[dict[str, str]]:
    """An htsim matrix's connections (`src->dst id I start T size B`), each as its words' pairs."""
    rows = []
    for line in Path(matrix).read_text().splitlines():
        words = line.split()
        if "->" in line and "size" in words:
            rows.append(dict(zip(words[1::2], words[2::2], strict=False)))
    return rows


def matrix_sizes(matrix: str) -> dict[str, int]:
    """Each connection's size, by its id."""
    return {row["id"]: int(row["size"]) for row in matrix_rows(matrix)}


def matrix_starts(matrix: str) -> list[tuple[float, int]]:
    """Each connection's start (ps) and size, in the matrix's order."""
    return [(float(row["start"]), int(row["size"])) for row in matrix_rows(matrix)]


def htsim_figures(h: dict) -> dict:
    """htsim's figures, with Jain's index over its flows' received bytes and its size bins."""
    received = list(h.get("flow_received_bytes", {}).values())
    fcts = h.get("flow_fcts_us", {})
    sizes = matrix_sizes(h["matrix"])
    finished = [(sizes[f], fct) for f, fct in fcts.items() if fct is not None]
    by_size = size_bins(finished) if fcts else {}
    return {**h, "jain_bytes": jain(received) if received else h.get("jain"), "by_size": by_size}


ROWS = (
    ("finished", "{:,}"),
    ("fct_p50_us", "{:,.1f}"),
    ("fct_p99_us", "{:,.1f}"),
    ("fct_max_us", "{:,.1f}"),
    ("goodput_gbps", "{:,.0f}"),
    ("jain_bytes", "{:.4f}"),
    ("flow_goodput_gbps_min", "{:.1f}"),
    ("trims", "{:,}"),
    ("rtx_packets", "{:,}"),
    ("cpu_s", "{:.2f}"),
    ("peak_rss_mb", "{:.0f}"),
)


def cell(value, spec: str) -> str:
    return "—" if value is None else spec.format(value)


def compare(h: dict, f: dict, rows: tuple[tuple[str, str], ...] = ROWS) -> list[str]:
    """The table's rows for `rows` (name, format) of htsim's figures `h` and fairsim's `f`, and
    their size bins."""
    lines = []
    for key, spec in rows:
        a, b = h.get(key), f.get(key)
        if a is None and b is None:
            continue
        ratio = f"{b / a:.3f}" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a else ""
        lines.append(f"| {key} | {cell(a, spec)} | {cell(b, spec)} | {ratio} |")
    for name, fs in f["by_size"].items():
        hs = h["by_size"].get(name)
        if not hs or not fs["n"]:
            continue
        for q in ("p50_us", "p99_us"):
            a, b = hs.get(q), fs.get(q)
            ratio = f"{b / a:.3f}" if a and b else ""
            counts = f"(n {hs.get('n')} / {fs['n']})"
            lines.append(f"| {name} B {q} {counts} | {cell(a, '{:,.1f}')} | {cell(b, '{:,.1f}')} | {ratio} |")
    return lines


def command_line(
    doc: str, transports: dict, default: str, producer: str
) -> tuple[argparse.Namespace, list[Path]]:
    """The command line of a side-by-side script (`ndp.py`, `roce.py`): its arguments and htsim's
    result files for the transport chosen, none if there are none (said on stderr)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("results", type=Path, help=f"htsim's side: a folder of {producer} JSON files")
    parser.add_argument("--transport", choices=list(transports), default=default)
    parser.add_argument("--only", action="append", default=[], help="only runs whose label contains this")
    parser.add_argument("--json", type=Path, help="write both sides' figures here")
    args = parser.parse_args()
    pattern = transports[args.transport][0]
    found = sorted(args.results.glob(pattern))
    if not found:
        print(f"{args.results}: no {pattern} files (htsim's runs of {args.transport})", file=sys.stderr)
    return args, found


def main() -> int:
    args, found = command_line(__doc__, TRANSPORTS, "ndp", "ndp_htsim_results.py")
    if not found:
        return 2
    both = {}
    for path in found:
        h = json.loads(path.read_text())
        label = h["label"]
        if args.only and not any(o in label for o in args.only):
            continue
        nodes = int(Path(h["matrix"]).read_text().split()[1])
        seed = int(label.rsplit("_s", 1)[1])
        f = fairsim_side(h["matrix"], h["end_us"], nodes, seed, args.transport)
        h = htsim_figures(h)
        both[label] = {"htsim": {k: v for k, v in h.items() if not k.startswith("flow_")}, "fairsim": f}
        print(f"\n### {label} ({Path(h['matrix']).name}, {h['end_us']:,.0f} µs)\n")
        print("| measure | htsim | fairsim | fairsim / htsim |\n|---|---:|---:|---:|")
        print("\n".join(compare(h, f)), flush=True)
    if args.json:
        args.json.write_text(json.dumps(both, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
