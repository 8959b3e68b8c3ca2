#!/usr/bin/env bash
# Build htsim's NDP and EQDS programs (and its stock TCP one) and its RoCE, HPCC and Swift ones
# for the validation runs of docs/validation.md (*NDP and EQDS*, *RoCE over PFC, and HPCC*), and
# our htsim_dumbbell (*htsim*), from htsim's public source, into a cache outside this repository.
#
#   validation/htsim/build.sh [HTSIM_SRC]        # or FAIRSIM_HTSIM_SRC=...; --force rebuilds
#
# HTSIM_SRC is a git directory (bare mirror or a checkout) holding Broadcom/csg-htsim; commit
# 841d9e7 is extracted from it (FAIRSIM_HTSIM_COMMIT overrides). Default: the mirror below.
# The cache is $FAIRSIM_VALIDATION_CACHE/htsim (default ~/.cache/fairsim-validation/htsim):
#   src/  the extracted source with our additions   bin/  htsim_ndp, htsim_eqds, htsim_tcp_stock,
#   htsim_roce, htsim_hpcc, htsim_swift, htsim_dumbbell, parse_output, and BUILD_INFO (commit,
#   this script's checksum, and the list of additions below).
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
# RoCE/PFC, HPCC and Swift (htsim_roce, htsim_hpcc, htsim_swift; validation/htsim/roce-htsim-side.md):
#   * queue_lossless_input.{h,cpp}: per switch ingress, XOFFs sent, XOFF->XON time and the largest
#     ingress count; queue_lossless_output.{h,cpp}: per switch egress, largest size, time
#     non-empty and the size's time integral; printed at the end of htsim_roce/htsim_hpcc as
#     `PFCQ <VirtualQueue(upstream port)> pauses n paused_us t max_bytes b [open]`, a total
#     `PFC queues n pauses n paused_us t open n`, and `EGQ <port> max_bytes b busy_us t
#     area_byte_us a` (no other output or behaviour of any program changes);
#   * roce.cpp, hpcc.cpp: the matrix start is honoured (htsim started every flow at t = 0;
#     -start_at_zero restores that), a source not yet started keeps its host's pause state, the
#     per-source srand(time(NULL)) is removed (paths from the seeded stream), first finish time
#     kept; runs whose flows all start at 0 differ from stock htsim only by the path draw;
#   * main_roce.cpp, main_hpcc.cpp, main_swift.cpp: one `FSFLOW <matrix id> <name> start_ps s
#     fin_ps f|-1 bytes <sink in-order bytes> size <matrix size>` line per connection at the end;
#   * main_swift.cpp: per-flow size from the matrix (ceil(size/MSS) packets) unless -flowsize is
#     given, the start read in ps (was x 10^6), `TRIMS 0 DROPS n` at the end; randomqueue.cpp
#     counts every drop (early and tail) in num_drops (it counted none there);
#   * queue.cpp: a host queue (FairPriorityQueue) that gets an XON while a packet is on the line
#     no longer starts a second transmission (htsim lost that packet and aborted later, as in
#     websearch60_roce_s2); runs that did not abort are unchanged;
#   * connection_matrix.cpp: a line without `size` has size 0 (was uninitialised).
# htsim_dumbbell (validation/htsim/dumbbell.py; docs/validation.md, *htsim's side*) is a main of
# our own, written below into src/sim/main_dumbbell.cpp and linked against libhtsim.a (-O3, the
# library's flags): htsim's Queue, Pipe, TcpSrc, TcpSink and TcpRtxTimerScanner (10 ms), options
# -flows -neck -access (Mb/s) -neckdelay -accessdelay -end -stagger (us) -q -accessq -ssthresh
# (packets) -seed, and `SINK <i> <bytes>`, `DROPS <n>`, `EVENTS <n>` at the end; no htsim file changes.
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
INFO="commit $FULL build.sh $SUM additions: ndp-eqds(sinks,trims,eqds-2-fixes) roce-hpcc(pfc-counters,egress-occupancy,start,prestart-pause,no-srand-time,fsflow) swift(matrix-size,start-ps,fsflow,drops,randomqueue-drops) host-queue(xon-in-flight) connection_matrix(size-0) dumbbell(main)"

