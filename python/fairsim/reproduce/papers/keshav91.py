"""S. Keshav, "Congestion Control in Computer Networks", PhD thesis, UC Berkeley, 1991,
chapter 6: the eight benchmark scenarios under seven protocol pairs (Tables 6.2–6.11), with
the utility diagrams and the window and probe traces of Figures 6.3–6.22.

The claims are in `keshav91_claims.py`; the scenario files hold the reconstructions of the
lost topology figures and the published tables.
"""

from __future__ import annotations

from matplotlib.figure import Figure as MplFigure

from fairsim.reproduce.claims import Context
from fairsim.reproduce.figures import traces, utility_diagram
from fairsim.reproduce.model import Experiment, Figure, Paper
from fairsim.reproduce.papers.keshav91_claims import CLAIMS, TESTED

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
    fig = MplFigure(figsize=(7.5, 4))
    ax = fig.subplots()
    lo, hi = 1000.0, 1100.0
    for series, label, style in (("probe", "inter-ACK spacing (probe)", "-"), ("rate", "inter-packet spacing", "-")):
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
    ax.legend(loc="upper left", fontsize="x-small")
    ax2.legend(loc="upper right", fontsize="x-small")
    ax.set_title("Scenario 7, PP/FQ source 1", fontsize="medium")
    return fig


FIGURES = (
    Figure("fig6-3", "Fig. 6.3: Scenario 1 utility diagram, Generic", "Throughput against delay per source (1, 2 FTPs; 3, 4 Telnets): FCFS upright, FQ italic; boxes are 95% confidence intervals.", "s1", _utility("s1", ("G/FCFS", "G/FQ"), S1_FLOWS, "Scenario 1, Generic: FCFS vs FQ")),
    Figure("fig6-5", "Fig. 6.5: Scenario 2 utility diagram, Generic", "FCFS shows winners and losers with wide boxes; FQ's points cluster.", "s2", _utility("s2", ("G/FCFS", "G/FQ"), S2_FLOWS, "Scenario 2, Generic: FCFS vs FQ")),
    Figure("fig6-6", "Fig. 6.6: Scenario 2 utility diagram, JK", "JK under FCFS (upright) and FQ (italic).", "s2", _utility("s2", ("JK/FCFS", "JK/FQ"), S2_FLOWS, "Scenario 2, JK: FCFS vs FQ")),
    Figure("fig6-7", "Fig. 6.7: Scenario 2 utility diagram, DECbit", "Selective DECbit (upright) against FQbit (italic).", "s2", _utility("s2", ("DEC/DEC", "DEC/FQbit"), S2_FLOWS, "Scenario 2, DECbit: selective DECbit vs FQbit")),
    Figure("fig6-8", "Fig. 6.8: Scenario 2 utility diagram, PP/FQ", "The thesis has all six FTPs at one point, 1.66 packets/s and 2.40 s.", "s2", _utility("s2", ("PP/FQ",), S2_FLOWS, "Scenario 2, PP/FQ")),
    Figure("fig6-10-13", "Figs. 6.10–6.13: Scenario 3 windows", "Window of each FTP over time (JK: cwnd; DECbit: its window; PP: packets outstanding, the thesis plots the inverse of the sending rate). The background is on 0–300 s and 600–900 s.", "s3", _windows("s3", ("JK/FCFS", "DEC/DEC", "DEC/FQbit", "PP/FQ"), ("ftp1", "ftp2"), "Scenario 3: windows (background on 0–300 s and 600–900 s)")),
    Figure("fig6-18-20", "Figs. 6.18–6.20: Scenario 7 windows", "Source 1's window under JK/FCFS (thesis: up to ≈25), JK/FQ (≈35) and DEC/FQbit.", "s7", _windows("s7", ("JK/FCFS", "JK/FQ", "DEC/FQbit"), ("ftp1",), "Scenario 7: source 1's window")),
    Figure("fig6-21", "Fig. 6.21: Scenario 7 probe, spacing and α", "PP source 1 over 100 s: the inter-ACK spacing takes multiples of 0.1 s, the inter-packet spacing tracks it, α dips when the prediction error is large.", "s7", _probe),
    Figure("fig6-22", "Fig. 6.22: Scenario 7 packets outstanding", "PP sources' packets outstanding; the thesis's rise stops at the window of 60.", "s7", _windows("s7", ("PP/FQ",), ("ftp1", "ftp2"), "Scenario 7, PP/FQ: packets outstanding")),
)

EXPERIMENTS = (
    Experiment("s1", "keshav91/s1_underloaded.toml", "Scenario 1: underloaded single bottleneck"),
    Experiment("s2", "keshav91/s2_overloaded.toml", "Scenario 2: overloaded single bottleneck"),
    Experiment("s3", "keshav91/s3_background.toml", "Scenario 3: long delay, on/off background"),
    Experiment("s4", "keshav91/s4_ill_behaved.toml", "Scenario 4: ill-behaved source at the line rate"),
    Experiment("s5", "keshav91/s5_mixed.toml", "Scenario 5: heterogeneous flow control"),
    Experiment("s6", "keshav91/s6_multihop.toml", "Scenario 6: a long path against short ones"),
    Experiment("s7", "keshav91/s7_poisson.toml", "Scenario 7: large delays, Poisson cross traffic", quick={"run.duration": "1750s", "run.warmup": "250s", "run.interval": "250s"}),
    Experiment("s8", "keshav91/s8_unequal_rtt.toml", "Scenario 8: unequal round trips", quick={"run.duration": "1750s", "run.warmup": "250s", "run.interval": "250s"}),
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
deviation, the first interval discarded. Every topology figure is lost from the seed; the
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
seconds above the propagation delay need it).
""",
)
