"""fairsim's speed and memory beside htsim's on the same networks (docs/performance.md, *Side by
side with htsim*): the 256-flow dumbbell and the dumbbell at a 200 µs round trip with 8, 64 and
256 flows, the k = 8 and k = 16 TCP permutations and the k = 8 DCTCP permutation, NDP's and
EQDS's k = 8 permutation and web search at 60%, NDP's and RoCE's incast of 64 senders of 256 KB,
and RoCE's and HPCC's over PFC, each simulator's whole process timed, rounds alternated.

    python3 validation/htsim/speed.py [--rounds 5] [--case dumbbell k8 k16 dctcp ndp-perm ...] [--bench PATH]
        [--memory [--all-threads]]

The NDP and EQDS cases run the matrices of `ndp_matrices.py` (seed 1) on `ndp-permutation.toml`'s
fabric and htsim's `htsim_ndp -strat rand` and `htsim_eqds` built by `build.sh`; the RoCE and HPCC
cases the same matrices on `roce-fabric.toml` and `htsim_roce`/`htsim_hpcc` (HPCC as htsim's, with
`htsim_compat`; htsim_hpcc writes a line per ACK as shipped, which its CPU time includes).

fairsim's side is its engine alone, the Rust bench (`examples/bench.rs`: loading, the run and its
report, no Python), built here unless `--bench` names one; htsim's is `htsim_dumbbell` and
`htsim_tcp -ackpath` (`FAIRSIM_HTSIM_DUMBBELL`, `FAIRSIM_HTSIM_TCP`, or the validation cache that
docs/validation.md describes). The networks and command lines are dumbbell.py's and compare.py's,
seed 1. Each round runs fairsim then htsim, so that a change in the machine's load hits both
alike; CPU time is user + system time from the kernel's accounting of the finished process
(`wait4`), memory the peak resident set from GNU time (`/usr/bin/time`, Debian's `time`). Prints
each round, then per case the medians with their ranges and fairsim's speed-up (htsim's median
CPU time over fairsim's), and fairsim's events, packet-hops and engine nanoseconds per hop. Run
it on an otherwise idle machine: a ratio taken under load is not the simulators'.

`--memory` also runs, each round, the same run as a user runs it, the whole `fairsim
run` process on the bench's scenario and overrides, whose CPU time and htsim's over it join the
speed table, and the interpreter's share of it, Python with
fairsim imported (`python -c "import fairsim"`), and prints a second table: their peaks, the
engine's own (the whole process less the interpreter's, round by round), the same through the
Python API, `fairsim.run` called by a script (`api_run.py`) on the same scenario and overrides,
the bench's and htsim's, and whether the engine's own through the API, the process the memory
aim is stated for, is at most htsim's whole process (the command adds its own modules, click's and
rich's tables, which the API does not import). The Python sides read their
modules' compiled bytecode, as an installed package does (a cache of the case's own, filled by
one unmeasured run of each before the rounds), even where `PYTHONDONTWRITEBYTECODE` is set:
compiling the modules' source at every start cost `fairsim run` about 1 MB more than it cost
the interpreter alone (docs/decisions.md). `fairsim run` and `fairsim.run` go on one thread
there (`run.threads=1`), like the bench and htsim: by default a run may take every core where
that pays, and a run split into partitions holds a copy of itself per partition.
`--all-threads` also runs it with the default threads, in a column of its own. Run it with the
Python that has fairsim installed: the `fairsim` program is the one beside it. A case whose
htsim program is not there is measured on fairsim's side alone, its htsim cells left empty."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import compare
import dumbbell
import roce

ROOT = compare.HERE.parent.parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fairsim-validation/htsim/bin"
DUMBBELL_FLOWS = 256
#: `--memory`: the interpreter's share of a `fairsim run` process, Python with fairsim imported
INTERPRETER = [sys.executable, "-c", "import fairsim"]
#: what a round runs: the bench, htsim and (`--memory`) `fairsim run`, the same through the
#: Python API (`fairsim.run`) and the interpreter alone
SIDES = ("fairsim", "htsim", "fairsim run", "fairsim.run", "interpreter", "fairsim run, all threads")
#: the sides that are Python: run with their modules' bytecode (`with_bytecode`)
PYTHON_SIDES = ("fairsim run", "fairsim.run", "interpreter", "fairsim run, all threads")
#: `--memory`: `fairsim run` on one thread, as the bench and htsim run (`--all-threads`: also not)
ONE_THREAD = "run.threads=1"
#: `--memory`'s `fairsim.run` side: a script that calls the API on a scenario and overrides
API_RUN = Path(__file__).resolve().with_name("api_run.py")


@dataclass(frozen=True)
class Case:
    """One network run by both: fairsim's scenario (None: dumbbell.py's), htsim's program (its
    environment variable, its name in the cache) with its options, and the fat-tree's k."""

    title: str
    end_ms: float
    scenario: Path | None = None
    htsim: tuple[str, str] = ("FAIRSIM_HTSIM_TCP", "htsim_tcp")
    options: tuple[str, ...] = ("-ackpath",)
    k: int = 8
    #: a data-centre transport's case: `ndp_matrices.py`'s matrix (its arguments), fairsim's
    #: overrides of its fabric, its workload's transport, and for RDMA the payload of htsim's
    #: packets (the matrix's sizes given to fairsim as htsim's packets of 9,064 bytes)
    matrix: tuple[str, ...] = ()
    sets: tuple[tuple[str, str], ...] = ()
    transport: str = '{ kind = "ndp", initial_window = 30 }'
    payload: int | None = None
    #: a dumbbell's flows and network (dumbbell.py's)
    flows: int = DUMBBELL_FLOWS
    net: dumbbell.Net = dumbbell.REFERENCE


