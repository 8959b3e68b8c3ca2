"""Stoica, Shenker & Zhang, "Core-Stateless Fair Queueing: Achieving Approximately Fair
Bandwidth Allocations in High Speed Networks", ACM SIGCOMM 1998: the experiments of §3 under
FIFO, RED, FRED, DRR and CSFQ (Figures 3, 4, 6 and 7; Tables 1-4).

Claims follow the spec's checklist (`specs/csfq98.md` §10). Most of the paper's numbers are in
plots that the seed lost; where only the text survives, the claims carry the comparison and our
curves are drawn alone."""

from __future__ import annotations

from fairsim.reproduce.model import Paper
from fairsim.reproduce.reproductions.csfq98.claims import CLAIMS, TESTED
from fairsim.reproduce.reproductions.csfq98.experiments import EXPERIMENTS, OTHER_PACKETS, packet_knob

PAPER = Paper(
    id="csfq98",
    year=1998,
    title="Core-Stateless Fair Queueing: Achieving Approximately Fair Bandwidth Allocations in High Speed Networks",
    citation="I. Stoica, S. Shenker, H. Zhang. ACM SIGCOMM 1998, pp. 118-130.",
    summary="""
Edge routers estimate each flow's rate and label its packets; every router drops arriving
packets with probability max(0, 1 − α/label) against its own estimate α of the fair share, so
core routers keep no per-flow state. The paper compares CSFQ with FIFO, RED, FRED and DRR in
ns-2: 32 UDPs of increasing rates and one UDP against 31 TCPs (Figure 3), one TCP against N − 1
UDPs (Figure 4), a chain of congested links (Figure 6), RLM against TCP (Figure 7), ON-OFF and
web traffic (Tables 1-2), a 100 ms link (Table 3) and relabeling (Table 4). The plots are lost
from our copy of the paper; the tables and the numbers quoted in the text survive.
""",
    experiments=EXPERIMENTS,
    claims=tuple(CLAIMS),
    tested=TESTED,
    figures_from="fairsim.reproduce.reproductions.csfq98.figures",
    seeds=5,
    knobs=tuple(packet_knob(size) for size in OTHER_PACKETS),
    method="""
Every experiment as the paper states it: 10 Mb/s links of 1 ms with 64 KB buffers, K = K_α =
K_c = 100 ms (250 ms for RLM, 400 ms on the 100 ms link), RED and FRED thresholds 16 and 32 KB,
UDP gaps uniform in [0.5, 1.5) of the mean, the first router of each path the edge. Every flow
sends 1000-byte packets, the one size the paper gives: "1 packet = 1 KB" (§3.4), with §3's KB of
1000 bytes ("64KB/10Mbps = 51.2 ms"); the stability table adds 1024, 500 and 1500 bytes. What
it leaves out we chose once for all experiments (each scenario file says so): 100 Mb/s access
lines, TCP as ns-2's default of the time (Tahoe, window 20, timeouts of at least 0.2 s), DRR
with a queue per flow, a quantum of one packet and longest-queue drops, FRED-1 as Lin and
Morris's FRED and FRED-2 with their support for many flows. Throughputs are averaged over the
paper's 10 s (100 s in Tables 1 and 3) after a warm-up of ours; five replications (three for the
long sweeps).
""",
)
