"""Checks that the command line's output did not change: runs the same commands with the Python
package of an older commit and with the working tree's, and compares, byte for byte, what each
printed on standard output and standard error, its exit code, and every file `--out` wrote
(CSV, Parquet, JSON, resolved scenarios, pcap and event traces):

    python3 scripts/compare_cli_output.py [REV]        # default REV: HEAD

Both packages run with the same copy of the installed engine (`fairsim/_core*.so`), through the
real entry point (the `fairsim` script beside this Python), from the same folder and with the
same environment, one after the other, so that only the Python code differs. Wall-clock times
(`… events in 0.02 s`, `"wall_s": …`) are masked; nothing else is. Prints each difference and
exits with 1 if there is one.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTRY = Path(sys.executable).parent / "fairsim"

#: A few seconds of the small examples: tables with NaN (an RTT without samples), several seeds.
FIREWALL = [
    "examples/firewall",
    "--set",
    "run.duration=20s",
    "--set",
    "run.warmup=5s",
    "--set",
    "run.interval=5s",
]
DUMBBELL = [
    "examples/dumbbell",
    "--set",
    "run.duration=12s",
    "--set",
    "run.warmup=2s",
    "--set",
    "run.interval=5s",
]
PARKING = [
    "examples/parking_lot",
    "--set",
    "run.duration=40s",
    "--set",
    "run.warmup=10s",
    "--set",
    "run.interval=10s",
]
BLT = ["blt94/network", "--set", "run.duration=15s", "--set", "run.warmup=5s", "--set", "run.interval=5s"]

MALFORMED = sorted((ROOT / "tests" / "scenarios" / "malformed").glob("*.toml"))

#: Commands, each with `{out}` standing for a fresh output folder.
COMMANDS: list[list[str]] = [
    ["--version"],
    ["--help"],
    ["-h"],
    ["run", "--help"],
    ["validate", "--help"],
    ["list", "--help"],
    ["sweep", "--help"],
    ["reproduce", "--help"],
    ["bench", "--help"],
    ["list"],
    ["list", "fq"],
    ["list", "decbit"],
    ["list", "fqq"],
    ["reproduce", "--list"],
    ["validate", "examples/dumbbell"],
    ["validate", "scenarios/examples/parking_lot.toml", "--set", "links.hop2.buffer=10"],
    ["validate", *FIREWALL],
    ["validate", "blt94/network"],
    ["validate", "csfq98/table2_web"],
    ["run", *FIREWALL],
    ["run", *FIREWALL, "--json"],
    ["run", *FIREWALL, "--out", "{out}"],
    ["run", *FIREWALL, "--out", "{out}", "--format", "parquet"],
    ["run", *FIREWALL, "--gps", "gw->sink", "--out", "{out}"],
    ["run", *FIREWALL, "--pcap", "gw->sink", "--events", "gw->sink", "--out", "{out}"],
    ["run", *DUMBBELL, "--out", "{out}"],
    ["run", *DUMBBELL, "--trace", "ftp1", "--trace-queue", "gw1->gw2", "--out", "{out}"],
    ["run", *DUMBBELL, "--trace", "*", "--out", "{out}", "--format", "parquet"],
    ["run", *PARKING, "--seed", "1", "--seed", "2", "--seed", "3"],
    ["run", *PARKING, "--seed", "1", "--seed", "2", "--per-seed", "--out", "{out}"],
    ["run", *PARKING, "--pair", "G/RD", "--json"],
    ["run", *BLT, "--out", "{out}"],
    ["run", *BLT, "--set", "run.transfer_rows=true", "--out", "{out}"],
    ["run", *BLT, "--set", "run.transfer_rows=true", "--out", "{out}", "--format", "parquet"],
    ["run", "csfq98/table2_web", "--set", "run.duration=5s", "--set", "run.interval=5s", "--out", "{out}"],
    ["run", "keshav91/s7_poisson", "--set", "run.duration=1000s", "--out", "{out}"],
    # identical seeds: the warning
    ["run", *FIREWALL, "--pair", "G/FQ", "--seed", "1", "--seed", "2"],
    # bad input: messages and exit codes
    ["run", "no/such.toml"],
    ["run", "examples/dumbell"],
    ["run", *FIREWALL, "--pair", "G/FQQ"],
    ["run", *FIREWALL, "--seed", "-1"],
    ["run", *FIREWALL, "--pcap", "gw->sink"],
    ["run", *FIREWALL, "--trace", "ftpp"],
    ["run", *FIREWALL, "--set", "links.out.buffr=3"],
    ["run", *FIREWALL, "--format", "xls"],
    ["run"],
    ["frobnicate"],
    ["validate", "scenarios"],
    ["sweep", "examples/firewall", "--axis", "links.out.bufer=1,2"],
    ["reproduce", "nosuchpaper"],
    # every fourth malformed scenario (`--all`: every one)
    *(["validate", str(p.relative_to(ROOT))] for p in MALFORMED[::4]),
    *(
        ["run", str(p.relative_to(ROOT))]
        for p in MALFORMED
        if p.stem in ("typo_in_key", "invalid_toml", "encoding_binary_garbage", "zero_rate")
    ),
]

#: What differs from one run to the next whatever the code: wall-clock times.
MASKS = [
    (re.compile(rb"events in [0-9.]+ s"), b"events in <wall> s"),
    (re.compile(rb'"wall_s": [-+0-9.eE]+'), b'"wall_s": <wall>'),
]


def masked(data: bytes) -> bytes:
    for pattern, replacement in MASKS:
        data = pattern.sub(replacement, data)
    return data


def materialize(rev: str | None, dest: Path, engine: Path) -> None:
    """The package `fairsim` of `rev` (None: the working tree) in `dest`, with `engine` as its
    `_core`."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    if rev is None:
        shutil.copytree(
            ROOT / "python" / "fairsim",
            dest / "fairsim",
            ignore=shutil.ignore_patterns("__pycache__", "*.so"),
        )
    else:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", rev, "python/fairsim"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(dest, filter="data")
        (dest / "python" / "fairsim").rename(dest / "fairsim")
        shutil.rmtree(dest / "python")
    shutil.copy2(engine, dest / "fairsim" / engine.name)


