"""Parameter studies (`fairsim.sweep`, `fairsim sweep`): descriptions, identical results, resume,
failure isolation, the folder, and the command line. Dask is tested in test_sweep_dask.py."""

import os
import subprocess
import sys
import warnings

import pandas as pd
import pytest

import fairsim
from fairsim.sweeps import SweepError, make_sweep_plan, open_sweep, sweep
from fairsim.sweeps.axes import AxisError, values_from_text, values_from_toml

from conftest import SMALL, ctrl_c_able

FAIRSIM = [sys.executable, "-m", "fairsim.cli"]
#: SMALL, made shorter: a run takes milliseconds
SHORT = {"run.duration": "100s", "run.warmup": "20s", "run.interval": "20s"}


def cli(*args, **kw):
    return subprocess.run([*FAIRSIM, *map(str, args)], capture_output=True, text=True, timeout=300, **kw)


def texts(spec: str) -> list[str]:
    return [v.text for v in values_from_text(spec)]


# --- axes -----------------------------------------------------------------------------------


def test_ranges_are_exact_decimals_written_in_the_unit_of_their_start():
    assert texts("5..20:5") == ["5", "10", "15", "20"]
    assert texts("0.1..0.3:0.1") == ["0.1", "0.2", "0.3"], "no float drift: three points"
    assert texts("400kbps..960kbps:280kbps") == ["400kbps", "680kbps", "960kbps"]
    assert texts("500kbps..2Mbps:0.5Mbps") == ["500kbps", "1000kbps", "1500kbps", "2000kbps"]
    assert texts("1Mbps..64Mbps:*4") == ["1Mbps", "4Mbps", "16Mbps", "64Mbps"]
    assert texts("1..1000:log4") == ["1", "10", "100", "1000"]
    assert texts("5..18:5") == ["5", "10", "15"], "an end the step does not land on is not passed"


def test_quantities_are_numbers_in_base_units_in_the_tables():
    assert [v.column for v in values_from_text("10ms,1s")] == [0.01, 1.0]
    assert [v.column for v in values_from_text("1Mbps,2Mbps")] == [1e6, 2e6]
    assert [v.column for v in values_from_text("fcfs,fq")] == ["fcfs", "fq"]
    assert [v.column for v in values_from_toml([5, 10])] == [5, 10]
    assert [v.text for v in values_from_toml(["1Mbps", 3])] == ["1Mbps", "3"]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("10..5:5", "empty"),
        ("5..100:0", "zero"),
        ("5..100:5ms", "is a time, the range is of numbers"),
        ("1s..10:1", "differ in kind"),
        ("1..10:*1", "factor above 1"),
        ("1..10:log1", "at least 2"),
        ("a..b:1", "not a number"),
        ("1..1e9:1", "more than"),
        ("5,,10", "empty value"),
    ],
)
def test_bad_ranges_are_refused_with_the_reason(spec, message):
    with pytest.raises(AxisError, match=message):
        values_from_text(spec)


# --- descriptions checked before any run ----------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"axes": {"links.out.bufer": [5, 10]}},
            r"axes\['links.out.bufer'\]: value '5': .*did you mean `buffer`",
        ),
        ({"axes": {"links.out.buffer": [5, 0]}}, r"value '0': .*at least one packet"),
        ({"axes": {"links.out.buffer": "10..5:1"}}, r"axes\['links.out.buffer'\]: the range is empty"),
        ({"pairs": ["G/FQ"]}, r"no pair `G/FQ`"),
        ({"axes": {"links.out.buffer": [5, 10], "flows.ftp.window": [2]}, "mode": "zip"}, "as many values"),
        ({"axes": {"links.out.buffer": [5, 10]}, "skip": ["bufer > 3"]}, r"`bufer > 3`: no axis `bufer`"),
        ({"axes": {"links.out.buffer": [5]}, "skip": ["buffer >"]}, "not an expression"),
        ({"seeds": 0}, "count of seeds"),
        ({"axes": {"flow": {"fields": ["flows.ftp.window"], "values": [1]}}}, "a column of the results"),
        ({"axes": {"links.out.buffer": [5]}, "skip": ["True"]}, "every combination is skipped"),
    ],
)
def test_bad_descriptions_are_refused_naming_the_axis(small_path, kwargs, message):
    with pytest.raises(SweepError, match=message):
        make_sweep_plan(small_path, **kwargs)