if [ "$FORCE" = 0 ] && [ -f "$CACHE/bin/BUILD_INFO" ] && [ "$(cat "$CACHE/bin/BUILD_INFO")" = "$INFO" ] \
   && [ -x "$CACHE/bin/htsim_ndp" ] && [ -x "$CACHE/bin/htsim_eqds" ] && [ -x "$CACHE/bin/htsim_roce" ] \
   && [ -x "$CACHE/bin/htsim_hpcc" ] && [ -x "$CACHE/bin/htsim_swift" ] && [ -x "$CACHE/bin/htsim_dumbbell" ]; then
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
    lines = p.read_text().replace("\r\n", "\n").split("\n")  # some htsim files are CRLF
    hits = [i for i, l in enumerate(lines) if anchor in l]
    if len(hits) != 1:
        sys.exit(f"build.sh: {rel}: {len(hits)} lines contain {anchor!r}, expected 1")
    i = hits[0] + (1 if where == "after" else 0)
    lines[i:i] = text.split("\n")
    p.write_text("\n".join(lines))

def replace(rel, old, new):
    """Replace the single occurrence of old."""
    p = sim / rel
    text = p.read_text().replace("\r\n", "\n")
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
# ---- RoCE/PFC, HPCC and Swift: htsim_roce, htsim_hpcc, htsim_swift ------------------------
# PFC counters. Every LosslessInputQueue (a switch ingress; its name is "VirtualQueue(<the
# upstream port it pauses>)") counts the XOFFs it sends, the time from each XOFF to its XON
# (a pause still on at the end is counted up to the end and flagged "open") and the largest
# ingress count it saw (bytes that came in through it and are still in the switch). A queue is
# listed once a packet reaches it. At the end: one `PFCQ` line per listed queue and a `PFC`
# total line (see fairsim_print).
edit("queue_lossless_input.h", "#include <list>", "#include <vector> // fairsim")
edit("queue_lossless_input.h", "void sendPause(unsigned int wait);", """\
    uint64_t fairsim_pauses = 0; // fairsim: XOFFs sent
    simtime_picosec fairsim_paused_since = 0, fairsim_paused_ps = 0; // fairsim: XOFF->XON time
    mem_b fairsim_max_bytes = 0; bool fairsim_listed = false; // fairsim: largest ingress count
    static std::vector<LosslessInputQueue*> fairsim_all; // fairsim
    static void fairsim_print(simtime_picosec now); // fairsim""")
edit("queue_lossless_input.cpp", "_queuesize += pkt.size();", """\
    if (!fairsim_listed) { fairsim_listed = true; fairsim_all.push_back(this); } // fairsim
    if (_queuesize > fairsim_max_bytes) fairsim_max_bytes = _queuesize; // fairsim""")
edit("queue_lossless_input.cpp", "sendPause(1000);",
     "        fairsim_pauses++; fairsim_paused_since = eventlist().now(); // fairsim")
edit("queue_lossless_input.cpp", "sendPause(0);",
     "        fairsim_paused_ps += eventlist().now() - fairsim_paused_since; // fairsim")
(sim / "queue_lossless_input.cpp").write_text((sim / "queue_lossless_input.cpp").read_text() + """
// fairsim: added by fairsim's validation/htsim/build.sh (PFC counters).
#include <cstdio>
std::vector<LosslessInputQueue*> LosslessInputQueue::fairsim_all;
void LosslessInputQueue::fairsim_print(simtime_picosec now) {
    uint64_t pauses = 0, open = 0; simtime_picosec paused = 0;
    for (size_t i = 0; i < fairsim_all.size(); i++) {
        LosslessInputQueue* q = fairsim_all[i];
        simtime_picosec t = q->fairsim_paused_ps;
        bool on = q->_state_recv == PAUSED;
        if (on) { t += now - q->fairsim_paused_since; open++; }
        pauses += q->fairsim_pauses; paused += t;
        printf("PFCQ %s pauses %llu paused_us %.6f max_bytes %lld%s\\n", q->_nodename.c_str(),
               (unsigned long long)q->fairsim_pauses, t / 1e6, (long long)q->fairsim_max_bytes, on ? " open" : "");
    }
    printf("PFC queues %zu pauses %llu paused_us %.6f open %llu\\n", fairsim_all.size(),
           (unsigned long long)pauses, paused / 1e6, (unsigned long long)open);
    fflush(stdout);
}
""")
# Egress occupancy. Every LosslessOutputQueue (a switch port; names as the topology's, e.g.
# "LS0->DST5(0)" = ToR 0's downlink to host 5) keeps its largest size (bytes queued, the packet
# on the line included, as htsim counts it), the time it was non-empty and the integral of its
# size over time, so any mean can be formed afterwards. One `EGQ` line per port that saw a packet.
edit("queue_lossless_output.h", "#include <list>", "#include <vector> // fairsim")
edit("queue_lossless_output.h", "bool is_paused()", """\
    mem_b fairsim_max = 0; simtime_picosec fairsim_last = 0, fairsim_busy = 0; // fairsim
    double fairsim_area = 0; bool fairsim_listed = false; // fairsim: bytes x ps
    void fairsim_acc(simtime_picosec n) { if (_queuesize > 0) fairsim_busy += n - fairsim_last;
        fairsim_area += (double)_queuesize * (double)(n - fairsim_last); fairsim_last = n; } // fairsim
    static std::vector<LosslessOutputQueue*> fairsim_all; // fairsim
    static void fairsim_print(simtime_picosec now); // fairsim""")
