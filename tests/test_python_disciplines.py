"""Disciplines written in Python run inside the engine (`fairsim.extend`): a Python
FIFO and LIFO give the built-in `fcfs`'s and `lifo`'s results bit for bit, registered and
importable classes run where built-in ones do, and a broken one fails cleanly with its class,
hook, time and traceback."""

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import python_controllers  # noqa: F401  (registers test-const, for the sweeps and reproductions)
import python_disciplines

import fairsim
from fairsim import _core

from conftest import SMALL, report, scenario_error_at

ROOT = Path(__file__).resolve().parent.parent
DUMBBELL = (ROOT / "scenarios/examples/dumbbell.toml").read_text()
TCP_DUMBBELL = (ROOT / "scenarios/bench/tcp-dumbbell.toml").read_text()
FIFO = 'qdisc={kind="python", class="python_disciplines:Fifo"}'


def without_components(r: dict) -> dict:
    """The report less what names the components and the work done: the wall time, and the
    events, which the built-in FCFS saves by chaining its transmissions (`node::port`) where a
    discipline written in Python keeps an event at each end (docs/decisions.md), and what the
    run found of the Python discipline's packets held at the end (built-ins are not asked: a LIFO
    in Python is told the bottom of its stack starved, `test_held_at_the_end`)."""
    r = dict(r, wall_s=None, events=None)
    r.pop("warnings", None)
    r["queues"] = [{k: v for k, v in q.items() if k not in ("qdisc", "qdisc_params")} for q in r["queues"]]
    return r


@pytest.mark.parametrize(
    "text, pair",
    [(DUMBBELL, "G/FCFS"), (TCP_DUMBBELL, "NR/FIFO"), (SMALL, "G/FCFS")],
    ids=["dumbbell", "tcp-dumbbell", "small"],
)
@pytest.mark.parametrize("builtin, python", [("fcfs", "Fifo"), ("lifo", "Lifo")])
def test_a_python_discipline_gives_the_results_of_its_rust_port_bit_for_bit(text, pair, builtin, python):
    ported = report(text, pair, [f"pairs.{pair}.qdisc={builtin}"])
    mine = report(text, pair, [f'pairs.{pair}.qdisc={{kind="python", class="python_disciplines:{python}"}}'])
    assert builtin in {q["qdisc"] for q in ported["queues"]}
    in_python = [q for q in mine["queues"] if q["qdisc"] == "python"]
    assert in_python and all(q["qdisc_params"]["class"] == f"python_disciplines:{python}" for q in in_python)
    assert sum(q["totals"]["drops"] for q in in_python) > 0, "the Python queues drop"
    assert without_components(mine) == without_components(ported)


def test_a_push_out_priority_queue_in_python_gives_strict_prioritys_results_bit_for_bit():
    """The push-out reads the room each drop makes: the context shows the queue as the hook has
    left it so far (with a context that still counted a dropped packet, the priority flow got
    2.36 Mb/s of 10: every arrival was dropped after pushing out others)."""
    # the first TCP flow in band 0, the others and the UDP source in band 1
    sets = [f"flows.tcp{i}.priority=1" for i in range(2, 9)] + ["flows.udp.priority=1"]
    ported = report(TCP_DUMBBELL, "NR/FIFO", [*sets, 'pairs.NR/FIFO.qdisc={kind="strict_priority", bands=2}'])
    mine = report(
        TCP_DUMBBELL,
        "NR/FIFO",
        [*sets, 'pairs.NR/FIFO.qdisc={kind="python", class="python_disciplines:PushOutPriority", bands=2}'],
    )
    assert without_components(mine) == without_components(ported)
    pushed = sum(d["count"] for f in mine["flows"] for d in f["drops"] if d["reason"] == "push_out")
    assert pushed > 0, "the low band's packets were pushed out"
    first = next(f for f in mine["flows"] if f["name"] == "tcp1")
    assert first["goodput_bps"]["mean"] > 9.9e6, "the priority flow has the line"


def test_a_python_disciplines_random_stream_differs_by_seed_and_repeats():
    """On the dumbbell under G/FCFS nothing else is random: only the discipline's own stream
    (`ctx.random`) can make two seeds differ."""

    def flows(cls: str, seed: int) -> list:
        qdisc = f'pairs.G/FCFS.qdisc={{kind="python", class="python_disciplines:{cls}"}}'
        return report(DUMBBELL, "G/FCFS", [qdisc], seed=seed)["flows"]

    assert flows("Fifo", 1) == flows("Fifo", 2), "without the discipline's stream, seeds do not differ here"
    one, again, other = (flows("RandomEarly", s) for s in (1, 1, 2))
    assert one == again, "a seed repeats"
    assert one != other, "another seed draws other numbers"
    early = [sum(d["count"] for f in r for d in f["drops"] if d["reason"] == "early") for r in (one, other)]
    assert all(e > 0 for e in early)


