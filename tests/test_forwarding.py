"""Per-switch forwarding (`forwarding = "ecmp" | "spray" | "adaptive"`, crates/fairsim/
src/net/multipath.rs and engine/forwarding.rs): flows spread over a fat-tree's paths as the hash
says, repeat with the seed, and the static path stays the default. The hash itself is checked
against its documented formula in the Rust tests."""

import pytest

import fairsim

# NewReno with a 1 ms floor on its timeouts (Linux's rto_min: both settings)
NEWRENO = '{ kind = "newreno", min_rto = "1ms", clock_granularity = "1ms" }'

# four flows from the first pod to the last of a k = 4 fat-tree, all links 10 Gb/s
FOUR_FLOWS = """
[run]
duration = "20ms"
warmup = "5ms"
interval = "5ms"
forwarding = "ecmp"

[topology]
kind = "fat_tree"
k = 4
hosts = { rate = "10Gbps", delay = "1us", buffer = 100 }

[flows]
a = { src = "h0", dst = "h15", app = "ftp", transport = NEWRENO }
b = { src = "h1", dst = "h14", app = "ftp", transport = NEWRENO }
c = { src = "h2", dst = "h13", app = "ftp", transport = NEWRENO }
d = { src = "h3", dst = "h12", app = "ftp", transport = NEWRENO }
""".replace("NEWRENO", NEWRENO)


def carried(res, prefix):
    """The ports whose names start with `prefix` that carried packets, by name."""
    q = res.queues.set_index("port")
    return {p for p in q.index if p.startswith(prefix) and q.loc[p, "arrivals"] > 0}


def pod0_up(res):
    """The links from pod 0 to the cores that carried packets (the data of a flow from pod 0)."""
    return carried(res, "agg0->core") | carried(res, "agg1->core")


def one_flow(forwarding):
    text = FOUR_FLOWS.replace('forwarding = "ecmp"', f'forwarding = "{forwarding}"')
    return "\n".join(line for line in text.splitlines() if not line.startswith(("b =", "c =", "d =")))


def test_ecmp_places_a_flow_by_seed_and_repeats_it():
    sc = fairsim.loads(one_flow("ecmp"))
    up = [pod0_up(fairsim.run(sc, seed=s, progress=False)) for s in range(1, 9)]
    # the data leave pod 0 by one core link in each run
    assert all(len(c) == 1 for c in up), up
    assert len({frozenset(c) for c in up}) > 2, "other seeds place the flow on other cores"
    assert pod0_up(fairsim.run(sc, seed=3, progress=False)) == up[2]


def test_static_forwarding_is_the_first_path_for_every_flow():
    res = fairsim.run(fairsim.loads(one_flow("static")), progress=False)
    assert pod0_up(res) == {"agg0->core0"}


def test_spraying_uses_every_uplink_about_equally():
    res = fairsim.run(fairsim.loads(one_flow("spray")), progress=False)
    q = res.queues.set_index("port")
    up = [q.loc[p, "arrivals"] for p in ("tor0->agg0", "tor0->agg1")]
    assert min(up) > 0.9 * max(up), up


def test_adaptive_forwarding_steers_around_busy_uplinks():
    # static puts all four on one core and ECMP lets some collide; the least occupied next hop
    # gives each flow a path of its own, and each its line's rate
    res = fairsim.run(fairsim.loads(FOUR_FLOWS.replace('"ecmp"', '"adaptive"')), progress=False)
    goodput = res.flows["goodput_bps"]
    assert (goodput > 9.5e9).all(), goodput.tolist()


def test_a_flows_own_forwarding_wins_and_a_route_cannot_be_chosen_at_switches():
    text = FOUR_FLOWS.replace('dst = "h15", app', 'dst = "h15", forwarding = "static", app')
    res = fairsim.run(fairsim.loads(text), progress=False)
    assert "agg0->core0" in carried(res, "agg0") and res.flows["goodput_bps"].iloc[0] > 0
    routed = FOUR_FLOWS.replace(
        'dst = "h15", app', 'dst = "h15", route = ["h0", "tor0", "agg0", "core0", "agg6", "tor7", "h15"], app'
    )
    fairsim.loads(routed)  # the run-wide mode leaves a routed flow on its route
    with pytest.raises(fairsim.ScenarioError, match="follows it") as e:
        fairsim.loads(routed.replace('"h15"], app', '"h15"], forwarding = "spray", app'))
    assert "flows.a.forwarding" in str(e.value)
    with pytest.raises(fairsim.ScenarioError, match=r"run\.forwarding"):
        fairsim.loads(FOUR_FLOWS.replace('"ecmp"', '"random"'))


def test_the_resolved_scenario_keeps_the_forwarding_and_runs_the_same():
    sc = fairsim.loads(FOUR_FLOWS)
    text = sc.resolved_toml("default")
    assert 'forwarding = "ecmp"' in text and "route" not in text
    first, second = (fairsim.run(s, progress=False).flows for s in (sc, fairsim.loads(text)))
    assert first["goodput_bps"].tolist() == second["goodput_bps"].tolist()


def test_connections_of_an_open_population_are_forwarded_and_share_their_hosts_line():
    # alone: a connection whose first window is lost beside a long flow waits out TCP's initial
    # timeout (1 s), past the run
    text = one_flow("ecmp").replace(
        'app = "ftp",', 'app = "files", arrivals = 20000.0, size = "30KB", stop = "12ms",'
    )
    res = fairsim.run(fairsim.loads(text), progress=False)
    t = res.transfers
    assert len(t) > 100 and t["finish_s"].notna().all()
    # no copies of h0's line: the results' ports are the network's
    assert len(res.queues) == 2 * len(fairsim.loads(text).links)
