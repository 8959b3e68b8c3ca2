"""Notes wrapped in scenario files read as paragraphs and lists in the reports, and the reports
speak to a reader of the paper: no issue numbers, no commit hashes."""

import json
import re
import subprocess
import sys

import pytest

from fairsim.reproduce import papers
from fairsim.reproduce.prose import blocks, reflow

FAIRSIM = [sys.executable, "-m", "fairsim.cli"]

NOTES = """
From the paper: a 60 KB buffer,
2 KB packets.
Ours, where the paper is silent:
- the 100 ms is on the output line,
  the access lines have none;
- ACKs are 40 bytes;
Each choice is made once.
"""


def test_items_of_a_wrapped_note_stay_items_and_paragraphs_stay_whole():
    assert reflow(NOTES) == (
        "From the paper: a 60 KB buffer, 2 KB packets. Ours, where the paper is silent:\n"
        "\n"
        "- the 100 ms is on the output line, the access lines have none;\n"
        "- ACKs are 40 bytes;\n"
        "\n"
        "Each choice is made once."
    )
    html = blocks(reflow(NOTES))
    assert html.count("<li>") == 2 and html.count("<p>") == 2 and "- " not in html


# The reports speak to a reader of the paper: what runs and why, not the project's history.
# Every paper's quick reproduction runs here, end to end: scripts/test.sh counts on it.
PAPERS = tuple(papers())
ISSUE = re.compile(r"\bissues? \d+", re.I)
# A commit hash: 7-40 hex digits with a digit and a letter, not a colour (`#1f77b4`) nor the
# fraction of a number (`4.43e-05`).
HASH = re.compile(r"(?<![#.])\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
# Inline figures and style sheets: drawing code, not prose.
DRAWING = re.compile(r"<(svg|style|script)\b.*?</\1>", re.S | re.I)


@pytest.fixture(scope="module", params=PAPERS)
def quick_report(request, tmp_path_factory):
    """One paper's quick reproduction: its report.md, report.html and --json output."""
    out = tmp_path_factory.mktemp(request.param)
    proc = subprocess.run(
        [*FAIRSIM, "reproduce", request.param, "--quick", "--no-progress", "--json", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return {
        "report.md": (out / "report.md").read_text(),
        "report.html": (out / "report.html").read_text(),
        "--json": proc.stdout,
    }


def _strings(doc):
    """Every string of a JSON document, keys and values."""
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for key, value in doc.items():
            yield key
            yield from _strings(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _strings(value)


def _found(pattern: re.Pattern, texts) -> list[str]:
    return [text[max(0, m.start() - 60) : m.end() + 20] for text in texts for m in pattern.finditer(text)]


@pytest.mark.slow
def test_the_reports_name_no_issue_and_no_commit(quick_report):
    prose = {
        "report.md": [quick_report["report.md"]],
        "report.html": [DRAWING.sub("", quick_report["report.html"])],
        "--json": list(_strings(json.loads(quick_report["--json"]))),
    }
    for name, text in quick_report.items():
        assert not _found(ISSUE, [text]), (name, _found(ISSUE, [text]))
        assert not _found(HASH, prose[name]), (name, _found(HASH, prose[name]))


def test_the_commit_pattern_finds_hashes_and_not_colours_or_numbers():
    assert _found(HASH, ["the verdicts recorded at ff9481c from de81a65's code"]) != []
    assert _found(HASH, ["(commit 068c0b1e2f)"]) != []
    html = "<p style='color:#1f77b4ff'>0.2003078054674581e-05, 4.432844887619892e-05, 1234567</p>"
    assert _found(HASH, [html, "deadbeef", "2000000 packets"]) == []
    assert _found(ISSUE, ["(what ran before Issue 28 §4)", "issues 12 and 28"]) != []
    assert _found(ISSUE, ["the issue of 1989", "7 issues"]) == []
