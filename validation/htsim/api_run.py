"""One run through fairsim's Python API, as a script runs it (`speed.py --memory`'s
`fairsim.run` side, the process the memory aim is stated for):

    python3 validation/htsim/api_run.py SCENARIO [KEY=VALUE ...]

Calls `fairsim.run(SCENARIO, set=[KEY=VALUE, ...])` and exits, printing nothing: only the
process's peak memory and time are read."""

from __future__ import annotations

import sys

import fairsim


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.splitlines()[3].strip(), file=sys.stderr)
        return 2
    scenario, *sets = argv
    fairsim.run(scenario, set=sets)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
