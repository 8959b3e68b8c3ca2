#!/usr/bin/env python3
"""Connection matrices for the RoCE/HPCC/Swift validation runs (htsim `.cm` format).

    roce_matrices.py --out DIR --seeds 1 2 3

Drawn with ndp_matrices.py's generators (same formats, same seeds, same web-search table), for
the k = 8 fat-tree (128 hosts), per seed S:

* perm128_1GB_sS.cm       cyclic permutation, 1,000,000,000 B each, all start 0 (lasts any
                          run of 10 ms: 100 Gb/s carries 125 MB in 10 ms);
* incast32_1MB_sS.cm      32 senders (a seeded sample of hosts 1..127) to host 0, 1,000,000 B
                          each, all start 0 (RoCE/HPCC: 112 packets of 9,000 B; Swift: 250 of 4,000 B);
* incast127_1MB_sS.cm     every other host (1..127) to host 0, the same;
* websearch60_10ms_sS.cm  Poisson arrivals at 60% load over 10 ms, fairsim's web-search sizes.

Flow ids are the line numbers (from 1): htsim_roce/htsim_hpcc use them as the flow id (ECMP hash)
and the FSFLOW lines of build.sh's patched programs report them.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ndp_matrices as nm

INCAST_SIZE = 1_000_000
PERM_SIZE = 1_000_000_000


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for s in a.seeds:
        nm.write(f"{a.out}/perm128_1GB_s{s}.cm", 128, nm.permutation(128, PERM_SIZE, s))
        nm.write(f"{a.out}/incast32_1MB_s{s}.cm", 128, nm.incast(128, 32, INCAST_SIZE, s))
        nm.write(f"{a.out}/incast127_1MB_s{s}.cm", 128, nm.incast(128, 127, INCAST_SIZE, s))
        conns, lam = nm.websearch(128, 0.6, 10.0, s)
        nm.write(f"{a.out}/websearch60_10ms_s{s}.cm", 128, conns)
        print(f"seed {s}: websearch {len(conns)} transfers (lambda {lam:.0f}/s)", file=sys.stderr)


if __name__ == "__main__":
    main()
