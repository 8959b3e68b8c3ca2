"""Data-centre switch features (issue 34): DCTCP's threshold marking (`ecn_threshold`) and
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
