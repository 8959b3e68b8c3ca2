"""Handing a finished run's freed memory back to the system before its report is parsed.

The engine's memory comes from C's heap (glibc's malloc), which keeps what is freed for later
allocations rather than returning it, and Python allocates its objects apart from that heap.
So a finished 100,000-flow run's state (two gigabytes) stayed counted while Python parsed the
run's report, and the process's peak was their sum: `malloc_trim` after the run lowers the
peak by the freed state (docs/performance.md, "Memory at 100,000 flows"). It walks the heap, a
millisecond or so, so it is called only after big runs (told by their report's size).

The engine trims the same way once it has loaded a scenario (`fairsim::memory::return_freed`,
glibc's `malloc_trim`, elsewhere nothing): parsing frees much of what it allocated, and a run on
a worker thread, in a heap of its own, could not use that room. This module calls the same trim,
not `ctypes`', whose import alone is 0.3 MB of every command.
"""

from __future__ import annotations

from fairsim._core import return_freed as _trim

#: Runs whose report is shorter than this (bytes of JSON) leave the heap alone: a small example's
#: is about 130 kB, the 256-flow dumbbell's 1.7 MB, whose run holds 8 MB.
BIG = 256 * 1024


def return_freed(size: int) -> None:
    """After a run whose report is `size` bytes: freed memory back to the system, if big."""
    if size >= BIG:
        _trim()
