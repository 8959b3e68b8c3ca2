"""What fairsim knows: disciplines, transports, applications and bundled scenarios."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from fairsim import _core

#: Scenario files shipped with the package (the repository's ``scenarios/`` folder).
BUNDLED = Path(__file__).parent / "scenarios"


@dataclass(frozen=True)
class Entry:
    name: str
    summary: str
    reference: str = ""


def catalogue() -> dict[str, list[Entry]]:
    """Disciplines, transports, applications and bundled scenarios, each with a one-line summary."""
    qdiscs, transports, apps = _core.catalogue()
    return {
        "disciplines": [Entry(*q) for q in qdiscs],
        "transports": [Entry(*t) for t in transports],
        "applications": [Entry(*a) for a in apps],
        "scenarios": bundled_scenarios(),
    }


def bundled_scenarios() -> list[Entry]:
    entries = []
    for path in sorted(BUNDLED.rglob("*.toml")):
        name = path.relative_to(BUNDLED).with_suffix("").as_posix()
        try:
            meta = tomllib.loads(path.read_text()).get("scenario", {})
        except (OSError, tomllib.TOMLDecodeError):
            meta = {}
        entries.append(Entry(name, meta.get("description", ""), meta.get("reference", "")))
    return entries


def find_scenario(name: str | Path) -> Path:
    """A scenario path as given, or the bundled scenario of that name (``examples/dumbbell``)."""
    path = Path(name)
    if path.exists():
        return path
    for candidate in (BUNDLED / path, BUNDLED / path.with_suffix(".toml")):
        if candidate.is_file():
            return candidate
    matches = [p for p in BUNDLED.rglob("*.toml") if p.stem == path.stem]
    if len(matches) == 1:
        return matches[0]
    return path
