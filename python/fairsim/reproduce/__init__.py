"""`fairsim reproduce`: rerun a seed paper's experiments and compare with its published numbers.

```python
from fairsim import reproduce
report = reproduce.run("dks89", quick=True)   # runs, compares, evaluates, draws
reproduce.write(report, "out/")               # report.md, report.html, figures/, reproduction.json
```

See docs/reproductions.md. The heavy parts (matplotlib) load on first use, so that the
command line starts quickly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from fairsim._core import FairsimError

if TYPE_CHECKING:
    from fairsim.reproduce.model import Paper
    from fairsim.reproduce.report import Report

__all__ = ["paper", "papers", "run", "to_json", "write"]


def papers() -> dict[str, Paper]:
    """The reproducible papers, by id, oldest first: every package under
    `fairsim.reproduce.reproductions` that defines a `PAPER` (adding a paper is adding a package)."""
    import importlib
    import pkgutil

    package = importlib.import_module("fairsim.reproduce.reproductions")
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "PAPER"):
            found.append(module.PAPER)
    return {p.id: p for p in sorted(found, key=lambda p: (p.year, p.id))}


def paper(id: str) -> Paper:
    known = papers()
    if id not in known:
        raise FairsimError(f"no reproduction of `{id}`; known: {', '.join(known)} (fairsim reproduce --list)")
    return known[id]


def run(
    paper_id: str,
    *,
    quick: bool = False,
    seeds: int | None = None,
    jobs: int | None = None,
    progress: bool | None = None,
    only: list[str] | None = None,
    client=None,
    cache: str | Path | None = None,
    stability: bool = False,
    pairs: dict[str, str] | None = None,
) -> Report:
    """Runs a paper's experiments (all, or those in `only`) and builds the report: on local
    processes, or on a Dask cluster through `client`; runs that the folder `cache` holds are not
    run again, and new ones are added to it (so an interrupted reproduction resumes). With
    `stability`, runs it again under each stability variant (reproduce/stability.py) and adds
    every claim's verdict under each to the report. `pairs` (name -> the pair's table as TOML)
    run beside the paper's pairs in every experiment: the report shows their numbers beside the
    paper's, marked as added, and no claim or published cell is about them. An added pair that
    an experiment refuses or whose run fails there has no numbers in it, and its message in
    `report.added` (and the report) instead; the paper's pairs are not affected."""
    from fairsim.reproduce.model import run_paper
    from fairsim.reproduce.report import build

    p = paper(paper_id)
    for e in only or []:
        try:
            p.experiment(e)
        except KeyError as err:
            raise FairsimError(str(err.args[0])) from None
    folder = Path(cache) if cache is not None else None

    def again(count: int | None = None, extra=None):
        """The reproduction as asked, with `count` replications instead (a variant's) and
        `extra` overrides."""
        return run_paper(
            p,
            quick=quick,
            seeds=count or seeds,
            jobs=jobs,
            progress=progress,
            only=only,
            client=client,
            cache=folder,
            extra=extra,
            added=pairs,
        )

    report = build(again(), progress=progress)
    if stability:
        from fairsim.reproduce import stability as st

        report.stability = st.stability(p, st.verdicts(p, report.outcome), again)
    return report


def to_json(report: Report) -> dict:
    """The machine-readable document (schema `fairsim.reproduce/1`)."""
    from fairsim.reproduce.report import to_json as document

    return document(report)


def write(report: Report, out: str | Path) -> list[Path]:
    """Writes report.md, report.html, figures/*.svg and reproduction.json into `out`."""
    from fairsim.output import atomic_write
    from fairsim.reproduce import html, markdown

    out = Path(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    written = []

    def put(path: Path, text: str) -> None:
        atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
        written.append(path)

    for sec in report.sections:
        for f in [*([sec.network] if sec.network else []), *sec.figures]:
            put(out / "figures" / f"{f.id}.svg", f.svg)
    put(out / "reproduction.json", json.dumps(to_json(report), indent=2) + "\n")
    put(out / "report.md", markdown.render(report))
    put(out / "report.html", html.render(report))
    return written
