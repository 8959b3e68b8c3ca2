"""Generated topologies (issue 34, first step: `[topology]` in a scenario, crates/fairsim/src/
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
