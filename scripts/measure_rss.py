"""Wall time, peak memory and memory over time of one command (docs/performance.md, "Scale"):

    python3 scripts/measure_rss.py [--every SECONDS] -- COMMAND [ARGS...]

Runs COMMAND under `/usr/bin/time -v` and prints one JSON line: the wall time, the peak
resident memory (`Maximum resident set size`), the `N events in X s` lines the command printed
(fairsim's engine time), and, with `--every`, the command's resident memory (`VmRSS` of
/proc/PID/status) sampled every SECONDS, to show whether it grows over a long run.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import threading
import time


def rss_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            found = re.search(r"VmRSS:\s+(\d+)", status.read())
    except OSError:
        return None
    return int(found.group(1)) / 1024 if found else None


def child_of(pid: int) -> int | None:
    """The command itself: the one child of /usr/bin/time."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            first = children.read().split()
    except OSError:
        return None
    return int(first[0]) if first else None


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--every", type=float, help="sample the resident memory every SECONDS")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")
    started = time.monotonic()
    proc = subprocess.Popen(
        ["/usr/bin/time", "-v", *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    samples: list[tuple[float, float]] = []
    finished = threading.Event()

    def sample() -> None:
        while not finished.wait(args.every):
            child = child_of(proc.pid)
            mib = rss_mib(child) if child else None
            if mib is not None:
                samples.append((round(time.monotonic() - started, 1), round(mib, 1)))

    sampler = threading.Thread(target=sample)
    if args.every:
        sampler.start()
    out, err = proc.communicate()
    wall = time.monotonic() - started
    finished.set()
    if args.every:
        sampler.join()
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    print(
        json.dumps(
            {
                "command": " ".join(command),
                "exit": proc.returncode,
                "wall_s": round(wall, 2),
                "peak_mib": round(int(peak.group(1)) / 1024, 1) if peak else None,
                "engine": re.findall(r"([\d,]+) events in ([\d.]+) s", out),
                "rss_mib_over_time": samples,
            }
        )
    )


if __name__ == "__main__":
    main()
