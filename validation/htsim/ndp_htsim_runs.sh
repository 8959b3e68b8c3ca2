#!/usr/bin/env bash
# htsim's side of the NDP/EQDS validation runs, one process at a time, each under /usr/bin/time -v.
#
#   validation/htsim/ndp_htsim_runs.sh OUTDIR [SEEDS...]        (default seeds 1 2 3; 1-20 is a range)
#   RUNS="perm incast32" PROGS="ndp_rand eqds" validation/htsim/ndp_htsim_runs.sh OUTDIR 1   # a subset
#
# Needs the binaries from build.sh (FAIRSIM_VALIDATION_CACHE, default ~/.cache/fairsim-validation)
# and writes OUTDIR/matrices/*.cm (ndp_matrices.py all), OUTDIR/raw/<label>.{out,time} and
# OUTDIR/<label>.json (ndp_htsim_results.py). Seed S uses the matrices drawn with seed S and
# htsim's -seed S. Runs: permutation (k = 8, 1 GB each, 10 ms), incast of 32 and 127 senders
# on k = 8 and 128 on k = 10 (270,000 B each), web search at 60% (arrivals over 10 ms, run to
# 30 ms); each under htsim_ndp -strat perm (ndp_perm), htsim_ndp -strat rand (ndp_rand) and
# htsim_eqds (eqds). PERM_END (µs, default 10000) shortens the permutation. A run whose JSON is
# already in OUTDIR is not run again (FORCE=1 reruns it), so a series that stopped goes on where
# it stopped.
set -euo pipefail
OUT="$(readlink -f "${1:?OUTDIR}")"; shift
SEEDS=()
for a in "${@:-1 2 3}"; do
    case $a in *-*) SEEDS+=($(seq "${a%-*}" "${a#*-}")) ;; *) SEEDS+=($a) ;; esac
done
RUNS="${RUNS:-perm incast32 incast127 incast128k10 websearch}"
PROGS="${PROGS:-ndp_perm ndp_rand eqds}"
PERM_END="${PERM_END:-10000}"
HERE="$(dirname "$(readlink -f "$0")")"
BIN="${FAIRSIM_VALIDATION_CACHE:-$HOME/.cache/fairsim-validation}/htsim/bin"
M="$OUT/matrices"
mkdir -p "$OUT/raw" "$M"
python3 "$HERE/ndp_matrices.py" all --out "$M" --seeds "${SEEDS[@]}"

NDP="-q 15 -cwnd 30"
EQDS="-q 35 -cwnd 50 -paths 64"

run() {  # label kind matrix end_us program args...
    local label=$1 kind=$2 matrix=$3 end=$4 prog=$5; shift 5
    if [ -s "$OUT/$label.json" ] && [ "${FORCE:-0}" != 1 ]; then echo "== $label: done before" >&2; return; fi
    local tmp; tmp="$(mktemp -d)"
    echo "== $label: $prog $* -tm $matrix -end $end" >&2
    ( cd "$tmp" && /usr/bin/time -v -o "$OUT/raw/$label.time" nice -n 10 "$BIN/htsim_$prog" "$@" \
        -tm "$matrix" -end "$end" -o "$tmp/log" > "$OUT/raw/$label.out" )
    rm -rf "$tmp"
    python3 "$HERE/ndp_htsim_results.py" --stdout "$OUT/raw/$label.out" --time "$OUT/raw/$label.time" \
        --matrix "$matrix" --end-us "$end" --kind "$kind" --program "$prog" --label "$label" \
        -o "$OUT/$label.json"
}

three() {  # name kind matrix end nodes seed
    local n=$1 k=$2 m=$3 e=$4 nodes=$5 s=$6 p
    for p in $PROGS; do
        case $p in
            ndp_perm) run "${n}_ndp_perm_s$s" "$k" "$m" "$e" ndp -nodes "$nodes" -strat perm $NDP -seed "$s" ;;
            ndp_rand) run "${n}_ndp_rand_s$s" "$k" "$m" "$e" ndp -nodes "$nodes" -strat rand $NDP -seed "$s" ;;
            eqds)     run "${n}_eqds_s$s" "$k" "$m" "$e" eqds $EQDS -seed "$s" ;;
            *) echo "unknown program $p" >&2; exit 2 ;;
        esac
    done
}

for s in "${SEEDS[@]}"; do
    for r in $RUNS; do
        case $r in
            perm)         three perm permutation "$M/perm128_1GB_s$s.cm" "$PERM_END" 128 "$s" ;;
            incast32)     three incast32 incast "$M/incast32_270KB_s$s.cm" 100000 128 "$s" ;;
            incast127)    three incast127 incast "$M/incast127_270KB_s$s.cm" 100000 128 "$s" ;;
            incast128k10) three incast128k10 incast "$M/incast128_k10_270KB_s$s.cm" 100000 250 "$s" ;;
            websearch)    three websearch60 websearch "$M/websearch60_10ms_s$s.cm" 30000 128 "$s" ;;
            *) echo "unknown run $r" >&2; exit 2 ;;
        esac
    done
done
python3 "$HERE/ndp_htsim_results.py" --table "$OUT" | tee "$OUT/table.md"
