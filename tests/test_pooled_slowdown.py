"""Completion times over a study's seeds (python/fairsim/slowdown_rules.py, sweeps/pooled.py,
bootstrap.py): one warm-up rule in every table, size bins fixed for the study whatever each
seed draws, percentiles pooled from the transfers themselves with a seed-bootstrap interval
that stays within a slowdown's range, percentiles a bin cannot support left out, and the
sweep's transfers recorded, read back and printed. Nothing here is timed."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import fairsim
from fairsim.bootstrap import interval, resampled_quantiles, seed_weights
from fairsim.slowdown_rules import fewest
from fairsim.sweeps.pooled import completion_times
from fairsim.transfer_tables import slowdown_table
from tests.test_workloads import FAT_TREE

#: small files (1 KB to 60 KB) arriving fast on a k = 4 fat-tree: over a thousand transfers a
#: run in 2 ms of simulated time, a few hundred of them in the warm-up
CDF = "# bytes probability\n1000 0\n1000 0.3\n20000 0.8\n60000 1\n"
WORKLOAD = 'pattern = "poisson"\nsizes = "small.cdf"\nload = 0.6\nstop = "1.5ms"'
WARMUP = {"run.warmup": "0.3ms"}


def fairsim_cli(*args) -> subprocess.CompletedProcess:
    """`fairsim ARGS...` in a process of its own, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "fairsim.cli", *map(str, args)], capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def scenario_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pooled")
    (folder / "small.cdf").write_text(CDF)
    path = folder / "small_files.toml"
    path.write_text(FAT_TREE.replace("DURATION", "2ms").replace("WORKLOAD", WORKLOAD))
    return path


@pytest.fixture(scope="module")
def study(scenario_path, tmp_path_factory):
    """Three seeds at two loads, with every transfer recorded."""
    return fairsim.sweep(
        scenario_path,
        {"workloads.w.load": [0.3, 0.6]},
        seeds=3,
        set=WARMUP,
        tables=["transfers", "transfer_summary"],
        out=tmp_path_factory.mktemp("study"),
        jobs=1,
        progress=False,
    )


# --- the rules -----------------------------------------------------------------------------------


def test_wilks_counts_are_the_fewest_transfers_a_percentile_needs():
    assert [fewest(q) for q in (0.5, 0.95, 0.99, 0.999)] == [5, 59, 299, 2995]
    for q in (0.5, 0.95, 0.99, 0.999):
        n = fewest(q)
        assert q**n <= 0.05 < q ** (n - 1), "the largest of n bounds the percentile at 95%, of n - 1 not"
    columns = {
        "pair": ["p"] * 300,
        "flow": ["w"] * 300,
        "bytes": [1000] * 300,
        "unfinished": [False] * 300,
        "ideal_fct_s": [1e-5] * 300,
        "slowdown_so_far": [1.0 + i / 100 for i in range(300)],
        "warmup": [False] * 300,
    }
    (row,) = slowdown_table(columns, 10)
    assert row["count"] == 300 and not math.isnan(row["p99"]), "299 transfers support a p99"
    assert math.isnan(row["p999"]), "300 do not support a p99.9"
    few = {name: values[:4] for name, values in columns.items()}
    assert math.isnan(slowdown_table(few, 10)[0]["p50"]), "4 transfers support no median"


def test_a_run_prints_a_dash_for_a_percentile_its_bins_cannot_support(scenario_path):
    shown = fairsim_cli("run", scenario_path, "--no-progress")
    assert shown.returncode == 0, shown.stderr
    assert "too few transfers in the bin for the percentile" in shown.stdout
    assert "p99.9 needs 2,995" in shown.stdout
    table = shown.stdout.split("size up to", 1)[1].split("slowdown:", 1)[0]
    rows = [line.split() for line in table.splitlines()[1:] if line.strip()]
    assert rows and all("–" in row for row in rows), "a dash in every row: none supports a p99.9"
    table = fairsim.run(scenario_path, progress=False).slowdown(10)
    assert table["p999"].isna().all() and table["p50"].notna().all() and len(table) == len(rows)


# --- the warm-up ---------------------------------------------------------------------------------


def test_warmup_is_left_out_alike_in_the_slowdown_table_the_transfer_summary_and_the_first_screen(
    scenario_path,
):
    res = fairsim.run(scenario_path, seeds=2, set=WARMUP, progress=False)
    t = res.transfers
    warm = t["arrival_s"] < 0.3e-3
    assert warm.any() and (t["warmup"] == warm).all(), (
        "every transfer arriving in the warm-up, and only those"
    )
    summary = res.transfer_summary
    table = res.slowdown(10)
    assert table["count"].sum() == summary["arrivals"].sum() == (~t["warmup"]).sum()
    assert table["unfinished"].sum() == summary["unfinished"].sum()
    for seed in (1, 2):
        one = res.transfers[res.transfers["seed"] == seed]
        assert (~one["warmup"]).sum() == summary.loc[summary["seed"] == seed, "arrivals"].item()
    rows = res.to_dict()["completion_times"]
    assert sum(r["count"] for r in rows) == summary["arrivals"].sum(), "the JSON's table too"
    assert f"{summary['arrivals'].sum():,} transfers arriving after the 300 µs warm-up" in res.summary()


