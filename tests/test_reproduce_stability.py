"""The stability variants of a reproduction: each claim's verdict under the
default, 20 replications, exact clocks, no start jitter and the paper's own knobs, in the report
and in reproduction.json."""

import pytest

import fairsim
from fairsim import reproduce
from fairsim.reproduce.model import run_paper
from fairsim.reproduce.stability import COMMON, summary, unstable, variants

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = pytest.mark.slow


def test_each_claim_carries_its_verdict_under_every_variant():
    report = reproduce.run("dks89", quick=True, only=["s1"], stability=True, progress=False)
    claims = reproduce.to_json(report)["claims"]
    names = {"default", *(v.name for v in variants(report.paper))}
    assert claims and all(set(c["stability"]) == names for c in claims)
    assert all(c["stability"]["default"] == c["verdict"] for c in claims)
    _text, headers, rows = summary(report.paper, report.stability)
    assert headers[:2] == ["claim", "default"] and len(rows) == len(claims)
    from fairsim.reproduce import markdown

    assert "## Stability of the verdicts" in markdown.render(report)


def test_a_variant_changes_what_runs_where_it_applies():
    paper = reproduce.paper("dks89")
    exact = next(v for v in COMMON if v.name == "exact clocks")
    outcome = run_paper(paper, quick=True, only=["s1"], progress=False, extra=exact.overrides)
    assert outcome.loaded["s1"].scenario.resolved(ends=0)["run"]["clock_jitter"] == "0s"
    assert fairsim.load("dks89/s1_underloaded").resolved(ends=0)["run"]["clock_jitter"] != "0s"
    assert exact.overrides(fairsim.load("csfq98/fig3a_udp")) == {}, "no noise to remove"


def test_every_variant_with_overrides_changes_what_runs_where_it_applies():
    """A variant that applies to an experiment changes its resolved scenario, and so its run
    ids: "no start jitter" once read a field the resolved scenario never holds and reran
    nothing."""
    for name in reproduce.papers():
        paper = reproduce.paper(name)
        applied = {v.name: 0 for v in variants(paper) if v.seeds is None}
        for exp in paper.experiments:
            sc = fairsim.load(exp.file, set=exp.overrides)
            for v in variants(paper):
                extra = v.overrides(sc)
                if v.seeds is not None or not extra:
                    continue
                applied[v.name] += 1
                changed = sc.with_overrides(extra)
                assert any(
                    changed.resolved_toml(pair, 0) != sc.resolved_toml(pair, 0) for pair in sc.pairs
                ), f"{name}/{exp.id}: {v.name} changes nothing ({extra})"
        if name == "dks89":
            assert applied["no start jitter"] > 0, "dks89's sources draw their starts"


def test_a_verdict_that_changes_with_more_replications_is_flagged():
    table = {
        "a": {"default": "held", "20 replications": "held", "exact clocks": "not held"},
        "b": {"default": "held", "20 replications": "not held"},
    }
    assert unstable(table) == ["b"], "a knob's change is shown, not flagged"


def test_variants_run_at_the_callers_count_of_replications(monkeypatch):
    import fairsim.reproduce.model as model

    counts = []
    real = model.run_paper

    def counted(*args, **kw):
        counts.append(kw["seeds"])
        return real(*args, **kw)

    monkeypatch.setattr(model, "run_paper", counted)
    reproduce.run("dks89", quick=True, seeds=2, only=["s1"], stability=True, progress=False)
    rest = [2] * (len(variants(reproduce.paper("dks89"))) - 1)
    assert counts == [2, 20, *rest], "the default, 20 replications, then each variant at --seeds 2"


def test_a_count_of_replications_asked_for_runs_in_every_experiment():
    """csfq98's Figure 7 runs 3 replications by default; 4 asked are 4 (they were cut to 3), and
    the report's count is read from the runs."""
    outcome = run_paper(reproduce.paper("csfq98"), quick=True, seeds=4, only=["fig7"], progress=False)
    assert outcome.replications == {"fig7": 4} and outcome.runs == 4 * 6
    assert outcome.replications_line() == "4 replications per pair"


def test_every_seed_variant_runs_its_count_wherever_it_applies():
    from fairsim.reproduce.model import own_seeds

    for name in reproduce.papers():
        paper = reproduce.paper(name)
        for v in variants(paper):
            if v.seeds is None:
                continue
            for exp in paper.experiments:
                ran = own_seeds(exp, list(range(1, v.seeds + 1)), asked=True)
                assert len(ran) == (1 if exp.one_run else v.seeds), (
                    f"{name}/{exp.id}: {v.name} ran {len(ran)}"
                )


