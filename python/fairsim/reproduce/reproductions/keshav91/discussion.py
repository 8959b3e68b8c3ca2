"""Keshav 1991: our discussion of each scenario (shown under it in the report).

Each discussion's numbers about the run are fields filled from the claims' numbers
(`{{claim:name}}`) or from the facts below (`{{name}}`), computed from the runs; the numbers
typed into the text are the thesis's and the scenario files'. What the audits of the claims not
held found with one thing changed at a time is in docs/reproductions.md, with the commands."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from fairsim.reproduce.claims import Context
from fairsim.reproduce.discussion import Discussion
from fairsim.reproduce.reproductions.keshav91.claims import (
    FAIR2,
    FQ_PAIRS,
    FTPS1,
    FTPS2,
    FTPS6,
    FTPS78,
    ON,
    delay,
    jk_fcfs_interval_rates,
    k5_fcfs_run,
    losses,
    thr,
)

Fact = Callable[[Context], float]


def _mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else math.nan


def _lo(xs: Iterable[float]) -> float:
    xs = list(xs)
    return min(xs) if xs else math.nan


def _hi(xs: Iterable[float]) -> float:
    xs = list(xs)
    return max(xs) if xs else math.nan


def _span(xs: Iterable[float]) -> str | None:
    """`low to high` of some runs' values, or None where no run has one (the prose then says so
    rather than print "n/a to n/a")."""
    xs = list(xs)
    if not xs:
        return None
    return f"{min(xs):.2f}" if min(xs) == max(xs) else f"{min(xs):.2f} to {max(xs):.2f}"


def _said(span: str | None, text: str, otherwise: str) -> str:
    return text.format(span) if span is not None else otherwise


def avg(exp: str, pair: str, flows: Iterable[str], metric: str = "throughput", interval=None) -> Fact:
    """The mean over `flows` of a metric of one pair (each flow's mean over the runs)."""
    flows = tuple(flows)
    return lambda ctx: _mean(ctx(exp).value(pair, f, metric, interval) for f in flows)


def over(exp: str, pairs: Iterable[str], flows: Iterable[str], metric: str, pick, interval=None) -> Fact:
    """`pick` (min, max) of a metric over several pairs and flows."""
    pairs, flows = tuple(pairs), tuple(flows)
    return lambda ctx: pick(ctx(exp).value(p, f, metric, interval) for p in pairs for f in flows)


# --- Scenario 1 ----------------------------------------------------------------------------


def s1_decfqb_window(ctx: Context) -> float:
    """DEC/FQbit's FTPs' mean window by Little's law: throughput × round trip."""
    m = ctx("s1")
    return _mean(thr(m, "DEC/FQbit", f) * delay(m, "DEC/FQbit", f) for f in FTPS1)


# --- Scenario 2 ----------------------------------------------------------------------------


def _jk_phases(ctx: Context) -> list[tuple[int, int, int, float]]:
    """Per run of JK/FCFS: the FTPs with a winning interval (above 1.25× the fair share), with a
    losing one (below 0.75×), with both, and the longest stretch of losing intervals (s)."""
    out = []
    for run in ctx("s2").replications():
        rates = jk_fcfs_interval_rates(run)
        df = run.results.intervals
        length = _mean((df["end_s"] - df["start_s"])[~df["warmup"]].tolist())
        win = lose = both = 0
        longest = 0
        for r in rates.values():
            w, lo = bool((r > 1.25 * FAIR2).any()), bool((r < 0.75 * FAIR2).any())
            win, lose, both = win + w, lose + lo, both + (w and lo)
            stretch = 0
            for losing in r < 0.75 * FAIR2:
                stretch = stretch + 1 if losing else 0
                longest = max(longest, stretch)
        out.append((win, lose, both, longest * length))
    return out


def s2_measured(ctx: Context) -> float:
    """The seconds of a Scenario 2 run that are measured (the warm-up left out)."""
    df = ctx("s2").replications()[0].results.intervals
    df = df[~df["warmup"]].drop_duplicates("start_s")
    return float((df["end_s"] - df["start_s"]).sum())


def s2_g_fcfs_worst(ctx: Context) -> float:
    """G/FCFS's worst FTP in each run, averaged over the runs (the rank-ordered cell)."""
    return _mean(min(thr(r, "G/FCFS", f) for f in FTPS2) for r in ctx("s2").replications())


# --- Scenario 3 ----------------------------------------------------------------------------


def _jk3_reset(ctx: Context) -> tuple[float, float, float]:
    """In the run s3-jk-window reads, JK/FCFS source 1's last window of 1 before 400 s, its
    threshold then, and when the window is next at 39 or more."""
    m = ctx("s3")
    cwnd = m.traces("JK/FCFS", "ftp1", "cwnd")
    ssthresh = m.traces("JK/FCFS", "ftp1", "ssthresh")
    low = cwnd[(cwnd["value"] <= 1) & (cwnd["t_s"] < 400)]
    if low.empty:
        return math.nan, math.nan, math.nan
    last = float(low["t_s"].max())
    before = ssthresh[ssthresh["t_s"] <= last + 1e-6]
    thresh = float(before["value"].iloc[-1]) if not before.empty else math.nan
    back = cwnd[(cwnd["t_s"] > last) & (cwnd["value"] >= 39)]
    return last, thresh, float(back["t_s"].min()) if not back.empty else math.nan


def _pp3_runs(ctx: Context) -> tuple[list[list[float]], list[list[float]]]:
    """PP/FQ's three throughputs with the background on, in the runs where neither PP source
    lost a packet then and in the others."""
    clean, lossy = [], []
    for run in ctx("s3").replications():
        xs = [thr(run, "PP/FQ", f, ON) for f in ("ftp1", "ftp2", "bkg")]
        lost = sum(run.value("PP/FQ", f, "drop_rate", ON) for f in ("ftp1", "ftp2"))
        (lossy if lost > 0 else clean).append(xs)
    return clean, lossy


# --- Scenario 5 ----------------------------------------------------------------------------


def _s5_runs(ctx: Context) -> tuple[list[dict], list[dict]]:
    """The numbers of each JK+G/FCFS run that shows the thesis's pattern, and of the others."""
    shown, other = [], []
    for run in ctx("s5").replications():
        held, named = k5_fcfs_run(run)
        (shown if held else other).append(named)
    return shown, other


def _shown_shares(ctx: Context) -> str:
    """What the JK+G/FCFS runs that show the thesis's pattern give each source, in words."""
    shown = _s5_runs(ctx)[0]
    if not shown:
        return "No run shows it"
    generic = _span(x for n in shown for x in (n["Generic lowest"], n["Generic highest"]))
    starved = _hi(n["JK lowest"] for n in shown)
    return f"In those runs the Generic sources get {generic} each and the starved JK source {starved:.2f} at most"


# --- Scenario 7 ----------------------------------------------------------------------------


def s7_dec_window(ctx: Context) -> float:
    """DEC/DEC's mean window by Little's law (throughput × round trip), the larger of the two."""
    m = ctx("s7")
    return max(thr(m, "DEC/DEC", f) * delay(m, "DEC/DEC", f) for f in FTPS78)


def s8_g_shares(ctx: Context) -> list[float]:
    """G/FCFS source 2's retransmitted share in each run of Scenario 8."""
    out = []
    for run in ctx("s8").replications():
        retx, good = run.value("G/FCFS", "ftp2", "retx_rate"), thr(run, "G/FCFS", "ftp2")
        if retx + good > 0:
            out.append(retx / (retx + good))
    return out


S1 = Discussion(
    """
The thesis's FTPs get 4.99 packets/s under every pair, with no drop and no retransmission; ours
deviate from 4.99 by {{s1-ftp:largest FTP deviation from 4.99|.3f}} at most, and the most drops
and retransmissions per second under any pair is {{s1-ftp:drops+retx per s}} (s1-ftp:
{{s1-ftp}}). Generic's and DECbit's timeout is at least 1 s: without that floor a Telnet packet
queued behind an FTP packet under FQ timed out before its ACK returned. The Telnets and the
Generic, JK and DECbit FTP delays are compared in s1-telnet ({{s1-telnet}}) and s1-ftp-delay
({{s1-ftp-delay}}). DEC/FQbit's FTPs see {{decfqb_delay|.2f}} s against the thesis's 1.00 s:
their windows average {{decfqb_window|.2f}} packets (throughput × round trip), where 1.00 s at
4.99 packets/s means the full window of 5.

PP, with the window of 40 that the thesis's own row implies (7.4 and 6.1 packets outstanding,
more than a window of 5 allows) and a timer per packet, sees {{s1-pp-delay:PP_delay_1|.2f}} and
{{s1-pp-delay:PP_delay_2|.2f}} s at a setpoint of 5 (thesis 1.48 and 1.22; s1-pp-delay:
{{s1-pp-delay}}) and {{s1-pp-setpoint:setpoint 2, ftp1|.2f}} and
{{s1-pp-setpoint:setpoint 2, ftp2|.2f}} s at a setpoint of 2 (0.846 and 0.788; s1-pp-setpoint:
{{s1-pp-setpoint}}).

Which PP source sees the lower delay is set by the order in which the two start, not by their
labels: the source that starts later sees {{s1-pp-order:PP_delay_later_source|.2f}} s on average
and the earlier one {{s1-pp-order:PP_delay_earlier_source|.2f}} s, the later one lower in
{{s1-pp-order:runs_where_the_later_is_lower}} of {{s1-pp-order:runs}} runs (s1-pp-order:
{{s1-pp-order}}). The control law predicts the later source to have the higher delay, the
opposite of the thesis's account: the later source's first packet waits behind the other's, so
it overestimates R, and an overestimate lowers the queue estimate n̂_b = S − R·μ̂, so the law
sends faster and keeps more queued, not less. Our sources start within 1 ms of each other in a
random order, so either label can be the later one, and each label's mean, which s1-pp-delay and
s1-pp-setpoint compare with the thesis's sources 1 and 2, mixes the two orders. With every
source started at once (`run.start_jitter = 0s`) source 1 goes first in every run, source 2 has
the higher delay, and source 1's setpoint-2 delay falls below s1-pp-setpoint's band: that claim
turns on start jitter (docs/reproductions.md, "Stability of the verdicts").
""",
    facts={"decfqb_delay": avg("s1", "DEC/FQbit", FTPS1, "delay"), "decfqb_window": s1_decfqb_window},
)
S2 = Discussion(
    """
That both DECbit pairs give every FTP 1.66 packets/s with no loss is {{s2-dec-fair}}
(s2-dec-fair), DEC/DEC's FTPs at {{s2-delays:DEC/DEC FTP|.2f}} s (thesis 0.60) and DEC/FQbit's
at {{s2-delays:DEC/FQbit FTP|.2f}} s (1.09–1.14). Under every FQ pair the Telnets get at least
{{s2-telnets-fq:lowest_rate|.2f}} packets/s at {{s2-telnets-fq:highest_delay|.2f}} s at most
(thesis 0.20–0.21 at 0.06 s). JK/FQ gives each FTP {{s2-jk-fq:FTP_lowest|.2f}} to
{{s2-jk-fq:FTP_highest|.2f}} packets/s, dropping {{s2-jk-fq:drop_rate_lowest|.3f}} to
{{s2-jk-fq:drop_rate_highest|.3f}} a second (thesis 1.59–1.60 and 0.06–0.08), with round trips
of {{jk_fq_delay|.2f}} s against 2.13–2.37.

G/FCFS segregates: its Telnets get {{s2-telnets-fcfs:G/FCFS telnet7|.2f}} and
{{s2-telnets-fcfs:G/FCFS telnet8|.2f}} packets/s (thesis 0.05 and 0.05); which FTPs lose changes
from run to run, so the row is compared rank-ordered, and winners and losers with large interval
deviations appear in {{s2-g-fcfs:runs_held}} of {{s2-g-fcfs:runs}} runs (s2-g-fcfs:
{{s2-g-fcfs}}). Our worst source gets {{g_fcfs_worst|.2f}} packets/s, averaged over the runs,
against the thesis's 1.09.

Under JK/FCFS the Telnets, which exact clocks lock out, get
{{s2-telnets-fcfs:JK/FCFS telnet7|.2f}} and {{s2-telnets-fcfs:JK/FCFS telnet8|.2f}} packets/s
against the thesis's 0.08 and 0.03 (s2-telnets-fcfs: {{s2-telnets-fcfs}}). That its FTPs take
turns at winning and losing, as the thesis describes, is {{s2-jk-fcfs-phases}}
(s2-jk-fcfs-phases, true of {{s2-jk-fcfs-phases:runs_held}} of {{s2-jk-fcfs-phases:runs}} runs):
in no run do more than {{jk_alternating_most}} of the six have both an interval above 1.25× the
fair share and one below 0.75× of it. Winning is common, at least {{jk_winning_fewest}} FTPs
winning an interval in every run; losing is rare, at most {{jk_losing_most}} FTPs losing one.
The losers are few and stay out long, up to {{jk_longest_loss|.0f}} s of the {{s2_measured|.0f}}
s measured: a JK source shut out under FCFS resends into the buffer the winners keep full, its
timer doubling between tries up to 4.3BSD's cap, while the others share the line at about a
fifth each, near the 1.25× mark. With a smaller backoff cap, shorter intervals or a longer run
more FTPs take a turn at losing, and the claim holds in more runs (docs/reproductions.md).

PP/FQ, with the setpoint of 3.8 derived from the thesis's own row, gives every FTP
{{s2-pp-fair:PP/FQ FTP lowest|.2f}} to {{s2-pp-fair:PP/FQ FTP highest|.2f}} packets/s at
{{s2-delays:PP/FQ FTP|.2f}} s (thesis 1.66 at 2.40 s) but each FTP drops {{pp_drops|.3f}}
packets a second where the thesis's dropped none (s2-pp-fair: {{s2-pp-fair}}): six setpoints of
3.8 fit the 25 places, but the queue averages {{pp_queue|.1f}} packets, so the losses come from
its fluctuations.
""",
    facts={
        "jk_fq_delay": avg("s2", "JK/FQ", FTPS2, "delay"),
        "g_fcfs_worst": s2_g_fcfs_worst,
        "jk_alternating_most": lambda ctx: _hi(r[2] for r in _jk_phases(ctx)),
        "jk_winning_fewest": lambda ctx: _lo(r[0] for r in _jk_phases(ctx)),
        "jk_losing_most": lambda ctx: _hi(r[1] for r in _jk_phases(ctx)),
        "jk_longest_loss": lambda ctx: _hi(r[3] for r in _jk_phases(ctx)),
        "s2_measured": s2_measured,
        "pp_drops": avg("s2", "PP/FQ", FTPS2, "drop_rate"),
        "pp_queue": lambda ctx: ctx("s2").queue("PP/FQ", "sw->sink", "occupancy_pkts"),
    },
)
S3 = Discussion(
    """
The claim on the background-off rows of PP/FQ, DEC/FQbit and DEC/DEC is {{s3-off}} (s3-off);
with the background on, DEC/FQbit splits the line three ways, {{s3-on-fq:DEC/FQbit ftp1|.2f}},
{{s3-on-fq:DEC/FQbit ftp2|.2f}} and {{s3-on-fq:DEC/FQbit bkg|.2f}} (thesis 3.33, 3.33 and 3.34),
and DEC/DEC gives the background {{s3-on-dec:background|.2f}} (5.00; s3-on-dec: {{s3-on-dec}}).
The background, which exact clocks lock out of the buffer, gets its packets under JK/FCFS:
{{jk_bkg|.2f}} packets/s (thesis 4.89), the FTPs {{jk_ftp1|.2f}} and {{jk_ftp2|.2f}} (2.21 and
2.35). JK/FQ gives the FTPs {{jkfq_ftp|.2f}} each against 3.04–3.08, retransmitting
{{jkfq_retx|.2f}} packets/s against 0.03.

JK/FCFS's window falls on losses while the background is on, as Fig. 6.10 shows, to
{{s3-jk-window:lowest_window_600_to_900_s|.0f}} at its lowest during 600–900 s, and during
400–600 s, where the thesis's is flat at 40, its lowest is
{{s3-jk-window:lowest_window_400_to_600_s|.1f}} (s3-jk-window: {{s3-jk-window}}). In the run the
claim reads the window last fell to 1 at {{jk_last_reset|.0f}} s, late in the first on period,
with a threshold of {{jk_threshold|.0f}} packets. From there congestion avoidance adds one
packet a round trip, and a round trip is at least the 4 s of propagation, so the climb to 40
takes at least {{jk_climb|.0f}} s: the window is at 39 again only at {{jk_back|.0f}} s. Neither
exact clocks nor sources started together bring it back sooner (docs/reproductions.md); the
thesis's window, flat at 40 from 300 s, must have lost its last packet of the first on period
earlier, or opened faster.

PP's rate spikes when the background leaves at 300 s ({{s3-pp-spike:highest_300_to_330_s|.1f}}
packets/s against {{s3-pp-spike:rate_before_300_s|.1f}} before; s3-pp-spike: {{s3-pp-spike}}),
as Fig. 6.13 shows. With the background on, PP/FQ gives the FTPs {{s3-on-fq:PP/FQ ftp1|.2f}} and
{{s3-on-fq:PP/FQ ftp2|.2f}} and the background {{s3-on-fq:PP/FQ bkg|.2f}} (thesis 3.35, 3.35 and
3.23; s3-on-fq: {{s3-on-fq}}). The split turns on whether a PP source loses a packet when the
background returns at 600 s. In the {{pp_clean}} of {{pp_runs}} runs where neither does,
{{pp_clean_shares}}. In the others the source that
loses one falls into a cycle: the packets it sends after the lost one are not acknowledged, so
its packets outstanding S climb to the window and the control law's queue estimate n̂_b = S −
R·μ̂ counts them as queued; its rate falls to its floor, a tenth of μ̂, until the per-packet
timer resends the packet three round trips later. The cumulative ACK that follows empties S at
once, the law sends faster than the share to refill the setpoint, the burst overflows the
source's FQ queue, and it loses packets again. FQ gives the share it leaves to the background
and the other FTP: in those runs the background gets {{pp_lossy_bkg|.2f}} on average. With the
per-packet timer at half its three round trips, a lost packet is resent before the window stalls
and the cycle does not start; with twice the buffer the bursts fit; either way the split is
three-way in every run. A single timer, the per-epoch law, exact clocks, sources started
together or larger windows do not restore it (docs/reproductions.md).

The Generic pairs collapse: at t = 0 the two windows of 40 meet 40 places and both FTPs lose
packets; resending one packet per timeout, with each round trip counted from first transmission,
grows the timeout without bound (G/FCFS's round trips average {{g_delay|.0f}} s) and the FTPs
never recover (the thesis's did), so under G/FCFS the background gets
{{s3-on-g-fcfs:background_under_G_FCFS|.2f}} packets/s against the thesis's 0.12 (s3-on-g-fcfs:
{{s3-on-g-fcfs}}).
""",
    facts={
        "jk_bkg": avg("s3", "JK/FCFS", ("bkg",), interval=ON),
        "jk_ftp1": avg("s3", "JK/FCFS", ("ftp1",), interval=ON),
        "jk_ftp2": avg("s3", "JK/FCFS", ("ftp2",), interval=ON),
        "jkfq_ftp": avg("s3", "JK/FQ", ("ftp1", "ftp2"), interval=ON),
        "jkfq_retx": avg("s3", "JK/FQ", ("ftp1", "ftp2"), "retx_rate", ON),
        "jk_last_reset": lambda ctx: _jk3_reset(ctx)[0],
        "jk_threshold": lambda ctx: _jk3_reset(ctx)[1],
        "jk_climb": lambda ctx: (40 - _jk3_reset(ctx)[1]) * 4,
        "jk_back": lambda ctx: _jk3_reset(ctx)[2],
        "pp_runs": lambda ctx: sum(len(x) for x in _pp3_runs(ctx)),
        "pp_clean": lambda ctx: len(_pp3_runs(ctx)[0]),
        "pp_clean_shares": lambda ctx: _said(
            _span(x for xs in _pp3_runs(ctx)[0] for x in xs), "the three get {} each", "no run shows it"
        ),
        "pp_lossy_bkg": lambda ctx: _mean(xs[2] for xs in _pp3_runs(ctx)[1]),
        "g_delay": avg("s3", "G/FCFS", ("ftp1", "ftp2"), "delay"),
    },
)
S4 = Discussion(
    """
FQ as the thesis's firewall (s4-fq-firewall: {{s4-fq-firewall}}): under every FQ pair the FTP
gets {{fq_ftp_low|.2f}} packets/s at least, the Telnet {{fq_tel_low|.2f}} at least at
{{fq_tel_delay|.2f}} s at most, and the ill-behaved source {{fq_bad_high|.2f}} at most, dropping
{{fq_bad_drops|.2f}} a second at most (thesis about 5.0; 0.21–0.23 at 0.06 s; 4.90–4.97,
dropping about 5). PP/FQ's FTP, with the setpoint of 3.1 its row implies, sees {{pp_delay|.2f}}
s (0.73).

Under FCFS the ill-behaved source, at exactly the line rate, keeps the buffer nearly full: the
FTP gets {{s4-fcfs-collapse:G/FCFS FTP|.2f}} packets/s with Generic (thesis 0.03),
{{s4-fcfs-collapse:DEC/DEC FTP|.2f}} with DECbit (0.48) and {{s4-fcfs-collapse:JK/FCFS FTP|.2f}}
with JK, where the thesis's JK kept 2.38. The Telnets, which exact clocks shut out under G and
JK, get {{fcfs_tel_low|.2f}} packets/s at least under the three FCFS pairs, against the thesis's
0 (s4-fcfs-collapse: {{s4-fcfs-collapse}}). The G/FCFS row's Telnet and ill-behaved columns are
swapped in the thesis, its values show. Charging dropped packets (the 1989 rule) cuts the
ill-behaved source from {{s4-punish:ill_behaved_uncharged|.2f}} to
{{s4-punish:ill_behaved_charged|.2f}} packets/s (s4-punish: {{s4-punish}}); it is not zero
because FQ is work-conserving and serves it whenever the window-limited FTP has nothing queued.
""",
    facts={
        "fq_ftp_low": over("s4", FQ_PAIRS, ("ftp1",), "throughput", min),
        "fq_tel_low": over("s4", FQ_PAIRS, ("telnet2",), "throughput", min),
        "fq_tel_delay": over("s4", FQ_PAIRS, ("telnet2",), "delay", max),
        "fq_bad_high": over("s4", FQ_PAIRS, ("bad3",), "throughput", max),
        "fq_bad_drops": over("s4", FQ_PAIRS, ("bad3",), "drop_rate", max),
        "pp_delay": avg("s4", "PP/FQ", ("ftp1",), "delay"),
        "fcfs_tel_low": over("s4", ("G/FCFS", "JK/FCFS", "DEC/DEC"), ("telnet2",), "throughput", min),
    },
)
S5 = Discussion(
    """
JK+G with FCFS shows the thesis's pattern, the Generic pair ahead and one JK source starving, in
{{s5-fcfs:runs_held}} of {{s5-fcfs:runs}} runs (s5-fcfs: {{s5-fcfs}}; thesis: Generic 3.21 each,
the starved JK source 0.18). {{shown_shares}}; {{other_shares}}. Which JK source loses
changes from run to run, so the averaged JK cells ({{jk1|.2f}} and {{jk2|.2f}}) are far from the
thesis's single run. With FQ the thesis's result reverses; that each JK source beats each
Generic one is true of {{s5-fq:runs_held}} of {{s5-fq:runs}} runs (s5-fq: {{s5-fq}}): the JK
sources get {{fq_jk|.2f}} on average against 2.75 and 2.83, and the worse Generic source
{{fq_worse_g|.2f}} averaged over the runs, against 1.20, which one changing from run to run.

The PP pairs, with the setpoint of 3.4 derived from the thesis's PP+G row, lose packets the
thesis's did not: each PP source drops {{pg_drops|.2f}} packets a second beside Generic and
{{pj_drops|.2f}} beside JK. Beside Generic PP gets {{s5-pp-g:PP_lowest|.2f}} at least (thesis
3.32; s5-pp-g: {{s5-pp-g}}); beside JK it gets {{pj_pp|.2f}} against JK's {{pj_jk|.2f}}, where
the thesis had all four at about 2.5 (s5-pp-jk: {{s5-pp-jk}}).
""",
    facts={
        "shown_shares": _shown_shares,
        "other_shares": lambda ctx: _said(
            _span(n["JK lowest"] for n in _s5_runs(ctx)[1]),
            "in the others the losing JK source keeps {}",
            "there are no others",
        ),
        "jk1": avg("s5", "JK+G/FCFS", ("s1",)),
        "jk2": avg("s5", "JK+G/FCFS", ("s2",)),
        "fq_jk": avg("s5", "JK+G/FQ", ("s1", "s2")),
        "fq_worse_g": lambda ctx: _mean(
            min(thr(r, "JK+G/FQ", f) for f in ("s3", "s4")) for r in ctx("s5").replications()
        ),
        "pg_drops": avg("s5", "PP+G/FQ", ("s1", "s2"), "drop_rate"),
        "pj_drops": avg("s5", "PP+JK/FQ", ("s1", "s2"), "drop_rate"),
        "pj_pp": avg("s5", "PP+JK/FQ", ("s1", "s2")),
        "pj_jk": avg("s5", "PP+JK/FQ", ("s3", "s4")),
    },
)
S6 = Discussion(
    """
The thesis's FCFS throughputs are inversely proportional to round trip, 7.14 on the short paths
and 2.86 on the long one; ours are {{s6-fcfs:G/FCFS short|.2f}} and {{s6-fcfs:G/FCFS long|.2f}}
under G/FCFS, {{s6-fcfs:JK/FCFS short|.2f}} and {{s6-fcfs:JK/FCFS long|.2f}} under JK/FCFS
(s6-fcfs: {{s6-fcfs}}). Each hop has 85 ms of propagation, derived from the thesis's own DEC/DEC
round trips (0.37 s here against 0.20 s over Scenario 1's single hop); with it selective DECbit
leaves lines idle and wastes {{s6-dec:bandwidth_wasted|.1%}} of the bandwidth (thesis 12%),
giving the short paths {{s6-dec:short_lowest|.2f}} to {{dec_short_high|.2f}} and the long one
{{s6-dec:long|.2f}} (6.1 and 2.67; s6-dec: {{s6-dec}}), with short-path round trips of
{{dec_delay|.2f}} s, close to the printed ones by construction.

The largest deviation of any path from 5.00 under JK/FQ or DEC/FQbit is {{fq_off}} packets/s
(thesis: 5.00 each); G/FQ gives the short paths {{g_fq_short|.2f}} and the long one
{{s6-fq:G_FQ_long|.2f}}, where the thesis has 5.29 and 4.71 (within its spread of 0.21); PP/FQ
gives the short paths {{pp_short|.2f}} and the long one {{pp_long|.2f}}, so the claim that the
FQ pairs divide the lines equally is {{s6-fq}}. Under every pair the most drops and
retransmissions per second is {{s6-no-drops:largest_drops_plus_retx}} (the thesis: none;
s6-no-drops: {{s6-no-drops}}): our ports hold every window, so nothing can be dropped, and a
timeout that fired before its ACK returned would show as a retransmission.
""",
    facts={
        "fq_off": lambda ctx: max(
            abs(thr(ctx("s6"), p, f) - 5) for p in ("JK/FQ", "DEC/FQbit") for f in FTPS6
        ),
        "dec_short_high": over("s6", ("DEC/DEC",), FTPS6[:3], "throughput", max),
        "dec_delay": avg("s6", "DEC/DEC", FTPS6[:3], "delay"),
        "g_fq_short": avg("s6", "G/FQ", FTPS6[:3]),
        "pp_short": avg("s6", "PP/FQ", FTPS6[:3]),
        "pp_long": avg("s6", "PP/FQ", ("ftp4",)),
    },
)
S7 = Discussion(
    """
PP/FQ gets {{s7-pp:lowest|.2f}} packets/s a source at least (thesis 1.70 and 1.72) with
{{s7-pp:drops_plus_retx}} drops and retransmissions a second, its packets outstanding reaching
{{s7-pp:most_outstanding|.0f}} at most, against its window of 60 (s7-pp: {{s7-pp}}); DEC/FQbit
gets {{s7-windows:DEC/FQbit mean|.2f}} (1.65). PP's probe takes multiples of 0.1 s, as Fig. 6.21
shows, but fixed packet times force that whatever PP does (s7-probe: {{s7-probe}}). JK gets
{{s7-windows:JK/FQ mean|.2f}} under FQ and {{s7-windows:JK/FCFS mean|.2f}} under FCFS, against
1.62–1.72 and 0.79–0.82, at round trips of {{jk_delay_low|.1f}} to {{jk_delay_high|.1f}} s
against 13.53–16.59 s, and its window reaches {{s7-windows:JK_FQ_largest_window|.0f}} under FQ
and {{s7-windows:JK_FCFS_largest_window|.0f}} under FCFS, where the thesis's reached about 35
and 25 (s7-windows: {{s7-windows}}).

DEC/DEC starves ({{s7-dec:highest|.2f}} packets/s at most, against 0.08–0.10), but its window
reaches {{s7-dec:largest_window_after_warm_up|.1f}} after the warm-up, against the thesis's 2 at
most (s7-dec: {{s7-dec}}), and by Little's law its mean window (throughput × round trip) is
{{dec_window|.1f}} packets, where the thesis's 0.08–0.10 packets/s at 12.97 s mean about one.
Panic mode is what holds the windows down: the Poisson sources keep {{dec_queue|.1f}} packets
waiting at the first gateway on average, around the panic level of 2 above which every packet is
marked, and {{dec_marked|.0%}} of the packets reaching it are marked; without panic mode the
windows grow to tens of packets. Near that level the sources' decisions, once every two round
trips, alternate between adding one packet and cutting by an eighth, and runs of clear windows
walk the window up to several packets. Exact clocks, sources started together, a capacity factor
of 1, a lower or higher panic level, and sources that cut sooner or harder all leave it above 2
(docs/reproductions.md). What held the thesis's windows at 2 we could not find. Our gateway
averages its queue over the last regeneration cycle, which the Poisson sources' idle periods
keep short, so the average often dips below the panic level and the FTPs' windows grow; a
gateway that averaged over longer would stay above it more of the time, but ours has no such
option to try. The topology figure is lost too, and in our reconstruction, the only one that
puts six sources at each line as the text says, only the first line ever queues.

The Generic pairs collapse as in Scenario 3 (round trips of {{g_delay|.0f}} s and more). In our
reconstruction every source crosses all three lines, so only the first ever queues: the
bottleneck migration the thesis allows for does not happen here.
""",
    facts={
        "jk_delay_low": over("s7", ("JK/FQ", "JK/FCFS"), FTPS78, "delay", min),
        "jk_delay_high": over("s7", ("JK/FQ", "JK/FCFS"), FTPS78, "delay", max),
        "dec_window": s7_dec_window,
        "dec_queue": lambda ctx: ctx("s7").queue("DEC/DEC", "sw0->sw1", "occupancy_pkts"),
        "dec_marked": lambda ctx: (
            ctx("s7").queue("DEC/DEC", "sw0->sw1", "marks")
            / ctx("s7").queue("DEC/DEC", "sw0->sw1", "arrivals")
        ),
        "g_delay": over("s7", ("G/FCFS", "G/FQ"), FTPS78, "delay", min),
    },
)
S8 = Discussion(
    """
PP/FQ gives the two sources {{s8-pp:PP_1|.2f}} and {{s8-pp:PP_2|.2f}} against 1.73 and 1.64,
losing {{pp_lost}} packets a second (s8-pp: {{s8-pp}}). JK/FQ gives the two sources
{{jkfq_1|.2f}} and {{jkfq_2|.2f}} (thesis 1.39 and 0.86) and DEC/FQbit gives the long-round-trip
source {{decfqb_2|.2f}} (0.03), so the claim that JK and DEC/FQbit strongly favour source 1 is
{{s8-unfair}} (source 1 over source 2: {{s8-unfair:JK/FCFS source 1/source 2|.2f}} under
JK/FCFS, {{s8-unfair:JK/FQ source 1/source 2|.2f}} under JK/FQ and
{{s8-unfair:DEC/FQbit source 1/source 2|.2f}} under DEC/FQbit). In our runs these sources lose
almost nothing, {{fq_lost|.3f}} drops and retransmissions a second at most under JK/FQ and
DEC/FQbit, and the thesis ascribes source 2's losses under DEC/FQbit to packet losses that its
Scenario 6 did not have. The thesis's DECbit delays for source 2 (about 12.3 s) are below its 24
s propagation round trip, which cannot be; ours are {{dec_d2_low|.1f}} to {{dec_d2_high|.1f}} s.

G/FCFS's source 2 resends almost nothing: {{g_retx2|.4f}} packets a second beside {{g_thr2|.3f}}
delivered, so resent packets are {{s8-generic:retransmitted_share_of_source_2|.1%}} of what it
sends, where the thesis's resent 0.43 a second beside 0.05 delivered, nearly 90% (s8-generic:
{{s8-generic}}). That share is of the rates averaged over the runs, which a run where source 2
recovers dominates; run by run it is {{g_share_low|.1%}} to {{g_share_high|.1%}}, the most where
source 2 sends least. The Generic pairs collapse here as in Scenarios 3 and 7: both windows of
60 meet the Poisson load at start-up and lose packets, and each timeout resends only the oldest
one, whose round trip, counted from its first transmission, is longer than the last, so the
timeout grows with every loss repaired (source 2's round trips average {{g_delay2|.0f}} s) and
the source waits out ever longer timeouts, resending one packet after each. The thesis's source
2 kept resending. Resending every unacknowledged packet on a timeout (go-back-N, the 1989
paper's reading) gives source 2's retransmissions back a large share of what it sends, though
well short of nine tenths; exact clocks, sources started together and no floor on the timeout
leave the share below a tenth (docs/reproductions.md).
""",
    facts={
        "pp_lost": lambda ctx: losses(ctx("s8"), "PP/FQ", FTPS78),
        "jkfq_1": avg("s8", "JK/FQ", ("ftp1",)),
        "jkfq_2": avg("s8", "JK/FQ", ("ftp2",)),
        "decfqb_2": avg("s8", "DEC/FQbit", ("ftp2",)),
        "fq_lost": lambda ctx: max(
            losses(ctx("s8"), p, (f,)) for p in ("JK/FQ", "DEC/FQbit") for f in FTPS78
        ),
        "dec_d2_low": over("s8", ("DEC/DEC", "DEC/FQbit"), ("ftp2",), "delay", min),
        "dec_d2_high": over("s8", ("DEC/DEC", "DEC/FQbit"), ("ftp2",), "delay", max),
        "g_share_low": lambda ctx: _lo(s8_g_shares(ctx)),
        "g_share_high": lambda ctx: _hi(s8_g_shares(ctx)),
        "g_thr2": avg("s8", "G/FCFS", ("ftp2",)),
        "g_retx2": avg("s8", "G/FCFS", ("ftp2",), "retx_rate"),
        "g_delay2": avg("s8", "G/FCFS", ("ftp2",), "delay"),
    },
)
