"""Records the results of every bundled example and every quick reproduction as JSON, without
wall-clock fields, so that a refactor or an optimisation can show that it changed no result:

    python3 scripts/snapshot_results.py /tmp/before      # on the old code
    python3 scripts/snapshot_results.py /tmp/after       # on the new code
    diff -r /tmp/before /tmp/after                       # no output: the same results, bit for bit

A change that adds fields compares the rest: `--leave-out NAME` (repeatable) drops every field of
that name from the records, e.g. `--leave-out window_limited_s` on the new code; `PARENT.NAME`
drops it only where the record it is in is the value of a field `PARENT` (`--leave-out
transfers.delivered`: the transfers' column, not the flows' counter of that name).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Every transport under a few disciplines on the reference dumbbell, every sender traced: the
#: examples and reproductions alone leave some protocols (Vegas, NewReno) unexercised. Each entry:
#: the transport as a scenario writes it, and the disciplines. The TCP family runs with the
#: classic papers' options (as before they became switchable) and with today's defaults.
MATRIX = {
    "generic": ('"generic"', ("fcfs", "fq")),
    "jk": ('"jk"', ("fcfs", "red")),
    "reno": ('{ kind = "reno", stack = "classic" }', ("fcfs", "drr")),
    "newreno": ('{ kind = "newreno", stack = "classic" }', ("red", "sfq")),
    "vegas": ('{ kind = "vegas", stack = "classic" }', ("fcfs", "red")),
    "decbit": ('"decbit"', ("decbit", "fqbit")),
    "pp": ('"pp"', ("fq",)),
    "newreno-linux": ('"newreno"', ("fcfs", "fq_codel")),
    "cubic": ('"cubic"', ("fcfs", "red")),
    "dctcp": ('{ kind = "dctcp", window = 1000 }', ("codel",)),
    "bbr": ('{ kind = "bbr", window = 1000 }', ("fcfs",)),
}


#: The data-centre cases, short: generated fat-trees, workloads with their own
#: lines, ECMP, spraying and adaptive forwarding, a shared buffer, DCTCP's threshold marking.
#: Each entry: the scenario, relative to the checkout, and its overrides.
SHORT = ["run.duration=3ms", "run.warmup=1ms", "run.interval=2ms"]
PERMUTATION = "validation/htsim/fat-tree-permutation.toml"
DATACENTRE = {
    "websearch-k8": ("scenarios/bench/fat-tree-k16-websearch.toml", ["topology.k=8", *SHORT]),
    "permutation": (PERMUTATION, SHORT),
    "permutation-spray": (PERMUTATION, [*SHORT, 'run.forwarding="spray"']),
    "permutation-adaptive": (PERMUTATION, [*SHORT, 'run.forwarding="adaptive"']),
    "permutation-shared": (PERMUTATION, [*SHORT, 'shared_buffer.size="1MB"']),
    "dctcp": ("validation/htsim/fat-tree-permutation-dctcp.toml", SHORT),
    "incast": ("validation/htsim/fat-tree-incast.toml", ["run.duration=30ms", "run.interval=30ms"]),
}

#: Fields left out of every record: the wall clock, and those named by `--leave-out`.
LEFT_OUT = {"wall_s"}


def without_wall_clock(value, parent=""):
    if isinstance(value, dict):
        kept = {k: v for k, v in value.items() if k not in LEFT_OUT and f"{parent}.{k}" not in LEFT_OUT}
        return {k: without_wall_clock(v, k) for k, v in kept.items()}
    if isinstance(value, list):
        return [without_wall_clock(v, parent) for v in value]
    return value


#: the command line of the environment running this script, activated or not
FAIRSIM = str(Path(sys.executable).with_name("fairsim"))


def record(command: list[str], path: Path) -> None:
    # in a scratch folder: `fairsim reproduce` writes its report folder where it runs
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run([FAIRSIM, *command], check=True, capture_output=True, text=True, cwd=scratch)
    # the checkout's own path is not a result: two checkouts of one commit give the same files
    text = done.stdout.replace(str(ROOT), "<checkout>")
    path.write_text(json.dumps(without_wall_clock(json.loads(text)), indent=1, sort_keys=True) + "\n")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for example in sorted((ROOT / "scenarios" / "examples").glob("*.toml")):
        args = ["run", str(example), "--json", "--no-progress", "--seed", "1", "--seed", "2"]
        record(args, out / f"example-{example.stem}.json")
    dumbbell = ROOT / "scenarios" / "examples" / "dumbbell.toml"
    for name, (transport, qdiscs) in MATRIX.items():
        sets = ["--set", "run.duration=60s", "--set", 'run.trace=["*"]']
        for q in qdiscs:
            sets += ["--set", f'pairs.{name}-{q}={{ transport = {transport}, qdisc = "{q}" }}']
            sets += ["--pair", f"{name}-{q}"]
        record(["run", str(dumbbell), "--json", "--no-progress", *sets], out / f"matrix-{name}.json")
    for name, (scenario, overrides) in DATACENTRE.items():
        sets = [arg for o in overrides for arg in ("--set", o)]
        command = ["run", str(ROOT / scenario), "--json", "--no-progress", *sets]
        record(command, out / f"datacentre-{name}.json")
    from fairsim import reproduce

    for paper in reproduce.papers():
        record(["reproduce", paper, "--quick", "--json", "--no-progress"], out / f"reproduce-{paper}.json")
    print(f"{len(list(out.iterdir()))} result files in {out}")


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    args = sys.argv[1:]
    while len(args) > 2 and args[0] == "--leave-out":
        LEFT_OUT.add(args[1])
        args = args[2:]
    if len(args) != 1:
        sys.exit(__doc__)
    main(Path(args[0]))
