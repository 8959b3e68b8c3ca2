#!/usr/bin/env python3
"""One htsim_roce / htsim_hpcc / htsim_swift run's output as JSON (the RoCE/HPCC/Swift
validation runs).

    roce_htsim_results.py --stdout OUT --time TIME --matrix M.cm --end-us 10000 \
        --program roce|hpcc|swift --kind permutation|incast|websearch --label L [-o run.json]
    roce_htsim_results.py --table DIR        # markdown table of DIR/*.json

OUT is the program's stdout as built by validation/htsim/build.sh: one `FSFLOW <matrix id>
<name> start_ps s fin_ps f|-1 bytes b size B` line per connection, `PFCQ`/`PFC` lines (PFC
counters per switch ingress) and `EGQ` lines (egress occupancy per switch port) for roce and
hpcc, `TRIMS 0 DROPS n` for swift. TIME is `/usr/bin/time -v`'s report.

Per run: each flow's completion time = first finish time - start as htsim used it (from the
FSFLOW lines, in ps, so not rounded as htsim's 6-digit `finished at` lines are); p50/p99/max
over the flows that finished (nearest rank) and how many did not; for the permutation, goodput
= sum over flows of the sink's in-order bytes x 8 / (end - start) and per-flow min/max/Jain;
pauses and paused time in total, by the kind of port paused (host NIC, ToR uplink, agg
downlink, agg uplink, core downlink) and for the ports towards the incast receiver's ToR;
the receiver's ToR downlink occupancy (incast: max, mean while non-empty, mean over the
incast = area / last finish); switch drops (swift); CPU seconds (user + system), peak RSS.
"""

import re
import sys

from ndp_htsim_results import RUN_COLUMNS, by_size, command, jain, markdown_table, pct, read_matrix, read_time

FSFLOW = re.compile(r"^FSFLOW (\d+) (\S+) start_ps (\d+) fin_ps (-?\d+) bytes (\d+) size (-?\d+)")
PFCQ = re.compile(r"^PFCQ VirtualQueue\((\S+)\) pauses (\d+) paused_us ([0-9.]+) max_bytes (\d+)( open)?")
PFC = re.compile(r"^PFC queues (\d+) pauses (\d+) paused_us ([0-9.]+) open (\d+)")
EGQ = re.compile(r"^EGQ (\S+) max_bytes (\d+) busy_us ([0-9.]+) area_byte_us ([0-9.]+)")


def port_kind(name):
    """The kind of port a PFCQ line pauses (its upstream port), from htsim's queue names."""
    if name.startswith("SRC"):
        return "host_nic"  # host -> ToR
    if name.startswith("LS"):
        return "tor_up"  # ToR -> agg
    if name.startswith("US") and "->LS" in name:
        return "agg_down"  # agg -> ToR
    if name.startswith("US") and "->CS" in name:
        return "agg_up"  # agg -> core
    if name.startswith("CS"):
        return "core_down"  # core -> agg
    return "other"


