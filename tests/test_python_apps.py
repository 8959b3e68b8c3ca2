"""Applications written in Python run inside the engine as timed sources (`fairsim.Application`):
a Python CBR gives the built-in `cbr`'s results bit for bit, a heavy-tailed on-off source draws
from its own stream, a closed-loop one runs over the flow's transport, and a broken one fails
cleanly, naming the class, the hook, the time and the value."""

import json
import re

import pytest
import python_apps

import fairsim
from fairsim import _core

SOURCE = """
nodes = ["src", "sw", "dst"]

[scenario]
name = "one-source"
description = "a source through a 2 Mb/s bottleneck"

[run]
duration = "20s"
warmup = "2s"
interval = "2s"
seed = 1

[links]
in = {{ between = ["src", "sw"], rate = "100Mbps", delay = "1ms" }}
out = {{ between = ["sw", "dst"], rate = "2Mbps", delay = "5ms", buffer = 20 }}

[flows]
src = {{ src = "src", dst = "dst", {app} }}

[pairs]
P = {{ transport = "newreno", qdisc = "fcfs" }}
"""


def python_app(cls: str, **params) -> str:
    """The flow's keys that make it run `python_apps:CLS` with `params`."""
    return ", ".join(
        [f'app = "python", class = "python_apps:{cls}"', *(f"{k} = {v}" for k, v in params.items())]
    )


def report(app: str, seed: int | None = None) -> dict:
    sim = _core.loads(SOURCE.format(app=app), "source.toml", [], "set=").simulation("P", seed)
    while not sim.step(10**6):
        pass
    assert sim.error is None, sim.error
    return json.loads(sim.report_json())


def failure(app: str) -> str:
    sim = _core.loads(SOURCE.format(app=app), "source.toml", [], "set=").simulation("P", None)
    with pytest.raises(fairsim.FairsimError) as e:
        while not sim.step(10**6):
            pass
    assert not isinstance(e.value, fairsim.InternalError)
    return str(e.value)


def refused(app: str) -> str:
    with pytest.raises(fairsim.ScenarioError) as e:
        _core.loads(SOURCE.format(app=app), "source.toml", [], "set=")
    return str(e.value)


def without_app(r: dict) -> dict:
    """The report less what names the application and the wall time."""
    r = dict(r, wall_s=None)
    r["flows"] = [{k: v for k, v in f.items() if not k.startswith("app")} for f in r["flows"]]
    return r


@pytest.mark.parametrize("rate_bps", [1_000_000, 1_500_000, 700_000, 1_234_500])
def test_a_python_cbr_gives_the_builtin_cbrs_results_bit_for_bit(rate_bps):
    """Also at rates whose packet time is no whole number of nanoseconds (1.5 Mb/s: 5,333,333.3
    ns), where a gap in seconds added to `now` without the built-in's rounding sent one packet
    more."""
    builtin = report(f'app = "cbr", rate = "{rate_bps}bps"')
    mine = report(python_app("Cbr", rate_bps=float(rate_bps)))
    assert builtin["flows"][0]["run_totals"]["delivered"] > 1000
    assert without_app(mine) == without_app(builtin)


def test_a_heavy_tailed_on_off_source_draws_from_its_own_stream_and_a_seed_repeats():
    flows = [report('app = "test-onoff", rate_bps = 1e6', seed)["flows"][0] for seed in (1, 1, 2)]
    one, again, other = (f["run_totals"]["sent"] for f in flows)
    assert one == again and one != other
    # on half the time at 1 Mb/s of 1000-byte packets: about 62 a second on average
    assert all(300 < sent < 2500 for sent in (one, other)), (one, other)


def test_a_closed_loop_application_hands_its_bursts_to_the_flows_transport():
    r = report(python_app("Bursts", burst=5, period=0.1))
    flow = r["flows"][0]
    assert flow["transport"] == "newreno"
    # 5 packets every 100 ms for 20 s, the last burst's packets at 19.9 s
    assert flow["run_totals"]["delivered"] == 1000


def test_an_application_that_returns_none_produces_no_more():
    assert report(python_app("Stops"))["flows"][0]["run_totals"]["sent"] == 3


def test_a_file_sent_by_a_python_application_has_its_completion_time():
    """Over a transport, what a source produced once it answered None is a file: its completion
    is counted as the built-in FTP's of the same size."""
    mine = report(python_app("File", packets=50))["flows"][0]
    builtin = report('app = "ftp", size = "50000B"')["flows"][0]
    assert mine["completion_s"] is not None and mine["run_totals"]["delivered"] == 50
    assert mine["completion_s"] == builtin["completion_s"]


@pytest.mark.parametrize(
    "cls, says",
    [
        (
            "GoesBack",
            r"application python_apps:GoesBack: `next` at t = 0s returned -1.0; it returns the next packet's "
            r"instant in seconds, not before 0 s, or None",
        ),
        ("Raises", r"`next` at t = 0s raised:.*KeyError: \"the user's bug\""),
    ],
)
def test_an_application_that_breaks_the_contract_stops_the_run(cls, says):
    message = failure(python_app(cls))
    assert re.search(says, message, re.S), message


@pytest.mark.parametrize(
    "app, says",
    [
        (python_app("NoFlowControl"), r'flow_control is "open" or "closed", not "sometimes"'),
        (python_app("Cbr", rate=2), r"unknown parameter `rate` of python_apps:Cbr"),
        ('app = "test-onoff", shape = "steep"', r"`shape` of test-onoff .* is a number, not 'steep'"),
        ('app = "no-such-app"', r"unknown app `no-such-app`.*test-onoff"),
    ],
)
def test_an_application_that_cannot_be_used_is_a_scenario_error_at_its_place(app, says):
    message = refused(app)
    assert re.search(says, message, re.S), message
    assert "flows.src" in message


def test_registration_refuses_a_built_in_applications_name():
    with pytest.raises(ValueError, match="built-in application"):
        fairsim.application("cbr")(python_apps.Cbr)


def test_the_catalogue_lists_a_registered_application():
    names = {e[0] for e in _core.catalogue()[2]}
    assert {"cbr", "test-onoff"} <= names


def test_sweep_workers_import_the_module_that_registered_an_application():
    """Workers (local processes, Dask) import `registering_modules()` before loading a scenario:
    the module of a registered application is among them, as a discipline's is."""
    assert "python_apps" in fairsim.extend.registering_modules()
