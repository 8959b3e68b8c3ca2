"""A discipline's timer goes off whether its queue holds packets or not (an AQM that updates its
state while idle), and an instant of the current nanosecond is taken, not refused."""

from __future__ import annotations

import json

from fairsim import _core

SPARSE = """
nodes = ["a", "gw", "b"]
[run]
duration = "10s"
warmup = "0s"
interval = "10s"
[links]
in = { between = ["a", "gw"], rate = "10Mbps", delay = "1ms" }
out = { between = ["gw", "b"], rate = "1Mbps", delay = "1ms" }
[flows]
noise = { src = "a", dst = "b", app = "poisson", rate = "50kbps" }
[pairs]
ticking = { transport = "generic", qdisc = { kind = "python", class = "python_disciplines:Ticking" } }
"""


def test_a_timer_goes_off_while_the_queue_is_empty():
    sim = _core.loads(SPARSE, "sparse.toml", [], "set=").simulation("ticking", None)
    while not sim.step(10**6):
        pass
    assert sim.error is None, sim.error
    (q,) = [q for q in json.loads(sim.report_json())["queues"] if q["port"] == "gw->b"]
    # 1,000 ticks in 10 s, less those that find the line busy (it is busy about 5% of the time;
    # the end of that transmission asks instead, late); without the timer the discipline is
    # asked only as packets come and go, about 110 times, and never at a tick's instant
    assert q["qdisc_stats"]["on_time"] >= 900, q["qdisc_stats"]
