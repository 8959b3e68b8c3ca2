"""Keshav 1991 thesis, chapter 6 (placeholder while claims are written)."""

from fairsim.reproduce.paper import Experiment, Paper

PAPER = Paper(
    id="keshav91",
    title="Congestion Control in Computer Networks (chapter 6)",
    citation="S. Keshav. PhD thesis, University of California, Berkeley, 1991.",
    summary="",
    experiments=tuple(
        Experiment(f"s{i}", f"keshav91/{name}.toml", f"Scenario {i}")
        for i, name in enumerate(
            [
                "s1_underloaded",
                "s2_overloaded",
                "s3_background",
                "s4_ill_behaved",
                "s5_mixed",
                "s6_multihop",
                "s7_poisson",
                "s8_unequal_rtt",
            ],
            1,
        )
    ),
)
