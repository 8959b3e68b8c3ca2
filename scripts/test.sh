#!/usr/bin/env bash
# Installs what the tests need, then runs every check and test: formatting and lints, the Rust
# engine's tests, the Python package's tests (API and command line), and every reproduction in
# quick mode. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'

# tshark reads the pcap files fairsim writes (tests/test_pcap.py), from the distribution's
# packages (Debian's, whose security updates replace exact versions, so none is pinned; the test
# needs only the TCP analysis every tshark since 1.x has)
if ! command -v tshark >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends tshark >/dev/null
fi
export FAIRSIM_REQUIRE_TSHARK=1   # here a missing tshark fails the pcap test instead of skipping it
# the short side-by-side run with ns-3 (tests/test_ns3_validation.py): about 2 minutes, and ns-3's
# pinned wheel installed once into ~/.cache/fairsim-validation (not a path with "test" in it)
export FAIRSIM_NS3_VALIDATION=1

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
ruff check python tests scripts validation
ruff format --check python tests scripts validation

if cargo nextest --version >/dev/null 2>&1; then
    cargo nextest run --workspace
else
    cargo test --workspace
fi
cargo test --doc -p fairsim --quiet
cargo bench -p fairsim --no-run --quiet    # benchmarks must keep compiling

python3 -m pytest -q
# a minute of the scenario loader's mutation fuzzer (the run above gave it 10 s): the same inputs
# every time; fails on any panic, abort, hang or non-fairsim exception, saving the input
FAIRSIM_FUZZ_SECONDS=60 python3 -m pytest -q -s tests/test_fuzz.py

# the reproductions end to end, quickly: any run that errors fails CI
reports="$(mktemp -d)"
trap 'rm -rf "$reports"' EXIT
papers="$(python3 -c 'from fairsim import reproduce; print(*reproduce.papers())')"
for paper in $papers; do
    fairsim reproduce "$paper" --quick --no-progress --out "$reports/$paper" > /dev/null
done
echo "reproductions (quick) ran and wrote their reports:" $papers
