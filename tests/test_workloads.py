"""Data-centre workloads (`[workloads]`: crates/fairsim/src/scenario/validate/
workloads.rs, traffic/population.rs) and completion-time slowdown (engine/arrivals.rs
`ideal_fct`, python/fairsim/transfers.py): patterns, rates and sizes, the ideal completion time
by hand, and mistakes named at their place."""

import subprocess
import sys

import pytest

import fairsim

FAT_TREE = """
[run]
duration = "DURATION"
forwarding = "ecmp"

[topology]
kind = "fat_tree"
k = 4
hosts = { rate = "10Gbps", delay = "1us", buffer = 100 }

[workloads.w]
WORKLOAD
packet_size = "1460B"
transport = { kind = "newreno", min_rto = "1ms", clock_granularity = "1ms", ack_every = 1 }
"""


def fat_tree(workload, duration="5ms"):
    return fairsim.loads(FAT_TREE.replace("DURATION", duration).replace("WORKLOAD", workload))


# a and b on switch s, which reaches c over a slower, longer line
STAR = """
nodes = ["a", "b", "s", "c"]

[run]
duration = "5ms"

[links]
a = { between = ["a", "s"], rate = "10Gbps", delay = "1us" }
b = { between = ["b", "s"], rate = "10Gbps", delay = "1us" }
c = { between = ["s", "c"], rate = "1Gbps", delay = "10us" }

[workloads.two]
pattern = "matrix"
file = "FILE"
hosts = ["a", "b", "c"]
packet_size = "1460B"
transport = { kind = "newreno", ack_every = 1 }
"""


