"""S. Keshav, "Congestion Control in Computer Networks", PhD thesis, UC Berkeley, 1991,
chapter 6: the eight benchmark scenarios under seven protocol pairs (Tables 6.2–6.11), with
the utility diagrams and the window and probe traces of Figures 6.3–6.22.

The claims are in `keshav91_claims.py`; the scenario files hold the reconstructions of the
lost topology figures and the published tables."""

from __future__ import annotations

from fairsim.reproduce.model import Experiment

QUICK_LONG = {"run.duration": "1750s", "run.warmup": "250s", "run.interval": "250s"}

EXPERIMENTS = (
    Experiment(
        "s1",
        "keshav91/s1_underloaded.toml",
        "Scenario 1: underloaded single bottleneck",
        discussion="""
Every FTP and Telnet throughput and every Generic, JK and DECbit delay agrees, except that
DEC/FQbit's FTPs keep fewer packets queued than the thesis's (0.73 s against 1.00 s). No packet
is dropped or retransmitted, as the thesis says: with Generic's and DECbit's timeout at least
1 s, a Telnet packet queued behind a 0.1 s FTP packet no longer times out early under FQ. PP,
with the window of 40 that the thesis's own row implies (7.4 and 6.1 packets outstanding, more
than a window of 5 allows) and a timer per packet, sees 1.33 and 1.28 s at a setpoint of 5
(thesis 1.48 and 1.22) and 0.68 and 0.65 s at a setpoint of 2 (0.85 and 0.79). Source 2 sees
the lower delay on average, as the thesis says, but which one does is an accident of the run:
both estimate the propagation delay alike, and by the control law an overestimate would queue
more, not less.
""",
    ),
    Experiment(
        "s2",
        "keshav91/s2_overloaded.toml",
        "Scenario 2: overloaded single bottleneck",
        discussion="""
Both DECbit pairs and the Telnets under every FQ pair match the tables, delays included (DEC/DEC
0.60 s, DEC/FQbit 1.09 s, Telnets 0.06 s); JK/FQ matches its throughputs and drop rates, with
round trips of 2.6 s against 2.1-2.4. G/FCFS segregates and shuts the Telnets out (0.03-0.04
packets/s) as in the thesis; which FTPs lose changes from run to run, so the row is compared
rank-ordered, and winners and losers with large interval deviations appear in 3 of 5 runs. Our
worst source gets less than the thesis's (0.24 against 1.09). Under JK/FCFS the Telnets, which
exact clocks lock out, now get their whole load (0.19 and 0.20 against 0.08 and 0.03), and at
most 2 of the 6 FTPs alternate between winning and losing intervals, fewer than the thesis
describes. PP/FQ, with the setpoint of 3.8 derived from the thesis's own row, gives every FTP its
fair share at the thesis's delay (2.3 s against 2.40) but loses about 0.05 packets/s per source
where the thesis's lost none: six setpoints of 3.8 fit the 25 places and the queue averages
about 17 packets, so the losses come from its fluctuations.
""",
    ),
    Experiment(
        "s3",
        "keshav91/s3_background.toml",
        "Scenario 3: long delay, on/off background",
        discussion="""
DEC/FQbit matches every cell, and both DECbit pairs, JK/FQ and PP/FQ their background-off rows.
The background, which exact clocks lock out of the buffer, now gets its packets: under JK/FCFS
it takes 4.75 packets/s (thesis 4.89) and the FTPs 2.29 and 2.30 (2.21, 2.35). JK's window falls
to 1 on losses while the background is on, as Fig. 6.10 shows, but after the first on period it
is back at 40 only by about 450 s (36.7 at 400 s). PP's rate spikes when the background leaves
at 300 s (12.4 packets/s against 4.8 before), as Fig. 6.13 shows. With the background on, PP/FQ
gives source 2 2.86 and the background 3.74 (thesis 3.35 and 3.23), and JK/FQ gives the FTPs
2.36 against 3.04-3.08, retransmitting 0.12 packets/s against 0.03. The Generic pairs collapse:
at t = 0 the two windows of 40 meet 40 places and both FTPs lose packets; resending one packet
per timeout, with each round trip counted from first transmission, grows the timeout to hundreds
of seconds and the FTPs never recover (the thesis's did), so under G/FCFS the background is not
starved (4.97 against 0.12).
""",
    ),
    Experiment(
        "s4",
        "keshav91/s4_ill_behaved.toml",
        "Scenario 4: ill-behaved source at the line rate",
        discussion="""
FQ is the firewall the thesis reports, row for row: FTP 5.0, Telnet about 0.19 at 0.06 s, the
ill-behaved source 5.0 dropping 5/s; PP/FQ's FTP, with the setpoint of 3.1 its row implies, sees
0.77 s (0.73). Under FCFS the ill-behaved source, at exactly the line rate, keeps the buffer
nearly full: the FTP collapses with Generic (0.03, as printed) and DECbit (0.50 against 0.48),
but with JK too (0.16), where the thesis's JK kept 2.38 packets/s. The Telnets, which exact
clocks shut out under G and JK, now get their whole load (0.19 against 0) under every FCFS pair.
The G/FCFS row's Telnet and ill-behaved columns are swapped in the thesis, its values show.
Charging dropped packets (the 1989 rule) cuts the ill-behaved source from 5 to 0.33 packets/s;
it is not zero because FQ is work-conserving and serves it whenever the window-limited FTP has
nothing queued.
""",
    ),
    Experiment(
        "s5",
        "keshav91/s5_mixed.toml",
        "Scenario 5: heterogeneous flow control",
        discussion="""
JK+G with FCFS shows the thesis's pattern in 3 of 5 runs: the Generic pair takes 3.3-3.5 each
(thesis 3.21) and one JK source starves (0.25 or less against 0.18); in the other two the losing
JK source keeps 0.6-0.8. Which JK source loses changes from run to run, so the averaged JK cells
(2.16 and 1.02) are far from the thesis's single run. With FQ the result reverses as printed:
the JK sources get more (3.3 each against 2.75 and 2.83), and in every run one Generic source
suffers (0.62 against 1.20), which one changing from run to run. The PP pairs, with the setpoint
of 3.4 derived from the thesis's PP+G row, lose packets the thesis's did not (0.08/s beside
Generic, 0.17/s beside JK): PP gets 3.1 rather than 3.3 beside Generic, and 2.2 against JK's 2.8
beside JK, where the thesis had all four at about 2.5.
""",
    ),
    Experiment(
        "s6",
        "keshav91/s6_multihop.toml",
        "Scenario 6: a long path against short ones",
        discussion="""
FCFS gives throughput inversely proportional to round trip (7.22 and 2.78 against 7.14 and 2.86).
Each hop has 85 ms of propagation, derived from the thesis's own DEC/DEC round trips (0.37 s here
against 0.20 s over Scenario 1's single hop); with it selective DECbit leaves lines idle and
wastes 11.6% of the bandwidth (thesis 12%), giving the short paths 6.7-6.8 and the long one 2.11
(6.1 and 2.67), with short-path round trips as printed (0.36 s). JK/FQ and DEC/FQbit give 5.00
each, as printed; G/FQ gives 5.00 each too, where the thesis has 5.29 and 4.71 (within its spread
of 0.21). PP/FQ gives the long path 4.58 and the short ones 5.42, so the claim that the FQ pairs
divide the lines equally does not hold. No packet is dropped or retransmitted under any pair, as
the thesis says: our ports hold every window, and no timeout fires before its ACK returns.
""",
    ),
    Experiment(
        "s7",
        "keshav91/s7_poisson.toml",
        "Scenario 7: large delays, Poisson cross traffic",
        quick=QUICK_LONG,
        discussion="""
PP/FQ and DEC/FQbit match (1.67 each against 1.70/1.72 and 1.65, no loss), PP's outstanding
packets saturating at its window of 60. Its probe takes multiples of 0.1 s, as Fig. 6.21 shows,
but fixed packet times force that whatever PP does, so the claim is not counted. JK is near (1.42
under FQ, 0.95-0.99 under FCFS, against 1.62-1.72 and 0.79-0.82) with longer delays (21-22 s
against 13.5-16.6 s: our round trips include retransmission waits), and its window reaches 46-47
under both, where the thesis's reached about 35 under FQ and 25 under FCFS. DEC/DEC starves as
printed, but its window reaches about 6, not 2. The Generic pairs collapse as in Scenario 3
(round trips of over 1000 s). In our reconstruction every source crosses all three lines, so only
the first ever queues: the bottleneck migration the thesis allows for does not happen here.
""",
    ),
    Experiment(
        "s8",
        "keshav91/s8_unequal_rtt.toml",
        "Scenario 8: unequal round trips",
        quick=QUICK_LONG,
        discussion="""
PP/FQ splits the line fairly with no loss (1.67 each against 1.73/1.64). Unlike the thesis,
JK/FQ is nearly fair too (1.42/1.58 against 1.39/0.86) and DEC/FQbit gives the long-round-trip
source 1.36 rather than 0.03: in our runs these sources lose almost nothing, and the thesis
ascribes source 2's losses under DEC/FQbit to packet losses that its Scenario 6 did not have.
The thesis's DECbit delays for source 2 (about 12.3 s) are below its 24 s propagation round
trip, which cannot be; ours are 24.6–25.6 s.
""",
    ),
)
