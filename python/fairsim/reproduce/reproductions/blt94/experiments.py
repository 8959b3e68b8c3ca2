"""Kim & Farber 1994: every configuration of §4.1.2 swept over the arrival rate λ.

One experiment per configuration (BW_N, D, file size) and bottleneck BW_b, each a sweep over
the offered load ρ = λ/λ_cap, where λ_cap = BW_b/(8F) is the rate of files that fills the
bottleneck. The paper's axis is λ itself; its grid is lost, so ours is the same fractions of
λ_cap in every configuration (from 5% to 95%, where the paper stops "as ρ approaches 100%").
A run is a fixed number of arrivals (scenario notes), so every point measures about as many
transfers whatever its λ.

Each run's transfers are summarised by the engine (`transfer_summary`: R, Θ, P = Θ/R, Jain's
index, N = λR); a point's value is the mean over its three runs, and Θ is also given the paper's
pessimistic way (its footnote 13: the bytes over the *longest* of the three runs' times).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairsim.reproduce.claims import Context, Missing
from fairsim.reproduce.model import Experiment, Sweep

PACKET = 500
ACK = 40
SIZES = {"10KB": 10_000, "100KB": 100_000, "1MB": 1_000_000}
#: Files per run (full, `--quick`): about 400,000 packets of file per run at 100 KB and 1 MB.
ARRIVALS = {"10KB": 4000, "100KB": 2000, "1MB": 400}
QUICK_ARRIVALS = {"10KB": 400, "100KB": 200, "1MB": 40}
#: Offered loads ρ = λ/λ_cap.
LOADS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
QUICK_LOADS = (0.2, 0.5, 0.8)
SCHEMES = ("BLT", "TCP")
BOTTLENECK = "s1->s2"


@dataclass(frozen=True)
class Config:
    id: str
    title: str
    bw_n: float
    d: float
    size: str = "100KB"

    @property
    def bottlenecks(self) -> tuple[float, ...]:
        return (self.bw_n / 5, 3 * self.bw_n / 5, self.bw_n)

    @property
    def short(self) -> str:
        """The configuration in a figure's title: BW_N, D and F."""
        return f"BW_N = {mbps(self.bw_n)} Mb/s, D = {self.d * 1e3:g} ms, F = {self.size}"

    def experiment_id(self, bw_b: float) -> str:
        return f"{self.id}-{mbps(bw_b)}"


def mbps(bw: float) -> str:
    return f"{bw / 1e6:g}"


CONFIGS = (
    Config("ref", "reference network: BW_N = 150 Mb/s, D = 30 ms, F = 100 KB (§4.2.1)", 150e6, 0.030),
    Config("gbit", "faster network: BW_N = 1 Gb/s, D = 30 ms, F = 100 KB (§4.2.2)", 1e9, 0.030),
    Config("d3ms", "smaller network: BW_N = 150 Mb/s, D = 3 ms, F = 100 KB (§4.2.3)", 150e6, 0.003),
    Config("d1.8ms", "D = 1.8 ms, BW_N = 150 Mb/s, F = 100 KB (§4.2.3)", 150e6, 0.0018),
    Config("slow", "slower network: BW_N = 15 Mb/s, D = 30 ms, F = 100 KB (§4.2.4)", 15e6, 0.030),
    Config("ref-1MB", "reference network with F = 1 MB (§4.2.5)", 150e6, 0.030, "1MB"),
    Config("gbit-1MB", "1 Gb/s network with F = 1 MB (§4.2.5)", 1e9, 0.030, "1MB"),
    Config("ref-10KB", "reference network with F = 10 KB (§4.2.5)", 150e6, 0.030, "10KB"),
)
CONFIG = {c.id: c for c in CONFIGS}


def buffer_packets(bw_b: float, d: float) -> int:
    """BW_b × D/3 (the bottleneck's own round trip) in whole 500-byte packets, at least 1."""
    return max(1, math.floor(bw_b * d / 3 / (8 * PACKET) + 1e-9))


def largest_round_trip(c: Config, bw_b: float) -> int:
    """The longest a packet's round trip can take in this network, in whole µs (as ns): the
    propagation D; a full bottleneck buffer ahead of the packet and its own time on that line;
    the sender's whole file waiting at its own access line before it, and its time on the egress
    line; its ACK's time on the three lines back (ACKs never queue: they leave the receiver at
    most one per data packet's time on the bottleneck, and each takes less on every line).
    Every scheme's retransmission timer is floored here, so that no timer fires while the
    packet it waits for is still queued (the scenario's notes)."""
    seconds = (
        c.d
        + (buffer_packets(bw_b, c.d) + 1) * 8 * PACKET / bw_b
        + 8 * (SIZES[c.size] + PACKET) / c.bw_n
        + 8 * ACK * (2 / c.bw_n + 1 / bw_b)
    )
    return math.ceil(seconds * 1e6 - 1e-6) * 1000


