"""`fairsim draw` and `validate --draw`: a picture of a scenario's network."""

import subprocess
import sys

import pytest

import fairsim
from fairsim.draw import MOST_NODES, bottlenecks

FAIRSIM = [sys.executable, "-m", "fairsim.cli"]


def cli(*args, cwd=None):
    return subprocess.run([*FAIRSIM, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_the_bottlenecks_are_each_flows_slowest_ports():
    # parking_lot: 10 Mb/s access links, 1 Mb/s r1-r2 and r2-r3; the long flow crosses both, the
    # cross flows one each, and their ACKs come back the other way over access links only
    doc = fairsim.load("examples/parking_lot").resolved("G/FCFS")
    assert sorted(bottlenecks(doc)) == [("r1", "r2"), ("r2", "r3")]


@pytest.mark.slow
def test_draw_writes_the_same_svg_every_time_naming_nodes_rates_and_each_pairs_discipline(tmp_path):
    r = cli("draw", "examples/parking_lot", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    svg = (tmp_path / "parking_lot.svg").read_text()
    assert svg.startswith("<?xml") and "</svg>" in svg
    # matplotlib writes text as glyph paths; the labels are kept as comments and ids
    for text in ("long_src", "1Mbps, 20ms", "G/RD: random_drop", "G/FCFS: fcfs"):
        assert text in svg, text
    again = cli("validate", "examples/parking_lot", "--draw", tmp_path / "again.svg")
    assert again.returncode == 0 and "ok:" in again.stdout
    assert (tmp_path / "again.svg").read_text() == svg


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "examples/parking_lot",
        "csfq98/fig3a_udp",  # 33 links into one router
        "csfq98/fig6_chain",  # 67 nodes
        "keshav91/s6_multihop",  # long labels of seven pairs, end to end
        "dks89/s3_ill_behaved",
    ],
)
def test_no_link_label_covers_a_node_its_name_or_another_label(name):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = fairsim.draw.draw(name)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    (ax,) = fig.axes
    nodes = set(fairsim.load(name).nodes)
    texts = [t for t in ax.texts if t.get_text()]
    names = [t.get_window_extent(renderer) for t in texts if t.get_text() in nodes]
    labels = [t.get_window_extent(renderer) for t in texts if t.get_text() not in nodes]
    assert names and labels
    for i, label in enumerate(labels):
        for other in names + labels[:i]:
            assert not label.overlaps(other), (name, ax.texts)


def test_a_network_too_big_to_read_is_refused_with_its_size(tmp_path):
    hosts = "\n".join(
        f'h{i} = {{ between = ["h{i}", "r"], rate = "1Mbps", delay = "1ms" }}' for i in range(MOST_NODES)
    )
    path = tmp_path / "big.toml"
    flows = 'f = { src = "h0", dst = "h1", app = "ftp" }'
    pairs = '"G/FCFS" = { transport = "generic", qdisc = "fcfs" }'
    run = 'duration = "10s"\nwarmup = "1s"\ninterval = "1s"'
    nodes = ", ".join(f'"h{i}"' for i in range(MOST_NODES))
    path.write_text(
        f'nodes = [{nodes}, "r"]\n[scenario]\nname = "big"\n[run]\n{run}\n[links]\n{hosts}\n'
        f"[flows]\n{flows}\n[pairs]\n{pairs}\n"
    )
    r = cli("draw", path, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert f"{MOST_NODES + 1} nodes" in r.stderr and "Traceback" not in r.stderr
    assert list(tmp_path.glob("*.svg")) == []
