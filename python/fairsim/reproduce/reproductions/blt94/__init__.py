"""Kim & Farber, "Congestion control by bandwidth-delay tradeoff in very high-speed networks:
the case of window-based control" (U. Penn. MS-CIS-94-55, 1994): BLT sources and a priority
push-out switch against TCP Reno and the no-control Bully-Tyrant, on open populations of
Poisson file transfers over one bottleneck, from 15 Mb/s to 1 Gb/s."""

from __future__ import annotations

import dataclasses

from fairsim.reproduce.model import Paper
from fairsim.reproduce.reproductions.blt94.claims import CLAIMS, TESTED
from fairsim.reproduce.reproductions.blt94.discussion import DISCUSSION
from fairsim.reproduce.reproductions.blt94.experiments import EXPERIMENTS, knobs
from fairsim.reproduce.reproductions.blt94.table1 import DERIVED

PAPER = Paper(
    id="blt94",
    year=1994,
    title="Congestion control by bandwidth-delay tradeoff in very high-speed networks: the case of window-based control",
    citation="H. Kim, D. J. Farber. University of Pennsylvania, CIS Dept., Technical Report MS-CIS-94-55 (Distributed Systems Lab 80), October 1994.",
    summary="""
BLT moves window control from the time domain to the bandwidth domain: a source sends its whole
remaining file in one burst, tagging the packet at offset j with priority ⌊log2(j+1)⌋, and the
switches' FIFO pushes out the least important packets when full, so that a congested switch
keeps the largest window it can absorb. On a loss signal the source starts a new burst at the
lost packet. The paper compares BLT with a Reno TCP (fast retransmit on one duplicate ACK,
timestamps) and with Bully-Tyrant (BLT without priorities) on Poisson arrivals of fixed-size
file transfers through one bottleneck, measuring response time, throughput, network power
Θ/R and fairness against the arrival rate, for 150 Mb/s and 1 Gb/s networks with 30 ms round
trips, smaller round trips, a slower network and three file sizes.
""",
    experiments=tuple(dataclasses.replace(e, discussion=DISCUSSION.get(e.id, "")) for e in EXPERIMENTS),
    claims=tuple(CLAIMS),
    tested=TESTED,
    figures_from="fairsim.reproduce.reproductions.blt94.figures",
    seeds=3,
    knobs=knobs(),
    derived_tables=DERIVED,
    method="""
The paper's network, buffer rule (BW_b·D/3), file sizes, packet size, schemes and metrics;
where it is silent, our choices, once for every configuration, in the scenario's notes:
each connection its own access line; BLT paced at its line; TCP as the paper describes it (fast
retransmit on one duplicate ACK, round trips from every ACK's timestamp); one baseline rule for
both sides: a duplicate ACK caused by a packet the receiver already had is ignored by TCP as by
BLT, and every scheme's retransmission timer, srtt + 4·rttvar on a perfect clock, is floored at
the network's largest round trip (propagation, a full buffer, the sender's file queued at its
line), so that no timer fires while its packet is still queued and a duplicate ACK means a drop,
as the paper's footnote 5 takes it (the scenario's notes; the timer fitted to Table 1's TCP
column instead is a stability knob);
40-byte ACKs that are never dropped; 2000 arrivals of 100 KB files a run (4000 of 10 KB, 400 of 1 MB), the first tenth of
the arrival window a warm-up; offered loads of 5% to 95% of the bottleneck. The paper's λ grid is
lost, so P_m is the largest power over ours; Θ is given both per run and the paper's
pessimistic way (the longest of the three runs, its footnote 13). Which reading of each of the
paper's inconsistencies each experiment takes is in docs/reproductions.md.
""",
)