edit("queue_lossless_output.cpp", "_queuesize += pkt.size();", """\
    if (_queuesize > fairsim_max) fairsim_max = _queuesize; // fairsim""")
edit("queue_lossless_output.cpp", "_queuesize += pkt.size();", """\
    fairsim_acc(eventlist().now()); // fairsim
    if (!fairsim_listed) { fairsim_listed = true; fairsim_all.push_back(this); } // fairsim""", where="before")
edit("queue_lossless_output.cpp", "_queuesize -= pkt->size();",
     "    fairsim_acc(eventlist().now()); // fairsim", where="before")
(sim / "queue_lossless_output.cpp").write_text((sim / "queue_lossless_output.cpp").read_text() + """
// fairsim: added by fairsim's validation/htsim/build.sh (egress occupancy).
#include <cstdio>
std::vector<LosslessOutputQueue*> LosslessOutputQueue::fairsim_all;
void LosslessOutputQueue::fairsim_print(simtime_picosec now) {
    for (size_t i = 0; i < fairsim_all.size(); i++) {
        LosslessOutputQueue* q = fairsim_all[i];
        q->fairsim_acc(now);
        printf("EGQ %s max_bytes %lld busy_us %.6f area_byte_us %.3f\\n", q->str().c_str(),
               (long long)q->fairsim_max, q->fairsim_busy / 1e6, q->fairsim_area / 1e6);
    }
    fflush(stdout);
}
""")

# A connection-matrix line without `size` left the size uninitialised; it is 0 ("no size").
edit("datacenter/connection_matrix.cpp", "c->flowid = 0;",
     "            c->size = 0; // fairsim: was uninitialised when the line has no size")

# RoCE and HPCC sources: (1) honour the matrix start (htsim started every flow at once, the
# scheduling call commented out); a start at or before now, and every start with
# -start_at_zero (htsim's behaviour), still starts at once, so start-0 runs are unchanged;
# (2) a source not yet started keeps its host's pause state (htsim dropped the XOFF/XON its
# host queue relays to a source that had not started: no run had one); (3) the path id is
# drawn from the seeded random() stream: htsim re-seeded it with srand(time(NULL)) in every
# source's constructor, which made the ECMP paths depend on the wall clock second and -seed
# moot for them; (4) the first finish time, kept for the FSFLOW lines.
for name, cls in (("roce", "RoceSrc"), ("hpcc", "HPCCSrc")):
    edit(f"{name}.h", "uint32_t _rtx_packets_sent;",
         "    simtime_picosec fairsim_fin = 0; // fairsim: first finish time\n"
         "    static bool fairsim_start_at_zero; // fairsim: -start_at_zero")
    edit(f"{name}.cpp", f"uint32_t {cls}::_global_node_count = 0;",
         f"bool {cls}::fairsim_start_at_zero = false; // fairsim")
    replace(f"{name}.cpp", "        //eventlist().sourceIsPending(*this,starttime);\n        startflow();\n",
            "        if (!fairsim_start_at_zero && starttime > eventlist().now()) // fairsim: see build.sh\n"
            "            eventlist().sourceIsPending(*this,starttime);\n"
            "        else\n"
            "            startflow();\n")
    replace(f"{name}.cpp", "    /*if (!_flow_started){\n      startflow();\n      return;\n      }*/",
            "    if (!_flow_started){ // fairsim: was commented out; the start scheduled by connect\n"
            "      startflow();\n      return;\n      }")
    edit(f"{name}.cpp", "assert(pkt.type()==ETH_PAUSE);",
         "        _state_send = ((const EthPausePacket&)pkt).sleepTime() > 0 ? PAUSED : READY; // fairsim")
    replace(f"{name}.cpp", "    srand(time(NULL));\n    _pathid = random()%256;",
            "    _pathid = random()%256; // fairsim: srand(time(NULL)) removed, see build.sh")
    edit(f"{name}.cpp", 'cout << "Flow " << _name << ',
         "        if (!fairsim_fin) fairsim_fin = eventlist().now(); // fairsim")