def summarise(stdout, time_path, matrix, end_us, label, kind, program):
    flows = read_matrix(matrix)
    by_id = {f["id"]: f for f in flows}
    res = {"label": label, "program": program, "kind": kind, "matrix": matrix, "end_us": end_us}
    seen, pfcq, egq = set(), [], []
    for line in open(stdout, errors="replace"):
        if line.startswith("FSFLOW "):
            m = FSFLOW.match(line)
            fid = int(m.group(1))
            f = by_id[fid]
            assert m.group(2).endswith(f"_{f['src']}_{f['dst']}"), (line, f)
            assert int(m.group(6)) == f["size"], (line, f)
            seen.add(fid)
            f["start_us"] = int(m.group(3)) / 1e6
            f["sink_bytes"] = int(m.group(5))
            if int(m.group(4)) >= 0:
                f["fct_us"] = round((int(m.group(4)) - int(m.group(3))) / 1e6, 6)
        elif line.startswith("PFCQ "):
            m = PFCQ.match(line)
            pfcq.append((m.group(1), int(m.group(2)), float(m.group(3)), int(m.group(4)), bool(m.group(5))))
        elif line.startswith("PFC queues "):
            m = PFC.match(line)
            res["pfc"] = {
                "ingresses_listed": int(m.group(1)),
                "pauses": int(m.group(2)),
                "paused_us": float(m.group(3)),
                "open_at_end": int(m.group(4)),
            }
        elif line.startswith("EGQ "):
            m = EGQ.match(line)
            egq.append((m.group(1), int(m.group(2)), float(m.group(3)), float(m.group(4))))
        elif line.startswith("TRIMS "):
            res["drops"] = int(line.split()[3])
        elif line.startswith("LOSSLESS_WARN "):
            res["lossless_warnings"] = res.get("lossless_warnings", 0) + int(line.split()[2])
    if seen != set(by_id):
        sys.exit(f"{stdout}: FSFLOW lines for {len(seen)} of {len(by_id)} connections (run did not end?)")

    fcts = sorted(f["fct_us"] for f in flows if "fct_us" in f)
    res.update(
        flows=len(flows),
        finished=len(fcts),
        unfinished=len(flows) - len(fcts),
        fct_p50_us=pct(fcts, 50),
        fct_p99_us=pct(fcts, 99),
        fct_max_us=fcts[-1] if fcts else None,
    )
    if kind == "permutation":
        g = [f["sink_bytes"] * 8 / ((end_us - f["start_us"]) * 1e-6) / 1e9 for f in flows]
        res["goodput_gbps"] = round(sum(g), 2)
        res["goodput_per_host_gbps"] = round(sum(g) / len(g), 3)
        res["flow_goodput_gbps_min"] = round(min(g), 3)
        res["flow_goodput_gbps_max"] = round(max(g), 3)
        res["jain"] = round(jain(g), 4)
        res["goodput_over"] = "sink in-order bytes x 8 / (end - start), summed over flows"
    else:
        g = [f["size"] * 8 / (f["fct_us"] * 1e-6) / 1e9 for f in flows if "fct_us" in f]
        res["jain"] = round(jain(g), 4) if g else None
        res["jain_over"] = "size / FCT of the flows that finished"
    if kind == "websearch":
        res["by_size"] = by_size(flows)

    if pfcq:
        kinds = {}
        for name, n, t, _mx, _open in pfcq:
            zero = {"ports": 0, "paused_ports": 0, "pauses": 0, "paused_us": 0.0}
            k = kinds.setdefault(port_kind(name), zero)
            k["ports"] += 1
            k["paused_ports"] += n > 0
            k["pauses"] += n
            k["paused_us"] = round(k["paused_us"] + t, 6)
        res["pfc_by_kind"] = kinds
        res["max_ingress_bytes"] = max(q[3] for q in pfcq)
        res["pfc_ports"] = {
            name: {"pauses": n, "paused_us": t, "max_ingress_bytes": mx, "open": op}
            for name, n, t, mx, op in pfcq
            if n > 0
        }
    if kind == "incast" and egq:
        dst = flows[0]["dst"]
        tor = dst // 4  # k = 8: 4 hosts per ToR (htsim's HOST_POD_SWITCH)
        last = fcts[-1] if fcts else end_us
        for name, mx, busy, area in egq:
            if name == f"LS{tor}->DST{dst}(0)":
                res["receiver_downlink"] = {
                    "port": name,
                    "max_bytes": mx,
                    "busy_us": busy,
                    "mean_bytes_while_busy": round(area / busy, 1) if busy else 0,
                    "mean_bytes_to_last_finish": round(area / last, 1),
                }
        into = {
            n: v
            for n, v in (res.get("pfc_ports") or {}).items()
            if n.startswith("US") and n.split("->")[1].startswith(f"LS_{tor}(")
        }
        res["pfc_agg_to_receiver_tor"] = {
            "ports": len(into),
            "pauses": sum(v["pauses"] for v in into.values()),
            "paused_us": round(sum(v["paused_us"] for v in into.values()), 6),
        }
    res.update(read_time(time_path))
    res["flow_fcts_us"] = {str(f["id"]): f.get("fct_us") for f in flows}
    res["flow_sink_bytes"] = {str(f["id"]): f["sink_bytes"] for f in flows}
    return res


def table(folder):
    cols = [
        *RUN_COLUMNS,
        ("pauses", "pauses"),
        ("paused_us", "paused µs"),
        ("max_ingress_bytes", "max ingress B"),
        ("last_hop_max_bytes", "last-hop max B"),
        ("drops", "drops"),
        ("cpu_s", "CPU s"),
        ("peak_rss_mb", "RSS MB"),
    ]
    markdown_table(folder, cols, with_pfc_figures)


def with_pfc_figures(r):
    """A run's figures for the table: its PFC totals and (incasts) the last hop's largest queue."""
    r.update({k: v for k, v in (r.get("pfc") or {}).items() if k in ("pauses", "paused_us")})
    r["last_hop_max_bytes"] = (r.get("receiver_downlink") or {}).get("max_bytes")
    return r


def main():
    return command(__doc__, ["roce", "hpcc", "swift"], summarise, table)


if __name__ == "__main__":
    main()
