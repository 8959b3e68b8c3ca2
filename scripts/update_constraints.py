"""Remakes constraints.txt and constraints-lowest.txt from pyproject.toml's ranges.

constraints.txt pins what pip resolves today for '.[test]' (the newest versions in the ranges);
constraints-lowest.txt pins what it resolves when every runtime dependency (and dask) is held at
the lowest version its range allows. CI and scripts/test.sh install both. Nothing is built or
installed (pip's dry run); review the diff, then run scripts/test.sh.

usage: python3 scripts/update_constraints.py
"""

import json
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = {
    "constraints.txt": "The exact versions CI and scripts/test.sh install for '.[test]'.",
    "constraints-lowest.txt": "The lowest versions pyproject.toml allows for fairsim's dependencies "
    "(and dask), with what they need; scripts/test.sh runs the Python tests with them.",
}


def lowest_pins() -> list[str]:
    """`name==X` for each runtime dependency and dask, X the lower bound of its range."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = []
    for req in [*project["dependencies"], *project["optional-dependencies"]["dask"]]:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*>=\s*([^,\s]+).*", req)
        if not m:
            sys.exit(f"pyproject.toml: {req!r} has no lower bound")
        pins.append(f"{m[1]}=={m[3]}")
    return pins


def resolve(held: list[str]) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        held_file, report = Path(tmp, "held.txt"), Path(tmp, "report.json")
        held_file.write_text("\n".join(held) + "\n")
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed"]
        subprocess.run([*cmd, "-c", str(held_file), "--report", str(report), ".[test]"], cwd=ROOT, check=True)
        installs = json.loads(report.read_text())["install"]
    pins = sorted((i["metadata"]["name"], i["metadata"]["version"]) for i in installs)
    return [f"{n}=={v}" for n, v in sorted(pins, key=lambda p: p[0].lower()) if n != "fairsim"]


def main() -> None:
    if len(sys.argv) > 1:
        print(__doc__.strip())
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    for name, held in [("constraints.txt", []), ("constraints-lowest.txt", lowest_pins())]:
        text = (
            f"# {HEADER[name]}\n# Made by scripts/update_constraints.py from pyproject.toml; do not edit.\n"
        )
        (ROOT / name).write_text(text + "\n".join(resolve(held)) + "\n")
        print(f"wrote {name}")


if __name__ == "__main__":
    main()
