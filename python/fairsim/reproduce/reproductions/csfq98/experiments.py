"""Stoica, Shenker & Zhang, "Core-Stateless Fair Queueing: Achieving Approximately Fair
Bandwidth Allocations in High Speed Networks", ACM SIGCOMM 1998: the experiments of §3 under
FIFO, RED, FRED, DRR and CSFQ (Figures 3, 4, 6 and 7; Tables 1-4).

Claims follow the spec's checklist (`specs/csfq98.md` §10). Most of the paper's numbers are in
plots that the seed lost; where only the text survives, the claims carry the comparison and our
curves are drawn alone."""

from __future__ import annotations

import json
import tomllib

from fairsim.reproduce.claims import Context, Missing
from fairsim.reproduce.model import Experiment, Sweep
from fairsim.reproduce.stability import Variant

PAIRS = ("FIFO", "RED", "FRED-1", "FRED-2", "DRR", "CSFQ")
FAIR3 = 10 / 32  # Mb/s, Figure 3's fair share
FAIR6 = 10 / 11  # Mb/s, Figure 6's

#: Every packet of every experiment, in bytes (each scenario's flows set `packet_size` to it and
#: DRR's quantum is one such packet). The paper states one size, for its web transfers (§3.4):
#: "a mean of 20 packets (1 packet = 1 KB)", and reads KB as 1000 bytes in §3 ("64KB/10Mbps =
#: 51.2 ms"). The rest of its text agrees: DRR fails the lone TCP of Figure 4 from N = 22 flows
#: on "because the TCP flow's buffer share is less than three buffers" (64,000 B / 22 = 2909 B,
#: under three 1000-byte packets; 64,000 / 21 = 3048, not), and Table 3's DRR TCPs, 6080
#: packets each in 100 s, fit 19 of them in 10 Mb/s only with packets of at most 1082 bytes.
PACKET = 1000

#: The stability knobs' sizes (`packet_knob`): "1 KB" read as 2^10 bytes, and, to show which
#: verdicts turn on the size at all, half a kilobyte and an Ethernet frame.
OTHER_PACKETS = (1024, 500, 1500)


def packet_knob(size: int) -> Variant:
    """A stability knob (`fairsim reproduce csfq98 --stability`): every flow of every experiment
    sends `size`-byte packets instead of `PACKET`, DRR's quantum is one such packet and the web
    transfers' mean stays 20 packets."""

    def overrides(sc) -> dict:
        data = tomllib.loads(sc.text)
        out: dict = {}
        for name, spec in data.get("flows", {}).items():
            if spec.get("packet_size") != f"{PACKET}B":
                continue
            out[f"flows.{json.dumps(name)}.packet_size"] = f"{size}B"
            if spec.get("app") == "web":
                out[f"flows.{json.dumps(name)}.size"] = f"{20 * size}B"
        for pair, spec in data.get("pairs", {}).items():
            qdisc = spec.get("qdisc")
            if isinstance(qdisc, dict) and qdisc.get("kind") == "drr":
                out[f"pairs.{json.dumps(pair)}.qdisc.quantum"] = f"{size}B"
        return out

    why = {
        1024: '"1 KB" (the web transfers\' "1 packet = 1 KB", §3.4) read as 2^10 bytes instead of the '
        '1000 of §3\'s "64KB/10Mbps = 51.2 ms"',
        500: "half a kilobyte, which no sentence of the paper supports (at 64 KB a TCP's share of DRR's "
        "buffer would be under three packets only from N = 43): how far the verdicts turn on the size",
        1500: "an Ethernet frame, which Table 3 rules out (19 TCPs at DRR's 6080 packets in 100 s would "
        "exceed the 10 Mb/s link): how far the verdicts turn on the size",
    }.get(size, "another packet size, to see which verdicts turn on it")
    return Variant(f"{size}-byte packets", f"every flow's packets {size} bytes: {why}", overrides=overrides)


def mbps(m, pair: str, flow: str) -> float:
    return m.value(pair, flow, "mbps")


def _sweep(ctx: Context, exp: str) -> list[tuple[float, object]]:
    if exp not in ctx.sweeps:
        raise Missing(exp)
    return ctx.sweeps[exp]


# --- sweeps ---------------------------------------------------------------------------


def fig4_overrides(n: float) -> dict:
    n = int(n)
    out = {}
    for k in range(1, 32):
        out[f"flows.udp{k}.enabled"] = k <= n - 1
        out[f"flows.udp{k}.rate"] = f"{20e6 / n:.0f}bps"
    return out


def fig6_sweep(flow: str, other: str) -> Sweep:
    """Figure 6's sweep over K congested links, measuring `flow` with `other` switched off."""

    def overrides(k: float) -> dict:
        k = int(k)
        out = {
            f"flows.{flow}.enabled": True,
            f"flows.{other}.enabled": False,
            f"flows.{flow}.dst": f"sink{k}",
        }
        for link in range(1, 6):
            for j in range(1, 11):
                out[f"flows.x{link}_{j}.enabled"] = link <= k
        return out

    return Sweep("K", values=(1, 2, 3, 4, 5), quick_values=(1, 3, 5), overrides=overrides)


