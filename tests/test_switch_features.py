"""Data-centre switch features: DCTCP's threshold marking (`ecn_threshold`) and
strict priority (`strict_priority`, with the flows' `priority`), on whole runs; their rules are
checked packet by packet in the Rust tests beside each discipline."""

import fairsim

DUMBBELL = """
nodes = ["a", "b", "gw", "sink"]

[run]
duration = "2s"
warmup = "0.5s"
interval = "0.5s"

[links]
a = { between = ["a", "gw"], rate = "100Mbps", delay = "100us" }
b = { between = ["b", "gw"], rate = "100Mbps", delay = "100us" }
out = { between = ["gw", "sink"], rate = "10Mbps", delay = "100us", buffer = 100, qdisc = "QDISC" }

[flows]
FLOWS
"""


def dumbbell(qdisc, flows):
    return fairsim.loads(DUMBBELL.replace('"QDISC"', qdisc).replace("FLOWS", flows))


def test_dctcp_through_threshold_marking_keeps_the_queue_near_k_without_a_drop():
    flows = (
        'x = { src = "a", dst = "sink", app = "ftp", transport = "dctcp" }\n'
        'y = { src = "b", dst = "sink", app = "ftp", transport = "dctcp" }'
    )
    res = fairsim.run(dumbbell('{ kind = "ecn_threshold", k = 10 }', flows), progress=False)
    out = res.queues.set_index("port").loc["gw->sink"]
    assert out["drops"] == 0 and out["marks"] > 0
    assert out["utilisation"] > 0.95
    # the queue oscillates about K: on average within a few packets of it, never near the buffer
    assert 5 < out["occupancy_pkts"] < 15 and out["max_occupancy"] < 30, out


def test_strict_priority_serves_the_important_flow_first():
    flows = (
        'hi = { src = "a", dst = "sink", app = "cbr", rate = "6Mbps", priority = 0 }\n'
        'lo = { src = "b", dst = "sink", app = "ftp", transport = "newreno", priority = 1 }'
    )
    res = fairsim.run(dumbbell('"strict_priority"', flows), progress=False)
    by = res.flows.set_index("flow")
    assert by.loc["hi", "goodput_bps"] > 0.99 * 6e6, "the CBR flow gets all it sends"
    assert 3.5e6 < by.loc["lo", "goodput_bps"] < 4.1e6, "TCP gets what is left"
    # the CBR flow waits at most for the packet on the line; under FIFO it waits behind TCP's queue
    fifo = fairsim.run(dumbbell('"fcfs"', flows), progress=False).flows.set_index("flow")
    assert by.loc["hi", "delay_s"] < 0.1 * fifo.loc["hi", "delay_s"]


SWITCH = """
nodes = ["a", "b", "c", "d", "s", "x", "y"]

[run]
duration = "1s"

[links]
a = { between = ["a", "s"], rate = "100Mbps" }
b = { between = ["b", "s"], rate = "100Mbps" }
c = { between = ["c", "s"], rate = "100Mbps" }
d = { between = ["d", "s"], rate = "100Mbps" }
x = { between = ["s", "x"], rate = "10Mbps" }
y = { between = ["s", "y"], rate = "10Mbps" }

[shared_buffer]
size = "90KB"
nodes = ["s"]

[flows]
ax = { src = "a", dst = "x", app = "firehose", rate = "20Mbps", packet_size = "1000B" }
FLOWS
"""


def test_a_shared_buffer_shares_by_dynamic_thresholds():
    # Choudhury & Hahne: with α = 1 one overloaded queue settles at B/2 = 45 KB, two at B/3 each
    # (30 KB); in 1000-byte packets, 45 and 30 (a packet taken if the queue with it fits)
    one = fairsim.run(fairsim.loads(SWITCH.replace("FLOWS", "")), progress=False)
    q = one.queues.set_index("port")
    assert q.loc["s->x", "max_occupancy"] == 45
    two = SWITCH.replace(
        "FLOWS", 'by = { src = "b", dst = "y", app = "firehose", rate = "20Mbps", packet_size = "1000B" }'
    )
    q = fairsim.run(fairsim.loads(two), progress=False).queues.set_index("port")
    assert q.loc["s->x", "max_occupancy"] <= 45 and q.loc["s->y", "max_occupancy"] <= 45
    assert abs(q.loc["s->x", "occupancy_pkts"] - 30) <= 1 and abs(q.loc["s->y", "occupancy_pkts"] - 30) <= 1
    # α = 4: alone, 4B/5 = 72 packets
    q = fairsim.run(
        fairsim.loads(SWITCH.replace("FLOWS", "").replace('nodes = ["s"]', 'nodes = ["s"]\nalpha = 4.0')),
        progress=False,
    ).queues.set_index("port")
    assert q.loc["s->x", "max_occupancy"] == 72
    sc = fairsim.loads(two)
    assert "[shared_buffer]" in sc.resolved_toml("default")
