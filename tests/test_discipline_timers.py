"""A discipline's timer goes off whether its queue holds packets or not (an AQM that updates its
state while idle), and an instant of the current nanosecond is taken, not refused."""

from __future__ import annotations

from conftest import report

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
    (q,) = [q for q in report(SPARSE, "ticking", [])["queues"] if q["port"] == "gw->b"]
    # 1,000 ticks in 10 s, less those that find the line busy (it is busy about 5% of the time;
    # the end of that transmission asks instead, late); without the timer the discipline is
    # asked only as packets come and go, about 110 times, and never at a tick's instant
    assert q["qdisc_stats"]["on_time"] >= 900, q["qdisc_stats"]


#: Two senders into one switch whose two output queues share 30 KB, each fed above its line: the
#: first to fill grows to half the buffer, and stands above its share (a third) once the other
#: fills too, taking nothing more until it drains below it.
SHARED = """
nodes = ["s1", "s2", "sw", "d1", "d2"]
[run]
duration = "2s"
warmup = "0s"
interval = "2s"
[links]
a = { between = ["s1", "sw"], rate = "10Mbps", delay = "1ms" }
b = { between = ["s2", "sw"], rate = "10Mbps", delay = "1ms" }
c = { between = ["sw", "d1"], rate = "1Mbps", delay = "1ms", buffer = "unlimited" }
d = { between = ["sw", "d2"], rate = "1Mbps", delay = "1ms", buffer = "unlimited" }
[flows]
one = { src = "s1", dst = "d1", app = "cbr", rate = "2Mbps" }
two = { src = "s2", dst = "d2", app = "cbr", rate = "2Mbps", start = "0.2s" }
[shared_buffer]
size = "30KB"
nodes = ["sw"]
[pairs]
fcfs = { transport = "open_loop", qdisc = "fcfs" }
python = { transport = "open_loop", qdisc = { kind = "python", class = "python_disciplines:Fifo" } }
"""


def test_a_python_fifo_in_a_shared_buffer_is_the_built_in_one():
    def totals(pair):
        return [q["totals"] for q in report(SHARED, pair, [])["queues"] if q["port"] in ("sw->d1", "sw->d2")]

    built_in = totals("fcfs")
    assert all(t["drops"] > 0 for t in built_in), "both queues fill their shares"
    assert totals("python") == built_in


def test_a_mark_is_made_and_counted_only_where_the_transport_reads_it():
    def queue(transport: str, decbit: bool) -> dict:
        marks_all = 'kind = "python", class = "python_disciplines:MarksAll"'
        qdisc = f"{{ {marks_all}, decbit = {str(decbit).lower()} }}"
        overrides = [f"pairs.fcfs.transport={transport}", f"pairs.fcfs.qdisc={qdisc}"]
        (q,) = [q for q in report(SHARED, "fcfs", overrides)["queues"] if q["port"] == "sw->d1"]
        return {"marks": q["totals"]["marks"], **q["qdisc_stats"]}

    plain = queue('"open_loop"', decbit=False)
    assert plain["marks"] == plain["marked"] == 0 < plain["refused"], "not ECN-capable: not marked"
    forced = queue('"open_loop"', decbit=True)
    assert forced["marks"] == forced["marked"] > 0 == forced["refused"], "DECbit's bit goes on any packet"
