"""The reference dumbbell as a fairsim scenario, with the start times ns-3 drew.

`scenario_text(...)` writes the TOML; `run(...)` runs it and returns the same figures as
ns3_dumbbell.py prints, in ns-3's units (application bytes, not bytes on the wire);
`figures(report)` reads them from a run's report (also the JSON of `fairsim run --json`).
Each setting is the closest fairsim has today to ns-3's; none is tuned to the results.
`rate_mbps` scales the network as ns3_dumbbell.py's `--rate` does (dumbbell.network).
"""

from dumbbell import PAYLOAD, jain, network

import fairsim

# ns-3's point-to-point framing: PPP, IPv4, TCP with timestamps (1054-byte segments, 54-byte
# ACKs) or UDP (1030-byte datagrams); fairsim adds the same headers to the payload
HEADERS = "ppp"
WINDOW = (4 << 20) // PAYLOAD  # ns-3's 4 MiB socket buffers in segments: never limits


def red_has_wait() -> bool:
    """Whether this build of fairsim's RED has ns-2's and ns-3's `wait` rule (older builds do not).

    ns-3's RedQueueDisc has Wait on by default, so the mapping uses it whenever fairsim has it;
    older builds space drops as Floyd & Jacobson's p_b/(1 - count·p_b). Each run records which.
    """
    probe = """nodes = ["a", "b"]
[run]
duration = "1s"
[links]
l = { between = ["a", "b"], rate = "1Mbps", qdisc = { kind = "red", wait = true } }
[flows]
f = { src = "a", dst = "b", app = "cbr", rate = "1kbps" }
"""
    try:
        fairsim.loads(probe)
    except fairsim.ScenarioError:
        return False
    return True


RED_WAIT = red_has_wait()

# The bottleneck's discipline and buffer. ns-3 holds 100 packets in its queue disc (at 10 Mb/s), 1
# in the device queue and 1 on the wire; fairsim's buffer counts waiting packets only
# (buffer_includes_line = false), so 101 waiting + 1 on the line is the same 102. For RED the
# thresholds then see the device's packet too (one packet of difference). FqCoDel's limit is
# 10240 packets in both.
QDISCS = {
    "fifo": '"fcfs"',
    "red": '{ kind = "red", min_th = 20, max_th = 60, w_q = 0.002, max_p = 0.1, gentle = true, '
    'mean_packet_size = "1054B"' + (", wait = true }" if RED_WAIT else " }"),
    "fqcodel": '{ kind = "fq_codel", quantum = 1500, flows = 1024, target = "5ms", interval = "100ms", '
    "drop_batch = 64 }",
}


def neck_buffer(qdisc: str, neck_packets: int) -> int:
    return 10240 if qdisc == "fqcodel" else neck_packets + 1


def scenario_text(
    qdisc: str,
    cc: str,
    starts: list[float],
    duration: float,
    seed: int,
    mode: str = "default",
    rate_mbps: float = 10,
) -> str:
    """One TCP flow per start time, plus the UDP CBR, on their own access links. `mode` is ns-3's
    twin: `like` without SACK, PRR and limited transmit, `default` with them."""
    n = len(starts)
    net = network(rate_mbps)
    senders = [f"s{i}" for i in range(n)] + ["su"]
    receivers = [f"d{i}" for i in range(n)] + ["du"]
    disc, buffer = QDISCS[qdisc], neck_buffer(qdisc, net.neck_buffer)
    tcp = [f"tcp{i}" for i in range(n)]
    lines = [
        f"nodes = {[*senders, 'r1', 'r2', *receivers]}".replace("'", '"'),
        "[scenario]",
        f'name = "ns3-dumbbell-{qdisc}-{cc}-{n}"',
        "[run]",
        # goodput over the whole run (run_totals), as ns-3's PacketSink totals; the senders' and
        # the bottleneck's figures from 1 s on, the one interval after a 1 s warm-up, as ns-3's
        # counters (connected at 1 s, once every flow's socket exists)
        f'duration = "{duration}s"',
        'warmup = "1s"',
        f"seed = {seed}",
        f'headers = "{HEADERS}"',
        f"fairness = {tcp}".replace("'", '"'),
        "[links]",
    ]
    # access links (at 10 Mb/s): 100 Mb/s, 1 ms, drop-tail FIFO of 100 waiting packets (ns-3's
    # device queue)
    access = f'rate = "{net.access_bps}bps", delay = "1ms", buffer = {net.access_buffer}, qdisc = "fcfs"'
    for host in senders:
        lines.append(f'{host} = {{ between = ["{host}", "r1"], {access} }}')
    for host in receivers:
        lines.append(f'{host} = {{ between = ["r2", "{host}"], {access} }}')
    lines.append(
        f'neck = {{ between = ["r1", "r2"], rate = "{net.neck_bps}bps", delay = "10ms", '
        f"buffer = {buffer}, qdisc = {disc} }}"
    )
    lines.append("[flows]")
    for i, start in enumerate(starts):
        # fairsim has no handshake: data starts at `start`, ns-3's about one RTT (24 ms) later
        lines.append(
            f'tcp{i} = {{ src = "s{i}", dst = "d{i}", app = "ftp", packet_size = {PAYLOAD}, '
            f'start = "{round(start * 1e9)}ns", stop = "{duration}s" }}'
        )
    # a CBR's rate counts its payload, as ns-3's OnOffApplication's DataRate: at 10 Mb/s, one
    # datagram every 1.6 ms
    lines.append(
        f'udp = {{ src = "su", dst = "du", app = "cbr", rate = "{net.cbr_bps}bps", packet_size = {PAYLOAD} }}'
    )
    # ns-3's TCP: delayed ACKs every 2 segments or 200 ms, RTT from timestamps, IW 10, minRTO 1 s
    # with a 1 ms clock granularity (and 1 s before the first sample: ns-3 has measured the
    # handshake by then); SACK with PRR and limited transmit in `default`, none in `like`; in
    # both, three duplicate ACKs and no D-SACK, undo or adaptive threshold (ns-3 3.44's TCP has
    # no RACK-TLP and none of those; the linux stack's are switched off to stay its twin). Window
    # growth as ns-3's code has it: TcpNewReno adds per ACK (`packets`), TcpCubic's congestion
    # avoidance per segment acknowledged (`bytes`; its slow start is per ACK, which neither
    # setting models exactly)
    features = "true" if mode == "default" else "false"
    counting = "bytes" if cc == "cubic" else "packets"
    # ns-3's slow-start threshold after a loss: TcpNewReno halves BytesInFlight() (the pipe: SACKed
    # and lost segments left out), TcpCubic takes β of its congestion window; and its recovery
    # ends with cwnd = ssthresh (TcpClassicRecovery::ExitRecovery, as PRR's)
    ssthresh_from = "cwnd" if cc == "cubic" else "pipe"
    lines += [
        "[pairs]",
        f'"{cc}/{qdisc}" = {{ transport = {{ kind = "{cc}", window = {WINDOW}, ack_every = 2, '
        'ack_delay = "200ms", rtt_samples = "timestamps", initial_cwnd = 10, min_rto = "1s", '
        f'clock_granularity = "1ms", initial_rto = "1s", counting = "{counting}", '
        f'ssthresh_from = "{ssthresh_from}", recovery_exit = "ssthresh", '
        f"sack = {features}, prr = {features}, limited_transmit = {features}, rack = false, "
        "tlp = false, dsack = false, undo = false, adaptive_reordering = false } }",
    ]
    return "\n".join(lines) + "\n"


