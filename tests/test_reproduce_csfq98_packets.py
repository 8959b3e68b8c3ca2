"""csfq98 runs one packet size, the paper's: every flow of every scenario sends
1000-byte packets ("1 packet = 1 KB", §3.4, with §3's KB of 1000 bytes) and DRR's quantum is one
packet; the other sizes are stability knobs, so the report's stability table is the sensitivity
table."""

from pathlib import Path

import pytest

import fairsim
from fairsim import reproduce
from fairsim.reproduce.reproductions.csfq98.experiments import OTHER_PACKETS, PACKET, packet_knob

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "python/fairsim/scenarios/csfq98").glob("*.toml"))


def data_sizes(resolved: dict) -> set[str]:
    return {spec["packet_size"] for spec in resolved["flows"].values()}


def drr_quanta(resolved: dict) -> set[str]:
    return {
        side["qdisc"]["quantum"]
        for link in resolved["links"].values()
        for side in (link["forward"], link["reverse"])
        if side["qdisc"]["kind"] == "drr"
    }


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_csfq98_scenario_resolves_to_the_papers_packet_size(path):
    sc = fairsim.load(path)
    for pair in sc.pairs:
        resolved = sc.resolved(pair)
        assert resolved["flows"], path.name
        assert data_sizes(resolved) == {f"{PACKET}B"}, (path.name, pair)
        assert drr_quanta(resolved) <= {f"{PACKET}B"}, (path.name, pair)
    assert 'packet_size = "1000B"' in sc.text, "written in the file, not left to fairsim's default"


def test_the_size_is_the_papers():
    assert PACKET == 1000
    assert PACKET not in OTHER_PACKETS
    paper = reproduce.paper("csfq98")
    assert [k.name for k in paper.knobs] == [f"{size}-byte packets" for size in OTHER_PACKETS]
    assert all('"1 packet = 1 KB"' in path.read_text() for path in SCENARIOS), "each file quotes it"


@pytest.mark.parametrize("size", OTHER_PACKETS)
def test_a_packet_knob_changes_every_flow_and_drrs_quantum(size):
    knob = packet_knob(size)
    for exp in reproduce.paper("csfq98").experiments:
        sc = fairsim.load(exp.file).with_overrides(exp.overrides)
        changed = sc.with_overrides(knob.overrides(sc))
        for pair in changed.pairs:
            resolved = changed.resolved(pair)
            assert data_sizes(resolved) == {f"{size}B"}, (exp.id, pair)
            assert drr_quanta(resolved) <= {f"{size}B"}, (exp.id, pair)


def test_the_web_transfers_stay_20_packets_under_a_knob():
    sc = fairsim.load("csfq98/table2_web")
    assert packet_knob(1024).overrides(sc)['flows."web".size'] == "20480B"
