"""The cost of a discipline and a congestion controller written in Python, against the same
algorithm in Rust (docs/performance.md, "Components written in Python"):

    python3 scripts/python_components_cost.py [--rounds 5]

Runs the Generic dumbbell (`scenarios/examples/dumbbell.toml`, 300 s) under `fcfs` and under
the Python FIFO of `tests/python_disciplines.py`, and the TCP dumbbell
(`scenarios/bench/tcp-dumbbell.toml`, 60 s) under `newreno` and under the Python AIMD of
`tests/python_controllers.py`, alternating the builds, and prints the median CPU time of each
and the extra cost per Python call: per packet through a Python queue (its enqueue and its
dequeue), and per ACK a Python controller is told of. The reports are checked to be identical.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import python_controllers  # noqa: E402,F401
import python_disciplines  # noqa: E402,F401

from fairsim import _core  # noqa: E402

CASES = {
    "discipline": (
        "scenarios/examples/dumbbell.toml",
        "G/FCFS",
        "pairs.G/FCFS.qdisc=fcfs",
        'pairs.G/FCFS.qdisc={kind="python", class="python_disciplines:Fifo"}',
    ),
    "controller": (
        "scenarios/bench/tcp-dumbbell.toml",
        "NR/FIFO",
        "pairs.NR/FIFO.transport=newreno",
        'pairs.NR/FIFO.transport={kind="python", class="python_controllers:Aimd", recovery="newreno"}',
    ),
}


def run(path: str, pair: str, override: str) -> tuple[float, dict]:
    text = (ROOT / path).read_text()
    sim = _core.loads(text, path, [override], "set=").simulation(pair, None)
    started = time.process_time()
    while not sim.step(10**7):
        pass
    return time.process_time() - started, json.loads(sim.report_json())


def without_components(report: dict) -> dict:
    """The report less what names the components and the work done (the wall time, and the
    events, which the built-in FCFS saves by chaining its transmissions): the rest must be the
    same."""
    queues = [{k: v for k, v in q.items() if k not in ("qdisc", "qdisc_params")} for q in report["queues"]]
    flows = [
        {k: v for k, v in f.items() if k not in ("transport", "transport_params")} for f in report["flows"]
    ]
    return dict(report, wall_s=None, events=None, queues=queues, flows=flows)


def calls(case: str, report: dict) -> int:
    """Packets through the Python queues, or ACKs the Python controllers were told of."""
    if case == "discipline":
        return sum(q["totals"]["departures"] for q in report["queues"] if q["qdisc"] == "python")
    return sum(f["run_totals"]["acks_received"] for f in report["flows"] if f["transport"] == "python")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    for case, (path, pair, rust, python) in CASES.items():
        times: dict[str, list[float]] = {"rust": [], "python": []}
        reports = {}
        for _ in range(rounds):
            for name, override in (("rust", rust), ("python", python)):
                t, reports[name] = run(path, pair, override)
                times[name].append(t)
        same = without_components(reports["rust"]) == without_components(reports["python"])
        assert same, "the two must give the same run"
        rust_s, python_s = statistics.median(times["rust"]), statistics.median(times["python"])
        n = calls(case, reports["python"])
        unit = "packet" if case == "discipline" else "ACK"
        print(
            f"{case}: {path} {pair}, {rounds} alternated rounds, median CPU time "
            f"rust {rust_s:.3f} s, python {python_s:.3f} s ({python_s / rust_s:.1f}x); "
            f"{n:,} {unit}s through Python: {(python_s - rust_s) / n * 1e6:.2f} us more per {unit}"
        )


if __name__ == "__main__":
    main()
