"""The documentation site (mkdocs.yml): it builds with `mkdocs build --strict`, so without a
warning (a broken link or anchor, a page left out of the navigation, a docstring that cannot be
read); its command-line page is what the commands' `--help` prints; and the commands and Python
of every page under docs/ run. The guides (docs/index.md and the how-to pages) each have some;
a reference or explanation page may have none.

A page's blocks run in their order, in one temporary folder, so that a block can read what an
earlier one wrote:
- a ```sh block whose first command starts with `fairsim ` runs in bash, stopping at the first
  command that fails, with this environment's `fairsim` first on the path (blocks of other
  commands, such as `pip install`, are not run);
- a ```python block runs in a new interpreter; one with a title (```python title="name.py") is
  also saved under that name, for the blocks after it to import;
- an HTML comment `<!-- not run: REASON -->` on the line right before a block leaves it out
  (a cluster's address, a batch system).
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: Every page, whose blocks run; the guides among them, which must have blocks to run.
RUN_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
GUIDE_PAGES = ["index.md", *sorted(p.relative_to(DOCS).as_posix() for p in (DOCS / "howto").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)([^`]*)$")
SHELL = {"sh", "bash", "shell", "console"}
NOT_RUN = re.compile(r"^<!--\s*not run:\s*\S.*-->$")
#: What the `docs` extra installs, as imported.
DOCS_PACKAGES = [
    "mkdocs",
    "material",
    "mkdocstrings_handlers.python",
    "mkdocs_jupyter",
    "mdx_truly_sane_lists",
]


def blocks(page: Path) -> list[dict]:
    """The fenced blocks of `page`: language, info string, text, line, and whether a comment
    before it says not to run it."""
    found, lines, i = [], page.read_text(encoding="utf-8").splitlines(), 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j] == "```"), None)
        assert end is not None, f"{page.name}:{i + 1}: a code block that is not closed"
        found.append(
            {
                "lang": fence[1],
                "info": fence[2],
                "text": "\n".join(lines[i + 1 : end]) + "\n",
                "line": i + 1,
                "skip": i > 0 and bool(NOT_RUN.match(lines[i - 1].strip())),
            }
        )
        i = end + 1
    return found


def is_fairsim_command(text: str) -> bool:
    commands = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return bool(commands) and commands[0].startswith("fairsim ")


def to_run(page: Path) -> list[dict]:
    return [
        b
        for b in blocks(page)
        if not b["skip"] and (b["lang"] == "python" or (b["lang"] in SHELL and is_fairsim_command(b["text"])))
    ]


def test_the_site_builds_without_a_warning(tmp_path):
    for module in DOCS_PACKAGES:
        pytest.importorskip(module, reason=f"{module} is not installed: pip install -e '.[docs]'")
    site = tmp_path / "site"
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml")]
    # from another folder: the configuration finds its files from its own place
    r = subprocess.run(
        [*build, "-d", str(site)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-5000:]
    assert "WARNING" not in r.stderr, r.stderr[-5000:]
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("fairsim.run", "fairsim.sweep", "fairsim.Results", "fairsim.Discipline"):
        assert name in api, f"the API page documents no {name}"
    assert "Unreleased" in (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert (site / "sweep" / "index.html").is_file(), "the notebooks are pages"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"], "the build writes only the site"


def test_the_command_line_page_is_what_the_commands_print():
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    written = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert written == gen.page(), "stale: run `python3 scripts/gen_cli_docs.py`"


def test_the_guides_have_blocks_to_run():
    for name in GUIDE_PAGES:
        assert to_run(DOCS / name), f"docs/{name}: no block to run"
    assert len(GUIDE_PAGES) >= 5, GUIDE_PAGES
    assert set(GUIDE_PAGES) < set(RUN_PAGES), "a guide whose blocks do not run"
    assert {"extending.md", "scenario-format.md", "reference/cli.md"} <= set(RUN_PAGES), RUN_PAGES


@pytest.mark.slow
@pytest.mark.parametrize("name", RUN_PAGES)
def test_the_pages_commands_and_python_run(name, tmp_path):
    page = DOCS / name
    fairsim = Path(sys.executable).parent / "fairsim"
    assert fairsim.exists(), f"no `fairsim` beside {sys.executable}: install the package (pip install -e .)"
    path = f"{fairsim.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path, "MPLBACKEND": "Agg"}
    for block in to_run(page):
        where = f"docs/{name}:{block['line']}"
        if block["lang"] == "python":
            title = re.search(r'title="([^"]+)"', block["info"])
            script = tmp_path / (title[1] if title else f"_block_{block['line']}.py")
            script.write_text(block["text"], encoding="utf-8")
            command = [sys.executable, script.name]
        else:
            command = ["bash", "-euo", "pipefail", "-c", block["text"]]
        r = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, (
            f"{where}: exit code {r.returncode}\n{block['text']}\n"
            f"stdout:\n{r.stdout[-3000:]}\nstderr:\n{r.stderr[-3000:]}"
        )