def test_a_sweep_table_in_the_scenario_file_is_read_and_its_mistakes_located(tmp_path):
    good = tmp_path / "swept.toml"
    good.write_text(
        SMALL + '\n[sweep]\nseeds = 2\nskip = ["out_buffer > 8 and window < 3"]\n[sweep.axes]\n'
        '"links.out.buffer" = "4..12:4"\nwindow = { fields = ["flows.ftp.window"], values = [2, 5] }\n'
    )
    plan = make_sweep_plan(good)
    assert [a.name for a in plan.axes] == ["out_buffer", "window"], "`buffer` is a column of queues"
    assert len(plan.points) == 5 and len(plan) == 5 * 2 * 2, "(12, 2) skipped"
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL + '\n[sweep]\nseeds = 2\n[sweep.axes]\n"links.out.buffer" = "4..12:0"\n')
    with pytest.raises(SweepError, match=r"bad.toml:\d+:\d+: sweep.axes.links.out.buffer: the step is zero"):
        make_sweep_plan(bad)


def test_zip_moves_axes_together_and_product_combines_them(small_path):
    axes = {"links.out.buffer": [4, 8, 12], "flows.ftp.window": [1, 2, 3]}
    assert len(make_sweep_plan(small_path, axes=axes).points) == 9
    zipped = make_sweep_plan(small_path, axes=axes, mode="zip")
    assert [p.columns(zipped.axes) for p in zipped.points] == [
        {"out_buffer": 4, "window": 1},
        {"out_buffer": 8, "window": 2},
        {"out_buffer": 12, "window": 3},
    ]


# --- running: the same numbers as fairsim.run, resume, failures ----------------------------------


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep")
    path = folder / "small.toml"
    path.write_text(SMALL)
    axes = {"links.out.buffer": [4, 8], "flows.noise.rate": ["8kbps", "24kbps"]}
    res = sweep(path, axes=axes, seeds=[1, 2], set=SHORT, out=folder / "out", progress=False, jobs=2)
    return path, folder / "out", res


