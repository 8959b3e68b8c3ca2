"""The Python API: loading, running, results as DataFrames, errors as exceptions."""

import json

import pandas as pd
import pytest

import fairsim

from conftest import EXAMPLES, SMALL


def test_run_returns_dataframes_for_every_pair(small_path):
    res = fairsim.run(small_path)
    assert res.complete and res.pairs == ["G/FCFS", "G/RD"]
    flows = res.flows
    assert isinstance(flows, pd.DataFrame)
    assert set(flows["pair"]) == {"G/FCFS", "G/RD"}
    assert list(flows[flows.pair == "G/FCFS"]["flow"]) == ["ftp", "telnet", "noise"]
    for col in ["goodput_pps", "goodput_pps_std", "rtt_s", "retransmit_pps", "drop_pps", "share_of_fair"]:
        assert col in flows.columns
    # four measurement intervals of 60 s after the warm-up, plus the warm-up itself
    iv = res.intervals
    assert len(iv[(iv.pair == "G/FCFS") & (iv.flow == "ftp")]) == 5
    assert iv[iv.warmup].start_s.eq(0).all()
    q = res.queues.set_index(["pair", "port"])
    assert q.loc[("G/FCFS", "gw->b"), "qdisc"] == "fcfs"
    assert q.loc[("G/RD", "gw->b"), "qdisc"] == "random_drop"
    assert q.loc[("G/RD", "a->gw"), "qdisc"] == "fcfs", "a host's access port keeps FCFS"
    assert 0.9 < q.loc[("G/FCFS", "gw->b"), "utilisation"] <= 1.0
    assert len(res.fairness) == 2


def test_results_pickle_with_their_scenario(small_path):
    """Results cross processes (multiprocessing, a cache on disk) whole: their tables, and their
    scenario, rebuilt from its text and overrides."""
    import pickle

    r = fairsim.run(small_path, pair="G/FCFS", set=["run.duration=120s"], progress=False)
    back = pickle.loads(pickle.dumps(r))
    pd.testing.assert_frame_equal(back.flows, r.flows)
    assert back.source.overrides == ["run.duration=120s"]
    assert back.source.resolved_toml("G/FCFS", 3) == r.source.resolved_toml("G/FCFS", 3)


def test_summary_is_the_cli_table(small_path):
    text = fairsim.run(small_path, pair="G/FCFS").summary()
    assert "pair G/FCFS" in text and "Jain's fairness index" in text
    assert "ftp" in text and "telnet" in text and "gw->b" in text


def test_same_seed_same_results_other_seed_other_results(small_path):
    def table(seed):
        res = fairsim.run(small_path, pair="G/RD", seed=seed)
        return res.intervals.drop(columns=["seed"])

    pd.testing.assert_frame_equal(table(5), table(5))
    with pytest.raises(AssertionError):
        pd.testing.assert_frame_equal(table(5), table(6))


def test_replications_over_seeds_and_selecting_a_pair(small_path):
    res = fairsim.run(small_path, seed=[1, 2, 3])
    assert len(res) == 6
    assert sorted(res.flows.seed.unique()) == [1, 2, 3]
    only = res["G/RD"]
    assert only.pairs == ["G/RD"] and len(only) == 3
    with pytest.raises(KeyError):
        res["nope"]


def test_run_and_sweep_take_pairs_by_one_name(small_path, tmp_path):
    """`pairs=` in both (one name, or several), `pair=` taken too; both at once is a mistake."""
    short = {"run.duration": "100s", "run.warmup": "20s", "run.interval": "20s"}
    by_pairs = fairsim.run(small_path, pairs="G/RD", set=short)
    assert set(by_pairs.flows["pair"]) == {"G/RD"}
    assert by_pairs.flows.equals(fairsim.run(small_path, pair="G/RD", set=short).flows)
    with pytest.raises(fairsim.FairsimError, match="pairs= or pair="):
        fairsim.run(small_path, pairs="G/RD", pair="G/RD")
    swept = fairsim.sweep(small_path, pairs="G/RD", set=short, out=tmp_path / "a", progress=False)
    assert set(swept.flows["pair"]) == {"G/RD"}
    swept = fairsim.sweep(small_path, pair=["G/RD"], set=short, out=tmp_path / "b", progress=False)
    assert set(swept.flows["pair"]) == {"G/RD"}


