"""The reference dumbbell in ns-3 (docs/validation.md, *The settings, side by side*), one run per
configuration.

Runs under the Python of a virtual environment holding the `ns3==3.44.post0` wheel (compare.py
makes it), never under the project's Python: ns.py's package is also called `ns`.

    python ns3_dumbbell.py --qdisc red --flows 8 --cc newreno --run 2 --duration 60 [--no-sack --classic]
    python ns3_dumbbell.py --flows 256 --rate 100 --duration 60 --no-rtos   # as speed.py runs it
    python ns3_dumbbell.py --batch configs.json     # a JSON list of such configurations

Prints one JSON object per run, on its own line: per-flow goodput (PacketSink bytes ·8 / duration),
the UDP goodput, Jain's index over the TCP flows, the bottleneck's packets and queue-disc drops,
the start times drawn, the wall time of Simulator::Run() and the work done (events executed,
packets sent on every link, payload delivered). A batch runs in one process, so ns-3 is imported
once (8-13 s); the random streams are reset before each run so that a run gives the same numbers
in a batch as alone. `--rate` scales the network (dumbbell.network: 10 Mb/s is the reference).
"""

import time

T_START = time.perf_counter()

import argparse  # noqa: E402 (after the clock that times the import of ns-3)
import json  # noqa: E402
import sys  # noqa: E402

import cppyy  # noqa: E402
from dumbbell import PAYLOAD, jain, network  # noqa: E402 (beside this file)
from ns import ns  # noqa: E402

IMPORT_S = time.perf_counter() - T_START  # interpreter start not included
MSS = PAYLOAD  # TCP payload per segment; 1054 B on the wire with TCP/TS, IP and PPP headers
UDP_PAYLOAD = PAYLOAD  # 1030 B on the wire
START_STREAM = 1  # the pinned stream of the start times: seed 1, run 1 gives the reference's starts

# What the TCP senders and the bottleneck did, counted in C++ (a Python callback per event would
# be slow), from 1 s on, once every flow's socket exists (BulkSend makes it when its flow starts):
# - every retransmission timeout: each expiry doubles the socket's RTO (`ReTxTimeout`:
#   min(2·RTO, 60 s)), which its `RTO` trace shows; an RTT sample sets the RTO from the estimate
#   instead, never to exactly twice the last one. (Entries into CA_LOSS, counted too, miss the
#   expiries of a timer that backs off while the socket is already in loss recovery.)
# - retransmissions: data segments a socket sends below the highest sequence it has sent (`Tx`);
# - the bottleneck queue disc's packets over time (`PacketsInQueue`), for its time average.
# Compiled on first use only: the speed comparison (speed.py) runs without it.
COUNTERS = """
#include <map>
namespace fairsim_validation {
uint64_t rtos = 0, loss_entries = 0, retransmissions = 0;
std::map<const void*, ns3::SequenceNumber32> highest;
double queue_area = 0, queue_since = 0;
uint32_t queue_now = 0;
ns3::Ptr<ns3::QueueDisc> bottleneck;
void OnRto(ns3::Time old, ns3::Time now)
{
    if (now == ns3::Min(old * 2, ns3::Seconds(60)) && now > old) { ++rtos; }
}
void OnCongState(ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t now)
{
    if (now == ns3::TcpSocketState::CA_LOSS) { ++loss_entries; }
}
void OnTx(ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h, ns3::Ptr<const ns3::TcpSocketBase> s)
{
    if (p->GetSize() == 0) { return; }
    auto it = highest.find(ns3::PeekPointer(s));
    if (it != highest.end() && h.GetSequenceNumber() < it->second) { ++retransmissions; }
    ns3::SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    if (it == highest.end()) { highest[ns3::PeekPointer(s)] = end; }
    else if (it->second < end) { it->second = end; }
}
void OnQueue(uint32_t, uint32_t now)
{
    double t = ns3::Simulator::Now().GetSeconds();
    queue_area += queue_now * (t - queue_since);
    queue_since = t;
    queue_now = now;
}
void Connect()
{
    queue_since = ns3::Simulator::Now().GetSeconds();
    queue_now = bottleneck->GetNPackets();
    bottleneck->TraceConnectWithoutContext("PacketsInQueue", ns3::MakeCallback(&OnQueue));
    ns3::Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/RTO",
                                       ns3::MakeCallback(&OnRto));
    ns3::Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState",
                                       ns3::MakeCallback(&OnCongState));
    ns3::Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/Tx",
                                       ns3::MakeCallback(&OnTx));
}
void CountFrom(double t, ns3::Ptr<ns3::QueueDisc> q)
{
    rtos = loss_entries = retransmissions = 0;
    highest.clear();
    queue_area = 0; queue_since = t; queue_now = 0;
    bottleneck = q;
    ns3::Simulator::Schedule(ns3::Seconds(t), &Connect);
}
double MeanQueue(double from, double end)
{
    double t = ns3::Simulator::Now().GetSeconds();
    queue_area += queue_now * (end - queue_since);  // the last level, up to the end
    queue_since = end;
    bottleneck = nullptr;
    return queue_area / (end - from);
}
}
"""


