"""Start-up: `import fairsim` and the command line's small jobs load no heavy library.

`--version`, `--help`, `list`, `validate` and `run` (its tables, `--json`, and `--out` in CSV, a
workload's completion-time tables too) must not import pandas, numpy, pyarrow, matplotlib or
dask, and `import fairsim`, `--version` and `--help` not even rich: each is checked in a fresh
interpreter by looking at `sys.modules` after the command. No timing here (docs/performance.md,
"Start-up", and scripts/bench_startup.py have the numbers). The CSV files that `--out` writes
without pandas are compared, byte for byte, with what pandas writes, on real runs and on random
tables, and the descriptions `list` reads from the bundled scenarios' `[scenario]` tables alone
with those of a whole parse.
"""

import importlib
import json
import random
import subprocess
import sys
import tomllib

import pandas as pd
import pytest

import fairsim
from fairsim.catalogue import BUNDLED, scenario_table
from fairsim.csv_tables import Unsupported, csv_text
from fairsim.output import write_results
from fairsim.results import ROW_TABLES, table_rows

HEAVY = {"pandas", "numpy", "pyarrow", "matplotlib", "dask", "distributed", "scipy"}

#: Runs the command line in-process (as the `fairsim` script does) and prints, last, the exit
#: code and the loaded modules.
CHILD = r"""
import json, sys
args = json.loads(sys.argv[1])
code = 0
if args == ["import"]:
    import fairsim
elif args[0] == "api":
    import fairsim
    res = fairsim.run(args[1], set=args[2:])
    res.summary()
    res.to_json()
else:
    from fairsim.cli import main
    code = main(args, prog_name="fairsim", standalone_mode=False) or 0
sys.stdout.flush()
print("\n" + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

#: A few seconds of the firewall example: four pairs, a few thousand events each.
SHORT = ["--set", "run.duration=20s", "--set", "run.warmup=5s", "--set", "run.interval=5s"]


def loaded(*args: str) -> set[str]:
    """The top-level modules loaded after `fairsim ARGS` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(list(args))], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.strip().splitlines()[-1])
    assert last["code"] == 0, done.stdout + done.stderr
    return {m.split(".")[0] for m in last["modules"]}


@pytest.mark.parametrize(
    "args",
    [
        ("import",),
        ("--version",),
        ("--help",),
        ("run", "--help"),
        ("sweep", "--help"),
        ("reproduce", "--help"),
    ],
    ids=lambda a: " ".join(a),
)
def test_import_version_and_help_load_neither_heavy_libraries_nor_rich(args):
    modules = loaded(*args)
    assert not modules & (HEAVY | {"rich"}), sorted(modules & (HEAVY | {"rich"}))
    if args == ("import",):
        assert "click" not in modules


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("list", "fq"),
        ("validate", "examples/firewall"),
        ("validate", "examples/dumbbell", "--set", "links.bottleneck.buffer=10"),
        ("run", "examples/firewall", *SHORT),
        ("run", "examples/firewall", *SHORT, "--json"),
        ("run", "examples/firewall", *SHORT, "--gps", "gw->sink", "--seed", "1", "--seed", "2"),
        ("api", "examples/firewall", "run.duration=20s", "run.warmup=5s", "run.interval=5s"),
    ],
    ids=lambda a: " ".join(a),
)
def test_small_commands_load_no_heavy_library(args):
    modules = loaded(*args)
    assert not modules & HEAVY, sorted(modules & HEAVY)


def test_run_out_csv_loads_no_heavy_library(tmp_path):
    modules = loaded("run", "examples/firewall", *SHORT, "--gps", "gw->sink", "--out", str(tmp_path / "out"))
    assert not modules & HEAVY, sorted(modules & HEAVY)
    assert (tmp_path / "out" / "fluid.csv").exists()


def test_run_trace_out_loads_no_heavy_library(tmp_path):
    # the traces table is written without pandas too (importing pandas for it cost 5 s)
    modules = loaded(
        "run", "examples/dumbbell", *SHORT, "--pair", "G/FCFS", "--trace", "ftp1", "--out", str(tmp_path)
    )
    assert not modules & HEAVY, sorted(modules & HEAVY)
    assert (tmp_path / "traces.csv").read_text().startswith("pair,seed,source,name,series,t_s,value\n")


#: A workload on a fat-tree, short, two seeds: its tables are the transfers' completion times
#: by size, some of them unfinished.
WORKLOAD = ("examples/fat_tree_websearch", ["run.duration=3ms", "run.warmup=1ms", "run.interval=2ms"], [1, 2])


@pytest.mark.parametrize("output", [(), ("--json",), ("--out", "OUT")], ids=["tables", "json", "out"])
def test_a_workload_run_loads_no_heavy_library(output, tmp_path):
    # its completion-time tables are made without pandas (pandas would be 92 of its 110 MB)
    output = tuple(str(tmp_path / "out") if arg == "OUT" else arg for arg in output)
    name, sets, seeds = WORKLOAD
    options = [*(f"--set={s}" for s in sets), *(f"--seed={seed}" for seed in seeds)]
    modules = loaded("run", name, *options, *output)
    assert not modules & HEAVY, sorted(modules & HEAVY)
    if output and output[0] == "--out":
        assert {"transfers.csv", "slowdown.csv"} <= {p.name for p in (tmp_path / "out").iterdir()}


def test_listing_the_reproductions_imports_no_plotting_and_no_pandas():
    # the papers' metadata only: figures (matplotlib) and measurements (pandas) load when drawn
    modules = loaded("reproduce", "--list")
    assert not modules & {"matplotlib", "pandas", "pyarrow"}, sorted(modules & HEAVY)


