"""Resident memory of one run through the Python package, phase by phase (docs/performance.md,
"Memory", "A k = 64 fat-tree"):

    python3 scripts/measure_memory.py SCENARIO [--pair PAIR] [--set KEY=VALUE ...] [--json] [--via-json]

Does in one process what `fairsim run SCENARIO` does (`--json`: `fairsim run --json`), one step
at a time, and prints a line per phase: the resident memory after it (`VmRSS`) and its own peak
(`VmHWM`, reset before the phase through /proc/self/clear_refs, so each phase's peak is its
own, not the process's so far). Phases: loading and validating the scenario, building the run,
running it, the engine's report (its long tables as Arrow columns, `fairsim.columns`; with
`--via-json` as one JSON text, then parsed into Python's dicts, to compare), and the
tables `fairsim run` prints (or the JSON document it prints). Linux only.

The engine alone: `cargo run --release --example memory -- SCENARIO [KEY=VALUE ...]`.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import time

#: The phases' names, in order, as printed.
PHASES = ("import", "load", "build", "run", "report_columns", "report_json", "parse", "tables")


def status_mib(field: str) -> float:
    with open("/proc/self/status") as status:
        found = re.search(rf"{field}:\s+(\d+)", status.read())
    return int(found.group(1)) / 1024 if found else float("nan")


def reset_peak() -> None:
    """The peak (`VmHWM`) set back to the present resident memory (Linux 4.0 and later)."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


class Phases:
    """Each phase's wall time, resident memory after it and peak within it."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self.started = time.monotonic()
        reset_peak()

    def done(self, name: str) -> None:
        now = time.monotonic()
        row = {
            "phase": name,
            "s": round(now - self.started, 2),
            "rss_mib": round(status_mib("VmRSS"), 1),
            "peak_mib": round(status_mib("VmHWM"), 1),
        }
        self.rows.append(row)
        print(json.dumps(row), flush=True)
        reset_peak()
        self.started = time.monotonic()


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("scenario")
    parser.add_argument("--pair")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true", help="the JSON document instead of the tables")
    parser.add_argument(
        "--via-json",
        action="store_true",
        help="the report as JSON text parsed into dicts, not as Arrow columns",
    )
    args = parser.parse_args()
    phases = Phases()
    import fairsim
    from fairsim.memory import return_freed
    from fairsim.results import Results
    from fairsim.runner import CHUNK

    phases.done("import")
    sc = fairsim.load(args.scenario, set=args.sets)
    phases.done("load")
    sim = sc._core.simulation(args.pair or sc.pairs[0], None)
    phases.done("build")
    while not sim.step(CHUNK):
        pass
    phases.done("run")
    if args.via_json:
        text = sim.report_json()
        del sim
        return_freed(len(text))
        phases.done("report_json")
        report = json.loads(text)
        del text
        phases.done("parse")
    else:
        from fairsim.columns import report_of

        report, size = report_of(sim)
        del sim
        return_freed(size)
        phases.done("report_columns")
    meta = {"name": sc.name, "file": sc.file, "description": sc.description, "overrides": sc.overrides}
    results = Results(meta, [report], source=sc)
    if args.json:
        out = results.to_json()
    else:
        from fairsim.table_parts import console, emit
        from fairsim.tables import all_tables

        screen = console()
        screen.file = io.StringIO()
        emit(all_tables(results), screen)
        out = screen.file.getvalue()
    phases.done("tables")
    peak = max(r["peak_mib"] for r in phases.rows)
    print(json.dumps({"peak_mib": peak, "output_chars": len(out)}))


if __name__ == "__main__":
    main()