# --- bins fixed for a study ----------------------------------------------------------------------


def test_two_seeds_that_draw_different_sizes_get_the_same_bin_edges(study):
    t = study.transfers
    sizes = [sorted(t.loc[(t["seed"] == s) & (t["load"] == 0.6), "bytes"]) for s in (1, 2)]
    assert sizes[0] != sizes[1], "the seeds drew different sizes"
    per_seed = study.completion_times(10, by=["load", "pair", "seed"])
    edges = per_seed.groupby(["load", "seed"])["up_to_bytes"].apply(tuple)
    assert edges.nunique() == 1 and len(edges.iloc[0]) > 3, "one set of edges for every seed and load"
    own = [
        fairsim.transfer_tables.study_edges(
            {name: list(g[name]) for name in ("flow", "bytes", "ideal_fct_s", "warmup")}, 10
        )["w"]
        for _, g in t.groupby("seed")
    ]
    assert own[0] != own[1], "each seed's own equal-count edges differ: the study's are not those"


def test_a_runs_tables_of_each_seed_are_in_the_same_bins(scenario_path):
    shown = fairsim_cli(
        "run", scenario_path, "--seeds", 2, "--per-seed", "--set", "run.warmup=0.3ms", "--no-progress"
    )
    assert shown.returncode == 0, shown.stderr
    tables = [part.split("slowdown:", 1)[0] for part in shown.stdout.split("size up to")[1:]]
    sizes = [[" ".join(line.split()[:2]) for line in t.splitlines()[1:] if line.strip()] for t in tables]
    # the upper edges; the last bin, which has none, shows its largest size, each seed's own
    assert len(sizes) == 2 and len(sizes[0]) > 3 and sizes[0][:-1] == sizes[1][:-1], sizes


def test_a_runs_slowdown_csv_has_each_seed_in_the_same_bins(scenario_path, tmp_path):
    from fairsim.output import write_results

    res = fairsim.run(scenario_path, seeds=2, set=WARMUP, progress=False)
    write_results(res, tmp_path)
    table = pd.read_csv(tmp_path / "slowdown.csv")
    edges = table.groupby("seed")["up_to_bytes"].apply(tuple)
    assert len(edges) == 2 and edges.nunique() == 1 and len(edges.iloc[0]) > 3
    assert table["count"].sum() == res.transfer_summary["arrivals"].sum()


# --- pooled percentiles and their intervals ------------------------------------------------------


def test_the_pooled_p99_is_the_p99_of_the_transfers_of_every_seed_together(study):
    t = study.transfers
    for bins in ([], 10):
        pooled = study.completion_times(bins)
        measured = t[~t["warmup"]]
        for (load, b), row in pooled.set_index(["load", "bin"]).iterrows():
            edges = [-1.0, *([] if bins == [] else sorted(pooled["up_to_bytes"].unique())[:-1]), math.inf]
            part = measured[(measured["load"] == load)]
            part = part[(part["bytes"] > edges[b]) & (part["bytes"] <= edges[b + 1])]
            assert row["count"] == len(part) and row["seeds"] == 3
            want = np.quantile(part["slowdown_so_far"].to_numpy(), [0.5, 0.99])
            assert row["p50"] == want[0]
            if len(part) >= 299:
                assert row["p99"] == want[1]
            else:
                assert math.isnan(row["p99"])
    whole = study.completion_times([])
    assert (whole["count"] >= 299).all() and whole["p99"].notna().all(), "one bin of all sizes has a p99"


def test_the_interval_of_a_slowdown_never_falls_below_1(study):
    table = study.completion_times(10)
    lows = table[[f"{p}_low" for p in ("p50", "p95", "p99", "p999")]].stack().dropna()
    assert len(lows) > 10 and (lows >= 1).all()
    assert (table["p50_low"] <= table["p50_high"]).all()
    # seeds whose slowdowns sit at 1 but for one slow seed: mean ± t·s over the seeds' medians
    # would reach below 1; the bootstrap's interval is of pooled medians, each at least 1
    rows = []
    for seed, spread in ((1, 0.0), (2, 0.0), (3, 0.0), (4, 9.0)):
        rows += [(seed, 1.0 + spread * i / 40) for i in range(40)]
    frame = pd.DataFrame(rows, columns=["seed", "slowdown_so_far"]).assign(
        pair="p", flow="w", bytes=1000, unfinished=False, ideal_fct_s=1e-5, warmup=False
    )
    medians = frame.groupby("seed")["slowdown_so_far"].median()
    t_low = medians.mean() - 3.182 * medians.std() / 2
    assert t_low < 1, "Student's t over per-seed figures goes below 1 here"
    (row,) = completion_times(frame, ["pair"], 10).to_dict("records")
    assert row["p50_low"] >= 1 and row["p95_low"] >= 1 and row["p95_high"] > row["p95_low"]


