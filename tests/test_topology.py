"""Generated topologies (`[topology]` in a scenario, crates/fairsim/src/
scenario/topology.rs): they load, validate, run and draw like written ones, the file's own
nodes and links join them, and mistakes are named at their place."""

import subprocess
import sys

import pytest

import fairsim

FAT_TREE = """
[run]
duration = "20ms"
warmup = "5ms"
interval = "5ms"

[topology]
kind = "fat_tree"
k = 4
hosts = { rate = "10Gbps", delay = "1us", buffer = 100 }
agg_core = { rate = "40Gbps", delay = "2us" }

[flows]
across = { src = "h0", dst = "h15", app = "ftp", transport = "newreno" }
"""


def test_a_fat_tree_loads_runs_and_keeps_htsims_numbering():
    sc = fairsim.loads(FAT_TREE)
    assert len(sc.nodes) == 16 + 8 + 8 + 4 and len(sc.links) == 16 + 16 + 16
    assert sc.nodes[:3] == ["h0", "h1", "h2"] and "core3" in sc.nodes
    res = fairsim.run(sc, progress=False)
    assert res.flows["goodput_bps"].iloc[0] > 1e9
    # the core tier's links are its own: 40 Gb/s
    rates = res.queues.set_index("port")["rate_bps"]
    assert rates["agg0->core0"] == 40e9 and rates["h0->tor0"] == 10e9


def test_the_files_own_nodes_and_links_join_the_generated_ones():
    text = FAT_TREE.replace(
        "[flows]", '[links]\nsink = { between = ["core0", "store"], rate = "100Gbps" }\n\n[flows]'
    ).replace("[run]", 'nodes = ["store"]\n\n[run]')
    sc = fairsim.loads(text.replace('dst = "h15"', 'dst = "store"'))
    assert sc.nodes[-1] == "store" and "sink" in sc.links


@pytest.mark.parametrize(
    "change, field, says",
    [
        (("k = 4", "k = 3"), "topology.k", "must be even"),
        (('kind = "fat_tree"', 'kind = "torus"'), "topology.kind", "unknown topology `torus`"),
        (("k = 4", "k = 4\nleaves = 2"), "topology.leaves", "takes no `leaves`"),
        (
            ("[flows]", '[links]\nh3 = { between = ["h3", "tor1"], rate = "1Gbps" }\n\n[flows]'),
            "links.h3",
            "generates",
        ),
        (("[topology]", "[topology]\nwidth = 3"), "topology.width", "unknown field `width`"),
    ],
)
def test_mistakes_are_named_at_their_place(change, field, says):
    with pytest.raises(fairsim.ScenarioError, match=says) as e:
        fairsim.loads(FAT_TREE.replace(*change))
    assert field in str(e.value)


def test_a_scenario_without_nodes_or_topology_still_says_what_is_missing():
    text = (
        FAT_TREE.split("[topology]")[0] + '[links]\nab = { between = ["a", "b"], rate = "1Mbps" }\n[flows]\n'
    )
    with pytest.raises(fairsim.ScenarioError, match=r"missing field `nodes`.*\[topology\]"):
        fairsim.loads(text)


@pytest.mark.slow
def test_a_leaf_spine_validates_and_draws(tmp_path):
    text = FAT_TREE.replace(
        'kind = "fat_tree"\nk = 4', 'kind = "leaf_spine"\nleaves = 4\nspines = 2\nhosts_per_leaf = 4'
    ).replace('agg_core = { rate = "40Gbps", delay = "2us" }', "")
    path = tmp_path / "ls.toml"
    path.write_text(text)
    for command in (["validate", str(path)], ["draw", str(path), "-o", str(tmp_path / "ls.svg")]):
        proc = subprocess.run([sys.executable, "-m", "fairsim.cli", *command], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    assert "spine1" in (tmp_path / "ls.svg").read_text()


def test_the_resolved_scenario_writes_the_network_out_and_runs_the_same():
    sc = fairsim.loads(FAT_TREE)
    again = fairsim.loads(sc.resolved_toml("default"))
    assert (again.nodes, again.links) == (sc.nodes, sc.links)
    first, second = (fairsim.run(s, progress=False).flows for s in (sc, again))
    assert first["goodput_bps"].tolist() == second["goodput_bps"].tolist()


# one aggregation–core link slower than its tier, losing 1% of what goes up it
CHANGED = """
[links.agg0-core0]
rate = "1Gbps"
forward = { loss = { model = "bernoulli", rate = 0.01 } }
"""


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fairsim.cli", *map(str, args)], capture_output=True, text=True
    )


