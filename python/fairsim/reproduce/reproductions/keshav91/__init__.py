"""S. Keshav, "Congestion Control in Computer Networks", PhD thesis, UC Berkeley, 1991,
chapter 6: the eight benchmark scenarios under seven protocol pairs (Tables 6.2–6.11), with
the utility diagrams and the window and probe traces of Figures 6.3–6.22.

The claims are in `keshav91_claims.py`; the scenario files hold the reconstructions of the
lost topology figures and the published tables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairsim.reproduce.model import Paper
from fairsim.reproduce.reproductions.keshav91.claims import CLAIMS, TESTED
from fairsim.reproduce.reproductions.keshav91.experiments import EXPERIMENTS
from fairsim.reproduce.stability import JK_THRESHOLD, TIMEOUT_FLOOR, Variant, transport_tables

if TYPE_CHECKING:
    from fairsim.api import Scenario

#: The Packet-Pair setpoints derived by Little's law from the thesis's rows (Scenarios 2, 4, 5).
DERIVED_SETPOINTS = (3.8, 3.1, 3.4)


def _pp_setpoint(value: float):
    """`setpoint = value` in every Packet-Pair transport (a pair's, or a pair's for one flow) whose
    setpoint was derived by Little's law; the thesis's own setpoints (5, and 2 in Scenario 1) stay."""

    def overrides(sc: Scenario) -> dict[str, Any]:
        return {
            f"{key}.setpoint": value
            for key, t in transport_tables(sc).items()
            if t.get("kind") == "pp" and t.get("setpoint") in DERIVED_SETPOINTS
        }

    return overrides


def _hop_delay(derived: str, value: str):
    """`delay = value` on every link whose delay is the derived `derived` (Scenario 6's hops)."""

    def overrides(sc: Scenario) -> dict[str, Any]:
        import json
        import tomllib

        links = tomllib.loads(sc.text).get("links", {})
        return {
            f"links.{json.dumps(n)}.delay": value for n, spec in links.items() if spec.get("delay") == derived
        }

    return overrides


PP_SETPOINT = Variant(
    "PP setpoint 5",
    "Packet-Pair's setpoint 5 packets, the one the thesis states (Scenario 1), instead of the 3.8, 3.1 and 3.4 "
    "derived by Little's law from its rows of Scenarios 2, 4 and 5",
    overrides=_pp_setpoint(5),
)
HOP_DELAY = Variant(
    "no propagation per hop",
    "Scenario 6's hops without propagation instead of the 85 ms derived from its DEC/DEC round trips: the suite has "
    '"no propagation delay unless marked" (§6.5), and the figure with the marks is lost',
    overrides=_hop_delay("85ms", "0ms"),
)

PAPER = Paper(
    id="keshav91",
    year=1991,
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
    claims=tuple(CLAIMS),
    tested=TESTED,
    figures_from="fairsim.reproduce.reproductions.keshav91.figures",
    method="""
Each scenario runs seven intervals and discards the first, as the thesis does; the interval
length is ours (200 s, 500 s for the 12–24 s round trips of Scenarios 7 and 8; Scenario 3
reports its 300–600 s background-off period and its 600–900 s background-on period as the
thesis does). Our spread is the standard deviation of the interval means over all
replications, the thesis's over one run. Throughput excludes retransmissions; delay is the mean
round trip from a packet's first transmission to its acknowledgement, retransmission waits
included (the thesis's Generic estimator measures so, and its Scenario 7–8 delays of tens of
seconds above the propagation delay need it). As for the 1989 paper, the switch buffer
includes the packet being sent, and Generic's and DECbit's timeout fires no sooner than 1 s
(4.3BSD's minimum, which the JK sources have); unlike it, a timeout resends only the oldest
unacknowledged packet (Table 6.4: one retransmission per loss; docs/reproductions.md). Sources
start within 1 ms of each other in a random order (the thesis starts them together), and every
retransmission timeout and every Telnet, CBR or Poisson packet is late by a uniform draw of up
to one packet time (100 ms): this breaks phase locks that exact clocks produce, and replications
differ; the G/FCFS row of Scenario 2 is compared rank-ordered. Packet-Pair keeps a timer per
packet (thesis §4.4); its window and setpoint are derived once from the thesis's own rows by
Little's law (Scenario 1: window 40; setpoints 3.8, 3.1 and 3.4 in Scenarios 2, 4 and 5; 5
elsewhere). The hops of Scenario 6 have 85 ms of propagation each, derived from its DECbit round
trips.
""",
    knobs=(TIMEOUT_FLOOR, JK_THRESHOLD, PP_SETPOINT, HOP_DELAY),
)
