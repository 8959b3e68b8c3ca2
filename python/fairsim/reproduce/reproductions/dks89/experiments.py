"""Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm",
ACM SIGCOMM 1989: the six benchmark scenarios of §4 and the delay analysis of §2.3 (Figure 1).

Claims follow the spec's checklist (`specs/dks89-fair-queueing.md` §8); each check states its
tolerance. Scenarios 1, 5 and 6 lost their tables and figures in the seed, so only their
prose claims are checked; their networks are reconstructions (see each scenario file)."""

from __future__ import annotations

from fairsim.reproduce.model import Experiment
from fairsim.reproduce.reproductions.dks89 import discussion, figure1

S1_TO_6 = (
    Experiment(
        "s1",
        "dks89/s1_underloaded.toml",
        "Scenario 1: Underloaded Gateway",
        discussion=discussion.S1,
    ),
    Experiment(
        "s2",
        "dks89/s2_overloaded.toml",
        "Scenario 2: Overloaded Gateway",
        discussion=discussion.S2,
    ),
    Experiment(
        "s3",
        "dks89/s3_ill_behaved.toml",
        "Scenario 3: Ill-Behaved Source",
        discussion=discussion.S3,
    ),
    Experiment(
        "s4",
        "dks89/s4_mixed.toml",
        "Scenario 4: Mixed Protocols",
        discussion=discussion.S4,
    ),
    Experiment(
        "s5",
        "dks89/s5_multihop.toml",
        "Scenario 5: Multihop Path",
        discussion=discussion.S5,
    ),
    Experiment(
        "s6",
        "dks89/s6_complicated.toml",
        "Scenario 6: Complicated Network",
        discussion=discussion.S6,
    ),
)

EXPERIMENTS = (*S1_TO_6, *figure1.EXPERIMENTS)
