"""Congestion controllers written in Python run inside the engine under TCP's reliability layer
(`fairsim.extend`): a Python AIMD gives the built-in Reno's and NewReno's results bit
for bit, a registered constant window runs, and a broken controller fails cleanly."""

import re
from pathlib import Path

import pytest
import python_controllers

import fairsim
from fairsim import _core

from conftest import SMALL, report, scenario_error_at

ROOT = Path(__file__).resolve().parent.parent
TCP_DUMBBELL = (ROOT / "scenarios/bench/tcp-dumbbell.toml").read_text()
AIMD = 'kind="python", class="python_controllers:Aimd"'
CLASSIC = 'stack="classic", initial_cwnd=1.0, counting="packets", ssthresh_from="flight"'


def without_transports(r: dict) -> dict:
    """The report less what names the transports and the wall time."""
    flows = [{k: v for k, v in f.items() if k not in ("transport", "transport_params")} for f in r["flows"]]
    return dict(r, wall_s=None, flows=flows)


@pytest.mark.parametrize(
    "builtin, python",
    [
        # with SACK (the linux stack) a recovery is RFC 6675's whatever `recovery` says
        ('"newreno"', f"{{{AIMD}}}"),
        ('"reno"', f"{{{AIMD}}}"),
        ('{kind="newreno", stack="classic"}', f'{{{AIMD}, recovery="newreno", {CLASSIC}}}'),
    ],
    ids=["newreno-linux", "reno-linux", "newreno-classic"],
)
def test_a_python_aimd_gives_the_builtin_results_bit_for_bit(builtin, python):
    traced = "run.trace=['tcp1', 'tcp2']"
    a = report(TCP_DUMBBELL, "NR/FIFO", [f"pairs.NR/FIFO.transport={builtin}", traced])
    b = report(TCP_DUMBBELL, "NR/FIFO", [f"pairs.NR/FIFO.transport={python}", traced])
    assert "python" in {f["transport"] for f in b["flows"]}
    assert sum(f["run_totals"]["fast_retransmits"] for f in a["flows"]) > 0, "recovery is exercised"
    assert a["traces"] and without_transports(a) == without_transports(b)


def test_a_registered_controller_runs_with_its_parameters_and_the_layers():
    r = report(SMALL, "G/FCFS", ['pairs.G/FCFS.transport={kind="test-const", packets=4, ack_every=1}'])
    ftp = next(f for f in r["flows"] if f["name"] == "ftp")
    params = ftp["transport_params"]
    assert ftp["transport"] == "test-const" and params["packets"] == 4 and params["ack_every"] == 1
    assert params["recovery"] == "newreno" and ftp["run_totals"]["delivered"] > 0


def failure(cls: str) -> str:
    overrides = [f'pairs.G/FCFS.transport={{kind="python", class="python_controllers:{cls}"}}']
    sim = _core.loads(SMALL, "small.toml", overrides, "set=").simulation("G/FCFS", None)
    with pytest.raises(fairsim.FairsimError) as e:
        while not sim.step(10**6):
            pass
    assert not isinstance(e.value, fairsim.InternalError)
    return str(e.value)


def test_a_hook_that_raises_stops_the_run_with_the_users_traceback():
    message = failure("Raises")
    assert "controller python_controllers:Raises: `on_ack` at t = " in message
    assert "ZeroDivisionError: the user's bug" in message and "python_controllers.py" in message


def test_a_window_that_goes_negative_stops_the_run_naming_class_hook_and_value():
    message = failure("WindowGoesNegative")
    assert "controller python_controllers:WindowGoesNegative: `on_start` at t = " in message
    assert "window() returned -3; a window is a whole number of packets, 0 or more" in message


def test_a_name_registered_by_one_class_is_refused_to_another_and_taken_back_by_its_own():
    class Again(python_controllers.Constant):  # the same class defined again: its name back
        pass

    Again.__module__, Again.__qualname__ = "python_controllers", "Constant"
    fairsim.controller("test-const")(Again)
    fairsim.controller("test-const")(python_controllers.Constant)
    with pytest.raises(
        ValueError, match=r"`test-const` is registered already, by python_controllers:Constant"
    ):
        fairsim.controller("test-const")(python_controllers.Raises)


def test_a_controller_whose_window_goes_wrong_stops_the_run():
    message = failure("BadPacing")
    assert re.search(r"`on_start` at t = .* left a window or pacing rate that is wrong", message), message
    assert "pacing_rate() returned -1.0; a rate is positive and finite, or None" in message
    with pytest.raises(fairsim.ScenarioError, match=r"pacing_rate\(\) returned True; a rate is positive"):
        failure("PacesTrue")  # read as the scenario is checked, before the run


