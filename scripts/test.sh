#!/usr/bin/env bash
# README command 2: installs what the tests need into the project's virtual environment (.venv,
# made here if missing; FAIRSIM_VENV names another), then runs every check and test: formatting
# and lints, the Rust engine's tests, the Python package's tests (API and command line, on every
# core: pytest-xdist; among them every reproduction in quick mode), the documentation site
# (mkdocs build --strict, into a temporary folder) and the engine's `cargo doc`, the Python tests not marked slow at the
# lowest dependency versions pyproject.toml claims, and, under CI, the README's quick start and
# the wheel. CI (.ci/run) runs exactly this, from a copy of the checkout in a folder named
# `fairsim` under a path containing a space.
#
#   bash scripts/test.sh           everything (CI)
#   bash scripts/test.sh --quick   "did my install work?": lints, the Rust tests, the Python tests
#                                  not marked slow, the documentation site (seconds), one quick
#                                  reproduction; installs no tshark and no ns-3 (their tests
#                                  are left out)
#
# Needs no root: where tshark or ns-3's wheel cannot be installed, one line says why and their
# tests are skipped; under CI (CI=true) that is a failure instead. A failing step does not stop
# the others. The summary at the end names every step that failed and every test that was
# skipped, with pytest's reason.
set -uo pipefail
quick=""
case "${1:-}" in
    -h | --help)
        # the comment at the top of this file is its usage
        echo "usage: bash scripts/test.sh [--quick]"
        sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"
        exit 0
        ;;
    --quick) quick=1 ;;
    "") ;;
    *)
        echo "scripts/test.sh: unknown option '$1' (usage: bash scripts/test.sh [--quick])" >&2
        exit 2
        ;;
esac
cd "$(dirname "$0")/.."
ci="${CI:-}"
note() { printf '\033[1m%s\033[0m\n' "$*"; }
fatal() { note "error: $*" >&2; exit 1; }
#: what was not tested, and why: printed again at the end
not_tested=()

# --- the environment ------------------------------------------------------------------------
venv="${FAIRSIM_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
    note "creating the virtual environment $venv"
    python3 -m venv "$venv" || fatal "python3 -m venv failed (on Debian: apt-get install python3-venv)"
fi
# shellcheck disable=SC1091
source "$venv/bin/activate"
# the engine for the tests is built with cargo's `release` profile, not the whole-program `dist`
# that pyproject.toml gives what users install: the same results, and minutes less of building
# (the wheel below is built as users build it)
export MATURIN_PEP517_ARGS="--profile release"
note "installing fairsim (editable) and the test tools into $venv, at the versions in constraints.txt"
python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]' \
    || fatal "pip could not install the test dependencies"

# tshark reads the pcap files fairsim writes (tests/test_pcap.py), from the distribution's
# packages (Debian's, whose security updates replace exact versions, so none is pinned; the test
# needs only the TCP analysis every tshark since 1.x has). apt waits up to 10 minutes for a
# package manager that another process is running (its lock), and a failure says apt's own words.
install_tshark() {
    local sudo="" out
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo="sudo"
        else
            echo "installing it needs root: sudo apt-get install tshark"
            return 1
        fi
    fi
    command -v apt-get >/dev/null 2>&1 || { echo "no apt-get here: install tshark with your package manager"; return 1; }
    note "installing tshark with apt-get (Debian package, about 60 MB with its libraries)" >&2
    local wait=(-o DPkg::Lock::Timeout=600)
    if ! out="$($sudo apt-get "${wait[@]}" update -qq 2>&1 &&
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" install -y -qq \
            --no-install-recommends tshark 2>&1)"; then
        echo "apt-get failed: $(printf '%s\n' "$out" | grep -v '^$' | tail -n 1)"
        return 1
    fi
}
if [ -n "$quick" ]; then
    export FAIRSIM_NS3_VALIDATION=0 FAIRSIM_TSHARK_MISSING="--quick installs no tshark"
    not_tested+=("installs: tshark and ns-3's wheel (--quick leaves their tests out)")
elif ! command -v tshark >/dev/null 2>&1; then
    why="$(install_tshark)"
    if ! command -v tshark >/dev/null 2>&1; then
        [ -n "$ci" ] && fatal "tshark could not be installed, and CI runs the pcap tests: $why"
        export FAIRSIM_TSHARK_MISSING="tshark is not installed: $why"
        note "tshark is not installed ($why): the pcap tests will be skipped"
    fi
fi
if command -v tshark >/dev/null 2>&1; then
    export FAIRSIM_REQUIRE_TSHARK=1 # here a missing tshark fails the pcap tests instead of skipping
fi