def lambda_cap(bw_b: float, size: str) -> float:
    """The arrival rate whose files fill the bottleneck: BW_b / (8F)."""
    return bw_b / (8 * SIZES[size])


def network(c: Config, bw_b: float) -> dict:
    """The scenario's lines for configuration `c` at bottleneck `bw_b`."""
    hop = f"{round(c.d / 6 * 1e9)}ns"
    floor = f"{largest_round_trip(c, bw_b)}ns"
    return {
        "links.access.rate": f"{c.bw_n:.0f}bps",
        "links.access.delay": hop,
        "links.bottleneck.rate": f"{bw_b:.0f}bps",
        "links.bottleneck.delay": hop,
        "links.bottleneck.buffer": buffer_packets(bw_b, c.d),
        "links.egress.rate": f"{c.bw_n:.0f}bps",
        "links.egress.delay": hop,
        "flows.files.size": c.size,
        **dict.fromkeys((f"pairs.{p}.transport.min_rto" for p in (*SCHEMES, "BT")), floor),
    }


def run_length(arrivals: float, files: int) -> dict:
    """`files` arrivals at `arrivals` per second: the arrival window A, its first tenth the
    warm-up, one interval to its end, and two more for the transfers to finish."""
    window = round(files / arrivals * 1e9)
    warmup = window // 10
    interval = window - warmup
    return {
        "flows.files.arrivals": arrivals,
        "flows.files.stop": f"{window}ns",
        "run.warmup": f"{warmup}ns",
        "run.interval": f"{interval}ns",
        "run.duration": f"{warmup + 3 * interval}ns",
    }


def load_sweep(c: Config, bw_b: float, pairs: tuple[str, ...]) -> Sweep:
    cap = lambda_cap(bw_b, c.size)
    return Sweep(
        "offered load λ/λ_cap",
        values=LOADS,
        quick_values=QUICK_LOADS,
        overrides=lambda rho: run_length(rho * cap, ARRIVALS[c.size]),
        quick_overrides=lambda rho: run_length(rho * cap, QUICK_ARRIVALS[c.size]),
        pairs=lambda _: list(pairs),
    )


def experiment(c: Config, bw_b: float) -> Experiment:
    # Bully-Tyrant runs where the paper shows it: the reference network at BW_b = 30 Mb/s
    with_bt = c.id == "ref" and bw_b == c.bw_n / 5
    pairs = (*SCHEMES, "BT") if with_bt else SCHEMES
    return Experiment(
        c.experiment_id(bw_b),
        "blt94/network.toml",
        f"{c.title}, BW_b = {mbps(bw_b)} Mb/s (buffer {buffer_packets(bw_b, c.d)} packets)",
        sweep=load_sweep(c, bw_b, pairs),
        overrides=network(c, bw_b),
        seeds=3,
    )


def queue_trace(c: Config, bw_b: float, rho: float) -> Experiment:
    """Figure 8: the bottleneck's queue over a stretch of one run of each scheme."""
    cap = lambda_cap(bw_b, c.size)
    return Experiment(
        "queue",
        "blt94/network.toml",
        f"Figure 8: the bottleneck's queue, reference network, BW_b = {mbps(bw_b)} Mb/s, λ = {rho * cap:g}/s",
        overrides={**network(c, bw_b), **run_length(rho * cap, 200), "run.trace_queues": [BOTTLENECK]},
        one_run=True,
    )


EXPERIMENTS = (
    *(experiment(c, bw_b) for c in CONFIGS for bw_b in c.bottlenecks),
    queue_trace(CONFIG["ref"], 30e6, 0.5),
)


# ----- reading the runs ------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """One scheme at one load: the means over its runs (and the paper's pessimistic Θ)."""

    load: float
    arrival_rate: float
    response_s: float
    throughput_Bps: float
    #: Θ the paper's way: the runs' mean bytes over the longest run's elapsed time.
    throughput_longest_Bps: float
    power: float
    power_longest: float
    jain: float
    outstanding: float
    utilisation: float
    unfinished: int
    runs: int
    #: The half-width of the 90% confidence interval of R over the runs (the paper's Figure 6).
    response_ci90: float

    @property
    def log_power(self) -> float:
        return math.log10(self.power) if self.power > 0 else float("nan")


