"""The answer of the scripts here that read their own arguments to `-h` or `--help`: their
docstring (what they do and their usage), and nothing done. Such a script calls, first thing
under `if __name__ == "__main__":`,

    from usage import answer_help

    answer_help(__doc__)

(scripts with argparse answer `--help` through it). Shown by

    python3 scripts/usage.py --help
"""

from __future__ import annotations

import sys


def answer_help(doc: str | None) -> None:
    """Prints `doc` and exits 0 when the command line asks for help (`-h` or `--help`)."""
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):
        print((doc or "").strip())
        sys.exit(0)


if __name__ == "__main__":
    answer_help(__doc__)