def test_overrides_as_dict_or_list():
    sc = fairsim.loads(SMALL)
    a = fairsim.run(sc, pair="G/FCFS", set={"flows.ftp.window": 2, "links.out.rate": "80kbps"})
    b = fairsim.run(sc, pair="G/FCFS", set=["flows.ftp.window=2", "links.out.rate=80kbps"])
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert a.queues.set_index("port").loc["gw->b", "rate_bps"] == 80_000
    assert "window = 2" in sc.with_overrides({"flows.ftp.window": 2}).resolved_toml("G/FCFS")


def test_a_dict_override_is_a_toml_table():
    sc = fairsim.loads(SMALL).with_overrides(
        {"flows.ftp.transport": {"kind": "jk", "window": 3, "min_rto": "200ms"}}
    )
    text = sc.resolved_toml("G/FCFS")
    assert 'kind = "jk"' in text and "window = 3" in text


def test_errors_are_exceptions_with_the_engines_messages():
    with pytest.raises(fairsim.ScenarioError) as e:
        fairsim.loads(SMALL.replace('rate = "56kbps"', 'rate = "56 furlongs"'), file="s.toml")
    (d,) = e.value.diagnostics
    assert d["file"] == "s.toml" and d["line"] == 16 and d["field"] == "links.out.rate"
    assert "unknown rate unit `furlongs`" in str(e.value)
    with pytest.raises(fairsim.FairsimError, match="no pair `X/Y`"):
        fairsim.run(fairsim.loads(SMALL), pair="X/Y")
    with pytest.raises(fairsim.FairsimError, match="no such file"):
        fairsim.load("/no/such/file.toml")
    assert issubclass(fairsim.ScenarioError, fairsim.FairsimError)


def test_bundled_scenarios_load_by_name_and_are_listed():
    sc = fairsim.load("examples/dumbbell")
    assert sc.name == "dumbbell" and "G/FCFS" in sc.pairs
    names = [e.name for e in fairsim.catalogue()["scenarios"]]
    assert "examples/dumbbell" in names and "examples/parking_lot" in names
    assert {e.name for e in fairsim.catalogue()["disciplines"]} >= {"fcfs", "random_drop"}


def test_json_document_has_the_documented_shape(small_path):
    doc = json.loads(fairsim.run(small_path, pair="G/FCFS").to_json())
    assert doc["schema"] == "fairsim.run/2" and doc["complete"] is True
    assert doc["scenario"]["name"] == "small"
    (run,) = doc["runs"]
    assert {"pair", "seed", "flows", "queues", "fairness", "events", "wall_s"} <= run.keys()
    assert "flow_intervals" not in run
    ftp = run["flows"][0]
    assert {"mean", "std", "ci95", "n"} == ftp["goodput_pps"].keys()


def test_examples_run_and_conserve_packets():
    for path in sorted(EXAMPLES.glob("*.toml")):
        # the papers' examples last thousands of seconds: 30 s of each; a data-centre one lasts
        # milliseconds already, and runs whole
        short = {"run.duration": "30s", "run.warmup": "10s", "run.interval": "10s"}
        res = fairsim.run(path, set=short if fairsim.load(path).duration_s > 30 else {})
        assert res.complete, path
        for run in res.runs:
            for f in run["flows"]:
                t = f["run_totals"]
                # a trimmed packet's header reached its sink: sent, neither delivered nor dropped
                assert t["sent"] == t["delivered"] + t["dropped"] + t["trimmed"] + f["in_network"], (
                    path,
                    run["pair"],
                    f["name"],
                )


def test_service_compared_with_the_fluid_reference(small_path):
    res = fairsim.run(small_path, pair="G/FCFS", set={"run.fluid_reference": ["gw->b"]})
    fluid = res.fluid
    assert set(fluid["port"]) == {"gw->b"}
    assert {"ftp", "telnet", "noise"} <= set(fluid["flow"])
    assert {"mean_lag_s", "max_lag_s", "max_behind_bytes", "max_ahead_bytes"} <= set(fluid.columns)
    assert "vs GPS at gw->b" in res.summary()
    with pytest.raises(fairsim.ScenarioError, match="unknown port `nowhere`"):
        fairsim.run(small_path, set={"run.fluid_reference": ["nowhere"]})