def conserved(r: dict) -> None:
    """Every data packet sent is delivered, dropped or still in the network (in a queue the
    Python discipline holds, counted by the engine's slab)."""
    for f in r["flows"]:
        t = f["run_totals"]
        assert t["sent"] == t["delivered"] + t["dropped"] + f["in_network"], f["name"]


@pytest.mark.parametrize("qdisc", ["test-lifo", '{kind="test-drr", quantum=1000}'])
@pytest.mark.slow
def test_registered_disciplines_run_repeatably_and_keep_their_packets(qdisc):
    overrides = [f"pairs.G/FCFS.qdisc={qdisc}"]
    first = report(DUMBBELL, "G/FCFS", overrides, seed=3)
    again = report(DUMBBELL, "G/FCFS", overrides, seed=3)
    assert without_components(first) == without_components(again)
    assert sum(f["run_totals"]["delivered"] for f in first["flows"]) > 0
    conserved(first)
    fcfs = report(DUMBBELL, "G/FCFS", [], seed=3)
    assert without_components(first) != without_components(fcfs), "the discipline changes the run"


def test_a_registered_discipline_resolves_its_parameters_and_refuses_wrong_ones():
    r = report(DUMBBELL, "G/FCFS", ['pairs.G/FCFS.qdisc={kind="test-drr", quantum=900}'])
    assert {"kind": "test-drr", "quantum": 900} in [q["qdisc_params"] for q in r["queues"]]
    with pytest.raises(fairsim.ScenarioError, match=r"quantum.*integer, not 'big'"):
        fairsim.loads(DUMBBELL, set=['pairs.G/FCFS.qdisc={kind="test-drr", quantum="big"}'])
    with pytest.raises(fairsim.ScenarioError, match=r"unknown parameter `weight`.*`quantum`"):
        fairsim.loads(DUMBBELL, set=['pairs.G/FCFS.qdisc={kind="test-drr", weight=2}'])


def test_run_reaches_python_disciplines_on_threads():
    res = fairsim.run(fairsim.loads(SMALL), pair="G/FCFS", seed=[1, 2], set=[f"pairs.G/FCFS.{FIFO}"], jobs=2)
    assert len(res.flows) > 0


def failure(cls: str, text: str = SMALL) -> str:
    sc = _core.loads(
        text,
        "small.toml",
        [f'pairs.G/FCFS.qdisc={{kind="python", class="python_disciplines:{cls}"}}'],
        "set=",
    )
    sim = sc.simulation("G/FCFS", None)
    with pytest.raises(fairsim.FairsimError) as e:
        while not sim.step(10**6):
            pass
    assert not isinstance(e.value, fairsim.InternalError)
    with pytest.raises(fairsim.FairsimError, match="cannot go on"):
        sim.step(10)
    return str(e.value)


def test_a_hook_that_raises_stops_the_run_naming_class_hook_time_and_the_users_traceback():
    message = failure("Raises")
    assert "discipline python_disciplines:Raises: `dequeue` at t = " in message
    assert "RuntimeError: the user's bug" in message
    assert "python_disciplines.py" in message and "raise RuntimeError" in message
    package = str(Path(fairsim.__file__).parent)
    assert package not in message, "no frame of the installed package's own"


@pytest.mark.parametrize(
    "cls, says",
    [
        ("AnswersEnqueue", "`enqueue` at t = .* returned True; it returns nothing"),
        ("AnswersDequeue", "`dequeue` at t = .* returned 'a packet'; it returns a queued packet or None"),
        ("DropsTwice", "`enqueue` at t = .* raised:.*ValueError: <Packet flow .*> is dropped already"),
        ("SendsDropped", "`dequeue` at t = .* returned a packet it no longer holds"),
        ("Swaps", "`dequeue` at t = .* returned <Packet flow .*>, which was never queued here"),
        ("Forgets", "`enqueue` at t = .* neither kept nor dropped <Packet flow .*>: a discipline keeps"),
        ("ForgetsLater", "`dequeue` at t = .* returned None and has forgotten <Packet flow .*>"),
        ("Hoards", r"`enqueue` at t = .* holds 9 packets \(.* bytes\) at port gw->b, more than its buffer"),
        ("WakesInEnqueue", r"`enqueue` at t = .*`ctx.wake_at` is asked in `dequeue`, not in `enqueue`"),
        (
            "WakesInThePast",
            r"`dequeue` at t = .*`ctx.wake_at\(.*\)` at .* s: the time is in seconds, not before now",
        ),
    ],
)
def test_a_hook_that_breaks_the_contract_stops_the_run(cls, says):
    import re

    message = failure(cls)
    assert re.search(says, message, re.S), message