# the short side-by-side run with ns-3 (tests/test_ns3_validation.py, about 2 minutes) runs ns-3's
# pinned wheel from its own environment, outside any path containing "test" (its loader skips those)
if [ "${FAIRSIM_NS3_VALIDATION:-1}" = 1 ]; then
    if python validation/ns3/compare.py --prepare; then
        export FAIRSIM_NS3_VALIDATION=1
    elif [ -n "$ci" ]; then
        fatal "ns-3's wheel could not be installed, and CI runs the comparison with ns-3"
    else
        export FAIRSIM_NS3_VALIDATION=0
        note "ns-3's wheel could not be installed: the comparison with ns-3 will be skipped (FAIRSIM_NS3_VALIDATION=0 skips it quietly)"
    fi
fi

# the short side-by-side runs with htsim (tests/test_htsim_validation.py) where htsim's side is in
# the validation cache: validation/htsim/build.sh builds htsim_dumbbell there from htsim's public
# source (this project ships none of it), htsim_tcp needs the hand changes docs/validation.md
# lists; without them those tests skip
htsim_bin="${XDG_CACHE_HOME:-$HOME/.cache}/fairsim-validation/htsim/bin"
for tool in tcp dumbbell; do
    variable="FAIRSIM_HTSIM_$(echo "$tool" | tr '[:lower:]' '[:upper:]')"
    if [ -z "${!variable:-}" ] && [ -x "$htsim_bin/htsim_$tool" ]; then
        export "$variable=$htsim_bin/htsim_$tool"
    fi
done
if [ -z "${FAIRSIM_HTSIM_TCP:-}" ] && [ -z "$quick" ]; then
    note "no htsim_tcp in $htsim_bin (docs/validation.md says how to build it): the comparison with htsim will be skipped"
fi

# --- the checks -----------------------------------------------------------------------------
failed=()
step() {
    local name="$1"
    shift
    local start=$SECONDS
    note "== $name"
    "$@" || failed+=("$name")
    echo "   ($((SECONDS - start)) s)"
}

# every pytest run prints its failures, errors and skip reasons (-rfEs) and keeps its output for the summary at the end
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
pytest_logged() {
    local log="$logs/$1.log"
    shift
    "$@" -rfEs 2>&1 | tee "$log"
    return "${PIPESTATUS[0]}"
}

lowest_versions() {
    # the Python tests in a second environment holding the lowest versions pyproject.toml allows
    # (constraints-lowest.txt), so the ranges users install into their own environments are
    # tested ranges; the engine is the one built above. The tests marked slow are left out: they
    # are the same calls into the dependencies, made with more simulated time, and they ran at
    # the pinned versions (docs/decisions.md, "Ranges for users, pins for CI")
    local low="${FAIRSIM_VENV_LOWEST:-.venv-lowest}"
    [ -x "$low/bin/python" ] || python3 -m venv "$low" || return 1
    "$low/bin/python" -m pip install --quiet --disable-pip-version-check \
        -c constraints-lowest.txt -e '.[test]' || return 1
    PATH="$PWD/$low/bin:$PATH" pytest_logged "at the lowest versions" "$low/bin/python" -m pytest -q -p no:cacheprovider \
        -n auto -m "not slow"
}

# each in a subshell whose temporary folder goes when it ends, however it ends
quick_reproduction() (
    reports="$(mktemp -d)"
    trap 'rm -rf "$reports"' EXIT
    fairsim reproduce "$1" --quick --no-progress --out "$reports/$1" >/dev/null &&
        echo "the reproduction of $1 (quick) ran and wrote its report"
)

readme_quick_start() (
    # README command 1, exactly as written there, in a fresh clone of this commit with its own
    # .venv (the engine's build reuses this checkout's cargo cache: the build is tested above)
    command="$(sed -n '/^## Quick start/,/^```$/{/^python3 -m venv/p}' README.md | sed 's/ *#.*//')"
    [ -n "$command" ] || { echo "README.md: no quick-start command found"; exit 1; }
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
    git clone --quiet . "$dir/fairsim" &&
        (cd "$dir/fairsim" && CARGO_TARGET_DIR="$OLDPWD/target" bash -euc "$command" >/dev/null) &&
        [ -s "$dir/fairsim/reproduce-dks89/report.html" ]
)

