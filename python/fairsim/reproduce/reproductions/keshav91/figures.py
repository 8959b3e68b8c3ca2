"""S. Keshav, "Congestion Control in Computer Networks", PhD thesis, UC Berkeley, 1991,
chapter 6: the eight benchmark scenarios under seven protocol pairs (Tables 6.2–6.11), with
the utility diagrams and the window and probe traces of Figures 6.3–6.22.

The claims are in `keshav91_claims.py`; the scenario files hold the reconstructions of the
lost topology figures and the published tables."""

from __future__ import annotations

from matplotlib.figure import Figure as MplFigure

from fairsim.reproduce.claims import Context
from fairsim.reproduce.figures import traces, utility_diagram
from fairsim.reproduce.model import Figure

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