def test_the_bootstrap_resamples_whole_seeds_and_repeats_itself():
    rng = np.random.default_rng(5)
    values = 1 + rng.exponential(size=60)
    seed = rng.integers(0, 5, size=60)
    got = resampled_quantiles(values, seed, 5, [0.5, 0.9])
    weights = seed_weights(5)
    for b in range(40):  # each resample is the seeds it drew, pooled: values repeated by draws
        sample = np.concatenate([np.repeat(values[seed == s], weights[b, s]) for s in range(5)])
        assert np.allclose(got[b], np.quantile(sample, [0.5, 0.9]))
    again = resampled_quantiles(values, seed, 5, [0.5, 0.9])
    assert np.array_equal(got, again, equal_nan=True)
    low, high = interval(got, floor=1.0)
    assert (low >= 1).all() and (low <= high).all()


# --- aggregate and plot --------------------------------------------------------------------------


def test_aggregate_and_plot_pool_the_transfers_of_every_seed(study):
    agg = study.aggregate("p50", table="slowdown")
    pooled = study.completion_times(10)
    assert agg["value"].tolist() == pooled["p50"].tolist() and (agg["n"] == 3).all()
    assert {"low", "high", "size_bin", "transfers"} <= set(agg.columns)
    assert agg["size_bin"].iloc[0].startswith("≤ ") and agg["size_bin"].iloc[-1].startswith("> ")
    ax = study.plot("p50", table="slowdown", bins=[20e3])
    assert len(ax.get_lines()) == 2 and "pooled over 3 seeds" in ax.get_ylabel()
    with pytest.raises(fairsim.FairsimError, match="no figure `p98`"):
        study.aggregate("p98", table="slowdown")


def test_without_transfers_percentiles_over_unlike_bins_are_refused(scenario_path, tmp_path):
    s = fairsim.sweep(
        scenario_path, seeds=2, set=WARMUP, tables=["slowdown"], out=tmp_path, jobs=1, progress=False
    )
    assert s.slowdown.groupby("bin")["up_to_bytes"].nunique().max() > 1, "each run cut its own bins"
    with pytest.raises(fairsim.FairsimError, match="record transfers"):
        s.aggregate("p99", table="slowdown")
    with pytest.raises(fairsim.FairsimError, match="record transfers"):
        s.completion_times()


def test_without_transfers_runs_in_the_same_bins_are_averaged_per_bin(tmp_path):
    (tmp_path / "one.cdf").write_text("20000 0\n20000 1\n")  # one size: one bin in every run
    workload = WORKLOAD.replace("small.cdf", "one.cdf")
    path = tmp_path / "one_size.toml"
    path.write_text(FAT_TREE.replace("DURATION", "2ms").replace("WORKLOAD", workload))
    s = fairsim.sweep(path, seeds=2, tables=["slowdown"], out=tmp_path / "s", jobs=1, progress=False)
    agg = s.aggregate("p50", table="slowdown")
    assert len(agg) == 1 and agg["n"].item() == 2 and agg["bin"].item() == 0


# --- recording transfers -------------------------------------------------------------------------


def test_record_transfers_writes_a_parquet_with_one_row_per_transfer(scenario_path, tmp_path):
    out = tmp_path / "recorded"
    recorded = ("--record", "transfers", "--out", out, "--no-progress")
    proc = fairsim_cli(
        "sweep", scenario_path, "--seeds", 2, "--jobs", 1, "--set", "run.warmup=0.3ms", *recorded
    )
    assert proc.returncode == 0, proc.stderr
    files = sorted(out.glob("parts/*/transfers.parquet"))
    assert files, "a transfers table in a committed part"
    read = pd.concat([pq.read_table(f).to_pandas() for f in files], ignore_index=True)
    res = fairsim.run(scenario_path, seeds=2, set=WARMUP, progress=False)
    assert len(read) == len(res.transfers) and not read.duplicated(["run_id", "transfer"]).any()
    mine = read.sort_values(["seed", "transfer"]).reset_index(drop=True)
    assert mine["slowdown_so_far"].tolist() == res.transfers["slowdown_so_far"].tolist()
    assert mine["warmup"].tolist() == res.transfers["warmup"].tolist()
    for f in files:  # each is in its part's commit record, which readers check it against
        record = json.loads((f.parent / "commit.json").read_text())
        assert record["tables"]["transfers"]["rows"] == pq.ParquetFile(f).metadata.num_rows
    assert len(fairsim.open_sweep(out).transfers) == len(read)


