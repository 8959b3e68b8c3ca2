"""The transfers and slowdown tables without pandas (`fairsim.transfer_tables`) are
pandas' to the bit: quantiles against `numpy.quantile` and pandas, means against pandas'
`Series.mean` (numpy's pairwise sum), size bins against `pandas.cut`, and whole tables
against the pandas code that made them before, on random tables (hypothesis) and real runs.
Nothing here is timed."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairsim
from fairsim.slowdown_rules import fewest
from fairsim.transfer_tables import (
    COLUMNS,
    PERCENTILES,
    SLOWDOWN_COLUMNS,
    WORKLOAD_COLUMNS,
    mean,
    quantiles,
    size_bins,
    slowdown_table,
    transfer_columns,
    transfer_rows,
)
from fairsim.transfers import slowdown_frame, transfer_frame
from tests.test_workloads import fat_tree

#: pandas 3 takes `Series.quantile` to `numpy.quantile`; pandas 2 went through
#: `numpy.percentile` with q × 100, which numpy divides back (0.999 comes back an ulp off)
PANDAS_QUANTILE_IS_NUMPYS = int(pd.__version__.split(".")[0]) >= 3

#: numpy 2.3 sums a contiguous array in one pass; numpy 2.0 to 2.2 in blocks of 8,192 values
NUMPY_SUMS_WHOLE = np.lib.NumpyVersion(np.__version__) >= "2.3.0"

USED_PERCENTILES = list(PERCENTILES.values())

#: the quantiles the tables use: the percentiles, and the edges of 1 to 12 equal-count bins
USED = sorted({*PERCENTILES.values(), *(i / q for q in range(1, 13) for i in range(q + 1))})


def bits(xs) -> list[str]:
    """Floats as their exact bits (NaN and signed zeros told apart, unlike ==)."""
    return [float(x).hex() for x in xs]


# slowdowns are at least 1, sizes whole bytes; few distinct values make ties
sizes = st.lists(
    st.one_of(st.integers(0, 10**10), st.sampled_from([1460, 50_000, 10**6])), min_size=1, max_size=300
)
floats = st.lists(
    st.one_of(
        st.floats(1.0, 1e6, allow_nan=False),
        st.floats(-1e300, 1e300, allow_nan=False).map(lambda x: x + 0.0),  # no -0.0: its order is numpy's
        st.sampled_from([1.0, 1.25, 3.0]),
    ),
    min_size=1,
    max_size=300,
)
qs = st.lists(st.one_of(st.sampled_from(USED), st.floats(0.0, 1.0)), min_size=1, max_size=12)


@settings(max_examples=400, deadline=None)
@given(st.one_of(sizes, floats), qs)
def test_quantiles_are_numpys_bit_for_bit(values, q):
    assert bits(quantiles(values, q)) == bits(np.quantile(np.array(values), q))


@pytest.mark.skipif(not PANDAS_QUANTILE_IS_NUMPYS, reason="pandas 2's p99.9 is numpy.percentile's")
@settings(max_examples=200, deadline=None)
@given(st.one_of(sizes, floats))
def test_quantiles_are_pandas_bit_for_bit_at_the_quantiles_used(values):
    assert bits(quantiles(values, USED)) == bits(pd.Series(values).quantile(USED))


means = st.lists(
    st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=64), st.just(math.nan)), max_size=600
)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # a sum past the largest float
@settings(max_examples=400, deadline=None)
@given(means)
def test_mean_is_pandas_bit_for_bit(values):
    assert bits([mean(values)]) == bits([pd.Series(values, dtype=float).mean()])


def test_mean_of_long_columns_is_pandas_bit_for_bit():
    # numpy's pairwise sum halves past 128 values: lengths across several levels of it
    rng = random.Random(50)
    for n in [*range(120, 140), 255, 256, 257, 1023, 1025, 8191, 8193, 65_537, 200_001]:
        if n > 8192 and not NUMPY_SUMS_WHOLE:
            continue
        values = [rng.expovariate(1.0) * 10 ** rng.randint(-6, 3) for _ in range(n)]
        if n % 2:
            values[rng.randrange(n)] = math.nan
        assert bits([mean(values)]) == bits([pd.Series(values).mean()]), n


@settings(max_examples=300, deadline=None)
@given(sizes, st.one_of(st.integers(1, 12), st.lists(st.integers(0, 2 * 10**6), max_size=4, unique=True)))
def test_size_bins_are_pandas_cut(values, bins):
    series = pd.Series(values)
    if isinstance(bins, int):
        q = min(bins, len(values))
        edges = pd.Series(np.quantile(series, [i / q for i in range(q + 1)])).drop_duplicates().tolist()
        one = len(edges) < 2
        want = [0] * len(values) if one else pd.cut(series, edges, labels=False, include_lowest=True)
    else:
        want = pd.cut(series, [-1.0, *sorted(float(e) for e in bins), float("inf")], labels=False)
    assert size_bins(values, bins) == [int(b) for b in want]


def pandas_slowdown_frame(transfers: pd.DataFrame, bins) -> pd.DataFrame:
    """`fairsim.transfers.slowdown_frame` made with pandas (the quantiles numpy's, as pandas 3
    takes them: `PANDAS_QUANTILE_IS_NUMPYS`): the warm-up's transfers left out, one set of
    equal-count edges per workload cut from every pair's transfers, percentiles NaN below
    Wilks' count."""
    sized = transfers.dropna(subset=["ideal_fct_s"])
    sized = sized[~sized["warmup"]] if "warmup" in sized else sized
    edges = {}
    for flow, group in sized.groupby("flow", sort=False):
        if isinstance(bins, int):
            q = min(bins, len(group))
            cut = np.quantile(group["bytes"].to_numpy(), [i / q for i in range(q + 1)])
            edges[flow] = pd.Series(cut).drop_duplicates().tolist()[1:-1]
        else:
            edges[flow] = sorted(float(e) for e in bins)
    rows = []
    for (pair, flow), group in sized.groupby(["pair", "flow"], sort=False):
        upper = [-1.0, *edges[flow], float("inf")]
        cut = pd.cut(group["bytes"], upper, labels=False)
        for b, part in group.groupby(cut, sort=True):
            unfinished = int(part["unfinished"].sum())
            q = np.quantile(part["slowdown_so_far"].to_numpy(), list(PERCENTILES.values())).tolist()
            q = [x if len(part) >= fewest(p) else math.nan for x, p in zip(q, USED_PERCENTILES, strict=True)]
            fct = part["slowdown_so_far"] * part["ideal_fct_s"]
            row = [pair, flow, int(b), upper[int(b) + 1], len(part), unfinished, int(part["bytes"].max()), *q]
            rows.append([*row, fct.mean(), unfinished > 0])
    return pd.DataFrame(rows, columns=SLOWDOWN_COLUMNS)


