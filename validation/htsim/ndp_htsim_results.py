#!/usr/bin/env python3
"""One htsim_ndp / htsim_eqds run's output as JSON (the NDP/EQDS validation runs).

    ndp_htsim_results.py --stdout OUT --time TIME --matrix M.cm --end-us 10000 \
        --label perm_ndp_perm_s1 [--kind permutation|incast|websearch] [-o run.json]

OUT is the program's stdout, built by validation/htsim/build.sh (its `TRIMS n DROPS n` line and
one `SINK name in_order_bytes received_bytes` line per connection, in the matrix's order);
TIME is `/usr/bin/time -v`'s report. The matrix gives each flow's start and size (ids from 1).

Per run: each flow's completion time (first "finished at" line per flow id, minus its start),
p50/p99/max over the flows that finished, how many did not; received bytes per flow (every
data packet once: NDP's in-order bytes + 9,000 B per packet held above a hole, EQDS's unique
bytes); goodput = sum received x 8 / run length (permutation); Jain's index over per-flow
goodput (permutation: received over the run; otherwise size / FCT of the flows that
finished); trims and drops over the switch queues; new and retransmitted packets (and RTS for
EQDS); CPU seconds (user + system) and peak RSS.
"""

import argparse
import json
import math
import re
import sys

FIN = re.compile(r"^Flow (\S+) (?:flow_id|flowId) (\d+) .*?finished at ([0-9.eE+-]+)")
TOT = re.compile(r"^New: (\d+) Rtx: (\d+)(?: RTS: (\d+))? Bounced: (\d+)")


def pct(xs, p):
    """Nearest-rank percentile of sorted xs."""
    if not xs:
        return None
    return xs[max(0, math.ceil(p / 100.0 * len(xs)) - 1)]


def jain(xs):
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if xs and q > 0 else None


def read_matrix(path):
    flows = []
    with open(path) as f:
        for line in f:
            m = re.match(r"^(\d+)->(\d+)\s+(.*)$", line.strip())
            if not m:
                continue
            kv = m.group(3).split()
            d = dict(zip(kv[::2], kv[1::2], strict=False))
            flows.append(
                {
                    "id": int(d["id"]),
                    "src": int(m.group(1)),
                    "dst": int(m.group(2)),
                    "start_us": float(d["start"]) / 1e6,
                    "size": int(d["size"]),
                }
            )
    return flows


def read_time(path):
    out = {}
    if not path:
        return out
    for line in open(path):
        line = line.strip()
        for key, name in (
            ("User time (seconds)", "user"),
            ("System time (seconds)", "sys"),
            ("Maximum resident set size (kbytes)", "rss_kb"),
            ("Elapsed (wall clock) time", "wall"),
            ("Exit status", "exit"),
        ):
            if line.startswith(key):
                out[name] = line.rsplit(": ", 1)[1]
    res = {}
    if "user" in out:
        res["cpu_s"] = round(float(out["user"]) + float(out.get("sys", 0)), 2)
    if "rss_kb" in out:
        res["peak_rss_mb"] = round(int(out["rss_kb"]) / 1024.0, 1)
    if "wall" in out:
        parts = [float(x) for x in out["wall"].split(":")]
        res["wall_s"] = round(sum(v * 60**i for i, v in enumerate(reversed(parts))), 2)
    if "exit" in out:
        res["exit_status"] = int(out["exit"])
    return res


def by_size(flows):
    """Web search's completion times by size bin (< 100 KB, 100 KB–1 MB, ≥ 1 MB): the flows, those
    finished, and their p50, p99 and largest."""
    bins = {"lt100KB": (0, 100e3), "100KB-1MB": (100e3, 1e6), "ge1MB": (1e6, 1e12)}
    out = {}
    for b, (lo, hi) in bins.items():
        sel = [f for f in flows if lo <= f["size"] < hi]
        x = sorted(f["fct_us"] for f in sel if "fct_us" in f)
        out[b] = {
            "flows": len(sel),
            "finished": len(x),
            "p50_us": pct(x, 50),
            "p99_us": pct(x, 99),
            "max_us": x[-1] if x else None,
        }
    return out