def test_every_registered_discipline_runs_a_scenario(small_path):
    names = [e.name for e in fairsim.catalogue()["disciplines"] if not e.python]  # fairsim's own
    assert {"fq", "fqbit", "wfq", "scfq", "virtual_clock", "wf2qplus", "drr", "sfq", "nagle"} <= set(names)
    # the delay-based AQMs' defaults suit fast lines: on 56 kb/s one packet takes 143 ms, more
    # than CoDel's 100 ms interval and PIE's 15 ms target, so these are set for the line
    slow_line = 'target = "300ms", interval = "3s"'
    needs = {
        "loss_list": '{ kind = "loss_list", flow = "ftp", seqs = [3] }',
        "codel": f'{{ kind = "codel", {slow_line} }}',
        "fq_codel": f'{{ kind = "fq_codel", {slow_line} }}',
        "pie": '{ kind = "pie", target = "300ms" }',
    }
    # FRED strikes Generic's fixed window of 5 in an 8-packet buffer as non-adaptive, by design
    # FQ-CoDel's overflow drops up to half the fattest queue at once (Linux's batch): in an
    # 8-packet buffer that is half of Generic's window, which then times out; PIE's random
    # early drops, too, cost Generic (which never backs off) a timeout each
    floor = {"fred": 3, "fq_codel": 3, "pie": 3}
    for q in names:
        over = {'pairs."G/FCFS".qdisc': needs.get(q, q), "run.duration": "120s"}
        if q == "trim":
            # trimming is refused under a transport that cannot use a header: NDP's receiver pulls
            over['pairs."G/FCFS".transport'] = "ndp"
        res = fairsim.run(small_path, pair="G/FCFS", set=over)
        assert res.queues.set_index("port").loc["gw->b", "qdisc"] == q
        assert res.flows.goodput_pps.sum() > floor.get(q, 5), q


def test_sender_and_queue_traces(small_path):
    res = fairsim.run(
        small_path,
        pair="G/FCFS",
        set={"flows.ftp.transport": "reno", "run.trace": ["ftp"], "run.trace_queues": ["gw->b"]},
    )
    t = res.traces
    assert {"cwnd", "ssthresh", "outstanding"} <= set(t[t.name == "ftp"].series)
    queue = t[t.series == "queue"]
    assert len(queue) > 10 and queue.value.max() <= 8, "the buffer holds 8"
    assert res.plot_traces("cwnd").get_ylabel() == "cwnd"
    assert "traces" not in res.to_dict()["runs"][0], "traces stay out of the summary document"


GAUGES = [("csfq", "alpha_bps"), ("red", "average_queue"), ("fred", "average_queue"), ("fcfs", None)]


@pytest.mark.parametrize("qdisc, gauge", GAUGES)
def test_a_traced_queue_records_its_disciplines_gauge(small_path, qdisc, gauge):
    """CSFQ's α and RED's average queue are traced beside the queue length, ending at the
    value the queue table reports."""
    res = fairsim.run(
        small_path,
        pair="G/FCFS",
        set={'pairs."G/FCFS".qdisc': qdisc, "run.trace_queues": ["gw->b"], "run.duration": "120s"},
    )
    series = set(res.traces.series)
    if gauge is None:
        assert series == {"queue"}
        return
    assert series == {"queue", gauge}
    points = res.traces[res.traces.series == gauge]
    assert len(points) > 3 and points.t_s.is_monotonic_increasing
    assert points.value.iloc[-1] == res.queues.set_index("port").loc["gw->b", gauge]


