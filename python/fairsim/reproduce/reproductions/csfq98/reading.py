"""Stoica, Shenker & Zhang 1998: what the claims, figures and discussions read from the runs:
the pairs, the fair shares, and each pair's throughputs over their fair share in Figures 4 and 6."""

from __future__ import annotations

from fairsim.reproduce.claims import Context, Missing

PAIRS = ("FIFO", "RED", "FRED-1", "FRED-2", "DRR", "CSFQ")
FAIR3 = 10 / 32  # Mb/s, Figure 3's fair share
FAIR6 = 10 / 11  # Mb/s, Figure 6's


def mbps(m, pair: str, flow: str) -> float:
    return m.value(pair, flow, "mbps")


def deviations(m, pair: str) -> list[float]:
    """Figure 3(a): each of the 32 UDPs' throughput under `pair` over its fair share, less one,
    flow 0 first."""
    return [mbps(m, pair, f"udp{i}") / FAIR3 - 1 for i in range(32)]


def _sweep(ctx: Context, exp: str) -> list[tuple[float, object]]:
    if exp not in ctx.sweeps:
        raise Missing(exp)
    return ctx.sweeps[exp]


def _fig4(ctx: Context) -> dict[str, dict[int, float]]:
    """Figure 4: each pair's TCP throughput over its fair share 10/N, by N."""
    out: dict[str, dict[int, float]] = {p: {} for p in PAIRS}
    for n, m in _sweep(ctx, "fig4"):
        for p in PAIRS:
            out[p][int(n)] = mbps(m, p, "tcp0") / (10 / n)
    return out


def _fig6(ctx: Context, exp: str, flow: str) -> dict[str, dict[int, float]]:
    """Figure 6: each pair's `flow` throughput over its fair share, by K."""
    out: dict[str, dict[int, float]] = {p: {} for p in PAIRS}
    for k, m in _sweep(ctx, exp):
        for p in PAIRS:
            out[p][int(k)] = mbps(m, p, flow) / FAIR6
    return out
