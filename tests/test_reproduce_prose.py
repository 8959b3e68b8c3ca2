"""Notes wrapped in scenario files read as paragraphs and lists in the reports."""

from fairsim.reproduce.prose import blocks, reflow

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
