"""The pins CI installs stay in step with the ranges users install: every dependency pyproject.toml
declares is pinned in constraints.txt at a version its range allows, and in
constraints-lowest.txt at exactly its lower bound (scripts/update_constraints.py writes both; an
edit of pyproject.toml without rerunning it fails here, not in a user's environment); and the
build users install is the one CI tests, optimised further."""

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
DECLARED = [
    Requirement(r)
    for r in [
        *PROJECT["dependencies"],
        *(r for extra in PROJECT["optional-dependencies"].values() for r in extra),
    ]
]
RUNTIME = [Requirement(r) for r in [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["dask"]]]


def pins(name: str) -> dict[str, str]:
    lines = (ROOT / name).read_text().splitlines()
    pairs = (line.split("==") for line in lines if line and not line.startswith("#"))
    return {canonicalize_name(n): v for n, v in pairs}


@pytest.mark.parametrize("file", ["constraints.txt", "constraints-lowest.txt"])
def test_every_declared_dependency_is_pinned_inside_its_range(file):
    pinned = pins(file)
    outside = [
        f"{r.name} {pinned.get(canonicalize_name(r.name), 'not pinned')} (pyproject: {r.specifier})"
        for r in DECLARED
        if not r.specifier.contains(pinned.get(canonicalize_name(r.name), "0"), prereleases=True)
    ]
    assert not outside, f"{file} is stale (python3 scripts/update_constraints.py): {outside}"


def test_the_lowest_pins_are_the_ranges_lower_bounds():
    pinned = pins("constraints-lowest.txt")
    for r in RUNTIME:
        lower = [s.version for s in r.specifier if s.operator == ">="]
        assert lower, f"{r}: a runtime dependency needs a lower bound"
        got = pinned.get(canonicalize_name(r.name))
        # `>=2` is pinned as `2` (pip's dry run may spell it 2.0.0): compare as versions
        assert got and Version(got) == Version(lower[0]), f"{r.name}: pinned {got}, lower bound {lower[0]}"


def test_what_users_build_is_the_tested_release_build_optimised_further():
    # CI builds and tests Cargo's `release` profile (scripts/test.sh); what users install is built
    # with the profile pyproject.toml names, which may differ from `release` only in how far the
    # compiler optimises (docs/decisions.md, "The build users install")
    profile = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["maturin"]["profile"]
    profiles = tomllib.loads((ROOT / "Cargo.toml").read_text())["profile"]
    assert profile in profiles, f"pyproject.toml's maturin profile `{profile}` is not in Cargo.toml"
    settings = dict(profiles[profile])
    assert settings.pop("inherits", None) == "release", f"the `{profile}` profile must inherit `release`"
    assert set(settings) <= {"lto", "codegen-units"}, f"`{profile}` sets more than optimisation: {settings}"