TABLE4_TCP = {f"flows.udp{i}.enabled": False for i in (1, 2, 3)} | {
    f"flows.tcp{i}.enabled": True for i in (1, 2, 3)
}

EXPERIMENTS = (
    Experiment(
        "fig3a",
        "csfq98/fig3a_udp.toml",
        "Figure 3(a): 32 UDPs of increasing rates",
        discussion="""
FIFO, RED and FRED-1 share in proportion to the input, as the paper says. CSFQ's flows spread
over −5.0%…+3.5% of the fair share (the mean of five 10 s runs; a single run, as in `--quick`,
spreads over −8%…+7% to −14%…+12%, sometimes beyond the paper's −11%…+5%). DRR holds flows 1-31
within 0.3% of their share but flow 0 loses 5% (0.95 of its share): it sends at exactly the fair
rate, with jittered gaps, so its queue is a critically loaded random walk, and with 64 KB shared
by 32 flows (two packets each) it is now and then the longest queue and loses a packet to DRR's
overflow rule. Breaking ties between longest queues the other way changes nothing. The paper's
plot shows no such dip at its resolution; we report the claim as not held rather than widen its
5%. CSFQ's largest deviation (5.0%) is thus a hair below DRR's (5.1%), so CSFQ is not less
precise than DRR either. FRED-2 holds flows 1-31 within 10% but gives flow 0 21% less than its
share. Carrying the labels in §2.7's 8-bit float (ours: the pair `CSFQ, 8-bit labels`) widens
CSFQ's spread only to −5.3%…+3.9%. Both DRR claims turn on the packet size (the stability
table): with 500-byte packets (four a flow in 64 KB) DRR holds every flow within 1.4% and CSFQ
(3.5%) is less precise than DRR, as the paper says; with 1024 or 1500 bytes DRR's flow 0 loses
16% or 30% of its share.
""",
    ),
    Experiment(
        "fig3b",
        "csfq98/fig3b_udp_tcp.toml",
        "Figure 3(b): a 10 Mb/s UDP against 31 TCPs",
        discussion="""
FIFO and RED give the UDP more than 8 Mb/s (9.41 and 8.36), as printed. FRED gives it several
times its share, but the better FRED (FRED-1) holds it to 1.22 Mb/s, 32% below the paper's
"almost 1.8" (FRED-2: 1.5), so the claim does not hold. DRR and CSFQ contain it, at 0.48 and
0.43 Mb/s where the paper has 0.396 and 0.361. This figure hangs on a TCP parameter the paper
does not state: with RFC 6298's minimum timeout of 1 s the TCPs, idle after each timeout, cede
their share and the UDP gets about 1.0 Mb/s under DRR and 1.8 Mb/s under CSFQ; with the 0.2 s of
ns-2 at the time (two ticks of 0.1 s), which we use, it gets the values above.
""",
    ),
    Experiment(
        "fig4",
        "csfq98/fig4_tcp_vs_udps.toml",
        "Figure 4: one TCP against N − 1 UDPs",
        sweep=Sweep(
            "N",
            values=tuple(range(2, 33)),
            quick_values=(2, 8, 16, 24, 32),
            overrides=fig4_overrides,
        ),
        seeds=3,
        discussion="""
The curves' values are lost; the claims carry the paper's findings. Each point is one N, three
replications. DRR serves the TCP at 0.83-1.0 of its share up to N = 22 (0.94 on average) and
falls to 0.31-0.48 from N = 24 (the paper: from 22), and CSFQ holds it at 0.63-0.78 over the
whole range, so it beats DRR for many flows, as printed. The third finding does not hold for
few flows: up to N = 12 the better FRED gives the TCP 0.58-0.93 of its share (but 0.37 at 10),
up to 0.28 more than CSFQ (at N = 4, 0.93 against 0.65). Under CSFQ a TCP's rate estimate swings
above α with each window and its packets are dropped at random; under FRED a flow with few
packets buffered is never dropped. Reno in place of Tahoe narrows the gap (CSFQ 0.63-0.81, FRED
at most 0.17 ahead). For many flows FRED-1 starves the TCP (below 0.1) and FRED-2 gives it
0.2-0.3, far below CSFQ. FRED-2 beats FRED-1 with few flows as well (0.57 against 0.40 on
average below N = 22), where the paper says it helps only with many. The size of the paper's
packets shows here: with 500-byte packets the TCP's share of DRR's buffer stays three packets
or more up to N = 42, and DRR holds it at 0.94 of its share from N = 22 on, above CSFQ (0.65),
so neither DRR finding holds; with 1024 bytes both hold as with 1000.
""",
    ),
    Experiment(
        "fig6a",
        "csfq98/fig6_chain.toml",
        "Figure 6(a): UDP-0 across K congested links",
        sweep=fig6_sweep("udp0", "tcp0"),
        discussion="""
The curves' values are lost; the claims carry the paper's findings. Across one to five congested
links the UDP flow keeps at least 0.92 of its fair share under CSFQ and 0.99 under DRR, while
FIFO leaves it 0.08 and RED 0.03 (values at five links).
""",
    ),
    Experiment(
        "fig6b",
        "csfq98/fig6_chain.toml",
        "Figure 6(b): TCP-0 across K congested links",
        sweep=fig6_sweep("tcp0", "udp0"),
        discussion="""
The curves' values are lost; the claims carry the paper's findings. The ordering holds at every
K — DRR (0.73-0.90 of the share), then CSFQ, then FRED-2, with FIFO and RED near zero and
FRED-1 near zero from two links on — but CSFQ's TCP gets 0.64 of its share across one link and
0.58 across five, just below the 0.6 our tolerance asks of an "effective" discipline. Since
CSFQ estimates its accepted rate over the packets it lets through (the paper's Figure 2), the
five-link value has risen from 0.43; what remains is TCP's: its window of 20 and spurious
timeouts after the 0.2 s minimum. FRED-2 falls faster, from 0.57 to 0.07.
""",
    ),
    Experiment(
        "fig7",
        "csfq98/fig7_rlm.toml",
        "Figure 7: three RLM flows and a TCP on 4 Mb/s",
        quick={"run.duration": "300s"},
        seeds=3,
        discussion="""
DRR and CSFQ keep the three RLM receivers near five layers (0.99 Mb/s) and the TCP near its
megabit: under DRR every flow gets 0.99-1.02 Mb/s, under CSFQ 0.88-1.09. Under FRED the TCP
takes 1.95 Mb/s and the receivers 0.50-0.73, under RED 2.92 and 0.23-0.43; FIFO leaves two
receivers at five layers and the third at 0.48 Mb/s while the TCP gets 1.54. The time axis and
start times of the paper's plots are lost; ours start every flow at once.
""",
    ),
    Experiment(
        "table1",
        "csfq98/table1_onoff.toml",
        "Table 1: an ON-OFF source among 19 TCPs",
        discussion="""
CSFQ delivers 1590 of the ON-OFF source's packets (paper 1680), close; FRED-2 1421 (the notes
recall 1714, which our copy of the paper does not print: shown ‡, not graded). DRR lets more through than the paper's 601 (965): our DRR serves a flow's burst from the
queue it builds, and the source's 100 ms bursts at 10 Mb/s fill its queue before the
longest-queue drops catch up. RED and FIFO let most through (4491 and 3871; paper 5322 and
5452). Our source sends 5560-6840 packets in the 100 s we count (the paper's one run, 6758): its
ON periods are drawn.
""",
    ),
    Experiment(
        "table2",
        "csfq98/table2_web.toml",
        "Table 2: web transfers against a 10 Mb/s UDP",
        discussion="""
The ordering holds — DRR (19 ms) and FRED (33 ms) fastest, then CSFQ (78 ms), RED (310 ms) and
FIFO (812 ms) — but CSFQ is 10× faster than FIFO and only 4× faster than RED, where the paper
has almost an order of magnitude for both: our RED is twice as fast as the paper's 592 ms. CSFQ
is also slower than the (remembered, †) 62 ms and DRR faster than 25 ms. The heavy-tailed sizes
(Pareto shape 1.06) make every mean noisy; we read the printed mean gap of "0.05 ms" as 0.05 s.
""",
    ),
    Experiment(
        "table3",
        "csfq98/table3_latency.toml",
        "Table 3: a 100 ms link",
        discussion="""
DRR gives every TCP its 6250 packets (paper 6080), RED about a tenth, as printed (622 against
628), FIFO less (103 against 378). CSFQ's TCPs get 4793 (paper 5761) and FRED-2's 3991 (paper
4974): below the paper by a sixth and a fifth, in the same order. Since CSFQ estimates its
accepted rate over the packets it lets through (the paper's Figure 2), its TCPs gain a little
(4722 before); what remains is TCP's: a window of 20 on this long link and spurious timeouts
after the 0.2 s minimum. FRED-1, dropping every packet while the average stays above max_th,
starves the TCPs entirely; the paper's FRED row is not that variant. Counted in packets, the
table turns on their size (the stability table): with 500-byte packets DRR's TCPs deliver 9800
each (0.39 Mb/s, all a window of 20 half-size packets carries in a 200 ms round trip), with
1500 bytes 4120.
""",
    ),
    Experiment(
        "table4-udp",
        "csfq98/table4_relabeling.toml",
        "Table 4: relabeling, three UDPs",
        tables=("udp",),
        discussion="""
With relabeling the three UDPs share link 2 within 1% of 3.33 Mb/s (3.32-3.34), as printed. Without it
(our ablation) flows 1 and 2 keep the labels of link 1 (5 Mb/s), are dropped as if twice as
fast as they are, and flow 3 takes half of link 2.
""",
    ),
    Experiment(
        "table4-tcp",
        "csfq98/table4_relabeling.toml",
        "Table 4: relabeling, three TCPs",
        overrides=TABLE4_TCP,
        tables=("tcp",),
        discussion="""
The TCPs get 3.27-3.45 Mb/s, within 4% of 3.33, as in the paper (3.13-3.43). Relabeling changes nothing for them here:
after link 1's drops, TCP sources slow down and their labels follow their rates.
""",
    ),
)