# htsim_roce / htsim_hpcc mains: -start_at_zero; keep the sinks; at the end, one line per
# connection in the matrix's order, `FSFLOW <matrix id> <name> start_ps <s> fin_ps <f|-1>
# bytes <sink in-order bytes> size <matrix size>` (start as used: the matrix's, read by htsim
# as a float, or 0 with -start_at_zero), then the PFC and EGQ lines.
for name, cls, snk, srcs, var in (("roce", "RoceSrc", "RoceSink", "roce_srcs", "roceSnk"),
                                  ("hpcc", "HPCCSrc", "HPCCSink", "hpcc_srcs", "hpccSnk")):
    main = f"datacenter/main_{name}.cpp"
    edit(main, '#include "queue_lossless_input.h"', '#include "queue_lossless_output.h" // fairsim')
    edit(main, 'else if (!strcmp(argv[i],"-seed")){', f"""\
        }} else if (!strcmp(argv[i],"-start_at_zero")) {{ // fairsim: htsim's own behaviour
            {cls}::fairsim_start_at_zero = true;""", where="before")
    edit(main, f"{snk}* {var};", f"    vector<{snk}*> fairsim_sinks; // fairsim")
    edit(main, f"{var} = new {snk}();", f"        fairsim_sinks.push_back({var}); // fairsim")
    edit(main, 'cout << "New: " << new_pkts', f"""\
    for (size_t ix = 0; ix < {srcs}.size(); ix++) {{ // fairsim
        connection* fc = all_conns->at(ix);
        cout << "FSFLOW " << fc->flowid << " " << {srcs}[ix]->str() << " start_ps "
             << ({cls}::fairsim_start_at_zero ? 0 : fc->start) << " fin_ps "
             << ({srcs}[ix]->fairsim_fin ? (int64_t){srcs}[ix]->fairsim_fin : (int64_t)-1)
             << " bytes " << fairsim_sinks[ix]->cumulative_ack() << " size " << fc->size << endl;
    }}
    // fairsim: the run ends at -end, though the last event (htsim's 50-ms Clock, scheduled before
    // the end time is set) may come later
    simtime_picosec fairsim_end = min(eventlist.now(), timeFromUs((uint32_t)end_time));
    LosslessInputQueue::fairsim_print(fairsim_end); // fairsim
    LosslessOutputQueue::fairsim_print(fairsim_end); // fairsim""", where="before")

# htsim_swift: (1) per-flow size from the matrix when -flowsize is not given: ceil(size/MSS)
# packets, finished when all are acknowledged (htsim's set_flowsize(B) adds one MSS: -flowsize
# N sends N+1 packets and finishes on the (N+1)th; a B that is no multiple of the MSS never
# finished); -flowsize keeps htsim's behaviour. (2) start = the matrix's start in ps (htsim
# read it as microseconds: x 10^6, truncated to 32 bits). (3) FSFLOW lines as above (bytes:
# the sink's in-order data bytes) and `TRIMS 0 DROPS n` over the switch queues.
edit("swift.h", "void update_dsn_ack(SwiftAck::seq_t ds_ackno);",
     "    simtime_picosec fairsim_fin = 0; // fairsim: first finish time")
edit("swift.cpp", 'cout << "Flow " << _name << " finished at "',
     "        if (!fairsim_fin) fairsim_fin = eventlist().now(); // fairsim")
# RandomQueue (Swift's switch ports) counted only its tail drops, in _buffer_drops: every drop
# (early, p = 0.1 above max - 3 MTU, and tail) is counted in Queue::_num_drops, which DROPS sums.
edit("randomqueue.cpp", '//cout << "Buffer Drop" << endl;',
     "        _num_drops++; // fairsim: every drop, see build.sh")