def counters():
    if not hasattr(cppyy.gbl, "fairsim_validation"):
        cppyy.cppdef(COUNTERS)
    return cppyy.gbl.fairsim_validation


def set_defaults(cfg, net):
    """Config::SetDefault for everything a run depends on, every time (a batch reuses the process)."""
    d = ns.Config.SetDefault
    cc = {"newreno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic"}[cfg["cc"]]
    d("ns3::TcpL4Protocol::SocketType", ns.StringValue(cc))
    recovery = "ns3::TcpClassicRecovery" if cfg["classic"] else "ns3::TcpPrrRecovery"
    d("ns3::TcpL4Protocol::RecoveryType", ns.StringValue(recovery))
    d("ns3::TcpSocketBase::Sack", ns.BooleanValue(not cfg["no_sack"]))
    # limited transmit goes with the classic, fairsim-like mode: fairsim has none
    d("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(not cfg["classic"]))
    d("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS))
    # 4 MiB buffers: the receiver's window never limits
    d("ns3::TcpSocket::SndBufSize", ns.UintegerValue(4 << 20))
    d("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(4 << 20))
    # ns-3's defaults, written out because fairsim's settings are chosen to match them
    d("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(10))
    d("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    d("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.MilliSeconds(200)))
    d("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1)))
    d("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(True))
    # HyStart (ns-3's default, as Linux's CUBIC): fairsim's CUBIC has none. Off only as a diagnostic
    d("ns3::TcpCubic::HyStart", ns.BooleanValue(not cfg.get("no_hystart", False)))
    # RED as in the reference; Wait, IdlePktSize, Ns1Compat stay ns-3's defaults
    d("ns3::RedQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{net.neck_buffer}p")))
    d("ns3::RedQueueDisc::MinTh", ns.DoubleValue(20))
    d("ns3::RedQueueDisc::MaxTh", ns.DoubleValue(60))
    d("ns3::RedQueueDisc::QW", ns.DoubleValue(0.002))
    d("ns3::RedQueueDisc::LInterm", ns.DoubleValue(10))  # max_p = 1/10
    d("ns3::RedQueueDisc::Gentle", ns.BooleanValue(True))
    d("ns3::RedQueueDisc::MeanPktSize", ns.UintegerValue(1054))
    d("ns3::RedQueueDisc::LinkBandwidth", ns.DataRateValue(ns.DataRate(net.neck_bps)))
    d("ns3::RedQueueDisc::LinkDelay", ns.TimeValue(ns.MilliSeconds(10)))
    d("ns3::RedQueueDisc::UseHardDrop", ns.BooleanValue(True))
    # Wait (ns-3's default, ns-2's wait_): no early drop until 1/p_b packets since the last one;
    # fairsim's RED spaces drops as Floyd & Jacobson's p_b/(1 - count·p_b). Off only as a diagnostic.
    d("ns3::RedQueueDisc::Wait", ns.BooleanValue(not cfg.get("red_no_wait", False)))
    d("ns3::FifoQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{net.neck_buffer}p")))
    # FqCoDel keeps its defaults (target 5 ms, interval 100 ms, 1024 flows, 10240p, batch 64);
    # its quantum is the device's MTU, 1500 B


def p2p(rate_bps, delay, queue_packets):
    helper = ns.PointToPointHelper()
    helper.SetDeviceAttribute("DataRate", ns.StringValue(f"{rate_bps}bps"))
    helper.SetChannelAttribute("Delay", ns.StringValue(delay))
    helper.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(f"{queue_packets}p"))
    return helper


