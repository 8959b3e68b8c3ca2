"""The knobs of dks89 and keshav91: each changes the choice it names, where that
choice was made, and nothing else; and dks89's JK backoff runs uncapped."""

import fairsim
from fairsim import reproduce
from fairsim.reproduce.reproductions.dks89 import JK_BACKOFF
from fairsim.reproduce.reproductions.keshav91 import HOP_DELAY, PP_SETPOINT


def _seconds(text: str) -> float:
    from fairsim.reproduce.measure import _seconds as seconds

    return seconds(text)


def test_dks89_jk_backoff_has_no_cap_within_a_run():
    for name in (
        "s1_underloaded",
        "s2_overloaded",
        "s3_ill_behaved",
        "s4_mixed",
        "s5_multihop",
        "s6_complicated",
    ):
        sc = fairsim.load(f"dks89/{name}")
        jk = 0
        for pair in sc.pairs:
            doc = sc.resolved(pair)
            for flow in doc["flows"].values():
                t = flow["transport"]
                if isinstance(t, dict) and t["kind"] == "jk":
                    jk += 1
                    assert _seconds(t["max_rto"]) > _seconds(doc["run"]["duration"]), (name, pair)
        assert jk, name


def test_the_jk_backoff_knobs_change_every_written_jk_transport_and_nothing_else():
    cap500, bsd, cap64 = JK_BACKOFF
    s2 = cap500.overrides(fairsim.load("dks89/s2_overloaded"))
    assert s2 == {'pairs."JK/FCFS".transport.max_rto': "500s", 'pairs."JK/FQ".transport.max_rto': "500s"}
    s4 = fairsim.load("dks89/s4_mixed")
    resolved = s4.with_overrides(cap500.overrides(s4)).resolved("FCFS")
    assert {f: t["transport"]["max_rto"] for f, t in resolved["flows"].items() if f.startswith("jk")} == {
        "jk3": "500s",
        "jk4": "500s",
    }
    dropped = s4.with_overrides(bsd.overrides(s4)).resolved("FCFS")["flows"]
    jk = [f["transport"] for n, f in dropped.items() if n.startswith("jk")]
    assert {(t["max_rto"], t["max_backoffs"]) for t in jk} == {("64s", 12)}
    assert set(cap64.overrides(s4).values()) == {"64s"}
    for knob in JK_BACKOFF:
        assert knob.overrides(fairsim.load("dks89/fig1_telnet_delay")) == {}
        assert knob in reproduce.paper("dks89").knobs


def test_the_setpoint_knob_changes_only_the_setpoints_derived_by_littles_law():
    assert PP_SETPOINT.overrides(fairsim.load("keshav91/s1_underloaded")) == {}, (
        "the thesis's own 5 and 2 stay"
    )
    assert PP_SETPOINT.overrides(fairsim.load("keshav91/s2_overloaded")) == {
        'pairs."PP/FQ".transport.setpoint': 5
    }
    s5 = fairsim.load("keshav91/s5_mixed")
    got = PP_SETPOINT.overrides(s5)
    assert len(got) == 4 and set(got.values()) == {5}
    resolved = s5.with_overrides(got).resolved("PP+JK/FQ")
    assert [resolved["flows"][f]["transport"]["setpoint"] for f in ("s1", "s2")] == [5.0, 5.0]


def test_the_hop_delay_knob_changes_only_scenario_6s_hops():
    s6 = fairsim.load("keshav91/s6_multihop")
    got = HOP_DELAY.overrides(s6)
    assert sorted(got) == [f'links."hop{i}".delay' for i in (1, 2, 3)] and set(got.values()) == {"0ms"}
    assert all(
        HOP_DELAY.overrides(fairsim.load(f"keshav91/{n}")) == {} for n in ("s1_underloaded", "s8_unequal_rtt")
    )
    assert {PP_SETPOINT, HOP_DELAY} <= set(reproduce.paper("keshav91").knobs)
