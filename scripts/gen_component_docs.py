"""Writes the parameter tables of docs/scenario-format.md from the engine's declarations of its
applications, disciplines and transports (their doc comments and typed defaults):

    python3 scripts/gen_component_docs.py

tests/test_generated_docs.py fails when the file is stale.
"""

from pathlib import Path

from fairsim.catalogue import with_generated_sections

DOC = Path(__file__).resolve().parent.parent / "docs" / "scenario-format.md"

if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    DOC.write_text(with_generated_sections(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {DOC}")