def test_a_context_used_after_its_hook_stops_the_run_naming_the_class_and_hook():
    """A context is one object, reused for every call: kept and used outside a hook (here in
    `stats`, when the report is made) it would read stale numbers and its drops would never be
    carried out."""
    qdisc = 'pairs.G/FCFS.qdisc={kind="python", class="python_disciplines:KeepsItsContext"}'
    with pytest.raises(fairsim.FairsimError) as e:
        report(SMALL, "G/FCFS", [qdisc])
    assert re.search(
        r"`stats` at t = .*RuntimeError: the context of discipline .*KeepsItsContext.* is used after "
        r"its hook `(enqueue|dequeue)` returned",
        str(e.value),
        re.S,
    ), str(e.value)


@pytest.mark.parametrize(
    "qdisc, says",
    [
        ('{kind="python", class="python_disciplines:NoDequeue"}', "does not define dequeue"),
        ('{kind="python", class="no_such_module:Lifo"}', "cannot import `no_such_module`"),
        ('{kind="python", class="python_disciplines:Nowhere"}', "has no `Nowhere`"),
        ('{kind="python", class="python_disciplines"}', "is not `module:Class`"),
        ('{kind="python", class="python_disciplines:BadInit"}', "ValueError: cannot build"),
        ('"python"', "names its class"),
    ],
)
def test_a_class_that_cannot_be_used_is_a_scenario_error_at_its_place(qdisc, says):
    assert re.search(says, scenario_error_at("pairs.G/FCFS.qdisc", qdisc))


def test_registration_refuses_what_could_not_work():
    with pytest.raises(ValueError, match="built-in"):
        fairsim.discipline("fcfs")(python_disciplines.Fifo)
    with pytest.raises(TypeError, match=r"not a subclass of fairsim\.Discipline"):
        fairsim.discipline("mine")(dict)
    with pytest.raises(TypeError, match="does not define dequeue"):
        fairsim.discipline("mine")(python_disciplines.NoDequeue)


@pytest.mark.slow
@pytest.mark.parametrize("stuck", ["LoopsForever", "SleepsForever"])
def test_ctrl_c_stops_a_hook_that_never_returns_and_keeps_what_ran(tmp_path, stuck):
    """A run steps in chunks and looks for Ctrl-C between them; a hook that loops for ever, or
    blocks in C, never hands its thread back, so Ctrl-C raises `fairsim._core.Stopped` inside it
    (the runs are on the main thread, where the signal's handler runs): exit 130, and the run's
    results so far are written, marked incomplete."""
    import signal

    from conftest import busy_for, ctrl_c_able

    path, out, asleep = tmp_path / "small.toml", tmp_path / "partial", tmp_path / "asleep"
    path.write_text(SMALL)
    qdisc = f'pairs.G/FCFS.qdisc={{kind="python", class="python_disciplines:{stuck}"}}'
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fairsim.cli",
            "run",
            str(path),
            "--pair",
            "G/FCFS",
            "--set",
            qdisc,
            "--out",
            out,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parent,
        env={
            **__import__("os").environ,
            "PYTHONPATH": str(Path(__file__).parent),
            "FAIRSIM_TEST_ASLEEP": str(asleep),
        },
        preexec_fn=ctrl_c_able,
    )
    if stuck == "SleepsForever":
        while not asleep.exists() and proc.poll() is None:  # asleep in its hook, in C
            time.sleep(0.05)
    else:
        busy_for(proc, 3.0)  # CPU time: past start-up and deep in the loop, however busy the machine
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=600)  # a guard against a hang, not a deadline
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert "not run" not in stdout + stderr, "what ran is shown as partial, not as never run"
    doc = json.loads((out / "run.json").read_text())
    assert doc["complete"] is False and 1.0 <= doc["runs"][0]["simulated_s"] < 300
    assert doc["runs"][0]["events"] > 0, "the events of the chunk the hook stopped are counted"