def _utilisation(run: dict) -> float:
    """The bottleneck's busy fraction over the measurement interval (arrivals after warm-up)."""
    for q in run.get("queue_intervals", []):
        if q["port"] == BOTTLENECK and not q["warmup"]:
            return q["utilisation"]
    return float("nan")


#: Student's t, 95th percentile, by degrees of freedom (a two-sided 90% interval).
T95 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833}


def _ci90(xs: list[float]) -> float:
    if len(xs) < 2:
        return 0.0
    return float(T95.get(len(xs) - 1, 1.645) * np.std(xs, ddof=1) / math.sqrt(len(xs)))


def point(load: float, m, pair: str, seed: int | None = None) -> Point | None:
    """Scheme `pair`'s point at `load`, over every replication or over replication `seed`."""
    runs = [r for r in m.results.runs if r["pair"] == pair and seed in (None, r["seed"])]
    sums = [r["transfer_summary"][0] for r in runs]
    done = [s for s in sums if s["response_s"] is not None]
    if not done:
        return None
    mean = lambda key: float(np.mean([s[key] for s in done]))  # noqa: E731
    r = mean("response_s")
    theta = mean("throughput_bps")
    bytes_ = np.mean([s["throughput_bps"] * s["elapsed_s"] for s in done])
    theta_longest = float(bytes_ / max(s["elapsed_s"] for s in done))
    return Point(
        load=load,
        arrival_rate=mean("arrival_rate"),
        response_s=r,
        throughput_Bps=theta,
        throughput_longest_Bps=theta_longest,
        power=theta / r,
        power_longest=theta_longest / r,
        jain=mean("jain"),
        outstanding=mean("outstanding"),
        utilisation=float(np.mean([_utilisation(x) for x in runs])),
        unfinished=sum(s["unfinished"] for s in sums),
        runs=len(runs),
        response_ci90=_ci90([s["response_s"] for s in done]),
    )


def curve(ctx: Context, exp: str, pair: str) -> list[Point]:
    """Scheme `pair`'s points of experiment `exp`, by load."""
    if exp not in ctx.sweeps:
        raise Missing(exp)
    points = [point(load, m, pair) for load, m in ctx.sweeps[exp]]
    return [p for p in points if p is not None]


def best(points: list[Point]) -> Point:
    """The maximum-power point (the paper's P_m)."""
    return max(points, key=lambda p: p.power)


def max_log_power(ctx: Context, c: Config, bw_b: float, pair: str) -> float:
    return best(curve(ctx, c.experiment_id(bw_b), pair)).log_power


# ----- the stability table's knobs -------------------------------------------------------------


def _fields(**values: str):
    """`NAME = value` in the transport of every pair whose file sets NAME to something else."""
    from fairsim.reproduce.stability import transport_field

    def overrides(sc) -> dict:
        out: dict = {}
        for name, value in values.items():
            out |= transport_field(name, value)(sc)
        return out

    return overrides


def knobs():
    """The timers and filter the baseline rule excludes, each for every scheme that has the
    option: the timer fitted to Table 1's TCP column, with and without TCP's filter, and
    4.4BSD's coarse timer."""
    from fairsim.reproduce.stability import Variant

    return (
        Variant(
            "RTO floor 1 ms",
            "the floor that fits Table 1's TCP column best (scripts/blt_calibrate_timer.py; every floor "
            "up to 20 ms fits it alike): below the round trip with a full buffer, so timers fire while "
            "the packets they wait for are still queued",
            overrides=_fields(min_rto="1ms"),
        ),
        Variant(
            "TCP without the duplicate filter",
            "TCP takes every duplicate ACK as a drop, also those caused by packets the receiver already "
            "had (footnote 5 read literally); BLT keeps its filter",
            overrides=_fields(ignore_duplicate_deliveries="false"),
        ),
        Variant(
            "Table 1's fitted TCP",
            "both of the above: the 1 ms floor and no filter in TCP, the baseline whose TCP comes nearest "
            "Table 1's TCP column (a sum of squares of 0.013 over its six cells), through spurious "
            "timeouts and the fast retransmits their duplicates start",
            overrides=_fields(min_rto="1ms", ignore_duplicate_deliveries="false"),
        ),
        Variant(
            "4.4BSD's timer",
            "a 500 ms clock (PR_SLOWHZ) with its two-tick floor of 1 s, the coarse timer of the kernels "
            "of the paper's time",
            overrides=_fields(min_rto="1s", clock_granularity="500ms"),
        ),
    )
