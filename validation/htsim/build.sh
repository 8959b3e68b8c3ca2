#!/usr/bin/env bash
# Build htsim's NDP and EQDS programs (and its stock TCP one) for issue 48's validation runs,
# from htsim's public source, into a cache outside this repository.
#
#   validation/htsim/build.sh [HTSIM_SRC]        # or FAIRSIM_HTSIM_SRC=...; --force rebuilds
#
# HTSIM_SRC is a git directory (bare mirror or a checkout) holding Broadcom/csg-htsim; commit
# 841d9e7 is extracted from it (FAIRSIM_HTSIM_COMMIT overrides). Default: the mirror below.
# The cache is $FAIRSIM_VALIDATION_CACHE/htsim (default ~/.cache/fairsim-validation/htsim):
#   src/  the extracted source with our additions   bin/  htsim_ndp, htsim_eqds, htsim_tcp_stock,
#   parse_output, and BUILD_INFO (commit, this script's checksum).
# Nothing of htsim is kept in this repository. Our additions (a few inserted lines, listed in
# ADDITIONS below; each anchor must match exactly once or the build stops):
#   * at the end of htsim_ndp and htsim_eqds: `TRIMS <n> DROPS <n>`, the sums over every
#     switch queue of the fat-tree (CompositeQueue::num_stripped() and num_drops()), and per
#     sink `SINK <name> <in-order bytes> <received bytes>` (received: every data packet once);
#   * compositequeue.cpp: a trimmed tail packet whose header does not fit the header queue is
#     freed without being counted as a drop; it is counted (one line), so DROPS is every loss;
#   * eqds.h: two read-only accessors on EqdsSink (its unique bytes and out-of-order count);
#   * eqds.cpp: one condition changed and one call moved earlier, so that htsim_eqds does not
#     abort on a trimmed packet of a flow that fits in its speculative window (web search);
#     runs that did not abort are unchanged (see below).
# htsim_tcp_stock is main_tcp.cpp unchanged: it has none of the hand changes docs/validation.md
# lists for the htsim_tcp that compare.py runs (-ackpath, -end, ...), hence its name.
set -euo pipefail

FORCE=0
if [ "${1:-}" = "--force" ]; then FORCE=1; shift; fi
SRC_REPO="${1:-${FAIRSIM_HTSIM_SRC:-/work/.mirror/Broadcom+csg-htsim/repo}}"
COMMIT="${FAIRSIM_HTSIM_COMMIT:-841d9e7}"
CACHE="${FAIRSIM_VALIDATION_CACHE:-$HOME/.cache/fairsim-validation}/htsim"
JOBS="${FAIRSIM_BUILD_JOBS:-2}"
SELF="$(readlink -f "$0")"

# A git directory: bare (SRC_REPO is the git dir) or a checkout (SRC_REPO/.git).
if [ -e "$SRC_REPO/.git" ]; then
    GIT=(git -C "$SRC_REPO")
elif git --git-dir="$SRC_REPO" rev-parse --git-dir >/dev/null 2>&1; then
    GIT=(git --git-dir="$SRC_REPO")
else
    echo "build.sh: $SRC_REPO is not a git directory holding csg-htsim" >&2; exit 2
fi
FULL="$("${GIT[@]}" rev-parse --verify "$COMMIT^{commit}")"
SUM="$(sha256sum "$SELF" | cut -d' ' -f1)"
INFO="commit $FULL build.sh $SUM"

if [ "$FORCE" = 0 ] && [ -f "$CACHE/bin/BUILD_INFO" ] && [ "$(cat "$CACHE/bin/BUILD_INFO")" = "$INFO" ] \
   && [ -x "$CACHE/bin/htsim_ndp" ] && [ -x "$CACHE/bin/htsim_eqds" ]; then
    echo "htsim up to date in $CACHE/bin ($INFO)"; exit 0
fi

rm -rf "$CACHE/src"
mkdir -p "$CACHE/src" "$CACHE/bin"
# (The stored mirror lacks one blob outside sim/, and git archive names it, "error: invalid
# object ... experiments/...", yet exits 0 with sim/ whole; pipefail stops on a real failure.)
"${GIT[@]}" archive "$FULL" sim | tar -x -C "$CACHE/src"
SIM="$CACHE/src/sim"

