"""S. Keshav, "Congestion Control in Computer Networks", PhD thesis, UC Berkeley, 1991,
chapter 6: the eight benchmark scenarios under seven protocol pairs (Tables 6.2–6.11), with
the utility diagrams and the window and probe traces of Figures 6.3–6.22.

The claims are in `keshav91_claims.py`; the scenario files hold the reconstructions of the
lost topology figures and the published tables.
"""

from __future__ import annotations

from matplotlib.figure import Figure as MplFigure

from fairsim.reproduce.claims import Context
from fairsim.reproduce.definitions.keshav91_claims import CLAIMS, TESTED
from fairsim.reproduce.figures import traces, utility_diagram
from fairsim.reproduce.model import Experiment, Figure, Paper

S1_FLOWS = [("ftp1", "1"), ("ftp2", "2"), ("telnet3", "3"), ("telnet4", "4")]
S2_FLOWS = [(f"ftp{i}", str(i)) for i in range(1, 7)] + [("telnet7", "7"), ("telnet8", "8")]
WINDOW = {"G/FCFS": "window", "G/FQ": "window", "JK/FCFS": "cwnd", "JK/FQ": "cwnd"}
WINDOW |= {"DEC/DEC": "window", "DEC/FQbit": "window", "PP/FQ": "outstanding"}


def _utility(exp: str, pairs: tuple[str, ...], flows, title: str):
    return lambda ctx: utility_diagram(ctx(exp), pairs, flows, title)


def _windows(exp: str, pairs: tuple[str, ...], flows: tuple[str, ...], title: str):
    series = {p: WINDOW[p] for p in pairs}
    return lambda ctx: traces(ctx(exp), pairs, flows, series, title, "packets")


def _probe(ctx: Context) -> MplFigure:
    """Fig. 6.21: PP source 1's inter-ACK spacing (the probe), its inter-packet spacing and the
    fuzzy predictor's weight α, over 100 s of Scenario 7."""
    m = ctx("s7")
    fig = MplFigure(figsize=(7.5, 4.3), layout="constrained")
    ax = fig.subplots()
    lo, hi = 1000.0, 1100.0
    for series, label, style in (
        ("probe", "inter-ACK spacing (probe)", "-"),
        ("rate", "inter-packet spacing", "-"),
    ):
        d = m.traces("PP/FQ", "ftp1", series)
        d = d[(d["t_s"] >= lo) & (d["t_s"] <= hi) & (d["value"] > 0)]
        ax.step(d["t_s"], 1 / d["value"], where="post", linestyle=style, label=label, linewidth=0.9)
    ax.set_ylabel("seconds")
    ax.set_xlabel("time (s)")
    weight = m.traces("PP/FQ", "ftp1", "weight")
    weight = weight[(weight["t_s"] >= lo) & (weight["t_s"] <= hi)]
    ax2 = ax.twinx()
    ax2.step(weight["t_s"], weight["value"], where="post", linestyle=":", color="black", label="α (weight)")
    ax2.set_ylabel("α")
    ax2.set_ylim(0, 1.05)
    fig.legend(fontsize="small", ncol=3, loc="outside lower center")  # below, never over a line
    ax.set_title("Scenario 7, PP/FQ source 1", fontsize="medium")
    return fig