def test_a_notebook_shows_a_workloads_pooled_completion_times_not_jains_index(scenario_path, tmp_path):
    plain = fairsim.sweep(scenario_path, seeds=2, out=tmp_path / "plain", jobs=1, progress=False)
    assert "Jain" in plain._repr_html_(), "without transfers: the overview"
    s = fairsim.sweep(
        scenario_path, seeds=2, out=tmp_path / "t", tables=["transfers"], jobs=1, progress=False
    )
    html = s._repr_html_()
    assert "pooled over seeds" in html and "p50 slowdown" in html and "Jain" not in html
    first = s.completion_times().iloc[0]
    assert f"{first['p50']:.2f}" in html


def test_a_sweep_asked_for_transfers_runs_again_the_runs_recorded_without(scenario_path, tmp_path):
    first = fairsim.sweep(scenario_path, seeds=2, out=tmp_path, jobs=1, progress=False)
    assert first.summary.ran == 2 and first.transfers.empty
    again = fairsim.sweep(scenario_path, seeds=2, out=tmp_path, tables=["transfers"], jobs=1, progress=False)
    assert again.summary.ran == 2 and again.summary.cached == 0
    assert set(again.transfers["seed"]) == {1, 2}
    third = fairsim.sweep(scenario_path, seeds=2, out=tmp_path, tables=["transfers"], jobs=1, progress=False)
    assert third.summary.ran == 0 and third.summary.cached == 2
    plain = fairsim.sweep(scenario_path, seeds=2, out=tmp_path, jobs=1, progress=False)
    assert plain.summary.ran == 0, "a run recorded with more tables serves a sweep asking for fewer"
    wider = fairsim.sweep(scenario_path, seeds=3, out=tmp_path, jobs=1, progress=False)
    assert wider.summary.ran == 1
    with pytest.raises(fairsim.FairsimError, match="1 finished run of the sweep recorded without"):
        wider.completion_times()


def test_record_is_read_from_the_sweep_table_and_its_mistakes_located(scenario_path, tmp_path):
    path = tmp_path / "recording.toml"
    text = scenario_path.read_text().replace(
        '"small.cdf"', f'"{scenario_path.with_name("small.cdf").as_posix()}"'
    )
    path.write_text(text + '\n[sweep]\nseeds = 2\nrecord = ["transfers"]\n')
    s = fairsim.sweep(path, out=tmp_path / "s", jobs=1, progress=False)
    assert set(s.transfers["seed"]) == {1, 2} and s.manifest["sweep"]["record"] == ["transfers"]
    path.write_text(text + '\n[sweep]\nrecord = ["transfer"]\n')
    with pytest.raises(
        fairsim.FairsimError, match=r"recording.toml:\d+:\d+: sweep.record.*did you mean `transfers`"
    ):
        fairsim.sweep(path, out=tmp_path / "t", progress=False)


# --- what `fairsim sweep` prints -----------------------------------------------------------------


def sweep_cli(scenario_path, out, *extra):
    """A sweep of two loads and two seeds from the command line, into `out`."""
    axis = ("--axis", "workloads.w.load=0.3,0.6", "--seeds", 2, "--jobs", 1, "--set", "run.warmup=0.3ms")
    return fairsim_cli("sweep", scenario_path, *axis, "--out", out, "--no-progress", *extra)


def test_the_sweep_prints_a_workloads_completion_times_pooled_over_seeds(scenario_path, tmp_path):
    proc = sweep_cli(scenario_path, tmp_path / "printed", "--record", "transfers")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "completion-time slowdown by size, pooled over seeds" in out
    for heading in ("load", "size", "transfers", "seeds", "p50 slowdown", "p99", "p99.9", "mean FCT"):
        assert heading in out, out
    assert "Jain" not in out and "goodput" not in out, "not a fair share of one flow"
    assert "95% interval from resampling whole seeds" in out and "p99 needs 299" in out
    pooled = fairsim.open_sweep(tmp_path / "printed").completion_times()
    first = pooled.iloc[0]
    assert f"{first['p50']:.2f} ({first['p50_low']:.2f}–{first['p50_high']:.2f})" in out
    assert f"{first['count']:,}" in out


def test_the_sweep_says_how_to_see_completion_times_when_transfers_were_not_recorded(scenario_path, tmp_path):
    proc = sweep_cli(scenario_path, tmp_path / "unrecorded")
    assert proc.returncode == 0, proc.stderr
    assert "--record transfers" in proc.stderr and "workload w" in proc.stderr
    assert "Jain" not in proc.stdout
