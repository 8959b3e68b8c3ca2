"""Handing a finished run's freed memory back to the system before its report is parsed, and
keeping a lone run in the heap its scenario was loaded in.

The engine's memory comes from C's heap (glibc's malloc), which keeps what is freed for later
allocations rather than returning it, and Python allocates its objects apart from that heap.
So a finished 100,000-flow run's state (two gigabytes) stayed counted while Python parsed the
run's report, and the process's peak was their sum: `malloc_trim` after the run took the peak
from 4,102 to 3,483 MiB (docs/performance.md, "Memory per flow"). It walks the heap, a
millisecond or so, so it is called only after big runs (told by their report's size). Trimming
after loading a big scenario was measured too, and changed nothing: what a loaded scenario
holds is the scenario.

glibc gives each thread that allocates a heap of its own (an arena). A run goes on a worker
thread (`fairsim.runner`), so it did not reuse the room that loading its scenario freed in the
main thread's heap: the parse's pieces, freed between the scenario's own, which stay part of the
process. At 100,000 flows that was about 300 MB more resident memory for the whole run
(docs/performance.md, "Memory at 100,000 flows"). `one_heap` makes threads created from then on
share the main heap. It is asked for only when the runs go one at a time (one worker): then
only a run that splits over threads has several threads allocating from the one heap, and its
threads allocate little once running (their packets' blocks are pooled per thread,
`net::block_queue`). glibc keeps the setting for the process, and a thread that finds a heap
freed by an earlier thread reuses that one.
"""

from __future__ import annotations

import ctypes
import functools

#: Runs whose report is shorter than this (bytes of JSON) leave the heap alone.
BIG = 4 * 1024 * 1024

#: glibc's `mallopt` parameter for the most arenas (malloc.h).
M_ARENA_MAX = -8


@functools.cache
def _glibc(name: str):
    """The C library's function `name` if it is glibc's, else None."""
    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError, TypeError):  # another C library or system: nothing to call
        return None


def _malloc_trim():
    return _glibc("malloc_trim")


def one_heap() -> None:
    """Threads made from now on allocate from the main thread's heap (see above)."""
    mallopt = _glibc("mallopt")
    if mallopt is not None:
        mallopt(M_ARENA_MAX, 1)


def return_freed(size: int) -> None:
    """After a run whose report is `size` bytes: freed memory back to the system, if big."""
    trim = _malloc_trim() if size >= BIG else None
    if trim is not None:
        trim(0)
