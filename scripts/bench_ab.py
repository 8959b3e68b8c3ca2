"""Compares the engine's speed at an older commit with the working tree's, on the reference
benchmark (`examples/bench.rs`), so that a refactor can show it is not slower:

    python3 scripts/bench_ab.py [--rounds 6] [--callgrind] OLD_REV [BENCH_ARGS ...]

Builds `examples/bench` for OLD_REV (in a scratch git worktree with its own target folder) and
for the working tree, then runs the two alternately `--rounds` times (so that a change in the
machine's load hits both alike) and prints, per pair, the median over rounds of each build's
median events per second. With `--callgrind` it also counts the instructions of one run of each
build under valgrind, which does not depend on the machine's load at all.
Default bench arguments: `5 G/FCFS G/RD` (5 runs per pair per round, 300 s simulated).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(checkout: Path, target: Path) -> Path:
    env = {**os.environ, "CARGO_TARGET_DIR": str(target)}
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--example", "bench", "-p", "fairsim"],
        cwd=checkout,
        env=env,
        check=True,
    )
    return target / "release" / "examples" / "bench"


def events_per_s(binary: Path, args: list[str]) -> dict[str, float]:
    """Each pair's median events per second, in millions, from one invocation."""
    out = subprocess.run([str(binary), *args], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 8 and "/" in fields[0]:
            rows[fields[0]] = float(fields[5])
    return rows


def instructions(binary: Path, pair: str, overrides: list[str]) -> int:
    valgrind = ["valgrind", "--tool=callgrind"]
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [*valgrind, f"--callgrind-out-file={scratch}/cg", str(binary), "1", pair, *overrides],
            capture_output=True,
            text=True,
            check=True,
        )
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("old")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("bench_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    args.bench_args = [a for a in args.bench_args if a != "--"] or ["5", "G/FCFS", "G/RD"]

    scratch = Path(tempfile.mkdtemp(prefix="fairsim-ab-"))
    old_tree = scratch / "old"
    add = ["git", "worktree", "add", "--detach", "--quiet", str(old_tree), args.old]
    subprocess.run(add, cwd=ROOT, check=True)
    try:
        old = build(old_tree, scratch / "target-old")
        new = build(ROOT, scratch / "target-new")
        samples: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
        for _ in range(args.rounds):
            for name, binary in (("old", old), ("new", new)):
                for pair, value in events_per_s(binary, args.bench_args).items():
                    samples[name].setdefault(pair, []).append(value)
        head = f"{'pair':<8} {'old Mev/s':>10} {'new Mev/s':>10} {'change':>8}"
        print(f"{head}   ({args.rounds} alternated rounds)")
        for pair in samples["old"]:
            o, n = statistics.median(samples["old"][pair]), statistics.median(samples["new"][pair])
            print(f"{pair:<8} {o:>10.2f} {n:>10.2f} {100 * (n / o - 1):>+7.1f}%")
        if args.callgrind:
            overrides = [a for a in args.bench_args if "=" in a]
            for pair in samples["old"]:
                o, n = instructions(old, pair, overrides), instructions(new, pair, overrides)
                print(f"{pair:<8} instructions: old {o:,}, new {n:,} ({100 * (n / o - 1):+.2f}%)")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
