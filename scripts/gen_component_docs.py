"""Writes the parameter tables of docs/scenario-format.md from the engine's declarations of its
applications, disciplines and transports (their doc comments and typed defaults), and the table
of interval columns in docs/results.md from the engine's column catalogue:

    python3 scripts/gen_component_docs.py

tests/test_generated_docs.py fails when the file is stale.
"""

from pathlib import Path

from fairsim.catalogue import with_generated_columns, with_generated_sections

DOCS = Path(__file__).resolve().parent.parent / "docs"

if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    generated = (("scenario-format.md", with_generated_sections), ("results.md", with_generated_columns))
    for name, regenerate in generated:
        doc = DOCS / name
        doc.write_text(regenerate(doc.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {doc}")
