"""The docs that are made from the engine's declarations are up to date, and every registered
component has its row in docs/algorithms.md."""

from pathlib import Path

import fairsim
from fairsim.catalogue import parameters_markdown, with_generated_columns, with_generated_sections

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_parameter_tables_in_the_scenario_format_are_generated_and_current():
    text = (DOCS / "scenario-format.md").read_text(encoding="utf-8")
    assert with_generated_sections(text) == text, "stale: run `python3 scripts/gen_component_docs.py`"


def test_the_column_table_in_the_results_doc_is_the_engines_catalogue():
    text = (DOCS / "results.md").read_text(encoding="utf-8")
    assert with_generated_columns(text) == text, "stale: run `python3 scripts/gen_component_docs.py`"
    assert "| `intervals` | `window_limited_ns` | ns |" in text


def test_the_tables_show_typed_defaults_and_descriptions():
    qdiscs = parameters_markdown("disciplines")
    assert "| `mark_threshold` | `0.3333333333333333` |" in qdiscs, "fqbit's typed default"
    transports = parameters_markdown("transports")
    jk = transports.split("#### `jk`")[1].split("####")[0]
    assert "| `window` | `5` | The largest window, in packets" in jk
    assert "One of `packets`, `bytes`." in jk


def test_every_component_has_a_row_in_the_algorithms_table():
    algorithms = (DOCS / "algorithms.md").read_text(encoding="utf-8")
    c = fairsim.catalogue()
    # fairsim's own and the `python` kind; not the test modules' registered classes
    own = [e for kind in ("disciplines", "transports") for e in c[kind] if e.name == "python" or not e.python]
    names = [e.name for e in own if e.name != "none"]
    missing = [name for name in names if f"`{name}`" not in algorithms]
    assert missing == [], f"components without a row in docs/algorithms.md: {missing}"
