"""Data-centre scenarios drawn from the whole feature space (topology rates and delays,
forwarding, transport with the switches it needs, or any of several disciplines where it takes
drops, workload pattern and sizes, per-link overrides, a failed link, thread count, seed), each
run on one thread and on two, and checked for what must hold in every run:

- no finished transfer is faster than its ideal (slowdown ≥ 1), whatever link was changed;
- every data packet is accounted for: sent = delivered + dropped + trimmed + in the network;
- the results are the same on one thread and on two;
- every transfer has a row with its ends, size and ideal, and a slowdown if it finished;
- every setting is in effect: the overridden line runs at the rate and delay given.

The budget is fixed (`max_examples`) and the draw derandomised, so CI runs the same scenarios
every time; `FAIRSIM_SPACE_EXAMPLES` asks for more on a long run, `FAIRSIM_SPACE_RANDOM` for
another draw each time.
"""

import json
import math
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fairsim

#: Each transport with what its switches must be: receiver-driven ones trim, RDMA ones are
#: lossless (PFC) behind a two-band host interface, DCTCP marks.
TCP_TIMERS = 'ack_every = 1, min_rto = "1ms", clock_granularity = "1ms", initial_rto = "2ms"'
TRANSPORTS = {
    "newreno": (
        f'{{ kind = "newreno", {TCP_TIMERS} }}',
        "fcfs",
        False,
    ),
    "dctcp": (
        f'{{ kind = "dctcp", {TCP_TIMERS} }}',
        "dctcp",
        False,
    ),
    "swift": ('"swift"', "fcfs", False),
    "hpcc": ('"hpcc"', "fcfs", True),
    "roce": ('"roce"', "fcfs", True),
    "dcqcn": ('"dcqcn"', "dctcp", True),
    "ndp": ('"ndp"', "trim", False),
    "eqds": ('"eqds"', "trim", False),
}
#: Disciplines for the switches of transports that take drops: each sends its waiting packets
#: without an event of its own but CoDel's (`node::port`, chained ends), which must not show.
DROPPING = ['"fcfs"', '"red"', '"drr"', '"sfq"', '"fq"', '"wf2qplus"', '"pie"', '"fq_codel"']
#: Generated links of a k = 4 fat-tree: a host's line, ToR-aggregation and aggregation-core.
LINKS = ["h3", "tor0-agg0", "tor2-agg3", "agg0-core0", "agg1-core2", "agg3-core3"]
EXAMPLES = int(os.environ.get("FAIRSIM_SPACE_EXAMPLES", "60"))


