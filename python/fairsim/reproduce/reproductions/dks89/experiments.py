"""Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm",
ACM SIGCOMM 1989: the six benchmark scenarios of §4 and the delay analysis of §2.3 (Figure 1).

Claims follow the spec's checklist (`specs/dks89-fair-queueing.md` §8); each check states its
tolerance. Scenarios 1, 5 and 6 lost their tables and figures in the seed, so only their
prose claims are checked; their networks are reconstructions (see each scenario file)."""

from __future__ import annotations

from fairsim.reproduce.model import Experiment
from fairsim.reproduce.reproductions.dks89 import figure1

S1_TO_6 = (
    Experiment(
        "s1",
        "dks89/s1_underloaded.toml",
        "Scenario 1: Underloaded Gateway",
        discussion="""
The paper's table is lost. Of its two sentences, the first cannot fail here: our reconstruction
gives the two FTPs identical paths and windows and a buffer that holds both, so every pair splits
the line equally (it does: ratios of 1.00), and the claim is not counted. The second holds: FQ
gives the Telnets round trips of about 0.08 s against 1.36 s under FCFS, and selective DECbit
sits between them (0.21 s) because it keeps the queue short.
""",
    ),
    Experiment(
        "s2",
        "dks89/s2_overloaded.toml",
        "Scenario 2: Overloaded Gateway",
        discussion="""
G/FCFS segregates in 4 of 5 runs (the best FTP above 1.5 times the fair share of 583 packets, the
worst below a fifth of it), but less cleanly than the paper's three winners at about 1150 and
three losers at 3-18: ranked within each run, our FTPs average 1272, 1113, 616, 294, 155 and 41
packets. Which sources win changes from run to run, so the row is compared rank-ordered. With
go-back-N our FTPs drop and retransmit several times the paper's counts, and the Telnets are not
shut out (108 and 112 packets against 31 and 3). The losers' round trips, counted from first
transmission, average 23-102 s against the paper's "403 †" and "140 †": they do not settle
whether those cells lost a decimal point.

JK/FCFS is not fair, where the paper's JK sources shared equally (582 each, with 57
retransmissions each): in every run three FTPs win about 1167 packets and three get none, a
segregation as clean as the paper's G/FCFS. JK's backoff is uncapped, as the paper's own Telnet 8
row needs (0 retransmissions in 500 s; s2_overloaded.toml's notes): a loser whose retransmissions
keep meeting the full buffer backs off beyond the window, so the losers and the Telnets send
almost nothing in it (under one retransmission each), and the Telnets deliver 0 and 0, as printed
(3 and 0). With 4.3BSD's 64 s cap (an earlier reading of this reproduction) a loser came back
every 64 s and, with the noisy clock, got through: the FTPs averaged 191-850 packets and the
Telnets 168 and 159.
FQ lifts the worst FTP under both flow controls and, with delay counted, improves the Telnets
dramatically: under G their round trip falls from 4.74 s to 0.081 s at the same packets (199 and
198, their whole load), under JK they go from none to 198 at 0.085 s. The paper gives no JK
constants; ours are 4.3BSD Tahoe's (fast retransmit after 3 duplicate ACKs, Karn's rule) with the
backoff uncapped, and the thesis warns that whether segregation appears "depends strongly on link
delays, maximum window and buffer size".

G/FQ: our Generic resends every unacknowledged packet on a timeout (go-back-N), the paper's
reading. It removes the segregation (every FTP 491-636 packets; the paper's 178-838), resends
1376 packets for 899 drops (the paper 1043 for 631), and with the duplicates leaves useful
throughput about 16% below the line (the paper's 12%). Generic drops twice JK's packets under FQ
(899 against 422; the paper 631 against 376): FQ needs flow control at the sources, as printed.

JK/FQ is fair and efficient as in the paper (578-583 packets each); its round trips (3.2-3.3 s
against 1.2-2.2 s) include the wait for retransmissions, counted from each packet's first
transmission. DEC/DEC matches every cell. DEC/FQbit keeps the fairness and cuts the Telnet delay
9× (0.77 s to 0.083 s), as printed, but its FTPs keep more packets queued (round trips
1.12-1.36 s against 0.86 s): the 1989 paper does not give FQbit's threshold; we use the thesis's
third of the fair buffer share.
""",
    ),
    Experiment(
        "s3",
        "dks89/s3_ill_behaved.toml",
        "Scenario 3: Ill-Behaved Source",
        discussion="""
FQ is the firewall the paper describes, cell for cell: the FTP gets 3491 packets, the Telnet
about 103, the ill-behaved source about 5 of its 7000. Its round trip under FQ, 870-874 s,
agrees with the paper's 903, 860 and 877, which look garbled in the paper's text: a source
charged for every dropped packet has its few accepted packets scheduled hundreds of seconds late.
Under FCFS the ill-behaved source takes the whole line. The shut-out Generic FTP retransmits 7
times in the window, as printed: the round trips of its rare delivered packets, counted from
first transmission, are about 1100 s (paper 1362 †), and its timeout grows with them. The
Generic Telnet's estimate grows the same way (785 s against 2.87), so it retransmits 10 times
against the paper's 139. The JK Telnet gets 29 packets against 0 (89 with 4.3BSD's 64 s backoff
cap), its uncapped timer keeping it silent through most of the window;
the DECbit Telnet is not shut out (102 against 0), and the DEC/DEC FTP gets 27 packets against
166.
""",
    ),
    Experiment(
        "s4",
        "dks89/s4_mixed.toml",
        "Scenario 4: Mixed Protocols",
        discussion="""
With go-back-N (the paper's reading, which Scenario 2 needs) the FCFS half of the table turns
over: each Generic timeout resends the whole window, the duplicates fill the 15 places, and the
JK pair out-earns the Generic pair (about 1120 packets each against 486 and 773; the paper 569
and 567 against 1182 each). The Generic sources now bear the losses (16 and 19 drops against
0), the JK ones few (3 each against 48; with JK's backoff uncapped they retransmit 25 and 17
times against 47). Under FQ the JK pair wins as printed (1078 and 1077
against 1163). The paper's Generic pair segregated under FQ (1162 against 12, the loser's round
trip printed "281 †", what an exploded estimate gives); ours does so in 2 of 5 runs (in one,
246 packets against 1065), so the averages are 884 and 457. Under FQ both pairs lose far more
than the paper's 1 or 2 packets (Generic 115-123, JK 28 each).
""",
    ),
    Experiment(
        "s5",
        "dks89/s5_multihop.toml",
        "Scenario 5: Multihop Path",
        discussion="""
With FCFS the long path gets 53% of its fair share (54% under JK), with FQ all of it, as the
paper says. Each hop has 85 ms of propagation, derived once from the thesis's DECbit round trips
on the same network (the paper's is lost): without it a chain of hops is never idle while
packets are outstanding, and nothing could be wasted. With it selective DECbit wastes 6.4% of
the bandwidth (the paper: roughly 10%) and gives the long path 469 packets, 27% of its share and
less than under G/FCFS (931), as the paper says. Our gateway follows Ramakrishnan and Jain
(capacity factor 0.9, fair share from the average queue over the regeneration cycle).
""",
    ),
    Experiment(
        "s6",
        "dks89/s6_complicated.toml",
        "Scenario 6: Complicated Network",
        discussion="""
Our network is a reconstruction built to contain the mechanism the paper describes, so these
claims check the mechanism, not the paper's numbers: with FCFS, sources 4 and 8 use a third of
their lines, their ACKs waiting behind 15 FTP packets; FQ serves the ACKs at once and total
throughput rises by 46%. Nothing is dropped, but our buffers hold every window, so that claim
could not fail and is not counted.
""",
    ),
)

EXPERIMENTS = (*S1_TO_6, *figure1.EXPERIMENTS)
