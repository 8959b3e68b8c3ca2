#!/bin/sh
# Instruction counts and mispredicted branches of the engine benchmark's pairs, for each build of
# `examples/bench` given, under valgrind (independent of the machine's load; docs/performance.md):
#
#     scripts/count_instructions.sh OLD/examples/bench target/release/examples/bench
#
# One run per pair: the six pairs of the TCP dumbbell (60 s) and the Generic dumbbell's two
# (300 s, the bench's default). Prints: build, pair, instructions, mispredicted branches.
case "${1-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" && exit 0 ;; esac
set -e
cd "$(dirname "$0")/.."
count() {
    valgrind --tool=cachegrind --branch-sim=yes --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 |
        awk '/I *refs:/ { i = $4 } /Mispredicts:/ { m = $3 } END { print i, m }'
}
for build in "$@"; do
    for pair in NR/FIFO NR/RED NR/DRR CUBIC/FIFO CUBIC/RED CUBIC/DRR; do
        echo "$build $pair $(count "$build" scenarios/bench/tcp-dumbbell.toml 1 "$pair")"
    done
    for pair in G/FCFS G/RD; do
        echo "$build $pair $(count "$build" 1 "$pair")"
    done
done