FIGURES = (
    Figure(
        "fig6-3",
        "Fig. 6.3: Scenario 1 utility diagram, Generic",
        "Throughput against delay per source (1, 2 FTPs; 3, 4 Telnets), a colour per source: FCFS rings, FQ squares; boxes are 95% confidence intervals.",
        "s1",
        _utility("s1", ("G/FCFS", "G/FQ"), S1_FLOWS, "Scenario 1, Generic: FCFS vs FQ"),
    ),
    Figure(
        "fig6-5",
        "Fig. 6.5: Scenario 2 utility diagram, Generic",
        "FCFS shows winners and losers with wide boxes; FQ's points cluster.",
        "s2",
        _utility("s2", ("G/FCFS", "G/FQ"), S2_FLOWS, "Scenario 2, Generic: FCFS vs FQ"),
    ),
    Figure(
        "fig6-6",
        "Fig. 6.6: Scenario 2 utility diagram, JK",
        "JK under FCFS (rings) and FQ (squares).",
        "s2",
        _utility("s2", ("JK/FCFS", "JK/FQ"), S2_FLOWS, "Scenario 2, JK: FCFS vs FQ"),
    ),
    Figure(
        "fig6-7",
        "Fig. 6.7: Scenario 2 utility diagram, DECbit",
        "Selective DECbit (rings) against FQbit (squares).",
        "s2",
        _utility("s2", ("DEC/DEC", "DEC/FQbit"), S2_FLOWS, "Scenario 2, DECbit: selective DECbit vs FQbit"),
    ),
    Figure(
        "fig6-8",
        "Fig. 6.8: Scenario 2 utility diagram, PP/FQ",
        "The thesis has all six FTPs at one point, 1.66 packets/s and 2.40 s.",
        "s2",
        _utility("s2", ("PP/FQ",), S2_FLOWS, "Scenario 2, PP/FQ"),
    ),
    Figure(
        "fig6-10-13",
        "Figs. 6.10–6.13: Scenario 3 windows",
        "Window of each FTP over time (JK: cwnd; DECbit: its window; PP: packets outstanding, the thesis plots the inverse of the sending rate). The background is on 0–300 s and 600–900 s.",
        "s3",
        _windows(
            "s3",
            ("JK/FCFS", "DEC/DEC", "DEC/FQbit", "PP/FQ"),
            ("ftp1", "ftp2"),
            "Scenario 3: windows (background on 0–300 s and 600–900 s)",
        ),
    ),
    Figure(
        "fig6-18-20",
        "Figs. 6.18–6.20: Scenario 7 windows",
        "Source 1's window under JK/FCFS (thesis: up to ≈25), JK/FQ (≈35) and DEC/FQbit.",
        "s7",
        _windows("s7", ("JK/FCFS", "JK/FQ", "DEC/FQbit"), ("ftp1",), "Scenario 7: source 1's window"),
    ),
    Figure(
        "fig6-21",
        "Fig. 6.21: Scenario 7 probe, spacing and α",
        "PP source 1 over 100 s: the inter-ACK spacing takes multiples of 0.1 s, the inter-packet spacing tracks it, α dips when the prediction error is large.",
        "s7",
        _probe,
    ),
    Figure(
        "fig6-22",
        "Fig. 6.22: Scenario 7 packets outstanding",
        "PP sources' packets outstanding; the thesis's rise stops at the window of 60.",
        "s7",
        _windows("s7", ("PP/FQ",), ("ftp1", "ftp2"), "Scenario 7, PP/FQ: packets outstanding"),
    ),
)

QUICK_LONG = {"run.duration": "1750s", "run.warmup": "250s", "run.interval": "250s"}

