//! Handing freed heap memory back to the system.
//!
//! Why: glibc's malloc keeps what is freed for later allocations rather than returning it, and
//! gives each thread that allocates a heap (arena) of its own. A scenario is parsed on a thread
//! of its own (`scenario::load`), so that the parse's pieces, freed once it is done, leave that
//! heap nearly empty (the scenario keeps a few: names, parameters) rather than holes between the
//! scenario's pieces; but an emptied heap still counts in the process's memory until it is
//! trimmed: the bench's 256-flow dumbbell, loaded and run on one thread, peaked at 24.6 MB
//! untrimmed against 17.3 MB before the parse had a thread of its own (docs/performance.md,
//! "Memory at 100,000 flows").

/// How many bytes a run must give back at its end (its packet pool's chunks, and its
/// connections' states) for the heaps to be trimmed then, once (`return_freed`). The chunks were
/// its queues' and pipes' room at their fullest, freed among the run's live state; in whole
/// pages that room goes back to the system before the report is made, not on top of the run's
/// peak (a k = 64 fat-tree over 20 µs gives back its pool of some 660,000 slots, 63 MB; a PFC run's
/// queues keep their packets, and so its pool). The trim took 0.9 ms after the 256-flow
/// dumbbell, 0.07 ms after a run that freed 34 kB; a run that frees half a mebibyte has had some
/// 5,000 packets queued or in flight, so tens of thousands of events, a few milliseconds of work
/// at the least. Runs that give back less, of which a sweep may make thousands one after
/// another, are left alone.
pub const WORTH_TRIMMING: usize = 512 << 10;

/// Returns the heaps' free pages to the system: on glibc `malloc_trim`, elsewhere nothing (other
/// C libraries and systems return memory their own way). It walks every heap: a millisecond or
/// so for a large one, so it is for once a load or a run, not per event.
pub fn return_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases pages the allocator holds free; it takes the heaps'
    // locks itself and touches no memory the program owns.
    unsafe {
        libc::malloc_trim(0);
    }
}