#: htsim's side of a dumbbell: its program's environment variable and its name in the cache
HTSIM_DUMBBELL = ("FAIRSIM_HTSIM_DUMBBELL", "htsim_dumbbell")
CASES = {
    "dumbbell": Case("dumbbell, 256 flows", 10_000.0, htsim=HTSIM_DUMBBELL, options=()),
    "k8": Case("k = 8 TCP permutation", 100.0, compare.SCENARIO),
    "k16": Case("k = 16 TCP permutation", 20.0, compare.SCENARIO, k=16),
    "dctcp": Case("k = 8 DCTCP permutation", 100.0, compare.DCTCP_SCENARIO, options=("-ackpath", "-dctcp")),
}
for flows in (8, 64, 256):
    CASES[f"short{flows}"] = Case(
        f"dumbbell, 200 µs round trip, {flows} flows",
        2_000.0,
        htsim=HTSIM_DUMBBELL,
        options=(),
        flows=flows,
        net=dumbbell.SHORT_RTT,
    )
NDP_FABRIC = compare.HERE / "ndp-permutation.toml"
NDP = (("FAIRSIM_HTSIM_NDP", "htsim_ndp"), ("-nodes", "128", "-strat", "rand", "-q", "15", "-cwnd", "30"))
EQDS = (("FAIRSIM_HTSIM_EQDS", "htsim_eqds"), ("-q", "35", "-cwnd", "50", "-paths", "64"))
EQDS_SETS = (
    ("workloads.m.packet_size", "4150B"),
    ("workloads.m.transport", '{ kind = "eqds", speculative_window = 50 }'),
    ("topology.hosts.buffer", "145250B"),
)
PERM = ("perm", "--nodes", "128", "--size", "1000000000", "--seed", "1")
WEB = ("websearch", "--nodes", "128", "--load", "0.6", "--duration-ms", "10", "--seed", "1")
INCAST = ("incast", "--nodes", "128", "--senders", "64", "--size", "262144", "--seed", "1")
for name, title, end, matrix, (htsim, options), sets in (
    ("ndp-perm", "k = 8 NDP permutation", 10.0, PERM, NDP, ()),
    ("ndp-incast", "k = 8 NDP incast, 64 × 256 KB", 5.0, INCAST, NDP, ()),
    ("ndp-web", "k = 8 NDP web search, 60%", 30.0, WEB, NDP, ()),
    ("eqds-perm", "k = 8 EQDS permutation", 10.0, PERM, EQDS, EQDS_SETS),
):
    CASES[name] = Case(title, end, NDP_FABRIC, htsim, options, matrix=matrix, sets=sets)