def run_all(package: Path, scratch: Path) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(package), "COLUMNS": "100"}
    env.pop("FAIRSIM_DEBUG", None)
    outcomes = []
    for i, command in enumerate(COMMANDS):
        out = scratch / f"out{i}"
        shutil.rmtree(out, ignore_errors=True)
        argv = [a.replace("{out}", str(out)) for a in command]
        done = subprocess.run([str(ENTRY), *argv], cwd=ROOT, env=env, capture_output=True, timeout=600)
        files = {}
        if out.is_dir():
            for path in sorted(out.rglob("*")):
                if path.is_file():
                    files[str(path.relative_to(out))] = masked(path.read_bytes())
        outcomes.append(
            {
                "command": " ".join(command),
                "exit": done.returncode,
                "stdout": masked(done.stdout),
                "stderr": masked(done.stderr),
                "files": files,
            }
        )
    return outcomes


def differences(before: dict, after: dict) -> list[str]:
    found = []
    if before["exit"] != after["exit"]:
        found.append(f"exit code {before['exit']} -> {after['exit']}")
    for stream in ("stdout", "stderr"):
        if before[stream] != after[stream]:
            found.append(f"{stream} differs:\n" + _diff(before[stream], after[stream]))
    for name in sorted(set(before["files"]) | set(after["files"])):
        a, b = before["files"].get(name), after["files"].get(name)
        if a is None or b is None:
            found.append(f"file {name}: {'only after' if a is None else 'only before'}")
        elif a != b:
            found.append(f"file {name} differs:\n" + _diff(a, b))
    return found


def _diff(a: bytes, b: bytes) -> str:
    try:
        lines = difflib.unified_diff(
            a.decode().splitlines(), b.decode().splitlines(), "before", "after", lineterm="", n=1
        )
        return "\n".join(list(lines)[:40])
    except UnicodeDecodeError:
        return f"  binary: {len(a)} bytes before, {len(b)} after"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("rev", nargs="?", default="HEAD", help="the commit to compare with (default HEAD)")
    parser.add_argument("--all", action="store_true", help="validate every malformed scenario, not a fourth")
    args = parser.parse_args()
    if args.all:
        COMMANDS.extend(["validate", str(p.relative_to(ROOT))] for i, p in enumerate(MALFORMED) if i % 4)
    engines = sorted((ROOT / "python" / "fairsim").glob("_core*.so"))
    if not engines or not ENTRY.exists():
        sys.exit("needs the installed package: pip install -e . (no engine or no fairsim script found)")
    with tempfile.TemporaryDirectory(prefix="fairsim-compare-") as tmp:
        tmp = Path(tmp)
        engine = tmp / engines[0].name
        shutil.copy2(engines[0], engine)  # one engine for both, even if it is rebuilt meanwhile
        runs = {}
        for label, rev in (("before", args.rev), ("after", None)):
            materialize(rev, tmp / "pkg", engine)
            runs[label] = run_all(tmp / "pkg", tmp / "scratch")
            print(f"{label}: {len(runs[label])} commands with {args.rev if rev else 'the working tree'}")
    failed = 0
    for before, after in zip(runs["before"], runs["after"], strict=True):
        found = differences(before, after)
        if found:
            failed += 1
            print(f"\n== fairsim {before['command']}")
            print("\n".join(found))
    files = sum(len(r["files"]) for r in runs["after"])
    print(f"\n{len(COMMANDS) - failed} of {len(COMMANDS)} commands identical ({files} files written in all)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