def test_every_registered_transport_carries_ftp_and_telnet(small_path):
    names = [e.name for e in fairsim.catalogue()["transports"] if not e.python]  # fairsim's own
    assert {"generic", "jk", "reno", "newreno", "vegas", "decbit", "pp", "rlm", "none"} <= set(names)
    self_paced = {"rlm"}  # sends layers at its own rates: an unending FTP only
    for t in names:
        if t == "none":
            continue
        # Packet-Pair needs fair queueing, BLT and Bully-Tyrant a push-out switch, NDP and EQDS
        # (without a timeout) a trimming one
        needs = {"pp": "fq", "blt": "pushout", "bully_tyrant": "pushout", "ndp": "trim", "eqds": "trim"}
        pair_qdisc = needs.get(t, "fcfs")
        # Swift's delay targets are a data centre's (tens of µs): on this 56 kb/s path, with its
        # round trip of a tenth of a second, its target (and first timeout) must be the path's.
        # HPCC and RoCE have no timeout unless given one (htsim's, over lossless links): the
        # gateway's 8-packet buffer drops, and a lost last packet would stall them. RoCE's NIC
        # sends at its line's rate unless told (DCQCN lowers it only on ECN marks, which FCFS
        # never makes): here at 32 of the gateway's 56 kb/s, beside the 16 kb/s of noise
        nic = {"rto": "1s", "rate": "32kbps"}
        given = {
            "swift": {"kind": "swift", "base_target": "300ms", "initial_rto": "1s"},
            "hpcc": {"kind": "hpcc", "rto": "1s"},
            "roce": {"kind": "roce", **nic},
            "dcqcn": {"kind": "dcqcn", **nic},
        }.get(t, t)
        over = {"flows.ftp.transport": given, 'pairs."G/FCFS".qdisc': pair_qdisc, "run.duration": "300s"}
        if pair_qdisc == "trim":
            # a receiver-driven transport is refused on a network where nothing trims: the file's
            # other pair must trim too
            over['pairs."G/RD".qdisc'] = "trim"
        if t in self_paced:
            with pytest.raises(fairsim.ScenarioError, match=r"flows.telnet.transport: RLM .* \"ftp\""):
                fairsim.run(small_path, pair="G/FCFS", set=over | {"flows.telnet.transport": t})
        else:
            over["flows.telnet.transport"] = given
        flows = fairsim.run(small_path, pair="G/FCFS", set=over).flows.set_index("flow")
        assert flows.loc["ftp", "transport"] == t
        telnet = flows.loc["telnet", "goodput_pps"]
        if t == "bully_tyrant":
            # no congestion control (BLT's baseline): both deliver, the FTP's restarts take the line
            assert flows.loc["ftp", "goodput_pps"] > 0.5 and telnet > 0, (t, flows.loc[:, "goodput_pps"])
            continue
        assert flows.loc["ftp", "goodput_pps"] > 2, (t, flows.loc["ftp", "goodput_pps"])
        # a Telnet sends a packet every 5 s on average, whatever carries it
        assert 0.1 < telnet < 0.4, (t, telnet)


def _ordered(value):
    """`value` with every table's keys in their order, so that `==` compares the order too."""
    if isinstance(value, dict):
        return [(k, _ordered(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    if isinstance(value, float) and value != value:
        return "nan"  # nan != nan
    return (type(value).__name__, value)


@pytest.mark.slow
def test_resolved_is_the_resolved_toml_as_tomllib_reads_it():
    # every bundled scenario and pair: the same tables, keys, order, types and values
    import tomllib

    from fairsim.catalogue import bundled_names

    for name in bundled_names():
        sc = fairsim.load(name)
        for pair in sc.pairs:
            assert _ordered(sc.resolved(pair, 3)) == _ordered(tomllib.loads(sc.resolved_toml(pair, 3))), (
                name,
                pair,
            )
    # floats JSON cannot write, and a one-key table that only looks like one
    extra = {"links.out.qdisc": {"kind": "red", "max_p": 0.1}, "flows.ftp.weight": 1e300}
    sc = fairsim.loads(SMALL).with_overrides(extra)
    assert _ordered(sc.resolved("G/FCFS")) == _ordered(tomllib.loads(sc.resolved_toml("G/FCFS")))
    from fairsim.api import _special_float

    assert [_special_float({"$float": x}) for x in ("inf", "-inf")] == [float("inf"), float("-inf")]
    assert _special_float({"$float": {"src": "a"}}) == {"$float": {"src": "a"}}, "a flow called $float"


def test_resolved_refuses_a_bad_count_of_ends_by_name():
    sc = fairsim.loads(SMALL)
    for bad in (-1, "2", 1.5, True):
        with pytest.raises(fairsim.FairsimError, match=r"^ends "):
            sc.resolved(ends=bad)
    # more ends than items keeps every item, however large the number
    assert sc.resolved(ends=10**30) == sc.resolved()
