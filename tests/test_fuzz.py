"""Mutation fuzzing of the scenario loader: the bundled scenarios with bytes, lines and values
mutated (`mutations`) are loaded, validated and, when valid, run for a bounded number of events
under every pair, in a memory-capped child process (`api_worker`). A failure is a panic or
`InternalError`, an abort or a signal, a hang (an input taking longer than
FAIRSIM_FUZZ_TIMEOUT, 30 s), a Python exception other than fairsim's own, or an error message
that does not name the file. Failing inputs are saved to tests/fuzz-crashes/ (one file per kind
of failure, the smallest input found), and hypothesis prints the shrunk case (it shrinks for at
most 5 minutes).

It runs for FAIRSIM_FUZZ_SECONDS (10 by default; CI gives it 60), in batches of hypothesis
examples seeded 0, 1, 2, ... from FAIRSIM_FUZZ_SEED (0), so CI sees the same inputs in the same
order every time. To search longer, or elsewhere:

    FAIRSIM_FUZZ_SECONDS=600 FAIRSIM_FUZZ_SEED=7 FAIRSIM_FUZZ_KEEP_GOING=1 pytest -s tests/test_fuzz.py

FAIRSIM_FUZZ_KEEP_GOING=1 does not stop at the first failure: it saves every kind of failure it
meets, unshrunk, and lists them at the end.
"""

import hashlib
import json
import os
import re
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from api_worker import ApiWorker, Outcome, defect
from hypothesis import HealthCheck, given, note, seed, settings
from hypothesis import strategies as st
from mutations import EDGES, EXTREMES, apply, cases, document, kind_of, paths
from sweep_mutations import sweep_table

from conftest import ROOT

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = pytest.mark.slow

SECONDS = float(os.environ.get("FAIRSIM_FUZZ_SECONDS", "10"))
#: The sweep descriptions' share of the time (planning is quicker than running).
SWEEP_SECONDS = SECONDS / 2
SEED = int(os.environ.get("FAIRSIM_FUZZ_SEED", "0"))
TIMEOUT = float(os.environ.get("FAIRSIM_FUZZ_TIMEOUT", "30"))
KEEP_GOING = os.environ.get("FAIRSIM_FUZZ_KEEP_GOING") == "1"
CRASHES = ROOT / "tests" / "fuzz-crashes"

BATCH = 100  # examples per hypothesis run: the budget is checked between runs
STEPS, EVENTS = 3, 50_000  # a valid input runs each pair for at most 150,000 events

BASES = sorted((ROOT / "scenarios").glob("*/*.toml"))


class FuzzFailure(Exception):
    """An input fairsim did not handle; one subclass per kind, which hypothesis keeps apart."""


FAILURES = {kind: type(kind.title(), (FuzzFailure,), {}) for kind in ("panic", "abort", "hang", "exception")}
FAILURES["unnamed"] = type("MessageWithoutFile", (FuzzFailure,), {})


def judge(outcome: Outcome, path: Path) -> str | None:
    """The kind of failure an outcome is, or None."""
    kind = defect(outcome)
    if kind is None and outcome.kind == "rejected" and str(path) not in outcome.message:
        return "unnamed"
    return kind


def signature(kind: str, outcome: Outcome) -> str:
    """What tells failures of one kind apart: the exception and its message, without the names
    and numbers of this input."""
    text = outcome.type + " " + (outcome.message if kind != "abort" else outcome.detail.strip()[-200:])
    return kind + " " + re.sub(r"`[^`]*`|\"[^\"]*\"|'[^']*'|\S*\d\S*", "_", text)[:300]


def save(
    kind: str, outcome: Outcome, base: Path, data: bytes, overrides: list[str], command: str = "validate"
) -> Path:
    """Keeps the smallest input of each kind of failure, with what happened and how to rerun it."""
    CRASHES.mkdir(exist_ok=True)
    name = f"{kind}-{hashlib.sha1(signature(kind, outcome).encode()).hexdigest()[:10]}"
    path = CRASHES / f"{name}.toml"
    if not path.exists() or len(data) <= path.stat().st_size:
        path.write_bytes(data)
        sets = "".join(f" --set {json.dumps(o)}" for o in overrides)
        (CRASHES / f"{name}.txt").write_text(
            f"{kind}: {outcome.type} {outcome.message}\n{outcome.detail}\n"
            f"mutated from {base.relative_to(ROOT)}\n"
            f"rerun: fairsim {command} {path.relative_to(ROOT)}{sets}\n"
        )
    return path


