"""A run's engine time on its default threads against one thread (docs/performance.md, "A run's
threads"), on every bundled example, every scenario of the reproductions, the peers' benchmark
dumbbells and htsim's fat-trees:

    python3 scripts/bench_default_threads.py [--rounds 5] [--burn] [--given N] [--only GROUP_OR_NAME ...]

Runs the reference benchmark (`examples/bench.rs`, built here: the run alone, no Python) on
each case, every pair of its scenario, with `run.threads=1` and with `--default-threads` (the
threads as `fairsim run` takes them when none are given), alternated in each round, `--rounds`
times (`--given N` adds `run.threads=N` as a third). Prints each case's median engine time each
way (summed over its pairs) and its ratio to one thread's, the ratio of the bench process's
median CPU times (user and system: less moved than wall time by a machine whose speed drifts,
but it counts every thread's time, so a split run's is above its wall time's), and how the
default went for its first pair (the bench's note: on one thread and why, or on how many).
`--burn` runs one CPU-bound process per usable core (`yes > /dev/null`) throughout, as a busy
machine would. Stops if two ways give different events or packet-hops: the results must not
depend on the threads.

The cases: `scenarios/examples/*.toml`; the reproductions' scenario files as written (the
reproductions' quick modes shorten some); the 10 Gb/s dumbbell of `validation/htsim/dumbbell.py`
at a round trip of 200 µs (25 µs access links, a 50 µs bottleneck holding 1,024 packets) with
8, 64 and 256 NewReno flows for 2 s; ns-3's dumbbell (`validation/ns3/fairsim_dumbbell.py`,
FIFO, NewReno, 10 Mb/s, 60 s) with 8 and 256 flows, their starts spread evenly over the first
second; and htsim's TCP permutations on k = 8 (100 ms) and k = 16 (20 ms) fat-trees
(`validation/htsim/fat-tree-permutation.toml`).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "target" / "release" / "examples" / "bench"


def validation(folder: str, module: str):
    """`validation/FOLDER/MODULE.py`, imported with its folder first on the path (both folders
    have a `dumbbell.py`)."""
    sys.modules.pop("dumbbell", None)
    sys.path.insert(0, str(ROOT / "validation" / folder))
    try:
        return __import__(module)
    finally:
        sys.path.pop(0)


def short_rtt_dumbbell(flows: int) -> str:
    dumbbell = validation("htsim", "dumbbell")
    return dumbbell.scenario_text(flows, 2000.0, dumbbell.SHORT_RTT)


def ns3_dumbbell(flows: int) -> str:
    return validation("ns3", "fairsim_dumbbell").scenario_text(
        "fifo", "newreno", [i / flows for i in range(flows)], 60, 1
    )


def cases(scratch: Path) -> list[tuple[str, str, Path, list[str]]]:
    """(group, name, scenario file, overrides) of every case."""
    found = [("example", p.stem, p, []) for p in sorted((ROOT / "scenarios" / "examples").glob("*.toml"))]
    for paper in ("dks89", "keshav91", "csfq98", "hasegawa01", "blt94"):
        found += [(paper, p.stem, p, []) for p in sorted((ROOT / "scenarios" / paper).glob("*.toml"))]
    made = [(f"dumbbell-200us-{n}", short_rtt_dumbbell, n) for n in (8, 64, 256)]
    made += [(f"ns3-dumbbell-{n}", ns3_dumbbell, n) for n in (8, 256)]
    for name, text, flows in made:
        path = scratch / f"{name}.toml"
        path.write_text(text(flows))
        found.append(("peers", name, path, []))
    compare = validation("htsim", "compare")
    for k, end_ms in ((8, 100.0), (16, 20.0)):
        sets = [f"{key}={value}" for key, value in compare.one_interval(end_ms).items()]
        found.append(("htsim", f"fat-tree-k{k}", compare.SCENARIO, [*sets, f"topology.k={k}", "run.seed=1"]))
    return found


def once(path: Path, sets: list[str], threads: str) -> tuple[tuple[str, ...], float, float, str]:
    """The bench's work (events and packet-hops of every pair), its engine time summed over
    the pairs, the process's CPU time (user and system, from the kernel's accounting) and its
    note on the first pair's threads (none on one thread): on `threads` threads, or on the
    default's ("default")."""
    arm = ["--default-threads"] if threads == "default" else [f"run.threads={threads}"]
    command = [str(BENCH), str(path), "1", *sets, *arm]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(command, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{path} {' '.join(sets)}: the bench failed:\n{proc.stderr}")
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("pair"))
    rows = [line.split() for line in lines[header + 1 :] if line and not line.startswith("peak")]
    work = tuple(x for row in rows for x in row[-7:-5])
    note = proc.stderr.splitlines()[0].split("; windows: ")[0] if proc.stderr else ""
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return work, sum(float(row[-4]) for row in rows), cpu, note


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--burn", action="store_true", help="one CPU-bound process per usable core")
    parser.add_argument("--only", nargs="+", help="cases of these groups or names")
    parser.add_argument("--given", type=int, help="also this count of threads, given (run.threads)")
    args = parser.parse_args()
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--example", "bench", "-p", "fairsim"],
        check=True,
        cwd=ROOT,
    )
    burners = []
    if args.burn:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        burners = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(cores)]
    arms = ["1", "default", *([str(args.given)] if args.given else [])]
    print(f"load: {'one CPU burner per core' if burners else 'none added'}; rounds: {args.rounds}")
    given = f" {args.given} given (s) | given / one | CPU |" if args.given else ""
    print(
        f"| group | case | one thread (s) | default (s) | default / one | CPU |{given} how the default went |"
    )
    print("|---|---|---:|---:|---:|---:|" + ("---:|---:|---:|" if args.given else "") + "---|")
    try:
        with tempfile.TemporaryDirectory() as scratch:
            for group, name, path, sets in cases(Path(scratch)):
                if args.only and group not in args.only and name not in args.only:
                    continue
                walls: dict[str, list[float]] = {arm: [] for arm in arms}
                cpus: dict[str, list[float]] = {arm: [] for arm in arms}
                notes, work = [], None
                for _ in range(args.rounds):
                    for arm in arms:
                        got, wall, cpu, note = once(path, sets, arm)
                        if work is not None and got != work:
                            raise SystemExit(f"{name}: {arm} threads did other work: {got} against {work}")
                        work = got
                        walls[arm].append(wall)
                        cpus[arm].append(cpu)
                        notes += [note] if arm == "default" else []
                one = statistics.median(walls["1"])
                cells = [f"{one:.3f}"]
                for arm in arms[1:]:
                    median = statistics.median(walls[arm])
                    cpu = statistics.median(cpus[arm]) / max(statistics.median(cpus["1"]), 1e-9)
                    cells += [f"{median:.3f}", f"{median / max(one, 1e-9):.2f}", f"{cpu:.2f}"]
                note = sorted(notes)[len(notes) // 2]
                print(f"| {group} | {name} | {' | '.join(cells)} | {note} |", flush=True)
    finally:
        for burner in burners:
            burner.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
