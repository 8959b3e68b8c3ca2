#!/usr/bin/env bash
# htsim's side of the RoCE/PFC, HPCC and Swift validation runs, one process at a time,
# each under /usr/bin/time -v.
#
#   validation/htsim/roce_htsim_runs.sh OUTDIR [SEEDS...]          (default seeds 1 2 3; 1-20 is a range)
#   PROGS="roce hpcc" RUNS="perm incast32" validation/htsim/roce_htsim_runs.sh OUTDIR 1   # a subset
#
# Needs the binaries from build.sh (FAIRSIM_VALIDATION_CACHE, default ~/.cache/fairsim-validation)
# and writes OUTDIR/matrices/*.cm (roce_matrices.py), OUTDIR/raw/<label>.{out,time} and
# OUTDIR/<label>.json (roce_htsim_results.py). Seed S uses the matrices drawn with seed S and
# htsim's -seed S; htsim_swift has no -seed (srand(13) is fixed), so its runs differ by matrix
# only. Runs (k = 8 fat-tree, -nodes 128): permutation (1 GB each, 10 ms), incast of 32 and of
# 127 senders (1 MB each), web search at 60% (arrivals over 10 ms); htsim_roce and htsim_hpcc
# (PFC 12/15 packets of 9,000 B, -strat ecmp_host -paths 256), htsim_swift at -q 400 (delay-
# governed) and at its default -q 8 (loss-governed), MTU 4,000 B, -tsample 100000 (only the sink
# logger's sampling period, 100 ms: it does not act on the flows). htsim_hpcc's per-ACK `CWND` lines are
# dropped by awk while it runs (its CPU time still includes writing them). A run whose JSON is
# already in OUTDIR is not run again (FORCE=1 reruns it). SWIFT_Q="400 8" (the default) or one.
set -euo pipefail
OUT="$(readlink -f "${1:?OUTDIR}")"; shift
SEEDS=()
for a in "${@:-1 2 3}"; do
    case $a in *-*) SEEDS+=($(seq "${a%-*}" "${a#*-}")) ;; *) SEEDS+=($a) ;; esac
done
SWIFT_Q="${SWIFT_Q:-400 8}"
RUNS="${RUNS:-perm incast32 incast127 websearch}"
PROGS="${PROGS:-roce hpcc swift}"
HERE="$(dirname "$(readlink -f "$0")")"
BIN="${FAIRSIM_VALIDATION_CACHE:-$HOME/.cache/fairsim-validation}/htsim/bin"
PY="${PYTHON:-python3}"
M="$OUT/matrices"
mkdir -p "$OUT/raw" "$M"
"$PY" "$HERE/roce_matrices.py" --out "$M" --seeds "${SEEDS[@]}"

# -q is, in lossless_input mode, only the egress size above which htsim prints "LOSSLESS not
# working!" once per arriving packet (queue_lossless_output.cpp; and the adaptive-routing
# quantiser, unused with ecmp_host): at the default 15 a permutation writes hundreds of MB of
# it. 1000 packets (9 MB) keeps the output and the CPU time about the simulation.
# htsim_swift's RTO doubles on every timeout with no cap and is checked every 10 ms: after an
# incast's losses a flow can wait seconds, so its finite runs last 5 s (idle time costs little).
# (Flows that stay open at 5 s are stuck for good: htsim_swift never resends some lost data;
# see roce-htsim-side.md, quirks.)
SWIFT_END="${SWIFT_END:-5000000}"
ROCE="-nodes 128 -strat ecmp_host -paths 256 -q 1000 -pfc_thresholds 12 15"

run() {  # label kind matrix end_us program args...
    local label=$1 kind=$2 matrix=$3 end=$4 prog=$5; shift 5
    if [ -s "$OUT/$label.json" ] && [ "${FORCE:-0}" != 1 ]; then echo "== $label: done before" >&2; return; fi
    local tmp; tmp="$(mktemp -d)"
    echo "== $label: htsim_$prog $* -tm $matrix -end $end" >&2
    # awk: htsim_hpcc writes one CWND line per ACK (dropped); "LOSSLESS not working!" lines
    # (an egress above -q, or an ingress above 2000 packets) are counted per queue instead
    ( cd "$tmp" && /usr/bin/time -v -o "$OUT/raw/$label.time" nice -n 10 "$BIN/htsim_$prog" "$@" \
        -tm "$matrix" -end "$end" -o "$tmp/log" \
        | awk '/^CWND[12] /{next} / LOSSLESS not working!/{w[$2]++; next} {print}
               END{for (q in w) print "LOSSLESS_WARN", q, w[q]}' > "$OUT/raw/$label.out" )
    rm -rf "$tmp"
    "$PY" "$HERE/roce_htsim_results.py" --stdout "$OUT/raw/$label.out" --time "$OUT/raw/$label.time" \
        --matrix "$matrix" --end-us "$end" --kind "$kind" --program "$prog" --label "$label" \
        -o "$OUT/$label.json"
}

progs() {  # name kind matrix end seed
    local n=$1 k=$2 m=$3 e=$4 s=$5 p q
    for p in $PROGS; do
        case $p in
            roce)  run "${n}_roce_s$s" "$k" "$m" "$e" roce $ROCE -seed "$s" ;;
            hpcc)  run "${n}_hpcc_s$s" "$k" "$m" "$e" hpcc $ROCE -seed "$s" ;;
            swift) [ "$k" = permutation ] || e=$SWIFT_END
                   for q in $SWIFT_Q; do
                       run "${n}_swift_q${q}_s$s" "$k" "$m" "$e" swift -nodes 128 -q "$q" -mtu 4000 -cwnd 15 -tsample 100000
                   done ;;
            *) echo "unknown program $p" >&2; exit 2 ;;
        esac
    done
}

for s in "${SEEDS[@]}"; do
    for r in $RUNS; do
        case $r in
            perm)      progs perm permutation "$M/perm128_1GB_s$s.cm" 10000 "$s" ;;
            incast32)  progs incast32 incast "$M/incast32_1MB_s$s.cm" 100000 "$s" ;;
            incast127) progs incast127 incast "$M/incast127_1MB_s$s.cm" 100000 "$s" ;;
            websearch) progs websearch60 websearch "$M/websearch60_10ms_s$s.cm" 100000 "$s" ;;
            *) echo "unknown run $r" >&2; exit 2 ;;
        esac
    done
done
"$PY" "$HERE/roce_htsim_results.py" --table "$OUT" | tee "$OUT/table.md"
