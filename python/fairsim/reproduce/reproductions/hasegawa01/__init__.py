"""Hasegawa, Matsuo, Murata & Miyahara, "Comparisons of Packet Scheduling Algorithms for Fair
Service among Connections on the Internet" (2001; INFOCOM 2000's extended version): FIFO, RED,
Enhanced RED, DRR and DRR+ under TCP Reno and TCP Vegas, four connections of different access
capacities into one output line, with the paper's analysis beside the simulation."""

from __future__ import annotations

from fairsim.reproduce.model import Paper
from fairsim.reproduce.reproductions.hasegawa01.claims import CLAIMS, TESTED
from fairsim.reproduce.reproductions.hasegawa01.experiments import (
    EXPERIMENTS,
    drr_knob,
    red_knob,
    vegas_knob,
)

PAPER = Paper(
    id="hasegawa01",
    year=2001,
    title="Comparisons of Packet Scheduling Algorithms for Fair Service among Connections on the Internet",
    citation="G. Hasegawa, T. Matsuo, M. Murata, H. Miyahara. Manuscript, February 2001 (IEEE INFOCOM 2000, pp. 1253-1262).",
    summary="""
Four greedy TCP connections with access lines of 64, 128, 256 and 512 kb/s share one output line
of 400 to 960 kb/s; fair service means throughput in proportion to access capacity. The paper
compares drop-tail FIFO, RED, DRR with a queue per connection and with two shared queues, and
proposes DRR+ (RED in each DRR queue) and Enhanced RED (a drop probability per connection,
computed offline from its analysis), under TCP Reno and TCP Vegas, and derives closed forms for
Reno and Vegas under RED. The paper has no tables and its figures' curves are lost; its findings
are checked as claims, its figures redrawn from our runs, its analysis computed and drawn beside
them, for the forward model (Figure 1) and the reverse-traffic model (Figure 17, reconstructed).
""",
    experiments=EXPERIMENTS,
    claims=tuple(CLAIMS),
    tested=TESTED,
    figures_from="fairsim.reproduce.reproductions.hasegawa01.figures",
    knobs=(drr_knob("divided"), drr_knob("shared"), red_knob("linear"), vegas_knob(2.0, 4.0)),
    seeds=5,
    method="""
The paper's network and parameters (τ = 100 ms, a 60 KB buffer, 2000-byte packets, RED at 10 KB
/ 30 KB / p = 0.02, DRR served in proportion to access capacity, 5000 s per point) and, where it
is silent, our choices, each in the scenario's notes: the output line swept from 400 to 960 kb/s
in steps of 40; RED with Floyd and Jacobson's w_q = 0.002, its p applied as §3.2.1 says, "p
shows the packet dropping probability defined in RED, with which incoming packets are dropped
when the avarage queue length is over the threshold th_min": a constant drop probability between
the thresholds, in every RED (plain, Enhanced and DRR+'s), as the analysis also assumes (Floyd
and Jacobson's linear rule with max_p = p, the other reading of the paper, is the
stability knob `RED p linear`); Vegas with α = 1, β = 3; Reno and Vegas with a 1 s minimum RTO
and no delayed ACKs; each DRR queue with its own 60 KB (§3.3: "the large buffer is equipped with
the router so that every connection is given a sufficient amount of buffer"), in a port of 240
KB, the four queues' sum, so that an arrival is refused only when its own queue is full (the DRR
pairs run from their own scenario files, forward-drr and reverse-drr, for that reason); flows
starting within 31 ms of each other so that the five replications differ. Two other readings of
DRR's buffer run as options beside it (forward model only): `divided`, the router's 60 KB
divided among the queues (§2.1: "The buffer at the router is logically divided into multiple
queues"), 15 KB each of four queues and 30 KB each of two; and `shared`, every queue allowed 60
KB but all in one 60 KB pool that refuses any arrival once full. Enhanced RED's p_i come from the paper's iteration run on its own analysis for
each BW: at each step the p_i of "the connection having the largest difference between ρ_i and
the ideal value" changes, the difference taken in packets/s as the text says (taken as relative,
the other reading, it drives p_1 to its bound; `enhanced_red(difference="relative")`), the
ideal proportional to input capacity, a 2% relative tolerance, p_i bounded to [0.0001, 0.5];
DRR+ with two queues runs the same iteration inside each queue with the queue's DRR share for
the line; both set p_i where plain RED has its p ("set p_i as the packet dropping probability at
the RED router"), applied the same way. Vegas's α and β, which the paper does not give, have the
knob `Vegas α 2, β 4`. The stability table shows what three of these open choices do to the
verdicts. Fairness is summarised by Jain's index of the relative throughputs (throughput / input
line), 1 when all are equal.
""",
)
