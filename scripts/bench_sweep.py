"""What a sweep costs beyond its simulations: overhead per run, locally and on a Dask cluster,
and the driver's memory on a large sweep (docs/performance.md, "Sweeps").

    python3 scripts/bench_sweep.py overhead [RUNS]       # local pool and Dask LocalCluster
    python3 scripts/bench_sweep.py memory [RUNS]         # peak RSS of the driver
    python3 scripts/bench_sweep.py driver [REPEATS]      # the driver's CPU time per point

`driver`: planning a sweep (each axis value checked) and listing its runs with their ids and
tasks, without running them, on the dumbbell (10 buffers × 2 pairs × 5 seeds) and on csfq98's
Figure 4 (10 seeds as points × 6 pairs × 5 seeds): CPU time per point, median of REPEATS (5).

The runs are the tests' small scenario cut to 10 s of simulated time (a few milliseconds each):
short runs make the overhead visible. Overhead per run = (wall time of the sweep − the runs' own
wall time summed over runs / workers) / runs: what planning, shipping, recording and the bar
add. Each figure is the median of three sweeps into fresh folders.
"""

from __future__ import annotations

import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fairsim.sweeps import sweep

from conftest import SMALL

SHORT = {"run.duration": "10s", "run.warmup": "2s", "run.interval": "2s"}


def one(path: Path, runs: int, **kw) -> tuple[float, float]:
    """Wall time of a sweep of `runs` runs and the sum of the runs' own wall times."""
    with tempfile.TemporaryDirectory() as out:
        started = time.monotonic()
        res = sweep(path, seeds=runs // 2, set=SHORT, out=out, progress=False, **kw)
        wall = time.monotonic() - started
        assert res.complete, res.failures
        return wall, float(res.runs["wall_s"].sum())


def overhead(runs: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "small.toml"
        path.write_text(SMALL)
        report("local pool, 2 processes", path, runs, workers=2, jobs=2)
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=40) as c:
            with Client(c) as client:
                report("Dask LocalCluster, 2 workers", path, runs, workers=2, client=client)


def report(label: str, path: Path, runs: int, workers: int, **kw) -> None:
    samples = [one(path, runs, **kw) for _ in range(3)]
    wall, sims = statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)
    per_run = (wall - sims / workers) / runs
    print(
        f"{label}: {runs} runs in {wall:.2f} s; simulations {sims:.2f} s of CPU "
        f"({sims / runs * 1e3:.2f} ms a run); overhead {per_run * 1e3:.2f} ms a run"
    )


def memory(runs: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "small.toml"
        path.write_text(SMALL)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        wall, _ = one(path, runs, jobs=2)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        rss = f"driver peak RSS {peak / 1024:.0f} MiB (at start {before / 1024:.0f} MiB)"
        print(f"{runs} runs in {wall:.1f} s: {rss}")


def driver(repeats: int) -> None:
    from fairsim.sweeps import make_sweep_plan

    root = Path(__file__).resolve().parent.parent / "scenarios"
    cases = [
        ("dumbbell", root / "examples/dumbbell.toml", {"links.bottleneck.buffer": "10..100:10"}),
        ("csfq98 fig4", root / "csfq98/fig4_tcp_vs_udps.toml", {"run.seed": "1..10:1"}),
    ]
    for label, path, axes in cases:
        per_point = []
        for _ in range(repeats):
            started = time.process_time()
            plan = make_sweep_plan(path, axes=axes, seeds=5)
            tasks = [r.task() for r in plan.runs()]
            per_point.append((time.process_time() - started) / len(plan.points))
        ms_a_point = 1e3 * statistics.median(per_point)
        print(f"{label}: {len(plan.points)} points, {len(tasks)} runs: {ms_a_point:.2f} ms a point")


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    what = sys.argv[1] if len(sys.argv) > 1 else "overhead"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else (5 if what == "driver" else 1000)
    {"overhead": overhead, "memory": memory, "driver": driver}[what](n)
