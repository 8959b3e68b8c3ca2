"""fairsim beside htsim on a 10 Gb/s dumbbell of N TCP flows (docs/validation.md, *htsim*; the
speed figures in docs/performance.md, *Data-centre runs*): total goodput, Jain's index, drops,
events, packet-hops and CPU time, flow count by flow count.

    python3 validation/htsim/dumbbell.py [--htsim PATH] [--flows 8 64 256] [--seeds 3] [--end-ms 10000]

The network is the reference dumbbell's shape (validation/ns3/dumbbell.py) at 10 Gb/s, without
its CBR: every sender on its own 100 Gb/s, 1 ms link to r1; r1-r2 10 Gb/s, 10 ms; every receiver
on its own 100 Gb/s, 1 ms link from r2. The round trip is 24 ms, so one bandwidth-delay product is
20,000 packets of 1500 B: the bottleneck's drop-tail queue holds that many, and every flow's share
of pipe and buffer (156 packets at 256 flows) leaves TCP in its normal regime of fast
retransmits, not of timeouts (a 20 µs, 100-packet dumbbell locks out instead, in both simulators).
Flow i starts at i × 20 µs and never ends. Both simulators carry every ACK back through the
mirror of the data path's queues, three hops each way.

TCP as htsim's TcpSrc does it on its own (sim/tcp.cpp; main_tcp's fat-tree wraps it in an MPTCP
source, this dumbbell does not): NewReno's partial ACKs without SACK, an initial window of 10, a
slow-start threshold after a loss of half the window (`ssthresh_from = "cwnd"`), a recovery that
ends at min(ssthresh, flight + 1) (`recovery_exit = "flight"`), an ACK a packet, a 250 ms RTO
floor, 1500-byte packets, 40-byte ACKs, no receiver window. Each flow leaves its first slow start at
its share of the pipe, 20,000 / N packets (`initial_ssthresh`, htsim's `-ssthresh`, in place of
htsim's fixed 100), so that 8, 64 and 256 flows alike fill the pipe, then fill the buffer in
congestion avoidance and meet their losses there. An unbounded first slow start overshoots by
thousands of packets, which NewReno without SACK repairs one a round trip: both simulators then
spend the run in that repair (tried: 0.7-5 Gb/s of 10 over 2 s).

htsim's side is `htsim_dumbbell`, a program built elsewhere from htsim's classes (Queue, Pipe,
TcpSrc, TcpSink), with the options `-flows -neck -access -neckdelay -accessdelay -q -accessq -end
-seed -stagger -ssthresh` and `SINK <i> <bytes>`, `DROPS <n>` and `EVENTS <n>` lines at the end
(docs/validation.md says how it is made). This project does not ship htsim or build it; without
`--htsim` (or FAIRSIM_HTSIM_DUMBBELL) only fairsim's side runs."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import NamedTuple

from compare import cpu, jain

NECK_MBPS, ACCESS_MBPS = 10_000, 100_000
ACCESS_BUFFER = 1_000  # packets
STAGGER_US = 20


class Net(NamedTuple):
    """The delays and the bottleneck's buffer (packets)."""

    neck_delay_us: int
    access_delay_us: int
    neck_buffer: int


#: The reference: a 24 ms round trip, the buffer one bandwidth-delay product.
REFERENCE = Net(10_000, 1_000, 20_000)
#: A 200 µs round trip, the bottleneck holding 1,024 packets (the speed comparisons' short case).
SHORT_RTT = Net(50, 25, 1_024)
PACKET = 1500
TRANSPORT = (
    '{ kind = "newreno", stack = "classic", window = 1000000, initial_cwnd = 10, '
    'ssthresh_from = "cwnd", recovery_exit = "flight", min_rto = "250ms", ack_every = 1, '
    "initial_ssthresh = SSTHRESH }"
)


def ssthresh(flows: int, net: Net = REFERENCE) -> int:
    """Each flow's first slow-start threshold: its share of the pipe, in packets (the
    reference's buffer is one bandwidth-delay product; the short case's, its share of it)."""
    return net.neck_buffer // flows