@st.composite
def transfer_tables(draw):
    n = draw(st.integers(1, 200))
    column = lambda elements: draw(st.lists(elements, min_size=n, max_size=n))  # noqa: E731
    ideal = column(st.one_of(st.floats(1e-6, 1e-2), st.just(math.nan)))
    return pd.DataFrame(
        {
            "pair": column(st.sampled_from(["G/FCFS", "ndp"])),
            "flow": column(st.sampled_from(["w", "m"])),
            "bytes": column(st.one_of(st.integers(1, 10**8), st.sampled_from([1460, 20_000, 10**6]))),
            "unfinished": column(st.booleans()),
            "ideal_fct_s": ideal,
            "slowdown_so_far": column(st.one_of(st.floats(1.0, 1e4), st.sampled_from([1.0, 2.5]))),
            "warmup": column(st.sampled_from([False, False, False, True])),
        }
    ).assign(slowdown=lambda df: df["slowdown_so_far"])


@settings(max_examples=200, deadline=None)
@given(transfer_tables(), st.one_of(st.integers(1, 12), st.just([100e3, 10e6])))
def test_the_slowdown_table_is_the_pandas_one(transfers, bins):
    want = pandas_slowdown_frame(transfers, bins).to_dict("records")
    assert repr(slowdown_frame(transfers, bins).to_dict("records")) == repr(want)
    columns = {name: transfers[name].tolist() for name in transfers}
    assert repr(slowdown_table(columns, bins)) == repr(want)