#: The knobs that set a transport's field: variant -> (field, value, the transport kinds it is
#: for, None: any).
FIELD_KNOBS = {
    "timeout floor 0.25 s": ("min_timeout", "250ms", None),
    "JK backoff cap 500 s": ("max_rto", "500s", {"jk"}),
    "RTO floor 1 ms": ("min_rto", "1ms", None),
    "TCP without the duplicate filter": ("ignore_duplicate_deliveries", "false", None),
}


def _written(tree, path=()):
    """Every table of a scenario file's text, anywhere, with its path."""
    if isinstance(tree, dict):
        yield path, tree
        for key, sub in tree.items():
            yield from _written(sub, (*path, key))


def test_a_knob_reaches_every_place_its_field_is_written():
    """Wherever an experiment's file writes a knob's field with another value (a pair's
    transport, a flow's own, a workload's), the knob overrides it: the 0.25 s timeout floor once
    reached pairs only, and dks89 Scenario 4's and keshav91 Scenario 5's per-flow Generic
    timeouts kept 1 s under it."""
    import json
    import tomllib

    reached = {name: 0 for name in FIELD_KNOBS}
    for name in reproduce.papers():
        paper = reproduce.paper(name)
        for v in variants(paper):
            if v.name not in FIELD_KNOBS:
                continue
            field, value, kinds = FIELD_KNOBS[v.name]
            for exp in paper.experiments:
                sc = fairsim.load(exp.file, set=exp.overrides)
                overrides = v.overrides(sc)
                for path, table in _written(tomllib.loads(sc.text)):
                    if field not in table or str(table[field]).lower() == value:
                        continue
                    if kinds is not None and table.get("kind") not in kinds:
                        continue
                    key = ".".join(json.dumps(p) if not p.isidentifier() else p for p in path)
                    assert any(o.endswith(f".{field}") and _same(o, key, field) for o in overrides), (
                        f"{name}/{exp.id}: {v.name} leaves {key}.{field} = {table[field]!r}"
                    )
                    reached[v.name] += 1
    assert all(reached.values()), reached


def _same(override: str, key: str, field: str) -> bool:
    """Whether `override` (`pairs."G/FCFS".transport.min_timeout`) names the table at `key`."""
    return override[: -len(field) - 1].replace('"', "") == key.replace('"', "")


def test_jks_threshold_knob_reaches_every_jk_source_by_table_or_by_name():
    """dks89 writes JK as a table in pairs and flows, keshav91 by name in its pairs: the knob
    reaches each, and every JK flow of every experiment then retransmits at one duplicate."""
    from fairsim.reproduce.stability import JK_THRESHOLD

    jk_flows = 0
    for name in ("dks89", "keshav91"):
        paper = reproduce.paper(name)
        assert JK_THRESHOLD in variants(paper)
        for exp in paper.experiments:
            sc = fairsim.load(exp.file, set=exp.overrides)
            changed = sc.with_overrides(JK_THRESHOLD.overrides(sc))
            for pair in changed.pairs:
                for flow in changed.resolved(pair, 0)["flows"].values():
                    t = flow.get("transport")
                    if isinstance(t, dict) and t.get("kind") == "jk":
                        assert t["dupack_threshold"] == 1, (name, exp.id, pair)
                        jk_flows += 1
    assert jk_flows > 0


def test_a_stated_cause_is_a_hypothesis_unless_a_run_with_it_makes_the_claim_hold():
    import dataclasses

    from fairsim.reproduce.stability import Cause, causes_text, what_moves

    paper = dataclasses.replace(
        reproduce.paper("dks89"), causes=(Cause("a", stated="change x"), Cause("b", stated="change y"))
    )
    table = {
        "a": {"default": "not held", "20 replications": "held", "change x": "not held", "change y": "held"},
        "b": {"default": "not held", "change x": "not held", "change y": "held"},
        "c": {"default": "held", "change x": "not held"},
    }
    moves = what_moves(paper, table)
    assert set(moves) == {"a", "b"}, "only claims not held"
    assert moves["a"] == {
        "moved_by": ["change y"],
        "not_moved_by": ["change x"],
        "stated": "change x",
        "stated_supported": False,
    }, "more replications are no change"
    assert moves["b"]["stated_supported"] is True
    text = causes_text(paper, table)
    assert "*change x*, is a hypothesis" in text and "*change y*, is supported" in text