def test_every_run_gives_exactly_what_fairsim_run_gives_alone(swept):
    path, _, res = swept
    assert res.complete and len(res.runs) == 4 * 2 * 2
    for (buffer, rate, pair, seed), rows in res.flows.groupby(["out_buffer", "rate", "pair", "seed"]):
        noise = f"{rate / 1000:g}kbps"
        alone = fairsim.run(
            path, pair=pair, seed=seed, set={**SHORT, "links.out.buffer": buffer, "flows.noise.rate": noise}
        )
        ours = rows.drop(columns=["run_id", "out_buffer", "rate"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(ours, alone.flows, check_dtype=False)


def test_tables_are_long_with_the_axes_as_columns(swept):
    _, _, res = swept
    assert list(res.runs.columns[:6]) == ["run_id", "point", "out_buffer", "rate", "pair", "seed"]
    assert set(res.runs["status"]) == {"ok"} and (res.runs["events"] > 0).all()
    assert list(res.flows.columns[:6]) == ["run_id", "out_buffer", "rate", "pair", "seed", "flow"]
    agg = res.aggregate("goodput_pps", per_run="sum")
    assert len(agg) == 4 * 2
    assert set(agg.columns) == {"out_buffer", "rate", "pair", "mean", "std", "ci95", "n"}
    assert (agg["n"] == 2).all()
    per_flow = res.aggregate("rtt_s")
    assert "flow" in per_flow.columns and len(per_flow) == 4 * 2 * 3


def test_open_sweep_reads_the_folder_back(swept):
    _, out, res = swept
    again = open_sweep(out)
    pd.testing.assert_frame_equal(again.runs, res.runs)
    pd.testing.assert_frame_equal(again.flows, res.flows)
    assert again.manifest["fairsim_version"] == fairsim.__version__
    assert again.manifest["sweep"]["axes"][0] == {
        "name": "out_buffer",
        "fields": ["links.out.buffer"],
        "values": ["4", "8"],
    }


def test_plot_draws_a_line_per_pair_with_a_band(swept):
    _, _, res = swept
    ax = res.plot("goodput_pps", x="out_buffer", per_run="sum")
    assert len(ax.get_lines()) == 2 * 2, "a line per pair and value of the other axis"
    assert len(ax.collections) == 4, "a confidence band per line"


def test_a_sweep_run_again_runs_nothing_and_a_widened_axis_only_its_new_points(swept):
    path, out, _ = swept
    axes = {"links.out.buffer": [4, 8], "flows.noise.rate": ["8kbps", "24kbps"]}
    again = sweep(path, axes=axes, seeds=[1, 2], set=SHORT, out=out, progress=False)
    assert (again.summary.ran, again.summary.cached) == (0, 16)
    wider = sweep(
        path, axes={**axes, "links.out.buffer": [4, 8, 16]}, seeds=[1, 2], set=SHORT, out=out, progress=False
    )
    assert (wider.summary.ran, wider.summary.cached) == (8, 16)
    assert len(wider.runs) == 24 and wider.complete


def test_failed_runs_are_recorded_and_the_others_go_on(small_path, tmp_path):
    # warm-up 50 s with a 40 s run is wrong only together: each value alone is fine
    axes = {"run.duration": ["40s", "100s"], "run.warmup": ["10s", "50s"]}
    base = {"run.warmup": "10s", "run.interval": "10s"}
    res = sweep(small_path, axes=axes, pairs="G/FCFS", set=base, out=tmp_path / "o", progress=False)
    runs = res.runs.set_index(["duration", "run_warmup"])
    assert runs.loc[(40.0, 50.0), "status"] == "failed"
    assert "warmup" in runs.loc[(40.0, 50.0), "error"]
    assert (runs.drop(index=(40.0, 50.0))["status"] == "ok").all()
    assert len(res.failures) == 1 and not res.complete


def test_a_run_over_its_time_limit_is_stopped_and_recorded(small_path, tmp_path):
    res = sweep(
        small_path,
        set={"run.duration": "200040s"},
        pairs="G/FCFS",
        time_limit=0.2,
        out=tmp_path,
        progress=False,
    )
    (status, error) = res.runs.loc[0, ["status", "error"]]
    assert status == "timeout" and "time limit of 0.2 s" in error


@pytest.mark.parametrize("limit", [0, -1.5, float("nan")])
def test_a_time_limit_must_be_positive(small_path, tmp_path, limit):
    with pytest.raises(SweepError, match="time_limit must be a number of seconds above 0"):
        sweep(small_path, pairs="G/FCFS", time_limit=limit, out=tmp_path / "o", progress=False)
    assert not (tmp_path / "o").exists(), "nothing written"


def test_a_run_that_kills_its_process_fails_alone(small_path, tmp_path, monkeypatch):
    # the local pool forks: a patched worker function reaches the workers
    from fairsim.sweeps import executors

    real = executors.run_batch

    def crash_on_seed_3(tasks, stop=None):
        if any(t.seed == 3 for t in tasks):
            os._exit(9)
        return real(tasks, stop)

    monkeypatch.setattr(executors, "run_batch", crash_on_seed_3)
    res = sweep(
        small_path, seeds=[1, 2, 3, 4], set=SHORT, pairs="G/FCFS", out=tmp_path, progress=False, jobs=2
    )
    status = dict(zip(res.runs["seed"], res.runs["status"], strict=True))
    assert status == {1: "ok", 2: "ok", 3: "failed", 4: "ok"}
    assert "worker process running it died" in res.failures["error"].iloc[0]


# --- the command line -------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_sweep_writes_the_folder_and_prints_the_means(small_path, tmp_path):
    out = tmp_path / "o"
    args = [
        "sweep",
        small_path,
        "--axis",
        "links.out.buffer=4..8:4",
        "--seeds",
        2,
        "--pair",
        "G/RD",
        *[f"--set={k}={v}" for k, v in SHORT.items()],
        "--out",
        out,
        "--no-progress",
    ]
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    assert "4 runs ran, 0 were in the folder, 0 failed" in r.stderr
    assert "mean over seeds ± 95% CI" in r.stdout and "G/RD" in r.stdout
    assert " ± " in r.stdout, "two seeds: each mean with its confidence interval"
    assert len(open_sweep(out).runs) == 4
    again = cli(*args)
    assert "0 runs ran, 4 were in the folder" in again.stderr


def test_a_rebuilt_engine_says_once_that_the_folders_runs_are_not_reused(small_path, tmp_path, monkeypatch):
    """A run's id names the engine build that computes it, so a rebuilt engine runs everything
    again: the sweep says so (once: the next resume reuses the new engine's runs)."""
    import fairsim.sweeps.plan as plan
    from fairsim.sweeps.store import OtherEngine

    args = dict(
        axes={"links.out.buffer": [4, 8]}, pairs="G/RD", set=SHORT, out=tmp_path / "o", progress=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", OtherEngine)
        sweep(small_path, **args)  # a new folder: nothing to say
    monkeypatch.setattr(plan, "engine_hash", lambda: "rebuilt")
    with pytest.warns(OtherEngine, match=r"not reused: .* holds 2 runs made by another build"):
        again = sweep(small_path, **args)
    assert (again.summary.ran, again.summary.cached) == (2, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OtherEngine)
        assert sweep(small_path, **args).summary.cached == 2, "this engine's runs are reused, silently"


def test_cli_dry_run_lists_points_and_estimates_without_running(small_path, tmp_path):
    r = cli(
        "sweep",
        small_path,
        "--axis",
        "out:links.out.buffer=4,8",
        "--axis",
        "flows.ftp.window=1..3:1",
        "--seeds",
        3,
        "--dry-run",
        "--out",
        tmp_path / "o",
    )
    assert r.returncode == 0, r.stderr
    assert "6 points × 2 pairs × 3 seeds" in r.stdout
    assert "36 of 36 runs to do" in r.stderr and "estimated" in r.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--axis", "links.out.bufer=5..10:5"],
            "--axis links.out.bufer=5..10:5: value '5': links.out.bufer: unknown field",
        ),
        (["--axis", "links.out.buffer=10..5:5"], "the range is empty"),
        (["--axis", "links.out.buffer=5..10:1ms"], "the step `1ms` is a time"),
        (["--pair", "G/FQ"], "--pair G/FQ: no pair `G/FQ`"),
        (["--axis", "links.out.buffer"], "write --axis FIELD=VALUES"),
        (
            ["--axis", "links.out.buffer=4,8", "--axis", "flows.ftp.window=1", "--mode", "zip"],
            "--mode zip: zipped axes",
        ),
    ],
)
def test_cli_refuses_a_bad_description_with_exit_2_before_running(small_path, tmp_path, args, message):
    r = cli("sweep", small_path, *args, "--out", tmp_path / "o")
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "o").exists()