def old_transfer_frame(runs: list[dict]) -> pd.DataFrame:
    """`fairsim.transfers.transfer_frame` made with pandas, as fairsim once made it, with each
    transfer's row in its run and whether it arrived in the warm-up."""
    frames = []
    for r in runs:
        t = r.get("transfers")
        if not t or not t["flow"]:
            continue
        names = [f["name"] for f in r["flows"]]
        df = pd.DataFrame(
            {
                "pair": r["pair"],
                "seed": r["seed"],
                "flow": [names[i] for i in t["flow"]],
                "transfer": range(len(t["flow"])),
                "arrival_s": t["arrival_s"],
                "warmup": [a < r["measurement"]["warmup_s"] for a in t["arrival_s"]],
                "finish_s": pd.array(t["finish_s"], dtype="Float64").astype(float),
                "bytes": t["bytes"],
                "sent": t["sent"],
                "retransmitted": t["retransmitted"],
                "delivered": t["delivered"],
            }
        )
        # in whole nanoseconds, as the engine keeps time
        df["response_s"] = ((df["finish_s"] * 1e9).round() - (df["arrival_s"] * 1e9).round()) / 1e9
        df["unfinished"] = df["finish_s"].isna()
        columns = COLUMNS
        if t.get("src"):
            df["src"] = [t["nodes"][i] for i in t["src"]]
            df["dst"] = [t["nodes"][i] for i in t["dst"]]
            df["fct_s"] = df["response_s"]
            df["ideal_fct_s"] = pd.array(t["ideal_s"], dtype="Float64").astype(float)
            df["slowdown"] = (df["fct_s"] * 1e9).round() / (df["ideal_fct_s"] * 1e9).round()
            elapsed = (r["simulated_s"] - df["arrival_s"]) / df["ideal_fct_s"]
            df["slowdown_so_far"] = df["slowdown"].fillna(elapsed.clip(lower=1.0))
            df["window_bdp"] = pd.array(t["window_bdp"], dtype="Float64").astype(float)
            columns = COLUMNS + WORKLOAD_COLUMNS
        frames.append(df[columns])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)


@pytest.fixture(scope="module")
def runs():
    """A workload whose run ends with transfers under way, over two seeds; and open-population
    files without a workload (blt94), as runs of one table."""
    web = 'pattern = "poisson"\nsizes = "websearch"\nload = 0.8'
    workload = fairsim.run(fat_tree(web, duration="3ms"), seeds=2, progress=False)
    files = fairsim.run(
        "blt94/network",
        set=["run.duration=15s", "run.warmup=5s", "run.interval=5s", "run.transfer_rows=true"],
        progress=False,
    )
    return workload.runs + files.runs


def test_the_transfers_table_is_the_pandas_one(runs):
    assert any(math.isnan(x) for r in runs[:2] for x in transfer_columns(r)["finish_s"])
    for chosen in (runs[:2], runs[2:], runs, runs[::-1]):
        pd.testing.assert_frame_equal(transfer_frame(chosen), old_transfer_frame(chosen), check_exact=True)
    rows = [row for r in runs for row in transfer_rows(r)]
    assert pd.DataFrame(rows).to_csv(index=False) == old_transfer_frame(runs).to_csv(index=False)


def test_the_slowdown_table_of_real_runs_is_the_pandas_one(runs):
    transfers = old_transfer_frame(runs)
    for bins in (10, 4, [100e3, 10e6]):
        got = slowdown_frame(transfer_frame(runs), bins)
        want = pandas_slowdown_frame(transfers, bins)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        assert got["lower_bound"].any()