# ---- our additions -------------------------------------------------------------------------
python3 - "$SIM" <<'ADDITIONS'
import sys, pathlib
sim = pathlib.Path(sys.argv[1])

def edit(rel, anchor, text, where="after"):
    """Insert text after (or before) the single line containing anchor."""
    p = sim / rel
    lines = p.read_text().split("\n")
    hits = [i for i, l in enumerate(lines) if anchor in l]
    if len(hits) != 1:
        sys.exit(f"build.sh: {rel}: {len(hits)} lines contain {anchor!r}, expected 1")
    i = hits[0] + (1 if where == "after" else 0)
    lines[i:i] = text.split("\n")
    p.write_text("\n".join(lines))

def replace(rel, old, new):
    """Replace the single occurrence of old."""
    p = sim / rel
    text = p.read_text()
    if text.count(old) != 1:
        sys.exit(f"build.sh: {rel}: {text.count(old)} occurrences of {old!r}, expected 1")
    p.write_text(text.replace(old, new))

# Sum over every queue of the fat-tree's switches (the host uplinks' FairPriorityQueues
# never drop and are not CompositeQueues): trims and drops.
(sim / "datacenter/fairsim_counts.h").write_text("""\
// Added by fairsim's validation/htsim/build.sh; not part of htsim.
#ifndef FAIRSIM_COUNTS_H
#define FAIRSIM_COUNTS_H
#include <iostream>
#include <vector>
#include "compositequeue.h"
#include "fat_tree_topology.h"
typedef std::vector<std::vector<std::vector<BaseQueue*> > > fairsim_qv;
static void fairsim_add(const fairsim_qv& v, uint64_t& trims, uint64_t& drops) {
    for (size_t a = 0; a < v.size(); a++)
        for (size_t b = 0; b < v[a].size(); b++)
            for (size_t c = 0; c < v[a][b].size(); c++) {
                BaseQueue* q = v[a][b][c];
                if (CompositeQueue* cq = dynamic_cast<CompositeQueue*>(q)) {
                    trims += cq->num_stripped(); drops += cq->num_drops();
                } else if (Queue* pq = dynamic_cast<Queue*>(q)) {
                    drops += pq->num_drops();
                }
            }
}
static void fairsim_print_trims(FatTreeTopology* top) {
    uint64_t trims = 0, drops = 0;
    fairsim_add(top->queues_nc_nup, trims, drops);  fairsim_add(top->queues_nup_nc, trims, drops);
    fairsim_add(top->queues_nup_nlp, trims, drops); fairsim_add(top->queues_nlp_nup, trims, drops);
    fairsim_add(top->queues_nlp_ns, trims, drops);  fairsim_add(top->queues_ns_nlp, trims, drops);
    std::cout << "TRIMS " << trims << " DROPS " << drops << std::endl;
}
#endif
""")

# A trimmed tail packet that does not fit the header queue: counted as a drop.
edit("compositequeue.cpp", "booted_pkt->free();", "                        _num_drops++; // fairsim")

# htsim_ndp: keep the sinks, print at the end. NDP's _cumulative_ack is the last in-order
# byte (sequence numbers start at 1); every NDP data packet carries 9,000 B (cumulative_ack()).
edit("datacenter/main_ndp.cpp", '#include "fat_tree_switch.h"', '#include "fairsim_counts.h" // fairsim')
edit("datacenter/main_ndp.cpp", "ndpSnk = new NdpSink(pacers[dest]);",
     "        fairsim_sinks.push_back(ndpSnk); // fairsim")
edit("datacenter/main_ndp.cpp", "NdpSink* ndpSnk;", "    vector<NdpSink*> fairsim_sinks; // fairsim")
edit("datacenter/main_ndp.cpp", 'cout << "New: " << new_pkts', """\
    fairsim_print_trims(top); // fairsim
    for (size_t ix = 0; ix < fairsim_sinks.size(); ix++) // fairsim
        cout << "SINK " << fairsim_sinks[ix]->str() << " " << fairsim_sinks[ix]->_cumulative_ack
             << " " << fairsim_sinks[ix]->cumulative_ack() << endl;""")