@st.composite
def scenarios(draw):
    transport = draw(st.sampled_from(sorted(TRANSPORTS)))
    written, switches, lossless = TRANSPORTS[transport]
    rate = draw(st.sampled_from(["10Gbps", "25Gbps", "100Gbps"]))
    delay = draw(st.sampled_from(["1us", "2us"]))
    qdisc = {
        "fcfs": '"fcfs"',
        "dctcp": '{ kind = "ecn_threshold", k = 30 }',
        "trim": '"trim"',
    }[switches]
    if switches == "fcfs" and not lossless:
        qdisc = draw(st.sampled_from(DROPPING))
    forwarding = draw(st.sampled_from(["ecmp", "spray", "adaptive", "flowlet", "static"]))
    if transport in ("ndp", "eqds"):
        forwarding = draw(st.sampled_from(["ecmp", "spray", "permute"]))
    pattern = draw(st.sampled_from(["poisson", "incast", "permutation"]))
    if pattern == "poisson":
        load = draw(st.sampled_from([0.2, 0.5]))
        workload = f'pattern = "poisson"\nsizes = "websearch"\nload = {load}\nstop = "1500us"'
    elif pattern == "incast":
        senders = draw(st.integers(2, 8))
        names = ", ".join(f'"h{i}"' for i in range(1, senders + 1))
        size = draw(st.sampled_from(["4KB", "60KB"]))
        workload = f'pattern = "incast"\nreceiver = "h0"\nsenders = [{names}]\nsize = "{size}"'
    else:
        workload = f'pattern = "permutation"\nsize = "{draw(st.sampled_from(["9KB", "90KB"]))}"'
    host = f'rate = "{rate}", delay = "{delay}", qdisc = {qdisc}'
    if lossless:
        host += ', forward = { qdisc = { kind = "strict_priority", bands = 2, round_robin = true } }'
        pfc = '[pfc]\nxoff = "60000B"\nxon = "40000B"\n'
    else:
        host += ", buffer = 100"
        pfc = ""
    text = f"""
[run]
duration = "3ms"
forwarding = "{forwarding}"
transfer_rows = true
seed = {draw(st.integers(1, 1000))}
[topology]
kind = "fat_tree"
k = 4
hosts = {{ {host} }}
{pfc}
[workloads.w]
{workload}
packet_size = "{draw(st.sampled_from(["1000B", "4000B"]))}"
transport = {written}
"""
    # a Poisson load is a share of every host's line, so its hosts' lines are of one rate
    link = draw(st.sampled_from(LINKS[1:] if pattern == "poisson" else LINKS))
    sets = {}
    if draw(st.booleans()):
        sets[f"links.{link}.rate"] = draw(st.sampled_from(["1Gbps", "40Gbps"]))
    if draw(st.booleans()):
        sets[f"links.{link}.delay"] = draw(st.sampled_from(["0us", "20us"]))
    if draw(st.booleans()):
        failed = draw(st.sampled_from(LINKS[1:]))
        text = text.replace("transfer_rows = true", 'transfer_rows = true\nfailure_detection = "100us"')
        text += f'\n[[events]]\nat = "500us"\nlink = "{failed}"\naction = "down"\n'
        if draw(st.booleans()):
            text += f'\n[[events]]\nat = "1500us"\nlink = "{failed}"\naction = "up"\n'
    return text, sets


def _without_wall(runs: list[dict]) -> str:
    drop = {"wall_s", "threads", "threads_note", "built_in", "partitions"}

    def clean(x):
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items() if k not in drop and "wall" not in k}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x

    return json.dumps(clean(runs), sort_keys=True, default=str)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="FAIRSIM_SPACE_RANDOM" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(scenarios())
def test_invariants_hold_over_the_data_centre_feature_space(drawn):
    text, sets = drawn
    one = fairsim.run(fairsim.loads(text), set={**sets, "run.threads": 1}, progress=False)
    two = fairsim.run(fairsim.loads(text), set={**sets, "run.threads": 2}, progress=False)
    assert _without_wall(one.runs) == _without_wall(two.runs), "one thread and two differ"
    (run,) = one.runs
    assert run.get("error") is None and run["complete"], run.get("error")
    for f in run["flows"]:
        t = f["run_totals"]
        assert t["sent"] == t["delivered"] + t["dropped"] + t["trimmed"] + f["in_network"], (f["name"], t)
    # a Poisson workload may draw no arrival in its short window: then there is nothing to check
    transfers = one.transfers
    assert len(transfers) > 0 or "poisson" in text
    if len(transfers):
        assert transfers["src"].notna().all() and transfers["bytes"].gt(0).all()
        assert transfers["ideal_fct_s"].gt(0).all()
        finished = transfers[~transfers["unfinished"]]
        assert finished["slowdown"].notna().all()
        assert (finished["slowdown"] >= 1).all(), finished.loc[
            finished["slowdown"] < 1, ["src", "dst", "slowdown"]
        ]
    queues = one.queues.set_index("port")
    for key, value in sets.items():
        _, link, field = key.split(".")
        a, b = (link, "tor" + "?") if link.startswith("h") else link.split("-")
        ports = [p for p in queues.index if p.split("->")[0] in (a, b) and p.split("->")[1] in (a, b)] or [
            p for p in queues.index if a in p.split("->")
        ]
        assert ports, key
        column, want = ("rate_bps", _bps(value)) if field == "rate" else ("delay_s", _seconds(value))
        assert all(math.isclose(queues.loc[p, column], want) for p in ports), (key, queues.loc[ports, column])


def _bps(text: str) -> float:
    return float(text.removesuffix("Gbps")) * 1e9


def _seconds(text: str) -> float:
    return float(text.removesuffix("us")) * 1e-6
