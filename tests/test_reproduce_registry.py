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


#: The papers as registered: every test that goes over them takes this list, so that adding a
#: paper (a package) changes no test.
PAPERS = list(reproduce.papers())


def test_the_bundled_papers_are_every_package_with_a_paper_oldest_first():
    import pkgutil

    packages = [m.name for m in pkgutil.iter_modules(reproductions.__path__) if m.ispkg]
    papers = [importlib.import_module(f"{reproductions.__name__}.{name}").PAPER for name in packages]
    assert PAPERS == [p.id for p in sorted(papers, key=lambda p: (p.year, p.id))]
    assert {"dks89", "keshav91", "blt94", "csfq98", "hasegawa01"} <= set(PAPERS), "the five of the brief"


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
    assert found == ["zz_newpaper", *PAPERS]  # ordered by year: 1900 first


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_package_has_the_same_files(paper):
    base = f"{reproductions.__name__}.{paper}"
    for part in ("experiments", "claims", "figures"):
        importlib.import_module(f"{base}.{part}")
    assert importlib.import_module(base).PAPER.id == paper