@pytest.mark.parametrize(
    "transport, says",
    [
        ('{kind="python", class="python_controllers:NoWindow"}', "does not define window"),
        ('{kind="test-const", packets="many"}', r"packets.*integer, not 'many'"),
        ('{kind="test-const", recovery="vegas"}', "is `tahoe`, `reno` or `newreno`"),
        ('{kind="test-const", recovery="reno"}', "recovery.*governs a recovery without SACK, and this"),
        ('{kind="test-const", recovery_exit="ssthresh"}', "recovery_exit.*set `sack = false` to use it"),
        ('{kind="test-const", min_rto="fast"}', "min_rto"),
        (
            '{kind="python", class="python_controllers:WindowNotANumber"}',
            "window\\(\\) returned 'ten'; a window is",
        ),
        (
            '{kind="python", class="python_controllers:WindowTrue"}',
            "window\\(\\) returned True; a window is a whole",
        ),
    ],
)
def test_bad_controllers_and_parameters_are_scenario_errors_at_their_place(transport, says):
    assert re.search(says, scenario_error_at("pairs.G/FCFS.transport", transport))


def test_registration_refuses_builtin_names_and_classes_without_a_window():
    with pytest.raises(ValueError, match="built-in transport"):
        fairsim.controller("cubic")(python_controllers.Constant)
    with pytest.raises(TypeError, match="does not define window"):
        fairsim.controller("mine")(python_controllers.NoWindow)


def test_a_python_controllers_random_stream_differs_by_seed_and_repeats():
    """On the dumbbell under G/FCFS nothing else is random: only the controller's own stream
    can make two seeds differ."""
    dumbbell = (ROOT / "scenarios/examples/dumbbell.toml").read_text()

    def flows(transport: str, seed: int) -> list:
        return without_transports(report(dumbbell, "G/FCFS", [f"pairs.G/FCFS.transport={transport}"], seed))[
            "flows"
        ]

    fixed = '{kind="test-const", packets=6}'
    assert flows(fixed, 1) == flows(fixed, 2), "without the controller's stream, seeds do not differ here"
    drawn = '{kind="python", class="python_controllers:RandomWindow"}'
    one, again, other = (flows(drawn, s) for s in (1, 1, 2))
    assert one == again, "a seed repeats"
    assert one != other, "another seed draws other numbers"


def test_a_python_controller_repeats_bit_for_bit_and_conserves_packets():
    overrides = ['pairs.G/FCFS.transport={kind="test-const", packets=6}']
    first, again = (report(SMALL, "G/FCFS", overrides) for _ in range(2))
    assert without_transports(first) == without_transports(again)
    for f in first["flows"]:
        t = f["run_totals"]
        assert t["sent"] == t["delivered"] + t["dropped"] + f["in_network"], f["name"]


TWO_FLOWS = """
nodes = ["s1", "s2", "r1", "r2", "d1", "d2"]

[scenario]
name = "two-flows"
description = "two TCP flows through a 10 Mb/s, 10 ms bottleneck (24 ms round trip)"

[run]
duration = "20s"
warmup = "5s"
interval = "5s"
seed = 1

[links]
s1 = { between = ["s1", "r1"], rate = "100Mbps", delay = "1ms" }
s2 = { between = ["s2", "r1"], rate = "100Mbps", delay = "1ms" }
neck = { between = ["r1", "r2"], rate = "10Mbps", delay = "10ms", buffer = 100 }
d1 = { between = ["r2", "d1"], rate = "100Mbps", delay = "1ms" }
d2 = { between = ["r2", "d2"], rate = "100Mbps", delay = "1ms" }

[flows]
tcp1 = { src = "s1", dst = "d1", app = "ftp" }
tcp2 = { src = "s2", dst = "d2", app = "ftp", start = "1s" }

[pairs]
P = { qdisc = "fcfs" }
"""


def goodput_mbps(r: dict) -> float:
    return sum(f["goodput_bps"]["mean"] for f in r["flows"]) / 1e6


