"""One source for every number: the interval rows' rates and means come from the
engine (`stats::metrics`), which also computes the summaries from them, and a sweep's axes read
units from the engine's own catalogue (`units::catalogue`)."""

from __future__ import annotations

import math

import pytest

import fairsim
from fairsim import _core
from fairsim.sweeps.axes import UNITS, parse_quantity

SHORT = {"run.duration": "120s", "run.warmup": "20s", "run.interval": "20s"}


def test_interval_rows_carry_the_engines_rates_and_the_summaries_are_their_means(small_path):
    res = fairsim.run(small_path, pair="G/FCFS", set=SHORT, progress=False)
    iv = res.intervals
    secs = iv["end_s"] - iv["start_s"]
    # by hand from the counters of each row
    assert (iv["goodput_bps"] - iv["bytes_unique"] * 8 / secs).abs().max() < 1e-6
    assert (iv["drop_pps"] - iv["dropped"] / secs).abs().max() < 1e-9
    has_rtt = iv["rtt_samples"] > 0
    assert ((iv["rtt_s"] - iv["rtt_sum_ns"] / iv["rtt_samples"] / 1e9)[has_rtt]).abs().max() < 1e-12
    assert iv.loc[~has_rtt, "rtt_s"].isna().all(), "no sample, no mean"
    # each flow's summary is the mean of its measured intervals' values, exactly
    for f in res.runs[0]["flows"]:
        rows = iv[(iv["flow"] == f["name"]) & ~iv["warmup"]]
        for metric in ("goodput_bps", "throughput_pps", "retransmit_pps", "drop_pps"):
            assert f[metric]["mean"] == pytest.approx(rows[metric].mean(), rel=1e-12), (f["name"], metric)
    q = res.queue_intervals
    assert ((q["utilisation"] - q["busy_ns"] / 1e9 / (q["end_s"] - q["start_s"])).abs() < 1e-12).all()


def test_axes_read_units_from_the_engines_catalogue():
    table = _core.units()
    assert {name for name, _, _ in table} == set(UNITS)
    for name, dimension, factor in table:
        q = parse_quantity(f"3{name}")
        base = 3 * factor / (1e9 if dimension == "time" else 1)
        assert q is not None and math.isclose(float(q.base), base), name
        assert UNITS[name][0] == dimension
    # the engine reads every spelling the axes accept, to the same value
    sc = fairsim.loads(
        'nodes = ["a", "b"]\n[run]\nduration = "1s"\n'
        '[links]\nl = { between = ["a", "b"], rate = "1.5Mb/s", delay = "2µs" }\n'
        '[flows]\nf = { src = "a", dst = "b", app = "cbr", rate = "10kbit/s" }\n'
    )
    link = sc.resolved(sc.pairs[0])["links"]["l"]["forward"]
    assert (link["rate"], link["delay"]) == ("1.5Mbps", "2us")


def test_the_dataframes_are_the_engines_catalogue_laid_out(small_path):
    """Every column the engine's catalogue lists is in its DataFrame, in the catalogue's order
    (a summary with `_std` and `_ci95`): a metric added to the engine's report and catalogue
    reaches Python with no Python edited (`drop_fraction` of the queues was added so)."""
    res = fairsim.run(small_path, pair="G/FCFS", set=SHORT, progress=False)
    frames = {
        "flows": res.flows,
        "queues": res.queues,
        "intervals": res.intervals,
        "queue_intervals": res.queue_intervals,
    }
    for table, frame in frames.items():
        listed = []
        for t, name, _, _, source in _core.columns():
            if t == table:
                listed += [name, f"{name}_std", f"{name}_ci95"] if source == "summary" else [name]
        shown = [c for c in frame.columns if c in set(listed)]
        assert shown == listed, table
    bottleneck = res.queues[res.queues["drops"] > 0].iloc[0]
    assert 0 < bottleneck["drop_fraction"] < 1
    drops, arrivals = bottleneck["drops"], bottleneck["arrivals"]
    assert bottleneck["drop_fraction"] == pytest.approx(drops / arrivals, rel=0.2), (
        "per interval, then averaged"
    )


def test_derived_figures_python_reads_are_the_engines():
    """Jain's index, the window figures of summed counters, and quantities in base units come
    from the engine, not from Python copies of its arithmetic."""
    from fairsim.reproduce.measure import _seconds
    from fairsim.results import jain_index

    assert jain_index([1.0, 1.0, 1.0, 1.0]) == 1.0 and jain_index([1.0, 0.0, 0.0, 0.0]) == 0.25
    assert math.isnan(jain_index([])) and math.isnan(jain_index([0.0, 0.0]))
    assert _seconds("49.983us") == 49_983e-9 and _seconds("0s") == 0.0
    assert _core.parse("buffer", "64KB") == ("bytes", 64_000) and _core.parse("buffer", "20") == (
        "packets",
        20,
    )
    with pytest.raises(ValueError, match="unknown rate unit"):
        _core.parse("rate", "10Mbit")
    import json

    two = [
        {"rtt_first_samples": 1, "rtt_first_sum_ns": 100_000_000},
        {"rtt_first_samples": 3, "rtt_first_sum_ns": 900_000_000},
    ]
    assert json.loads(_core.flow_metrics(two, 2.0))["rtt_first_s"] == pytest.approx(0.25), (
        "every sample alike"
    )
