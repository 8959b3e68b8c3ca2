#!/usr/bin/env python3
"""Connection matrices for the NDP/EQDS validation runs, in htsim's `.cm` format.

    Nodes N
    Connections C
    src->dst id I start T size B          (T in picoseconds, B in bytes, I from 1)

fairsim reads the same files (`pattern = "matrix"`, docs/workloads.md), so both simulators run
the same transfers. Every matrix is drawn from `--seed` alone (Python's `random.Random`).

    ndp_matrices.py perm      --nodes 128 --size 1000000000 --seed S  -o perm128_s1.cm
    ndp_matrices.py incast    --nodes 128 --senders 32 --size 270000 --seed S -o incast32.cm
    ndp_matrices.py websearch --nodes 128 --load 0.6 --duration-ms 10 --seed S -o ws60.cm
    ndp_matrices.py all --out DIR --seeds 1 2 3      # the set the validation runs use

* perm: each host sends to another, every host receiving once: a uniformly random cyclic
  permutation (Sattolo), as fairsim's own `permutation` draws. The size is finite (1 GB, more
  than 10 ms at 100 Gb/s can carry) because htsim_eqds sends nothing for `size 0` (htsim_ndp
  would read it as "forever"); `size` is an int in htsim, so it must stay below 2^31.
* incast: `--senders` hosts drawn from 1..N-1 (a seeded sample, as htsim's gen_incast.py
  does) all start at 0 towards host 0. Default size 270,000 B: htsim's own NDP incast
  example (EXAMPLES/incast_scaling, the NDP paper's incast-scaling figure) uses it, 30 NDP
  packets of 9 KB; with an initial window of 30 the whole file leaves in the first RTT, so the
  run tests trimming and the pull pacer, not the window.
* websearch: Poisson arrivals at lambda = load * N * 100 Gb/s / (8 * mean size) over
  `--duration-ms`, source uniform, destination uniform over the others (fairsim's `poisson`
  with `sizes = "websearch"`: the same superposition), sizes drawn from fairsim's own web-search
  CDF, read from crates/fairsim/src/traffic/population.rs (points in 1460-B packets, linear
  between points, the first point a mass), so the two simulators draw from one table.
"""

import argparse
import itertools
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
POPULATION_RS = os.path.join(HERE, "..", "..", "crates", "fairsim", "src", "traffic", "population.rs")
LINE_BPS = 100e9
TABLE_PACKET = 1460.0


def websearch_cdf(path=POPULATION_RS):
    """fairsim's WEBSEARCH table, (bytes, cumulative probability)."""
    text = open(path).read()
    m = re.search(r"const WEBSEARCH: &\[\(f64, f64\)\] = &\[(.*?)\];", text, re.S)
    if not m:
        sys.exit(f"ndp_matrices: no WEBSEARCH table in {path}")
    pts = [
        (float(a) * TABLE_PACKET, float(b))
        for a, b in re.findall(r"\(\s*([0-9.]+)\s*,\s*([0-9.]+)\s*\)", m.group(1))
    ]
    assert pts and pts[-1][1] == 1.0, pts
    return pts


def cdf_mean(pts):
    """Mean as drawn (fairsim's SizeCdf::mean)."""
    m = pts[0][0] * pts[0][1]
    for (s0, c0), (s1, c1) in itertools.pairwise(pts):
        m += (c1 - c0) * (s0 + s1) / 2.0
    return m


def cdf_draw(pts, rng):
    """Inverse CDF, linear between points (fairsim's SizeCdf::draw)."""
    u = rng.random()
    i = 0
    while i < len(pts) and pts[i][1] <= u:
        i += 1
    if i == 0:
        s = pts[0][0]
    elif i == len(pts):
        s = pts[-1][0]
    else:
        (s0, c0), (s1, c1) = pts[i - 1], pts[i]
        s = s0 + (u - c0) / (c1 - c0) * (s1 - s0)
    return max(1, round(s))


