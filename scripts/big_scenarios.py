"""Writes the big scenarios to a folder, for measuring how loading,
validating and running grow with a scenario's size (docs/performance.md, "Scale"):

    python3 scripts/big_scenarios.py OUTDIR [NAME ...]

(only the named files, e.g. `flows-1000.toml`, if names are given; the criterion benchmark
`cargo bench -p fairsim --bench scale` writes the two it times this way)

- `flows-N.toml` (N = 1,000, 10,000, 100,000): N FTP flows, each from its own host, through one
  bottleneck port to one sink, under three pairs: G/FCFS, G/FQ and G/DRR. The hosts' links name
  FCFS, so the pair's discipline runs at the bottleneck and the ports after it (`left->right`,
  `right->left` for the ACKs, `right->sink`), not at the N ports from the left router to the
  hosts, which carry one flow's ACKs each. `flows-N-everywhere.toml` is the same network without
  that: the pair's discipline at every gateway port, as a scenario file gets by default.
- `grid-100x100.toml` and `tree-10000.toml`: 10,000-node topologies, a 100 × 100 mesh (19,800
  links; routes of up to 198 hops) and a random tree with preferential attachment (seeded, so the
  same file every time), each with 300 FTP flows between random node pairs, so that every flow's
  route is computed over the whole graph.
- `long-1x.toml`, `long-4x.toml`, `long-16x.toml`: the reference dumbbell
  (`scenarios/examples/dumbbell.toml`) measured for 4,000 s, 16,000 s and 64,000 s of simulated
  time after its 10 s warm-up (about 62 M, 250 M and 1 G events for one pair), in 4 measurement
  intervals each, so that the results are the same size whatever the duration: peak memory
  should not grow with it.
  `long-16x-fine.toml` is the longest with 1,000 s intervals (64 of them), to show what the
  per-interval records cost.

Each flow's start is jittered over the first 100 ms (`run.start_jitter`), so that the N flows'
first windows do not all leave at the same instant.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PAIRS = """[pairs]
"G/FCFS" = { transport = "generic", qdisc = "fcfs" }
"G/FQ" = { transport = "generic", qdisc = "fq" }
"G/DRR" = { transport = "generic", qdisc = "drr" }
"""


def names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def array(items: list[str]) -> str:
    return "[" + ", ".join(f'"{i}"' for i in items) + "]"


def flows_through_one_port(n: int, everywhere: bool) -> str:
    """N flows from N hosts through one bottleneck: each flow's fair share is 1 Mb/s."""
    hosts = names("h", n)
    bottleneck_mbps = n  # 1 Mb/s per flow
    access = "" if everywhere else ', qdisc = "fcfs"'
    lines = [
        f"# {n:,} FTP flows from {n:,} hosts through one {bottleneck_mbps:,} Mb/s bottleneck"
        " (scripts/big_scenarios.py)",
        f"nodes = {array([*hosts, 'left', 'right', 'sink'])}",
        "",
        "[scenario]",
        f'name = "flows-{n}{"-everywhere" if everywhere else ""}"',
        f'description = "{n} FTP flows from {n} hosts through one bottleneck"',
        "",
        "[run]",
        'duration = "1s"',
        'warmup = "0.5s"',
        "seed = 1",
        'start_jitter = "100ms"',
        "",
        "[links]",
    ]
    lines += [f'{h} = {{ between = ["{h}", "left"], rate = "1Gbps", delay = "1ms"{access} }}' for h in hosts]
    lines += [
        f'bottleneck = {{ between = ["left", "right"], rate = "{bottleneck_mbps}Mbps", delay = "10ms",'
        f" buffer = {4 * n} }}",
        f'exit = {{ between = ["right", "sink"], rate = "{10 * bottleneck_mbps}Mbps", delay = "1ms" }}',
        "",
        "[flows]",
    ]
    lines += [f'f{i} = {{ src = "{h}", dst = "sink", app = "ftp", window = 8 }}' for i, h in enumerate(hosts)]
    return "\n".join(lines) + "\n\n" + PAIRS