def test_lazy_names_of_the_package():
    for name in fairsim.__all__:
        assert name in dir(fairsim)
        assert getattr(fairsim, name) is not None
    assert fairsim.Results is __import__("fairsim.results").results.Results
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        _ = fairsim.nonsense
    importlib.import_module("fairsim.catalogue")  # the module of that name does not hide the function
    assert callable(fairsim.catalogue) and "scenarios" in fairsim.catalogue()


def test_dataframes_still_come_from_pandas(small_path):
    res = fairsim.run(small_path, pair="G/FCFS")
    assert isinstance(res.flows, pd.DataFrame) and isinstance(res.intervals, pd.DataFrame)
    assert "goodput_pps" in res.intervals.columns


# --- CSV without pandas, byte for byte ---------------------------------------------------------

#: Runs whose tables hold what tables hold in practice: NaN (an RTT without samples), several
#: seeds, the fluid comparison, transfers, integers beyond 64 bits (a long Poisson run's
#: occupancy area), whole floats, booleans, per-discipline statistics that other queues lack.
RUNS = [
    ("examples/firewall", [*SHORT[1::2], "run.fluid_reference=['gw->sink']"], None),
    ("examples/parking_lot", ["run.duration=40s", "run.warmup=10s", "run.interval=10s"], [1, 2]),
    ("blt94/network", [*SHORT[1::2], "run.duration=15s", "run.transfer_rows=true"], None),
    ("keshav91/s7_poisson", ["run.duration=1000s"], None),
    ("examples/dumbbell", ["run.duration=12s", "run.warmup=2s", "run.interval=5s", "run.trace=['*']"], None),
    WORKLOAD,  # transfers, unfinished ones, and their slowdown by size
]


@pytest.fixture(scope="module")
def runs():
    return [fairsim.run(name, set=sets, seed=seeds) for name, sets, seeds in RUNS]


def test_csv_tables_are_pandas_byte_for_byte(runs):
    written = 0
    for res in runs:
        for table, rows_of in ROW_TABLES.items():
            rows = [row for r in res.runs for row in rows_of(r)]
            if not rows:
                continue
            frame = getattr(res, table)
            if callable(frame):  # `slowdown(bins)`: `--out` writes its rows of each run
                frame = pd.DataFrame(rows)
            assert csv_text(rows) == frame.to_csv(index=False), table
            written += 1
    assert written >= 4 * len(runs)


def test_out_writes_what_pandas_writes(runs, tmp_path):
    for i, res in enumerate(runs):
        for path in write_results(res, tmp_path / str(i)):
            if path.suffix == ".csv":
                frame = getattr(res, path.stem)
                if callable(frame):  # `slowdown(bins)`: its rows of each run
                    frame = pd.DataFrame(table_rows(res.runs, path.stem))
                want = frame.to_csv(index=False)
                assert path.read_text() == want, path


def _random_value(rng: random.Random, kind: str):
    if kind == "int":
        return rng.choice([0, 1, -7, 3, 2**53 + 1, 2**62, 2**63 - 1, -(2**63), rng.randrange(10**6)])
    if kind == "bigint":
        return rng.choice([2**63, 2**64 - 1, 2**64, 10**30, -(2**63) - 1])
    if kind == "float":
        special = [0.0, -0.0, 1.0, 0.1, 1e-5, 1e16, 123456789.0, float("nan"), float("inf"), -float("inf")]
        drawn = [rng.uniform(-1e6, 1e6), rng.expovariate(1.0) * 10 ** rng.randint(-12, 20)]
        return rng.choice([*special, *drawn])
    if kind == "str":
        return rng.choice(["a", "", "G/FCFS", "gw->sink", "x,y", 'say "hi"', "two\nlines", "–", " "])
    if kind == "bool":
        return rng.random() < 0.5
    return None


def test_csv_of_random_tables_is_pandas_byte_for_byte():
    rng = random.Random(17)
    kinds = ["int", "bigint", "float", "str", "bool", "none"]
    compared = 0
    for _ in range(600):
        columns = {f"c{i}": rng.sample(kinds, rng.randint(1, 3)) for i in range(rng.randint(1, 5))}
        rows = []
        for _ in range(rng.randint(1, 6)):
            row = {
                name: _random_value(rng, rng.choice(mixed))
                for name, mixed in columns.items()
                if rng.random() < 0.9  # a missing key is NaN
            }
            rows.append(row)
        try:
            got = csv_text(rows)
        except Unsupported:
            continue
        assert got == pd.DataFrame(rows).to_csv(index=False), rows
        compared += 1
    assert compared > 350


# --- `fairsim list` reads only the [scenario] table of each bundled file ------------------------


def test_scenario_table_of_every_bundled_file_is_the_whole_parse():
    files = sorted(BUNDLED.rglob("*.toml"))
    assert len(files) > 20
    for path in files:
        text = path.read_text()
        assert scenario_table(text) == tomllib.loads(text).get("scenario", {}), path


@pytest.mark.parametrize(
    "text",
    [
        '[scenario]\nname = "a"\ndescription = """two\n[lines]\n"""\n[run]\nduration = "1s"\n',
        '[scenario]\nname = "a"\n[run]\nduration = "1s"\n[scenario.more]\nx = 1\n',
        '[scenario]\nname = "a"\n[other]\nscenario = 1\n',
        'scenario.reference = "r"\n[scenario]\nname = "a"\n',  # not TOML: both raise
        '[run]\nduration = "1s"\n',
        '[scenario] # the names\nname = "a"\ntags = [\n  "x",\n]\n[links]\n',
    ],
)
def test_scenario_table_in_files_that_are_not_simple(text):
    def outcome(read):
        try:
            return read(text)
        except tomllib.TOMLDecodeError:
            return "not TOML"

    assert outcome(scenario_table) == outcome(lambda t: tomllib.loads(t).get("scenario", {}))