def scenario_text(flows: int, end_ms: float, net: Net = REFERENCE) -> str:
    """The dumbbell of `flows` flows as a fairsim scenario."""
    senders = [f"s{i}" for i in range(flows)]
    receivers = [f"d{i}" for i in range(flows)]
    lines = [
        f"nodes = {[*senders, 'r1', 'r2', *receivers]!r}".replace("'", '"'),
        "[scenario]",
        f'name = "htsim-dumbbell-{flows}"',
        "[run]",
        f'duration = "{end_ms}ms"',
        'warmup = "0s"',
        f'interval = "{end_ms}ms"',
        "[links]",
        f'neck = {{ between = ["r1", "r2"], rate = "{NECK_MBPS}Mbps", delay = "{net.neck_delay_us}us", '
        f"buffer = {net.neck_buffer} }}",
    ]
    access = f'rate = "{ACCESS_MBPS}Mbps", delay = "{net.access_delay_us}us", buffer = {ACCESS_BUFFER}'
    for s, d in zip(senders, receivers, strict=True):
        lines.append(f'{s} = {{ between = ["{s}", "r1"], {access} }}')
        lines.append(f'{d} = {{ between = ["r2", "{d}"], {access} }}')
    lines.append("[flows]")
    transport = TRANSPORT.replace("SSTHRESH", str(ssthresh(flows, net)))
    for i, (s, d) in enumerate(zip(senders, receivers, strict=True)):
        lines.append(
            f'f{i} = {{ src = "{s}", dst = "{d}", app = "ftp", start = "{i * STAGGER_US}us", '
            f'packet_size = "{PACKET}B", transport = {transport} }}'
        )
    return "\n".join(lines) + "\n"


def fairsim_side(flows: int, seed: int, end_ms: float) -> dict:
    import fairsim

    sc = fairsim.loads(scenario_text(flows, end_ms))
    before = cpu()
    run = fairsim.run(sc, seed=seed, progress=False).runs[0]
    spent = cpu() - before
    unique = [f["run_totals"]["delivered_unique"] for f in run["flows"]]
    rates = [n * PACKET * 8 / (end_ms / 1e3) for n in unique]
    return {
        "goodput_gbps": sum(rates) / 1e9,
        "jain": jain(rates),
        "drops": sum(f["run_totals"]["dropped"] + f["run_totals"]["acks_dropped"] for f in run["flows"]),
        "events": run["events"],
        "hops": sum(q["totals"]["departures"] for q in run["queues"]),
        "cpu_s": spent,
    }


def htsim_command(binary: str, flows: int, seed: int, end_ms: float, net: Net = REFERENCE) -> list[str]:
    """htsim_dumbbell's command line for the dumbbell `scenario_text` writes."""
    command = [binary, "-flows", str(flows), "-neck", str(NECK_MBPS), "-access", str(ACCESS_MBPS)]
    command += ["-neckdelay", str(net.neck_delay_us), "-accessdelay", str(net.access_delay_us)]
    command += ["-q", str(net.neck_buffer), "-accessq", str(ACCESS_BUFFER), "-stagger", str(STAGGER_US)]
    command += ["-end", str(round(end_ms * 1000)), "-seed", str(seed)]
    return [*command, "-ssthresh", str(ssthresh(flows, net))]


def htsim_side(binary: str, flows: int, seed: int, end_ms: float) -> dict:
    command = htsim_command(binary, flows, seed, end_ms)
    before = cpu()
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    spent = cpu() - before
    fields = [line.split() for line in out.splitlines()]
    rates = [int(f[-1]) * 8 / (end_ms / 1e3) for f in fields if f and f[0] == "SINK"]
    counted = {f[0]: int(f[1]) for f in fields if len(f) == 2 and f[0] in ("DROPS", "EVENTS")}
    return {
        "goodput_gbps": sum(rates) / 1e9,
        "jain": jain(rates),
        "drops": counted.get("DROPS"),
        "events": counted.get("EVENTS"),
        "hops": None,
        "cpu_s": spent,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--htsim",
        default=os.environ.get("FAIRSIM_HTSIM_DUMBBELL"),
        help="htsim_dumbbell, options above",
    )
    parser.add_argument("--flows", type=int, nargs="+", default=[8, 64, 256])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--end-ms", type=float, default=10000.0)
    args = parser.parse_args()
    print("| flows | seed | simulator | goodput (Gb/s) | Jain | drops | events | packet-hops | CPU (s) |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    started = time.time()
    for flows in args.flows:
        for seed in range(1, args.seeds + 1):
            # alternated, fairsim first then htsim, so that a change of load hits both alike
            sides = [("fairsim", fairsim_side(flows, seed, args.end_ms))]
            if args.htsim:
                sides.append(("htsim", htsim_side(args.htsim, flows, seed, args.end_ms)))
            for name, m in sides:
                cells = [f"{m['goodput_gbps']:.2f}", f"{m['jain']:.3f}"]
                cells += ["—" if m[k] is None else str(m[k]) for k in ("drops", "events", "hops")]
                cells.append(f"{m['cpu_s']:.2f}")
                print(f"| {flows} | {seed} | {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"({time.time() - started:.0f} s in all)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