def test_cli_exits_3_and_lists_failures_when_some_runs_fail(small_path, tmp_path):
    r = cli(
        "sweep",
        small_path,
        "--axis",
        "run.duration=40s,100s",
        "--axis",
        "run.warmup=10s,50s",
        "--pair",
        "G/FCFS",
        "--set=run.warmup=10s",
        "--set=run.interval=10s",
        "--out",
        tmp_path / "o",
        "--no-progress",
    )
    assert r.returncode == 3, r.stderr
    assert "1 failed" in r.stderr and "failed: duration=40s, run_warmup=50s G/FCFS" in r.stderr


@pytest.mark.slow
def test_cli_interrupted_sweep_resumes_where_it_stopped(tmp_path):
    import signal
    import time

    out = tmp_path / "o"
    args = [
        "sweep",
        "examples/dumbbell",
        "--seeds",
        30,
        "--pair",
        "G/FCFS",
        "--out",
        out,
        "--no-progress",
        "-j",
        1,
        "--set=run.duration=600s",
    ]
    # a part written after every run, so that one is there long before the sweep could end
    env = {**os.environ, "FAIRSIM_TEST_HOOKS": "flush_every=0"}
    proc = subprocess.Popen(
        [*FAIRSIM, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=ctrl_c_able,
    )
    # interrupt once a run is kept (its workers, not this process, do the work)
    while proc.poll() is None and not any((out / "parts").glob("*")):
        time.sleep(0.05)
    assert proc.poll() is None, "the sweep ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=600)  # a guard against a hang, not a deadline
    assert proc.returncode == 130, stderr
    assert "run the same command to resume" in stderr
    done = len(open_sweep(out).runs) if (out / "plan.parquet").exists() else 0
    assert done > 0, "runs finished before Ctrl-C are kept"
    r = cli(*args)
    assert r.returncode == 0 and f"{done} were in the folder" in r.stderr, r.stderr


def test_resolved_scenarios_and_run_ids_are_the_same_in_every_process(tmp_path):
    # a DRR `map` was a hash map, written in a different order by each process: the resolved
    # scenario, and so the run's id, changed from one process to the next and no run was reused
    path = tmp_path / "mapped.toml"
    path.write_text(
        SMALL.replace(
            '"G/RD" = { transport = "generic", qdisc = "random_drop" }',
            '"G/DRR" = { transport = "generic", qdisc = { kind = "drr", queues = 2, '
            "map = { ftp = 0, telnet = 0, noise = 1 } } }",
        )
    )
    code = (
        "import fairsim; from fairsim.sweeps.plan import run_id; "
        f"sc = fairsim.load({str(path)!r}); print(run_id(sc.resolved_toml('G/DRR', 0), sc.draws_key(1)))"
    )
    ids = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout for _ in range(4)
    }
    assert len(ids) == 1, ids


