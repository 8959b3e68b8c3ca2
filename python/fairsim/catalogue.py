"""What fairsim knows: disciplines, transports, applications and bundled scenarios."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from fairsim import _core

#: Scenario files shipped with the package (the repository's ``scenarios/`` folder).
BUNDLED = Path(__file__).parent / "scenarios"


@dataclass(frozen=True)
class Parameter:
    name: str
    #: As written in a scenario; None when there is no default (unbounded, or required).
    default: str | None
    doc: str


@dataclass(frozen=True)
class Entry:
    name: str
    summary: str
    reference: str = ""
    #: A component's parameters, from its declaration in the engine (none for scenarios).
    parameters: tuple[Parameter, ...] = ()
    #: Written in Python (`fairsim.extend`): the `python` kind, or a class registered in this
    #: process; not one of fairsim's own (the engine says which came through its door).
    python: bool = False


def _entry(name: str, summary: str, reference: str, params: list, python: bool) -> Entry:
    return Entry(name, summary, reference, tuple(Parameter(*p) for p in params), python)


def catalogue() -> dict[str, list[Entry]]:
    """Disciplines, transports, applications and bundled scenarios, each with a one-line summary."""
    qdiscs, transports, apps = _core.catalogue()
    return {
        "disciplines": [_entry(*q) for q in qdiscs],
        "transports": [_entry(*t) for t in transports],
        "applications": [_entry(*a) for a in apps],
        "scenarios": bundled_scenarios(),
    }


def bundled_scenarios() -> list[Entry]:
    import tomllib  # here: `import fairsim` does not need it

    entries = []
    for path in _bundled_files():
        try:
            meta = scenario_table(path.read_bytes().decode("utf-8-sig"))  # as api.scenario_source
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            meta = {}
        entries.append(Entry(_bundled_name(path), meta.get("description", ""), meta.get("reference", "")))
    return entries


def _bundled_files() -> list[Path]:
    return sorted(BUNDLED.rglob("*.toml"))


def _bundled_name(path: Path) -> str:
    return path.relative_to(BUNDLED).with_suffix("").as_posix()


#: The `[scenario]` header, and any other line that could add to or redefine that table.
_SCENARIO_HEADER = re.compile(r"^\[scenario\][ \t]*(?:#.*)?$", re.MULTILINE)
_SCENARIO_ELSEWHERE = re.compile(r"^[ \t]*(?:\[\[?[ \t]*)?[\"']?scenario\b", re.MULTILINE)
_TABLE_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)


def scenario_table(text: str) -> dict:
    """The `[scenario]` table of a scenario file (``{}`` if it has none); raises
    `tomllib.TOMLDecodeError` for a file that is not TOML.

    The reproductions' files carry their papers' published tables, and tomllib is pure Python:
    parsing all the bundled files took most of `fairsim list`'s time. So when the table can be
    cut out unambiguously (one plain `[scenario]` header and no other line naming `scenario`),
    only the text from its header to the next header is parsed; otherwise, or if that piece does
    not parse (a multi-line string cut short), the whole file. tests/test_startup.py checks that
    both give the same table for every bundled scenario.
    """
    import tomllib

    headers = list(_SCENARIO_HEADER.finditer(text))
    if len(headers) == 1 and len(_SCENARIO_ELSEWHERE.findall(text)) == 1:
        start = headers[0].start()
        following = _TABLE_HEADER.search(text, headers[0].end())
        try:
            return tomllib.loads(text[start : following.start() if following else len(text)])["scenario"]
        except tomllib.TOMLDecodeError:
            pass
    return tomllib.loads(text).get("scenario", {})


def bundled_names() -> list[str]:
    """The names of the bundled scenarios, as `fairsim list` shows them (``examples/dumbbell``)."""
    return [_bundled_name(path) for path in _bundled_files()]


def find_scenario(name: str | Path) -> Path:
    """The scenario file `name` names: a path that exists, else a bundled scenario.

    Only a relative path can name a bundled scenario, by its name with or without ``.toml``
    (``examples/dumbbell``) or by a file name that is unique among them (``dumbbell``); a path
    that exists always wins. Anything else that does not exist is an error, with the bundled
    name it most likely misspells.
    """
    path = Path(name)
    try:
        if path.exists():
            return path
    except OSError as e:  # a name the system refuses to look up, e.g. too long
        raise _core.FairsimError(f"{name}: cannot read: {e.strerror or e}") from None
    if not path.is_absolute():
        for candidate in (BUNDLED / path, BUNDLED / path.with_suffix(".toml")):
            if candidate.is_file() and candidate.resolve().is_relative_to(BUNDLED.resolve()):
                return candidate
        if path.parent == Path("."):
            matches = [p for p in BUNDLED.rglob("*.toml") if p.stem == path.with_suffix("").name]
            if len(matches) == 1:
                return matches[0]
    hint = ""
    if not path.is_absolute():
        typed = path.with_suffix("").as_posix() if path.suffix == ".toml" else str(path)
        hint = _core.did_you_mean(typed, bundled_names())
    raise _core.FairsimError(f"{name}: no such file{hint} (`fairsim list` shows the bundled scenarios)")


#: The sections of docs/scenario-format.md made from the engine's declarations, by kind.
GENERATED_KINDS = ("applications", "disciplines", "transports")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def parameters_markdown(kind: str) -> str:
    """Every component of `kind` with its parameter table, as docs/scenario-format.md shows it:
    made from the engine's declarations (`scripts/gen_component_docs.py` writes it there)."""
    from fairsim.extend.registry import PYTHON_KIND

    out = []
    for e in catalogue()[kind]:
        if e.python and e.name != PYTHON_KIND:  # the user's own classes, not the docs'
            continue
        out.append(f"#### `{e.name}`\n\n{e.summary}" + (f" — *{e.reference}*" if e.reference else "") + "\n")
        if e.parameters:
            out.append("| parameter | default | meaning |\n|---|---|---|")
            for p in e.parameters:
                default = f"`{p.default}`" if p.default is not None else "—"
                out.append(f"| `{p.name}` | {_cell(default)} | {_cell(p.doc)} |")
        else:
            out.append("No parameters.")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def marker(kind: str, end: bool = False) -> str:
    """The comment that opens (or closes) the generated section of `kind`."""
    if end:
        return f"<!-- end of generated {kind} -->"
    return f"<!-- generated {kind}: scripts/gen_component_docs.py writes it from the engine; do not edit -->"