def write(path, nodes, conns):
    with open(path, "w") as f:
        f.write(f"Nodes {nodes}\nConnections {len(conns)}\n")
        for i, (src, dst, start_ps, size) in enumerate(conns, 1):
            assert 0 < size < 2**31 and src != dst
            f.write(f"{src}->{dst} id {i} start {int(start_ps)} size {int(size)}\n")


def permutation(nodes, size, seed):
    rng = random.Random(seed)
    dst = list(range(nodes))
    for i in range(nodes - 1, 0, -1):  # Sattolo: one cycle, no fixed point
        j = rng.randrange(i)
        dst[i], dst[j] = dst[j], dst[i]
    return [(s, dst[s], 0, size) for s in range(nodes)]


def incast(nodes, senders, size, seed, receiver=0):
    if senders > nodes - 1:
        sys.exit(f"ndp_matrices: {senders} senders need more than {nodes} hosts")
    rng = random.Random(seed)
    others = [h for h in range(nodes) if h != receiver]
    chosen = sorted(rng.sample(others, senders))
    return [(s, receiver, 0, size) for s in chosen]


def websearch(nodes, load, duration_ms, seed):
    pts = websearch_cdf()
    lam = load * nodes * LINE_BPS / (8.0 * cdf_mean(pts))  # transfers per second
    rng = random.Random(seed)
    conns, t = [], 0.0
    end = duration_ms * 1e-3
    while True:
        t += rng.expovariate(lam)
        if t >= end:
            break
        src = rng.randrange(nodes)
        dst = rng.randrange(nodes - 1)
        dst += dst >= src
        conns.append((src, dst, round(t * 1e12), cdf_draw(pts, rng)))
    return conns, lam


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("perm")
    p.add_argument("--size", type=int, default=1_000_000_000)
    p = sub.add_parser("incast")
    p.add_argument("--senders", type=int, default=32)
    p.add_argument("--size", type=int, default=270_000)
    p = sub.add_parser("websearch")
    p.add_argument("--load", type=float, default=0.6)
    p.add_argument("--duration-ms", type=float, default=10.0)
    for name in ("perm", "incast", "websearch"):
        q = sub.choices[name]
        q.add_argument("--nodes", type=int, default=128)
        q.add_argument("--seed", type=int, default=1)
        q.add_argument("-o", "--out", required=True)
    p = sub.add_parser("all")
    p.add_argument("--out", required=True)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    a = ap.parse_args()

    if a.cmd == "perm":
        write(a.out, a.nodes, permutation(a.nodes, a.size, a.seed))
    elif a.cmd == "incast":
        write(a.out, a.nodes, incast(a.nodes, a.senders, a.size, a.seed))
    elif a.cmd == "websearch":
        conns, lam = websearch(a.nodes, a.load, a.duration_ms, a.seed)
        write(a.out, a.nodes, conns)
        print(f"{a.out}: {len(conns)} transfers, lambda {lam:.0f}/s", file=sys.stderr)
    else:
        os.makedirs(a.out, exist_ok=True)
        for s in a.seeds:
            write(f"{a.out}/perm128_1GB_s{s}.cm", 128, permutation(128, 1_000_000_000, s))
            write(f"{a.out}/incast32_270KB_s{s}.cm", 128, incast(128, 32, 270_000, s))
            write(f"{a.out}/incast127_270KB_s{s}.cm", 128, incast(128, 127, 270_000, s))
            write(f"{a.out}/incast128_k10_270KB_s{s}.cm", 250, incast(250, 128, 270_000, s))
            conns, lam = websearch(128, 0.6, 10.0, s)
            write(f"{a.out}/websearch60_10ms_s{s}.cm", 128, conns)
            print(f"seed {s}: websearch {len(conns)} transfers (lambda {lam:.0f}/s)", file=sys.stderr)


if __name__ == "__main__":
    main()