def figures(report: dict) -> dict:
    """The work a run did, from its report: events, packet-hops (packets leaving a port, data and
    ACKs, every port), application bytes delivered (TCP and UDP: what ns-3's PacketSinks count),
    all over the whole run: hops from the queues' intervals, the warm-up's included (a queue's
    `totals` leave the warm-up out)."""
    return {
        "events": report["events"],
        "packet_hops": sum(i["departures"] for i in report["queue_intervals"]),
        "delivered_bytes": sum(f["run_totals"]["payload_unique"] for f in report["flows"]),
        "wall_s": report["wall_s"],
    }


def run(
    qdisc: str,
    cc: str,
    starts: list[float],
    duration: float,
    seed: int,
    mode: str = "default",
    rate_mbps: float = 10,
) -> dict:
    res = fairsim.run(fairsim.loads(scenario_text(qdisc, cc, starts, duration, seed, mode, rate_mbps)))
    n = len(starts)
    # payload goodput over the whole run, as ns-3's PacketSink counts (goodput_bps counts whole
    # packets on the wire)
    report = res.runs[0]
    payload = {f["name"]: f["run_totals"]["payload_unique"] * 8 / duration for f in report["flows"]}
    tcp = [payload[f"tcp{i}"] for i in range(n)]
    # the bottleneck's counts over the whole run, warm-up included, as ns-3's queue statistics;
    # its mean queue over the measurement interval (from 1 s, as ns-3's average)
    whole = res.queue_intervals.groupby("port")[["departures", "drops"]].sum()
    queues = res.queues.set_index("port")
    return {
        "qdisc": qdisc,
        "flows": n,
        "cc": cc,
        "seed": seed,
        "duration": duration,
        "tcp_goodput_bps": tcp,
        "udp_goodput_bps": payload["udp"],
        "tcp_goodput_sum_bps": sum(tcp),
        "jain": jain(tcp),
        "bottleneck_packets": int(whole.loc["r1->r2", "departures"]),
        "bottleneck_packets_reverse": int(whole.loc["r2->r1", "departures"]),
        "bottleneck_drops": int(whole.loc["r1->r2", "drops"]),
        "bottleneck_drops_reverse": int(whole.loc["r2->r1", "drops"]),
        # the TCP senders from 1 s on (the measurement interval), as ns-3's counters
        "timeouts": sum(f["totals"]["timeouts"] for f in report["flows"] if f["name"] != "udp"),
        "retransmitted": sum(f["totals"]["retransmitted"] for f in report["flows"] if f["name"] != "udp"),
        # packets waiting at the bottleneck, time-averaged (the one on the line not counted)
        "mean_queue": float(queues.loc["r1->r2", "occupancy_pkts"]),
        "starts": starts,
        "red_wait": RED_WAIT if qdisc == "red" else None,
        "fairsim_version": fairsim.__version__,
        **figures(report),
    }
