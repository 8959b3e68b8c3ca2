"""Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm",
ACM SIGCOMM 1989: the six benchmark scenarios of §4 and the delay analysis of §2.3 (Figure 1).

Claims follow the spec's checklist (`specs/dks89-fair-queueing.md` §8); each check states its
tolerance. Scenarios 1, 5 and 6 lost their tables and figures in the seed, so only their
prose claims are checked; their networks are reconstructions (see each scenario file)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairsim.reproduce.model import Paper
from fairsim.reproduce.reproductions.dks89 import claims, figure1
from fairsim.reproduce.reproductions.dks89.experiments import EXPERIMENTS
from fairsim.reproduce.stability import (
    JK_THRESHOLD,
    TIMEOUT_FLOOR,
    Cause,
    Variant,
    only_in,
    transport_field,
    transport_tables,
)

if TYPE_CHECKING:
    from fairsim.api import Scenario


def _jk(**fields: str | int):
    """`NAME = value` for each field, in every JK transport (a pair's or a flow's) that writes the
    derived uncapped backoff (`max_rto`), where it holds another value."""

    def overrides(sc: Scenario) -> dict[str, str | int]:
        jk = {key: t for key, t in transport_tables(sc).items() if t.get("kind") == "jk" and "max_rto" in t}
        return {
            f"{key}.{name}": value
            for key, t in jk.items()
            for name, value in fields.items()
            if t.get(name) != value
        }

    return overrides


#: JK's backoff at other values than the derived uncapped one: a cap of 500 s, the smallest Telnet 8's
#: cell admits; 4.3BSD's own timer (a 64 s cap, and the connection dropped after 12 backoffs); and
#: the 64 s cap alone, which the cell rules out. None of them gives the row's shut-out Telnets
#: (s2_overloaded.toml's notes); the knobs show which verdicts turn on the constant.
JK_BACKOFF = (
    Variant(
        "JK backoff cap 500 s",
        "JK's backed-off timeout at most 500 s instead of uncapped (`max_rto`): the paper gives no cap, and "
        "500 s is the smallest Telnet 8's cell admits (it retransmits nothing in 500 s)",
        overrides=_jk(max_rto="500s"),
    ),
    Variant(
        "JK as 4.3BSD: cap 64 s, drop after 12",
        "4.3BSD's timer: the backed-off timeout at most 64 s, and the connection given up at the 13th expiry in "
        "a row (`max_backoffs = 12`, TCP_MAXRXTSHIFT), after about 7.5 minutes of silence; Telnet 8's cell "
        "admits it, since a dropped Telnet 8 sends nothing either",
        overrides=_jk(max_rto="64s", max_backoffs=12),
    ),
    Variant(
        "JK backoff cap 64 s",
        "4.3BSD's cap without its drop: the table rules it out (Telnet 8 would resend at least 7 times in 500 s); "
        "shown for the verdicts that turn on the derived constant",
        overrides=_jk(max_rto="64s"),
    ),
)

#: Scenario 4's Generic sources resending only the oldest packet on a timeout instead of every
#: unacknowledged one: the change that tests go-back-N as the cause of S4's FCFS results.
S4_OLDEST = Variant(
    "S4 Generic resends the oldest",
    "Scenario 4's Generic sources resend only the oldest unacknowledged packet on a timeout (`retransmit = "
    '"oldest"`, the thesis\'s reading) instead of all of them',
    overrides=only_in("dks89/s4_mixed.toml", transport_field("retransmit", "oldest")),
)

#: The causes the discussions state for the claims not held, each tested by a run.
CAUSES = (
    Cause("s4-reversal", stated="S4 Generic resends the oldest", tried=(S4_OLDEST,)),
    Cause("s4-fcfs-jk-losses", stated="JK fast retransmit after 1 duplicate", tried=(S4_OLDEST,)),
)

PAPER = Paper(
    id="dks89",
    year=1989,
    title="Analysis and Simulation of a Fair Queueing Algorithm",
    citation="A. Demers, S. Keshav, S. Shenker. ACM SIGCOMM 1989, pp. 1–12.",
    summary="""
The paper defines Fair Queueing, analyses the delay it gives a low-throughput Telnet (§2.3,
Figure 1), and simulates six benchmark scenarios under six combinations of source flow control
(Generic, Jacobson–Karels, DECbit) and gateway queueing (FCFS, FQ, selective DECbit, FQ with
bit setting): 56 kb/s gateway lines, 1000-byte FTP and 40-byte Telnet and ACK packets, windows
of 5, δ = 0, dropped packets charged, 1500 s of warm-up and 500 s of measurement. The tables of
Scenarios 2, 3 and 4 survive; Scenarios 1, 5 and 6 survive only as prose, and every topology
figure is lost.
""",
    experiments=EXPERIMENTS,
    claims=(*claims.CLAIMS, *figure1.CLAIMS),
    tested=claims.TESTED,
    figures_from="fairsim.reproduce.reproductions.dks89.figures",
    method="""
Counts are over the 500 s measurement window after 1500 s of warm-up, as the paper's; the
paper ran one replication (it reports no confidence intervals), we run several and show their
mean with the spread between replications. "Throughput" counts every data packet reaching the
sink, duplicates included, which is what the paper's Scenario 2 arithmetic implies (its G/FQ
row has 1043 retransmissions for 631 drops). Round-trip times are measured from a packet's
first transmission (the Generic estimator's rule), over every ACKed packet in the window.

Modelling rules the paper does not state are reconstructed from its tables and text
(docs/reproductions.md): the gateway buffer includes the packet being sent; round trips run from
a packet's first transmission; a Generic or DECbit timeout resends every unacknowledged packet
(go-back-N: the paper says so, and its Scenario 2 needs more than one retransmission per loss;
the thesis's reproduction resends only the oldest, as its Table 6.4 needs), and fires no sooner
than 1 s (4.3BSD's minimum, which the JK sources have). JK's exponential backoff has no cap:
under JK/FCFS the paper's Telnet 8 retransmits nothing in 500 s, which 4.3BSD's cap of 64 s
cannot give (it would resend at least 7 times; s2_overloaded.toml's notes). Sources start at a random offset within
one bottleneck packet time (142,857 µs), and every retransmission timeout and Telnet packet is
late by a uniform draw of up to one packet time: this breaks phase locks that exact clocks
produce, and replications differ. Where which sources win changes from run to run (G/FCFS in
Scenario 2), the row is compared rank-ordered. Access lines are 800 kb/s with no propagation
delay (lost with the figures); the hops of Scenario 5 have 85 ms each, derived from the thesis's
DECbit round trips on the same network.
""",
    knobs=(TIMEOUT_FLOOR, JK_THRESHOLD, *JK_BACKOFF),
    causes=CAUSES,
)