def test_axes_from_the_file_and_from_python_are_named_together(tmp_path):
    # a Python axis over another field whose last part is the same as a file axis's keeps both,
    # each named by its last two parts; one over the same field replaces the file's
    path = tmp_path / "swept.toml"
    path.write_text(SMALL + '\n[sweep]\n[sweep.axes]\n"links.out.rate" = ["56kbps", "112kbps"]\n')
    both = make_sweep_plan(path, axes={"flows.noise.rate": ["8kbps", "16kbps"]})
    assert [a.name for a in both.axes] == ["out_rate", "noise_rate"]
    replaced = make_sweep_plan(path, axes={"links.out.rate": ["64kbps"]})
    assert [(a.name, [v.text for v in a.values]) for a in replaced.axes] == [("rate", ["64kbps"])]


@pytest.mark.slow
def test_a_sweep_says_once_when_a_pairs_seeds_cannot_differ(tmp_path):
    axes = {"links.bottleneck.buffer": [10, 20]}
    short = {"run.duration": "60s", "run.warmup": "10s", "run.interval": "10s"}
    with pytest.warns(fairsim.IdenticalSeedsWarning) as caught:
        fairsim.sweep("examples/dumbbell", axes=axes, seeds=2, pairs=["G/FCFS"], set=short, progress=False)
    said = [str(w.message) for w in caught if issubclass(w.category, fairsim.IdenticalSeedsWarning)]
    assert len(said) == 1 and "under G/FCFS" in said[0], said
    # flows whose starts are drawn for each seed differ, and nothing is said
    with warnings.catch_warnings():
        warnings.simplefilter("error", fairsim.IdenticalSeedsWarning)
        jittered = {**short, "run.start_jitter": "1s"}
        fairsim.sweep("examples/dumbbell", axes=axes, seeds=2, pairs=["G/FCFS"], set=jittered, progress=False)
    r = cli(
        "sweep",
        "examples/dumbbell",
        "--axis",
        "links.bottleneck.buffer=10,20",
        "--seeds",
        "2",
        "--pair",
        "G/FCFS",
        *(f"--set={k}={v}" for k, v in short.items()),
        "--out",
        tmp_path / "s",
        "--no-progress",
    )
    assert r.returncode == 0 and r.stderr.count("identical results under G/FCFS") == 1, r.stderr


def test_a_notebook_shows_a_sweep_with_its_values_as_written_and_times_as_times(tmp_path):
    short = {"run.duration": "60s", "run.warmup": "10s", "run.interval": "10s", "run.start_jitter": "1s"}
    axes = {"flows.firehose.rate": ["1Mbps", "2Mbps"]}
    res = fairsim.sweep(
        "examples/dumbbell", axes=axes, seeds=2, set=short, out=tmp_path / "s", progress=False
    )
    assert str(res.runs["finished_at"].dtype) == "datetime64[ns, UTC]"
    overview = res.overview()
    assert list(overview.columns) == [
        "rate",
        "pair",
        "jain",
        "jain_ci95",
        "goodput_bps",
        "goodput_bps_ci95",
        "seeds",
    ]
    assert len(overview) == 2 * 2 and (overview["seeds"] == 2).all()
    assert overview["jain_ci95"].notna().all(), "two seeds: a confidence interval"
    html = open_sweep(tmp_path / "s")._repr_html_()
    assert "<td>1Mbps</td>" in html and "<td>2Mbps</td>" in html and "<td>1e+06</td>" not in html
    assert "<table" in html and "mean over seeds ± 95% CI" in html and " ± " in html
