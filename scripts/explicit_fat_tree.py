"""A TCP fat-tree written out as an explicit link list, each flow on a fewest-hop route drawn at
random (as htsim's permutations place their flows), for the benchmark of split runs on fabrics
that are not generated (docs/performance.md, *One run on every core*):

    python scripts/explicit_fat_tree.py [--k 8] [--seed 1] -o OUT.toml

Starts from `validation/htsim/fat-tree-permutation.toml` at `--k`, resolved by fairsim (every
link and its ports given), and replaces its permutation workload by one flow per host to a host
drawn without fixed points, each with an explicit route: at each node the next hop is drawn
uniformly among the neighbours one hop nearer the destination. Needs fairsim installed."""

from __future__ import annotations

import argparse
import collections
import random
import tomllib
from pathlib import Path

import fairsim

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "validation" / "htsim" / "fat-tree-permutation.toml"
#: each node's neighbours
Graph = dict[str, set[str]]


def hops_to(adjacent: Graph, dst: str) -> dict[str, int]:
    """Each node's distance in hops to `dst`."""
    dist, todo = {dst: 0}, collections.deque([dst])
    while todo:
        node = todo.popleft()
        for other in adjacent[node]:
            if other not in dist:
                dist[other] = dist[node] + 1
                todo.append(other)
    return dist


def route(adjacent: Graph, hosts: set[str], ends: tuple[str, str], rng: random.Random) -> list[str]:
    """A fewest-hop route between `ends` through switches, drawn hop by hop."""
    src, dst = ends
    dist, path = hops_to(adjacent, dst), [src]
    while path[-1] != dst:
        here = path[-1]
        nearer = [n for n in adjacent[here] if dist.get(n) == dist[here] - 1 and (n == dst or n not in hosts)]
        path.append(rng.choice(sorted(nearer)))
    return path


def value(v: object) -> str:
    """`v` written as TOML, tables inline."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key} = {value(x)}" for key, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    return str(v)


def explicit(k: int, seed: int) -> str:
    """The scenario's text."""
    resolved = fairsim.load(SOURCE, set={"topology.k": str(k), "run.seed": str(seed)}).resolved_toml()
    doc = tomllib.loads(resolved)
    adjacent: Graph = collections.defaultdict(set)
    for link in doc["links"].values():
        a, b = link["between"]
        adjacent[a].add(b)
        adjacent[b].add(a)
    hosts = [n for n in doc["nodes"] if len(adjacent[n]) == 1]
    rng = random.Random(seed)
    peers = hosts[:]
    while any(a == b for a, b in zip(hosts, peers, strict=True)):
        rng.shuffle(peers)
    transport = value(doc["workloads"]["perm"]["transport"])
    host_set, flows = set(hosts), []
    for i, (src, dst) in enumerate(zip(hosts, peers, strict=True)):
        path = ", ".join(f'"{n}"' for n in route(adjacent, host_set, (src, dst), rng))
        flows.append(
            f'f{i} = {{ src = "{src}", dst = "{dst}", app = "ftp", packet_size = "1500B", '
            f"route = [{path}], transport = {transport} }}"
        )
    head, _, rest = resolved.partition("[flows]")
    head = head.replace('forwarding = "ecmp"', 'forwarding = "static"')
    head = "\n".join(line for line in head.splitlines() if not line.startswith("fairness = "))
    after_flows = rest.split("[workloads.perm]")[0]
    return f"{head}\n[flows]\n" + "\n".join(flows) + "\n" + after_flows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args()
    try:
        text = explicit(args.k, args.seed)
    except fairsim.ScenarioError as e:
        parser.exit(2, f"explicit_fat_tree.py: --k {args.k}, --seed {args.seed}: {e}\n")
    partial = args.out.with_name(args.out.name + ".partial")
    partial.write_text(text)
    partial.replace(args.out)


if __name__ == "__main__":
    main()