wheel_without_root() (
    # README's "A wheel file": built here, then installed and run by a user without root (nobody),
    # with the system's Python in a fresh virtual environment: no Rust, no root, no sudo. Built
    # from the tests' `release` build, which it reuses: the `dist` profile users build (the same
    # code, optimised as a whole program) took 7 of CI's 45 minutes from nothing
    # (docs/decisions.md, "The build users install")
    command -v setpriv >/dev/null && [ -x /usr/bin/python3 ] || {
        note "skipped: the wheel as a user without root (needs setpriv and /usr/bin/python3)"
        return 0
    }
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
    pip wheel . --no-deps --quiet -w "$dir" >/dev/null && cp constraints.txt "$dir/" &&
        chown -R nobody:nogroup "$dir" &&
        setpriv --reuid=nobody --regid=nogroup --clear-groups env -i HOME="$dir" PATH=/usr/bin:/bin \
            bash -euc 'cd "$1" && python3 -m venv venv && venv/bin/pip install --quiet -c constraints.txt ./fairsim-*.whl &&
                venv/bin/fairsim reproduce dks89 --quick --no-progress --out out >/dev/null && [ -s out/report.html ]' _ "$dir"
)

docs_site() (
    # the documentation site (mkdocs.yml) as `mkdocs build --strict` builds it, into a temporary
    # folder: a warning (a broken link or anchor, a page left out of the navigation, a docstring
    # that cannot be read) fails it. tests/test_docs_site.py runs every page's commands and Python.
    # NO_MKDOCS_2_WARNING: the theme's notice of its end of life, printed at every build
    site="$(mktemp -d)"
    trap 'rm -rf "$site"' EXIT
    NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict -f mkdocs.yml -d "$site/site"
)

rust_tests() {
    if cargo nextest --version >/dev/null 2>&1; then cargo nextest run --workspace; else cargo test --workspace; fi
}

step "cargo fmt" cargo fmt --all -- --check
# --all-targets: the benchmarks and examples are type-checked and linted here (their own build
# took four minutes of CI and found nothing this does not)
step "cargo clippy" cargo clippy --workspace --all-targets --quiet -- -D warnings
step "ruff check" ruff check python tests scripts validation
step "ruff format" ruff format --check python tests scripts validation
step "Rust tests" rust_tests
step "documentation site (mkdocs build --strict)" docs_site
if [ -n "$quick" ]; then
    step "Python tests, not marked slow" pytest_logged "Python tests" python -m pytest -q -n auto -m "not slow"
    step "one quick reproduction (dks89)" quick_reproduction dks89
    not_tested+=("not run by --quick: the tests marked slow, the doc tests, cargo doc, the fuzzer's minute, the lowest versions, the other reproductions")
else
    step "Rust doc tests" cargo test --doc -p fairsim --quiet
    # the engine's API reference (`cargo doc`), every intra-doc link resolved
    step "Rust API documentation (cargo doc)" env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --quiet
    step "Python tests" pytest_logged "Python tests" python -m pytest -q -n auto
    # a minute of the scenario loader's mutation fuzzer (the run above gave it 10 s): the same
    # inputs every time; fails on any panic, abort, hang or non-fairsim exception, saving the input
    step "fuzzer, 60 s" env FAIRSIM_FUZZ_SECONDS=60 python -m pytest -q -s \
        tests/test_fuzz.py::test_loader_survives_mutated_scenarios tests/test_fuzz.py::test_sweep_descriptions_survive_fuzzing
    step "Python tests at the lowest versions" lowest_versions
    # every reproduction ran end to end, quickly, in the Python tests above
    # (tests/test_reproduce_prose.py: a run that errors fails)
    if [ -n "$ci" ]; then
        step "README quick start in a fresh clone" readme_quick_start
        if [ "$(id -u)" = 0 ]; then
            step "the wheel, installed and run without root" wheel_without_root
        else
            not_tested+=("the wheel as a user without root: needs root to become one")
        fi
    else
        not_tested+=("the README quick start in a fresh clone, the wheel without root: under CI only (CI=true)")
    fi
fi

# --- what was not tested, and why -----------------------------------------------------------
note "== not tested"
for line in "${not_tested[@]}"; do echo "  $line"; done
for log in "$logs"/*.log; do
    [ -e "$log" ] || continue
    run="$(basename "$log" .log)"
    # pytest's "SKIPPED [N] FILE:LINE: REASON" lines, counted by file and reason
    sed -n 's/^SKIPPED \[\([0-9]*\)\] \([^:]*\):[0-9]*: \(.*\)$/\1\t\2: \3/p' "$log" |
        awk -F'\t' -v run="$run" '{n[$2] += $1} END {for (k in n) printf "  %s: %d skipped, %s\n", run, n[k], k}' |
        sort
    deselected="$(grep -o '[0-9]* deselected' "$log" | tail -n 1)"
    [ -z "$deselected" ] || echo "  $run: $deselected (marked slow)"
done

if [ ${#failed[@]} -gt 0 ]; then
    note "FAILED: ${failed[*]}" >&2
    exit 1
fi
note "all checks and tests passed"
