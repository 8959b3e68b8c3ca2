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
