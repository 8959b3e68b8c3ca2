"""How long the command line takes for small jobs: the median wall time of each command over
`--runs` alternated invocations of the real entry point (the `fairsim` script beside this
Python, not pyenv's shim, a bash script that adds its own tens of milliseconds):

    python3 scripts/bench_startup.py [--runs 21] [--against REV]

Commands: Python alone (`-S -c pass`, `-c pass`), `import fairsim`, `fairsim --version`,
`--help`, `list`, `validate X` and `run X` (printing its tables; also with `--out DIR`, CSV,
and with `--trace '*'`), `reproduce --list`, and reading a 75-run sweep back (`open_sweep`),
X a small scenario whose simulation takes a few milliseconds (`--scenario`). Every round runs
each command once, in turn, so that a change in the machine's load hits them all alike.

Compiled bytecode is cached, in a temporary folder (PYTHONPYCACHEPREFIX), as an installed
package's is; `--as-is` keeps the environment's setting instead (PYTHONDONTWRITEBYTECODE=1, say,
under which fairsim's own modules are compiled again at every start).

With `--against REV` the same commands also run with the Python package of commit REV (the
engine stays the installed one: `fairsim/_core*.so` is copied beside it), alternating with the
working tree's in every round, and the table gets a column for each.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = Path(sys.executable)
ENTRY = PYTHON.parent / "fairsim"
#: A few milliseconds of simulation: the firewall example, 20 s instead of 2000 s, four pairs.
#: A sweep of 75 short runs, for `open_sweep`: 15 buffers × 5 seeds of one pair.
SWEEP = [
    "examples/dumbbell",
    "--axis",
    "links.bottleneck.buffer=10..150:10",
    "--seeds",
    "5",
    "--pair",
    "G/FCFS",
    "--set",
    "run.duration=5s",
    "--set",
    "run.warmup=1s",
    "--set",
    "run.interval=1s",
]
SCENARIO = "scenarios/examples/firewall.toml --set run.duration=20s --set run.warmup=5s --set run.interval=5s"


def commands(scenario: list[str], out: Path, sweep: Path) -> list[tuple[str, list[str]]]:
    fairsim = [str(ENTRY)]
    read_sweep = f"import fairsim; fairsim.open_sweep({str(sweep)!r}).flows"
    return [
        ("python3 -S -c pass", [str(PYTHON), "-S", "-c", "pass"]),
        ("python3 -c pass", [str(PYTHON), "-c", "pass"]),
        ("python3 -c 'import fairsim'", [str(PYTHON), "-c", "import fairsim"]),
        ("fairsim --version", [*fairsim, "--version"]),
        ("fairsim --help", [*fairsim, "--help"]),
        ("fairsim list", [*fairsim, "list"]),
        ("fairsim validate X", [*fairsim, "validate", *scenario]),
        ("fairsim run X", [*fairsim, "run", *scenario]),
        ("fairsim run X --out DIR", [*fairsim, "run", *scenario, "--out", str(out)]),
        (
            "fairsim run X --trace '*' --out DIR",
            [*fairsim, "run", *scenario, "--trace", "*", "--out", str(out)],
        ),
        ("fairsim reproduce --list", [*fairsim, "reproduce", "--list"]),
        ("open_sweep(75 runs).flows", [str(PYTHON), "-c", read_sweep]),
        *_on_path(),
    ]


def _on_path() -> list[tuple[str, list[str]]]:
    """`fairsim --version` as found on PATH, when that is not the entry point itself (pyenv's
    shim, say): what the wrapper adds."""
    found = shutil.which("fairsim")
    if found is None or Path(found).resolve() == ENTRY.resolve():
        return []
    return [(f"fairsim --version ({found})", [found, "--version"])]


def materialize(rev: str, dest: Path) -> Path:
    """The package of commit `rev` under `dest`, with the installed engine; the folder to put
    on PYTHONPATH."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "python/fairsim"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    for engine in (ROOT / "python" / "fairsim").glob("_core*.so"):
        shutil.copy2(engine, dest / "python" / "fairsim" / engine.name)
    return dest / "python"


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall time and the CPU time (user + system, all threads) of one run of `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr.decode()}")
    return took, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=21, help="invocations of each command (default 21)")
    parser.add_argument("--against", metavar="REV", help="also time the Python package of this commit")
    parser.add_argument("--scenario", default=SCENARIO, help=f"X (default: {SCENARIO})")
    parser.add_argument(
        "--as-is", action="store_true", help="do not cache bytecode unless the environment does"
    )
    args = parser.parse_args()
    if not ENTRY.exists():
        sys.exit(f"no {ENTRY}: install the package first (pip install -e .)")
    with tempfile.TemporaryDirectory(prefix="fairsim-startup-") as tmp:
        env = dict(os.environ)
        if not args.as_is:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "bytecode")
        variants = {"working tree": env}
        if args.against:
            path = materialize(args.against, Path(tmp) / "against")
            variants[args.against] = {**env, "PYTHONPATH": path.as_posix()}
        sweep = Path(tmp) / "sweep"
        subprocess.run(
            [str(ENTRY), "sweep", *SWEEP, "--out", str(sweep), "--no-progress"],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        cmds = commands(args.scenario.split(), Path(tmp) / "out", sweep)
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for i in range(args.runs + 1):  # the first round warms the caches and is not counted
            order = list(variants.items())
            if i % 2:
                order.reverse()
            for label, argv in cmds:
                for name, env in order:
                    took = timed(argv, env)
                    if i:
                        times.setdefault((label, name), []).append(took)
    cached = "as the environment has it" if args.as_is else "cached"
    print(f"median wall time of {args.runs} alternated runs, X = {args.scenario}; bytecode {cached}")
    print(f"entry point {ENTRY}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the end")
    print()
    print("Each cell: median wall time / fastest wall time (median CPU time, user + system).")
    print()
    names = list(variants)
    print("| command | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, _ in cmds:
        cells = []
        for n in names:
            wall = statistics.median(w for w, _ in times[label, n]) * 1000
            fastest = min(w for w, _ in times[label, n]) * 1000
            cpu = statistics.median(c for _, c in times[label, n]) * 1000
            cells.append(f"{wall:.0f} / {fastest:.0f} ms ({cpu:.0f})")
        print(f"| `{label}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
