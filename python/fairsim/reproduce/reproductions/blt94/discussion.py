"""Kim & Farber 1994: our discussion of how and why the results differ from the paper's, by
experiment (shown under each in the report). The numbers are those of the default run (three
replications a point) unless said otherwise."""

from __future__ import annotations

REFERENCE = """
The paper's curves are lost but for their captions and prose, so its findings are the claims and
the figures are ours.

**The timer.** Every scheme's retransmission timer is that of a 1994 TCP with timestamps and a
fine-grained timer (the method): a sample from every ACK, the variance term floored at the 10 ms
clock granularity, never below two ticks (20 ms). With a 1 ms floor and a perfect clock instead
(an earlier reading of this reproduction, the stability knob `RTO floor 1 ms, G = 0`), a sample
from every ACK lets the variance term fall to a fraction of a millisecond, and TCP's timer fires
while its data is still queued. BLT leans on its timer more than TCP: when a burst's tail is
pushed out no later packet makes a duplicate ACK, and only the timer recovers it. Here BLT has 137
timeouts a run at 5% load and 2542 at 50% (2000 files a run), TCP 2 and 575; each costs BLT at
least srtt + 10 ms where it costs about srtt with the 1 ms floor, so BLT's R at light load is
0.122 s, and it reaches three times that at 70% of λ_cap (80% with the 1 ms floor), while TCP's,
which does not time out spuriously, does so only at 80% (60% with the 1 ms floor). The paper's
"more than 200%" speedup therefore holds only at the lightest load (R_TCP/R_BLT = 2.07 at 5%, 1.72
at 40%). The stability table's knobs give every claim under the 1 ms floor without G, a 1 ms clock
and a 200 ms floor.

How much the timer moves log10 P_m (BLT / TCP; the other floors from `scripts/blt_sensitivity.py`
with two replications and TCP without its filter; the reproduction's timer from this run): at
BW_b = 30 Mb/s, with a 1 ms floor and no granularity 6.98 / 6.47, with a 200 ms floor
6.73 / 6.54, with a 1 s floor 6.29 / 6.45, with the reproduction's timer 6.93 / 6.69; at 1 Gb/s,
BW_b = BW_N, 9.50 / 8.15, 9.48 / 8.61, 9.48 / 8.61 and 9.49 / 8.60. A coarse floor costs BLT at 30 Mb/s; at 1 Gb/s BLT does not move and TCP does: any
timer that does not fire while TCP's data is queued gives it 8.6.

**Utilisation.** BLT keeps the bottleneck busier than TCP at almost every load (the paper found
it less busy, "seemingly counterintuitive"): BLT sends every packet after a hole again (go-back-N
from the lost packet, which the paper accepts as its "obvious overhead"), and its opportunistic
packets cross the bottleneck before duplicates are discarded at the receiver: 11% of BLT's
deliveries here are duplicates at every load up to 70%, against at most 5.1% of TCP's.

**Bully-Tyrant.** Without priorities the switch is drop-tail, and Bully-Tyrant's bursts push
each other out: at light load its power is BLT's (1.01 times), but it peaks at 30% load where
BLT peaks at 50%, and its Jain index (0.50 averaged over loads) is the lowest of the three, as the
paper describes.
"""

GBIT = """
**TCP at 1 Gb/s, and the timer.** With the 10 ms clock's timer TCP has no timeout and no fast
retransmit at 1 Gb/s up to 90% load (26 timeouts a run at 95%); with the 1 ms floor it had 210
timeouts a run at 50% load and 30% of its deliveries were duplicates at 90% (an audit of runs with
that timer), each timeout a go-back-N restart from one packet. So TCP's P_m at BW_b = BW_N rises from 8.15 to
8.60 (Table 1: 8.1) and its maximum-power point moves to 92% load (796 Mb/s, R = 0.250 s), while
BLT's is unchanged (9.49). The paper's TCP is thus weaker than ours at 1 Gb/s: what made it so is
not in the paper (it gives no timer; its Θ is pessimistic, footnote 13, but BLT's would be as
pessimistic). BLT's advantage at 1 Gb/s is 0.89 orders (7.7×), not "17 to 20 times".

**The operating points (§4.3.1).** The paper's outstanding connections are Little's law on its
own numbers, N = Θ·R/F (318 Mb/s × 0.2894 s / 100 KB = 115 for TCP; 725 Mb/s × 0.032 s = 29 for
BLT), so ours are formed the same way; λR, the arrival rate times R, is given beside them and is
larger where some arrivals do not finish within the run. BLT's point (R = 0.0328 s, 804 Mb/s,
N = 33) is the paper's; TCP's is not, for the reason above.
"""

FILE_1MB = """
**TCP's duplicate-ACK filter.** The paper's footnote 5 takes one duplicate ACK as a drop because
its network never reorders; that is true of a duplicate ACK caused by a packet beyond a hole, not
of one caused by a packet the receiver already had. After a timeout go-back-N sends again packets
that had arrived, and each brings such an ACK; BLT ignores them (its filter), and so does TCP
here. Without the filter each one started a fast retransmit and halved TCP's window again, and
1 MB files suffered most (`--quick` runs, 40 files, 20% load: R = 14.0 s with 22,603 fast
retransmits a run, against 2.0 s and 214 with the filter; an audit of longer runs: 14.6 s against
3.6 s with NewReno's rule at 5% load).
"""

#: Experiment id -> its discussion (Markdown).
DISCUSSION: dict[str, str] = {
    "ref-30": REFERENCE,
    "gbit-1000": GBIT,
    "ref-1MB-30": FILE_1MB,
}