def test_a_generated_link_changed_by_name_changes_its_ports_alone():
    plain, changed = (
        fairsim.run(fairsim.loads(text), progress=False).queues.set_index("port")
        for text in (FAT_TREE, FAT_TREE + CHANGED)
    )
    slower = plain.index[plain["rate_bps"] != changed["rate_bps"]].tolist()
    assert sorted(slower) == ["agg0->core0", "core0->agg0"], slower
    assert (changed.loc[slower, "rate_bps"] == 1e9).all()
    # the flow crosses the link, and only its forward direction loses packets
    assert changed.loc["agg0->core0", "departures"] > 1000
    assert changed.index[changed["losses"] > 0].tolist() == ["agg0->core0"]
    assert plain["losses"].sum() == 0


def test_set_changes_a_generated_link_and_validate_shows_it(tmp_path):
    path = tmp_path / "ft.toml"
    path.write_text(FAT_TREE)
    proc = cli("validate", path, "--all", "--set", "links.agg0-core0.rate=1Gbps")
    assert proc.returncode == 0, proc.stderr
    rows = [row.split() for row in proc.stdout.splitlines()]
    rate = {cells[0]: cells[1] for cells in rows if cells and "->" in cells[0]}
    assert rate["agg0->core0"] == rate["core0->agg0"] == "1Gbps"
    assert rate["agg0->core1"] == "40Gbps" and rate["h0->tor0"] == "10Gbps"


@pytest.mark.parametrize("where", ["file", "--set"])
def test_a_name_the_topology_does_not_generate_is_refused_at_its_place_with_the_likely_one(tmp_path, where):
    text = FAT_TREE + ('[links.agg0-core9]\nrate = "1Gbps"\n' if where == "file" else "")
    sets = ["--set", "links.agg0-core9.rate=1Gbps"] if where == "--set" else []
    path = tmp_path / "ft.toml"
    path.write_text(text)
    proc = cli("run", path, "--no-progress", *sets)
    assert proc.returncode == 2, proc.stderr
    line = text.splitlines().index("[links.agg0-core9]") + 1 if where == "file" else None
    place = f"ft.toml:{line}:" if line else "(from --set links.agg0-core9.rate=1Gbps)"
    assert place in proc.stderr and "links.agg0-core9: unknown generated link" in proc.stderr, proc.stderr
    assert "did you mean `agg0-core0`?" in proc.stderr


def test_a_ports_name_is_refused_with_the_link_and_direction_it_belongs_to():
    with pytest.raises(
        fairsim.ScenarioError, match=r"the reverse direction of the generated link `agg0-core0`"
    ):
        fairsim.loads(FAT_TREE + '[links."core0->agg0"]\nrate = "1Gbps"\n')


def test_a_changed_link_survives_the_resolved_scenario_and_runs_the_same():
    sc = fairsim.loads(FAT_TREE + CHANGED)
    again = fairsim.loads(sc.resolved_toml("default"))
    first, second = (fairsim.run(s, progress=False) for s in (sc, again))
    assert first.queues.loc[first.queues["port"] == "agg0->core0", "losses"].item() > 0
    assert first.queues.equals(second.queues)
    assert first.flows["goodput_bps"].tolist() == second.flows["goodput_bps"].tolist()


def test_a_sweep_axis_reaches_a_generated_link(tmp_path):
    path = tmp_path / "ft.toml"
    path.write_text(FAT_TREE + '[sweep.axes]\n"links.agg0-core0.rate" = ["1Gbps", "4Gbps"]\n')
    goodput = fairsim.sweep(str(path), progress=False).flows.set_index("rate")["goodput_bps"]
    # the one flow crosses the link: it is the bottleneck at 1 Gb/s, and not at 4
    assert goodput[1e9] <= 1e9 and goodput[4e9] > 2 * goodput[1e9], goodput
