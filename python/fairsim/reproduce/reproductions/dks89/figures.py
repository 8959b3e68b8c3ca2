"""Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm",
ACM SIGCOMM 1989: the six benchmark scenarios of §4 and the delay analysis of §2.3 (Figure 1).

Claims follow the spec's checklist (`specs/dks89-fair-queueing.md` §8); each check states its
tolerance. Scenarios 1, 5 and 6 lost their tables and figures in the seed, so only their
prose claims are checked; their networks are reconstructions (see each scenario file)."""

from __future__ import annotations

from fairsim.reproduce.claims import Context
from fairsim.reproduce.figures import utility_diagram
from fairsim.reproduce.model import Figure
from fairsim.reproduce.reproductions.dks89 import figure1


def _s1_utility(ctx: Context):
    flows = [("ftp1", "1"), ("ftp2", "2"), ("telnet3", "3"), ("telnet4", "4")]
    return utility_diagram(
        ctx("s1"), ("G/FCFS", "G/FQ"), flows, "Scenario 1, Generic flow control: FCFS vs FQ"
    )


FIGURES = (
    Figure(
        "fig1",
        "Figure 1: Telnet delay vs throughput",
        "The paper's analysis (lines) and our simulations (markers): queueing delay of a Poisson Telnet in packet times, against its throughput relative to its fair share, beside 3 FTPs with windows of 5.",
        "fig1",
        figure1.draw,
    ),
    Figure(
        "s1-utility",
        "Scenario 1 utility diagram (ours; the paper has none)",
        "Throughput against round-trip delay per source, Generic flow control, a colour per source: FCFS rings, FQ squares; boxes are 95% confidence intervals.",
        "s1",
        _s1_utility,
    ),
)
