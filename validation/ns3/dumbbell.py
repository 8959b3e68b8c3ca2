"""The reference dumbbell's numbers (docs/validation.md, *The settings, side by side*), shared by
ns3_dumbbell.py and fairsim_dumbbell.py so that both simulators build the same network.

Standard library only: it is imported under ns-3's Python (its own venv) as well as the project's.

The reference runs its bottleneck at 10 Mb/s. `network(rate_mbps)` scales it: every rate and every
buffer by rate_mbps / 10, delays and packet sizes unchanged. At 100 Mb/s that is a 100 Mb/s
bottleneck, 1 Gb/s access links, a 50 Mb/s CBR (a 1000-byte datagram every 0.16 ms) and buffers
of 1000 packets, so the CBR takes the same half of the bottleneck and the buffer holds the same
time (80 ms of the bottleneck's packets) as at 10 Mb/s.
"""

from dataclasses import dataclass

PAYLOAD = 1000  # application bytes of a TCP segment (ns-3's MSS) and of a UDP datagram
REFERENCE_MBPS = 10  # the bottleneck of the reference


@dataclass(frozen=True)
class Network:
    neck_bps: int  # R1-R2, 10 ms
    access_bps: int  # every host's link to its router, 1 ms
    cbr_bps: int  # the UDP CBR's payload rate (ns-3's OnOffApplication DataRate)
    access_buffer: int  # packets: ns-3's device queue on the access links (no queue disc)
    neck_buffer: int  # packets: the bottleneck's queue disc (FIFO, RED); its device holds 1 more

    @property
    def cbr_gap_s(self) -> float:
        """Time between two datagrams of the CBR."""
        return PAYLOAD * 8 / self.cbr_bps


def network(rate_mbps: float = REFERENCE_MBPS) -> Network:
    """The reference dumbbell at a bottleneck of `rate_mbps` (rates and buffers scaled with it)."""
    scale = rate_mbps / REFERENCE_MBPS
    if scale * 100 != round(scale * 100):
        raise ValueError(f"{rate_mbps} Mb/s: buffers of 100 packets at 10 Mb/s must scale to whole packets")
    return Network(
        neck_bps=round(10e6 * scale),
        access_bps=round(100e6 * scale),
        cbr_bps=round(5e6 * scale),
        access_buffer=round(100 * scale),
        neck_buffer=round(100 * scale),
    )


def jain(xs):
    """Jain's fairness index of the goodputs xs."""
    s2 = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * s2) if s2 > 0 else float("nan")