def test_completion_time_and_slowdown_by_hand(tmp_path):
    # htsim's matrix, starts in picoseconds: a -> c at 0, b -> c at 1 ms and at 1.05 ms, 10
    # packets each (an initial window: the file leaves at once)
    (tmp_path / "two.cm").write_text(
        "Nodes 3\nConnections 3\n0->2 start 0 size 14600\n1->2 start 1000000000 size 14600\n"
        "0->2 start 1050000000 size 14600\n"
    )
    sc = fairsim.loads(STAR.replace("FILE", str(tmp_path / "two.cm")))
    t = fairsim.run(sc, progress=False).transfers
    # ideal, alone: the first packet's store and forward, a->s 1460·8/10 Gb/s + 1 µs = 2.168 µs,
    # s->c 11.68 + 10 = 21.68 µs; nine more 11.68 µs apart at the 1 Gb/s line (105.12 µs); the
    # last ACK back, c->s 40·8/1 Gb/s + 10 µs = 10.32 µs, s->a 0.032 + 1 = 1.032 µs: 140.32 µs
    assert t["ideal_fct_s"].tolist() == pytest.approx([140.32e-6, 140.32e-6, 140.32e-6], abs=1e-12)
    assert list(zip(t["src"], t["dst"], strict=True)) == [("a", "c"), ("b", "c"), ("a", "c")]
    # the first is alone: its slowdown is exactly 1; the third starts 50 µs into the second,
    # whose packets still queue at s->c, and waits for them
    assert t["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    assert t["fct_s"].iloc[1] == pytest.approx(140.32e-6, abs=1e-12)
    assert t["slowdown"].iloc[2] > 1.2


def test_a_permutation_sends_each_host_once_and_is_drawn_again_by_seed():
    sc = fat_tree('pattern = "permutation"\nsize = "100KB"')
    pairs = {}
    for seed in (1, 2):
        t = fairsim.run(sc, seed=seed, progress=False).transfers
        assert len(t) == 16 and t["finish_s"].notna().all()
        assert sorted(t["src"]) == sorted(t["dst"]) == sorted(f"h{i}" for i in range(16))
        assert (t["src"] != t["dst"]).all()
        pairs[seed] = list(zip(t["src"], t["dst"], strict=True))
    assert pairs[1] != pairs[2]
    again = fairsim.run(sc, seed=1, progress=False).transfers
    assert list(zip(again["src"], again["dst"], strict=True)) == pairs[1]


def test_each_transfer_counts_the_packets_its_sink_received_once():
    # a finished file delivered every packet once; an endless one (a permutation without size)
    # delivered what reached its sink by the run's end, short of its new packets sent by those
    # lost or still on their way, and the transfers add up to the workload's count
    finished = fairsim.run(fat_tree('pattern = "permutation"\nsize = "100KB"'), progress=False).transfers
    assert (finished["delivered"] == -(-100_000 // 1460)).all()
    res = fairsim.run(fat_tree('pattern = "permutation"', duration="2ms"), progress=False)
    t = res.transfers
    assert t["finish_s"].isna().all() and (t["delivered"] > 0).all()
    assert (t["delivered"] <= t["sent"] - t["retransmitted"]).all()
    assert (t["delivered"] < t["sent"] - t["retransmitted"]).any(), "some are in flight at the end"
    assert t["delivered"].sum() == res.flows.iloc[0]["delivered_unique"]


INCAST = 'pattern = "incast"\nreceiver = "h0"\nsenders = ["h4", "h8", "h12", "h15"]\nsize = "50KB"'


def test_an_incast_sends_from_every_sender_to_the_receiver():
    sc = fat_tree(INCAST)
    res = fairsim.run(sc, progress=False)
    t = res.transfers
    assert list(t["src"]) == ["h4", "h8", "h12", "h15"] and set(t["dst"]) == {"h0"}
    assert t["finish_s"].notna().all() and (t["slowdown"] >= 1 - 1e-9).all()
    row = res.flows.iloc[0]
    assert (row["src"], row["dst"]) == ("*", "*")


def test_poisson_arrivals_come_at_the_rate_the_load_gives_with_the_distributions_sizes():
    # λ = load · 16 hosts · 10 Gb/s / (8 · mean), web search's mean 1,140.98 packets of 1460 B:
    # 3,602 a second, 360 in 100 ms (sd 19); P(size <= 53 packets) = 0.53 (sd 0.026 over 360)
    sc = fat_tree('pattern = "poisson"\nsizes = "websearch"\nload = 0.3\nstop = "100ms"', duration="100ms")
    t = fairsim.run(sc, set={"run.transfer_rows": True}, progress=False).transfers
    expected = 0.3 * 16 * 10e9 / (8 * 1140.98 * 1460) * 0.1
    assert abs(len(t) - expected) < 4 * expected**0.5, (len(t), expected)
    small = (t["bytes"] <= 53 * 1460).mean()
    assert abs(small - 0.53) < 4 * (0.53 * 0.47 / len(t)) ** 0.5, small
    assert (t["src"] != t["dst"]).all() and t["src"].nunique() == 16


def test_the_slowdown_table_and_plot():
    sc = fat_tree('pattern = "poisson"\nsizes = "datamining"\nload = 0.3\nstop = "20ms"', duration="30ms")
    res = fairsim.run(sc, progress=False)
    table = res.slowdown(4)
    assert list(table.columns) == [
        "pair",
        "flow",
        "bin",
        "up_to_bytes",
        "count",
        "unfinished",
        "max_bytes",
        "p50",
        "p95",
        "p99",
        "p999",
        "mean_fct_s",
        "lower_bound",
    ]
    assert table["count"].sum() == len(res.transfers), "every transfer, finished or not"
    assert table["p999"].isna().all(), "no bin of a few hundred transfers supports a p99.9"
    assert not (table["p50"] > table["p95"]).any() and (table["p50"].dropna() >= 1 - 1e-9).all()
    assert (table["p50"].notna() == (table["count"] >= 5)).all(), "a median needs 5 transfers (Wilks)"
    assert list(res.slowdown([100e3, 10e6])["bin"]) == sorted(res.slowdown([100e3, 10e6])["bin"])
    ax = res.plot_slowdown(4)
    assert ax.get_xscale() == "log" and "slowdown" in ax.get_ylabel()


def test_the_resolved_scenario_writes_the_workload_back():
    sc = fat_tree('pattern = "permutation"\nsize = "100KB"')
    text = sc.resolved_toml("default")
    assert "[workloads.w]" in text and 'forwarding = "ecmp"' in text
    first, second = (fairsim.run(s, progress=False).transfers for s in (sc, fairsim.loads(text)))
    assert first["finish_s"].tolist() == second["finish_s"].tolist()


@pytest.mark.parametrize(
    "workload, field, says",
    [
        ('pattern = "ring"', "workloads.w.pattern", "unknown pattern `ring`"),
        ('pattern = "poisson"\nsizes = "websearch"', "workloads.w.load", "needs its `load`"),
        ('pattern = "poisson"\nload = 0.5', "workloads.w.sizes", "needs `sizes`"),
        ('pattern = "incast"\nsize = "1MB"', "workloads.w.receiver", "needs its `receiver`"),
        ('pattern = "permutation"\nhosts = ["h0", "tor0"]', "workloads.w.hosts", "has 4 links"),
        ('pattern = "poisson"\nsizes = "nowhere.cdf"\nload = 0.5', "workloads.w.sizes", "cannot read"),
        (
            'pattern = "incast"\nreceiver = "h0"\nsenders = ["h0", "h4"]\nsize = "1MB"',
            "workloads.w.senders",
            "`h0` is the incast's receiver: it cannot send to itself",
        ),
        (
            'pattern = "incast"\nreceiver = "tor0"\nsize = "1MB"',
            "workloads.w.receiver",
            "`tor0` is not one of the workload's hosts",
        ),
        ('pattern = "permutation"\nsize = "0B"', "workloads.w.size", "at least 1 byte; leave `size` out"),
    ],
)
def test_mistakes_are_named_at_their_place(workload, field, says):
    with pytest.raises(fairsim.ScenarioError, match=says) as e:
        fat_tree(workload)
    assert field in str(e.value)


def test_a_bad_distribution_or_matrix_file_names_its_line(tmp_path):
    (tmp_path / "bad.cdf").write_text("# bytes p\n1000 0.5\n2000\n")
    (tmp_path / "bad.cm").write_text("Nodes 16\nConnections 1\n0->99 start 0 size 10\n")
    cases = [
        (f'pattern = "poisson"\nload = 0.5\nsizes = "{tmp_path / "bad.cdf"}"', "bad.cdf: line 3"),
        (f'pattern = "matrix"\nfile = "{tmp_path / "bad.cm"}"', "bad.cm: line 3: no host 99"),
    ]
    for workload, says in cases:
        with pytest.raises(fairsim.ScenarioError, match=says) as e:
            fat_tree(workload)
        assert "needs `sizes`" not in str(e.value), "one message for one mistake"


def test_a_misspelt_distribution_gets_a_suggestion():
    with pytest.raises(fairsim.ScenarioError) as e:
        fat_tree('pattern = "poisson"\nload = 0.5\nsizes = "websearh"')
    message = str(e.value)
    assert "workloads.w.sizes" in message and "did you mean `websearch`?" in message
    assert "needs `sizes`" not in message


def test_a_load_sweep_records_the_slowdown_table(tmp_path):
    sc = fat_tree('pattern = "poisson"\nsizes = "websearch"\nload = 0.3\nstop = "5ms"', duration="8ms")
    swept = fairsim.sweep(
        sc, {"workloads.w.load": [0.2, 0.4]}, seeds=1, tables=["slowdown"], jobs=1, progress=False
    )
    table = swept.slowdown
    assert set(table["load"]) == {0.2, 0.4}
    assert {"bin", "count", "max_bytes", "p50", "p95", "p99"} <= set(table.columns)
    assert (table["p50"].dropna() >= 1 - 1e-9).all() and table["bin"].nunique() > 1
    assert table.groupby("run_id")["bin"].count().min() > 1, "every bin kept, not one per run"


def test_validate_shows_a_workload_and_its_forwarding(tmp_path):
    # it once failed on every [workloads] scenario: a workload is no [flows] entry
    path = tmp_path / "incast.toml"
    path.write_text(FAT_TREE.replace("DURATION", "1ms").replace("WORKLOAD", INCAST))
    proc = subprocess.run(
        [sys.executable, "-m", "fairsim.cli", "validate", str(path)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "workload: incast" in proc.stdout and "chosen at each switch (ecmp)" in proc.stdout


def test_unfinished_transfers_count_in_the_slowdown_table_as_lower_bounds():
    """A load the fabric cannot finish in the run: the transfers still under way at its end
    count at their slowdown so far (elapsed over ideal), each bin says how many, and a bin with
    one is marked as giving lower bounds; leaving them out would flatter the transport."""
    sc = fat_tree('pattern = "poisson"\nsizes = "websearch"\nload = 0.8', duration="10ms")
    res = fairsim.run(sc, progress=False)
    t = res.transfers
    unfinished = t[t["unfinished"]]
    assert len(unfinished) > 0 and t["finish_s"].isna().sum() == len(unfinished)
    elapsed = (res.runs[0]["simulated_s"] - unfinished["arrival_s"]) / unfinished["ideal_fct_s"]
    assert (unfinished["slowdown_so_far"] - elapsed.clip(lower=1)).abs().max() < 1e-9
    assert (elapsed < 1).any(), "one that had not had its ideal time yet counts at 1"
    table = res.slowdown(4)
    assert table["unfinished"].sum() == len(unfinished) and table["count"].sum() == len(t)
    assert (table["lower_bound"] == (table["unfinished"] > 0)).all() and table["lower_bound"].any()
    finished_only = t.dropna(subset=["slowdown"])["slowdown"].quantile(0.99)
    assert t["slowdown_so_far"].quantile(0.99) >= finished_only, "counting them can only raise it"


def test_a_size_never_splits_across_two_bins():
    from fairsim.transfer_tables import size_bins

    sizes = [1, 1, 1, 1, 1, 2, 2, 3, 4, 5, 6, 6]
    bins = size_bins(sizes, 4)
    assert all(len({b for b, s in zip(bins, sizes, strict=True) if s == size}) == 1 for size in sizes)
    assert bins == sorted(bins) and min(bins) == 0
    assert set(size_bins([50_000] * 32, 10)) == {0}, "one size: one bin (an incast's)"


def test_the_first_screen_of_a_workload_run_shows_completion_times_and_queues_by_tier(tmp_path):
    """Not a row per port and a fair share of one flow: the transfers' slowdown by size (how
    many did not finish among them) and the queues summed by tier; `--queues all` shows every
    port, and the JSON carries the same completion-time table."""
    path = tmp_path / "websearch.toml"
    path.write_text(FAT_TREE.replace("DURATION", "10ms").replace("WORKLOAD", WEBSEARCH))
    shown = subprocess.run(
        [sys.executable, "-m", "fairsim.cli", "run", str(path), "--no-progress"],
        capture_output=True,
        text=True,
    )
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    for heading in ("size up to", "transfers", "unfinished", "p50 slowdown", "p99.9", "mean FCT", "tier"):
        assert heading in out, out
    assert "tor->agg" in out and "agg0->core0" not in out, "tiers, not ports"
    assert "of fair share" not in out and "Jain" not in out, "nothing of one flow's fair share"
    every = subprocess.run(
        [sys.executable, "-m", "fairsim.cli", "run", str(path), "--no-progress", "--queues", "all"],
        capture_output=True,
        text=True,
    )
    assert "agg0->core0" in every.stdout and "queues by tier" not in every.stdout
    res = fairsim.run(str(path), progress=False)
    rows = res.to_dict()["completion_times"]
    assert sum(r["count"] for r in rows) == len(res.transfers)
    assert sum(r["unfinished"] for r in rows) == res.transfers["unfinished"].sum() > 0
    as_json = [None if x != x else x for x in res.slowdown(10)["p50"]]
    assert [r["p50"] for r in rows] == as_json and any(as_json)


WEBSEARCH = 'pattern = "poisson"\nsizes = "websearch"\nload = 0.8'


def test_a_workload_packet_of_no_bytes_is_refused_as_in_flows():
    text = FAT_TREE.replace("DURATION", "1ms").replace("WORKLOAD", INCAST).replace('"1460B"', '"0B"')
    with pytest.raises(fairsim.ScenarioError, match=r"workloads\.w\.packet_size.*at least 1 byte"):
        fairsim.loads(text)


def test_a_workload_without_a_transport_runs_todays_tcp_acknowledging_every_packet():
    """Not the 1989 papers' Generic with a window of 5: the `linux` stack's NewReno with an ACK
    for every packet, unless the pair names a transport."""
    text = FAT_TREE.replace("DURATION", "2ms").replace("WORKLOAD", INCAST)
    text = "\n".join(line for line in text.splitlines() if not line.startswith("transport ="))
    flow = fairsim.run(fairsim.loads(text), progress=False).runs[0]["flows"][0]
    params = flow["transport_params"]
    assert flow["transport"] == "newreno" and params["ack_every"] == 1 and params["stack"] == "linux"
    paired = text + '\n[pairs]\n"DCTCP" = { transport = "dctcp" }\n'
    assert fairsim.run(fairsim.loads(paired), progress=False).runs[0]["flows"][0]["transport"] == "dctcp"


def test_a_workload_of_files_without_end_shows_its_goodput_against_its_lines():
    """A permutation without `size` has no completion time (no ideal): the slowdown table is
    empty and the JSON has none; its first screen gives the transfers' goodput as a share of
    their senders' lines (the bisection a permutation gets) and Jain's index over them, not a
    flow's share of a fair share, and the queues by tier."""
    res = fairsim.run(fat_tree('pattern = "permutation"', duration="1ms"), progress=False)
    assert res.slowdown(10).empty
    assert "completion_times" not in res.to_dict()
    summary = res.summary()
    assert "of their lines" in summary and "p50 slowdown" not in summary
    assert "of fair share" not in summary and "tor->agg" in summary
    run = res.runs[0]
    lines = len(res.transfers) * run["flows"][0]["access_bps"]
    share = res.transfers["delivered"].sum() * run["flows"][0]["packet_size"] * 8 / run["duration_s"] / lines
    assert f"{share:.1%}" in summary