def topology(name: str, description: str, nodes: list[str], links: list[tuple[str, str]], flows: int) -> str:
    rng = random.Random(17)
    lines = [
        f"# {description} (scripts/big_scenarios.py)",
        f"nodes = {array(nodes)}",
        "",
        "[scenario]",
        f'name = "{name}"',
        f'description = "{description}"',
        "",
        "[run]",
        'duration = "2s"',
        'warmup = "1s"',
        "seed = 1",
        'start_jitter = "100ms"',
        "",
        "[links]",
    ]
    lines += [
        f'l{i} = {{ between = ["{a}", "{b}"], rate = "100Mbps", delay = "1ms", buffer = 50 }}'
        for i, (a, b) in enumerate(links)
    ]
    lines += ["", "[flows]"]
    for i in range(flows):
        src, dst = rng.sample(nodes, 2)
        lines.append(f'f{i} = {{ src = "{src}", dst = "{dst}", app = "ftp", window = 8 }}')
    return "\n".join(lines) + "\n\n" + PAIRS


def grid(side: int, flows: int) -> str:
    node = [[f"n{r}_{c}" for c in range(side)] for r in range(side)]
    links = []
    for r in range(side):
        for c in range(side):
            if c + 1 < side:
                links.append((node[r][c], node[r][c + 1]))
            if r + 1 < side:
                links.append((node[r][c], node[r + 1][c]))
    nodes = [n for row in node for n in row]
    return topology(
        f"grid-{side}x{side}", f"a {side} x {side} mesh with {flows} FTP flows", nodes, links, flows
    )


def tree(n: int, flows: int) -> str:
    """A random tree grown by preferential attachment: each new node joins an existing node
    chosen with probability proportional to its degree (a few hubs, many leaves)."""
    rng = random.Random(10_000)
    nodes = names("n", n)
    links = [(nodes[0], nodes[1])]
    ends = [0, 1]  # each node once per link it has: a uniform pick is proportional to degree
    for i in range(2, n):
        j = rng.choice(ends)
        links.append((nodes[j], nodes[i]))
        ends += [j, i]
    return topology(f"tree-{n}", f"a random {n}-node tree with {flows} FTP flows", nodes, links, flows)


def long_dumbbell(duration_s: int, interval_s: int) -> str:
    text = (ROOT / "scenarios" / "examples" / "dumbbell.toml").read_text()
    run = f'[run]\nduration = "{duration_s + 10}s"\nwarmup = "10s"\ninterval = "{interval_s}s"\n'
    start, end = text.index("[run]\n"), text.index("seed = 1\n")
    return (
        f"# The reference dumbbell over {duration_s:,} s (scripts/big_scenarios.py)\n"
        + text[:start]
        + run
        + text[end:]
    )


def main(out: Path, only: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for n in (1_000, 10_000, 100_000):
        files[f"flows-{n}.toml"] = flows_through_one_port(n, everywhere=False)
        files[f"flows-{n}-everywhere.toml"] = flows_through_one_port(n, everywhere=True)
    files["grid-100x100.toml"] = grid(100, 300)
    files["tree-10000.toml"] = tree(10_000, 300)
    for factor in (1, 4, 16):
        files[f"long-{factor}x.toml"] = long_dumbbell(4_000 * factor, 1_000 * factor)
    files["long-16x-fine.toml"] = long_dumbbell(64_000, 1_000)
    unknown = sorted(set(only) - set(files))
    if unknown:
        known = ", ".join(files)
        print(f"big_scenarios.py: no such scenario: {', '.join(unknown)} (known: {known})", file=sys.stderr)
        sys.exit(2)
    chosen = {name: text for name, text in files.items() if not only or name in only}
    for name, text in chosen.items():
        (out / name).write_text(text)
    print(f"{len(chosen)} scenarios in {out}")


if __name__ == "__main__":
    from usage import answer_help

    answer_help(__doc__)
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(Path(sys.argv[1]), sys.argv[2:])