ROCE_FABRIC = compare.HERE / "roce-fabric.toml"
LOSSLESS = ("-nodes", "128", "-strat", "ecmp_host", "-paths", "256", "-q", "1000")
LOSSLESS += ("-pfc_thresholds", "12", "15")
HPCC = '{ kind = "hpcc", htsim_compat = true }'
for name, title, end, matrix, program, transport in (
    ("roce-perm", "k = 8 RoCE permutation, PFC", 10.0, PERM, "roce", '"roce"'),
    ("roce-incast", "k = 8 RoCE incast, 64 × 256 KB, PFC", 5.0, INCAST, "roce", '"roce"'),
    ("roce-web", "k = 8 RoCE web search, 60%, PFC", 30.0, WEB, "roce", '"roce"'),
    ("hpcc-perm", "k = 8 HPCC permutation, PFC", 10.0, PERM, "hpcc", HPCC),
    ("hpcc-web", "k = 8 HPCC web search, 60%, PFC", 30.0, WEB, "hpcc", HPCC),
):
    htsim = (f"FAIRSIM_HTSIM_{program.upper()}", f"htsim_{program}")
    CASES[name] = Case(
        title, end, ROCE_FABRIC, htsim, LOSSLESS, matrix=matrix, transport=transport, payload=9000
    )


def with_bytecode(cache: str) -> dict[str, str]:
    """The environment for `--memory`'s Python sides: modules read from compiled bytecode kept in
    `cache`, as an installed package has it (pip compiles a wheel's modules when it installs
    them), not compiled from source at every start, which `PYTHONDONTWRITEBYTECODE` asks for."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPYCACHEPREFIX": cache}


def measured(command: list[str], env: dict[str, str] | None = None) -> tuple[str, float, float]:
    """Runs `command` to its end: its output, CPU seconds (user + system) and peak memory (MB).

    The memory is GNU time's report of the command alone (`/usr/bin/time -f %M`): a process forked
    from this one and then exec'd counts this interpreter's own resident set in its peak (Linux
    keeps the larger of the two at the exec), which made small runs look as large as the script.
    CPU time is the kernel's accounting of the finished process and what it waited for (`wait4`)."""
    # in a folder of its own: htsim writes its `idmap.txt` where it runs
    # absolute, not resolved: a virtual environment's python is a link that must stay its own
    program = str(Path(command[0]).absolute()) if Path(command[0]).exists() else command[0]
    with (
        tempfile.TemporaryFile("w+") as out,
        tempfile.NamedTemporaryFile("r") as peak,
        tempfile.TemporaryDirectory() as here,
    ):
        timed = ["/usr/bin/time", "-f", "%M", "-o", peak.name, program, *command[1:]]
        proc = subprocess.Popen(timed, stdout=out, stderr=subprocess.DEVNULL, cwd=here, env=env)
        _, status, usage = os.wait4(proc.pid, 0)  # its own resource usage, not all children's
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait
        if proc.returncode != 0:
            raise SystemExit(f"{command[0]} exited with {proc.returncode}: {' '.join(command)}")
        out.seek(0)
        kilobytes = int(peak.read().split()[-1])
        return out.read(), usage.ru_utime + usage.ru_stime, kilobytes / 1024


def engine_figures(output: str) -> tuple[int, int, float]:
    """The bench's row: events, packet-hops and the engine's wall seconds (the run alone)."""
    lines = output.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["pair", "events"])
    row = lines[header + 1].split()  # the scenario's one pair
    return int(row[1]), int(row[2]), float(row[4])