def summarise(stdout, time_path, matrix, end_us, label, kind, program=None):
    flows = read_matrix(matrix)
    by_id = {f["id"]: f for f in flows}
    finish, sinks, res = {}, [], {"label": label, "matrix": matrix, "end_us": end_us}
    for line in open(stdout, errors="replace"):
        m = FIN.match(line)
        if m:
            fid = int(m.group(2))
            finish.setdefault(fid, float(m.group(3)))
            if program is None:
                program = "eqds" if m.group(1).startswith("Eqds") else "ndp"
            continue
        if line.startswith("TRIMS "):
            t = line.split()
            res["trims"], res["drops"] = int(t[1]), int(t[3])
        elif line.startswith("SINK "):
            t = line.split()
            sinks.append((t[1], int(t[2]), int(t[3])))
        else:
            m = TOT.match(line)
            if m:
                res["new_packets"], res["rtx_packets"] = int(m.group(1)), int(m.group(2))
                if m.group(3) is not None:
                    res["rts_packets"] = int(m.group(3))
                res["bounced"] = int(m.group(4))
    res["program"] = program
    if "trims" not in res:
        sys.exit(f"{stdout}: no TRIMS line (not built by build.sh, or the run did not end)")
    if len(sinks) != len(flows):
        sys.exit(f"{stdout}: {len(sinks)} SINK lines for {len(flows)} connections")
    for f, (name, inorder, received) in zip(flows, sinks, strict=True):
        assert name.endswith(f"_{f['src']}_{f['dst']}"), (name, f)
        f["in_order_bytes"], f["received_bytes"] = inorder, received
        if f["id"] in finish:
            f["fct_us"] = round(finish[f["id"]] - f["start_us"], 3)
    extra = set(finish) - set(by_id)
    assert not extra, extra

    fcts = sorted(f["fct_us"] for f in flows if "fct_us" in f)
    res.update(
        kind=kind,
        flows=len(flows),
        finished=len(fcts),
        unfinished=len(flows) - len(fcts),
        fct_p50_us=pct(fcts, 50),
        fct_p99_us=pct(fcts, 99),
        fct_max_us=fcts[-1] if fcts else None,
    )
    total = sum(f["received_bytes"] for f in flows)
    res["received_bytes"] = total
    res["goodput_gbps"] = round(total * 8 / (end_us * 1e-6) / 1e9, 2)
    if kind == "permutation":
        g = [f["received_bytes"] * 8 / ((end_us - f["start_us"]) * 1e-6) / 1e9 for f in flows]
        res["jain"] = round(jain(g), 4)
        res["flow_goodput_gbps_min"] = round(min(g), 2)
        res["flow_goodput_gbps_max"] = round(max(g), 2)
        res["jain_over"] = "received bytes over the run, per flow"
    else:
        g = [f["size"] * 8 / (f["fct_us"] * 1e-6) / 1e9 for f in flows if "fct_us" in f]
        res["jain"] = round(jain(g), 4) if g else None
        res["jain_over"] = "size / FCT of the flows that finished"
    if kind == "websearch":
        res["by_size"] = by_size(flows)
    res.update(read_time(time_path))
    res["flow_fcts_us"] = {str(f["id"]): f.get("fct_us") for f in flows}
    res["flow_received_bytes"] = {str(f["id"]): f["received_bytes"] for f in flows}
    return res


#: The first columns of every results table: the run, its transfers, their completion times,
#: goodput and Jain's index (key, heading).
RUN_COLUMNS = [
    ("label", "run"),
    ("finished", "done"),
    ("unfinished", "open"),
    ("fct_p50_us", "p50 µs"),
    ("fct_p99_us", "p99 µs"),
    ("fct_max_us", "last µs"),
    ("goodput_gbps", "Gb/s"),
    ("jain", "Jain"),
]


def table(folder):
    """One row per run JSON in folder, sorted by label."""

    cols = [
        *RUN_COLUMNS,
        ("trims", "trims"),
        ("drops", "drops"),
        ("new_packets", "new"),
        ("rtx_packets", "rtx"),
        ("rts_packets", "RTS"),
        ("cpu_s", "CPU s"),
        ("peak_rss_mb", "RSS MB"),
    ]
    markdown_table(folder, cols, without_goodput_beyond_permutations)


def without_goodput_beyond_permutations(r):
    """A run's figures for the table: goodput over the whole run only for a permutation."""
    if r.get("kind") != "permutation":
        r["goodput_gbps"] = None
    return r


def markdown_table(folder, cols, prepare):
    """Prints one row per run JSON in `folder` (sorted by label), its `cols` (key, heading) after
    `prepare` gives each its figures."""
    import glob

    print("| " + " | ".join(c[1] for c in cols) + " |")
    print("|" + "---|" * len(cols))
    for path in sorted(glob.glob(f"{folder}/*.json")):
        r = json.load(open(path))
        if "label" not in r:
            continue
        r = prepare(r)
        row = []
        for k, _ in cols:
            v = r.get(k)
            if v is None:
                row.append("")
            elif isinstance(v, float):
                row.append(f"{v:,.4f}" if k == "jain" else f"{v:,.1f}")
            elif isinstance(v, int):
                row.append(f"{v:,}")
            else:
                row.append(str(v))
        print("| " + " | ".join(row) + " |")


def command(doc, programs, summarise, table):
    """The command line of a results script: `--table DIR`, or one run's htsim output (`--stdout`,
    `--time`, `--matrix`, `--end-us`, `--program`, `--label`, `--kind`) summarised as JSON, to
    `--out` or standard output."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", metavar="DIR", help="print a markdown table of DIR/*.json and stop")
    ap.add_argument("--stdout")
    ap.add_argument("--time")
    ap.add_argument("--matrix")
    ap.add_argument("--end-us", type=float)
    ap.add_argument("--program", choices=programs)
    ap.add_argument("--label", default="")
    ap.add_argument("--kind", choices=["permutation", "incast", "websearch"], default="permutation")
    ap.add_argument("-o", "--out")
    a = ap.parse_args()
    if a.table:
        return table(a.table)
    if not (a.stdout and a.matrix and a.end_us and a.program):
        ap.error("--stdout, --matrix, --end-us and --program are needed")
    res = summarise(a.stdout, a.time, a.matrix, a.end_us, a.label, a.kind, a.program)
    text = json.dumps(res, indent=1)
    if a.out:
        open(a.out, "w").write(text + "\n")
    else:
        print(text)


def main():
    return command(__doc__, ["ndp", "eqds"], summarise, table)


if __name__ == "__main__":
    main()