def run(cfg):
    n, duration = cfg["flows"], cfg["duration"]
    net = network(cfg.get("rate", 10))
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(cfg["run"])
    ns.RngSeedManager.ResetNextStreamIndex()  # RED's drop draws: same streams in a batch as alone
    set_defaults(cfg, net)

    # n TCP senders and one UDP sender on the left, as many receivers on the right
    senders, receivers, routers = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    senders.Create(n + 1)
    receivers.Create(n + 1)
    routers.Create(2)
    stack = ns.InternetStackHelper()
    for c in (senders, receivers, routers):
        stack.Install(c)

    access = p2p(net.access_bps, "1ms", net.access_buffer)  # drop-tail device FIFO, no queue disc
    neck = p2p(net.neck_bps, "10ms", 1)  # the discipline under test, then a 1-packet device queue
    neck_devs = neck.Install(routers.Get(0), routers.Get(1))
    tch = ns.TrafficControlHelper()
    tch.SetRootQueueDisc(
        {"fifo": "ns3::FifoQueueDisc", "red": "ns3::RedQueueDisc", "fqcodel": "ns3::FqCoDelQueueDisc"}[
            cfg["qdisc"]
        ]
    )
    qdiscs = tch.Install(neck_devs)  # before addresses are assigned, which would install FqCoDel

    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.255.0.0"), ns.Ipv4Mask("255.255.255.252"))
    addr.Assign(neck_devs)
    dst_addrs, devices = [], [neck_devs.Get(0), neck_devs.Get(1)]
    for i in range(n + 1):
        left = access.Install(senders.Get(i), routers.Get(0))
        right = access.Install(routers.Get(1), receivers.Get(i))
        devices += [c.Get(k) for c in (left, right) for k in (0, 1)]
        # 10.1.i.0/24 on the left, 10.2.i.0/24 on the right; from 256 hosts on, 10.3 and 10.4, ...
        block = 2 * (i // 256)
        addr.SetBase(ns.Ipv4Address(f"10.{1 + block}.{i % 256}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(left)
        addr.SetBase(ns.Ipv4Address(f"10.{2 + block}.{i % 256}.0"), ns.Ipv4Mask("255.255.255.0"))
        dst_addrs.append(addr.Assign(right).GetAddress(1))
        # Assign installed ns-3's default queue disc; the access links have none in the reference
        ns.TrafficControlHelper().Uninstall(left)
        ns.TrafficControlHelper().Uninstall(right)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    starts_rv = ns.CreateObject[ns.UniformRandomVariable]()
    starts_rv.SetStream(START_STREAM)
    starts = [starts_rv.GetValue(0.0, 1.0) for _ in range(n)]

    stop = ns.Seconds(duration)
    sinks = []
    for i in range(n + 1):
        udp = i == n
        factory = "ns3::UdpSocketFactory" if udp else "ns3::TcpSocketFactory"
        port = 9000 + i
        sink = ns.PacketSinkHelper(factory, ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        sink_app = sink.Install(receivers.Get(i))
        sink_app.Start(ns.Seconds(0))
        sink_app.Stop(stop)
        sinks.append(sink_app.Get(0))
        remote = ns.InetSocketAddress(dst_addrs[i], port).ConvertTo()
        if udp:  # 1000 B every 1.6 ms (at 10 Mb/s), always on
            src = ns.OnOffHelper(factory, remote)
            src.SetAttribute("DataRate", ns.DataRateValue(ns.DataRate(net.cbr_bps)))
            src.SetAttribute("PacketSize", ns.UintegerValue(UDP_PAYLOAD))
            src.SetAttribute("OnTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=1e9]"))
            src.SetAttribute("OffTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=0]"))
            start = 0.0
        else:
            src = ns.BulkSendHelper(factory, remote)
            src.SetAttribute("SendSize", ns.UintegerValue(MSS))
            start = starts[i]
        app = src.Install(senders.Get(i))
        app.Start(ns.Seconds(start))
        app.Stop(stop)

    count = counters() if cfg.get("count_rtos", True) else None
    if count is not None:
        count.CountFrom(1.0, qdiscs.Get(0))
    ns.Simulator.Stop(stop)
    t0, cpu0 = time.perf_counter(), time.process_time()
    ns.Simulator.Run()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0

    # packets put on a wire, every link both ways (fairsim's packet-hops): each one went through
    # its device's queue, which counts what it took in, dropped and still holds
    hops = 0
    for dev in devices:
        q = ns.DynamicCast[ns.PointToPointNetDevice](dev).GetQueue()
        hops += q.GetTotalReceivedPackets() - q.GetTotalDroppedPackets() - q.GetNPackets()
    rx = [ns.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks]
    goodput = [b * 8 / duration for b in rx]
    fwd_dev, rev_dev = (ns.DynamicCast[ns.PointToPointNetDevice](neck_devs.Get(k)) for k in (0, 1))
    result = {
        **cfg,
        "tcp_goodput_bps": goodput[:n],
        "udp_goodput_bps": goodput[n],
        "tcp_goodput_sum_bps": sum(goodput[:n]),
        "jain": jain(goodput[:n]),
        "bottleneck_packets": fwd_dev.GetQueue().GetTotalReceivedPackets(),
        "bottleneck_packets_reverse": rev_dev.GetQueue().GetTotalReceivedPackets(),
        "bottleneck_drops": qdiscs.Get(0).GetStats().nTotalDroppedPackets,
        "bottleneck_drops_reverse": qdiscs.Get(1).GetStats().nTotalDroppedPackets,
        "device_drops": fwd_dev.GetQueue().GetTotalDroppedPackets(),
        # the TCP senders from 1 s on: every RTO expiry, entries into CA_LOSS, retransmissions
        "timeouts": int(count.rtos) if count is not None else None,
        "loss_entries": int(count.loss_entries) if count is not None else None,
        "retransmitted": int(count.retransmissions) if count is not None else None,
        # the bottleneck queue disc's time-averaged packets (the device's 1-packet queue apart)
        "mean_queue": float(count.MeanQueue(1.0, duration)) if count is not None else None,
        "starts": starts,
        "wall_s": wall,
        "run_cpu_s": cpu,  # Simulator::Run()'s CPU time, less sensitive to other work on the machine
        "events": int(ns.Simulator.GetEventCount()),
        "packet_hops": int(hops),
        "delivered_bytes": int(sum(rx)),  # application bytes, TCP and UDP
        "import_s": IMPORT_S,
    }
    ns.Simulator.Destroy()
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qdisc", choices=["fifo", "red", "fqcodel"], default="fifo")
    ap.add_argument("--flows", type=int, default=8)
    ap.add_argument("--cc", choices=["newreno", "cubic"], default="newreno")
    ap.add_argument("--run", type=int, default=1, help="ns-3's RngRun: which draw of start times")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--rate", type=float, default=10, help="bottleneck Mb/s; rates and buffers scale")
    ap.add_argument("--no-sack", action="store_true", help="TcpSocketBase::Sack false")
    ap.add_argument("--classic", action="store_true", help="TcpClassicRecovery, no limited transmit")
    ap.add_argument("--red-no-wait", action="store_true", help="diagnostic: RedQueueDisc::Wait false")
    ap.add_argument("--no-hystart", action="store_true", help="diagnostic: TcpCubic::HyStart false")
    ap.add_argument(
        "--no-rtos", dest="count_rtos", action="store_false", help="no RTO counter (a traced callback)"
    )
    ap.add_argument("--batch", help="a JSON file with a list of configurations (keys as above)")
    args = ap.parse_args()
    if args.batch:
        with open(args.batch) as f:
            configs = json.load(f)
    else:
        configs = [{k: v for k, v in vars(args).items() if k != "batch"}]
    for cfg in configs:
        print(json.dumps(run(cfg)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