# htsim_eqds: the same. EqdsSink counts unique payload bytes (_received_bytes, private) and
# packets held above a hole; in-order bytes = unique - held x MSS (a held last packet, short,
# would be over-counted: it only matters while a flow's last packet waits for a hole).
edit("eqds.h", "inline mem_b total_received() const {return _stats.bytes_received;}",
     "    mem_b fairsim_received_bytes() const {return _received_bytes;} // fairsim\n"
     "    uint32_t fairsim_out_of_order() const {return _out_of_order_count;} // fairsim")
edit("datacenter/main_eqds.cpp", '#include "fat_tree_switch.h"', '#include "fairsim_counts.h" // fairsim')
edit("datacenter/main_eqds.cpp", "EqdsSink* eqds_snk;", "    vector<EqdsSink*> fairsim_sinks; // fairsim")
edit("datacenter/main_eqds.cpp", "eqds_snk = new EqdsSink(", "        fairsim_sinks.push_back(eqds_snk); // fairsim")
edit("datacenter/main_eqds.cpp", 'cout << "New: " << new_pkts', """\
    fairsim_print_trims(top); // fairsim
    for (size_t ix = 0; ix < fairsim_sinks.size(); ix++) { // fairsim
        int64_t got = fairsim_sinks[ix]->fairsim_received_bytes();
        int64_t held = (int64_t)fairsim_sinks[ix]->fairsim_out_of_order() * EqdsSrc::_mss;
        cout << "SINK " << fairsim_sinks[ix]->str() << " " << (got > held ? got - held : 0)
             << " " << got << endl;
    }""")
# EQDS: a flow that fits in its speculative window (50 x 4,150 B = 207,500 B) has no backlog
# when its first ACK/NACK/PULL ends speculation, so stopSpeculating() leaves _state at
# SPECULATING; a later NACK's retransmission spends pulled credit and spendCredit() asserts
# _state == COMMITTED: htsim_eqds aborts (web search at 60%, in its first 134 us). _state is read
# by those asserts alone, so moving to COMMITTED whatever the backlog changes nothing else.
replace("eqds.cpp", "if (_backlog > 0 && _state == SPECULATING) {",
        "if (_state == SPECULATING) { // fairsim: was `_backlog > 0 && `, see build.sh")
# EQDS: processNack() queues the retransmission, which tries to send at once, before it stops
# speculation; a flow still speculating with speculative credit left (a flow that ends inside
# its first window: web search) then sends the retransmission as speculative data and
# sendRtxPacket() asserts `!speculative` ("I don't think this can happen"): htsim_eqds aborts.
# Speculation is stopped first (the call already made a few lines below), so the
# retransmission waits for pulled credit, as every other one does. Only runs that aborted
# change.
replace("eqds.cpp", "    _send_times.erase(send_time);\n    queueForRtx(seqno, pkt_size);\n",
        "    _send_times.erase(send_time);\n    stopSpeculating(); // fairsim: before the send queueForRtx tries, see build.sh\n"
        "    queueForRtx(seqno, pkt_size);\n")
print("build.sh: additions applied")
ADDITIONS

# ---- build (g++ and make only; niced: the machine is shared) -------------------------------
nice -n 19 make -j"$JOBS" -C "$SIM" libhtsim.a parse_output
nice -n 19 make -j"$JOBS" -C "$SIM/datacenter" htsim_ndp htsim_eqds htsim_tcp

install -m 755 "$SIM/datacenter/htsim_ndp" "$SIM/datacenter/htsim_eqds" "$SIM/parse_output" "$CACHE/bin/"
install -m 755 "$SIM/datacenter/htsim_tcp" "$CACHE/bin/htsim_tcp_stock"
echo "$INFO" > "$CACHE/bin/BUILD_INFO"
echo "htsim built: $CACHE/bin ($INFO)"