def test_loader_survives_mutated_scenarios(tmp_path):
    deadline = time.monotonic() + SECONDS
    counts: Counter[str] = Counter()
    found: dict[str, Path] = {}

    with ApiWorker(TIMEOUT) as worker:

        @settings(
            max_examples=BATCH,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=True,
        )
        @given(case=cases(BASES))
        def one(case):
            if time.monotonic() > deadline and not found:  # (never while shrinking a failure)
                return
            base, mutations = case
            data, overrides = apply(base.read_bytes(), mutations)
            path = tmp_path / base.name
            path.write_bytes(data)
            outcome = worker.check(str(path), overrides, steps=STEPS, events=EVENTS)
            counts[outcome.kind] += 1
            kind = judge(outcome, path)
            if kind is None:
                return
            saved = save(kind, outcome, base, data, overrides)
            found.setdefault(signature(kind, outcome), saved)
            note(f"mutated text (saved as {saved}):\n{data[:3000].decode(errors='replace')}")
            note(f"overrides: {overrides}")
            if not KEEP_GOING:
                raise FAILURES[kind](
                    f"{outcome.type} {outcome.message}\n{outcome.detail[-2000:]}\ninput saved as {saved}"
                )

        start, batch = time.monotonic(), 0
        while time.monotonic() < deadline:
            seed(SEED * 1_000_003 + batch)(one)()
            batch += 1
        elapsed = time.monotonic() - start

    inputs = sum(counts.values())
    print(f"\nfuzz: {inputs} inputs in {elapsed:.0f} s ({inputs / elapsed:.1f}/s): {dict(counts)}")
    assert inputs > 0
    assert not found, "failures (inputs saved):\n" + "\n".join(f"{s}\n  {p}" for s, p in found.items())


def dotted(path: tuple) -> str:
    """A document path as `--set` writes it (`pairs."G/FCFS".qdisc`)."""
    return ".".join(str(p) if re.fullmatch(r"[A-Za-z0-9_-]+", str(p)) else json.dumps(str(p)) for p in path)


def numeric_fields(base: Path) -> list[str]:
    """The fields of `base` that hold a number or a quantity: what a sweep's axis usually moves."""
    doc = tomllib.loads(base.read_text())
    found = []
    for path in paths(base.read_bytes()):
        value = doc
        for key in path:
            value = value[key]
        if kind_of(value) in ("int", "float", "time", "rate", "size") and not isinstance(value, bool):
            found.append(dotted(path))
    return found


SWEEP_BASES = [
    ROOT / "scenarios" / "examples" / "dumbbell.toml",
    ROOT / "scenarios" / "examples" / "parking_lot.toml",
]


