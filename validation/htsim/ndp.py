"""fairsim's NDP and EQDS beside htsim's `htsim_ndp` and `htsim_eqds` on the same connection
matrices (docs/validation.md, *NDP and EQDS*): a permutation's goodput and Jain's index, an
incast's completion times, trims and retransmissions, web-search's completion times by size, and
each side's CPU time.

    python3 validation/htsim/ndp.py HTSIM_RESULTS_DIR [--transport ndp|ndp-perm|eqds] [--only LABEL ...]
        [--seeds 1-20] [--save DIR] [--pooled] [--json FILE]

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
whole (a 270,000-byte file: 67 packets, 274,294 bytes on the wire, against 66 and 273,900).

`--seeds` takes only htsim's runs of those seeds; `--save DIR` keeps each fairsim run's figures,
its flows' included, in DIR/<key>/<transport>/<label>.json and reuses them on the next call (a
series of runs can stop and go on); the key names fairsim's build and these scripts, so a changed
fairsim or comparison runs again; `--pooled` then prints each case pooled over its seeds
(`pooled.py`)."""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pooled import case_and_seed, report, seed_set

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
    before, wall = cpu(), time.monotonic()
    res = fairsim.run(sc, seed=seed, progress=False)
    spent, wall = cpu() - before, time.monotonic() - wall
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
        "unfinished": len(t) - len(fcts),
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
        "wall_s": wall,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        **per_flow(t, payload),
    }


def per_flow(t, payload: int) -> dict:
    """Each transfer's completion time (µs, None if unfinished) and payload received, by its
    matrix id (ids from 1 in the matrix's order, as htsim's JSON has them); `t` in that order."""
    ids = [str(i) for i in range(1, len(t) + 1)]
    fcts = [None if u else f * 1e6 for f, u in zip(t["fct_s"], t["unfinished"], strict=True)]
    return {
        "flow_fcts_us": dict(zip(ids, fcts, strict=True)),
        "flow_received_bytes": dict(zip(ids, (int(d) * payload for d in t["delivered"]), strict=True)),
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
    parser.add_argument("--seeds", type=seed_set, help="only these seeds: 1-20, or 1,3,5-9")
    parser.add_argument("--save", type=Path, help="keep (and reuse) fairsim's runs in this folder")
    parser.add_argument("--pooled", action="store_true", help="print each case pooled over its seeds")
    args = parser.parse_args()
    pattern = transports[args.transport][0]
    found = sorted(args.results.glob(pattern))
    if args.seeds:
        found = [p for p in found if case_and_seed(p.stem)[1] in args.seeds]
    if not found:
        print(f"{args.results}: no {pattern} files (htsim's runs of {args.transport})", file=sys.stderr)
    return args, found


@functools.cache
def saved_key() -> str:
    """What decides the saved fairsim runs besides htsim's own: fairsim's build (its engine and
    its Python code) and these scripts with their fabrics. Runs are kept under it, so that a
    changed fairsim or comparison never serves the figures of another."""
    from fairsim.sweeps.plan import engine_hash

    digest = hashlib.sha256(engine_hash().encode())
    for f in sorted(HERE.glob("*.py")) + sorted(HERE.glob("*.toml")):
        digest.update(f.name.encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:12]


def saved_or_run(args: argparse.Namespace, label: str, run: Callable[[], dict]) -> dict:
    """fairsim's figures for htsim's run `label`: from `--save`'s folder if it has them (made by
    this fairsim and these scripts, `saved_key`), else `run()`, kept there."""
    path = args.save / saved_key() / args.transport / f"{label}.json" if args.save else None
    if path and path.exists():
        return json.loads(path.read_text())
    figures = run()
    if path:
        from fairsim.output import atomic_write

        path.parent.mkdir(parents=True, exist_ok=True)
        # whole or absent: a series stopped mid-write must not leave a file the next call reads
        atomic_write(path, lambda tmp: tmp.write_text(json.dumps(figures)))
    return figures


def side_by_side(args: argparse.Namespace, found: list[Path], fairsim_run, htsim_figures, rows) -> int:
    """`ndp.py`'s and `roce.py`'s main: for each of htsim's runs in `found`, fairsim's
    (`fairsim_run(h)`) beside it, printed run by run, then (`--pooled`) case by case."""
    both, pairs = {}, {}
    for path in found:
        h = json.loads(path.read_text())
        label = h["label"]
        if args.only and not any(o in label for o in args.only):
            continue
        f = saved_or_run(args, label, lambda h=h: fairsim_run(h))
        h = htsim_figures(h)
        case, seed = case_and_seed(label)
        pairs.setdefault(case, []).append((seed, h, f))
        both[label] = {
            side: {k: v for k, v in x.items() if not k.startswith(("flow_", "pfc_ports"))}
            for side, x in (("htsim", h), ("fairsim", f))
        }
        print(f"\n### {label} ({Path(h['matrix']).name}, {h['end_us']:,.0f} µs)\n")
        print("| measure | htsim | fairsim | fairsim / htsim |\n|---|---:|---:|---:|")
        print("\n".join(compare(h, f, rows)), flush=True)
    if args.pooled:
        print("\n## Pooled over seeds\n")
        both["pooled"] = report(pairs, matrix_sizes)
    if args.json:
        args.json.write_text(json.dumps(both, indent=1))
    return 0


def main() -> int:
    args, found = command_line(__doc__, TRANSPORTS, "ndp", "ndp_htsim_results.py")
    if not found:
        return 2

    def fairsim_run(h: dict) -> dict:
        nodes = int(Path(h["matrix"]).read_text().split()[1])
        seed = case_and_seed(h["label"])[1]
        return fairsim_side(h["matrix"], h["end_us"], nodes, seed, args.transport)

    return side_by_side(args, found, fairsim_run, htsim_figures, ROWS)


if __name__ == "__main__":
    sys.exit(main())