def commands(case: Case, bench: str, scratch: str) -> tuple[list[str], list[str]]:
    """fairsim's and htsim's command lines for `case`, seed 1."""
    variable, program = case.htsim
    htsim = os.environ.get(variable) or str(CACHE / program)
    overrides = {**compare.one_interval(case.end_ms), "run.seed": "1"}
    if case.matrix:
        matrix = Path(scratch) / "matrix.cm"
        generator = [sys.executable, str(compare.HERE / "ndp_matrices.py"), *case.matrix, "-o", str(matrix)]
        subprocess.run(generator, check=True, stdout=subprocess.DEVNULL)
        ours = matrix
        if case.payload:
            ours = roce.wire_matrix(str(matrix), case.payload, 9064, Path(scratch) / "wire.cm")
        # the matrix in place of the scenario's own workload; EQDS's settings over NDP's
        m = f'pattern = "matrix", file = "{ours}", packet_size = "9064B", transport = {case.transport}'
        workload = f"{{ m = {{ {m} }} }}"
        overrides.update({"workloads": workload, **dict(case.sets)})
        command = [
            htsim,
            *case.options,
            "-seed",
            "1",
            "-tm",
            str(matrix),
            "-end",
            str(round(case.end_ms * 1000)),
        ]
        theirs = [*command, "-o", f"{scratch}/log"]
        scenario = case.scenario
    elif case.scenario is None:
        scenario = Path(scratch) / "dumbbell.toml"
        scenario.write_text(dumbbell.scenario_text(case.flows, case.end_ms, case.net))
        theirs = dumbbell.htsim_command(htsim, case.flows, 1, case.end_ms, case.net)
    else:
        scenario, overrides["topology.k"] = case.scenario, str(case.k)
        theirs = compare.htsim_command(htsim, list(case.options), case.end_ms, 1, case.k, f"{scratch}/log")
    return [bench, str(scenario), "1", *(f"{key}={value}" for key, value in overrides.items())], theirs


def cli(bench: list[str]) -> list[str]:
    """The bench's run (`bench SCENARIO 1 KEY=VALUE ...`) as a user runs it: `fairsim run` on the
    same scenario and overrides (the seed is their `run.seed`)."""
    _, scenario, _, *overrides = bench
    fairsim = Path(sys.executable).with_name("fairsim")
    return [str(fairsim), "run", scenario, *(f"--set={override}" for override in overrides)]


def api(bench: list[str]) -> list[str]:
    """The bench's run as a script runs it: `fairsim.run` on the same scenario and overrides,
    on one thread (`api_run.py`)."""
    _, scenario, _, *overrides = bench
    return [sys.executable, str(API_RUN), scenario, *overrides, ONE_THREAD]


