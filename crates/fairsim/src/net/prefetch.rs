//! A hint to the processor to bring memory into the cache before it is used.
//!
//! Why: on a large topology every event touches a port that no recent event touched (6,144
//! ports at k = 16), and its state and the packet leading its pipe are read from memory, one
//! miss after another. The event set knows which port the next event most likely concerns
//! (`EventQueue::likely_next_port`), so the loop asks for that port's pipe before it handles
//! the current event, and for the packet leading the pipe after (`Simulation::run_events`):
//! the fetches overlap the current event's work. A hint changes no value the program computes,
//! only when memory arrives; a wrong guess costs a few instructions.
//!
//! One line each, no more: asking for every line of the port's state and of the packet's
//! record as well took 6% longer on the 256-flow dumbbell, whose state stays in the cache, for
//! no more gain at k = 16 (docs/performance.md).

/// Asks for the cache line where `at` starts. A no-op on processors without the instruction.
#[inline(always)]
pub fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints: it reads nothing the program sees and cannot fault, and
    // the address is that of a live reference.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((at as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
