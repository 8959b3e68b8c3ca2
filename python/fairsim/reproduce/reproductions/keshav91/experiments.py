"""S. Keshav, "Congestion Control in Computer Networks", PhD thesis, UC Berkeley, 1991,
chapter 6: the eight benchmark scenarios under seven protocol pairs (Tables 6.2–6.11), with
the utility diagrams and the window and probe traces of Figures 6.3–6.22.

The claims are in `keshav91_claims.py`; the scenario files hold the reconstructions of the
lost topology figures and the published tables."""

from __future__ import annotations

from fairsim.reproduce.model import Experiment
from fairsim.reproduce.reproductions.keshav91 import discussion

QUICK_LONG = {"run.duration": "1750s", "run.warmup": "250s", "run.interval": "250s"}

EXPERIMENTS = (
    Experiment(
        "s1",
        "keshav91/s1_underloaded.toml",
        "Scenario 1: underloaded single bottleneck",
        discussion=discussion.S1,
    ),
    Experiment(
        "s2",
        "keshav91/s2_overloaded.toml",
        "Scenario 2: overloaded single bottleneck",
        discussion=discussion.S2,
    ),
    Experiment(
        "s3",
        "keshav91/s3_background.toml",
        "Scenario 3: long delay, on/off background",
        discussion=discussion.S3,
    ),
    Experiment(
        "s4",
        "keshav91/s4_ill_behaved.toml",
        "Scenario 4: ill-behaved source at the line rate",
        discussion=discussion.S4,
    ),
    Experiment(
        "s5",
        "keshav91/s5_mixed.toml",
        "Scenario 5: heterogeneous flow control",
        discussion=discussion.S5,
    ),
    Experiment(
        "s6",
        "keshav91/s6_multihop.toml",
        "Scenario 6: a long path against short ones",
        discussion=discussion.S6,
    ),
    Experiment(
        "s7",
        "keshav91/s7_poisson.toml",
        "Scenario 7: large delays, Poisson cross traffic",
        quick=QUICK_LONG,
        discussion=discussion.S7,
    ),
    Experiment(
        "s8",
        "keshav91/s8_unequal_rtt.toml",
        "Scenario 8: unequal round trips",
        quick=QUICK_LONG,
        discussion=discussion.S8,
    ),
)