def test_sweep_descriptions_survive_fuzzing(tmp_path):
    """A `[sweep]` table of drawn axes, ranges, seeds and skips, planned and its first runs
    resolved: a clean SweepError naming the file, or a plan; never a hang, a crash, code run."""
    deadline = time.monotonic() + SWEEP_SECONDS
    counts: Counter[str] = Counter()
    found: dict[str, Path] = {}
    fields = {base: [dotted(p) for p in paths(base.read_bytes())] for base in SWEEP_BASES}
    numeric = {base: numeric_fields(base) for base in SWEEP_BASES}

    with ApiWorker(TIMEOUT) as worker:

        @settings(max_examples=BATCH, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(
            case=st.sampled_from(SWEEP_BASES).flatmap(
                lambda b: st.tuples(st.just(b), sweep_table(fields[b], numeric[b]))
            )
        )
        def one(case):
            if time.monotonic() > deadline and not found:
                return
            base, table = case
            doc = tomllib.loads(base.read_text())
            doc["sweep"] = table
            text = document(doc)
            path = tmp_path / base.name
            path.write_bytes(text)
            outcome = worker.check(str(path), sweep=True)
            counts[outcome.kind] += 1
            kind = judge(outcome, path)
            if kind is None:
                return
            saved = save(kind, outcome, base, text, [], command="sweep --dry-run")
            found.setdefault(signature(kind, outcome), saved)
            note(f"[sweep] = {doc['sweep']!r} (saved as {saved})")
            if not KEEP_GOING:
                raise FAILURES[kind](
                    f"{outcome.type} {outcome.message}\n{outcome.detail[-2000:]}\ninput saved as {saved}"
                )

        batch = 0
        while time.monotonic() < deadline:
            seed(SEED * 1_000_003 + batch)(one)()
            batch += 1

    print(f"\nsweep fuzz: {sum(counts.values())} descriptions: {dict(counts)}")
    assert counts["ok"] > 0 and counts["rejected"] > 0, counts
    assert not found, "failures (inputs saved):\n" + "\n".join(f"{s}\n  {p}" for s, p in found.items())


# The harness itself: each kind of failure is seen, or the fuzzer could pass on anything.

CHILDREN = {  # a child that reads its request, then fails in one way
    "abort": ("import os, sys; sys.stdin.readline(); os.abort()", "died", "signal 6"),
    "memory": ("import sys; sys.stdin.readline(); bytearray(8 << 30)", "died", "MemoryError"),
    "hang": ("import sys, time; sys.stdin.readline(); time.sleep(60)", "hang", "no answer"),
}


@pytest.mark.parametrize("name", CHILDREN)
def test_the_worker_reports_aborts_memory_exhaustion_and_hangs(name):
    code, kind, text = CHILDREN[name]
    with ApiWorker(timeout=2, child=[sys.executable, "-c", code]) as worker:
        outcome = worker.check("any.toml")
    assert outcome.kind == kind, outcome
    assert text in outcome.message + outcome.detail
    assert defect(outcome) in ("abort", "hang")


@pytest.mark.parametrize(
    ("outcome", "kind"),
    [
        (Outcome("rejected", "ScenarioError", "x.toml:3:1: run.duration: bad"), None),
        (Outcome("rejected", "FairsimError", "x.toml: no such file"), None),
        (Outcome("rejected", "InternalError", "the engine panicked: oops"), "panic"),
        (Outcome("exception", "PanicException", "cannot sample empty range"), "panic"),
        (Outcome("exception", "UnicodeDecodeError", "invalid byte"), "exception"),
        (Outcome("rejected", "FairsimError", "y.toml: bad"), "unnamed"),
    ],
)
def test_outcomes_are_judged(outcome, kind):
    assert judge(outcome, Path("x.toml")) == kind


def test_the_worker_loads_runs_and_rejects(tmp_path, small_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"nodes = [")
    with ApiWorker(timeout=60) as worker:
        ran = worker.check(str(small_path), ["run.duration=120s"], steps=STEPS, events=EVENTS)
        rejected = worker.check(str(bad))
    assert ran.kind == "ok" and ran.done and ran.events > 0, ran
    assert rejected.kind == "rejected" and rejected.type == "ScenarioError", rejected


def test_value_mutations_go_through_the_text_and_through_overrides():
    base = (ROOT / "scenarios/examples/dumbbell.toml").read_bytes()
    window = next(i for i, p in enumerate(paths(base)) if p == ("flows", "ftp1", "window"))
    huge = EXTREMES.index(2**32 - 1)
    text, sets = apply(base, [("value", window, huge, True, "set")])
    assert (text, sets) == (base, ["flows.ftp1.window=4294967295"])
    text, sets = apply(base, [("value", window, huge, True, "text")])
    assert sets == [] and tomllib.loads(text.decode())["flows"]["ftp1"]["window"] == 2**32 - 1


def test_values_are_replaced_by_edges_of_their_kind():
    assert [kind_of(v) for v in ("10ms", "1.5s", "56kbps", "10 Mb/s", "64KiB", "1000B", "ftp", 3, 0.5)] == [
        "time",
        "time",
        "rate",
        "rate",
        "size",
        "size",
        "str",
        "int",
        "float",
    ]
    base = (ROOT / "scenarios/examples/dumbbell.toml").read_bytes()
    delay = next(i for i, p in enumerate(paths(base)) if p == ("links", "bottleneck", "delay"))
    _, sets = apply(base, [("value", delay, EDGES["time"].index("1ns"), False, "set")])
    assert sets == ["links.bottleneck.delay=1ns"]
