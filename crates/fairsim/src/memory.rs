//! Handing freed heap memory back to the system.
//!
//! Why: glibc's malloc keeps what is freed for later allocations rather than returning it, and
//! gives each thread that allocates a heap (arena) of its own. A scenario is parsed on a thread
//! of its own (`scenario::load`), so that the parse's pieces, freed once it is done, leave that
//! heap nearly empty (the scenario keeps a few: names, parameters) rather than holes between the
//! scenario's pieces; but an emptied heap still counts in the process's memory until it is
//! trimmed: the bench's 256-flow dumbbell, loaded and run on one thread, peaked at 24.6 MB
//! untrimmed against 17.3 MB before the parse had a thread of its own (docs/performance.md,
//! "The scenario parsed on a thread of its own").

/// How many bytes a run must give back at its end (its packet blocks, and its connections'
/// states) for the heaps to be trimmed then, once (`return_freed`). The blocks were its queues'
/// and pipes' room at their fullest, freed among the run's live state; in whole pages that room
/// goes back to the system before the report is made. A k = 64 fat-tree over 20 µs gives back
/// 123 MiB of blocks, and trimming then takes 67 MiB off its resident memory (k = 32: 15 MiB of
/// blocks, 8 MiB off); the 256-flow dumbbell over 10 s gives back 4.9 MiB and trimming takes
/// 2.9 MiB off, the k = 8 HPCC permutation 0.99 MiB and 0.6 MiB off (the RoCE one, 0.81 MiB,
/// nothing: its blocks lie among the packets PFC's queues keep), so that the report is made in
/// that room, not on top of the run's peak. The trim took 0.9 ms after the dumbbell, 0.07 ms
/// after a run that freed 34 kB; a run that frees half a mebibyte of blocks has had some 6,000
/// packets queued or in flight, so tens of thousands of events, a few milliseconds of work at
/// the least and seconds for the runs above. Runs that give back less, of which a sweep may make thousands one after
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