def _with_section(text: str, kind: str, body: str) -> str:
    """`text` with the generated section of `kind` replaced by `body`."""
    start, end = marker(kind), marker(kind, end=True)
    head, found, rest = text.partition(start)
    if not found:
        raise ValueError(f"no section `{start}`")
    _, found, tail = rest.partition(end)
    if not found:
        raise ValueError(f"no end `{end}`")
    return f"{head}{start}\n\n{body}\n{end}{tail}"


def with_generated_sections(text: str) -> str:
    """`text` (docs/scenario-format.md) with every generated section made afresh."""
    for kind in GENERATED_KINDS:
        text = _with_section(text, kind, parameters_markdown(kind))
    return text


def columns_markdown() -> str:
    """The engine's columns (`stats::catalogue`) as a Markdown table: the interval rows', the
    flows' and the queues' (a summary column has `_std` and `_ci95` beside it)."""
    rows = ["| table | column | unit | meaning |", "|---|---|---|---|"]
    for t, n, u, d, source in _core.columns():
        shown = f"`{n}` (`_std`, `_ci95`)" if source == "summary" else f"`{n}`"
        rows.append(f"| `{t}` | {shown} | {_cell(u)} | {_cell(d)} |")
    return "\n".join(rows) + "\n"


def with_generated_columns(text: str) -> str:
    """`text` (docs/results.md) with its table of the engine's columns made afresh."""
    return _with_section(text, "columns", columns_markdown())
