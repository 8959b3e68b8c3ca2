//! A hint to the processor to bring memory into the cache before it is used.
//!
//! Why: on a large topology every event touches a port that no recent event touched (6,144
//! ports at k = 16), and its state and the packet leading its pipe are read from memory, one
//! miss after another. The event set knows which port the next event most likely concerns
//! (`EventQueue::likely_next_port`), so the loop asks for that port's lines before it handles
//! the current event, and for the packet leading its pipe after (`Simulation::run_events`):
//! the fetches overlap the current event's work. A hint changes no value the program computes,
//! only when memory arrives; a wrong guess costs a few instructions.

/// Asks for every cache line `at` spans. A no-op on processors without the instruction.
#[inline(always)]
pub fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = (at as *const T).cast::<i8>();
        let size = std::mem::size_of::<T>();
        // a line per 64 bytes from the start, and the last byte's (the start need not be aligned)
        for offset in (0..size).step_by(64).chain([size.saturating_sub(1)]) {
            // SAFETY: a prefetch only hints: it reads nothing the program sees and cannot
            // fault, and the address lies inside `at`, a live reference.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
