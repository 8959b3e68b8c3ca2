"""Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm",
ACM SIGCOMM 1989: the six benchmark scenarios of §4 and the delay analysis of §2.3 (Figure 1).

Claims follow the spec's checklist (`specs/dks89-fair-queueing.md` §8); each check states its
tolerance. Scenarios 1, 5 and 6 lost their tables and figures in the seed, so only their
prose claims are checked; their networks are reconstructions (see each scenario file).
"""

from __future__ import annotations

from fairsim.reproduce.claims import Claim, Context, TestedClaim, in_most_runs, verdict
from fairsim.reproduce.definitions import dks89_fig1
from fairsim.reproduce.figures import utility_diagram
from fairsim.reproduce.model import Experiment, Figure, Paper

LINE = 3500  # packets of 1000 bytes a 56 kb/s line carries in the 500 s window
PAIRS = ("G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "DEC/DEC", "DEC/FQbit")
FQ_PAIRS = ("G/FQ", "JK/FQ", "DEC/FQbit")
FCFS_PAIRS = ("G/FCFS", "JK/FCFS")


def pk(m, pair: str, flow: str) -> float:
    return m.value(pair, flow, "packets")


def rtt(m, pair: str, flow: str) -> float:
    return m.value(pair, flow, "rtt")


def total(m, pair: str, flows, metric: str = "packets") -> float:
    return sum(m.value(pair, f, metric) for f in flows)


# --- Scenario 1 --------------------------------------------------------------------------


def s1_fair(ctx: Context):
    m = ctx("s1")
    ratios = {p: pk(m, p, "ftp1") / pk(m, p, "ftp2") for p in PAIRS}
    held = all(abs(r - 1) <= 0.1 for r in ratios.values())
    return verdict(held, **{f"{p} FTP1/FTP2": r for p, r in ratios.items()})


def s1_telnet_delay(ctx: Context):
    m = ctx("s1")
    t = {p: (rtt(m, p, "telnet3") + rtt(m, p, "telnet4")) / 2 for p in PAIRS}
    fq_low = all(t[fq] < t[fcfs] / 3 for fq, fcfs in (("G/FQ", "G/FCFS"), ("JK/FQ", "JK/FCFS")))
    dec_between = max(t[p] for p in FQ_PAIRS) < t["DEC/DEC"] < min(t[p] for p in FCFS_PAIRS)
    return verdict(fq_low and dec_between, **{f"{p} Telnet RTT": v for p, v in t.items()})


# --- Scenario 2 --------------------------------------------------------------------------

FTPS2 = [f"ftp{i}" for i in range(1, 7)]
TELNETS2 = ["telnet7", "telnet8"]
FAIR2 = LINE / 6


def s2_g_fcfs(ctx: Context):
    def one(m):
        xs = [pk(m, "G/FCFS", f) for f in FTPS2]
        return max(xs) >= 1.5 * FAIR2 and min(xs) <= 0.2 * FAIR2, {"most": max(xs), "fewest": min(xs)}

    return in_most_runs(ctx("s2"), one)


def s2_jk_fcfs_fair(ctx: Context):
    def one(m):
        xs = [pk(m, "JK/FCFS", f) for f in FTPS2]
        return all(abs(x - FAIR2) <= 0.1 * FAIR2 for x in xs), {"fewest": min(xs), "most": max(xs)}

    return in_most_runs(ctx("s2"), one)


def s2_jk_fcfs_telnet(ctx: Context):
    m = ctx("s2")
    fcfs, fq = total(m, "JK/FCFS", TELNETS2), total(m, "JK/FQ", TELNETS2)
    return verdict(fcfs < fq / 10, Telnet_packets_JK_FCFS=fcfs, Telnet_packets_JK_FQ=fq)


def s2_g_fq(ctx: Context):
    def one(m):
        xs = [pk(m, "G/FQ", f) for f in FTPS2]
        deficit = 1 - total(m, "G/FQ", FTPS2, "packets_unique") / LINE
        held = min(xs) >= 0.2 * FAIR2 and max(xs) > 1.2 * min(xs) and deficit >= 0.05
        return held, {"fewest": min(xs), "most": max(xs), "useful throughput deficit": deficit}

    return in_most_runs(ctx("s2"), one)


def s2_jk_fq(ctx: Context):
    m = ctx("s2")
    xs = [pk(m, "JK/FQ", f) for f in FTPS2]
    tel = [pk(m, "JK/FQ", t) for t in TELNETS2]
    trtt = max(rtt(m, "JK/FQ", t) for t in TELNETS2)
    held = all(abs(x - FAIR2) <= 0.1 * FAIR2 for x in xs) and min(tel) >= 80 and trtt <= 0.15
    return verdict(held, FTP_fewest=min(xs), FTP_most=max(xs), Telnet_fewest=min(tel), Telnet_RTT=trtt)


def s2_dec(ctx: Context):
    m = ctx("s2")
    named, held = {}, True
    for p in ("DEC/DEC", "DEC/FQbit"):
        xs = [pk(m, p, f) for f in FTPS2]
        drops = total(m, p, FTPS2 + TELNETS2, "drops")
        held &= (max(xs) - min(xs)) <= 0.02 * (sum(xs) / 6) and drops == 0
        named |= {f"{p} FTP spread": max(xs) - min(xs), f"{p} drops": drops}
    return verdict(held, **named)


def s2_fqbit_telnet(ctx: Context):
    m = ctx("s2")
    dec = sum(rtt(m, "DEC/DEC", t) for t in TELNETS2) / 2
    fqbit = sum(rtt(m, "DEC/FQbit", t) for t in TELNETS2) / 2
    ratio = dec / fqbit
    return verdict(4.5 <= ratio <= 18, DEC_DEC_Telnet_RTT=dec, DEC_FQbit_Telnet_RTT=fqbit, ratio=ratio)


def s2_fq_improves(ctx: Context):
    m = ctx("s2")
    named, held = {}, True
    for fc in ("G", "JK"):
        fcfs, fq = f"{fc}/FCFS", f"{fc}/FQ"
        worst = {q: min(pk(m, q, f) for f in FTPS2) for q in (fcfs, fq)}
        telnets = {q: total(m, q, TELNETS2) for q in (fcfs, fq)}
        held &= worst[fq] >= worst[fcfs] and telnets[fq] > 2 * telnets[fcfs]
        named |= {f"{q} worst FTP": v for q, v in worst.items()}
        named |= {f"{q} Telnets": v for q, v in telnets.items()}
    return verdict(held, **named)


def s2_fq_needs_flow_control(ctx: Context):
    m = ctx("s2")
    g = total(m, "G/FQ", FTPS2, "drops")
    jk = total(m, "JK/FQ", FTPS2, "drops")
    g_useful = total(m, "G/FQ", FTPS2, "packets_unique")
    jk_useful = total(m, "JK/FQ", FTPS2, "packets_unique")
    return verdict(
        g > 1.2 * jk and g_useful < jk_useful,
        G_FQ_drops=g,
        JK_FQ_drops=jk,
        G_FQ_useful=g_useful,
        JK_FQ_useful=jk_useful,
    )


# --- Scenario 3 --------------------------------------------------------------------------


def s3_fcfs(ctx: Context):
    m = ctx("s3")
    named = {p: pk(m, p, "bad3") / LINE for p in ("G/FCFS", "JK/FCFS", "DEC/DEC")}
    return verdict(
        all(v >= 0.9 for v in named.values()), **{f"{p} ill-behaved share": v for p, v in named.items()}
    )


def s3_fq(ctx: Context):
    m = ctx("s3")
    named, held = {}, True
    for p in FQ_PAIRS:
        ftp, tel, bad = pk(m, p, "ftp1"), pk(m, p, "telnet2"), pk(m, p, "bad3")
        held &= ftp >= 0.95 * (LINE - tel) and tel >= 80 and bad <= 20
        named |= {f"{p} FTP": ftp, f"{p} Telnet": tel, f"{p} ill-behaved": bad}
    return verdict(held, **named)


# --- Scenario 4 --------------------------------------------------------------------------


def s4_reversal(ctx: Context):
    m = ctx("s4")
    gen = {q: total(m, q, ["g1", "g2"]) for q in ("FCFS", "FQ")}
    jk = {q: total(m, q, ["jk3", "jk4"]) for q in ("FCFS", "FQ")}
    held = gen["FCFS"] > 1.1 * jk["FCFS"] and jk["FQ"] > 1.1 * gen["FQ"]
    return verdict(held, Generic_FCFS=gen["FCFS"], JK_FCFS=jk["FCFS"], Generic_FQ=gen["FQ"], JK_FQ=jk["FQ"])


def s4_fcfs_jk_losses(ctx: Context):
    m = ctx("s4")
    jk = [m.value("FCFS", f, "drops") for f in ("jk3", "jk4")]
    gen = [m.value("FCFS", f, "drops") for f in ("g1", "g2")]
    return verdict(
        min(jk) >= 10 and max(gen) <= 0.2 * min(jk), JK_drops_fewest=min(jk), Generic_drops_most=max(gen)
    )


def s4_fq_segregation(ctx: Context):
    def one(m):
        a, b = sorted(pk(m, "FQ", f) for f in ("g1", "g2"))
        return a < 0.25 * b, {"Generic loser": a, "Generic winner": b}

    return in_most_runs(ctx("s4"), one)


# --- Scenario 5 --------------------------------------------------------------------------

SHORTS = ["short1", "short2", "short3"]
FAIR5 = LINE / 2


def s5_fcfs_long(ctx: Context):
    m = ctx("s5")
    share = {p: pk(m, p, "long") / FAIR5 for p in FCFS_PAIRS}
    return verdict(
        all(v < 0.6 for v in share.values()), **{f"{p} long path share of fair": v for p, v in share.items()}
    )


def s5_fq_long(ctx: Context):
    m = ctx("s5")
    share = {p: pk(m, p, "long") / FAIR5 for p in ("G/FQ", "JK/FQ")}
    return verdict(
        all(v >= 0.9 for v in share.values()), **{f"{p} long path share of fair": v for p, v in share.items()}
    )


def s5_dec(ctx: Context):
    m = ctx("s5")
    carried = [pk(m, "DEC/DEC", s) + pk(m, "DEC/DEC", "long") for s in SHORTS]
    waste = 1 - sum(carried) / (3 * LINE)
    long_dec, long_g = pk(m, "DEC/DEC", "long"), pk(m, "G/FCFS", "long")
    held = 0.05 <= waste <= 0.2 and long_dec < long_g
    return verdict(held, bandwidth_wasted=waste, long_DEC_DEC=long_dec, long_G_FCFS=long_g)


# --- Scenario 6 --------------------------------------------------------------------------

FTPS6 = [f"ftp{i}" for i in range(1, 9)]


def s6_smooth(ctx: Context):
    m = ctx("s6")
    drops = {p: total(m, p, FTPS6, "drops") for p in PAIRS}
    return verdict(all(d == 0 for d in drops.values()), **{f"{p} drops": d for p, d in drops.items()})


def s6_ack_limited(ctx: Context):
    m = ctx("s6")
    capacity = {"ftp4": LINE, "ftp8": 2 * LINE}
    named, held = {}, True
    for fc in ("G", "JK"):
        for f, cap in capacity.items():
            share = pk(m, f"{fc}/FCFS", f) / cap
            slower = rtt(m, f"{fc}/FCFS", f) / rtt(m, f"{fc}/FQ", f)
            held &= share < 0.6 and slower > 2
            named |= {f"{fc}/FCFS {f} share of its line": share, f"{f} RTT FCFS/FQ": slower}
    return verdict(held, **named)


def s6_fq_total(ctx: Context):
    m = ctx("s6")
    tot = {p: total(m, p, FTPS6) for p in ("G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ")}
    held = tot["G/FQ"] > tot["G/FCFS"] and tot["JK/FQ"] > tot["JK/FCFS"]
    return verdict(held, **{f"{p} total": v for p, v in tot.items()})


def claim(cid: str, exp: str, text: str, tolerance: str, check, source: str) -> Claim:
    return Claim(cid, exp, text, tolerance, check, source)


CLAIMS = (
    claim(
        "s1-fair",
        "s1",
        "Underloaded: every combination shares the FTP bandwidth fairly.",
        "the two FTPs' packets within 10% of each other under every pair",
        s1_fair,
        "DKS89 §4, Scenario 1",
    ),
    claim(
        "s1-telnet-delay",
        "s1",
        "FQ gives the Telnets much lower delay than FCFS; selective DECbit gives an intermediate value.",
        "Telnet RTT under G/FQ and JK/FQ below a third of G/FCFS's and JK/FCFS's; DEC/DEC's between every FQ pair's and every FCFS pair's",
        s1_telnet_delay,
        "DKS89 §4, Scenario 1",
    ),
    claim(
        "s2-g-fcfs-segregation",
        "s2",
        "G/FCFS segregates the FTPs into winners (≈1150 packets) and losers (≈3–18).",
        "in at least half of the runs, the best FTP gets at least 1.5× the fair share (583) and the worst at most 0.2×",
        s2_g_fcfs,
        "DKS89 §4, Scenario 2",
    ),
    claim(
        "s2-jk-fcfs-fair",
        "s2",
        "JK/FCFS is fair among the FTPs (≈582–585 packets each).",
        "in at least half of the runs, every FTP within 10% of 583 packets",
        s2_jk_fcfs_fair,
        "DKS89 §4, Scenario 2",
    ),
    claim(
        "s2-jk-fcfs-telnet",
        "s2",
        "JK/FCFS shuts the Telnets out: their throughput is below a tenth of JK/FQ's.",
        "the Telnets' packets under JK/FCFS below a tenth of JK/FQ's",
        s2_jk_fcfs_telnet,
        "DKS89 §4, Scenario 2",
    ),
    claim(
        "s2-g-fq",
        "s2",
        "G/FQ removes the segregation but stays uneven, with useful throughput about 12% below optimal.",
        "in at least half of the runs: no FTP below 0.2× fair share, the best above 1.2× the worst, and non-duplicate FTP packets at least 5% short of the line's 3500",
        s2_g_fq,
        "DKS89 §4, Scenario 2",
    ),
    claim(
        "s2-jk-fq",
        "s2",
        "JK/FQ is reasonably fair and efficient (FTPs 546–601), and the Telnets get ≈87–96 packets at ≈0.09 s.",
        "every FTP within 10% of 583; each Telnet at least 80 packets; Telnet RTT at most 0.15 s",
        s2_jk_fq,
        "DKS89 §4, Scenario 2",
    ),
    claim(
        "s2-dec-fair",
        "s2",
        "DEC/DEC and DEC/FQbit give exactly equal FTP shares (582 each) with no drops.",
        "FTP packets within 2% of each other and no packet dropped, under both pairs",
        s2_dec,
        "DKS89 §4, Scenario 2",
    ),
    claim(
        "s2-fqbit-telnet",
        "s2",
        "DEC/FQbit lowers the Telnet delay by a factor of 9 against DEC/DEC (≈0.78 s → ≈0.085 s).",
        "the ratio of the Telnets' mean RTTs within a factor of 2 of 9 (4.5 to 18)",
        s2_fqbit_telnet,
        "DKS89 §4, Scenario 2",
    ),
    claim(
        "s2-fq-improves",
        "s2",
        "For each flow control, replacing FCFS with FQ improves FTP performance and dramatically improves Telnet performance.",
        "for G and JK: the worst FTP does at least as well under FQ, and the Telnets deliver more than twice as many packets",
        s2_fq_improves,
        "DKS89 §4, Scenario 2",
    ),
    claim(
        "s2-fq-needs-flow-control",
        "s2",
        "FQ gateways by themselves do not provide adequate congestion control; they need intelligent flow control at the sources.",
        "under FQ, Generic FTPs lose more than 1.2× the packets JK FTPs lose and deliver fewer non-duplicate packets",
        s2_fq_needs_flow_control,
        "DKS89 §4, Scenario 2; §5",
    ),
    claim(
        "s3-fcfs-shutout",
        "s3",
        "With FCFS the ill-behaved source takes ≈3334–3500 of the 3500 packets; the FTP and the Telnet are shut out.",
        "the ill-behaved source's packets at least 90% of the line under G/FCFS, JK/FCFS and DEC/DEC",
        s3_fcfs,
        "DKS89 §4, Scenario 3",
    ),
    claim(
        "s3-fq-firewall",
        "s3",
        "With FQ the FTP gets ≈3490 packets, the Telnet ≈95–110, and the ill-behaved source only 3–6, being charged for its dropped packets.",
        "under G/FQ, JK/FQ and DEC/FQbit: FTP at least 95% of what the Telnet leaves, Telnet at least 80, ill-behaved at most 20",
        s3_fq,
        "DKS89 §4, Scenario 3",
    ),
    claim(
        "s4-reversal",
        "s4",
        "With FCFS the Generic pair out-earns the JK pair; with FQ the situation is reversed.",
        "the Generic pair's packets more than 10% above the JK pair's under FCFS, and the JK pair's more than 10% above the Generic pair's under FQ",
        s4_reversal,
        "DKS89 §4, Scenario 4",
    ),
    claim(
        "s4-fcfs-jk-losses",
        "s4",
        "Under FCFS the JK sources bear the losses (≈47–48 drops each), the Generic ones almost none.",
        "each JK source at least 10 drops; each Generic source at most a fifth of that",
        s4_fcfs_jk_losses,
        "DKS89 §4, Scenario 4",
    ),
    claim(
        "s4-fq-segregation",
        "s4",
        "Under FQ the Generic sources segregate (1162 against 12 packets).",
        "in at least half of the runs, the Generic loser below a quarter of the Generic winner",
        s4_fq_segregation,
        "DKS89 §4, Scenario 4",
    ),
    claim(
        "s5-fcfs-long",
        "s5",
        "With FCFS gateways and Generic or JK flow control, the long path receives less than 60% of its fair share.",
        "long path's packets below 0.6 × 1750 under G/FCFS and JK/FCFS",
        s5_fcfs_long,
        "DKS89 §4, Scenario 5",
    ),
    claim(
        "s5-fq-long",
        "s5",
        "With FQ gateways the long path receives its full fair share.",
        "long path's packets at least 0.9 × 1750 under G/FQ and JK/FQ",
        s5_fq_long,
        "DKS89 §4, Scenario 5",
    ),
    claim(
        "s5-dec-waste",
        "s5",
        "Selective DECbit wastes roughly 10% of the bandwidth, and the long path ends up with less than under Generic/FCFS.",
        "unused capacity of the three lines between 5% and 20% under DEC/DEC, and the long path's packets below G/FCFS's",
        s5_dec,
        "DKS89 §4, Scenario 5",
    ),
    claim(
        "s6-smooth",
        "s6",
        "No gateway is overloaded, so every combination functions smoothly.",
        "no packet dropped under any pair",
        s6_smooth,
        "DKS89 §4, Scenario 6",
    ),
    claim(
        "s6-ack-limited",
        "s6",
        "With FCFS, sources 4 and 8 are limited not by bandwidth but by the delay of their ACKs behind FTP packets.",
        "under G/FCFS and JK/FCFS sources 4 and 8 use less than 60% of their line, with round trips more than twice those under FQ",
        s6_ack_limited,
        "DKS89 §4, Scenario 6",
    ),
    claim(
        "s6-fq-total",
        "s6",
        "The total throughput increases with FQ gateways, because the small ACK packets are served promptly.",
        "total FTP packets under G/FQ above G/FCFS's, and under JK/FQ above JK/FCFS's",
        s6_fq_total,
        "DKS89 §4, Scenario 6",
    ),
)

TESTED = (
    TestedClaim(
        "alg-order",
        "FQ serves packets in increasing finish number F = max(F_prev, R(t)) + P; R advances at μ/N_ac with iterated deletion.",
        (
            "qdisc::fq::tests::serves_in_finish_number_order_so_short_packets_are_not_penalised",
            "reference::round::tests::iterated_deletion_handles_several_departures_in_one_step",
        ),
        "DKS89 §2.2",
    ),
    TestedClaim(
        "alg-emulation-bound",
        "Non-preemptive FQ, preemptive FQ and bit-by-bit round robin differ by at most one maximum packet, for every conversation at every time.",
        ("fluid::fq_preemptive_fq_and_gps_stay_within_one_maximum_packet (property test)",),
        "DKS89 §2.2",
    ),
    TestedClaim(
        "alg-delta",
        "δ does not change long-run shares; it lowers the delay of a packet arriving at an idle conversation.",
        (
            "fairness::delta_helps_a_sparse_conversation_but_leaves_long_run_shares_alone",
            "qdisc::fq::tests::telnet_delay_matches_the_papers_limits_for_delta_0_and_delta_p",
        ),
        "DKS89 §2.2",
    ),
    TestedClaim(
        "alg-drops",
        "Overflow drops the last packet of the conversation with the most buffered; drops do not roll back F (the flooder is charged).",
        (
            "qdisc::fq::tests::overflow_drops_the_last_packet_of_the_longest_conversation",
            "qdisc::fq::tests::dropped_packets_are_charged_or_not_as_configured",
        ),
        "DKS89 §2.2; §4, Scenario 3",
    ),
    TestedClaim(
        "alg-weights",
        "Weights n_α give bandwidth proportional to n_α.",
        ("qdisc::fq::tests::weights_give_proportional_service", "fairness::weights_give_proportional_shares"),
        "DKS89 §5",
    ),
)

S1_TO_6 = (
    Experiment(
        "s1",
        "dks89/s1_underloaded.toml",
        "Scenario 1: Underloaded Gateway",
        discussion="""
The paper's table is lost; its two sentences hold: every pair shares the FTP bandwidth equally,
FQ gives the Telnets round trips of about 0.08 s against 1.36 s under FCFS, and selective DECbit
sits between them (0.21 s) because it keeps the queue short.
""",
    ),
    Experiment(
        "s2",
        "dks89/s2_overloaded.toml",
        "Scenario 2: Overloaded Gateway",
        discussion="""
G/FCFS segregates in every run: three winners at about 1170 packets (three windows of 5 fill
the 15 places), the others near nothing, and the Telnets shut out (about 3 packets against the
paper's 31 and 3). Which sources win changes from run to run, so the per-source cells, averaged
over replications, cannot match the paper's single run; the pattern does. The losers' round
trips, counted from first transmission, reach hundreds of seconds: the paper's "403 †" and
"140 †" cells, which look as if they had lost a decimal point, are plausible as printed.

JK/FCFS locks in the same way here — three JK sources at 1168 packets, three stuck in backed-off
timeouts of 64 s — where the paper's JK sources shared equally (582 each). The Telnets are shut
out as in the paper. The paper gives no JK constants; ours are 4.3BSD Tahoe's (fast retransmit
after 3 duplicate ACKs, Karn's rule, backoff up to 64 s), and the thesis warns that whether
segregation appears "depends strongly on link delays, maximum window and buffer size".

G/FQ: our Generic resends only the oldest packet on a timeout (the thesis's arithmetic, see the
scenario notes); it then wastes about 5% of the line rather than the paper's 12%, and drops
fewer packets than JK. With go-back-N instead it wastes 14% and drops twice JK's packets, as the
paper says — but the G/FCFS Telnets are then not shut out. The two halves of the paper's
narrative call for the two readings of the same unstated rule (docs/reproductions.md).

JK/FQ is fair and efficient as in the paper; its round trips (3.2 s against 1.8–2.2 s) include
the wait for retransmissions, counted from each packet's first transmission. DEC/DEC matches
every cell. DEC/FQbit keeps the fairness and cuts the Telnet delay 9×, as printed, but its FTPs
keep about 1.7 packets queued each (round trip 1.42 s against 0.86 s): the 1989 paper does not
give FQbit's threshold; we use the thesis's third of the fair buffer share.
""",
    ),
    Experiment(
        "s3",
        "dks89/s3_ill_behaved.toml",
        "Scenario 3: Ill-Behaved Source",
        discussion="""
FQ is the firewall the paper describes, cell for cell: the FTP gets 3491 packets, the Telnet
about 105, the ill-behaved source 4–5 of its 7000. Its round trip under FQ, 855–880 s, agrees
with the paper's 903, 860 and 877, which look garbled in the paper's text: a source charged for
every dropped packet has its few accepted packets scheduled hundreds of seconds late. Under FCFS
the ill-behaved source takes the whole line; the shut-out Generic FTP keeps retransmitting at
every timeout (170 retransmissions in the window against the paper's 7): a Generic sender that
never gets an ACK never lengthens its timeout, while the paper's apparently had. The Telnet's
retransmissions (167 against 139) agree.
""",
    ),
    Experiment(
        "s4",
        "dks89/s4_mixed.toml",
        "Scenario 4: Mixed Protocols",
        discussion="""
Under FCFS the table is reproduced: the Generic pair gets 1264 packets each (paper 1182), the JK
pair about 490 (569) and bears all the losses (44 against 48). Under FQ the reversal holds (JK
968 each, Generic 722 and 842) but the Generic pair does not segregate: in the paper one Generic
source fell into ever longer timeouts (its round trip is printed "281 †", what an exploded
estimate gives), and the three remaining windows of 5 then fit the 15 places without loss.
Whether one source falls into that state depends on timing that the paper's single run happened to hit. Ours keep losing 40–55 packets each in
the window (the paper: 1 or 2), Generic and JK alike.
""",
    ),
    Experiment(
        "s5",
        "dks89/s5_multihop.toml",
        "Scenario 5: Multihop Path",
        discussion="""
With FCFS the long path gets 53% of its fair share, with FQ all of it, as the paper says. Our
selective DECbit does not waste 10% of the bandwidth (2.5%) and gives the long path more than
G/FCFS does (1377 packets against 920), against the paper. Our gateway follows Ramakrishnan and
Jain (capacity factor 0.9, fair share from the average queue over the regeneration cycle); the
thesis notes that with other parameters the long conversation gets up to 80% of its share (ours:
79%) and calls the outcome parameter-sensitive.
""",
    ),
    Experiment(
        "s6",
        "dks89/s6_complicated.toml",
        "Scenario 6: Complicated Network",
        discussion="""
Our network is a reconstruction built to contain the mechanism the paper describes, so these
claims check the mechanism, not the paper's numbers: with FCFS, sources 4 and 8 use a third of
their lines, their ACKs waiting behind 15 FTP packets; FQ serves the ACKs at once and total
throughput rises by 46%; nothing is dropped.
""",
    ),
)


def _s1_utility(ctx: Context):
    flows = [("ftp1", "1"), ("ftp2", "2"), ("telnet3", "3"), ("telnet4", "4")]
    return utility_diagram(
        ctx("s1"), ("G/FCFS", "G/FQ"), flows, "Scenario 1, Generic flow control: FCFS vs FQ"
    )


PAPER = Paper(
    id="dks89",
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
    experiments=(*S1_TO_6, *dks89_fig1.EXPERIMENTS),
    claims=(*CLAIMS, *dks89_fig1.CLAIMS),
    tested=TESTED,
    figures=(
        Figure(
            "fig1",
            "Figure 1: Telnet delay vs throughput",
            "The paper's analysis (lines) and our simulations (markers): queueing delay of a Poisson Telnet in packet times, against its throughput relative to its fair share, beside 3 FTPs with windows of 5.",
            "fig1",
            dks89_fig1.draw,
        ),
        Figure(
            "s1-utility",
            "Scenario 1 utility diagram (ours; the paper has none)",
            "Throughput against round-trip delay per source, Generic flow control, a colour per source: FCFS rings, FQ squares; boxes are 95% confidence intervals.",
            "s1",
            _s1_utility,
        ),
    ),
    method="""
Counts are over the 500 s measurement window after 1500 s of warm-up, as the paper's; the
paper ran one replication (it reports no confidence intervals), we run several and show their
mean with the spread between replications. "Throughput" counts every data packet reaching the
sink, duplicates included, which is what the paper's Scenario 2 arithmetic implies (its G/FQ
row has 1043 retransmissions for 631 drops). Round-trip times are measured from a packet's
first transmission (the Generic estimator's rule), over every ACKed packet in the window.

Three modelling rules the paper does not state are reconstructed from its tables and used for
both this paper and the thesis (docs/reproductions.md): the gateway buffer includes the packet
being sent; round trips run from a packet's first transmission; a Generic or DECbit timeout
resends only the oldest unacknowledged packet. Access lines are 800 kb/s with no propagation
delay (lost with the figures).
""",
)