@pytest.mark.slow
@pytest.mark.parametrize("stuck", ["LoopsForever", "SleepsForever"])
def test_a_sweeps_time_limit_stops_a_hook_that_never_returns(tmp_path, stuck):
    # in Python's loop, or blocked in C (`time.sleep`), which no exception reaches
    qdisc = f'{{kind="python", class="python_disciplines:{stuck}"}}'
    res = fairsim.sweep(
        fairsim.loads(SMALL),
        axes={"pairs.G/FCFS.qdisc": [qdisc]},
        pairs="G/FCFS",
        time_limit=1.0,
        out=tmp_path / "s",
        progress=False,
        jobs=1,
    )
    (run,) = res.runs.itertuples()
    assert run.status == "timeout" and "inside a Python hook" in run.error, run.error


def test_the_command_line_reports_a_failing_discipline_and_exits_2(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    qdisc = 'pairs.G/FCFS.qdisc={kind="python", class="python_disciplines:Raises"}'
    proc = subprocess.run(
        [sys.executable, "-m", "fairsim.cli", "run", str(path), "--pair", "G/FCFS", "--set", qdisc],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
        env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).parent)},
    )
    assert proc.returncode == 2, proc.stderr
    assert "python_disciplines:Raises" in proc.stderr and "RuntimeError: the user's bug" in proc.stderr
    assert "Traceback" in proc.stderr and str(Path(fairsim.__file__).parent) not in proc.stderr


SHORT = {"run.duration": "100s", "run.warmup": "20s", "run.interval": "20s"}
AXES = {
    "pairs.G/FCFS.qdisc": ["test-lifo", '{kind="test-drr", quantum=600}'],
    "pairs.G/FCFS.transport": ["generic", '{kind="test-const", packets=6}'],
}


