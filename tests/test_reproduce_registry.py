"""How papers and their claims are registered: claims in declaration order beside their checks,
papers found by package discovery (adding a paper is adding a package, no list to edit)."""

import importlib
import sys

import pytest

from fairsim import reproduce
from fairsim.reproduce import reproductions
from fairsim.reproduce.claims import Claims, Context, Verdict


def test_claims_keep_their_declaration_order_and_the_decorated_check():
    claims = Claims()

    @claims.claim("b", experiment="x", text="second letter", tolerance="none")
    def first(ctx):
        return Verdict(True, "1")

    claims.add(
        "a", experiment="y", text="first letter", tolerance="none", check=lambda ctx: Verdict(False, "0")
    )

    assert [c.id for c in claims] == ["b", "a"]  # declared order, not sorted
    assert first(None).held is True  # the decorator hands the function back unchanged
    assert claims[0].evaluate(Context({})).measured == "1"
    assert claims[1].experiment == "y"


def test_a_claim_declared_twice_is_listed_twice_so_duplicates_show():
    claims = Claims()
    for _ in range(2):
        claims.add("same", experiment="x", text="t", tolerance="t", check=lambda ctx: Verdict(None, ""))
    assert len(claims) == 2


def test_the_bundled_papers_are_found_oldest_first():
    assert list(reproduce.papers()) == ["dks89", "keshav91", "blt94", "csfq98", "hasegawa01"]


def test_a_new_package_is_a_new_paper_without_any_list_edited(tmp_path, monkeypatch):
    package = tmp_path / "zz_newpaper"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from types import SimpleNamespace\nPAPER = SimpleNamespace(id='zz_newpaper', year=1900)\n"
    )
    helper = tmp_path / "not_a_paper"
    helper.mkdir()
    (helper / "__init__.py").write_text("")  # a package without PAPER is skipped
    monkeypatch.setattr(reproductions, "__path__", [*reproductions.__path__, str(tmp_path)])
    try:
        found = list(reproduce.papers())
    finally:
        for name in ("zz_newpaper", "not_a_paper"):
            sys.modules.pop(f"{reproductions.__name__}.{name}", None)
    assert found == ["zz_newpaper", "dks89", "keshav91", "blt94", "csfq98", "hasegawa01"]  # ordered by year


@pytest.mark.parametrize("paper", ["dks89", "keshav91", "blt94", "csfq98", "hasegawa01"])
def test_every_paper_package_has_the_same_files(paper):
    base = f"{reproductions.__name__}.{paper}"
    for part in ("experiments", "claims", "figures"):
        importlib.import_module(f"{base}.{part}")
    assert importlib.import_module(base).PAPER.id == paper
