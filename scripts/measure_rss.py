"""Wall time, peak memory and memory over time of one command (docs/performance.md, "Scale"):

    python3 scripts/measure_rss.py [--every SECONDS] -- COMMAND [ARGS...]

Runs COMMAND under `/usr/bin/time -v` and prints one JSON line: the wall time, the peak
resident memory (`Maximum resident set size`), the `N events in X s` lines the command printed
(fairsim's engine time), and, with `--every`, the command's resident memory (`VmRSS` of
/proc/PID/status) sampled every SECONDS, to show whether it grows over a long run, and the
largest sample split into the program's state (`RssAnon`: its heap and stacks) and its code
(`RssFile`: the program's and its libraries' pages read from their files).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import threading
import time

#: the fields of /proc/PID/status sampled, and what they are: the whole, the state and the code
FIELDS = ("VmRSS", "RssAnon", "RssFile")
PARTS = ("whole", "state", "code")


def rss_mib(pid: int) -> tuple[float, ...] | None:
    """`FIELDS` of process `pid`, in MiB; None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            text = status.read()
    except OSError:
        return None
    found = [re.search(rf"{field}:\s+(\d+)", text) for field in FIELDS]
    return tuple(int(f.group(1)) / 1024 for f in found) if all(found) else None


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
    largest: tuple[float, ...] | None = None  # none without samples, not a sample of zeros
    finished = threading.Event()

    def sample() -> None:
        nonlocal largest
        while not finished.wait(args.every):
            child = child_of(proc.pid)
            mib = rss_mib(child) if child else None
            if mib is not None:
                samples.append((round(time.monotonic() - started, 1), round(mib[0], 1)))
                largest = mib if largest is None else max(largest, mib)

    sampler = threading.Thread(target=sample)
    if args.every:
        sampler.start()
    out, err = proc.communicate()
    wall = time.monotonic() - started
    finished.set()
    if args.every:
        sampler.join()
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    split = largest and {name: round(m, 1) for name, m in zip(PARTS, largest, strict=True)}
    print(
        json.dumps(
            {
                "command": " ".join(command),
                "exit": proc.returncode,
                "wall_s": round(wall, 2),
                "peak_mib": round(int(peak.group(1)) / 1024, 1) if peak else None,
                "engine": re.findall(r"([\d,]+) events in ([\d.]+) s", out),
                "rss_mib_over_time": samples,
                "largest_sample_mib": split,
            }
        )
    )


if __name__ == "__main__":
    main()