EXPERIMENTS = (
    Experiment(
        "s1",
        "keshav91/s1_underloaded.toml",
        "Scenario 1: underloaded single bottleneck",
        discussion="""
Every FTP and Telnet throughput and every Generic, JK and DECbit delay agrees, except two. PP
holds its setpoint: its FTPs see 0.92 s (setpoint 5) and 0.60–0.73 s (setpoint 2), where the
thesis's saw 1.48/1.22 and 0.85/0.79 — its sources kept about two packets more than the
setpoint, which it puts down to the start-up estimate of the propagation delay; ours estimate
it within a packet time, so the two sources differ little and the one the thesis says should
see the lower delay does not. DEC/FQbit's FTPs keep fewer packets queued than the thesis's
(0.73 s against 1.00 s). The Telnets under G/FQ and DEC/FQbit retransmit a few packets (0.01/s)
that were not lost: Generic's timeout, twice an average round trip of 0.06 s, is shorter than
the occasional Telnet round trip behind a 0.1 s FTP packet; the thesis reports none, perhaps
from a coarser timer.
""",
    ),
    Experiment(
        "s2",
        "keshav91/s2_overloaded.toml",
        "Scenario 2: overloaded single bottleneck",
        discussion="""
JK/FQ, both DECbit pairs and the Telnets under every FQ pair match the tables, delays included
(DEC/DEC 0.60 s, DEC/FQbit 1.09 s, Telnets 0.06 s). G/FCFS segregates and shuts the Telnets out
as in the thesis, but our losers stay losers (interval standard deviation about 0.15) where
the thesis's changed places (0.3–0.7). PP/FQ gives every FTP its fair share but loses about
0.06 packets/s per source: six sources holding a setpoint of 5 need 30 places and the switch
has 25. The thesis's PP had no loss and a delay of 2.40 s, about three packets queued per
source; it states a setpoint only for Scenario 1, so we keep that 5 rather than pick one that
fits.
""",
    ),
    Experiment(
        "s3",
        "keshav91/s3_background.toml",
        "Scenario 3: long delay, on/off background",
        discussion="""
DEC/FQbit matches every cell, DEC/DEC its background-on row, JK/FQ and PP/FQ their
background-off rows. The Generic pairs collapse: at t = 0 the two windows of 40 meet 40 places
and each FTP loses about 20 packets; resending one packet per timeout, with each round trip
counted from first transmission, grows the timeout to hundreds of seconds and the FTPs never
recover (the thesis's did). Under JK/FCFS the two windows of 40 exactly fill the 41 packets in
flight and the 39 places, so the background finds the buffer full and is shut out (0 against
4.89), and JK's window stays at 40 while the background is on. PP/FQ: in the second on period
source 2 loses packets it can only recover one timeout (three round trips, about 13 s) at a
time, and the background takes what it leaves (4.84 against 3.23).
""",
    ),
    Experiment(
        "s4",
        "keshav91/s4_ill_behaved.toml",
        "Scenario 4: ill-behaved source at the line rate",
        discussion="""
FQ is the firewall the thesis reports, row for row: FTP 5.0, Telnet about 0.2 at 0.06 s, the
ill-behaved source 5.0 dropping 5/s. Under FCFS the FTP collapses as printed (the G/FCFS row's
Telnet and ill-behaved columns are swapped in the thesis, its values show). Charging dropped
packets (the 1989 rule) cuts the ill-behaved source from 5 to 0.33 packets/s; it is not zero
because FQ is work-conserving and serves it whenever the window-limited FTP has nothing queued.
""",
    ),
    Experiment(
        "s5",
        "keshav91/s5_mixed.toml",
        "Scenario 5: heterogeneous flow control",
        discussion="""
JK+G with FCFS reproduces the thesis's pattern exactly — one JK source starves, the other three
share the line (3.33 each against 3.21) — with the JK sources' labels swapped, which is
arbitrary, so two cells are graded far. With FQ the result reverses as printed: the JK sources
get more (3.5 each against 2.8) and one Generic source suffers (0.64). The PP pairs lose
packets the thesis's did not: four sources with a setpoint of 5 need 20 places and the switch
has 15, so PP gets 2.6 rather than 3.3 beside Generic, and less than JK beside JK (1.9 against
3.1), where the thesis had all four at 2.5.
""",
    ),
    Experiment(
        "s6",
        "keshav91/s6_multihop.toml",
        "Scenario 6: a long path against short ones",
        discussion="""
FCFS gives throughput inversely proportional to round trip (7.37 and 2.63 against 7.14 and
2.86) and every FQ pair gives 5.00 each, as printed. Our selective DECbit keeps shorter queues
(0.2 s against 0.37 s) and is fairer to the long path (3.91 against 2.67), wasting 3% rather
than 12%; the thesis notes that with other parameters the long conversation gets up to 80% of
its share (ours: 78%) and that the outcome is parameter-sensitive.
""",
    ),
    Experiment(
        "s7",
        "keshav91/s7_poisson.toml",
        "Scenario 7: large delays, Poisson cross traffic",
        quick=QUICK_LONG,
        discussion="""
PP/FQ and DEC/FQbit match (1.67 each, no loss, PP's outstanding packets saturating at 60, its
probe taking multiples of 0.1 s). JK is near (1.44 under FQ, 0.97 under FCFS, against 1.67 and
0.8) with longer delays (21–22 s against 13.5–16.6 s: our round trips include retransmission
waits). DEC/DEC starves as printed, but its window reaches about 6, not 2. The Generic pairs
collapse as in Scenario 3 (round trips of over 1000 s). In our reconstruction every source
crosses all three lines, so only the first ever queues: the bottleneck migration the thesis
allows for does not happen here.
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

PAPER = Paper(
    id="keshav91",
    title="Congestion Control in Computer Networks, chapter 6",
    citation="S. Keshav. PhD thesis, University of California, Berkeley, 1991 (UCB/CSD 91/649).",
    summary="""
Chapter 6 of the thesis compares seven pairs of source flow control and switch scheduling —
Generic, Jacobson–Karels, DECbit and Packet-Pair sources with FCFS, Fair Queueing, selective
DECbit and bit-setting FQ switches — on a suite of eight stress-test scenarios: 80 kb/s slow
lines, 800 kb/s fast lines, 1000-byte FTP and 40-byte Telnet packets and ACKs, windows of 5,
dropped packets not charged by FQ. Results are the mean of interval means with their standard
deviation, the first interval discarded. Every topology figure is lost from our copy of the paper; the
tables survive.
""",
    experiments=EXPERIMENTS,
    claims=CLAIMS,
    tested=TESTED,
    figures=FIGURES,
    method="""
Each scenario runs seven intervals and discards the first, as the thesis does; the interval
length is ours (200 s, 500 s for the 12–24 s round trips of Scenarios 7 and 8; Scenario 3
reports its 300–600 s background-off period and its 600–900 s background-on period as the
thesis does). Our spread is the standard deviation of the interval means over all
replications, the thesis's over one run. Throughput excludes retransmissions; delay is the mean
round trip from a packet's first transmission to its acknowledgement, retransmission waits
included (the thesis's Generic estimator measures so, and its Scenario 7–8 delays of tens of
seconds above the propagation delay need it). As for the 1989 paper, the switch buffer
includes the packet being sent and a Generic or DECbit timeout resends only the oldest
unacknowledged packet (docs/reproductions.md); Packet-Pair's setpoint is 5 packets throughout.
""",
)
