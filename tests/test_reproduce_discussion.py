"""A discussion's numbers come from the run: its fields are filled from the claims'
numbers, and the numbers typed into it are the paper's or the scenario's, never a result."""

import re

import pytest

from fairsim import reproduce
from fairsim.reproduce.claims import Context, Verdict, verdict
from fairsim.reproduce.discussion import Discussion, ProseError, number_set, prose, typed_numbers


def test_fields_are_filled_from_the_verdicts_and_the_facts():
    d = Discussion(
        "waste {{s5-dec-waste:waste|.1%}}, so {{s5-dec-waste}}; busy {{busy}} of {{s5-dec-waste:runs}}, "
        "{{who}}",
        facts={"busy": lambda ctx: 0.9375, "who": lambda ctx: "DRR ahead"},
    )
    v = verdict(False, waste=0.0495, runs=5, gap=-0.25)
    assert d.render(Context({}), {"s5-dec-waste": v}) == "waste 5.0%, so not held; busy 0.938 of 5, DRR ahead"
    assert Discussion("{{s:gap}}").render(Context({}), {"s": v}) == "−0.25"


def test_a_field_that_names_nothing_stops_the_report_with_its_name():
    with pytest.raises(ProseError, match="wastage"):
        Discussion("{{s5:wastage}}").render(Context({}), {"s5": verdict(True, waste=1.0)})
    with pytest.raises(ProseError, match="nothing_here"):
        Discussion("{{nothing_here}}").render(Context({}), {})


def test_a_claim_that_did_not_run_reads_n_a():
    missing = Verdict(None, "experiment s5 did not run")
    assert Discussion("{{s5:waste}}").render(Context({}), {"s5": missing}) == "n/a"


def test_typed_numbers_are_quantities_not_places():
    text = "§4.2.1, Figure 12, Table 1, issue 28, RFC 6298, `min_rto = 1ms`, {{a:b}}: 4.95% and 139, not 3"
    assert typed_numbers(text) == ["4.95", "139"]


def _allowed(paper) -> set[str]:
    """The numbers a discussion may type: the paper's (its claims, its tables, its summary) and
    the inputs (scenario files, experiments' overrides and sweeps, the stability knobs)."""
    texts = [paper.summary]
    texts += [f"{c.text} {c.tolerance}" for c in paper.claims]
    texts += [f"{k.name} {k.why}" for k in paper.knobs]
    for e in paper.experiments:
        texts.append(e.path.read_text())
        texts.append(repr(e.overrides))
        if e.sweep:
            texts.append(repr(e.sweep.values) + repr(e.sweep.quick_values))
            texts += [repr(e.sweep.overrides(x)) for x in e.sweep.values]
    return number_set(*texts)


PAPERS = reproduce.papers()


@pytest.mark.parametrize("paper_id", PAPERS)
def test_every_field_names_a_claim_of_the_paper_or_a_fact(paper_id):
    paper = reproduce.paper(paper_id)
    ids = {c.id for c in paper.claims}
    for e in paper.experiments:
        d = prose(e.discussion)
        for name in d.fields():
            claim = name.split(":", 1)[0]
            assert claim in ids or name in d.facts, f"{paper_id} {e.id}: {{{{{name}}}}}"


@pytest.mark.parametrize("paper_id", PAPERS)
def test_no_discussion_types_a_number_the_paper_and_the_inputs_do_not_give(paper_id):
    paper = reproduce.paper(paper_id)
    allowed = _allowed(paper)
    stray = {
        e.id: sorted(set(n for n in typed_numbers(prose(e.discussion).text) if n not in allowed))
        for e in paper.experiments
    }
    stray = {k: v for k, v in stray.items() if v}
    assert not stray, f"{paper_id}: numbers to take from the run as fields (or to move to the docs): {stray}"


@pytest.mark.parametrize("paper_id", PAPERS)
def test_no_discussion_types_a_verdict(paper_id):
    """A claim's verdict is its field, `{{claim}}`: a typed one would contradict a rerun."""
    paper = reproduce.paper(paper_id)
    ids = "|".join(re.escape(c.id) for c in paper.claims)
    typed = re.compile(rf"\b({ids})\b\**\s+(?:holds|is held|does not hold|is not held|fails|is undecided)")
    found = {e.id: typed.findall(prose(e.discussion).text) for e in paper.experiments}
    assert not {k: v for k, v in found.items() if v}, found
