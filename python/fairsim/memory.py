"""Handing a finished run's freed memory back to the system before its report is parsed.

The engine's memory comes from C's heap (glibc's malloc), which keeps what is freed for later
allocations rather than returning it, and Python allocates its objects apart from that heap.
So a finished 100,000-flow run's state (two gigabytes) stayed counted while Python parsed the
run's report, and the process's peak was their sum: `malloc_trim` after the run took the peak
from 4,102 to 3,483 MiB (docs/performance.md, "Memory per flow"). It walks the heap, a
millisecond or so, so it is called only after big runs (told by their report's size). Trimming
after loading a big scenario was measured too, and changed nothing: what a loaded scenario
holds is the scenario.
"""

from __future__ import annotations

import ctypes
import functools

#: Runs whose report is shorter than this (bytes of JSON) leave the heap alone.
BIG = 4 * 1024 * 1024


@functools.cache
def _malloc_trim():
    try:
        return ctypes.CDLL(None).malloc_trim  # glibc
    except (OSError, AttributeError, TypeError):  # another C library or system: nothing to call
        return None


def return_freed(size: int) -> None:
    """After a run whose report is `size` bytes: freed memory back to the system, if big."""
    trim = _malloc_trim() if size >= BIG else None
    if trim is not None:
        trim(0)