# Host queue (FairPriorityQueue, the RoCE/HPCC hosts' NIC queue): an XON arriving while a packet
# is still on the line (an XOFF came during its transmission, state PAUSE_RECEIVED, and the XON
# followed within the packet's 725 ns) called beginService() again: the packet on the line was
# overwritten (lost, its bytes left in the queue size) and a second service chain started, and
# htsim aborts at `assert(_sending != NULL)` when the queue drains (websearch60_roce_s2). The
# XON now starts service only when no packet is on the line, as htsim's own switch port
# (LosslessOutputQueue: `if(_enqueued.size()>0&&!_sending)`) does. Only runs that hit it change.
replace("queue.cpp", " FPQ \" << _name << \" GO \"<<endl;\n\n            //start transmission if we have packets to send!\n            if(queuesize()>0)\n",
        " FPQ \" << _name << \" GO \"<<endl;\n\n            //start transmission if we have packets to send!\n"
        "            if(queuesize()>0 && _sending == NULL) // fairsim: not while a packet is on the line\n")
M = "datacenter/main_swift.cpp"
edit(M, '#include "fat_tree_topology.h"', '#include "fairsim_counts.h" // fairsim')
replace(M, "            swiftSrc->set_flowsize(flowsize*Packet::data_packet_size());\n        }\n",
        "            swiftSrc->set_flowsize(flowsize*Packet::data_packet_size());\n"
        "        } else if (crt->size > 0) { // fairsim: the matrix size, see build.sh\n"
        "            uint64_t fairsim_pk = ((uint64_t)crt->size + Packet::data_packet_size() - 1) / Packet::data_packet_size();\n"
        "            swiftSrc->set_flowsize((fairsim_pk - 1) * Packet::data_packet_size());\n"
        "        }\n")
replace(M, "swiftSrc->connect(*routeout, *routein, *swiftSnk, timeFromUs((uint32_t)crt->start));",
        "swiftSrc->connect(*routeout, *routein, *swiftSnk, (simtime_picosec)crt->start); // fairsim: ps, see build.sh")
edit(M, "SwiftSink* swiftSnk;", "    vector<SwiftSrc*> fairsim_srcs; vector<SwiftSink*> fairsim_sinks; // fairsim")
edit(M, "swiftSnk = new SwiftSink();",
     "        fairsim_srcs.push_back(swiftSrc); fairsim_sinks.push_back(swiftSnk); // fairsim")
edit(M, 'cout << "Done" << endl;', """\
    for (size_t ix = 0; ix < fairsim_srcs.size(); ix++) { // fairsim
        connection* fc = all_conns->at(ix);
        cout << "FSFLOW " << fc->flowid << " " << fairsim_srcs[ix]->str() << " start_ps " << fc->start
             << " fin_ps " << (fairsim_srcs[ix]->fairsim_fin ? (int64_t)fairsim_srcs[ix]->fairsim_fin : (int64_t)-1)
             << " bytes " << fairsim_sinks[ix]->_cumulative_data_ack << " size " << fc->size << endl;
    }
    fairsim_print_trims(top); // fairsim""")
print("build.sh: additions applied")
ADDITIONS

# ---- htsim_dumbbell: our own main against htsim's library (see the header) ------------------
cat > "$SIM/main_dumbbell.cpp" <<'DUMBBELL'
// htsim_dumbbell: the dumbbell of fairsim's validation/htsim/dumbbell.py on htsim's own classes.
// Written for fairsim (validation/htsim/build.sh writes and builds it); not part of htsim.
// N TCP flows (TcpSrc/TcpSink, NewReno, no MPTCP wrapper): sender i -> its own access queue and
// pipe -> one bottleneck queue and pipe -> receiver i's own access queue and pipe -> sink; ACKs
// back through the mirror of those three hops. Flow i starts at i x stagger. At the end, per flow
// `SINK <i> <bytes>` (in-order bytes plus packets held above a hole, each once), then the drops
// of every queue and the events run: `DROPS <n>`, `EVENTS <n>`.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>
#include "config.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "tcp.h"