@pytest.mark.parametrize("subtract", [True, False])
def test_a_swift_like_controller_works_under_delayed_acks_when_it_takes_out_the_ack_delay(subtract):
    """Under the default delayed ACKs (an ACK every 2 packets, a 200 ms timer), a window of one
    packet waits for the timer: a controller that counts that wait as the network's delay cuts
    its window to 1 and stays there; taking out the ACK's `ack_delay`, it fills the line."""
    transport = (
        f'{{kind="python", class="python_controllers:SwiftLike", subtract_ack_delay={str(subtract).lower()}}}'
    )
    r = report(TWO_FLOWS, "P", [f"pairs.P.transport={transport}"])
    assert r["flows"][0]["transport_params"]["ack_every"] == 2, "the default delayed ACKs"
    if subtract:
        assert goodput_mbps(r) > 9.0, "the line is filled"
    else:
        assert goodput_mbps(r) < 0.5, "collapsed to a packet per delayed-ACK timer"


def test_a_bbr_like_controller_reads_delivery_rate_samples_that_find_the_bottleneck():
    """One flow alone: at 10 Mb/s and 1,000-byte packets the bottleneck delivers 1,250 packets
    a second; the largest delivery-rate sample finds it (the built-in `bbr`'s estimator, which
    gives the same samples), and the window built on it fills the line."""
    python_controllers.BbrLike.made.clear()
    alone = TWO_FLOWS.replace('tcp2 = { src = "s2", dst = "d2", app = "ftp", start = "1s" }', "")
    r = report(alone, "P", ['pairs.P.transport={kind="python", class="python_controllers:BbrLike"}'])
    (estimate,) = [max(c.samples) for c in python_controllers.BbrLike.made if c.samples]
    assert 1_240 < estimate <= 1_250, estimate
    assert goodput_mbps(r) > 9.5


def test_delivery_rate_samples_read_by_a_class_that_did_not_ask_for_them_stop_the_run():
    message = failure("ReadsUnaskedSamples")
    assert re.search(
        r"`on_ack` at t = .*RuntimeError: controller .*ReadsUnaskedSamples reads delivery-rate "
        r"samples: its class sets `samples_delivery = True` to have them",
        message,
        re.S,
    ), message


def test_every_hook_sees_the_connection_as_the_layer_keeps_it():
    """NewReno without SACK (`classic`) on the dumbbell: recovery, partial ACKs and the end of
    recovery happen, and each hook's context shows the connection at that moment."""
    cls = f'{{{AIMD}, recovery="newreno", {CLASSIC}}}'.replace("Aimd", "SeesItsConnection")
    r = report(TCP_DUMBBELL, "NR/FIFO", [f"pairs.NR/FIFO.transport={cls}"])
    size = r["flows"][0]["packet_size"]
    seen = python_controllers.SeesItsConnection.seen
    assert {"on_rtt_sample", "on_recovery_dupack", "on_partial_ack", "on_recovery_end", "after_fill"} <= set(
        seen
    )
    for note in seen["after_fill"]:
        srtt, min_rtt, rto, flight, flight_bytes, una, next_seq = note[1:8]
        assert flight == next_seq - una and flight_bytes == flight * size
        assert srtt is None or (min_rtt is not None and 0.022 < min_rtt <= srtt and rto >= srtt)
    assert all(r[8] for r in seen["on_recovery_dupack"] + seen["on_partial_ack"]), "in recovery"
    # the last flow's final note: its round trips were sampled and it delivered data
    last = seen["after_fill"][-1]
    assert last[1] is not None and last[9] > 100


def test_a_controller_records_series_of_its_own_names_and_its_window_as_cwnd():
    transport = 'pairs.G/FCFS.transport={kind="python", class="python_controllers:RecordsItsOwn"}'
    r = report(SMALL, "G/FCFS", [transport, "run.trace=['ftp']"])
    series = {t["series"] for t in r["traces"] if t["name"] == "ftp"}
    assert {"acked-per-ack", "cwnd", "outstanding"} <= series, series
    cwnd = next(t for t in r["traces"] if t["name"] == "ftp" and t["series"] == "cwnd")
    assert set(cwnd["value"]) == {10.0}


def test_a_controller_context_used_after_its_hook_stops_the_run():
    message = failure("KeepsItsContext")
    assert re.search(
        r"`on_ack` at t = .*RuntimeError: the context of controller .*KeepsItsContext.* is used "
        r"after its hook `on_ack` returned",
        message,
        re.S,
    ), message


def test_a_hook_written_for_another_signature_is_refused_at_its_place():
    where = "pairs.G/FCFS.transport"
    says = scenario_error_at(where, '{kind="python", class="python_controllers:OldSignature"}')
    assert re.search(
        r"OldSignature\.on_rtt_sample\(self, rtt_s, ack, next_seq\) is called as "
        r"on_rtt_sample\(self, rtt_s, ack, next_seq, ctx\)",
        says,
    ), says