@pytest.mark.slow
def test_a_sweep_runs_python_disciplines_on_local_processes_and_a_dask_cluster(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    from fairsim.sweeps import sweep

    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    local = sweep(path, axes=AXES, seeds=2, set=SHORT, out=tmp_path / "l", progress=False, jobs=2)
    # 2 × 2 values, 2 seeds, 2 pairs
    assert local.complete and len(local.runs) == 16 and set(local.runs["status"]) == {"ok"}
    # the workers are other processes: they import the registering module from PYTHONPATH
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    with cluster, distributed.Client(cluster) as client:
        remote = sweep(path, axes=AXES, seeds=2, set=SHORT, client=client, out=tmp_path / "c", progress=False)
    assert remote.complete and set(remote.runs["status"]) == {"ok"}
    key = ["run_id", "flow"]
    a = remote.flows.sort_values(key).reset_index(drop=True)
    b = local.flows.sort_values(key).reset_index(drop=True)
    import pandas as pd

    pd.testing.assert_frame_equal(a, b)


def test_a_worker_that_cannot_import_the_registering_module_says_so():
    from fairsim.sweeps.worker import FAILED, Task, run_task

    task = Task(
        "r", SMALL, "small.toml", ("pairs.G/FCFS.qdisc=test-lifo",), "G/FCFS", 1, imports=("no_such_module",)
    )
    outcome = run_task(task)
    assert outcome.status == FAILED
    assert "cannot import `no_such_module`: ModuleNotFoundError" in outcome.error


@pytest.mark.slow
def test_a_reproduction_runs_python_components_as_pairs_added_to_the_papers(tmp_path):
    """`fairsim --import MODULE reproduce PAPER --pair NAME=TABLE`, on worker processes."""
    pairs = [
        'G/LIFO={ transport = "generic", qdisc = "test-lifo" }',
        'G/PYDRR={ transport = "generic", qdisc = { kind = "test-drr", quantum = 1000 } }',
        'CONST/FQ={ transport = { kind = "test-const", packets = 5 }, qdisc = "fq" }',
    ]
    command = [
        sys.executable,
        "-m",
        "fairsim.cli",
        "--import",
        "python_disciplines",
        "--import",
        "python_controllers",
    ]
    command += [
        "reproduce",
        "dks89",
        "--quick",
        "-e",
        "s2",
        "--json",
        "--no-progress",
        "--out",
        str(tmp_path / "r"),
    ]
    command += [a for p in pairs for a in ("--pair", p)]
    env = {**__import__("os").environ, "PYTHONPATH": str(Path(__file__).parent)}
    proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["claims"], "the paper's claims are still judged"
    report = (tmp_path / "r" / "report.md").read_text()
    assert "s2: the pairs added beside the paper's" in report
    assert (tmp_path / "r" / "figures" / "s2-added.svg").is_file()
    bad = subprocess.run([*command[:-1], "nonsense"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert bad.returncode == 2 and "write NAME=TABLE" in bad.stderr


def test_a_discipline_may_report_figures_and_a_gauge_as_built_in_ones_do():
    overrides = [
        'pairs.G/FCFS.qdisc={kind="python", class="python_disciplines:Counting"}',
        'run.trace_queues=["gw->b"]',
    ]
    r = report(SMALL, "G/FCFS", overrides)
    (q,) = [q for q in r["queues"] if q["port"] == "gw->b"]
    assert list(q["qdisc_stats"]) == ["arrived", "held"]
    assert q["qdisc_stats"]["arrived"] >= q["totals"]["arrivals"] > 0
    (held,) = [t for t in r["traces"] if t["name"] == "gw->b" and t["series"] == "held"]
    (queue,) = [t for t in r["traces"] if t["name"] == "gw->b" and t["series"] == "queue"]
    assert max(held["value"]) == max(queue["value"]) > 0, "the gauge is the queue it holds"


SHAPED = """
nodes = ["src", "sw", "dst"]

[scenario]
name = "shaped"
description = "a 1.5 Mb/s CBR source through a 1 Mb/s token bucket (one packet deep) at a 10 Mb/s port"

[run]
duration = "1s"

[links]
in = { between = ["src", "sw"], rate = "100Mbps", delay = "1ms" }

[links.out]
between = ["sw", "dst"]
rate = "10Mbps"
delay = "1ms"
buffer = 1000
qdisc = { kind = "python", class = "python_disciplines:TokenBucket" }

[flows]
cbr = { src = "src", dst = "dst", app = "cbr", rate = "1.5Mbps", packet_size = "1000B" }
"""


@pytest.mark.parametrize("timer", [True, False])
def test_a_token_bucket_on_its_timer_sends_at_its_rate_when_the_analytic_shaper_does(timer):
    """The CBR source's packet k reaches the shaper at a_k = 1.08 + 16k/3 ms (0.08 ms on the
    100 Mb/s line, 1 ms of propagation); a 1 Mb/s bucket one packet deep, full at the start,
    lets packet k leave at d_k = max(a_k, d_(k-1) + 8 ms) = a_0 + 8k ms. On its timer the shaper
    sends each within one packet time (0.8 ms at 10 Mb/s) of that; without it, a packet waits
    for the next arrival (up to 5.3 ms) and the shaper falls behind its rate."""
    TokenBucket = python_disciplines.TokenBucket
    TokenBucket.made.clear()
    report(SHAPED, "default", [f"links.out.qdisc.timer={str(timer).lower()}"])
    (forward,) = [q for q in TokenBucket.made if q.departures]
    a0 = 0.001 + 1000 * 8 / 100e6
    lateness = [t - (a0 + 0.008 * k) for k, (seq, t) in enumerate(forward.departures)]
    assert [seq for seq, _ in forward.departures] == list(range(len(forward.departures)))
    if timer:
        assert len(forward.departures) == 125, "1 Mb/s for 1 s, less the first packet's way in"
        assert all(-1e-9 <= late < 0.0008 for late in lateness), (min(lateness), max(lateness))
    else:
        assert max(lateness) > 0.0008 * 5, "without the timer the shaper falls behind"


def test_a_disciplines_port_names_itself_and_every_flows_ends_and_weight():
    WeighsByFlow = python_disciplines.WeighsByFlow
    WeighsByFlow.seen.clear()
    qdisc = 'pairs.G/FCFS.qdisc={kind="python", class="python_disciplines:WeighsByFlow"}'
    report(SMALL, "G/FCFS", ["flows.ftp.weight=3", qdisc])
    assert {p.name for p in WeighsByFlow.seen} == {"gw->a", "gw->b"}, "the gateway's ports (hosts' are FCFS)"
    port = next(p for p in WeighsByFlow.seen if p.name == "gw->b")
    assert port.rate_bps == 56_000
    ftp, telnet, noise = port.flows
    assert (ftp.name, ftp.src, ftp.dst, ftp.weight, ftp.packet_size) == ("ftp", "a", "b", 3.0, 1000)
    assert (telnet.name, telnet.weight, noise.name) == ("telnet", 1.0, "noise")
    assert all(p.flows is port.flows for p in WeighsByFlow.seen), "one tuple shared by every port"


def test_the_packages_example_registers_a_name_no_built_in_takes():
    import re

    import fairsim.extend

    (name,) = re.findall(r'@fairsim\.discipline\("([^"]+)"\)', fairsim.extend.__doc__)
    qdiscs, _, _ = _core.catalogue()
    assert name not in {entry[0] for entry in qdiscs}, f"`{name}` is a built-in discipline's name"