int main(int argc, char** argv) {
    EventList eventlist;
    double flows = 8, neck = 10000, access = 100000, neckdelay = 10000, accessdelay = 1000;  // Mb/s, us
    double q = 20000, accessq = 1000, end = 10e6, seed = 1, stagger = 20, ssthresh = 0;  // packets, us
    const char* names[] = {"-flows", "-neck", "-access", "-neckdelay", "-accessdelay", "-q",
                           "-accessq", "-end", "-seed", "-stagger", "-ssthresh"};
    double* values[] = {&flows, &neck, &access, &neckdelay, &accessdelay, &q,
                        &accessq, &end, &seed, &stagger, &ssthresh};
    for (int i = 1; i < argc; i += 2) {
        int k = 0;
        while (k < 11 && strcmp(argv[i], names[k])) k++;
        if (k == 11 || i + 1 >= argc) { std::cerr << "htsim_dumbbell: bad option " << argv[i] << std::endl; return 2; }
        *values[k] = atof(argv[i + 1]);
    }
    srand((unsigned)seed);
    eventlist.setEndtime(timeFromUs(end));
    TcpRtxTimerScanner scanner(timeFromMs(10), eventlist);  // as main_tcp has it
    std::vector<Queue*> queues;
    auto queue = [&](double mbps, double packets) {
        queues.push_back(new Queue(speedFromMbps(mbps), memFromPkt(packets), eventlist, NULL));
        return queues.back();
    };
    Queue* neck_out = queue(neck, q);  // r1 -> r2
    Queue* neck_back = queue(neck, q);  // r2 -> r1
    Pipe* neck_out_pipe = new Pipe(timeFromUs(neckdelay), eventlist);
    Pipe* neck_back_pipe = new Pipe(timeFromUs(neckdelay), eventlist);
    std::vector<TcpSink*> sinks;
    for (int i = 0; i < (int)flows; i++) {
        TcpSrc* src = new TcpSrc(NULL, NULL, eventlist);
        TcpSink* sink = new TcpSink();
        src->setName("tcp_" + ntoa(i));
        sink->setName("tcp_sink_" + ntoa(i));
        if (ssthresh > 0) src->set_ssthresh((uint64_t)ssthresh * Packet::data_packet_size());
        scanner.registerTcp(*src);
        // an access hop of its own, the bottleneck's queue and pipe one way, an access hop, `end`
        auto route = [&](PacketSink* neck_queue, PacketSink* neck_pipe, PacketSink* end) {
            Route* r = new Route();
            r->push_back(queue(access, accessq));
            r->push_back(new Pipe(timeFromUs(accessdelay), eventlist));
            r->push_back(neck_queue);
            r->push_back(neck_pipe);
            r->push_back(queue(access, accessq));
            r->push_back(new Pipe(timeFromUs(accessdelay), eventlist));
            r->push_back(end);
            return r;
        };
        Route* out = route(neck_out, neck_out_pipe, sink);     // s_i -> r1 -> r2 -> d_i
        Route* back = route(neck_back, neck_back_pipe, src);   // d_i -> r2 -> r1 -> s_i
        src->connect(*out, *back, *sink, timeFromUs(i * stagger));
        sinks.push_back(sink);
    }
    uint64_t events = 0;
    while (eventlist.doNextEvent()) events++;
    for (size_t i = 0; i < sinks.size(); i++)
        std::cout << "SINK " << i << " "
                  << sinks[i]->_cumulative_ack + sinks[i]->_received.size() * Packet::data_packet_size() << "\n";
    uint64_t drops = 0;
    for (size_t i = 0; i < queues.size(); i++) drops += queues[i]->num_drops();
    std::cout << "DROPS " << drops << "\nEVENTS " << events << std::endl;
    return 0;
}
DUMBBELL

# ---- build (g++ and make only; niced: the machine is shared) -------------------------------
nice -n 19 make -j"$JOBS" -C "$SIM" libhtsim.a parse_output
nice -n 19 make -j"$JOBS" -C "$SIM/datacenter" htsim_ndp htsim_eqds htsim_tcp htsim_roce htsim_hpcc htsim_swift
nice -n 19 g++ -Wall -std=c++11 -g -O3 -I"$SIM" "$SIM/main_dumbbell.cpp" -L"$SIM" -lhtsim -o "$SIM/htsim_dumbbell"

install -m 755 "$SIM/datacenter/htsim_ndp" "$SIM/datacenter/htsim_eqds" "$SIM/parse_output" "$CACHE/bin/"
install -m 755 "$SIM/datacenter/htsim_roce" "$SIM/datacenter/htsim_hpcc" "$SIM/datacenter/htsim_swift" "$CACHE/bin/"
install -m 755 "$SIM/htsim_dumbbell" "$CACHE/bin/"
install -m 755 "$SIM/datacenter/htsim_tcp" "$CACHE/bin/htsim_tcp_stock"
echo "$INFO" > "$CACHE/bin/BUILD_INFO"
echo "htsim built: $CACHE/bin ($INFO)"