def built_bench() -> str:
    build = ["cargo", "build", "--release", "--quiet", "--example", "bench", "-p", "fairsim"]
    subprocess.run(build, cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(target / "release" / "examples" / "bench")


def middle(xs: list[float], digits: int = 1) -> str:
    """The median; a dash for a side not measured."""
    return f"{statistics.median(xs):.{digits}f}" if xs else "—"


def span(xs: list[float], digits: int = 2) -> str:
    """The median with the range; a dash for a side not measured."""
    return f"{middle(xs, digits)} ({min(xs):.{digits}f}–{max(xs):.{digits}f})" if xs else "—"


def row(name: str, bench: str, rounds: int, memory: bool, all_threads: bool = False) -> tuple[str, str]:
    """Runs case `name` `rounds` times alternated, printing each round: its rows of the speed
    table and (`memory`) of the memory table, with (`all_threads`) `fairsim run` on the default
    threads too."""
    case = CASES[name]
    with tempfile.TemporaryDirectory() as scratch:
        ours, theirs = commands(case, bench, scratch)
        sides = {"fairsim": ours, "htsim": theirs}
        if memory:
            sides |= {"fairsim run": [*cli(ours), f"--set={ONE_THREAD}"], "fairsim.run": api(ours)}
            sides["interpreter"] = INTERPRETER
        if memory and all_threads:
            sides["fairsim run, all threads"] = cli(ours)
        if shutil.which(theirs[0]) is None:
            print(f"{name}: no {theirs[0]}: htsim's side left out", flush=True)
            del sides["htsim"]
        # the Python sides' modules compiled once, before the rounds, into the case's own cache
        environment = {side: with_bytecode(f"{scratch}/bytecode") for side in sides if side in PYTHON_SIDES}
        for side, env in environment.items():
            measured(sides[side], env)
        cpu: dict[str, list[float]] = {side: [] for side in SIDES}
        peak: dict[str, list[float]] = {side: [] for side in SIDES}
        engine_s: list[float] = []
        for round_ in range(1, rounds + 1):
            for side, command in sides.items():
                out, spent, most = measured(command, environment.get(side))
                cpu[side].append(spent)
                peak[side].append(most)
                if side == "fairsim":  # the same work every round: the engine is deterministic
                    events, hops, engine = engine_figures(out)
                    engine_s.append(engine)
                print(f"{name} round {round_}: {side} {spent:.2f} s CPU, {most:.1f} MB", flush=True)
    cells = [case.title, f"{case.end_ms:g} ms", span(cpu["fairsim"]), span(cpu["htsim"]), "—"]
    if cpu["htsim"]:
        ratios = [h / f for f, h in zip(cpu["fairsim"], cpu["htsim"], strict=True)]
        speed_up = statistics.median(cpu["htsim"]) / statistics.median(cpu["fairsim"])
        cells[-1] = f"**{speed_up:.2f}×** ({min(ratios):.2f}–{max(ratios):.2f})"
    if memory:
        # the process a user starts, against htsim's: start-up, the run and the tables
        cells.append(span(cpu["fairsim run"]))
        whole = [h / f for f, h in zip(cpu["fairsim run"], cpu["htsim"], strict=False)]
        cells.append(f"{statistics.median(whole):.2f}×" if whole else "—")
    cells.append(f"{middle(peak['fairsim'])} / {middle(peak['htsim'])} MB")
    cells.append(f"{events / 1e6:.1f} M / {hops / 1e6:.1f} M")
    cells.append(f"{statistics.median(engine_s) / hops * 1e9:.0f} ns")
    # the verdict is the API's, the process the memory aim is stated for; the command's is shown beside
    own = less_interpreter(peak, "fairsim.run")
    within = "—"
    if own and peak["htsim"]:
        within = "yes" if statistics.median(own) <= statistics.median(peak["htsim"]) else "**no**"
    sizes = [span(peak[side], 1) for side in ("fairsim run", "interpreter")]
    sizes += [
        span(less_interpreter(peak, "fairsim run"), 1),
        span(own, 1),
        span(peak["fairsim"], 1),
        span(peak["htsim"], 1),
    ]
    extra = [span(peak["fairsim run, all threads"], 1)] if all_threads else []
    return "| " + " | ".join(cells) + " |", "| " + " | ".join([case.title, *sizes, within, *extra]) + " |"


def less_interpreter(peak: dict[str, list[float]], side: str) -> list[float]:
    """The engine's own of Python side `side`: its peaks less the interpreter's, round by round."""
    return [whole - python for whole, python in zip(peak[side], peak["interpreter"], strict=True)]


def rounds(text: str) -> int:
    """`--rounds`: a count of at least one (a median of none is nothing)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count of at least 1")
    return int(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=rounds, default=5, help="rounds per case, at least 1 (default 5)")
    parser.add_argument("--case", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--bench", help="fairsim's bench program (default: built here)")
    whole = "also the whole `fairsim run` process and the interpreter's share"
    parser.add_argument("--memory", action="store_true", help=whole + " (on one thread)")
    default = "with --memory: also `fairsim run` on the default threads (every core, where that pays)"
    parser.add_argument("--all-threads", action="store_true", help=default)
    args = parser.parse_args()
    bench = args.bench or built_bench()
    rows = [row(name, bench, args.rounds, args.memory, args.all_threads) for name in args.case]
    print(f"\n{args.rounds} rounds, alternated fairsim then htsim, seed 1; medians (range)\n")
    whole = " `fairsim run` CPU (s) | htsim / `fairsim run` |" if args.memory else ""
    print(
        "| run | simulated | fairsim CPU (s) | htsim CPU (s) | speed-up (per round) |"
        + whole
        + " peak memory fairsim / htsim | fairsim's events / hops | per hop |"
    )
    print("|---|---|---:|---:|---:|" + ("---:|---:|" if args.memory else "") + "---:|---:|---:|")
    print("\n".join(speed for speed, _ in rows))
    if args.memory:
        extra = " `fairsim run`, all threads (MB) |" if args.all_threads else ""
        print(
            "\n| run | `fairsim run`, one thread, whole (MB) | interpreter, fairsim imported (MB)"
            " | engine's own (MB) | engine's own, `fairsim.run` (MB) | bench, engine alone (MB)"
            " | htsim, whole (MB) | engine's own, `fairsim.run`, ≤ htsim |" + extra
        )
        print("|---|---:|---:|---:|---:|---:|---:|---|" + ("---:|" if args.all_threads else ""))
        print("\n".join(memory for _, memory in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
