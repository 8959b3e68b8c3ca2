"""One run's speed on several threads against one (docs/performance.md, "One run on every
core"), with the results checked equal:

    python3 scripts/bench_threads.py [--rounds 7] [--threads 1 2] SCENARIO [KEY=VALUE ...]

Runs the reference benchmark (`examples/bench.rs`, built here: the run and its report, no
Python) on SCENARIO with `run.threads` set to each count in turn, `--rounds` times, the counts
alternated within each round so that a change in the machine's load hits all alike. Prints each
round, then per count the median wall time of the run alone (the bench's `wall_s`), the median
CPU time of the process (user + system, from the kernel's accounting), the speed-up of the
median wall time against the first count's, and the median of the rounds' own speed-ups (each
round's runs follow each other, so a machine whose speed drifts between rounds moves this one
less). Stops if two counts give different events, hops or deliveries: a parallel run's results
must be one thread's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "target" / "release" / "examples" / "bench"


def once(scenario: str, sets: list[str], threads: int) -> tuple[tuple[str, ...], float, float]:
    """The bench's figures (events, hops, deliveries), the run's wall seconds and CPU seconds."""
    command = [str(BENCH), scenario, "1", *sets, f"run.threads={threads}"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    out, err = proc.stdout.read(), proc.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{err}")
    lines = out.splitlines()
    row = lines[lines.index(next(line for line in lines if line.startswith("pair"))) + 1].split()
    return tuple(row[1:4]), float(row[4]), usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("scenario")
    parser.add_argument("sets", nargs="*", metavar="KEY=VALUE")
    args = parser.parse_args()
    build = ["cargo", "build", "--release", "--quiet", "--example", "bench", "-p", "fairsim"]
    subprocess.run(build, check=True, cwd=ROOT)
    wall: dict[int, list[float]] = {t: [] for t in args.threads}
    cpu: dict[int, list[float]] = {t: [] for t in args.threads}
    figures = None
    for r in range(args.rounds):
        for t in args.threads:
            got, w, c = once(args.scenario, args.sets, t)
            if figures is not None and got != figures:
                raise SystemExit(f"{t} threads gave {got}, not {figures}")
            figures = got
            wall[t].append(w)
            cpu[t].append(c)
            print(f"round {r + 1}, {t} thread(s): run {w:.3f} s, process CPU {c:.3f} s", flush=True)
    base = statistics.median(wall[args.threads[0]])
    print(f"\nevents, hops, deliveries: {', '.join(figures or ())}")
    print("| threads | run (wall), median | range | process CPU, median | speed-up | rounds', median |")
    print("|---:|---:|---:|---:|---:|---:|")
    first = wall[args.threads[0]]
    for t in args.threads:
        m = statistics.median(wall[t])
        paired = statistics.median(a / b for a, b in zip(first, wall[t], strict=True))
        print(
            f"| {t} | {m:.3f} s | {min(wall[t]):.3f}–{max(wall[t]):.3f} | "
            f"{statistics.median(cpu[t]):.3f} s | {base / m:.2f}× | {paired:.2f}× |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
