"""How often deterministic phase locks occur, with and without the hosts' clock noise.

An audit of the reproductions named four locks (docs/reproductions.md, *Phase locks*); the fourth
(a NewReno dumbbell beside a CBR whose period divides one second) did not lock in our
reconstruction of that dumbbell, so it is not measured. Each case below runs one scenario and
pair under ten seeds with `run.clock_jitter` off, at 1 ms, and at one packet time of the
bottleneck (the scale of the phase that locks), and counts the runs in which the lock holds.
Prints a Markdown table for docs/reproductions.md.

    python3 scripts/phase_locks.py [--seeds 10]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

import fairsim

ROOT = Path(__file__).resolve().parent.parent


def shut_out(flows: str) -> Callable[[pd.DataFrame], bool]:
    """Locked: some flow matching `flows` delivers nothing in the measurement window."""
    return lambda df: bool((df[df.flow.str.match(flows)].delivered == 0).any())


def background_starved(df: pd.DataFrame) -> bool:
    """Locked: the background delivers less than 5% of what it sends (the thesis: 98%)."""
    bkg = df[df.flow == "bkg"].iloc[0]
    return bool(bkg.delivered < 0.05 * bkg.sent)


@dataclass
class Case:
    name: str
    scenario: str
    pair: str
    packet_time: str
    locked: Callable[[pd.DataFrame], bool]
    overrides: tuple[str, ...] = ()


CASES = [
    Case(
        "dks89 S2 JK/FCFS: losers' backed-off retransmissions",
        "scenarios/dks89/s2_overloaded.toml",
        "JK/FCFS",
        "142857us",
        shut_out(r"ftp"),
    ),
    Case(
        "dks89 S3 DEC/DEC: the FTP beside the firehose",
        "scenarios/dks89/s3_ill_behaved.toml",
        "DEC/DEC",
        "142857us",
        shut_out(r"ftp"),
    ),
    Case(
        "keshav91 S3 JK/FCFS: CBR background at half the line rate",
        "scenarios/keshav91/s3_background.toml",
        "JK/FCFS",
        "100ms",
        background_starved,
    ),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args()
    seeds = list(range(1, args.seeds + 1))
    print("| lock | runs locked, exact clocks | clock_jitter = 1 ms | clock_jitter = one packet time |")
    print("|---|---|---|---|")
    for c in CASES:
        counts = []
        for jitter in ("0s", "1ms", c.packet_time):
            sets = [*c.overrides, f'run.clock_jitter="{jitter}"']
            r = fairsim.run(ROOT / c.scenario, pair=c.pair, seed=seeds, set=sets, progress=False)
            flows = r.flows
            per_seed = flows.groupby("seed")
            counts.append(sum(c.locked(df) for _, df in per_seed))
        cells = " | ".join(f"{n} of {len(seeds)}" for n in counts)
        print(f"| {c.name} ({c.packet_time}) | {cells} |")


if __name__ == "__main__":
    main()
