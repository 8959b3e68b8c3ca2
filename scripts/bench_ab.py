"""Compares the engine's speed at an older commit with the working tree's, on the reference
benchmark (`examples/bench.rs`), so that a refactor can show it is not slower:

    python3 scripts/bench_ab.py [--rounds 6] [--callgrind] OLD_REV [BENCH_ARGS ...]

Builds `examples/bench` for OLD_REV (in a scratch git worktree with its own target folder) and
for the working tree, then runs the two alternately `--rounds` times (so that a change in the
machine's load hits both alike) and prints, per pair, the median over rounds of each build's
median nanoseconds per packet-hop (wall time of the run alone; hops are the same work in
both builds, events are not). With `--callgrind` it also counts the instructions of one run of each
build under valgrind, which does not depend on the machine's load at all.
Default bench arguments: `5 G/FCFS G/RD` (5 runs per pair per round, 300 s simulated).

`--old-binary PATH` (with OLD_REV given as `-`) and `--new-binary PATH` take builds made
before, so that a series of measurements against one baseline builds it once:

    CARGO_TARGET_DIR=/tmp/base cargo build --release --example bench   # in a checkout of OLD_REV
    python3 scripts/bench_ab.py - --old-binary /tmp/base/release/examples/bench \
        -- scenarios/bench/tcp-dumbbell.toml 3 NR/FIFO NR/RED
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
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


def hops_per_s(binary: Path, args: list[str]) -> dict[str, float]:
    """Each pair's median packet-hops per second, in millions, from one invocation. Hops, not
    events: the same work in both builds, where events differ once the loop leaves some out
    (docs/decisions.md, *A canonical order for ties*)."""
    out = subprocess.run([str(binary), *args], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        # a pair's row: its name (`NR/FIFO`, or a transport's pair such as `roce`), then numbers
        if len(fields) == 8 and fields[1].isdigit():
            rows[fields[0]] = float(fields[6])
    return rows


def instructions(binary: Path, pair: str, extra: list[str]) -> int:
    """Instructions of one run of `pair`; `extra`: the scenario file and overrides, if any."""
    valgrind = ["valgrind", "--tool=callgrind"]
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [*valgrind, f"--callgrind-out-file={scratch}/cg", str(binary), *extra[:1], "1", pair, *extra[1:]],
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
    parser.add_argument("--old-binary", type=Path, help="a build of OLD_REV's bench (OLD_REV: -)")
    parser.add_argument("--new-binary", type=Path, help="a build of the new bench (default: build it)")
    # the bench's own arguments follow `--` (or the options and OLD_REV)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args, rest = parser.parse_known_args(argv[:cut])
    args.bench_args = rest + argv[cut + 1 :] or ["5", "G/FCFS", "G/RD"]

    scratch = Path(tempfile.mkdtemp(prefix="fairsim-ab-"))
    old_tree = scratch / "old"
    if args.old_binary is None:
        add = ["git", "worktree", "add", "--detach", "--quiet", str(old_tree), args.old]
        subprocess.run(add, cwd=ROOT, check=True)
    try:
        old = args.old_binary or build(old_tree, scratch / "target-old")
        new = args.new_binary or build(ROOT, scratch / "target-new")
        compare(old, new, args)
    finally:
        if args.old_binary is None:
            subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=ROOT, check=False)


def compare(old: Path, new: Path, args: argparse.Namespace) -> None:
    samples: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    for _ in range(args.rounds):
        for name, binary in (("old", old), ("new", new)):
            for pair, value in hops_per_s(binary, args.bench_args).items():
                samples[name].setdefault(pair, []).append(value)
    if not samples["old"]:
        sys.exit("the bench printed no pair's row")
    width = max(8, *(len(p) for p in samples["old"]))
    head = f"{'pair':<{width}} {'old ns/hop':>10} {'new ns/hop':>10} {'change':>8}"
    print(f"{head}   ({args.rounds} alternated rounds)")
    for pair in samples["old"]:
        o, n = (1e3 / statistics.median(samples[b][pair]) for b in ("old", "new"))
        print(f"{pair:<{width}} {o:>10.1f} {n:>10.1f} {100 * (n / o - 1):>+7.1f}%")
    if args.callgrind:
        extra = [a for a in args.bench_args if a.endswith(".toml") and "=" not in a]
        extra += [a for a in args.bench_args if "=" in a]
        for pair in samples["old"]:
            o, n = instructions(old, pair, extra), instructions(new, pair, extra)
            print(f"{pair:<{width}} instructions: old {o:,}, new {n:,} ({100 * (n / o - 1):+.2f}%)")


if __name__ == "__main__":
    main()
